// Matmul high-level API of the twin (ASC-API 高阶API/矩阵计算/Matmul-Kernel侧接口), separated (MIX) mode.
// Model: REGIST_MATMUL_OBJ runs on every core; on an AIC core it serves its AIV cores until they
// leave the kernel and then returns from the kernel (like the KFC server); on AIV it registers the
// objects. Matmul calls are made from AIV code; the twin computes on the calling thread with a
// reference GEMM whose per-element order is fixed (k = 0..K-1, fp32 accumulation starting from the
// bias, 16-bit inputs converted exactly), so results never depend on which core runs what.
// Layouts (ND, row-major): A [M, Ka] or, transposed, [Ka, M]; B [Kb, N] or, transposed, [N, Kb];
// C [M, orgKc ? orgKc : N]. Shapes in elements.
#pragma once
#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>
#include "twin/kernel/cost_table.h"
#include "twin/kernel/data_copy.h"
#include "twin/kernel/matmul_config.h"
#include "twin/kernel/pipe.h"

namespace twin {
namespace kernel {

// The AIV side of the Matmul service in MIX mode (CANN 8.1.RC1 kfc_comm_client.h, same in asc-devkit;
// one per REGIST_MATMUL_OBJ, living in the scope of the macro): registration takes an MTE3_S event ID
// from the current TPipe (AllocEventID) and sets its flag; every message (Matmul Init, SetOrgShape,
// IterateAll, End) waits that flag, orders S before MTE3 with a fetched S_MTE3 ID, and sets it again;
// at the end of the scope the quit message waits it once more. The ID is never released, so a
// TPipe::Reset while the client lives hands it out again (the next SetFlag on it is reported).
class KfcClient {
public:
    KfcClient() = default;
    KfcClient(const KfcClient &) = delete;
    KfcClient &operator=(const KfcClient &) = delete;
    ~KfcClient() noexcept(false);
    void Register(const char *api);
    void Message(const char *api);

private:
    int8_t eventId_ = -1;
    bool active_ = false;
};

struct MatmulBase {
    virtual ~MatmulBase() = default;
    virtual void TwinRegister(const TCubeTiling *tiling, KfcClient *client) = 0;
};

void MatmulRegisterBegin(const char *api, void *workspace);
void MatmulCountObject(const char *api);
void CheckMatmulCaller(const char *api);
// C (m x n, row-major, holds the initial values) += A (m x k) * B (k x n) with the opt-in BLAS
// (TWIN_BLAS_LIB, see src/kernel/blas.cpp); false when no BLAS is configured.
bool BlasSgemmRowMajor(int m, int n, int k, const float *a, const float *b, float *c);
bool BlasAvailable();
// Same with row-major operands read in place: A is m x k (transA: stored k x m), leading dimension
// lda elements; B is k x n (transB: stored n x k), ldb; C has row stride ldc.
bool BlasSgemmStrided(bool transA, bool transB, int m, int n, int k, const float *a, int64_t lda, const float *b, int64_t ldb, float *c,
                      int64_t ldc);

inline void RegisterObjects(KfcClient &) {}
template <class Obj, class... Rest>
inline void RegisterObjects(KfcClient &client, Obj &obj, Rest &&...rest);

template <class Obj, class... Rest>
inline void RegisterWithTiling(KfcClient &client, Obj &obj, const TCubeTiling *tiling, Rest &&...rest) {
    MatmulCountObject("REGIST_MATMUL_OBJ");
    obj.TwinRegister(tiling, &client);
    RegisterObjects(client, std::forward<Rest>(rest)...);
}

template <class Obj, class Next, class... Rest>
inline void RegisterDispatch(KfcClient &client, Obj &obj, Next &&next, Rest &&...rest) {
    using N = std::decay_t<Next>;
    if constexpr (std::is_pointer<N>::value) {
        RegisterWithTiling(client, obj, static_cast<const TCubeTiling *>(next), std::forward<Rest>(rest)...);
    } else {
        MatmulCountObject("REGIST_MATMUL_OBJ");
        obj.TwinRegister(nullptr, &client);
        RegisterObjects(client, std::forward<Next>(next), std::forward<Rest>(rest)...);
    }
}

template <class Obj, class... Rest>
inline void RegisterObjects(KfcClient &client, Obj &obj, Rest &&...rest) {
    static_assert(std::is_base_of<MatmulBase, std::decay_t<Obj>>::value, "REGIST_MATMUL_OBJ expects Matmul objects (each optionally followed by a TCubeTiling*)");
    if constexpr (sizeof...(Rest) == 0) {
        MatmulCountObject("REGIST_MATMUL_OBJ");
        obj.TwinRegister(nullptr, &client);
    } else {
        RegisterDispatch(client, obj, std::forward<Rest>(rest)...);
    }
}

// Returns true on AIC (after serving), false on AIV (after registering the client and the objects).
template <class... Args>
inline bool MatmulRegister(KfcClient &client, AscendC::TPipe *pipe, void *workspace, Args &&...args) {
    (void)pipe;
    MatmulRegisterBegin("REGIST_MATMUL_OBJ", workspace);
    if (IsAic()) {
        ServeMatmulUntilAivDone();
        return true;
    }
    client.Register("REGIST_MATMUL_OBJ");
    RegisterObjects(client, std::forward<Args>(args)...);
    return false;
}

// Shape/validation state shared by all Matmul instantiations (implemented in src/kernel/matmul.cpp).
class MatmulShape {
public:
    void Init(const char *api, const TCubeTiling *tiling);
    void SetOrgShape(int m, int n, int ka, int kb, int kc);
    void SetSingleShape(int m, int n, int k);
    void SetTail(int m, int n, int k);
    void Validate(const char *api, bool transA, bool transB, bool intrinsicsCheck) const;
    bool inited = false;
    int orgM = 0, orgN = 0, orgKa = 0, orgKb = 0, orgKc = 0;
    int singleM = 0, singleN = 0, singleK = 0;
    int baseM = 0, baseN = 0, baseK = 0;   // TCubeTiling base block: one Mmad each (cost model)
    cost::CubeTiling costTiling;           // base blocks, steps, L1 depths, iterate order (cost model)
    cost::CubeTiling CostTiling() const
    {
        cost::CubeTiling t = costTiling;
        t.baseM = static_cast<uint64_t>(baseM);
        t.baseN = static_cast<uint64_t>(baseN);
        t.baseK = static_cast<uint64_t>(baseK);
        return t;
    }
};

template <typename AT, typename BT, typename CT, typename BiasT>
inline void ReferenceGemm(const char *api, CoreContext &c, const MatmulShape &s, const AT *a, bool ta, const BT *b, bool tb,
                          const BiasT *bias, CT *out, uint8_t enAtomic) {
    const int M = s.singleM, N = s.singleN, K = s.singleK;
    const int64_t ldc = s.orgKc ? s.orgKc : s.orgN;
    // Bounds of every row touched, against the GM registry.
    // (and, for the L2 model, the rows the cost counts: A, B and bias once per IterateAll, C once)
    const auto row = [&](const void* p, uint64_t bytes, bool write) {
        CheckGm(api, c, p, bytes, write);
        L2Note(c, p, bytes, write);
    };
    if (!ta)
        for (int i = 0; i < M; ++i)
            row(a + int64_t(i) * s.orgKa, sizeof(AT) * K, false);
    else
        for (int k = 0; k < K; ++k)
            row(a + int64_t(k) * s.orgM, sizeof(AT) * M, false);
    if (!tb)
        for (int k = 0; k < K; ++k)
            row(b + int64_t(k) * s.orgN, sizeof(BT) * N, false);
    else
        for (int j = 0; j < N; ++j)
            row(b + int64_t(j) * s.orgKb, sizeof(BT) * K, false);
    if (bias)
        row(bias, sizeof(BiasT) * N, false);
    for (int i = 0; i < M; ++i)
        row(out + int64_t(i) * ldc, sizeof(CT) * N, true);
    // fp32 operands with the BLAS: read A and B in place (no staging copies); a plain (non-atomic)
    // fp32 C is initialised with the bias and accumulated in place, which is the same arithmetic as
    // computing the tile and storing it.
    if constexpr (std::is_same<AT, float>::value && std::is_same<BT, float>::value) {
        if (M > 0 && N > 0 && K > 0 && BlasAvailable()) {
            const int64_t lda = ta ? s.orgM : s.orgKa, ldb = tb ? s.orgKb : s.orgN;
            if constexpr (std::is_same<CT, float>::value) {
                if (enAtomic == 0) {
                    for (int i = 0; i < M; ++i)
                        for (int j = 0; j < N; ++j) out[int64_t(i) * ldc + j] = bias ? static_cast<float>(bias[j]) : 0.0f;
                    if (BlasSgemmStrided(ta, tb, M, N, K, a, lda, b, ldb, out, ldc)) {
                        AddCubeWorkToServingAic(
                            cost::MatmulCost(M, N, K, s.CostTiling(), sizeof(AT)), uint64_t(M) * N * K,
                            uint64_t(M) * K * sizeof(AT) + uint64_t(K) * N * sizeof(BT) +
                                (bias ? uint64_t(N) * sizeof(BiasT) : 0),
                            uint64_t(M) * N * sizeof(CT));
                        return;
                    }
                }
            }
        }
    }
    // Staging buffers (float copies of A and B, the tile), kept per thread so that a call neither
    // allocates nor clears them; every element used is written below before it is read. Nothing
    // from here to the write-back yields the core's fiber (no GM check, no wait), so no other core
    // on this thread uses them in between.
    static thread_local std::vector<float> bf, tile, af;
    const auto grow = [](std::vector<float>& v, size_t n) {
        if (v.size() < n)
            v.resize(n);
    };
    grow(tile, static_cast<size_t>(M) * N);
    const auto stageB = [&] {
        grow(bf, static_cast<size_t>(K) * N);
        for (int k = 0; k < K; ++k)
            for (int j = 0; j < N; ++j)
                bf[size_t(k) * N + j] =
                    static_cast<float>(tb ? b[int64_t(j) * s.orgKb + k] : b[int64_t(k) * s.orgN + j]);
    };
    // Compute the whole tile first; only the write-back is serialised when atomic. Default path:
    // blocked over 4 rows x 64 columns for cache reuse, every element summing k = 0..K-1 in order;
    // opt-in BLAS path (TWIN_BLAS_LIB) otherwise: C = bias + A' B' with A' (M x K) and B' (K x N) row-major,
    // both untransposed; a float B without transpose is passed in place (its row stride as ldb: the
    // same GEMM on the same values).
    bool done = false;
    if (M > 0 && N > 0 && K > 0 && BlasAvailable()) {
        grow(af, static_cast<size_t>(M) * K);
        if (ta) { // A stored K x M: read along its rows
            for (int k = 0; k < K; ++k)
                for (int i = 0; i < M; ++i)
                    af[size_t(i) * K + k] = static_cast<float>(a[int64_t(k) * s.orgM + i]);
        } else {
            for (int i = 0; i < M; ++i)
                for (int k = 0; k < K; ++k)
                    af[size_t(i) * K + k] = static_cast<float>(a[int64_t(i) * s.orgKa + k]);
        }
        for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j) tile[size_t(i) * N + j] = bias ? static_cast<float>(bias[j]) : 0.0f;
        if constexpr (std::is_same<BT, float>::value) {
            if (!tb)
                done = BlasSgemmStrided(false, false, M, N, K, af.data(), K, b, s.orgN, tile.data(), N);
        }
        if (!done) {
            stageB();
            done = BlasSgemmRowMajor(M, N, K, af.data(), bf.data(), tile.data());
        }
    }
    if (!done) {
        stageB();
        std::vector<float> arow(static_cast<size_t>(4) * K);
        constexpr int kJB = 64;
        for (int i0 = 0; i0 < M; i0 += 4) {
            const int rows = std::min(4, M - i0);
            for (int r = 0; r < rows; ++r)
                for (int k = 0; k < K; ++k)
                    arow[size_t(r) * K + k] = static_cast<float>(ta ? a[int64_t(k) * s.orgM + i0 + r] : a[int64_t(i0 + r) * s.orgKa + k]);
            for (int j0 = 0; j0 < N; j0 += kJB) {
                const int cols = std::min(kJB, N - j0);
                float accb[4][kJB];
                for (int r = 0; r < 4; ++r)
                    for (int j = 0; j < cols; ++j) accb[r][j] = bias ? static_cast<float>(bias[j0 + j]) : 0.0f;
                for (int k = 0; k < K; ++k) {
                    const float *brow = &bf[size_t(k) * N + j0];
                    for (int r = 0; r < rows; ++r) {
                        const float av = arow[size_t(r) * K + k];
                        float *accr = accb[r];
                        for (int j = 0; j < cols; ++j) accr[j] += av * brow[j];
                    }
                }
                for (int r = 0; r < rows; ++r) std::copy(accb[r], accb[r] + cols, tile.begin() + size_t(i0 + r) * N + j0);
            }
        }
    }
    if (enAtomic) GmAtomicLock(out);
    for (int i = 0; i < M; ++i) {
        CT *crow = out + int64_t(i) * ldc;
        const float *trow = &tile[size_t(i) * N];
        // Relaxed atomic GM accesses, as GlobalTensor::Get/SetValue: a core that reads the result without
        // the synchronisation the chip needs (a hazard the twin reports) must still be well-defined C++.
        for (int j = 0; j < N; ++j) {
            const CT v = static_cast<CT>(trow[j]);
            const CT old = enAtomic == 0 ? v : GmScalarLoad(crow + j);
            if (enAtomic == 0)
                GmScalarStore(crow + j, v);
            else if (enAtomic == 1)
                GmScalarStore(crow + j, static_cast<CT>(static_cast<float>(old) + trow[j]));
            else if (enAtomic == 2)
                GmScalarStore(crow + j, static_cast<float>(v) > static_cast<float>(old) ? v : old);
            else
                GmScalarStore(crow + j, static_cast<float>(v) < static_cast<float>(old) ? v : old);
        }
    }
    if (enAtomic) GmAtomicUnlock(out);
    AddCubeWorkToServingAic(
        cost::MatmulCost(M, N, K, s.CostTiling(), sizeof(AT)), uint64_t(M) * N * K,
        uint64_t(M) * K * sizeof(AT) + uint64_t(K) * N * sizeof(BT) + (bias ? uint64_t(N) * sizeof(BiasT) : 0),
        uint64_t(M) * N * sizeof(CT));
}

}  // namespace kernel
}  // namespace twin

