// Matmul high-level API in MIX mode (AIC:AIV = 1:2): a kernel written like the official samples
// (REGIST_MATMUL_OBJ, SetOrgShape on a sub-matrix, SetTensorA/B with transposes, SetBias, IterateAll,
// End) checked against a naive double-precision GEMM, atomic accumulation, the fixed K order
// (bitwise identical across core counts), and the Matmul rules as negative tests.
#include <gtest/gtest.h>

#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "kernel_test_util.h"

using namespace AscendC;
using twin::KernelType;

namespace {

TCubeTiling MakeTiling(int M, int N, int K, int sm, int sn, bool bias) {
    TCubeTiling t{};
    t.usedCoreNum = 1;
    t.M = M; t.N = N; t.Ka = K; t.Kb = K;
    t.singleCoreM = sm; t.singleCoreN = sn; t.singleCoreK = K;
    t.baseM = 16; t.baseN = 16; t.baseK = 16;
    t.isBias = bias ? 1 : 0;
    return t;
}

using AType = MatmulType<TPosition::GM, CubeFormat::ND, half, true>;
using BType = MatmulType<TPosition::GM, CubeFormat::ND, half, true>;
using CType = MatmulType<TPosition::GM, CubeFormat::ND, float>;
using BiasType = MatmulType<TPosition::GM, CubeFormat::ND, float>;

// Each AIV computes one [sm x sn] tile of C = op(A) * op(B) + bias; tiles assigned by block index.
struct MmArgs {
    GM_ADDR a;
    GM_ADDR b;
    GM_ADDR bias;
    GM_ADDR c;
    GM_ADDR workspace;
    TCubeTiling tiling;
    bool transA, transB;
    uint8_t atomic;
};

void MatmulKernel(const MmArgs &args) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    TPipe pipe;
    Matmul<AType, BType, CType, BiasType, CFG_NORM> mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &args.tiling);
    const TCubeTiling &t = args.tiling;
    const int tilesN = t.N / t.singleCoreN;
    const int tiles = (t.M / t.singleCoreM) * tilesN;
    GlobalTensor<half> ga, gb;
    GlobalTensor<float> gc, gbias;
    ga.SetGlobalBuffer((__gm__ half *)args.a);
    gb.SetGlobalBuffer((__gm__ half *)args.b);
    gc.SetGlobalBuffer((__gm__ float *)args.c);
    gbias.SetGlobalBuffer((__gm__ float *)args.bias);
    for (int tile = static_cast<int>(GetBlockIdx()); tile < tiles; tile += static_cast<int>(GetBlockNum() * 2)) {
        const int mi = tile / tilesN * t.singleCoreM, nj = tile % tilesN * t.singleCoreN;
        const int64_t offA = args.transA ? mi : int64_t(mi) * t.Ka;
        const int64_t offB = args.transB ? int64_t(nj) * t.Kb : nj;
        mm.SetOrgShape(t.M, t.N, t.Ka);
        mm.SetTensorA(ga[offA], args.transA);
        mm.SetTensorB(gb[offB], args.transB);
        if (t.isBias) mm.SetBias(gbias[nj]);
        mm.IterateAll(gc[int64_t(mi) * t.N + nj], args.atomic);
    }
    mm.End();
}

struct Problem {
    int M, N, K;
    std::vector<half> a, b;
    std::vector<float> bias;
};

Problem MakeProblem(int M, int N, int K) {
    Problem p{M, N, K, {}, {}, {}};
    for (int i = 0; i < M * K; ++i) p.a.push_back(half(float((i * 7) % 23) * 0.125f - 1.0f));
    for (int i = 0; i < K * N; ++i) p.b.push_back(half(float((i * 5) % 19) * 0.0625f - 0.5f));
    for (int j = 0; j < N; ++j) p.bias.push_back(0.5f * j);
    return p;
}

