// The tiling of DeformableConv2dBackward as named steps over plain structs (no CANN types): the
// TilingFunc (deformable_conv2d_backward_tiling.cpp) extracts the shape and the platform, calls
// MakeTilingPlan and copies the plan into the tiling data. tests/op_host/test_tiling_plan.cpp pins
// every field of the plan for a table of shapes x platforms.
//
// Steps (each a pure function of its arguments):
//   PlanCores(platform)           blockDim, usedVecCores            (the only step that sees the core count)
//   PlanWorkSplit(shape, ub, wb)  stage-2 channel blocks (narrowed for a useful UB window), pixel bands
//                                 and pixel chunks (PlanChunks) sharing the workspace budget wb, pixel tile,
//                                 grad_weight Ka chunks (platform UB and wb, never the core count)
//   PlanStage1Tiles(shape, p, s)  stage-1 G and grad_weight tiles: the shapes with the fewest modelled cube cycles per
//                                 chunk (platform L0/L1 sizes, a constant lane count, never the core count)
//   PlanChunks(shape, cb, split)  the pixel chunks of the kernel's stage loop: images x output rows (or
//                                 columns of one row) whose per-chunk workspace fits cb bytes
//   BalanceChunkImages(shape, s)  fewer chunk images when the run then needs fewer rounds of stage-2 lanes
//   PlanWindow(shape, ub, split)  stage-2 UB window from the UB left over by the stage-2 tile buffers
//   PlanUbBytes(shape, split)     peak UB bytes of stage 0 / 2 / 3  (mirror the kernel's InitBuffer calls)
//   PlanWorkspace(shape, split)   user-workspace regions (byte offsets, 512-B aligned, in layout order)
// Formulas: deformable_conv2d_backward_tiling.h. Constants: op_kernel/dcn_tiling_constants.h.
#ifndef DEFORMABLE_CONV2D_BACKWARD_TILING_PLAN_H
#define DEFORMABLE_CONV2D_BACKWARD_TILING_PLAN_H

#include <cstdint>
#include <string>

#include "../op_kernel/dcn_tiling_constants.h"
#include "deformable_conv2d_backward_matmul_l1.h"

