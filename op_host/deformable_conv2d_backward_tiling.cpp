// TilingFunc of DeformableConv2dBackward: contract validation (shared validator), platform query,
// shape-only work split, UB budget check, workspace layout and size, matmul tilings, block dim, key.
// The formulas are documented in deformable_conv2d_backward_tiling.h; constants mirrored by the kernel
// are named after their kernel counterparts (op_kernel/dcn_*.h).
#include "deformable_conv2d_backward_tiling.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>

#include "dcn_checked_math.h"
#include "deformable_conv2d_backward_check.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
namespace {

constexpr int64_t kBlockCMax = 64;        // max channels of one stage-2 block (one 64-lane fp32 repeat per row)
constexpr int64_t kBlockCWide = 128;      // wide block (2 repeats per row) when segLen % 128 == 0 and K <= 32
constexpr int64_t kWideMaxK = 32;
constexpr int64_t kRepeatLanes = 64;      // REPEAT_LANES
constexpr int64_t kTargetUnits = 48;      // stage-2 units aimed at by the pixel bands (shape-only constant)
constexpr int64_t kMaxBands = 8;
constexpr int64_t kStage2MaxKt = 64;      // STAGE2_MAX_KT
constexpr int64_t kStage2Rows = 64;       // pixelTile * KT <= 64 G rows (sample points) per tile (32 for wide blocks)
constexpr int64_t kPixelAlign = 16;       // PIXEL_ALIGN
constexpr int64_t kTransposeCap = 4096;   // TRANSPOSE_CAP
constexpr int64_t kZeroChunk = 4096;      // ZERO_CHUNK
constexpr int64_t kReduceChunk = 2048;    // REDUCE_CHUNK
constexpr int64_t kGTileM = 128, kGTileN = 256, kWTileM = 128, kWTileN = 256, kWChunkK = 2048;
constexpr uint64_t kWsAlign = 512;
constexpr uint64_t kUbReserved = 8 * 1024;  // toolchain reservation (cann-conventions §4.10)

int64_t Gcd(int64_t a, int64_t b)
{
    while (b != 0) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}
int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t RoundUp(int64_t a, int64_t b) { return CeilDiv(a, b) * b; }

ge::graphStatus Fail(const std::string &msg)
{
    std::fprintf(stderr, "[DeformableConv2dBackward] tiling failed: %s\n", msg.c_str());
    return ge::GRAPH_FAILED;
}

// Peak UB bytes of the three vector stages (must match the InitBuffer calls of the kernel).
uint64_t Stage2UbBytes(int64_t k, int64_t pixelTile, int64_t blockC, int64_t elt)
{
    const int64_t kt = std::min(k, kStage2MaxKt);
    const int64_t ptp = RoundUp(pixelTile, kPixelAlign);
    const int64_t lp = RoundUp(blockC, 8);
    const int64_t plane = kt * ptp;
    const int64_t rows = pixelTile * kt;
    const int64_t hpr = lp > kRepeatLanes ? lp / kRepeatLanes : 1;  // repeats per row
    const int64_t bytes = 2 * rows * lp * 4 + 3 * plane * elt + 4 * rows * lp * 4 + (11 * plane + 2 * ptp) * 4 +
                          plane * 4 + 3 * plane * 4 + 4 * RoundUp(rows * hpr, 8) * 4 + 4 * RoundUp(rows, 8) * 4 +
                          4 * rows * hpr * 8 * 4 + rows * hpr * 8 * 4;
    return static_cast<uint64_t>(bytes);
}
uint64_t TransposeUbBytes() { return 7 * kTransposeCap * 4; }  // 2+2 queue buffers, gather, table, plane
uint64_t Stage0UbBytes() { return TransposeUbBytes() + kZeroChunk * 4; }
uint64_t Stage3UbBytes() { return TransposeUbBytes() + 4 * kReduceChunk * 4 + 2 * kReduceChunk * 4 + 64 * 4; }

bool MatmulTiling(const platform_ascendc::PlatformAscendC &plat, matmul_tiling::DataType dt, uint32_t aivNum,
                  int64_t m, int64_t n, int64_t k, int64_t sm, int64_t sn, int64_t sk, TCubeTiling &out)
{
    matmul_tiling::MultiCoreMatmulTiling mm(plat);
    mm.SetDim(static_cast<int32_t>(aivNum));
    mm.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, dt, true);
    mm.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, dt, false);
    mm.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
    mm.SetBiasType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
    // The problem given to the tiling is ONE output tile (sm x sn over a K range of sk): the kernel
    // distributes the shape-determined tiles over the vector cores itself, so the tile split - and
    // with it every element's accumulation order - never depends on the core count. The org shape
    // gives the strides of the full matrices the tiles are cut from.
    mm.SetShape(static_cast<int32_t>(sm), static_cast<int32_t>(sn), static_cast<int32_t>(sk));
    mm.SetOrgShape(static_cast<int32_t>(m), static_cast<int32_t>(n), static_cast<int32_t>(k));
    mm.SetSingleShape(static_cast<int32_t>(sm), static_cast<int32_t>(sn), static_cast<int32_t>(sk));
    mm.SetBias(false);
    mm.SetBufferSpace(-1, -1, -1);
    return mm.GetTiling(out) != -1;
}

}  // namespace

