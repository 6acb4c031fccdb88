// Cost table (twin/kernel/cost_table.h): official per-instruction rates by hand, the Mmad formula,
// pipe terms consistent with PipeCycles, and the counters a small kernel accumulates per core and per
// stage (SyncAll snapshots, including the serving AIC's Matmul work split by its AIV's stages).
#include <cmath>
#include <cstring>
#include <set>

#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "kernel_test_util.h"
#include "twin/kernel/cost_table.h"

using namespace AscendC;
using twin::KernelType;
namespace cost = twin::cost;

TEST_CASE(vector_rates_follow_the_official_table) {
    // Gather: 5 elements/cycle (Vector table 12), per element, any type
    CHECK(cost::VectorCost("Gather", 4, 100).cycles == 20);
    CHECK(cost::VectorCost("Gather", 2, 101).cycles == 21);
    // Add: one 256-B repeat per cycle; a partial repeat costs a full one
    CHECK(cost::VectorCost("Add", 4, 64).cycles == 1);
    CHECK(cost::VectorCost("Add", 4, 65).cycles == 2);
    CHECK(cost::VectorCost("Add", 2, 128).cycles == 1);
    // Exp: 32 elements/cycle for half and float
    CHECK(cost::VectorCost("Exp", 4, 64).cycles == 2);
    CHECK(cost::VectorCost("Exp", 2, 128).cycles == 4);
    // WholeReduceSum = ReduceRepeat: float 64/7, half 128/7 elements/cycle -> 7 cycles per repeat
    CHECK(cost::VectorCost("WholeReduceSum", 4, 3 * 64).cycles == 21);
    CHECK(cost::VectorCost("WholeReduceSum", 2, 128).cycles == 7);
    // GatherMask: half 64, float 32 elements/cycle
    CHECK(cost::VectorCost("GatherMask", 4, 64).cycles == 2);
    // Cast costs by its widest type: float<->half 64 elements/cycle
    CHECK(cost::VectorCost("Cast", 4, 64).cycles == 1);
    // unlisted APIs: no cycles, their repeats are counted for the assumed constant
    const cost::VecCost copy = cost::VectorCost("Copy", 4, 130);
    CHECK(copy.cycles == 0 && copy.unlistedRepeats == 3);
    CHECK(cost::VectorCost("Add", 4, 0).cycles == 0);
    size_t n = 0;
    const cost::VecRate *rates = cost::VectorRates(n);
    CHECK(n > 20);
    for (size_t i = 0; i < n; ++i) CHECK(rates[i].elems > 0 && rates[i].cycles > 0 && std::strstr(rates[i].source, "Vector") != nullptr);
}

TEST_CASE(mmad_formula_by_hand) {
    // fp32 128x128x64, base 128x128x32: 2 Mmads of 128*128*32 / (16*16*4) = 512 cycles each
    cost::CubeCost c = cost::MatmulCost(128, 128, 64, 128, 128, 32, 4);
    CHECK(c.mCycles == 1024 && c.mmadCalls == 2);
    // MTE1: A 128x64x4 B at 256 B/cycle = 128; B 64x128x4 B at 128 B/cycle = 256
    CHECK(c.mte1Cycles == 128 + 256);
    CHECK(c.gmReadTransfers == 2 + 2 && c.gmWriteTransfers == 1);
    // half, tails rounded to 16 (M, N) and k0 = 16 (K): 20x20x20 in one block = 32*32*32 / (16*16*16)
    c = cost::MatmulCost(20, 20, 20, 64, 64, 64, 2);
    CHECK(c.mCycles == 8 && c.mmadCalls == 1);
    // fp32 k0 = 8: K = 9 rounds to 16; 16x16x16 / (16*16*4) = 4
    CHECK(cost::MatmulCost(16, 16, 9, 16, 16, 16, 4).mCycles == 4);
}

