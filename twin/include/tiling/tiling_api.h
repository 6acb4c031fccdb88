// CPU twin of tiling/tiling_api.h, Matmul part (cannmirror/asc-devkit include/adv_api/matmul/
// matmul_tilingdata.h, matmul_tiling_base.h, matmul_tiling.h, bmm_tiling.h).
//  * optiling::TCubeTiling: macro tiling struct, 50 int32_t fields in the order of the real header
//    (200 bytes; byte-identical to the kernel POD TCubeTiling in kernel_tiling/kernel_tiling.h).
//  * matmul_tiling::{MatmulApiTiling (single core), MultiCoreMatmulTiling}: GetTiling() returns 0 and
//    fills a self-consistent TCubeTiling, or -1 when the problem is invalid (shape not set / <= 0,
//    Ka != Kb, SetFixSplit or buffer sizes that cannot satisfy the L0/L1 limits of the platform).
//    The split is the twin's own (not CANN's heuristic): base blocks aligned to 16 (M, N) and 32 bytes
//    (K), L0A/L0B double-buffered, L0C single, baseM*baseK*sizeof(A)*dbL0A <= L0A etc.
#pragma once
#include <cstdint>
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TCubeTiling)
TILING_DATA_FIELD_DEF(int32_t, usedCoreNum);
TILING_DATA_FIELD_DEF(int32_t, M);
TILING_DATA_FIELD_DEF(int32_t, N);
TILING_DATA_FIELD_DEF(int32_t, Ka);
TILING_DATA_FIELD_DEF(int32_t, Kb);
TILING_DATA_FIELD_DEF(int32_t, singleCoreM);
TILING_DATA_FIELD_DEF(int32_t, singleCoreN);
TILING_DATA_FIELD_DEF(int32_t, singleCoreK);
TILING_DATA_FIELD_DEF(int32_t, baseM);
TILING_DATA_FIELD_DEF(int32_t, baseN);
TILING_DATA_FIELD_DEF(int32_t, baseK);
TILING_DATA_FIELD_DEF(int32_t, depthA1);
TILING_DATA_FIELD_DEF(int32_t, depthB1);
TILING_DATA_FIELD_DEF(int32_t, stepM);
TILING_DATA_FIELD_DEF(int32_t, stepN);
TILING_DATA_FIELD_DEF(int32_t, isBias);
TILING_DATA_FIELD_DEF(int32_t, transLength);
TILING_DATA_FIELD_DEF(int32_t, iterateOrder);
TILING_DATA_FIELD_DEF(int32_t, shareMode);
TILING_DATA_FIELD_DEF(int32_t, shareL1Size);
TILING_DATA_FIELD_DEF(int32_t, shareL0CSize);
TILING_DATA_FIELD_DEF(int32_t, shareUbSize);
TILING_DATA_FIELD_DEF(int32_t, batchM);
TILING_DATA_FIELD_DEF(int32_t, batchN);
TILING_DATA_FIELD_DEF(int32_t, singleBatchM);
TILING_DATA_FIELD_DEF(int32_t, singleBatchN);
TILING_DATA_FIELD_DEF(int32_t, stepKa);
TILING_DATA_FIELD_DEF(int32_t, stepKb);
TILING_DATA_FIELD_DEF(int32_t, depthAL1CacheUB);
TILING_DATA_FIELD_DEF(int32_t, depthBL1CacheUB);
TILING_DATA_FIELD_DEF(int32_t, dbL0A);
TILING_DATA_FIELD_DEF(int32_t, dbL0B);
TILING_DATA_FIELD_DEF(int32_t, dbL0C);
TILING_DATA_FIELD_DEF(int32_t, ALayoutInfoB);
TILING_DATA_FIELD_DEF(int32_t, ALayoutInfoS);
TILING_DATA_FIELD_DEF(int32_t, ALayoutInfoN);
TILING_DATA_FIELD_DEF(int32_t, ALayoutInfoG);
TILING_DATA_FIELD_DEF(int32_t, ALayoutInfoD);
TILING_DATA_FIELD_DEF(int32_t, BLayoutInfoB);
TILING_DATA_FIELD_DEF(int32_t, BLayoutInfoS);
TILING_DATA_FIELD_DEF(int32_t, BLayoutInfoN);
TILING_DATA_FIELD_DEF(int32_t, BLayoutInfoG);
TILING_DATA_FIELD_DEF(int32_t, BLayoutInfoD);
TILING_DATA_FIELD_DEF(int32_t, CLayoutInfoB);
TILING_DATA_FIELD_DEF(int32_t, CLayoutInfoS1);
TILING_DATA_FIELD_DEF(int32_t, CLayoutInfoN);
TILING_DATA_FIELD_DEF(int32_t, CLayoutInfoG);
TILING_DATA_FIELD_DEF(int32_t, CLayoutInfoS2);
TILING_DATA_FIELD_DEF(int32_t, BatchNum);
TILING_DATA_FIELD_DEF(int32_t, mxTypePara);
END_TILING_DATA_DEF;
}  // namespace optiling

