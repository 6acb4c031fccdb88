// DataCopyPad unaligned GM round trips (strides in bytes / 32-B blocks, padding and dummy fill),
// Gather with byte offsets, and the vector-instruction rules (repeatTime, mask ranges, operand
// alignment, Gather bounds) as negative tests naming API + core + rule.
#include <gtest/gtest.h>

#include "kernel_operator.h"
#include "kernel_test_util.h"

using namespace AscendC;
using twin::KernelType;

TEST(VectorDatacopy, datacopypad_unaligned_round_trip_with_strides)
{
    // GM: 3 rows of 13 floats with a row pitch of 17 floats; UB slots of 64 B (+1 block gap);
    // written back densely (pitch 13) at an unaligned GM offset.
    const int rows = 3, cols = 13, pitch = 17;
    ktest::Gm<float> src(rows * pitch, "src"), dst(1 + rows * cols + 3, "dst");
    for (int i = 0; i < rows * pitch; ++i) src[i] = float(i) + 0.25f;
    for (size_t i = 0; i < dst.n; ++i) dst[i] = -7.0f;
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TQue<TPosition::VECIN, 1> q;
        pipe.InitBuffer(q, 1, 1024);
        LocalTensor<float> t = q.AllocTensor<float>();
        GlobalTensor<float> gs, gd;
        gs.SetGlobalBuffer((__gm__ float *)src.addr());
        gd.SetGlobalBuffer((__gm__ float *)dst.addr());
        DataCopyExtParams in(rows, cols * sizeof(float), (pitch - cols) * sizeof(float), 1, 0);
        DataCopyPad(t, gs, in, DataCopyPadExtParams<float>(false, 0, 0, 0.0f));
        q.EnQue(t);
        LocalTensor<float> u = q.DeQue<float>();
        // dummy elements of a block without padding repeat the block's first element
        PipeBarrier<PIPE_ALL>();
        const float dummy = u.GetValue(13);
        DataCopyExtParams out(rows, cols * sizeof(float), 1, 0, 0);
        PipeBarrier<PIPE_ALL>();
        DataCopyPad(gd[1], u, out);
        gd.SetValue(0, dummy);
        q.FreeTensor(u);
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    EXPECT_EQ(dst[0], src[0]);
    bool same = true;
    for (int rr = 0; rr < rows; ++rr)
        for (int c = 0; c < cols; ++c) same = same && dst[1 + rr * cols + c] == src[rr * pitch + c];
    EXPECT_TRUE(same);
    EXPECT_EQ(dst[1 + rows * cols], -7.0f); // nothing written past the last block
}

TEST(VectorDatacopy, datacopypad_left_right_padding_value)
{
    ktest::Gm<half> src(8, "src"), dst(32, "dst");
    for (int i = 0; i < 8; ++i) src[i] = half(float(i + 1));
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 64);
        LocalTensor<half> t = b.Get<half>();
        GlobalTensor<half> gs, gd;
        gs.SetGlobalBuffer((__gm__ half *)src.addr());
        gd.SetGlobalBuffer((__gm__ half *)dst.addr());
        DataCopyPad(t, gs, DataCopyExtParams(1, 5 * sizeof(half), 0, 0, 0), DataCopyPadExtParams<half>(true, 2, 3, half(-1.0f)));
        PipeBarrier<PIPE_ALL>();
        DataCopy(gd, t, 16);
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    const float want[16] = {-1, -1, 1, 2, 3, 4, 5, -1, -1, -1, -1, -1, -1, -1, -1, -1};
    for (int i = 0; i < 16; ++i) {
        EXPECT_EQ(static_cast<float>(dst[i]), want[i]) << "i = " << i;
    }
}