ge::graphStatus TilingDeformableConv2dBackward(gert::TilingContext *context)
{
    if (context == nullptr) {
        return Fail("context: must not be null");
    }
    const dcn::BackwardArgs args = dcn::ArgsFromTilingContext(context);
    const dcn::CheckResult check = dcn::CheckBackwardArgs(args);
    if (!check.ok()) {
        return Fail("status " + std::to_string(check.status) + ": " + check.message);
    }

    // ---- shape and attributes (validated above)
    const int64_t n = args.input.shape[0], cin = args.input.shape[1], h = args.input.shape[2], w = args.input.shape[3];
    const int64_t cout = args.weight.shape[0], kh = args.kernelSize[0], kw = args.kernelSize[1];
    const int64_t ho = args.gradOutput.shape[2], wo = args.gradOutput.shape[3];
    const int64_t groups = args.groups, dg = args.deformableGroups;
    const int64_t k = kh * kw, howo = ho * wo, cinG = cin / groups, coutG = cout / groups, cinDg = cin / dg;

    uint64_t key = DCN_TILING_KEY_FLOAT32;
    int64_t elt = 4;
    matmul_tiling::DataType mmType = matmul_tiling::DataType::DT_FLOAT;
    if (args.input.dtype == ge::DT_FLOAT16) {
        key = DCN_TILING_KEY_FLOAT16; elt = 2; mmType = matmul_tiling::DataType::DT_FLOAT16;
    } else if (args.input.dtype == ge::DT_BF16) {
        key = DCN_TILING_KEY_BFLOAT16; elt = 2; mmType = matmul_tiling::DataType::DT_BF16;
    }

    // ---- platform
    platform_ascendc::PlatformAscendC plat(context->GetPlatformInfo());
    const uint32_t aicNum = plat.GetCoreNumAic();
    const uint32_t aivNum = plat.GetCoreNumAiv();
    uint64_t ubSize = 0;
    plat.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    // MIX AIC:AIV = 1:2: a block is one cube core plus two vector cores. The platform may expose fewer
    // vector cores than 2 x cube cores (e.g. a core-count override of 7 vector cores = 4 cube cores):
    // the launch still has two vector cores per block, and the kernel gives work units only to vector
    // cores [0, usedVecCores); the others take part in every SyncAll and matmul End without work.
    // On a full chip usedVecCores == 2 * blockDim.
    const uint32_t blockDim = std::min(aicNum, (aivNum + 1) / 2);
    if (blockDim == 0) {
        return Fail("platform: the MIX AIC:AIV = 1:2 kernel needs at least 1 cube core and 1 vector core; got " +
                    std::to_string(aicNum) + " cube and " + std::to_string(aivNum) + " vector cores");
    }
    const uint32_t usedAiv = std::min(aivNum, 2 * blockDim);

    // ---- work split (shape only)
    const int64_t segLen = Gcd(cinG, cinDg);
    // Block width: as wide as possible. Narrower blocks would add stage-2 parallelism for small N*Cin
    // but multiply the per-sample-point work (measured on the twin: 8-channel blocks made the c3
    // suite row ~4x slower on 2 CPU cores), so the width is min(segLen, 64): a function of the shape.
    // Wide (128-channel) blocks halve the per-sample-point DMA/scalar work of stage 2; they need whole
    // 128-channel blocks (count-form rows of 2 full repeats) and <= 32 kernel points (UB: <= 32 rows).
    const bool wide = segLen % kBlockCWide == 0 && k <= kWideMaxK;
    const int64_t blockC = wide ? kBlockCWide : std::min(segLen, kBlockCMax);
    const int64_t blocksPerSeg = CeilDiv(segLen, blockC);
    const int64_t numBlocks = (cin / segLen) * blocksPerSeg;
    const int64_t kt = std::min(k, kStage2MaxKt);
    const int64_t stage2Rows = wide ? kStage2Rows / 2 : kStage2Rows;
    const int64_t pixelTile = std::max<int64_t>(1, std::min(howo, stage2Rows / kt));
    int64_t pixelBands = std::min({kMaxBands, howo, std::max<int64_t>(1, CeilDiv(kTargetUnits, n * numBlocks))});
    const int64_t bandLen = CeilDiv(howo, pixelBands);
    pixelBands = CeilDiv(howo, bandLen);  // no empty band
    const int64_t kcg = k * cinG;
    const int64_t ka = n * howo;
    const int64_t gTileM = std::min(howo, kGTileM), gTileN = std::min(kcg, kGTileN);
    const int64_t wTileM = std::min(coutG, kWTileM), wTileN = std::min(kcg, kWTileN);
    const int64_t wChunkK = std::min(ka, kWChunkK);
    const int64_t wSplitK = CeilDiv(ka, wChunkK);
    if (ka > INT32_MAX || howo > INT32_MAX || kcg > INT32_MAX) {
        return Fail("gradOutput: N*Ho*Wo must be <= 2147483647 for the matmul tiling; got " + std::to_string(ka));
    }

    // ---- UB budget
    const uint64_t ubLimit = ubSize > kUbReserved ? ubSize - kUbReserved : 0;
    const uint64_t ubNeed = std::max({Stage0UbBytes(), Stage2UbBytes(k, pixelTile, blockC, elt), Stage3UbBytes()});
    if (ubNeed > ubLimit) {
        return Fail("UB budget: need " + std::to_string(ubNeed) + " bytes, platform allows " + std::to_string(ubLimit));
    }

    // ---- user workspace layout
    // Workspace regions: every size product and the running offset are overflow-checked
    // (dcn_checked_math.h); the total is bounded by the device memory below.
    uint64_t off = 0;
    bool wsFits = true;
    auto region = [&off, &wsFits](std::initializer_list<int64_t> factors) {
        const uint64_t at = off;
        uint64_t bytes = 0;
        wsFits = wsFits && dcn::CheckedBytes(factors, &bytes) && dcn::CheckedAlignUp(bytes, kWsAlign, &bytes) &&
                 dcn::CheckedAdd(off, bytes, &off);
        return at;
    };
    DeformableConv2dBackwardTilingData td;
    td.set_wsXt(region({n, h, w, cin, 4}));
    td.set_wsGiacc(region({pixelBands, n, h, w, cin, 4}));
    td.set_wsG(region({n, howo, k, cin, 4}));
    td.set_wsWp(region({cout, cinG, k, elt}));
    td.set_wsGot(region({n, howo, cout, elt}));
    td.set_wsDcol(region({n, howo, cin, k, elt}));
    td.set_wsGw(region({wSplitK, cout, cinG, k, 4}));
    td.set_wsPart(region({n, numBlocks, 3, k, howo, 4}));
    uint64_t hbm = 0;
    plat.GetCoreMemSize(platform_ascendc::CoreMemType::HBM, hbm);
    const uint64_t libApiWs = plat.GetLibApiWorkSpaceSize();
    uint64_t wsTotal = 0;
    const bool wsTotalFits = wsFits && dcn::CheckedAdd(off, libApiWs, &wsTotal);
    if (!wsTotalFits || (hbm > 0 && wsTotal > hbm)) {
        return Fail("workspace: the shape needs " +
                    (wsTotalFits ? std::to_string(wsTotal) + " bytes" : std::string("2^64 bytes or more")) +
                    ", more than the device memory of " + std::to_string(hbm) + " bytes");
    }
    td.set_wsUserBytes(off);

    td.set_n(n); td.set_cin(cin); td.set_h(h); td.set_w(w); td.set_cout(cout); td.set_kh(kh); td.set_kw(kw);
    td.set_ho(ho); td.set_wo(wo);
    td.set_strideH(args.stride[2]); td.set_strideW(args.stride[3]);
    td.set_padTop(args.padding[0]); td.set_padLeft(args.padding[2]);
    td.set_dilationH(args.dilation[2]); td.set_dilationW(args.dilation[3]);
    td.set_groups(groups); td.set_deformableGroups(dg);
    td.set_segLen(segLen); td.set_blockC(blockC); td.set_blocksPerSeg(blocksPerSeg); td.set_numBlocks(numBlocks);
    td.set_pixelTile(pixelTile);
    td.set_pixelBands(pixelBands);
    td.set_bandLen(bandLen);
    td.set_gTileM(gTileM); td.set_gTileN(gTileN); td.set_wTileM(wTileM); td.set_wTileN(wTileN);
    td.set_wSplitK(wSplitK); td.set_wChunkK(wChunkK);
    td.set_usedVecCores(usedAiv);
    td.set_modulated(args.modulated ? 1U : 0U);

    if (!MatmulTiling(plat, mmType, usedAiv, howo, kcg, coutG, gTileM, gTileN, coutG, td.gMatmul)) {
        return Fail("matmul tiling (G = GO^T x W) failed for M=" + std::to_string(howo) + " N=" + std::to_string(kcg) +
                    " K=" + std::to_string(coutG));
    }
    if (!MatmulTiling(plat, mmType, usedAiv, coutG, kcg, ka, wTileM, wTileN, wChunkK, td.wMatmul)) {
        return Fail("matmul tiling (dW = GOt^T x Dcol) failed for M=" + std::to_string(coutG) +
                    " N=" + std::to_string(kcg) + " K=" + std::to_string(ka));
    }

    gert::TilingData *raw = context->GetRawTilingData();
    if (raw == nullptr || raw->GetCapacity() < td.GetDataSize()) {
        return Fail("tiling data buffer too small");
    }
    td.SaveToBuffer(raw->GetData(), raw->GetCapacity());
    raw->SetDataSize(td.GetDataSize());
    context->SetBlockDim(blockDim);  // MIX AIC:AIV = 1:2 -> block dim counts cube cores
    context->SetTilingKey(key);
    context->SetScheduleMode(1);  // batch mode: the kernel's SyncAll needs every core resident (SyncAll docs)
    size_t *ws = context->GetWorkspaceSizes(1);
    if (ws == nullptr) {
        return Fail("workspace sizes unavailable");
    }
    ws[0] = static_cast<size_t>(wsTotal);
    return ge::GRAPH_SUCCESS;
}

}  // namespace optiling
