// Cost table (twin/kernel/cost_table.h): official per-instruction rates by hand, the Mmad formula,
// pipe terms consistent with PipeCycles, and the counters a small kernel accumulates per core and per
// stage (SyncAll snapshots, including the serving AIC's Matmul work split by its AIV's stages).
#include <cmath>
#include <cstring>
#include <set>

#include <gtest/gtest.h>

#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "kernel_test_util.h"
#include "twin/kernel/cost_table.h"

using namespace AscendC;
using twin::KernelType;
namespace cost = twin::cost;

TEST(CostTable, vector_rates_follow_the_official_table)
{
    // Gather: 5 elements/cycle (Vector table 12), per element, any type
    EXPECT_EQ(cost::VectorCost("Gather", 4, 100).cycles, 20);
    EXPECT_EQ(cost::VectorCost("Gather", 2, 101).cycles, 21);
    // Gatherb: uint32_t 21, uint16_t 42 elements/cycle (table 12); one repeat = 8 blocks = 64 uint32_t
    EXPECT_EQ(cost::VectorCost("Gatherb", 4, 64).cycles, 4);
    EXPECT_EQ(cost::VectorCost("Gatherb", 2, 128).cycles, 4);
    // TransDataTo5HD: 64 (32-bit) / 128 (16-bit) elements/cycle (table 9); one repeat = 16 blocks = 2 cycles
    EXPECT_EQ(cost::VectorCost("TransDataTo5HD", 4, 128).cycles, 2);
    EXPECT_EQ(cost::VectorCost("TransDataTo5HD", 2, 256).cycles, 2);
    // Add: one 256-B repeat per cycle; a partial repeat costs a full one
    EXPECT_EQ(cost::VectorCost("Add", 4, 64).cycles, 1);
    EXPECT_EQ(cost::VectorCost("Add", 4, 65).cycles, 2);
    EXPECT_EQ(cost::VectorCost("Add", 2, 128).cycles, 1);
    // Exp: 32 elements/cycle for half and float
    EXPECT_EQ(cost::VectorCost("Exp", 4, 64).cycles, 2);
    EXPECT_EQ(cost::VectorCost("Exp", 2, 128).cycles, 4);
    // WholeReduceSum = ReduceRepeat: float 64/7, half 128/7 elements/cycle -> 7 cycles per repeat
    EXPECT_EQ(cost::VectorCost("WholeReduceSum", 4, 3 * 64).cycles, 21);
    EXPECT_EQ(cost::VectorCost("WholeReduceSum", 2, 128).cycles, 7);
    // GatherMask: half 64, float 32 elements/cycle
    EXPECT_EQ(cost::VectorCost("GatherMask", 4, 64).cycles, 2);
    // Cast costs by its widest type: float<->half 64 elements/cycle
    EXPECT_EQ(cost::VectorCost("Cast", 4, 64).cycles, 1);
    // unlisted APIs: no cycles, their repeats are counted for the assumed constant
    const cost::VecCost copy = cost::VectorCost("Copy", 4, 130);
    EXPECT_EQ(copy.cycles, 0);
    EXPECT_EQ(copy.unlistedRepeats, 3);
    EXPECT_EQ(cost::VectorCost("Add", 4, 0).cycles, 0);
    size_t n = 0;
    const cost::VecRate *rates = cost::VectorRates(n);
    EXPECT_GT(n, 20);
    for (size_t i = 0; i < n; ++i) {
        EXPECT_GT(rates[i].elems, 0u);
        EXPECT_GT(rates[i].cycles, 0u);
        EXPECT_NE(std::strstr(rates[i].source, "Vector"), nullptr) << rates[i].source;
    }
}

