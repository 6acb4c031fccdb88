// half / bfloat16_t conversions and Cast round modes: exact 16-bit -> float, RNE float -> 16-bit
// (checked against the compiler's _Float16 where available and an independent nearest-candidate
// search), directed modes, and the A2 Cast pair/mode table (unsupported pairs are violations).
#include <cmath>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "kernel_operator.h"
#include "kernel_test_util.h"

using namespace AscendC;
using twin::KernelType;

namespace {

// Independent RNE reference: choose between the two neighbouring bf16 values by exact double math.
uint16_t Bf16Reference(float f) {
    if (std::isnan(f)) return 0x7fc0;
    uint32_t u;
    std::memcpy(&u, &f, 4);
    const uint16_t lo = static_cast<uint16_t>(u >> 16);
    const uint16_t hi = static_cast<uint16_t>(lo + 1);
    const double vlo = twin::fp::Bf16BitsToFloat(lo), vhi = twin::fp::Bf16BitsToFloat(hi), v = f;
    if (v == vlo) return lo;
    const double dlo = std::fabs(v - vlo), dhi = std::fabs(vhi - v);
    if (dlo < dhi) return lo;
    if (dhi < dlo) return hi;
    return (lo & 1) ? hi : lo;
}

}  // namespace

TEST(Fp16Cast, half_to_float_to_half_roundtrip_is_exact)
{
    int bad = 0;
    for (uint32_t b = 0; b < 65536; ++b) {
        const half h = half::FromBits(static_cast<uint16_t>(b));
        const float f = h;
        if (std::isnan(f)) continue;
        if (half(f).bits != b) ++bad;
    }
    EXPECT_EQ(bad, 0);
}

TEST(Fp16Cast, float_to_half_rne_matches_reference)
{
    EXPECT_EQ(half(1.0f + std::ldexp(1.0f, -11)).bits, 0x3c00);     // tie -> even (1.0)
    EXPECT_EQ(half(1.0f + 3 * std::ldexp(1.0f, -11)).bits, 0x3c02); // tie -> even (1 + 2^-9)
    EXPECT_EQ(half(65520.0f).bits, 0x7c00);                         // rounds to inf
    EXPECT_EQ(half(65519.0f).bits, 0x7bff);
    EXPECT_EQ(half(std::ldexp(1.0f, -25)).bits, 0x0000); // half of min subnormal -> 0 (even)
    EXPECT_EQ(half(std::ldexp(1.5f, -25)).bits, 0x0001);
#ifdef __FLT16_MAX__
    std::mt19937 rng(7);
    int bad = 0;
    for (int i = 0; i < 200000; ++i) {
        uint32_t u = rng();
        float f;
        std::memcpy(&f, &u, 4);
        if (std::isnan(f)) continue;
        const _Float16 ref = static_cast<_Float16>(f);
        uint16_t rb;
        std::memcpy(&rb, &ref, 2);
        if (half(f).bits != rb) ++bad;
        // also near-representable values (dense exponent range)
        const float g = std::ldexp(static_cast<float>(u % 100000) / 100000.0f + 1.0f, static_cast<int>(u % 40) - 24);
        const _Float16 rg = static_cast<_Float16>(g);
        std::memcpy(&rb, &rg, 2);
        if (half(g).bits != rb) ++bad;
    }
    EXPECT_EQ(bad, 0);
#endif
}

TEST(Fp16Cast, float_to_bf16_rne_matches_reference)
{
    std::mt19937 rng(11);
    int bad = 0;
    for (int i = 0; i < 200000; ++i) {
        uint32_t u = rng();
        if (i < 4) u = 0x3f808000u + static_cast<uint32_t>(i) * 0x10000u;   // exact ties
        float f;
        std::memcpy(&f, &u, 4);
        if (std::isnan(f) || std::isinf(f) || std::fabs(f) > 3.0e38f) continue;
        if (bfloat16_t(f).bits != Bf16Reference(f)) ++bad;
    }
    EXPECT_EQ(bad, 0);
    EXPECT_EQ(static_cast<float>(bfloat16_t::FromBits(0x3f80)), 1.0f);
}

