// TilingFunc of DeformableConv2dBackward as named steps: (1) the validated shape (shared validator),
// (2) the platform, (3) the pure plan - cores, work split, UB budget, workspace layout
// (deformable_conv2d_backward_tiling_plan.h), (4) the tiling data, (5) the matmul tilings, (6) block dim,
// key and workspace size. Formulas: deformable_conv2d_backward_tiling.h; every constant shared with the
// kernel: op_kernel/dcn_tiling_constants.h.
#include "deformable_conv2d_backward_tiling.h"

#include <cstdint>
#include <cstdio>
#include <string>

#include "dcn_checked_math.h"
#include "deformable_conv2d_backward_check.h"
#include "deformable_conv2d_backward_matmul_l1.h"
#include "deformable_conv2d_backward_tiling_plan.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
namespace {

ge::graphStatus Fail(const std::string &msg)
{
    std::fprintf(stderr, "[DeformableConv2dBackward] tiling failed: %s\n", msg.c_str());
    return ge::GRAPH_FAILED;
}

// The stage-1 Matmul plan of one tile: the base block and L1 plan with the fewest modelled cycles
// (deformable_conv2d_backward_matmul_l1.h PlanStage1Matmul). The base goes to SetFixSplit (an axis whose
// planned base exceeds the SetFixSplit bound - an fp32 N below 9 - is left to the tiling: -1); the L1 plan
// (baseK, iterate order, steps, depths) is written over the tiling GetTiling returned, so the chip runs the
// plan the model costs (GetTiling's own L1 choice is made for the MDL template by default:
// matmul_tiling_base.h mmConfigType = 1). Should the tiling's base differ from the planned one, the L1 plan
// is redone over the tiling's base.
dcn::MatmulL1Limits LimitsOf(const platform_ascendc::PlatformAscendC& plat)
{
    dcn::MatmulL1Limits limits;
    plat.GetCoreMemSize(platform_ascendc::CoreMemType::L0_A, limits.l0aBytes);
    plat.GetCoreMemSize(platform_ascendc::CoreMemType::L0_B, limits.l0bBytes);
    plat.GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, limits.l0cBytes);
    plat.GetCoreMemSize(platform_ascendc::CoreMemType::L1, limits.l1Bytes);
    return limits;
}

void ApplyL1Plan(const dcn::MatmulL1Plan& l1, TCubeTiling& out)
{
    out.set_baseK(l1.baseK);
    out.set_iterateOrder(l1.iterateOrder);
    out.set_stepM(l1.stepM);
    out.set_stepN(l1.stepN);
    out.set_stepKa(l1.stepKa);
    out.set_stepKb(l1.stepKb);
    out.set_depthA1(l1.depthA1);
    out.set_depthB1(l1.depthB1);
    out.set_dbL0A(2);
    out.set_dbL0B(2);
    out.set_dbL0C(1);
    out.set_shareL1Size(static_cast<int32_t>(l1.l1Bytes));
}