TEST(VectorDatacopy, gather_uses_byte_offsets)
{
    ktest::Gm<float> out(64, "out");
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 1024);
        LocalTensor<float> src = b.Get<float>(64);
        LocalTensor<uint32_t> off = b.GetWithOffset<uint32_t>(64, 256);
        LocalTensor<float> dst = b.GetWithOffset<float>(64, 512);
        for (int i = 0; i < 64; ++i) {
            src.SetValue(i, float(i * 10));
            off.SetValue(i, static_cast<uint32_t>((63 - i) * sizeof(float)));   // reverse, in bytes
        }
        PipeBarrier<PIPE_ALL>();
        Gather(dst, src, off, 1024, 60);   // byte offsets: 1024 + 252 is past the 1024-B buffer src lives in
        GlobalTensor<float> g;
        g.SetGlobalBuffer((__gm__ float *)out.addr());
        PipeBarrier<PIPE_ALL>();
        DataCopy(g, dst, 64);
    });
    EXPECT_TRUE(ktest::ExpectViolation(r, {"Gather", "core AIV 0", "outside src"}));
    auto ok = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 1024);
        LocalTensor<float> src = b.Get<float>(64);
        LocalTensor<uint32_t> off = b.GetWithOffset<uint32_t>(64, 256);
        LocalTensor<float> dst = b.GetWithOffset<float>(64, 512);
        for (int i = 0; i < 64; ++i) {
            src.SetValue(i, float(i * 10));
            off.SetValue(i, static_cast<uint32_t>((59 - (i % 60)) * sizeof(float)));
        }
        PipeBarrier<PIPE_ALL>();
        Gather(dst, src, off, 4 * sizeof(float), 64);
        GlobalTensor<float> g;
        g.SetGlobalBuffer((__gm__ float *)out.addr());
        PipeBarrier<PIPE_ALL>();
        DataCopy(g, dst, 64);
    });
    EXPECT_TRUE(ktest::ExpectOk(ok));
    for (int i = 0; i < 64; ++i) {
        EXPECT_EQ(out[i], float((4 + 59 - (i % 60)) * 10)) << "i = " << i;
    }
}

namespace {
template <typename F>
twin::LaunchResult VecKernel(F body) {
    return ktest::Run(1, KernelType::AIV_ONLY, [body] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 64 * 1024);
        LocalTensor<float> t = b.Get<float>();
        Duplicate(t, 1.0f, 16 * 1024);
        PipeBarrier<PIPE_V>();
        body(t);
    });
}
}  // namespace

TEST(VectorDatacopy, repeat_time_at_most_255)
{
    EXPECT_TRUE(ktest::ExpectOk(VecKernel([](LocalTensor<float> t) { Adds(t, t, 1.0f, 64, 255, {1, 1, 8, 8}); })));
    EXPECT_TRUE(ktest::ExpectViolation(
        VecKernel([](LocalTensor<float> t) { Adds(t, t, 1.0f, 64, 256, {1, 1, 8, 8}); }),
        {"Adds", "core AIV 0", "repeatTime must be in [0, 255]"}));
}

TEST(VectorDatacopy, continuous_mask_range_per_type)
{
    EXPECT_TRUE(ktest::ExpectViolation(
        VecKernel([](LocalTensor<float> t) { Add(t, t, t, 65, 1, {1, 1, 1, 8, 8, 8}); }),
        {"Add", "core AIV 0", "continuous mask must be in [1, 64]"}));
    EXPECT_TRUE(ktest::ExpectOk(VecKernel([](LocalTensor<float> t) {
        LocalTensor<half> h = t.ReinterpretCast<half>();
        Add(h, h, h, 128, 1, {1, 1, 1, 8, 8, 8});
    })));
}

TEST(VectorDatacopy, bit_mask_high_word_zero_for_32_bit)
{
    EXPECT_TRUE(ktest::ExpectViolation(
        VecKernel([](LocalTensor<float> t) {
            uint64_t mask[2] = {~0ull, 1};
            Mul(t, t, t, mask, 1, {1, 1, 1, 8, 8, 8});
        }),
        {"Mul", "core AIV 0", "mask[1] must be 0"}));
}

TEST(VectorDatacopy, vector_operand_alignment)
{
    EXPECT_TRUE(ktest::ExpectViolation(
        VecKernel([](LocalTensor<float> t) { Add(t[4], t, t, 64); }),
        {"Add", "core AIV 0", "dst UB address must be 32-byte aligned"}));
}

TEST(VectorDatacopy, repeat_strides_stay_inside_buffer)
{
    EXPECT_TRUE(ktest::ExpectViolation(
        VecKernel([](LocalTensor<float> t) {
            LocalTensor<float> small = t[16 * 1024 - 64];
            Muls(small, small, 2.0f, 64, 2, {1, 1, 8, 8}); // second repeat runs past the buffer
        }),
        {"Muls", "core AIV 0", "repeat/stride pattern"}));
}

TEST(VectorDatacopy, whole_reduce_sum_per_repeat)
{
    ktest::Gm<float> out(8, "out");
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 2048);
        LocalTensor<float> src = b.Get<float>(256);
        LocalTensor<float> dst = b.GetWithOffset<float>(8, 1024);
        for (int i = 0; i < 256; ++i) src.SetValue(i, float(i % 64 + (i / 64) * 1000));
        PipeBarrier<PIPE_ALL>();
        WholeReduceSum(dst, src, 64, 4, 1, 1, 8);
        PipeBarrier<PIPE_ALL>();
        for (int i = 4; i < 8; ++i) dst.SetValue(i, 0.0f);
        GlobalTensor<float> g;
        g.SetGlobalBuffer((__gm__ float *)out.addr());
        PipeBarrier<PIPE_ALL>();
        DataCopy(g, dst, 8);
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    for (int rr = 0; rr < 4; ++rr) {
        EXPECT_EQ(out[rr], float(2016 + rr * 64000)) << "rr = " << rr;
    }
}

