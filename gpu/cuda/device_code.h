/*
 * device_code.h: whether a GPU can run this build's kernels, as plain data.
 *
 * The CUDA backend is compiled for a list of targets (CMake's
 * CUDA_ARCHITECTURES, GH_CUDA_ARCHITECTURES: "75-real;80-real;90-virtual").
 * A GPU that none of them fits, a V100 (7.0) under the default list, fails
 * only when the first kernel is launched, with "no kernel image is available
 * for execution on the device": every query would then lose its batch to
 * an error.  So the GPU service asks this first, and a GPU without code is
 * reported with one line and left out, its work binned on the CPU.
 *
 * The rules are CUDA's: machine code (SASS) for sm_XY runs on a GPU of the
 * same major version X and a minor version of at least Y; PTX for
 * compute_XY is compiled by the driver, at load time, for any GPU of
 * compute capability X.Y or higher.
 */
#ifndef GH_DEVICE_CODE_H
#define GH_DEVICE_CODE_H

#include <cstdio>

namespace gh {

/* One CUDA target: sm_<arch> machine code (real) or compute_<arch> PTX (virtual). */
struct CudaTarget {
    int arch; /* 10 x major + minor: 75, 80, 90 */
    bool real;
};

/*
 * The targets of a CMake CUDA_ARCHITECTURES list ("75-real;90-virtual",
 * separated by ';' or ','), at most `capacity` of them; a bare number is
 * both machine code and PTX, as CMake builds it.  How many were written.
 */
inline int parse_cuda_targets(const char *list, CudaTarget *out, int capacity)
{
    int n = 0;
    const char *p = list;
    while (*p != '\0' && n < capacity) {
        while (*p == ';' || *p == ',' || *p == ' ')
            p++;
        int arch = 0, digits = 0;
        while (*p >= '0' && *p <= '9') {
            arch = arch * 10 + (*p++ - '0');
            digits++;
        }
        if (digits == 0) { /* not a target: skip to the next separator */
            while (*p != '\0' && *p != ';' && *p != ',')
                p++;
            continue;
        }
        bool real = true, virt = true;
        if (p[0] == '-' && p[1] == 'r') {
            virt = false;
        } else if (p[0] == '-' && p[1] == 'v') {
            real = false;
        }
        while (*p != '\0' && *p != ';' && *p != ',')
            p++;
        if (real && n < capacity)
            out[n++] = CudaTarget{arch, true};
        if (virt && n < capacity)
            out[n++] = CudaTarget{arch, false};
    }
    return n;
}

/* Whether a GPU of compute capability major.minor runs one of targets[0 .. n). */
inline bool device_has_code(int major, int minor, const CudaTarget *targets, int n)
{
    const int cc = 10 * major + minor;
    for (int i = 0; i < n; i++) {
        const CudaTarget &t = targets[i];
        if (t.real ? (t.arch / 10 == major && t.arch % 10 <= minor) : t.arch <= cc)
            return true;
    }
    return false;
}

/* The targets as a user reads them: "sm_75, sm_80, compute_90". */
inline void describe_cuda_targets(const CudaTarget *targets, int n, char *out, size_t size)
{
    size_t used = 0;
    if (size > 0)
        out[0] = '\0';
    for (int i = 0; i < n && used < size; i++) {
        int w = std::snprintf(out + used, size - used, "%s%s_%d", i > 0 ? ", " : "",
                              targets[i].real ? "sm" : "compute", targets[i].arch);
        if (w < 0)
            break;
        used += static_cast<size_t>(w);
    }
}

} // namespace gh

#endif /* GH_DEVICE_CODE_H */