int64_t AlignUp(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

bool MatmulTiling(
    const platform_ascendc::PlatformAscendC& plat, matmul_tiling::DataType dt, int64_t eltBytes, uint32_t aivNum,
    int64_t m, int64_t n, int64_t k, int64_t sm, int64_t sn, int64_t sk, TCubeTiling& out)
{
    const dcn::MatmulL1Limits limits = LimitsOf(plat);
    dcn::Stage1MatmulPlan plan;
    if (!dcn::PlanStage1Matmul(sm, sn, sk, eltBytes, limits, plan)) {
        return false;
    }
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
    const int32_t fixM = plan.baseM <= AlignUp(sm, 16) ? plan.baseM : -1;
    const int32_t fixN = plan.baseN <= AlignUp(sn, 32 / eltBytes) ? plan.baseN : -1;
    if (mm.SetFixSplit(fixM, fixN, -1) != 0 || mm.GetTiling(out) == -1) {
        return false;
    }
    if (out.get_baseM() != plan.baseM || out.get_baseN() != plan.baseN) {
        if (!dcn::PlanMatmulL1(sm, sn, sk, out.get_baseM(), out.get_baseN(), eltBytes, limits, plan.l1)) {
            return false;
        }
    }
    ApplyL1Plan(plan.l1, out);
    return true;
}

// Step 1: the validated shape, attributes and dtype of the call.
dcn::TilingShape ShapeOf(const dcn::BackwardArgs &args, matmul_tiling::DataType &mmType)
{
    dcn::TilingShape s;
    s.n = args.input.shape[0];
    s.cin = args.input.shape[1];
    s.h = args.input.shape[2];
    s.w = args.input.shape[3];
    s.cout = args.weight.shape[0];
    s.kh = args.kernelSize[0];
    s.kw = args.kernelSize[1];
    s.ho = args.gradOutput.shape[2];
    s.wo = args.gradOutput.shape[3];
    s.groups = args.groups;
    s.dg = args.deformableGroups;
    s.strideH = args.stride[2];
    s.dilationH = args.dilation[2];
    s.strideW = args.stride[3];
    s.dilationW = args.dilation[3];
    s.padTop = args.padding[0];
    s.padLeft = args.padding[2];
    s.key = DCN_TILING_KEY_FLOAT32;
    s.elt = 4;
    mmType = matmul_tiling::DataType::DT_FLOAT;
    if (args.input.dtype == ge::DT_FLOAT16) {
        s.key = DCN_TILING_KEY_FLOAT16;
        s.elt = 2;
        mmType = matmul_tiling::DataType::DT_FLOAT16;
    } else if (args.input.dtype == ge::DT_BF16) {
        s.key = DCN_TILING_KEY_BFLOAT16;
        s.elt = 2;
        mmType = matmul_tiling::DataType::DT_BF16;
    }
    return s;
}

// Step 2: the platform (cores and UB) the kernel will run on.
dcn::TilingPlatform PlatformOf(const platform_ascendc::PlatformAscendC &plat)
{
    dcn::TilingPlatform p;
    p.aicNum = plat.GetCoreNumAic();
    p.aivNum = plat.GetCoreNumAiv();
    plat.GetCoreMemSize(platform_ascendc::CoreMemType::UB, p.ubBytes);
    plat.GetCoreMemSize(platform_ascendc::CoreMemType::L0_A, p.l0aBytes);
    plat.GetCoreMemSize(platform_ascendc::CoreMemType::L0_B, p.l0bBytes);
    plat.GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, p.l0cBytes);
    plat.GetCoreMemSize(platform_ascendc::CoreMemType::L1, p.l1Bytes);
    return p;
}