TEST(CostTable, mmad_formula_by_hand)
{
    // fp32 128x128x64, base 128x128x32: 2 Mmads of 128*128*32 / (16*16*4) = 512 cycles each
    cost::CubeCost c = cost::MatmulCost(128, 128, 64, 128, 128, 32, 4);
    EXPECT_EQ(c.mCycles, 1024);
    EXPECT_EQ(c.mmadCalls, 2);
    // MTE1: A 128x64x4 B at 256 B/cycle = 128; B 64x128x4 B at 128 B/cycle = 256
    EXPECT_EQ(c.mte1Cycles, 128 + 256);
    EXPECT_EQ(c.gmReadTransfers, 2 + 2);
    EXPECT_EQ(c.gmWriteTransfers, 1);
    // half, tails rounded to 16 (M, N) and k0 = 16 (K): 20x20x20 in one block = 32*32*32 / (16*16*16)
    c = cost::MatmulCost(20, 20, 20, 64, 64, 64, 2);
    EXPECT_EQ(c.mCycles, 8);
    EXPECT_EQ(c.mmadCalls, 1);
    // fp32 k0 = 8: K = 9 rounds to 16; 16x16x16 / (16*16*4) = 4
    EXPECT_EQ(cost::MatmulCost(16, 16, 9, 16, 16, 16, 4).mCycles, 4);
}

TEST(CostTable, matmul_l1_reuse_follows_the_norm_scheduler)
{
    // 256 x 256 x 128 fp32 in 64 x 64 x 32 blocks: 4 m blocks, 4 n blocks, kIters = 4
    cost::CubeTiling t;
    t.baseM = 64;
    t.baseN = 64;
    t.baseK = 32;
    t.depthA1 = 8;
    t.depthB1 = 8; // >= kIters: each matrix's full K fits in its L1 cache
    // ORDER_M, stepN = 1: A's row block is loaded for every n block, B's column block once
    cost::CubeCost c = cost::MatmulCost(256, 256, 128, t, 4);
    EXPECT_EQ(c.gmReadTransfers, 4 * 4 * 4 + 4 * 4 * 1);
    EXPECT_EQ(c.gmLoadBytes, (4ull * 256 * 128 + 1ull * 128 * 256) * 4);
    // stepN = 2: A stays in L1 over two n blocks
    t.stepN = 2;
    c = cost::MatmulCost(256, 256, 128, t, 4);
    EXPECT_EQ(c.gmLoadBytes, (2ull * 256 * 128 + 1ull * 128 * 256) * 4);
    // ORDER_N: the mirror image
    t.stepN = 1;
    t.iterateOrder = 1;
    c = cost::MatmulCost(256, 256, 128, t, 4);
    EXPECT_EQ(c.gmLoadBytes, (1ull * 256 * 128 + 4ull * 128 * 256) * 4);
    // caches smaller than the full K: both reloaded for every (m, n) block
    t.iterateOrder = 0;
    t.depthA1 = t.depthB1 = 2;
    c = cost::MatmulCost(256, 256, 128, t, 4);
    EXPECT_EQ(c.gmReadTransfers, 2 * 4 * 4 * 4);
    EXPECT_EQ(c.gmLoadBytes, (4ull * 256 * 128 + 4ull * 128 * 256) * 4);
    // the Mmads and L1->L0 moves do not depend on the L1 reuse
    EXPECT_EQ(c.mmadCalls, 4 * 4 * 4);
    EXPECT_EQ(c.mCycles, cost::MatmulCost(256, 256, 128, 64, 64, 32, 4).mCycles);
}