// Gatherb: 32-B blocks gathered by byte offsets (relative to src0) into dst blocks placed by
// dstBlkStride / dstRepStride; misaligned offsets and src0 sharing dst's memory are rejected.
TEST(VectorDatacopy, gatherb_gathers_blocks_by_byte_offsets)
{
    ktest::Gm<uint32_t> out(2 * 16 * 8, "out");
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 8192);
        LocalTensor<uint32_t> src = b.Get<uint32_t>(16 * 8); // 16 blocks
        LocalTensor<uint32_t> off = b.GetWithOffset<uint32_t>(16, 1024);
        LocalTensor<uint32_t> dst = b.GetWithOffset<uint32_t>(2 * 16 * 8, 2048); // 2 repeats x 16 block slots
        for (int i = 0; i < 16 * 8; ++i)
            src.SetValue(i, static_cast<uint32_t>(1000 + i));
        for (int i = 0; i < 16; ++i)
            off.SetValue(i, static_cast<uint32_t>(((i * 5) % 16) * 32));
        Duplicate(dst.ReinterpretCast<float>(), 0.0f, 2 * 16 * 8);
        PipeBarrier<PIPE_ALL>();
        Gatherb(dst, src, off, 2, GatherRepeatParams(2, 16)); // blocks to even slots, repeats 16 blocks apart
        GlobalTensor<uint32_t> g;
        g.SetGlobalBuffer((__gm__ uint32_t*)out.addr());
        PipeBarrier<PIPE_ALL>();
        DataCopy(g, dst, 2 * 16 * 8);
    });
    ASSERT_TRUE(ktest::ExpectOk(r));
    for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 8; ++j) {
            const int srcBlock = ((8 * i + j) * 5) % 16;
            for (int e = 0; e < 8; ++e) {
                EXPECT_EQ(out[(i * 16 + 2 * j) * 8 + e], static_cast<uint32_t>(1000 + srcBlock * 8 + e))
                    << i << " " << j;
                EXPECT_EQ(out[(i * 16 + 2 * j + 1) * 8 + e], 0u) << "odd slots untouched";
            }
        }
    }
    auto misaligned = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 4096);
        LocalTensor<uint32_t> src = b.Get<uint32_t>(64);
        LocalTensor<uint32_t> off = b.GetWithOffset<uint32_t>(8, 512);
        LocalTensor<uint32_t> dst = b.GetWithOffset<uint32_t>(64, 1024);
        for (int i = 0; i < 64; ++i)
            src.SetValue(i, 1u);
        for (int i = 0; i < 8; ++i)
            off.SetValue(i, i == 3 ? 4u : 0u); // 4 bytes: not a block start
        PipeBarrier<PIPE_ALL>();
        Gatherb(dst, src, off, 1, GatherRepeatParams(1, 8));
    });
    EXPECT_TRUE(ktest::ExpectViolation(misaligned, {"Gatherb", "core AIV 0", "32-byte aligned"}));
    auto shared = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 4096);
        LocalTensor<uint32_t> src = b.Get<uint32_t>(128);
        LocalTensor<uint32_t> off = b.GetWithOffset<uint32_t>(8, 1024);
        for (int i = 0; i < 128; ++i)
            src.SetValue(i, 1u);
        for (int i = 0; i < 8; ++i)
            off.SetValue(i, i == 5 ? 288u : 0u); // block 9: inside dst = src[64..127]
        PipeBarrier<PIPE_ALL>();
        Gatherb(src[64], src, off, 1, GatherRepeatParams(1, 8));
    });
    EXPECT_TRUE(ktest::ExpectViolation(shared, {"Gatherb", "core AIV 0", "must not share memory"}));
}

