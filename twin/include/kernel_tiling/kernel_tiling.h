// Kernel-side POD TCubeTiling (global namespace), the layout the Matmul API reads.
// Field order = CANN's macro definition (cannmirror/asc-devkit include/adv_api/matmul/
// matmul_tilingdata.h, BEGIN_TILING_DATA_DEF(TCubeTiling)): 50 int32_t fields, 200 bytes. It contains
// every field of the API doc table "TCubeTiling结构体" (docs/zh/api/SIMD-API/高阶API/矩阵计算/
// Matmul-Tiling类/TCubeTiling结构体.md) plus the reserved layout fields the doc omits; the twin host
// side's optiling::TCubeTiling (tiling/tiling_api.h) serialises to these exact bytes.
#pragma once
#include <cstdint>

struct TCubeTiling {
    int32_t usedCoreNum;
    int32_t M;
    int32_t N;
    int32_t Ka;
    int32_t Kb;
    int32_t singleCoreM;
    int32_t singleCoreN;
    int32_t singleCoreK;
    int32_t baseM;
    int32_t baseN;
    int32_t baseK;
    int32_t depthA1;
    int32_t depthB1;
    int32_t stepM;
    int32_t stepN;
    int32_t isBias;
    int32_t transLength;
    int32_t iterateOrder;
    int32_t shareMode;
    int32_t shareL1Size;
    int32_t shareL0CSize;
    int32_t shareUbSize;
    int32_t batchM;
    int32_t batchN;
    int32_t singleBatchM;
    int32_t singleBatchN;
    int32_t stepKa;
    int32_t stepKb;
    int32_t depthAL1CacheUB;
    int32_t depthBL1CacheUB;
    int32_t dbL0A;
    int32_t dbL0B;
    int32_t dbL0C;
    int32_t ALayoutInfoB;
    int32_t ALayoutInfoS;
    int32_t ALayoutInfoN;
    int32_t ALayoutInfoG;
    int32_t ALayoutInfoD;
    int32_t BLayoutInfoB;
    int32_t BLayoutInfoS;
    int32_t BLayoutInfoN;
    int32_t BLayoutInfoG;
    int32_t BLayoutInfoD;
    int32_t CLayoutInfoB;
    int32_t CLayoutInfoS1;
    int32_t CLayoutInfoN;
    int32_t CLayoutInfoG;
    int32_t CLayoutInfoS2;
    int32_t BatchNum;
    int32_t mxTypePara;
};
static_assert(sizeof(TCubeTiling) == 200, "TCubeTiling: 50 int32_t fields, no padding");