TEST(CostTable, matmul_partial_l1_cache_keeps_depth_minus_two_blocks)
{
    // CANN 8.1.RC1 cube_in_buffer_normal.h Init: "k not full load" with depth > 2 keeps the first depth - 2
    // cache indexes in L1 (Hit) and streams the others through 2 buffers. 256 x 256 x 256 fp32 in
    // 64 x 64 x 32 blocks: tm = tn = 4, kIters = 8.
    cost::CubeTiling t;
    t.baseM = 64;
    t.baseN = 64;
    t.baseK = 32;
    t.stepN = 2;
    t.depthA1 = 5; // < kIters: A keeps K blocks 0..2 over the 2 n blocks of a group, reloads 3..7 per n
    t.depthB1 = 4; // < kIters x stepN: B keeps indexes 0..1 (n block j of a group: j x kIters + k) over all m
    cost::CubeCost c = cost::MatmulCost(256, 256, 256, t, 4);
    // A: per m (4) and group (2): 3 + 5 x 2 loads; B: per n block, j = 0: 2 + 6 x 4, j = 1: 8 x 4
    const uint64_t aLoads = 4 * 2 * (3 + 5 * 2), bLoads = 2 * ((2 + 6 * 4) + 8 * 4);
    EXPECT_EQ(c.gmReadTransfers, aLoads + bLoads);
    EXPECT_EQ(c.gmLoadBytes, (aLoads + bLoads) * 64ull * 32 * 4);
    // ORDER_N mirrors it: B (index k) reset per (n, group of stepM m blocks), A (index j x kIters + k) per group
    t.iterateOrder = 1;
    t.stepN = 1;
    t.stepM = 2;
    t.depthA1 = 4;
    t.depthB1 = 5;
    c = cost::MatmulCost(256, 256, 256, t, 4);
    EXPECT_EQ(c.gmReadTransfers, aLoads + bLoads);
    // depth <= 2 keeps nothing when K is not fully loaded; kIters = 1 with depth 2 double-buffers along m / n
    t.iterateOrder = 0;
    t.stepM = t.stepN = 1;
    t.depthA1 = t.depthB1 = 2;
    c = cost::MatmulCost(256, 256, 256, t, 4);
    EXPECT_EQ(c.gmReadTransfers, 2ull * 4 * 4 * 8);
    t.baseK = 256; // kIters = 1 (L0 limits ignored here: the cost model only)
    c = cost::MatmulCost(256, 256, 256, t, 4);
    EXPECT_EQ(c.gmReadTransfers, 2ull * 4 * 4);
    t.depthA1 = t.depthB1 = 1; // full load in one block: A once per (m, n), B once per n block
    c = cost::MatmulCost(256, 256, 256, t, 4);
    EXPECT_EQ(c.gmReadTransfers, 4ull * 4 + 4);
    // tails: the last K block (K = 250: 26 elements) and the last m block (M = 250: 58 rows) count their size
    t.baseK = 32;
    t.depthA1 = t.depthB1 = 16; // full
    c = cost::MatmulCost(250, 256, 250, t, 4);
    EXPECT_EQ(c.gmLoadBytes, (4ull * 250 * 250 + 1ull * 250 * 256) * 4);
}

TEST(CostTable, pipe_terms_name_known_counters_and_constants)
{
    size_t nt = 0, nk = 0, np = 0;
    const cost::PipeTerm *terms = cost::PipeTerms(nt);
    const cost::Constant *ks = cost::Constants(nk);
    const char *const *pipes = cost::Pipes(np);
    std::set<std::string> pipeSet(pipes, pipes + np);
    twin::PipeCounters zero;
    for (size_t i = 0; i < nt; ++i) {
        uint64_t v = 1;
        EXPECT_TRUE(cost::CounterByName(zero, terms[i].counter, v)) << terms[i].counter;
        EXPECT_EQ(v, 0u);
        EXPECT_EQ(pipeSet.count(terms[i].pipe), 1);
        if (terms[i].constant) {
            EXPECT_TRUE(std::isfinite(cost::ConstantValue(terms[i].constant)));
        }
    }
    for (size_t i = 0; i < nk; ++i) {
        EXPECT_GT(ks[i].value, 0);
        EXPECT_GT(std::strlen(ks[i].source), 10u);
    }
    twin::PipeCounters c;
    c.gmToUbCopies = 2;
    c.gmToUbBytes = 3200;
    c.vecCycles = 7;
    c.vecUnlistedRepeats = 3;
    EXPECT_EQ(
        cost::PipeCycles(c, "MTE2"),
        2 * cost::ConstantValue("dma_transfer_cycles") + 3200 * cost::ConstantValue("gm_read_cycles_per_byte"));
    EXPECT_EQ(cost::PipeCycles(c, "V"), 7 + 3 * cost::ConstantValue("vec_unlisted_cycles_per_repeat"));
    EXPECT_EQ(
        cost::PipeCycles(c, "S"), 2 * cost::ConstantValue("scalar_issue_cycles")); // the scalar unit issues each DMA
}

