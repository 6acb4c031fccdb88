// Unit test of the stage-1 Matmul L1 plan (op_host/deformable_conv2d_backward_matmul_l1.h): the documented
// TCubeTiling constraints hold for the suite's tiles and odd ones, and the planned GM->L1 loads equal a
// step-by-step replay of the Norm scheduler's loops (CANN 8.1.RC1 scheduler_norm_base.h MoveOnIterateOrderM/N,
// copy_cube_in_norm.h LoadData / GetIterIndexInner, cube_in_buffer_normal.h Hit / AllocTensor / Reset),
// written here independently of the plan's closed forms.
#include <algorithm>
#include <cstdint>

#include <gtest/gtest.h>

#include "deformable_conv2d_backward_matmul_l1.h"

namespace {

constexpr uint64_t kL0 = 64 * 1024;  // 910B L0A / L0B
constexpr uint64_t kL1 = 512 * 1024; // 910B L1

constexpr uint64_t kL0C = 128 * 1024; // 910B L0C

dcn::MatmulL1Limits Limits910B()
{
    dcn::MatmulL1Limits l;
    l.l0aBytes = kL0;
    l.l0bBytes = kL0;
    l.l1Bytes = kL1;
    l.l0cBytes = kL0C;
    return l;
}

// One operand's Norm cache: Hit(index) = index < cacheSize && index < allocated since the last Reset.
struct ReplayCache {
    uint64_t size = 0;
    uint64_t proc = 0;
    bool Load(uint64_t index) // true when the block must come from GM
    {
        if (index < size && index < proc) {
            return false;
        }
        if (index < size) {
            ++proc;
        }
        return true;
    }
    void Reset() { proc = 0; }
};

struct Replay {
    uint64_t blocks = 0;
    uint64_t elems = 0;
};

uint64_t Len(uint64_t total, uint64_t base, uint64_t i) { return std::min(base, total - i * base); }

Replay ReplayNorm(uint64_t m, uint64_t n, uint64_t k, uint64_t bm, uint64_t bn, const dcn::MatmulL1Plan& p)
{
    const uint64_t bk = static_cast<uint64_t>(p.baseK);
    const uint64_t tm = (m + bm - 1) / bm, tn = (n + bn - 1) / bn, tk = (k + bk - 1) / bk;
    const uint64_t stepM = static_cast<uint64_t>(p.stepM), stepN = static_cast<uint64_t>(p.stepN);
    ReplayCache a, b;
    a.size = dcn::NormCachedBlocks(static_cast<uint64_t>(p.depthA1), tk, stepM);
    b.size = dcn::NormCachedBlocks(static_cast<uint64_t>(p.depthB1), tk, stepN);
    Replay r;
    auto visit = [&](uint64_t mi, uint64_t ni) {
        for (uint64_t ki = 0; ki < tk; ++ki) {
            const uint64_t idxA = p.iterateOrder == 0 ? ki : (mi * tk + ki) % (stepM * tk);
            const uint64_t idxB = p.iterateOrder == 0 ? (ki + ni * tk) % (stepN * tk) : ki;
            if (a.Load(idxA)) {
                ++r.blocks;
                r.elems += Len(m, bm, mi) * Len(k, bk, ki);
            }
            if (b.Load(idxB)) {
                ++r.blocks;
                r.elems += Len(n, bn, ni) * Len(k, bk, ki);
            }
        }
    };
    if (p.iterateOrder == 0) {
        for (uint64_t n0 = 0; n0 < tn; n0 += stepN) {
            for (uint64_t mi = 0; mi < tm; ++mi) {
                for (uint64_t ni = n0; ni < std::min(tn, n0 + stepN); ++ni) {
                    visit(mi, ni);
                }
                a.Reset(); // the n inner loop is done
            }
            b.Reset(); // the m loop is done
        }
    } else {
        for (uint64_t m0 = 0; m0 < tm; m0 += stepM) {
            for (uint64_t ni = 0; ni < tn; ++ni) {
                for (uint64_t mi = m0; mi < std::min(tm, m0 + stepM); ++mi) {
                    visit(mi, ni);
                }
                b.Reset(); // the m inner loop is done
            }
            a.Reset(); // the n loop is done
        }
    }
    return r;
}

struct Tile {
    int64_t m, n, k, bm, bn, elt;
};

// Stage-1 tiles of the suite (G: pixels x K*CinG over CoutG; W: CoutG x K*CinG over a Ka chunk) in fp32 and
// 16-bit, plus small and ragged ones (base blocks below 128 x 256 are the tiling's own choice).
const Tile kTiles[] = {
    {512, 512, 256, 128, 256, 4},  {512, 512, 256, 128, 256, 2}, {504, 512, 512, 128, 256, 4},
    {504, 512, 512, 128, 256, 2},  {256, 256, 336, 128, 256, 4}, {256, 256, 504, 128, 256, 4},
    {256, 256, 2048, 128, 256, 4}, {247, 512, 512, 128, 256, 4}, {128, 256, 202, 128, 256, 4},
    {512, 512, 128, 128, 256, 2},  {16, 144, 672, 16, 144, 4},   {512, 144, 16, 128, 144, 4},
    {100, 250, 9, 112, 240, 2},    {64, 256, 4096, 64, 256, 2},  {1, 1, 1, 16, 16, 4},
};

TEST(MatmulL1Plan, constraints_hold_and_loads_match_the_norm_scheduler)
{
    for (const Tile& t : kTiles) {
        dcn::MatmulL1Plan p;
        ASSERT_TRUE(dcn::PlanMatmulL1(t.m, t.n, t.k, t.bm, t.bn, t.elt, Limits910B(), p))
            << t.m << "x" << t.n << "x" << t.k;
        const uint64_t bk = static_cast<uint64_t>(p.baseK), elt = static_cast<uint64_t>(t.elt);
        const uint64_t bm = static_cast<uint64_t>(t.bm), bn = static_cast<uint64_t>(t.bn);
        EXPECT_EQ(bk % 16, 0u);
        EXPECT_LE(bm * bk * elt * 2, kL0);
        EXPECT_LE(bn * bk * elt * 2, kL0);
        EXPECT_TRUE(p.iterateOrder == 0 || p.iterateOrder == 1);
        EXPECT_EQ(p.depthA1, p.stepM * p.stepKa);
        EXPECT_EQ(p.depthB1, p.stepN * p.stepKb);
        EXPECT_TRUE(p.stepM == 1 || p.stepN == 1);
        const uint64_t l1 =
            static_cast<uint64_t>(p.depthA1) * bm * bk * elt + static_cast<uint64_t>(p.depthB1) * bn * bk * elt;
        EXPECT_EQ(p.l1Bytes, l1);
        EXPECT_LE(l1, kL1);
        const Replay r =
            ReplayNorm(static_cast<uint64_t>(t.m), static_cast<uint64_t>(t.n), static_cast<uint64_t>(t.k), bm, bn, p);
        EXPECT_EQ(p.loadBlocks, r.blocks) << t.m << "x" << t.n << "x" << t.k;
        EXPECT_EQ(p.loadElems, r.elems) << t.m << "x" << t.n << "x" << t.k;
        // never fewer than the unique elements
        EXPECT_GE(p.loadElems, static_cast<uint64_t>((t.m + t.n) * t.k));
    }
}

TEST(MatmulL1Plan, every_element_loads_once_when_a_whole_operand_fits)
{
    // 512 x 512 x 64 fp32: A (128 KiB) kept whole, B streamed per n block with its full K
    dcn::MatmulL1Plan p;
    ASSERT_TRUE(dcn::PlanMatmulL1(512, 512, 64, 128, 256, 4, Limits910B(), p));
    EXPECT_EQ(p.loadElems, (512u + 512u) * 64u);
    // the G tile of R50 c4 (512 x 512 x 256 fp32, baseK 32): neither operand fits with the other's full K,
    // yet the plan loads less than the library's former 2 x stepK depths (A twice, B once: 1.5 x unique)
    ASSERT_TRUE(dcn::PlanMatmulL1(512, 512, 256, 128, 256, 4, Limits910B(), p));
    EXPECT_EQ(p.baseK, 32);
    EXPECT_LT(p.loadElems, (2u * 512u + 512u) * 256u);
    EXPECT_GE(p.loadElems, (512u + 512u) * 256u);
}

TEST(MatmulL1Plan, norm_cache_sizes_follow_cube_in_buffer_normal)
{
    EXPECT_EQ(dcn::NormCachedBlocks(16, 8, 2), 16u); // k full load
    EXPECT_EQ(dcn::NormCachedBlocks(10, 16, 1), 8u); // k not full load: depth - 2 cached, 2 streaming
    EXPECT_EQ(dcn::NormCachedBlocks(2, 8, 1), 0u);   // not full, no room for a cache
    EXPECT_EQ(dcn::NormCachedBlocks(2, 1, 1), 0u);   // kIter 1, depth 2: double buffer along m / n
    EXPECT_EQ(dcn::NormCachedBlocks(1, 1, 1), 1u);
    EXPECT_EQ(dcn::NormCachedBlocks(2, 2, 1), 2u);
}

TEST(Stage1Matmul, tile_cycles_follow_the_pipe_model)
{
    // 64 x 64 x 64 fp32 on one 64 x 64 base block (baseK 64): MTE2 = 2 block loads x 16 + 2 x 16 KiB / 32 =
    // 1056; MTE1 = 16 KiB / 256 + 16 KiB / 128 = 192; M = 64^3 / (16 x 16 x 4) + 32 = 288; FIX = 16 + 16 KiB /
    // 32 = 528. One unit each but 2 loads: MTE2 + MTE1 + M + FIX = 2064 is the longest chain.
    dcn::Stage1MatmulPlan p;
    p.baseM = 64;
    p.baseN = 64;
    ASSERT_TRUE(dcn::PlanMatmulL1(64, 64, 64, 64, 64, 4, Limits910B(), p.l1));
    EXPECT_EQ(p.l1.baseK, 64);
    EXPECT_DOUBLE_EQ(dcn::Stage1TileCycles(64, 64, 64, p, 4), 2064.0);
    // a tail tile is costed with its own sizes under the same plan: fewer cycles
    EXPECT_LT(dcn::Stage1TileCycles(16, 64, 64, p, 4), 2064.0);
}

TEST(Stage1Matmul, base_choice_meets_set_fix_split_and_is_no_worse_than_128_x_256)
{
    for (const Tile& t : kTiles) {
        dcn::Stage1MatmulPlan p;
        ASSERT_TRUE(dcn::PlanStage1Matmul(t.m, t.n, t.k, t.elt, Limits910B(), p)) << t.m << "x" << t.n << "x" << t.k;
        const int64_t c0 = 32 / t.elt;
        EXPECT_EQ(p.baseM % 16, 0);
        EXPECT_EQ(p.baseN % 16, 0);
        EXPECT_LE(p.baseM, (t.m + 15) / 16 * 16);
        if ((t.n + c0 - 1) / c0 * c0 >= 16) {
            EXPECT_LE(p.baseN, (t.n + c0 - 1) / c0 * c0);
        }
        EXPECT_LE(static_cast<uint64_t>(p.baseM) * static_cast<uint64_t>(p.baseN) * 4, kL0C);
        dcn::MatmulL1Plan again;
        ASSERT_TRUE(dcn::PlanMatmulL1(t.m, t.n, t.k, p.baseM, p.baseN, t.elt, Limits910B(), again));
        EXPECT_EQ(again.loadElems, p.l1.loadElems); // the plan is PlanMatmulL1's over the chosen base
        if (t.m >= 128 && t.n >= 256) {
            dcn::Stage1MatmulPlan fixed;
            fixed.baseM = 128;
            fixed.baseN = 256;
            ASSERT_TRUE(dcn::PlanMatmulL1(t.m, t.n, t.k, 128, 256, t.elt, Limits910B(), fixed.l1));
            EXPECT_LE(
                dcn::Stage1TileCycles(t.m, t.n, t.k, p, t.elt), dcn::Stage1TileCycles(t.m, t.n, t.k, fixed, t.elt));
        }
    }
    // no candidate base block of a 512 x 512 tile (64 x 64 at least) fits an L0C of 512 B
    dcn::MatmulL1Limits tiny = Limits910B();
    tiny.l0cBytes = 512;
    dcn::Stage1MatmulPlan p;
    EXPECT_FALSE(dcn::PlanStage1Matmul(512, 512, 64, 4, tiny, p));
}

TEST(MatmulL1Plan, impossible_limits_are_an_error)
{
    dcn::MatmulL1Plan p;
    dcn::MatmulL1Limits tiny = Limits910B();
    tiny.l0bBytes = 256 * 16 * 4; // not even one 16-deep double-buffered B block of 256 columns
    EXPECT_FALSE(dcn::PlanMatmulL1(512, 512, 256, 128, 256, 4, tiny, p));
    tiny = Limits910B();
    tiny.l1Bytes = 1024; // L1 below one A block and one B block
    EXPECT_FALSE(dcn::PlanMatmulL1(512, 512, 256, 128, 256, 4, tiny, p));
    EXPECT_FALSE(dcn::PlanMatmulL1(0, 512, 256, 128, 256, 4, Limits910B(), p));
}

} // namespace
