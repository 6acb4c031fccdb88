// matmul_tiling::MatmulApiTiling / MultiCoreMatmulTiling of the twin (rules in tiling/tiling_api.h).
#include <algorithm>
#include "context_data.h"
#include "tiling/tiling_api.h"

namespace matmul_tiling {
namespace {
int32_t BytesOf(DataType t) {
    switch (t) {
        case DataType::DT_FLOAT: case DataType::DT_INT32: case DataType::DT_UINT32: return 4;
        case DataType::DT_FLOAT16: case DataType::DT_BF16: case DataType::DT_BFLOAT16: case DataType::DT_INT16:
        case DataType::DT_UINT16: return 2;
        case DataType::DT_INT8: case DataType::DT_UINT8: case DataType::DT_INT4: return 1;
        case DataType::DT_INT64: case DataType::DT_UINT64: case DataType::DT_DOUBLE: return 8;
        default: return 0;
    }
}
int32_t CeilDiv(int32_t a, int32_t b) { return (a + b - 1) / b; }
int32_t AlignUp(int32_t a, int32_t b) { return CeilDiv(a, b) * b; }
constexpr int32_t kAlignMN = 16;     // cube fractal rows/cols
constexpr int32_t kBlockBytes = 32;  // K alignment in bytes
constexpr uint64_t kReserve = 256;   // L1 reserved for KFC
}  // namespace

MatmulApiTilingBase::MatmulApiTilingBase() {
    const fe::PlatFormInfos p = twin_host::SnapshotPlatform();
    platform_.l1Size = p.l1Bytes - kReserve;
    platform_.l0ASize = p.l0aBytes;
    platform_.l0BSize = p.l0bBytes;
    platform_.l0CSize = p.l0cBytes;
    platform_.ubSize = p.ubBytes - kReserve;
}
MatmulApiTilingBase::MatmulApiTilingBase(const platform_ascendc::PlatformAscendC &ascendcPlatform) {
    platform_.socVersion = ascendcPlatform.GetSocVersion();
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::L1, platform_.l1Size);
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_A, platform_.l0ASize);
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_B, platform_.l0BSize);
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, platform_.l0CSize);
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, platform_.ubSize);
}
MatmulApiTilingBase::MatmulApiTilingBase(const PlatformInfo &platform) : platform_(platform) {}

int32_t MatmulApiTilingBase::SetAType(TPosition pos, CubeFormat type, DataType dataType, bool isTrans) {
    aType_ = {pos, type, dataType, isTrans};
    return 0;
}
int32_t MatmulApiTilingBase::SetBType(TPosition pos, CubeFormat type, DataType dataType, bool isTrans) {
    bType_ = {pos, type, dataType, isTrans};
    return 0;
}
int32_t MatmulApiTilingBase::SetCType(TPosition pos, CubeFormat type, DataType dataType) {
    cType_ = {pos, type, dataType, false};
    return 0;
}
int32_t MatmulApiTilingBase::SetBiasType(TPosition pos, CubeFormat type, DataType dataType) {
    biasType_ = {pos, type, dataType, false};
    return 0;
}
int32_t MatmulApiTilingBase::SetShape(int32_t m, int32_t n, int32_t k) {
    m_ = m; n_ = n; k_ = k;
    return 0;
}
int32_t MatmulApiTilingBase::SetOrgShape(int32_t orgMIn, int32_t orgNIn, int32_t orgKIn) {
    return SetOrgShape(orgMIn, orgNIn, orgKIn, orgKIn);
}
int32_t MatmulApiTilingBase::SetOrgShape(int32_t orgMIn, int32_t orgNIn, int32_t orgKaIn, int32_t orgKbIn) {
    orgM_ = orgMIn; orgN_ = orgNIn; orgKa_ = orgKaIn; orgKb_ = orgKbIn;
    return 0;
}
int32_t MatmulApiTilingBase::EnableBias(bool isBiasIn) { isBias_ = isBiasIn; return 0; }
int32_t MatmulApiTilingBase::SetBias(bool isBiasIn) { isBias_ = isBiasIn; return 0; }
// SetFixSplit docs: baseKIn "当前仅支持取值为-1" (only -1 is supported); -1 leaves an axis to the tiling.
int32_t MatmulApiTilingBase::SetFixSplit(int32_t baseMIn, int32_t baseNIn, int32_t baseKIn) {
    if (baseKIn != -1) {
        return -1;
    }
    fixBaseM_ = baseMIn;
    fixBaseN_ = baseNIn;
    fixBaseK_ = -1;
    return 0;
}
int32_t MatmulApiTilingBase::SetBufferSpace(int32_t l1Size, int32_t l0CSize, int32_t ubSize, int32_t) {
    bufL1_ = l1Size; bufL0C_ = l0CSize; bufUb_ = ubSize;
    return 0;
}
int32_t MatmulApiTilingBase::SetTraverse(MatrixTraverse traverse) { traverse_ = traverse; return 0; }
int32_t MatmulApiTilingBase::SetMadType(MatrixMadType) { return 0; }