TEST(CostTable, kernel_accumulates_vector_cycles_per_core_and_stage)
{
    auto r = ktest::Run(2, KernelType::MIX_AIV_1_0, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 4096);
        LocalTensor<float> a = buf.Get<float>(), b = a[256], d = a[512];
        LocalTensor<uint32_t> idx = buf.Get<uint32_t>()[768];
        Duplicate(a, 1.0f, 256);                 // 4 repeats
        SyncAll();
        if (GetBlockIdx() == 1) {
            Duplicate(b, 2.0f, 64);              // 1 repeat
            PipeBarrier<PIPE_V>();
            Add(d, a, b, 64);                    // 1 repeat
            Duplicate(idx, 0u, 100);             // 2 repeats (100 of 64 per repeat)
            PipeBarrier<PIPE_V>();
            Gather(d, a, idx, 0u, 100);          // 100 / 5 = 20 cycles
        }
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    EXPECT_EQ(r.cores.size(), 2);
    if (r.cores.size() != 2) return;
    for (const auto& cc : r.cores) {
        ASSERT_EQ(cc.atSyncAll.size(), 1u);
        EXPECT_EQ(cc.atSyncAll[0].vecCycles, 4u);
    }
    EXPECT_EQ(r.cores[0].vecCycles, 4);
    EXPECT_EQ(r.cores[1].vecCycles, 4 + 1 + 1 + 2 + 20);
}

// A UB->UB DataCopy is a PIPE_V instruction (API pipe summary): the scalar unit issues it like any other
// vector instruction, so it counts in vecIssued (scalar_issue_cycles on S) besides its bytes on V.
TEST(CostTable, ub_to_ub_copy_is_issued_by_the_scalar_unit)
{
    auto r = ktest::Run(1, KernelType::MIX_AIV_1_0, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 4096);
        LocalTensor<float> a = buf.Get<float>(), b = a[256];
        Duplicate(a, 1.0f, 256);
        PipeBarrier<PIPE_V>();
        DataCopy(b, a, 64); // count form: 256 bytes
        DataCopyParams p;
        p.blockCount = 2;
        p.blockLen = 1;
        p.srcStride = 1;
        p.dstStride = 1;
        PipeBarrier<PIPE_V>();
        DataCopy(b[128], a, p); // strided form: 2 blocks of 32 bytes
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    ASSERT_EQ(r.cores.size(), 1u);
    EXPECT_EQ(r.cores[0].ubToUbBytes, 256u + 64u);
    EXPECT_EQ(r.cores[0].vecIssued, 3u); // Duplicate + two copies
}

// Select (count forms) on dav_c220 runs a Duplicate of the mask address or of the scalar into a 32-B
// temporary block, a set_cmpmask and the vsel (VselImpl): three instructions the scalar unit issues.
TEST(CostTable, select_issues_duplicate_set_cmpmask_and_vsel)
{
    auto r = ktest::Run(1, KernelType::MIX_AIV_1_0, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 4096);
        LocalTensor<float> src = buf.Get<float>(); // [0, 256) src0, [256, 512) src1, [512, 576) dst, then the mask
        Duplicate(src, 1.0f, 512);
        PipeBarrier<PIPE_V>();
        CompareScalar(src[768].ReinterpretCast<uint8_t>(), src, 0.5f, CMPMODE::GT, 64);
        PipeBarrier<PIPE_V>();
        Select(src[512], src[768].ReinterpretCast<uint8_t>(), src, src[256], SELMODE::VSEL_TENSOR_TENSOR_MODE, 64);
        PipeBarrier<PIPE_V>();
        Select(src[512], src[768].ReinterpretCast<uint8_t>(), src, -1.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, 64);
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    ASSERT_EQ(r.cores.size(), 1u);
    EXPECT_EQ(r.cores[0].vecIssued, 1u + 1u + 3u + 3u); // Duplicate, CompareScalar, 2 x (Duplicate, set_cmpmask, vsel)
}