// Step 4: the plan as tiling data (shape, attributes, split, workspace offsets, cores).
void FillTilingData(const dcn::BackwardArgs &args, const dcn::TilingShape &s, const dcn::TilingPlan &plan,
                    DeformableConv2dBackwardTilingData &td)
{
    td.set_n(s.n);
    td.set_cin(s.cin);
    td.set_h(s.h);
    td.set_w(s.w);
    td.set_cout(s.cout);
    td.set_kh(s.kh);
    td.set_kw(s.kw);
    td.set_ho(s.ho);
    td.set_wo(s.wo);
    td.set_strideH(args.stride[2]);
    td.set_strideW(args.stride[3]);
    td.set_padTop(args.padding[0]);
    td.set_padLeft(args.padding[2]);
    td.set_dilationH(args.dilation[2]);
    td.set_dilationW(args.dilation[3]);
    td.set_groups(s.groups);
    td.set_deformableGroups(s.dg);
    const dcn::WorkSplit &w = plan.split;
    td.set_segLen(w.segLen);
    td.set_blockC(w.blockC);
    td.set_blocksPerSeg(w.blocksPerSeg);
    td.set_numBlocks(w.numBlocks);
    td.set_pixelTile(w.pixelTile);
    td.set_pixelBands(w.pixelBands);
    td.set_bandLen(w.bandLen);
    td.set_gTileM(w.gTileM);
    td.set_gTileN(w.gTileN);
    td.set_wTileM(w.wTileM);
    td.set_wTileN(w.wTileN);
    td.set_wSplitK(w.wSplitK);
    td.set_wChunkK(w.wChunkK);
    td.set_winOutRows(w.winOutRows);
    td.set_winOutCols(w.winOutCols);
    td.set_winRows(w.winRows);
    td.set_winCols(w.winCols);
    td.set_chunkImgs(w.chunkImgs);
    td.set_accImgs(w.accImgs);
    td.set_chunkOutRows(w.chunkOutRows);
    td.set_chunkOutCols(w.chunkOutCols);
    td.set_chunkPix(w.chunkPix);
    td.set_chunkRows(w.chunkRows);
    td.set_pixChunks(w.pixChunks);
    td.set_numChunks(w.numChunks);
    td.set_gRegions(w.gRegions);
    td.set_recTiles(w.recTiles);
    td.set_recFloats(w.recFloats);
    const dcn::WorkspaceLayout &ws = plan.ws;
    td.set_wsXt(ws.xt);
    td.set_wsGiacc(ws.giacc);
    td.set_wsG(ws.g);
    td.set_wsG2(ws.g2);
    td.set_wsGot(ws.got);
    td.set_wsDcol(ws.dcol);
    td.set_wsGw(ws.gw);
    td.set_wsPart(ws.part);
    td.set_wsZeroed(ws.zeroed);
    td.set_wsRec(ws.rec);
    td.set_wsUserBytes(ws.userBytes);
    td.set_ubBytes(plan.ub.limit);
    td.set_usedVecCores(plan.cores.usedVecCores);
    td.set_modulated(args.modulated ? 1U : 0U);
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
    matmul_tiling::DataType mmType = matmul_tiling::DataType::DT_FLOAT;
    const dcn::TilingShape shape = ShapeOf(args, mmType);
    platform_ascendc::PlatformAscendC plat(context->GetPlatformInfo());

    // Step 3: cores, work split, UB budget, workspace layout (pure; tests/op_host/test_tiling_plan.cpp).
    uint64_t hbm = 0;
    plat.GetCoreMemSize(platform_ascendc::CoreMemType::HBM, hbm);
    dcn::TilingPlan plan;
    std::string error;
    if (!dcn::MakeTilingPlan(shape, PlatformOf(plat), plan, error, dcn::WsBudgetForHbm(hbm))) {
        return Fail(error);
    }

    DeformableConv2dBackwardTilingData td;
    FillTilingData(args, shape, plan, td);
    // Step 5: matmul tilings of one output tile each (org shapes = the full matrices).
    const int64_t howo = shape.ho * shape.wo, kcg = shape.kh * shape.kw * (shape.cin / shape.groups);
    const int64_t coutG = shape.cout / shape.groups, ka = plan.split.chunkRows; // Ka of one pixel chunk
    const dcn::WorkSplit &w = plan.split;
    const uint32_t usedAiv = plan.cores.usedVecCores;
    if (!MatmulTiling(plat, mmType, shape.elt, usedAiv, howo, kcg, coutG, w.gTileM, w.gTileN, coutG, td.gMatmul)) {
        return Fail("matmul tiling (G = GO^T x W) failed for M=" + std::to_string(howo) + " N=" + std::to_string(kcg) +
                    " K=" + std::to_string(coutG));
    }
    if (!MatmulTiling(plat, mmType, shape.elt, usedAiv, coutG, kcg, ka, w.wTileM, w.wTileN, w.wChunkK, td.wMatmul)) {
        return Fail("matmul tiling (dW = GOt^T x Dcol) failed for M=" + std::to_string(coutG) +
                    " N=" + std::to_string(kcg) + " K=" + std::to_string(ka));
    }

    // Step 6: tiling data, block dim, key, workspace size.
    gert::TilingData *raw = context->GetRawTilingData();
    if (raw == nullptr || raw->GetCapacity() < td.GetDataSize()) {
        return Fail("tiling data buffer too small");
    }
    td.SaveToBuffer(raw->GetData(), raw->GetCapacity());
    raw->SetDataSize(td.GetDataSize());
    context->SetBlockDim(plan.cores.blockDim);  // MIX AIC:AIV = 1:2 -> block dim counts cube cores
    context->SetTilingKey(shape.key);
    context->SetScheduleMode(1);  // batch mode: the kernel's SyncAll needs every core resident (SyncAll docs)
    // The workspace must fit the device memory (a larger request can never be allocated).
    uint64_t wsTotal = 0;
    if (!dcn::CheckedAdd(plan.ws.userBytes, static_cast<uint64_t>(plat.GetLibApiWorkSpaceSize()), &wsTotal) ||
        (hbm > 0 && wsTotal > hbm)) {
        return Fail("workspace: the shape needs more than the device memory of " + std::to_string(hbm) + " bytes");
    }
    size_t *ws = context->GetWorkspaceSizes(1);
    if (ws == nullptr) {
        return Fail("workspace sizes unavailable");
    }
    ws[0] = static_cast<size_t>(wsTotal);
    return ge::GRAPH_SUCCESS;
}

}  // namespace optiling