namespace AscendC {

template <TPosition POSITION, CubeFormat FORMAT, typename TYPE, bool ISTRANS = false, LayoutMode LAYOUT = LayoutMode::NONE,
          bool IBSHARE = false, TPosition SRCPOS = TPosition::GM>
struct MatmulType {
    constexpr static TPosition pos = POSITION;
    constexpr static CubeFormat format = FORMAT;
    using T = TYPE;
    constexpr static bool isTrans = ISTRANS;
    constexpr static LayoutMode layout = LAYOUT;
    constexpr static bool ibShare = IBSHARE;
    constexpr static TPosition srcPos = SRCPOS;
};

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE, const auto &MM_CFG = CFG_NORM, class MM_CB = void>
class Matmul : public twin::kernel::MatmulBase {
public:
    using SrcAT = typename A_TYPE::T;
    using SrcBT = typename B_TYPE::T;
    using DstT = typename C_TYPE::T;
    using BiasT = typename BIAS_TYPE::T;
    static_assert(A_TYPE::format == CubeFormat::ND && B_TYPE::format == CubeFormat::ND && C_TYPE::format == CubeFormat::ND,
                  "the twin models ND-format Matmul only");

    __aicore__ Matmul() = default;
    __aicore__ inline void Init(const TCubeTiling *__restrict cubeTiling, TPipe *tpipe = nullptr) {
        (void)tpipe;
        twin::kernel::CheckMatmulCaller("Matmul::Init");
        shape_.Init("Matmul::Init", cubeTiling);
        hasBias_ = cubeTiling->isBias != 0;
        if (client_ != nullptr) client_->Message("Matmul::Init (KFC client message)");
    }
    __aicore__ inline void SetOrgShape(int orgM, int orgN, int orgK) { SetOrgShape(orgM, orgN, orgK, orgK, 0); }
    __aicore__ inline void SetOrgShape(int orgM, int orgN, int orgKa, int orgKb, int orgKc = 0) {
        Caller("Matmul::SetOrgShape");
        shape_.SetOrgShape(orgM, orgN, orgKa, orgKb, orgKc);
        client_->Message("Matmul::SetOrgShape (KFC client message)");
    }
    __aicore__ inline void SetSingleShape(int singleM, int singleN, int singleK) { Caller("Matmul::SetSingleShape"); shape_.SetSingleShape(singleM, singleN, singleK); }
    __aicore__ inline void SetTail(int tailM = -1, int tailN = -1, int tailK = -1) { Caller("Matmul::SetTail"); shape_.SetTail(tailM, tailN, tailK); }
    __aicore__ inline void SetTensorA(const GlobalTensor<SrcAT> &gm, bool isTransposeA = false) {
        Caller("Matmul::SetTensorA");
        if (isTransposeA && !A_TYPE::isTrans)
            twin::kernel::Violation("Matmul::SetTensorA", "isTransposeA=true requires MatmulType<..., ISTRANS=true> for A (otherwise the result is wrong on the chip)");
        a_ = gm.TwinAddr();
        transA_ = isTransposeA;
    }
    __aicore__ inline void SetTensorB(const GlobalTensor<SrcBT> &gm, bool isTransposeB = false) {
        Caller("Matmul::SetTensorB");
        if (isTransposeB && !B_TYPE::isTrans)
            twin::kernel::Violation("Matmul::SetTensorB", "isTransposeB=true requires MatmulType<..., ISTRANS=true> for B (otherwise the result is wrong on the chip)");
        b_ = gm.TwinAddr();
        transB_ = isTransposeB;
    }
    __aicore__ inline void SetBias(const GlobalTensor<BiasT> &biasGlobal) {
        Caller("Matmul::SetBias");
        if (!hasBias_) twin::kernel::Violation("Matmul::SetBias", "the TCubeTiling has isBias=0; enable bias in the host tiling (SetBias(true))");
        bias_ = biasGlobal.TwinAddr();
        biasOn_ = true;
    }
    __aicore__ inline void DisableBias() { Caller("Matmul::DisableBias"); biasOn_ = false; }
    __aicore__ inline void ClearBias() { DisableBias(); }

