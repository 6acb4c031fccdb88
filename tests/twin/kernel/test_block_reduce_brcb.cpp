// BlockReduceSum and Brcb of the twin: results against host sums / broadcasts, the cost-table rates
// (VEC table 8: ReduceDataBlock float 64 elements/cycle; table 10: Brcb one repeat per cycle), and the
// rules (alignment, repeat limit, Brcb dstBlkStride 0 and src/dst sharing, unwritten source blocks).
#include <gtest/gtest.h>

#include "kernel_operator.h"
#include "kernel_test_util.h"
#include "twin/kernel/cost_table.h"

using namespace AscendC;
using twin::KernelType;

namespace {

// 16 rows of 16 floats (2 blocks each): the two halves of each row added with block stride 2 into 8-wide
// rows, then one BlockReduceSum over the 16 rows (srcBlkStride 2, srcRepStride 16) -> row sums.
TEST(BlockReduceBrcb, block_reduce_sum_row_sums)
{
    ktest::Gm<float> out(64);
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 4096);
        LocalTensor<float> x = buf.Get<float>(), s = x[512];
        for (int i = 0; i < 256; ++i)
            x.SetValue(i, float(i % 16 + i / 16)); // row q: q, q+1, ..., q+15
        PipeBarrier<PIPE_ALL>();
        Add(x, x, x[8], 64, 2, {2, 2, 2, 16, 16, 16}); // rows 0..15: lanes 0..7 += lanes 8..15
        PipeBarrier<PIPE_V>();
        BlockReduceSum(s, x, 2, 64, 1, 2, 16);     // 16 row sums
        BlockReduceSum(s[16], x, 1, 24, 1, 2, 16); // rows 0..2 only (mask: 3 blocks)
        PipeBarrier<PIPE_ALL>();
        GlobalTensor<float> go;
        go.SetGlobalBuffer((__gm__ float*)out.addr());
        DataCopy(go, s, 24);
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    for (int q = 0; q < 16; ++q)
        EXPECT_EQ(out[q], float(16 * q + 120));
    for (int q = 0; q < 3; ++q)
        EXPECT_EQ(out[16 + q], float(16 * q + 120));
}

// Masks whose last block is partial (continuous 20 = blocks of 8, 8, 4; counter mode over 2 repeats, the
// second of 13 elements) and a bit mask with holes (every other element): block sums of exactly the
// enabled elements, blocks without an enabled element left untouched.
TEST(BlockReduceBrcb, block_reduce_sum_partial_and_holed_masks)
{
    ktest::Gm<float> out(64);
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 4096);
        LocalTensor<float> x = buf.Get<float>(), s = x[256];
        for (int i = 0; i < 128; ++i)
            x.SetValue(i, float(i + 1));
        Duplicate(s, -1.0f, 64);
        PipeBarrier<PIPE_ALL>();
        BlockReduceSum(s, x, 1, 20, 1, 1, 8); // s[0..2]; s[3..7] stay -1
        const uint64_t holes[2] = {0x5555555555555555ull, 0};
        BlockReduceSum(s[8], x, 1, holes, 1, 1, 8); // s[8..15]: elements 0, 2, 4, 6 of each block
        SetMaskCount();
        SetVectorMask<float, MaskMode::COUNTER>(0, 77);
        BlockReduceSum<float, false>(s[16], x, 1, 0, 1, 1, 8); // 64 + 13 elements: s[16..23], s[24..25]
        SetMaskNorm();
        ResetMask();
        PipeBarrier<PIPE_ALL>();
        GlobalTensor<float> go;
        go.SetGlobalBuffer((__gm__ float*)out.addr());
        DataCopy(go, s, 32);
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    auto sum = [](int from, int to, int step) {
        float t = 0;
        for (int i = from; i < to; i += step)
            t += float(i + 1);
        return t;
    };
    EXPECT_EQ(out[0], sum(0, 8, 1));
    EXPECT_EQ(out[1], sum(8, 16, 1));
    EXPECT_EQ(out[2], sum(16, 20, 1));
    for (int b = 3; b < 8; ++b)
        EXPECT_EQ(out[b], -1.0f);
    for (int b = 0; b < 8; ++b)
        EXPECT_EQ(out[8 + b], sum(8 * b, 8 * b + 8, 2));
    for (int b = 0; b < 8; ++b)
        EXPECT_EQ(out[16 + b], sum(8 * b, 8 * b + 8, 1));
    EXPECT_EQ(out[24], sum(64, 72, 1));
    EXPECT_EQ(out[25], sum(72, 77, 1));
    EXPECT_EQ(out[26], -1.0f);
}