// Logical A(i,k), B(k,j) from row-major logical matrices; stored transposed when requested.
twin::LaunchResult RunMatmul(const Problem &p, int sm, int sn, bool ta, bool tb, bool bias, uint32_t blockDim, std::vector<float> &c,
                             uint8_t atomic = 0) {
    ktest::Gm<half> a(p.M * p.K, "A"), b(p.K * p.N, "B");
    ktest::Gm<float> gbias(p.N, "bias"), gc(p.M * p.N, "C");
    ktest::Gm<uint8_t> ws(twin::kLibApiWorkspaceBytes, "workspace");
    for (int i = 0; i < p.M; ++i)
        for (int k = 0; k < p.K; ++k) a[ta ? k * p.M + i : i * p.K + k] = p.a[i * p.K + k];
    for (int k = 0; k < p.K; ++k)
        for (int j = 0; j < p.N; ++j) b[tb ? j * p.K + k : k * p.N + j] = p.b[k * p.N + j];
    for (int j = 0; j < p.N; ++j) gbias[j] = p.bias[j];
    for (int i = 0; i < p.M * p.N; ++i) gc[i] = c.empty() ? 0.0f : c[i];
    MmArgs args{a.addr(), b.addr(), gbias.addr(), gc.addr(), ws.addr(), MakeTiling(p.M, p.N, p.K, sm, sn, bias), ta, tb, atomic};
    auto r = ktest::Run(blockDim, KernelType::MIX_AIC_1_2, [&] { MatmulKernel(args); }, 20000, ws.addr());
    c.assign(gc.p, gc.p + p.M * p.N);
    return r;
}

bool MatchesNaive(const Problem &p, const std::vector<float> &c, bool bias, float scale = 1.0f) {
    for (int i = 0; i < p.M; ++i)
        for (int j = 0; j < p.N; ++j) {
            double s = bias ? p.bias[j] : 0.0;
            for (int k = 0; k < p.K; ++k) s += double(float(p.a[i * p.K + k])) * double(float(p.b[k * p.N + j]));
            s *= scale;
            if (std::fabs(s - c[i * p.N + j]) > 1e-4 * (1.0 + std::fabs(s))) {
                std::fprintf(stderr, "  C(%d,%d) = %f, naive %f\n", i, j, c[i * p.N + j], s);
                return false;
            }
        }
    return true;
}

}  // namespace

TEST(MatmulMix, matmul_all_transpose_combinations_match_naive_gemm)
{
    const Problem p = MakeProblem(32, 48, 40);
    for (int ta = 0; ta < 2; ++ta)
        for (int tb = 0; tb < 2; ++tb) {
            std::vector<float> c;
            auto r = RunMatmul(p, 16, 16, ta, tb, true, 2, c);
            EXPECT_TRUE(ktest::ExpectOk(r));
            EXPECT_TRUE(MatchesNaive(p, c, true));
            uint64_t macs = 0, issued = 0, rd = 0, wr = 0;
            for (const auto &cc : r.cores) {
                if (cc.isAic) { macs += cc.cubeMacs; rd += cc.cubeGmReadBytes; wr += cc.cubeGmWriteBytes; }
                else issued += cc.cubeMacsIssued;
            }
            EXPECT_EQ(macs, 32ull * 48 * 40);
            EXPECT_EQ(issued, macs);
            // 6 tiles of 16x16 with K = 40: A 16x40 half + B 40x16 half + bias 16 floats read, C 16x16 floats written
            EXPECT_EQ(rd, 6ull * (16 * 40 * 2 + 40 * 16 * 2 + 16 * 4));
            EXPECT_EQ(wr, 6ull * 16 * 16 * 4);
        }
}

TEST(MatmulMix, matmul_result_is_bitwise_identical_across_core_counts)
{
    const Problem p = MakeProblem(64, 32, 72);
    std::vector<float> c1, c3;
    EXPECT_TRUE(ktest::ExpectOk(RunMatmul(p, 16, 16, false, true, false, 1, c1)));
    EXPECT_TRUE(ktest::ExpectOk(RunMatmul(p, 16, 16, false, true, false, 3, c3)));
    EXPECT_EQ(c1, c3);
    EXPECT_TRUE(MatchesNaive(p, c1, false));
}