TEST_CASE(matmul_l1_reuse_follows_the_norm_scheduler)
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
    CHECK(c.gmReadTransfers == 4 * 4 * 4 + 4 * 4 * 1);
    CHECK(c.gmLoadBytes == (4ull * 256 * 128 + 1ull * 128 * 256) * 4);
    // stepN = 2: A stays in L1 over two n blocks
    t.stepN = 2;
    c = cost::MatmulCost(256, 256, 128, t, 4);
    CHECK(c.gmLoadBytes == (2ull * 256 * 128 + 1ull * 128 * 256) * 4);
    // ORDER_N: the mirror image
    t.stepN = 1;
    t.iterateOrder = 1;
    c = cost::MatmulCost(256, 256, 128, t, 4);
    CHECK(c.gmLoadBytes == (1ull * 256 * 128 + 4ull * 128 * 256) * 4);
    // caches smaller than the full K: both reloaded for every (m, n) block
    t.iterateOrder = 0;
    t.depthA1 = t.depthB1 = 2;
    c = cost::MatmulCost(256, 256, 128, t, 4);
    CHECK(c.gmReadTransfers == 2 * 4 * 4 * 4);
    CHECK(c.gmLoadBytes == (4ull * 256 * 128 + 4ull * 128 * 256) * 4);
    // the Mmads and L1->L0 moves do not depend on the L1 reuse
    CHECK(c.mmadCalls == 4 * 4 * 4 && c.mCycles == cost::MatmulCost(256, 256, 128, 64, 64, 32, 4).mCycles);
}

TEST_CASE(pipe_terms_name_known_counters_and_constants) {
    size_t nt = 0, nk = 0, np = 0;
    const cost::PipeTerm *terms = cost::PipeTerms(nt);
    const cost::Constant *ks = cost::Constants(nk);
    const char *const *pipes = cost::Pipes(np);
    std::set<std::string> pipeSet(pipes, pipes + np);
    twin::PipeCounters zero;
    for (size_t i = 0; i < nt; ++i) {
        uint64_t v = 1;
        CHECK(cost::CounterByName(zero, terms[i].counter, v) && v == 0);
        CHECK(pipeSet.count(terms[i].pipe) == 1);
        if (terms[i].constant) CHECK(std::isfinite(cost::ConstantValue(terms[i].constant)));
    }
    for (size_t i = 0; i < nk; ++i) CHECK(ks[i].value > 0 && std::strlen(ks[i].source) > 10);
    twin::PipeCounters c;
    c.gmToUbCopies = 2;
    c.gmToUbBytes = 3200;
    c.vecCycles = 7;
    c.vecUnlistedRepeats = 3;
    CHECK(cost::PipeCycles(c, "MTE2") ==
          2 * cost::ConstantValue("dma_transfer_cycles") + 3200 * cost::ConstantValue("gm_read_cycles_per_byte"));
    CHECK(cost::PipeCycles(c, "V") == 7 + 3 * cost::ConstantValue("vec_unlisted_cycles_per_repeat"));
    CHECK(
        cost::PipeCycles(c, "S") == 2 * cost::ConstantValue("scalar_issue_cycles")); // the scalar unit issues each DMA
}

TEST_CASE(kernel_accumulates_vector_cycles_per_core_and_stage) {
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
    CHECK(ktest::ExpectOk(r));
    CHECK(r.cores.size() == 2);
    if (r.cores.size() != 2) return;
    for (const auto &cc : r.cores) CHECK(cc.atSyncAll.size() == 1 && cc.atSyncAll[0].vecCycles == 4);
    CHECK(r.cores[0].vecCycles == 4);
    CHECK(r.cores[1].vecCycles == 4 + 1 + 1 + 2 + 20);
}

namespace {
using AType = MatmulType<TPosition::GM, CubeFormat::ND, float>;
using CType = MatmulType<TPosition::GM, CubeFormat::ND, float>;
}  // namespace

TEST_CASE(serving_aic_gets_cube_cycles_split_by_stage) {
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
    CHECK(ktest::ExpectOk(r));
    CHECK(r.cores.size() == 3 && r.cores[0].isAic);
    if (r.cores.size() != 3) return;
    const cost::CubeCost want = cost::MatmulCost(M, N, K, 16, 16, 16, 4);
    const auto &aic = r.cores[0];
    CHECK(aic.cubeCycles == want.mCycles && aic.mmadCalls == want.mmadCalls && aic.mte1Cycles == want.mte1Cycles);
    CHECK(aic.cubeGmReadTransfers == want.gmReadTransfers && aic.cubeGmWriteTransfers == want.gmWriteTransfers);
    CHECK(want.mCycles == 8 * (16 * 16 * 16) / (16 * 16 * 4));
    // one snapshot (the AIV cores' single SyncAll), taken before the Matmul: stage 0 has no cube work
    CHECK(aic.atSyncAll.size() == 1 && aic.atSyncAll[0].cubeCycles == 0);
    CHECK(r.cores[1].cubeMacsIssued == uint64_t(M) * N * K && r.cores[1].cubeCycles == 0);
}

TEST_MAIN()