// Brcb: 16 values -> 16 blocks, twice with dstBlkStride 2 (even / odd blocks of 2-block rows).
TEST(BlockReduceBrcb, brcb_broadcasts_blocks)
{
    ktest::Gm<float> out(256);
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 4096);
        LocalTensor<float> v = buf.Get<float>(), d = v[64];
        for (int i = 0; i < 16; ++i)
            v.SetValue(i, float(i + 1));
        PipeBarrier<PIPE_ALL>();
        Brcb(d, v, 2, {2, 16});    // row q block 0
        Brcb(d[8], v, 2, {2, 16}); // row q block 1
        PipeBarrier<PIPE_ALL>();
        GlobalTensor<float> go;
        go.SetGlobalBuffer((__gm__ float*)out.addr());
        DataCopy(go, d, 256);
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    for (int i = 0; i < 256; ++i)
        EXPECT_EQ(out[i], float(i / 16 + 1));
}

TEST(BlockReduceBrcb, block_reduce_and_brcb_rates)
{
    namespace cost = twin::cost;
    EXPECT_EQ(cost::VectorCost("BlockReduceSum", 4, 3 * 64).cycles, 3); // float: 64 elements/cycle
    EXPECT_EQ(cost::VectorCost("BlockReduceSum", 2, 128).cycles, 7);    // half: 128/7
    EXPECT_EQ(cost::VectorCost("Brcb", 4, 2 * 64).cycles, 2);           // one repeat (64 outputs) per cycle
    EXPECT_EQ(cost::VectorCost("Brcb", 2, 128).cycles, 1);
}

TEST(BlockReduceBrcb, block_reduce_sum_rules)
{
    auto kernel = [](int which) {
        return ktest::Run(1, KernelType::AIV_ONLY, [which] {
            TPipe pipe;
            TBuf<TPosition::VECCALC> buf;
            pipe.InitBuffer(buf, 4096);
            LocalTensor<float> x = buf.Get<float>();
            Duplicate(x, 1.0f, 64);
            PipeBarrier<PIPE_V>();
            if (which == 0)
                BlockReduceSum(x[512], x[4], 1, 64, 1, 1, 8); // src not 32-B aligned
            if (which == 1)
                BlockReduceSum(x[516], x, 1, 64, 1, 1, 8); // float dst not 32-B aligned
            if (which == 2)
                BlockReduceSum(x[512], x, 256, 64, 1, 1, 0); // repeat > 255
            if (which == 3)
                BlockReduceSum(x[512], x, 2, 64, 1, 1, 8); // second repeat reads unwritten UB
        });
    };
    EXPECT_TRUE(ktest::ExpectViolation(kernel(0), {"BlockReduceSum", "src", "32-byte aligned"}));
    EXPECT_TRUE(ktest::ExpectViolation(kernel(1), {"BlockReduceSum", "dst", "aligned"}));
    EXPECT_TRUE(ktest::ExpectViolation(kernel(2), {"BlockReduceSum", "repeatTime"}));
    EXPECT_TRUE(ktest::ExpectViolation(kernel(3), {"BlockReduceSum", "uninitialized UB"}));
}

TEST(BlockReduceBrcb, brcb_rules)
{
    auto kernel = [](int which) {
        return ktest::Run(1, KernelType::AIV_ONLY, [which] {
            TPipe pipe;
            TBuf<TPosition::VECCALC> buf;
            pipe.InitBuffer(buf, 4096);
            LocalTensor<float> x = buf.Get<float>();
            Duplicate(x, 1.0f, 8);
            PipeBarrier<PIPE_V>();
            if (which == 0)
                Brcb(x[64], x, 1, {0, 8}); // dstBlkStride 0
            if (which == 1)
                Brcb(x[4], x, 1, {1, 8}); // src and dst overlap (and dst misaligned)
            if (which == 2)
                Brcb(x, x, 1, {1, 8}); // same memory
            if (which == 3)
                Brcb(x[64], x, 2, {1, 8}); // second repeat reads unwritten UB
            if (which == 4)
                Brcb(x[64], x[3], 1, {1, 8}); // src not 32-B aligned
        });
    };
    EXPECT_TRUE(ktest::ExpectViolation(kernel(0), {"Brcb", "dstBlkStride"}));
    EXPECT_TRUE(ktest::ExpectViolation(kernel(1), {"Brcb", "dst"}));
    EXPECT_TRUE(ktest::ExpectViolation(kernel(2), {"Brcb", "share memory"}));
    EXPECT_TRUE(ktest::ExpectViolation(kernel(3), {"Brcb", "uninitialized UB"}));
    EXPECT_TRUE(ktest::ExpectViolation(kernel(4), {"Brcb", "src", "32-byte aligned"}));
}

} // namespace