int64_t MatmulApiTilingBase::ComputeTiling(optiling::TCubeTiling &t, int32_t usedCores, int32_t singleM,
                                           int32_t singleN, int32_t singleK) {
    const int32_t aBytes = BytesOf(aType_.dataType), bBytes = BytesOf(bType_.dataType);
    const int32_t cBytes = 4;  // L0C accumulates in fp32 / int32
    const int32_t biasBytes = BytesOf(biasType_.dataType);
    if (aBytes == 0 || bBytes == 0 || singleM <= 0 || singleN <= 0 || singleK <= 0) { return -1; }
    const uint64_t l1 = bufL1_ > 0 ? std::min<uint64_t>(bufL1_, platform_.l1Size) : platform_.l1Size;
    const uint64_t l0c = bufL0C_ > 0 ? std::min<uint64_t>(bufL0C_, platform_.l0CSize) : platform_.l0CSize;
    const int32_t kAlign = kBlockBytes / std::min(aBytes, bBytes);
    const int32_t dbA = 2, dbB = 2, dbC = 1;
    int32_t baseM = fixBaseM_ > 0 ? fixBaseM_ : std::min(AlignUp(singleM, kAlignMN), 128);
    int32_t baseN = fixBaseN_ > 0 ? fixBaseN_ : std::min(AlignUp(singleN, kAlignMN), 128);
    int32_t baseK = fixBaseK_ > 0 ? fixBaseK_ : std::min(AlignUp(singleK, kAlign), 128 / aBytes);
    if (baseM % kAlignMN != 0 || baseN % kAlignMN != 0 || baseK % kAlign != 0) { return -1; }
    // SetFixSplit docs: a fixed baseM <= singleM rounded up to 16, a fixed baseN <= singleN rounded up to C0
    // (32 bytes of B).
    if ((fixBaseM_ > 0 && baseM > AlignUp(singleM, kAlignMN)) ||
        (fixBaseN_ > 0 && baseN > AlignUp(singleN, kBlockBytes / bBytes))) {
        return -1;
    }
    auto fitsL0 = [&]() {
        return static_cast<uint64_t>(baseM) * baseK * aBytes * dbA <= platform_.l0ASize &&
               static_cast<uint64_t>(baseN) * baseK * bBytes * dbB <= platform_.l0BSize &&
               static_cast<uint64_t>(baseM) * baseN * cBytes * dbC <= l0c;
    };
    while (!fitsL0() && baseK > kAlign) {
        baseK -= kAlign;
    } // baseK is always the tiling's choice
    if (!fitsL0()) {
        if (fixBaseM_ > 0 || fixBaseN_ > 0) {
            return -1;
        }
        while (!fitsL0() && (baseM > kAlignMN || baseN > kAlignMN)) {
            if (baseM >= baseN && baseM > kAlignMN) { baseM -= kAlignMN; } else { baseN -= kAlignMN; }
        }
        if (!fitsL0()) { return -1; }
    }
    const int32_t kIters = CeilDiv(singleK, baseK);
    int32_t stepK = kIters;
    auto l1Bytes = [&](int32_t s) {
        uint64_t a = static_cast<uint64_t>(2) * s * baseM * baseK * aBytes;
        uint64_t b = static_cast<uint64_t>(2) * s * baseN * baseK * bBytes;
        return a + b + (isBias_ ? static_cast<uint64_t>(baseN) * biasBytes : 0);
    };
    while (stepK > 1 && l1Bytes(stepK) > l1) { --stepK; }
    if (l1Bytes(stepK) > l1) { return -1; }
    baseM_ = baseM; baseN_ = baseN; baseK_ = baseK;

    t.set_usedCoreNum(usedCores);
    t.set_M(orgM_ > 0 ? orgM_ : m_);
    t.set_N(orgN_ > 0 ? orgN_ : n_);
    t.set_Ka(orgKa_ > 0 ? orgKa_ : k_);
    t.set_Kb(orgKb_ > 0 ? orgKb_ : k_);
    t.set_singleCoreM(singleM);
    t.set_singleCoreN(singleN);
    t.set_singleCoreK(singleK);
    t.set_baseM(baseM);
    t.set_baseN(baseN);
    t.set_baseK(baseK);
    t.set_stepM(1);
    t.set_stepN(1);
    t.set_stepKa(stepK);
    t.set_stepKb(stepK);
    t.set_depthA1(2 * stepK);  // stepM * stepKa * db(L1) with L1 double buffering
    t.set_depthB1(2 * stepK);
    t.set_isBias(isBias_ ? 1 : 0);
    t.set_transLength(std::max(baseM * baseK * aBytes, std::max(baseN * baseK * bBytes, baseM * baseN * cBytes)));
    t.set_iterateOrder(traverse_ == MatrixTraverse::FIRSTN ? 1 : 0);
    t.set_shareMode(0);
    t.set_shareL1Size(static_cast<int32_t>(l1Bytes(stepK)));
    t.set_shareL0CSize(baseM * baseN * cBytes * dbC);
    t.set_shareUbSize(0);
    t.set_batchM(1);
    t.set_batchN(1);
    t.set_singleBatchM(1);
    t.set_singleBatchN(1);
    t.set_depthAL1CacheUB(0);
    t.set_depthBL1CacheUB(0);
    t.set_dbL0A(dbA);
    t.set_dbL0B(dbB);
    t.set_dbL0C(dbC);
    t.set_BatchNum(0);
    t.set_mxTypePara(0);
    return 0;
}