// TransDataTo5HD: b32 = a 16 x 8 matrix (one row per src block) to 8 rows of 16 (dst blocks 2j, 2j+1 = column j),
// b16 = a 16 x 16 transpose; repeats advance every list address by its RepStride (blocks); with repeatTimes 1
// the one repeat starts at list + RepStride.
TEST(VectorDatacopy, transdatato5hd_transposes_blocks_and_repeats)
{
    // b32: a 16 x 16 float matrix in two column halves (2 repeats, src +1 block, dst +16 blocks)
    ktest::Gm<float> out32(16 * 16, "out32");
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 8192);
        LocalTensor<float> src = b.Get<float>(16 * 16);
        LocalTensor<float> dst = b.GetWithOffset<float>(16 * 16, 2048);
        for (int i = 0; i < 16 * 16; ++i)
            src.SetValue(i, static_cast<float>(i));
        LocalTensor<float> dl[NCHW_CONV_ADDR_LIST_SIZE], sl[NCHW_CONV_ADDR_LIST_SIZE];
        for (int i = 0; i < 16; ++i) {
            sl[i] = src[i * 16]; // row i, columns 0..7 (repeat 1: 8..15)
            dl[i] = dst[i * 8];  // block i of the first 8 output rows (repeat 1: rows 8..15)
        }
        PipeBarrier<PIPE_ALL>();
        TransDataTo5HD<float>(dl, sl, TransDataTo5HDParams(false, false, 2, 16, 1));
        GlobalTensor<float> g;
        g.SetGlobalBuffer((__gm__ float*)out32.addr());
        PipeBarrier<PIPE_ALL>();
        DataCopy(g, dst, 16 * 16);
    });
    ASSERT_TRUE(ktest::ExpectOk(r));
    for (int row = 0; row < 16; ++row) {
        for (int col = 0; col < 16; ++col) {
            EXPECT_EQ(out32[row * 16 + col], static_cast<float>(col * 16 + row)) << row << " " << col;
        }
    }
    // b16, one repeat with RepStrides 1: the repeat starts one block past each list address
    ktest::Gm<int16_t> out16(17 * 16, "out16");
    auto r16 = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 8192);
        LocalTensor<int16_t> src = b.Get<int16_t>(17 * 16);
        LocalTensor<int16_t> dst = b.GetWithOffset<int16_t>(17 * 16, 2048);
        for (int i = 0; i < 17 * 16; ++i)
            src.SetValue(i, static_cast<int16_t>(i));
        Duplicate(dst, static_cast<int16_t>(-1), 17 * 16);
        LocalTensor<int16_t> dl[NCHW_CONV_ADDR_LIST_SIZE], sl[NCHW_CONV_ADDR_LIST_SIZE];
        for (int i = 0; i < 16; ++i) {
            sl[i] = src[i * 16];
            dl[i] = dst[i * 16];
        }
        PipeBarrier<PIPE_ALL>();
        TransDataTo5HD<int16_t>(dl, sl, TransDataTo5HDParams(false, false, 1, 1, 1));
        GlobalTensor<int16_t> g;
        g.SetGlobalBuffer((__gm__ int16_t*)out16.addr());
        PipeBarrier<PIPE_ALL>();
        DataCopy(g, dst, 17 * 16);
    });
    ASSERT_TRUE(ktest::ExpectOk(r16));
    for (int e = 0; e < 16; ++e) {
        EXPECT_EQ(out16[e], -1) << "block 0 untouched: the one repeat is at list + 1 block";
    }
    for (int j = 0; j < 16; ++j) {
        for (int i = 0; i < 16; ++i) {
            EXPECT_EQ(out16[(j + 1) * 16 + i], static_cast<int16_t>((i + 1) * 16 + j)) << j << " " << i;
        }
    }
}

TEST(VectorDatacopy, transdatato5hd_rejects_misaligned_and_shared_blocks)
{
    auto misaligned = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 8192);
        LocalTensor<float> src = b.Get<float>(16 * 16);
        LocalTensor<float> dst = b.GetWithOffset<float>(16 * 16, 2048);
        Duplicate(src, 1.0f, 16 * 16);
        LocalTensor<float> dl[NCHW_CONV_ADDR_LIST_SIZE], sl[NCHW_CONV_ADDR_LIST_SIZE];
        for (int i = 0; i < 16; ++i) {
            sl[i] = src[i * 16 + (i == 7 ? 2 : 0)]; // 8 bytes into a block
            dl[i] = dst[i * 8];
        }
        PipeBarrier<PIPE_ALL>();
        TransDataTo5HD<float>(dl, sl, TransDataTo5HDParams(false, false, 1, 0, 0));
    });
    EXPECT_TRUE(ktest::ExpectViolation(misaligned, {"TransDataTo5HD", "core AIV 0", "32-byte aligned"}));
    auto shared = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 8192);
        LocalTensor<float> src = b.Get<float>(16 * 16);
        Duplicate(src, 1.0f, 16 * 16);
        LocalTensor<float> dl[NCHW_CONV_ADDR_LIST_SIZE], sl[NCHW_CONV_ADDR_LIST_SIZE];
        for (int i = 0; i < 16; ++i) {
            sl[i] = src[i * 16];
            dl[i] = src[i * 8]; // in place
        }
        PipeBarrier<PIPE_ALL>();
        TransDataTo5HD<float>(dl, sl, TransDataTo5HDParams(false, false, 1, 0, 0));
    });
    EXPECT_TRUE(ktest::ExpectViolation(shared, {"TransDataTo5HD", "core AIV 0", "shares memory"}));
}
