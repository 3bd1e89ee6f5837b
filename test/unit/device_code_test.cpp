// device_code_test.cpp: which GPUs a build's CUDA targets run on (gpu/cuda/device_code.h),
// the check the GPU service makes before it uses a GPU.
#include <gtest/gtest.h>

#include <cstring>

#include "cuda/device_code.h"

namespace {

using gh::CudaTarget;

struct Targets {
    CudaTarget t[16];
    int n;
    explicit Targets(const char *list) : n(gh::parse_cuda_targets(list, t, 16)) {}
    bool runs(int major, int minor) const { return gh::device_has_code(major, minor, t, n); }
};

// The default list of CMakeLists.txt.
constexpr const char *kDefault = "75-real,80-real,86-real,89-real,90-real,90-virtual";

TEST(DeviceCode, ParsesCMakesLists)
{
    Targets a("75-real;90-virtual");
    ASSERT_EQ(a.n, 2);
    EXPECT_EQ(a.t[0].arch, 75);
    EXPECT_TRUE(a.t[0].real);
    EXPECT_EQ(a.t[1].arch, 90);
    EXPECT_FALSE(a.t[1].real);
    // a bare number is machine code and PTX, as CMake builds it
    Targets b("80");
    ASSERT_EQ(b.n, 2);
    EXPECT_TRUE(b.t[0].real);
    EXPECT_FALSE(b.t[1].real);
    EXPECT_EQ(Targets("").n, 0);
    EXPECT_EQ(Targets(kDefault).n, 6);
}

TEST(DeviceCode, TheDefaultBuildRunsOnTuringAndNewer)
{
    Targets d(kDefault);
    EXPECT_TRUE(d.runs(7, 5));   // T4
    EXPECT_TRUE(d.runs(8, 0));   // A100
    EXPECT_TRUE(d.runs(8, 6));   // A10
    EXPECT_TRUE(d.runs(8, 7));   // Orin: sm_86's code runs on 8.7
    EXPECT_TRUE(d.runs(8, 9));   // L4
    EXPECT_TRUE(d.runs(9, 0));   // H100, H200
    EXPECT_TRUE(d.runs(10, 0));  // B200: compute_90 PTX, compiled by the driver
    EXPECT_TRUE(d.runs(12, 0));  // RTX 50xx, the same
    EXPECT_FALSE(d.runs(7, 0));  // V100: sm_75 code needs 7.5, and no PTX is older than 9.0
    EXPECT_FALSE(d.runs(6, 1));
}

TEST(DeviceCode, MachineCodeRunsOnItsMajorOnly)
{
    Targets old("80-real;86-real;89-real;90-real;90-virtual"); // the list before sm_75 was added
    EXPECT_FALSE(old.runs(7, 5)); // the T4 this build could not run on
    Targets one("86-real");
    EXPECT_FALSE(one.runs(8, 0)); // 8.6 code needs 8.6 or above
    EXPECT_TRUE(one.runs(8, 9));
    EXPECT_FALSE(one.runs(9, 0)); // a new major needs its own code or PTX
    Targets ptx("80-virtual");
    EXPECT_TRUE(ptx.runs(9, 0));
    EXPECT_FALSE(ptx.runs(7, 5));
}

TEST(DeviceCode, DescribesTheTargets)
{
    Targets d("75-real;90-virtual");
    char out[64];
    gh::describe_cuda_targets(d.t, d.n, out, sizeof out);
    EXPECT_STREQ(out, "sm_75, compute_90");
    char tiny[8];
    gh::describe_cuda_targets(d.t, d.n, tiny, sizeof tiny); // truncated, still a string
    EXPECT_LT(std::strlen(tiny), sizeof tiny);
}

} // namespace