namespace dcn {

// Validated operator shape (contract symbols; see op-semantics.md).
struct TilingShape {
    int64_t n = 0, cin = 0, h = 0, w = 0, cout = 0, kh = 0, kw = 0, ho = 0, wo = 0;
    int64_t groups = 1, dg = 1;
    int64_t strideH = 1, dilationH = 1, strideW = 1, dilationW = 1;
    int64_t elt = 4;          // bytes of the I/O dtype T
    uint64_t key = 0;         // DCN_TILING_KEY_* of T
    int64_t padTop = 0, padLeft = 0; // input rows above / columns left of the padded image (window border estimate)
};

struct TilingPlatform {
    uint32_t aicNum = 0, aivNum = 0;
    uint64_t ubBytes = 0;     // per vector core
    // per cube core (the stage-1 Matmul plan); defaults: A2/A3 (cann-conventions.md), the TilingFunc sets
    // the platform's
    uint64_t l0aBytes = 64 * 1024, l0bBytes = 64 * 1024, l0cBytes = 128 * 1024, l1Bytes = 512 * 1024;
};

struct CoreSplit {
    uint32_t blockDim = 0;      // MIX AIC:AIV = 1:2 blocks (cube cores)
    uint32_t usedVecCores = 0;  // vector cores [0, usedVecCores) take work units
};

// Work split: a function of the shape only (never of the core count).
struct WorkSplit {
    int64_t segLen = 0, blockC = 0, blocksPerSeg = 0, numBlocks = 0;
    int64_t pixelTile = 0, pixelBands = 0, bandLen = 0;
    int64_t gTileM = 0, gTileN = 0, wTileM = 0, wTileN = 0, wSplitK = 0, wChunkK = 0;
    // Stage-2 UB window (PlanWindow): output rows x columns per window, input rows x columns it holds
    // (capacity); 0 = no window.
    int64_t winOutRows = 0, winOutCols = 0, winRows = 0, winCols = 0;
    // Pixel chunks (PlanChunks; whole-row chunks then balanced by PlanUnits, BalancedChunkRows: ceil(Ho / chunks)
    // rows each): a chunk is chunkImgs images x chunkOutRows output rows x chunkOutCols output
    // columns (chunkOutCols < Wo only when chunkOutRows == 1); chunkPix = chunkOutRows * chunkOutCols pixels
    // per image, chunkRows = chunkImgs * chunkPix. Chunk c: image group c / pixChunks, pixel chunk
    // c % pixChunks (row-major over ceil(Ho/chunkOutRows) x ceil(Wo/chunkOutCols)).
    int64_t chunkImgs = 0, chunkOutRows = 0, chunkOutCols = 0, chunkPix = 0, chunkRows = 0;
    int64_t pixChunks = 0, numChunks = 0;
    // G regions (PlanUnits): 2 = chunk c's G is in region c % 2, and chunk c+1's G GEMM runs during chunk c's
    // sampling; 1 = one region, each chunk's G GEMM runs during its rearrangement (one chunk, or when the
    // second region would take more chunks).
    int64_t gRegions = 1;
    // Images one set of grad_input accumulator planes covers (PlanBandsAndChunks): N (the planes hold the whole
    // batch; stage 3 writes grad_input once, at the end) or chunkImgs (image-local planes, chunkImgs = 1: the
    // planes of one image group are written out to grad_input after the group's last chunk (and zeroed again, row
    // by row, as the next group's stage 2 first writes them), so the
    // band planes cost per image what a plane of the batch costs, and more bands fit the workspace).
    int64_t accImgs = 0;
    // Shared sampling fronts (PlanSharedFronts): the channel blocks of one deformable group sample the same points,
    // so each stage-2 tile's coordinates, weight rows, scalar keys and corner-gather offsets are computed once per
    // (image, pixel band, deformable group) in the chunk's first phase, as a record of recFloats floats (recTiles
    // records per such unit: the most tiles a unit pushes, MostUnitTiles), and every block's unit loads it. recTiles =
    // 0: each unit computes its own.
    int64_t recTiles = 0, recFloats = 0;
};

// User-workspace regions: byte offsets from the user workspace base, in layout order.
struct WorkspaceLayout {
    uint64_t xt = 0, giacc = 0, g = 0, g2 = 0, got = 0, dcol = 0, gw = 0, part = 0; // g2: G of odd chunks (empty
                                                                                    // region when gRegions == 1)
    uint64_t zeroed = 0;      // the accumulator planes' zeroed-row counts
    uint64_t rec = 0;         // the chunk's shared stage-2 tile records (empty without shared fronts)
    uint64_t userBytes = 0;   // end of the last region
    bool fits = true;         // false: a region size or the running offset overflowed uint64 (checked math)
};

struct UbBudget {
    uint64_t stage0 = 0, stage2 = 0, stage3 = 0;
    uint64_t need = 0;        // max of the stages
    uint64_t limit = 0;       // UB a vector core may allocate (platform UB less kUbReserved; tiling ubBytes)
};

struct TilingPlan {
    CoreSplit cores;
    WorkSplit split;
    UbBudget ub;
    WorkspaceLayout ws;
};

bool PlanCores(const TilingPlatform &platform, CoreSplit &cores, std::string &error);
// The workspace budget (band planes beyond the first + chunk regions) for a device of hbmBytes of memory:
// dcn_tiling::kWsBudget, or hbmBytes / 512 on a device with less than 30 GiB (0 = unknown: kWsBudget).
// Every A2/A3 part has >= 32 GiB; the twin's TWIN_HBM_BYTES makes small budgets (many chunks) testable.
uint64_t WsBudgetForHbm(uint64_t hbmBytes);
WorkSplit PlanWorkSplit(const TilingShape& shape, uint64_t ubLimit, uint64_t wsBudget);
// The chunk geometry for a chunk budget with gRegions (1 or 2) G regions.
void PlanChunks(const TilingShape& shape, uint64_t chunkBudget, int64_t gRegions, WorkSplit& split);
void BalanceChunkImages(const TilingShape& shape, WorkSplit& split);
void PlanUnits(const TilingShape& shape, uint64_t ubLimit, uint64_t wsBudget, WorkSplit& split);
// The most tiles one stage-2 unit (image, block, band) pushes in any pixel chunk: the kernel's loops over the chunk's
// band, its UB windows and their output rows, in tiles of pixelTile pixels x kernel-point chunks (dcn_stage2_sample.h
// ProcessUnit).
int64_t MostUnitTiles(const TilingShape& shape, const WorkSplit& split);
// Blocks per deformable group from which the split's units share their fronts: kShareMinBlocks (fp32: twice as many
// unless the blocks have <= kShareNarrowBlockC channels; 16-bit I/O with blocks of >= kShareWideBlockC channels:
// kShareMinBlocksWide; fp32 with one G region: kShareMinBlocksOneG).
int64_t SharedFrontsMinBlocks(const TilingShape& shape, const WorkSplit& split);
// Shared sampling fronts (WorkSplit::recTiles) where a deformable group has at least SharedFrontsMinBlocks whole
// channel blocks, every tile holds all K kernel points, a record's gather table fits the coordinate planes and the
// records fit kRecordFree bytes; else recTiles = 0.
void PlanSharedFronts(const TilingShape& shape, WorkSplit& split);
int64_t UnitsOf(const WorkSplit& split);
void PlanWindow(
    const TilingShape& shape, uint64_t ubLimit, WorkSplit& split, int64_t maxOutRows = INT64_MAX,
    bool tileAware = false);
// The G tile (gTileM x gTileN) and the grad_weight tile (wTileM x wTileN) of the split's chunks; false when no
// Matmul plan fits the limits.
bool PlanStage1Tiles(const TilingShape& shape, const MatmulL1Limits& limits, WorkSplit& split);
// The L0/L1 limits of the stage-1 Matmul plans on the platform.
MatmulL1Limits Stage1Limits(const TilingPlatform& platform);
UbBudget PlanUbBytes(const TilingShape &shape, const WorkSplit &split);
WorkspaceLayout PlanWorkspace(const TilingShape &shape, const WorkSplit &split);

// All steps plus the checks (int32 matmul fields, UB budget). false + error text when the shape cannot
// be tiled on the platform. wsBudget: bytes of the band planes beyond the first plus the per-chunk regions
// (the TilingFunc passes WsBudgetForHbm(HBM); tests pass small budgets to force many chunks).
bool MakeTilingPlan(
    const TilingShape& shape, const TilingPlatform& platform, TilingPlan& plan, std::string& error,
    uint64_t wsBudget = static_cast<uint64_t>(dcn_tiling::kWsBudget));

}  // namespace dcn

#endif  // DEFORMABLE_CONV2D_BACKWARD_TILING_PLAN_H
