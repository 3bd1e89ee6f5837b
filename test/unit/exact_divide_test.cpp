/*
 * exact_divide_test.cpp: the cluster kernel's cell / per_block by multiply
 * and shift (gpu/formulas/exact_divide.h) against the division, for every cell of
 * the kernel's sizes and the largest it allows.
 */
#include <gtest/gtest.h>

#include <cstdint>

#include "formulas/exact_divide.h"

namespace {

/* Every b below bound, and the answer past it is not promised. */
long wrong_below(uint32_t d, uint64_t bound)
{
    const gh::Divisor div = gh::divisor_for(d, bound);
    EXPECT_NE(div.magic, 0u) << "d " << d << " bound " << bound;
    long wrong = 0;
    for (uint64_t b = 0; b < bound; b++)
        if (gh::divide(static_cast<uint32_t>(b), div) != b / d)
            wrong++;
    return wrong;
}

} // namespace

TEST(ExactDivide, EveryCellOfTheClusterShapes)
{
    /* per_block and blocks as cluster_plan makes them: 262,144 and 1,000,000 buckets, grouped shapes */
    const uint32_t shapes[][2] = {{32768, 8}, {62502, 16}, {73728, 16}, {45838, 4}, {131072, 16},
                                  {2, 2},     {3, 2},      {7, 16},     {65535, 16}, {99999, 8}};
    for (auto &s : shapes)
        EXPECT_EQ(wrong_below(s[0], uint64_t(s[0]) * s[1]), 0) << "per_block " << s[0] << " blocks " << s[1];
}

TEST(ExactDivide, WithoutTheBoundItFails)
{
    /* the smallest shift that serves 16 blocks is too small for far larger dividends: the bound matters */
    const gh::Divisor div = gh::divisor_for(62502, 62502u * 16);
    long wrong = 0;
    for (uint64_t b = 0; b < (uint64_t(1) << 32); b += 9973)
        if (gh::divide(static_cast<uint32_t>(b), div) != b / 62502)
            wrong++;
    EXPECT_GT(wrong, 0);
}
