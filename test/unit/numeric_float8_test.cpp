/*
 * numeric_float8_test.cpp: gpu/formulas/numeric_float8.h's fast path
 * against what numeric_float8 does, which is strtod of the numeric's
 * decimal text: random values of numeric(p, s) columns, the edges of the
 * fast path, both stored forms and the special values.  The stored bytes
 * come from heap_pages.h's writer, which follows numeric.c.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>

#include "formulas/numeric_float8.h"
#include "heap_pages.h"

namespace {

/* The fast path's answer for the decimal text dec, or nothing where it declines. */
std::optional<double> fast(const std::string &dec)
{
    const std::vector<unsigned char> p = heap_pages::numeric_payload(dec);
    double x;
    if (!gh::numeric_float8_fast(p.data(), static_cast<uint32_t>(p.size()), &x))
        return std::nullopt;
    return x;
}

/* A random value of numeric(p, s) as its decimal text with s fraction digits (s may exceed p, or be negative). */
std::string random_value(std::mt19937_64 &rng, int p, int s)
{
    std::string digits;
    const int n = static_cast<int>(rng() % static_cast<uint64_t>(p)) + 1; /* significant digits, at most p */
    for (int k = 0; k < n; k++)
        digits += static_cast<char>('0' + rng() % 10);
    digits = std::string(static_cast<size_t>(p - n), '0') + digits; /* p digits in all, leading zeros */
    std::string out = rng() % 2 ? "-" : "";
    if (s <= 0)
        return out + digits + std::string(static_cast<size_t>(-s), '0');
    if (s >= p)
        return out + "0." + std::string(static_cast<size_t>(s - p), '0') + digits;
    return out + digits.substr(0, static_cast<size_t>(p - s)) + "." + digits.substr(static_cast<size_t>(p - s));
}

} // namespace

/* Every value of a column of at most 15 digits converts on the fast path, to strtod's double. */
TEST(NumericFloat8, ColumnsOfFifteenDigitsAlwaysConvert)
{
    std::mt19937_64 rng(20261207);
    const int shapes[][2] = {{15, 2}, {15, 0}, {15, 15}, {12, 4}, {10, 2}, {6, 2}, {5, -3}, {3, 5}, {1, 0}, {15, 7}};
    for (auto &shape : shapes) {
        for (int k = 0; k < 20000; k++) {
            const std::string dec = random_value(rng, shape[0], shape[1]);
            const std::optional<double> got = fast(dec);
            ASSERT_TRUE(got.has_value()) << dec;
            const double want = std::strtod(dec.c_str(), nullptr);
            ASSERT_EQ(*got, want) << dec << " in numeric(" << shape[0] << ", " << shape[1] << ")";
            ASSERT_EQ(std::signbit(*got), std::signbit(want == 0 ? 0.0 : want)) << dec; /* numeric has no -0 */
        }
    }
}

/* Wider values: where the fast path answers, its answer is strtod's; it declines past 2^53 digits or 10^22. */
TEST(NumericFloat8, WiderValuesAnswerRightOrDecline)
{
    std::mt19937_64 rng(7);
    int answered = 0, declined = 0;
    for (int k = 0; k < 50000; k++) {
        const int p = 16 + static_cast<int>(rng() % 25), s = static_cast<int>(rng() % 40) - 8;
        const std::string dec = random_value(rng, p, s);
        const std::optional<double> got = fast(dec);
        if (!got) {
            declined++;
            continue;
        }
        answered++;
        ASSERT_EQ(*got, std::strtod(dec.c_str(), nullptr)) << dec;
    }
    EXPECT_GT(answered, 1000);
    EXPECT_GT(declined, 1000);
    /* the edges: 2^53 itself and one past it; 10^22 and 10^23; 10^-22 and 10^-23 */
    EXPECT_EQ(fast("9007199254740992"), 9007199254740992.0);
    EXPECT_FALSE(fast("9007199254740993").has_value());
    EXPECT_EQ(fast("10000000000000000000000"), 1e22);
    EXPECT_FALSE(fast("100000000000000000000000").has_value());
    EXPECT_EQ(fast("0.0000000000000000000001"), 1e-22);
    EXPECT_FALSE(fast("0.00000000000000000000001").has_value());
}

/* Both stored forms, zero with a scale, and the special values. */
TEST(NumericFloat8, FormsAndSpecialValues)
{
    EXPECT_EQ(fast("0.00"), 0.0);
    EXPECT_FALSE(std::signbit(*fast("-0.00")));
    EXPECT_EQ(fast("-12.5"), -12.5);
    EXPECT_EQ(fast("0.1"), 0.1);
    EXPECT_EQ(fast("1234.5678"), 1234.5678);
    /* a display scale past 63 takes the long form */
    const std::string long_scale = "0.5" + std::string(70, '0');
    EXPECT_EQ(heap_pages::numeric_payload(long_scale)[1] & 0x80, 0) << "the long form";
    EXPECT_EQ(fast(long_scale), 0.5);
    EXPECT_TRUE(std::isnan(*fast("NaN")));
    EXPECT_EQ(fast("Infinity"), HUGE_VAL);
    EXPECT_EQ(fast("-Infinity"), -HUGE_VAL);
    /* bytes numeric.c never writes: a trailing zero digit, a digit past 9999, too short */
    const unsigned char zero_digit[] = {0x00, 0x80, 0x00, 0x00};
    const unsigned char big_digit[] = {0x00, 0x80, 0x10, 0x27};
    double x;
    EXPECT_FALSE(gh::numeric_float8_fast(zero_digit, sizeof zero_digit, &x));
    EXPECT_FALSE(gh::numeric_float8_fast(big_digit, sizeof big_digit, &x));
    EXPECT_FALSE(gh::numeric_float8_fast(zero_digit, 1, &x));
}