TEST(MatmulMix, matmul_atomic_add_accumulates_into_c)
{
    const Problem p = MakeProblem(16, 16, 8);
    std::vector<float> c;
    EXPECT_TRUE(ktest::ExpectOk(RunMatmul(p, 16, 16, false, false, false, 1, c)));
    EXPECT_TRUE(ktest::ExpectOk(RunMatmul(p, 16, 16, false, false, false, 1, c, 1))); // C += A*B
    EXPECT_TRUE(MatchesNaive(p, c, false, 2.0f));
}

TEST(MatmulMix, matmul_needs_istrans_for_transpose)
{
    ktest::Gm<uint8_t> ws(twin::kLibApiWorkspaceBytes);
    ktest::Gm<float> a(64), b(64), c(64);
    TCubeTiling t = MakeTiling(8, 8, 8, 8, 8, false);
    auto r = ktest::Run(1, KernelType::MIX_AIC_1_2, [&] {
        TPipe pipe;
        Matmul<MatmulType<TPosition::GM, CubeFormat::ND, float>, MatmulType<TPosition::GM, CubeFormat::ND, float>,
               MatmulType<TPosition::GM, CubeFormat::ND, float>> mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        GlobalTensor<float> g;
        g.SetGlobalBuffer((__gm__ float *)a.addr());
        mm.SetTensorA(g, true);
    }, 20000, ws.addr());
    EXPECT_TRUE(ktest::ExpectViolation(r, {"Matmul::SetTensorA", "core AIV", "ISTRANS=true"}));
}

TEST(MatmulMix, matmul_gm_bounds)
{
    ktest::Gm<uint8_t> ws(twin::kLibApiWorkspaceBytes);
    ktest::Gm<float> a(64), b(64), c(60);   // C one row short
    TCubeTiling t = MakeTiling(8, 8, 8, 8, 8, false);
    auto r = ktest::Run(1, KernelType::MIX_AIC_1_2, [&] {
        TPipe pipe;
        using F = MatmulType<TPosition::GM, CubeFormat::ND, float>;
        Matmul<F, F, F> mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        GlobalTensor<float> ga, gb, gc;
        ga.SetGlobalBuffer((__gm__ float *)a.addr());
        gb.SetGlobalBuffer((__gm__ float *)b.addr());
        gc.SetGlobalBuffer((__gm__ float *)c.addr());
        mm.SetTensorA(ga);
        mm.SetTensorB(gb);
        if (GetBlockIdx() == 1) mm.IterateAll(gc);
        mm.End();
    }, 20000, ws.addr());
    EXPECT_TRUE(ktest::ExpectViolation(r, {"Matmul::IterateAll", "core AIV 1", "out-of-bounds GM access"}));
}

TEST(MatmulMix, matmul_regist_before_init_buffer)
{
    ktest::Gm<uint8_t> ws(twin::kLibApiWorkspaceBytes);
    TCubeTiling t = MakeTiling(8, 8, 8, 8, 8, false);
    auto r = ktest::Run(1, KernelType::MIX_AIC_1_2, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        if ASCEND_IS_AIV { pipe.InitBuffer(b, 256); }
        using F = MatmulType<TPosition::GM, CubeFormat::ND, float>;
        Matmul<F, F, F> mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    }, 20000, ws.addr());
    EXPECT_TRUE(ktest::ExpectViolation(r, {"REGIST_MATMUL_OBJ", "core AIV", "before TPipe::InitBuffer"}));
}

TEST(MatmulMix, matmul_at_most_four_objects)
{
    ktest::Gm<uint8_t> ws(twin::kLibApiWorkspaceBytes);
    TCubeTiling t = MakeTiling(8, 8, 8, 8, 8, false);
    auto r = ktest::Run(1, KernelType::MIX_AIC_1_2, [&] {
        TPipe pipe;
        using F = MatmulType<TPosition::GM, CubeFormat::ND, float>;
        Matmul<F, F, F> m1, m2, m3, m4, m5;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), m1, &t, m2, &t, m3, &t, m4, &t, m5, &t);
    }, 20000, ws.addr());
    EXPECT_TRUE(ktest::ExpectViolation(r, {"REGIST_MATMUL_OBJ", "core AIV", "more than 4 Matmul objects"}));
}