// A PipeBarrier<PIPE_V> holds the vector pipe until its earlier instructions complete: counted in
// pipeBarriersV (pipe_barrier_cycles on V); MTE barriers are not.
TEST(CostTable, vector_pipe_barrier_is_counted_on_v)
{
    auto r = ktest::Run(1, KernelType::MIX_AIV_1_0, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 4096);
        LocalTensor<float> a = buf.Get<float>();
        Duplicate(a, 1.0f, 64);
        PipeBarrier<PIPE_V>();
        Adds(a, a, 1.0f, 64);
        PipeBarrier<PIPE_V>();
        Adds(a, a, 1.0f, 64);
        PipeBarrier<PIPE_MTE2>();
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    ASSERT_EQ(r.cores.size(), 1u);
    EXPECT_EQ(r.cores[0].pipeBarriersV, 2u);
    EXPECT_EQ(r.cores[0].vecIssued, 3u); // a barrier is not a vector instruction
    uint64_t v = 0;
    EXPECT_TRUE(cost::CounterByName(r.cores[0], "pipeBarriersV", v));
    EXPECT_EQ(v, 2u);
}

namespace {
using AType = MatmulType<TPosition::GM, CubeFormat::ND, float>;
using CType = MatmulType<TPosition::GM, CubeFormat::ND, float>;
}  // namespace

TEST(CostTable, serving_aic_gets_cube_cycles_split_by_stage)
{
    const int M = 32, N = 32, K = 32;
    ktest::Gm<float> a(M * K, "a"), b(K * N, "b"), c(M * N, "c");
    ktest::Gm<uint8_t> ws(twin::kLibApiWorkspaceBytes, "ws");
    TCubeTiling t{};
    t.usedCoreNum = 1;
    t.M = M; t.N = N; t.Ka = K; t.Kb = K;
    t.singleCoreM = M; t.singleCoreN = N; t.singleCoreK = K;
    t.baseM = 16; t.baseN = 16; t.baseK = 16;
    twin::LaunchOptions opt{};
    opt.blockDim = 1;
    opt.type = KernelType::MIX_AIC_1_2;
    opt.workspace = ws.addr();
    auto r = twin::Launch(opt, [&] {
        TPipe pipe;
        Matmul<AType, AType, CType, CType, CFG_NORM> mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        if ASCEND_IS_AIC { return; }
        GlobalTensor<float> ga, gb, gc;
        ga.SetGlobalBuffer((__gm__ float *)a.addr());
        gb.SetGlobalBuffer((__gm__ float *)b.addr());
        gc.SetGlobalBuffer((__gm__ float *)c.addr());
        SyncAll();                                   // stage 0: no Matmul
        if (GetBlockIdx() == 0) {                    // stage 1: one IterateAll
            mm.SetTensorA(ga);
            mm.SetTensorB(gb);
            mm.IterateAll(gc);
        }
        mm.End();
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    ASSERT_EQ(r.cores.size(), 3u);
    EXPECT_TRUE(r.cores[0].isAic);
    const cost::CubeCost want = cost::MatmulCost(M, N, K, 16, 16, 16, 4);
    const auto &aic = r.cores[0];
    EXPECT_EQ(aic.cubeCycles, want.mCycles);
    EXPECT_EQ(aic.mmadCalls, want.mmadCalls);
    EXPECT_EQ(aic.mte1Cycles, want.mte1Cycles);
    EXPECT_EQ(aic.cubeGmReadTransfers, want.gmReadTransfers);
    EXPECT_EQ(aic.cubeGmWriteTransfers, want.gmWriteTransfers);
    EXPECT_EQ(want.mCycles, 8 * (16 * 16 * 16) / (16 * 16 * 4));
    // one snapshot (the AIV cores' single SyncAll), taken before the Matmul: stage 0 has no cube work
    ASSERT_EQ(aic.atSyncAll.size(), 1u);
    EXPECT_EQ(aic.atSyncAll[0].cubeCycles, 0u);
    EXPECT_EQ(r.cores[1].cubeMacsIssued, uint64_t(M) * N * K);
    EXPECT_EQ(r.cores[1].cubeCycles, 0u);
}