TEST(Fp16Cast, cast_float_to_int32_all_modes)
{
    const float in[8] = {2.5f, -2.5f, 1.5f, -0.5f, 3.7f, -3.7f, 0.0f, 1e10f};
    const int32_t want[5][8] = {
        {2, -2, 2, 0, 4, -4, 0, 2147483647},   // CAST_RINT
        {2, -3, 1, -1, 3, -4, 0, 2147483647},  // CAST_FLOOR
        {3, -2, 2, 0, 4, -3, 0, 2147483647},   // CAST_CEIL
        {3, -3, 2, -1, 4, -4, 0, 2147483647},  // CAST_ROUND (away from zero)
        {2, -2, 1, 0, 3, -3, 0, 2147483647},   // CAST_TRUNC
    };
    const RoundMode modes[5] = {RoundMode::CAST_RINT, RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL, RoundMode::CAST_ROUND, RoundMode::CAST_TRUNC};
    ktest::Gm<int32_t> out(5 * 8, "out");
    ktest::Gm<float> fout(5 * 8, "fout");
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 1024);
        LocalTensor<float> x = b.Get<float>(8);
        LocalTensor<int32_t> y = b.GetWithOffset<int32_t>(8, 256);
        LocalTensor<float> z = b.GetWithOffset<float>(8, 512);
        for (int i = 0; i < 8; ++i) x.SetValue(i, in[i]);
        GlobalTensor<int32_t> g;
        g.SetGlobalBuffer((__gm__ int32_t *)out.addr());
        GlobalTensor<float> fg;
        fg.SetGlobalBuffer((__gm__ float *)fout.addr());
        for (int m = 0; m < 5; ++m) {
            PipeBarrier<PIPE_ALL>();
            Cast(y, x, modes[m], 8);
            PipeBarrier<PIPE_ALL>();
            DataCopy(g[m * 8], y, 8);
            PipeBarrier<PIPE_ALL>();
            Cast(z, x, modes[m], 8);   // float -> float rounding to integral
            PipeBarrier<PIPE_ALL>();
            DataCopy(fg[m * 8], z, 8);
        }
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    for (int m = 0; m < 5; ++m)
        for (int i = 0; i < 8; ++i) {
            EXPECT_EQ(out[m * 8 + i], want[m][i]);
            if (i < 7) {
                EXPECT_EQ(fout[m * 8 + i], static_cast<float>(want[m][i]));
            }
        }
}

TEST(Fp16Cast, cast_to_half_and_bf16_modes)
{
    // 1 + 2^-11 + 2^-20 is just above the fp16 midpoint of 1 and 1+2^-10.
    const float v = 1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20);
    ktest::Gm<uint16_t> out(80, "out");
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 1024);
        LocalTensor<float> x = b.Get<float>(16);
        LocalTensor<half> h = b.GetWithOffset<half>(16, 256);
        LocalTensor<bfloat16_t> bf = b.GetWithOffset<bfloat16_t>(16, 512);
        for (int i = 0; i < 16; ++i) x.SetValue(i, i % 2 ? -v : v);
        GlobalTensor<uint16_t> g;
        g.SetGlobalBuffer((__gm__ uint16_t *)out.addr());
        const RoundMode modes[4] = {RoundMode::CAST_NONE, RoundMode::CAST_FLOOR, RoundMode::CAST_TRUNC, RoundMode::CAST_ODD};
        for (int m = 0; m < 4; ++m) {
            PipeBarrier<PIPE_ALL>();
            Cast(h, x, modes[m], 16);
            PipeBarrier<PIPE_ALL>();
            DataCopy(g[m * 16], h.ReinterpretCast<uint16_t>(), 16);
        }
        PipeBarrier<PIPE_ALL>();
        Cast(bf, x, RoundMode::CAST_RINT, 16);
        PipeBarrier<PIPE_ALL>();
        DataCopy(g[64], bf.ReinterpretCast<uint16_t>(), 16);
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    EXPECT_EQ(out[0], 0x3c01);
    EXPECT_EQ(out[1], 0xbc01); // NONE = RNE: up (above midpoint)
    EXPECT_EQ(out[16], 0x3c00);
    EXPECT_EQ(out[17], 0xbc01); // FLOOR
    EXPECT_EQ(out[32], 0x3c00);
    EXPECT_EQ(out[33], 0xbc00); // TRUNC
    EXPECT_EQ(out[48], 0x3c01);
    EXPECT_EQ(out[49], 0xbc01); // ODD: inexact -> odd lsb
    EXPECT_EQ(out[64], 0x3f80);
    EXPECT_EQ(out[65], 0xbf80); // bf16 RNE: 1.0
}

TEST(Fp16Cast, cast_rejects_pairs_and_modes_outside_a2_table)
{
    auto none = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 512);
        LocalTensor<float> x = b.Get<float>(8);
        Duplicate(x, 1.0f, 8);
        LocalTensor<bfloat16_t> y = b.GetWithOffset<bfloat16_t>(8, 256);
        Cast(y, x, RoundMode::CAST_NONE, 8);
    });
    EXPECT_TRUE(
        ktest::ExpectViolation(none, {"Cast", "core AIV 0", "CAST_NONE is not supported for float -> bfloat16_t"}));
    auto hyb = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 512);
        LocalTensor<half> x = b.Get<half>(16);
        LocalTensor<float> y = b.GetWithOffset<float>(8, 256);
        Cast(y, x, RoundMode::CAST_RINT, 8);
    });
    EXPECT_TRUE(ktest::ExpectViolation(hyb, {"Cast", "core AIV 0", "CAST_RINT is not supported for half -> float"}));
    auto pair = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 512);
        LocalTensor<bfloat16_t> x = b.Get<bfloat16_t>(16);
        LocalTensor<half> y = b.GetWithOffset<half>(16, 256);
        Cast(y, x, RoundMode::CAST_NONE, 16);
    });
    EXPECT_TRUE(
        ktest::ExpectViolation(pair, {"Cast", "core AIV 0", "bfloat16_t -> half is not supported on Atlas A2"}));
}