    template <bool sync = true>
    // trailing file/line: twin-only call-site parameters (twin/kernel/sync_site.h)
    __aicore__ inline void IterateAll(
        const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0, bool enSequentialWrite = false, bool waitIterateAll = false,
        bool fakeMsg = false, const char* file = __builtin_FILE(), int line = __builtin_LINE())
    {
        (void)enSequentialWrite;
        (void)fakeMsg;
        const char *api = "Matmul::IterateAll";
        auto &c = twin::kernel::Core(api);
        Caller(api);
        // One pending asynchronous request per Matmul object (the documented use). Under TWIN_DROP_SYNC a
        // dropped WaitIterateAll acts as a deleted call, so more may be pending (completions are counted).
        if (pendingAsync_ > 0 && !twin::kernel::HzSitesDropping(c))
            twin::kernel::Violation(api, "previous IterateAll<false> was not completed with WaitIterateAll");
        if (a_ == nullptr || b_ == nullptr) twin::kernel::Violation(api, "SetTensorA and SetTensorB must be called before IterateAll");
        if (enAtomic > 3) twin::kernel::Violation(api, "enAtomic must be 0 (none), 1 (add), 2 (max) or 3 (min); got " + std::to_string(enAtomic));
        shape_.Validate(api, transA_, transB_, MM_CFG.intrinsicsCheck);
        client_->Message("Matmul::IterateAll (KFC client message)");
        const bool hzDropped = twin::kernel::HzSiteDropped(c, api, {file, line});
        twin::kernel::HzMatmulBegin(c, enAtomic, hzDropped); // the cube's accesses belong to this AIV's Matmul thread
        twin::kernel::ReferenceGemm<SrcAT, SrcBT, DstT, BiasT>(api, c, shape_, a_, transA_, b_, transB_, biasOn_ ? bias_ : nullptr,
                                                               gm.TwinAddr(), enAtomic);
        twin::kernel::HzMatmulEnd(
            c, sync, hzDropped, sync || waitIterateAll); // sync: the AIV waits for the result here
        if (sync)
            twin::kernel::TlMatmulWait(c);
        if (!sync && waitIterateAll)
            ++pendingAsync_;
    }
    __aicore__ inline void WaitIterateAll(const char* file = __builtin_FILE(), int line = __builtin_LINE())
    {
        Caller("Matmul::WaitIterateAll");
        if (pendingAsync_ == 0)
            twin::kernel::Violation(
                "Matmul::WaitIterateAll",
                "no IterateAll<false>(..., waitIterateAll=true) is pending (would hang on the chip)");
        auto& c = twin::kernel::Core("Matmul::WaitIterateAll");
        twin::kernel::TlMatmulWait(c);
        if (twin::kernel::HzSiteDropped(c, "Matmul::WaitIterateAll", {file, line}))
            return; // TWIN_DROP_SYNC: as if the call were deleted (consumes no completion)
        --pendingAsync_;
        twin::kernel::HzMatmulWait(c);
    }
    __aicore__ inline void End() {
        Caller("Matmul::End");
        if (pendingAsync_ > 0 && !twin::kernel::HzSitesDropping(twin::kernel::Core("Matmul::End")))
            twin::kernel::Violation("Matmul::End", "IterateAll<false> still pending: call WaitIterateAll before End");
        client_->Message("Matmul::End (KFC client message)");
        ended_ = true;
    }
    void TwinRegister(const TCubeTiling *tiling, twin::kernel::KfcClient *client) override {
        client_ = client;
        registered_ = true;
        if (tiling != nullptr) Init(tiling);
    }

private:
    void Caller(const char *api) {
        twin::kernel::CheckMatmulCaller(api);
        if (!registered_) twin::kernel::Violation(api, "Matmul object not registered with REGIST_MATMUL_OBJ");
        if (!shape_.inited) twin::kernel::Violation(api, "Matmul::Init (or a tiling in REGIST_MATMUL_OBJ) is required first");
    }
    twin::kernel::MatmulShape shape_;
    twin::kernel::KfcClient *client_ = nullptr;
    const SrcAT *a_ = nullptr;
    const SrcBT *b_ = nullptr;
    const BiasT *bias_ = nullptr;
    bool transA_ = false, transB_ = false, biasOn_ = false, hasBias_ = false;
    bool registered_ = false, ended_ = false;
    int pendingAsync_ = 0; // IterateAll<false>(..., waitIterateAll = true) requests not yet waited for
};

}  // namespace AscendC

namespace matmul {
using AscendC::Matmul;
using AscendC::MatmulType;
}  // namespace matmul

// REGIST_MATMUL_OBJ(pipe, workspace, mm1, &tiling1, mm2, &tiling2, ...): on AIC serve and return; on
// AIV the client object lives to the end of the enclosing scope (as CANN's __kfcClient__).
#define REGIST_MATMUL_OBJ(tpipe, workspace, ...) \
    ::twin::kernel::KfcClient __twinKfcClient__; \
    if (::twin::kernel::MatmulRegister(__twinKfcClient__, (tpipe), (workspace), __VA_ARGS__)) { return; }
#define REGIST_MATMUL_OBJ_STATIC REGIST_MATMUL_OBJ