namespace matmul_tiling {
enum class DataType : int32_t {
    DT_FLOAT = 0, DT_FLOAT16 = 1, DT_INT8 = 2, DT_INT32 = 3, DT_UINT8 = 4, DT_INT16 = 6, DT_UINT16 = 7,
    DT_UINT32 = 8, DT_INT64 = 9, DT_UINT64 = 10, DT_DOUBLE = 11, DT_BOOL = 12, DT_BF16 = 27, DT_INT4 = 29,
    DT_BFLOAT16 = 33, DT_MAX = 40
};
enum class TPosition : int32_t {
    GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM = VECCALC, SPM, SHM = SPM, TSCM, MAX
};
enum class CubeFormat : int32_t {
    ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR, ROW_MAJOR = ND, COLUMN_MAJOR = 8
};
enum class MatrixTraverse : int32_t { NOSET = 0, FIRSTM = 1, FIRSTN = 2 };
enum class MatrixMadType : int32_t { NORMAL = 0, HF32 = 1, MXMODE = 2 };

struct MatTilingType {
    TPosition pos = TPosition::GM;
    CubeFormat type = CubeFormat::ND;
    DataType dataType = DataType::DT_FLOAT;
    bool isTrans = false;
};

struct PlatformInfo {
    platform_ascendc::SocVersion socVersion = platform_ascendc::SocVersion::ASCEND910B;
    uint64_t l1Size = 0;
    uint64_t l0CSize = 0;
    uint64_t ubSize = 0;
    uint64_t l0ASize = 0;
    uint64_t l0BSize = 0;
};

class MatmulApiTilingBase {
public:
    MatmulApiTilingBase();  // limits of the active twin platform
    explicit MatmulApiTilingBase(const platform_ascendc::PlatformAscendC &ascendcPlatform);
    explicit MatmulApiTilingBase(const PlatformInfo &platform);
    virtual ~MatmulApiTilingBase() = default;

    int32_t SetAType(TPosition pos, CubeFormat type, DataType dataType, bool isTrans = false);
    int32_t SetBType(TPosition pos, CubeFormat type, DataType dataType, bool isTrans = false);
    int32_t SetCType(TPosition pos, CubeFormat type, DataType dataType);
    int32_t SetBiasType(TPosition pos, CubeFormat type, DataType dataType);
    virtual int32_t SetShape(int32_t m, int32_t n, int32_t k);
    int32_t SetOrgShape(int32_t orgMIn, int32_t orgNIn, int32_t orgKIn);
    int32_t SetOrgShape(int32_t orgMIn, int32_t orgNIn, int32_t orgKaIn, int32_t orgKbIn);
    int32_t EnableBias(bool isBiasIn = false);
    int32_t SetBias(bool isBiasIn = false);
    int32_t SetFixSplit(int32_t baseMIn = -1, int32_t baseNIn = -1, int32_t baseKIn = -1);
    int32_t SetBufferSpace(int32_t l1Size = -1, int32_t l0CSize = -1, int32_t ubSize = -1, int32_t btSize = -1);
    int32_t SetTraverse(MatrixTraverse traverse);
    int32_t SetMadType(MatrixMadType madType);
    int32_t GetBaseM() const { return baseM_; }
    int32_t GetBaseN() const { return baseN_; }
    int32_t GetBaseK() const { return baseK_; }
    virtual int64_t GetTiling(optiling::TCubeTiling &tiling) = 0;

protected:
    // Computes the tiling for a single-core problem (singleM/N/K) on usedCores cores; -1 on failure.
    int64_t ComputeTiling(optiling::TCubeTiling &tiling, int32_t usedCores, int32_t singleM, int32_t singleN,
                          int32_t singleK);
    PlatformInfo platform_;
    MatTilingType aType_, bType_, cType_, biasType_;
    int32_t m_ = -1, n_ = -1, k_ = -1;
    int32_t orgM_ = -1, orgN_ = -1, orgKa_ = -1, orgKb_ = -1;
    bool isBias_ = false;
    int32_t fixBaseM_ = -1, fixBaseN_ = -1, fixBaseK_ = -1;
    int64_t bufL1_ = -1, bufL0C_ = -1, bufUb_ = -1;
    MatrixTraverse traverse_ = MatrixTraverse::NOSET;
    int32_t baseM_ = 0, baseN_ = 0, baseK_ = 0;
};

class MatmulApiTiling : public MatmulApiTilingBase {
public:
    using MatmulApiTilingBase::MatmulApiTilingBase;
    int64_t GetTiling(optiling::TCubeTiling &tiling) override;
};

class MultiCoreMatmulTiling : public MatmulApiTilingBase {
public:
    using MatmulApiTilingBase::MatmulApiTilingBase;
    int32_t SetDim(int32_t dim);
    int32_t SetSingleShape(int32_t singleMIn = -1, int32_t singleNIn = -1, int32_t singleKIn = -1);
    int64_t GetTiling(optiling::TCubeTiling &tiling) override;
    int32_t GetSingleShape(int32_t &shapeM, int32_t &shapeN, int32_t &shapeK) const;

private:
    int32_t dim_ = 1;
    int32_t singleM_ = -1, singleN_ = -1, singleK_ = -1;
    int32_t lastSingleM_ = 0, lastSingleN_ = 0, lastSingleK_ = 0;
};
}  // namespace matmul_tiling