TEST(MatmulMix, matmul_needs_mix_launch_and_workspace)
{
    ktest::Gm<uint8_t> ws(twin::kLibApiWorkspaceBytes);
    TCubeTiling t = MakeTiling(8, 8, 8, 8, 8, false);
    auto body = [&] {
        TPipe pipe;
        using F = MatmulType<TPosition::GM, CubeFormat::ND, float>;
        Matmul<F, F, F> mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    };
    EXPECT_TRUE(ktest::ExpectViolation(
        ktest::Run(1, KernelType::AIV_ONLY, body, 20000, ws.addr()),
        {"REGIST_MATMUL_OBJ", "core AIV 0", "launch as KERNEL_TYPE_MIX_AIC_1_2"}));
    EXPECT_TRUE(ktest::ExpectViolation(
        ktest::Run(1, KernelType::MIX_AIC_1_2, body, 20000, nullptr),
        {"REGIST_MATMUL_OBJ", "system workspace is nullptr"}));
}

// ND row-width limit of the GM->L1 copy: Ka (A not transposed) at 65534 is fine, at 65535 and past it
// needs MatmulConfig.intrinsicsCheck (MatmulConfig docs ">= 65535", dav_c220 CopyND2NZ `gCol >=
// UINT16_MAX`); with intrinsicsCheck the same shapes compute. Each run reads an 8-element K slice.
constexpr MatmulConfig kCheckedCfg = GetNormalConfig(true);

template <const auto &CFG>
twin::LaunchResult RunKaLimit(int ka, ktest::Gm<float> &c) {
    ktest::Gm<uint8_t> ws(twin::kLibApiWorkspaceBytes);
    ktest::Gm<float> a(ka), b(ka);
    for (int i = 0; i < 8; ++i) { a[i] = float(i + 1); b[i] = 0.5f; }
    TCubeTiling t = MakeTiling(1, 1, ka, 1, 1, false);
    return ktest::Run(1, KernelType::MIX_AIC_1_2, [&] {
        TPipe pipe;
        using F = MatmulType<TPosition::GM, CubeFormat::ND, float>;
        Matmul<F, F, F, F, CFG> mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        GlobalTensor<float> ga, gb, gc;
        ga.SetGlobalBuffer((__gm__ float *)a.addr());
        gb.SetGlobalBuffer((__gm__ float *)b.addr());
        gc.SetGlobalBuffer((__gm__ float *)c.addr());
        mm.SetTensorA(ga);
        mm.SetTensorB(gb);
        mm.SetSingleShape(1, 1, 8);
        mm.IterateAll(gc[GetBlockIdx()]);   // each AIV its own C element (one shared C would be a write/write race)
        mm.End();
    }, 20000, ws.addr());
}

TEST(MatmulMix, matmul_nd_size_limit_without_intrinsics_check)
{
    ktest::Gm<float> c(64);
    EXPECT_TRUE(ktest::ExpectOk(RunKaLimit<CFG_NORM>(65534, c)));
    EXPECT_EQ(c[0], 18.0f); // (1 + ... + 8) * 0.5
    EXPECT_TRUE(ktest::ExpectViolation(
        RunKaLimit<CFG_NORM>(65535, c),
        {"Matmul::IterateAll", "core AIV", "Ka >= 65535 needs MatmulConfig.intrinsicsCheck; Ka = 65535"}));
    EXPECT_TRUE(ktest::ExpectViolation(
        RunKaLimit<CFG_NORM>(70000, c),
        {"Matmul::IterateAll", "core AIV", "Ka >= 65535 needs MatmulConfig.intrinsicsCheck; Ka = 70000"}));
}

TEST(MatmulMix, matmul_nd_size_limit_with_intrinsics_check_computes)
{
    for (int ka : {65535, 70000}) {
        ktest::Gm<float> c(64);
        c[0] = -1.0f;
        EXPECT_TRUE(ktest::ExpectOk(RunKaLimit<kCheckedCfg>(ka, c)));
        EXPECT_EQ(c[0], 18.0f);
    }
}