int64_t MatmulApiTiling::GetTiling(optiling::TCubeTiling &tiling) {
    if (m_ <= 0 || n_ <= 0 || k_ <= 0) { return -1; }
    if (orgKa_ > 0 && orgKb_ > 0 && orgKa_ != orgKb_) { return -1; }
    return ComputeTiling(tiling, 1, m_, n_, k_);
}

int32_t MultiCoreMatmulTiling::SetDim(int32_t dim) {
    if (dim <= 0) { return -1; }
    dim_ = dim;
    return 0;
}
int32_t MultiCoreMatmulTiling::SetSingleShape(int32_t singleMIn, int32_t singleNIn, int32_t singleKIn) {
    singleM_ = singleMIn; singleN_ = singleNIn; singleK_ = singleKIn;
    return 0;
}
int32_t MultiCoreMatmulTiling::GetSingleShape(int32_t &shapeM, int32_t &shapeN, int32_t &shapeK) const {
    shapeM = lastSingleM_; shapeN = lastSingleN_; shapeK = lastSingleK_;
    return 0;
}
int64_t MultiCoreMatmulTiling::GetTiling(optiling::TCubeTiling &tiling) {
    if (m_ <= 0 || n_ <= 0 || k_ <= 0) { return -1; }
    if (orgKa_ > 0 && orgKb_ > 0 && orgKa_ != orgKb_) { return -1; }
    int32_t sm = singleM_, sn = singleN_;
    const int32_t sk = singleK_ > 0 ? singleK_ : k_;
    if (sm <= 0 || sn <= 0) {
        // Split the cores over M and N: the factorisation mDim * nDim <= dim that uses most cores.
        int32_t bestM = 1, bestN = 1, bestUsed = 1;
        for (int32_t md = 1; md <= dim_; ++md) {
            const int32_t nd = dim_ / md;
            const int32_t cm = CeilDiv(m_, CeilDiv(m_, md)), cn = CeilDiv(n_, CeilDiv(n_, nd));
            if (cm * cn > bestUsed) { bestUsed = cm * cn; bestM = md; bestN = nd; }
        }
        if (sm <= 0) { sm = CeilDiv(m_, bestM); }
        if (sn <= 0) { sn = CeilDiv(n_, bestN); }
    }
    if (sm > m_ || sn > n_ || sk > k_) { return -1; }
    const int32_t used = CeilDiv(m_, sm) * CeilDiv(n_, sn);
    if (used > dim_) { return -1; }
    lastSingleM_ = sm; lastSingleN_ = sn; lastSingleK_ = sk;
    return ComputeTiling(tiling, used, sm, sn, sk);
}
}  // namespace matmul_tiling
