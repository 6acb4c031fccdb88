// Tiling data and tiling entry point of DeformableConv2dBackward (op_host side).
//
// Layout rule: all 64-bit fields first, then 32-bit fields, then the two TCubeTiling structs, so a
// natural-alignment C struct (the kernel's GET_TILING_DATA view) has the identical byte layout.
//
// Symbols (see op-semantics.md): N, Cin, H, W, Cout, KH, KW, Ho, Wo, groups, dg; K = KH*KW,
// CinG = Cin/groups, CoutG = Cout/groups, CinDg = Cin/dg, HoWo = Ho*Wo, T = I/O dtype (E = sizeof(T)).
//
// Work split (every quantity is a function of the shape only, never of the core count):
//   segLen    = gcd(CinG, CinDg)     channel segment inside one conv group AND one deformable group
//   blockC    = 128 if segLen % 128 == 0 and K <= 32 (wide: 2 vector repeats per row), else min(segLen, 64),
//               halved (rounded up to a multiple of 8, down to 8) while the stage-2 tile buffers exceed the UB,
//               then halved for the UB window (see winOutRows); channels of one stage-2 block; tails allowed
//               (never for wide blocks)
//   blocksPerSeg = ceil(segLen/blockC), numBlocks = (Cin/segLen)*blocksPerSeg  (channel blocks of one image)
//   pixelTile = max(1, min(HoWo, R / min(K, 64)))     stage-2 pixels per tile, R = 64 sample points (32 wide)
//   workspace budget WB = WsBudgetForHbm(HBM) = 60 MiB on every A2/A3 part (min(60 MiB, HBM/512); a plan
//                input), shared by the grad_input band planes beyond the first and the chunk regions:
//   pixelBands   b in 1..min(8, HoWo) with extra = b - 1 <= (WB - WB/5) / (N*H*W*Cin*4) planes beyond the first
//                and chunk budget B = WB - extra*N*H*W*Cin*4 (its chunks below): the b with the best busy share
//                units / (ceil(units/48)*48), units = chunkImgs*numBlocks*b (48 = a constant target of stage-2
//                lanes, not the core count); a larger b must raise the share by > 15 % (> 5 % when it needs at
//                most 1.25x the chunks of the best b so far), keep >= 1 output row per band (whole-row chunks)
//                and need at most 2.5x the one-band chunks; pixelBands = ceil(chunkPix/bandLen) with
//                bandLen = ceil(chunkPix / min(1 + extra, chunkPix)). Band j of a chunk covers its pixels
//                [q0 + j*bandLen, ...) of each image (a short chunk's span split evenly; where tiles run across rows
//                and units > 48, from tile j*T/bands of the span's T tiles: DCN_BAND_START); each band scatters into
//                its own grad_input accumulator plane (the same plane in every chunk, chunks in order); stage 3 adds
//                the planes in band order.
//   accImgs      N (the planes above hold the batch), or image-local planes (accImgs = chunkImgs = 1, N > 1): each
//                plane holds one image, the first N planes take the batch plane's room and planes beyond it come
//                out of bandRoom (extra = max(0, b - N)*H*W*Cin*4); chunks as PlanChunks for one image, N times
//                (numChunks = N*pixChunks), b in 1..min(8, HoWo) under the same band rules with the fewest slots =
//                rounds*pixChunks*bandLen (rounds per image group: ceil(units/48)). Taken when its slots are
//                < 100/115 of the batch plan's and the batch plan has < 48 units per chunk or the local plan needs
//                at most 1.25x its chunks. After an image's last chunk, the fold that follows (stage 3) writes its
//                grad_input; the next image's stage 2 zeroes the planes' rows again as it first writes them.
//   pixel chunks (the kernel's stage loop; PlanChunks):
//                rowBytes = K*Cin*(4*gRegions+E) + Cout*E + numBlocks*3*K*4, rowsBudget = max(1, (B - B/4) /
//                rowBytes). gRegions = 1; when that gives several chunks, the bands and chunks are planned
//                again with gRegions = 2 and kept if they need no more chunks (then chunk c+1's G GEMM runs
//                during chunk c's sampling).
//                N*HoWo <= rowsBudget: one chunk (all images, all pixels). Else pix = min(HoWo, max(rowsBudget/N,
//                min(rowsBudget, 256))) pixels per image, as whole output rows (chunkOutRows = pix/Wo) when
//                pix >= Wo, else chunkOutCols = pix columns of one row; chunkPix = chunkOutRows*chunkOutCols,
//                chunkImgs = min(N, max(1, rowsBudget/chunkPix)), chunkRows = chunkImgs*chunkPix,
//                pixChunks = ceil(Ho/chunkOutRows)*ceil(Wo/chunkOutCols), numChunks = ceil(N/chunkImgs)*pixChunks.
//                Chunk c = image group c / pixChunks x pixel chunk c % pixChunks (row-major); its pixels are one
//                contiguous range [q0, q0+qLen) of every image of the group.
//   winOutRows x winOutCols, winRows x winCols: stage-2 UB window (PlanWindow). A window of R x C output
//                pixels reaches Ry = (R-1)*strideH + (KH-1)*dilationH + 1 + 2*kWindowMargin input rows and
//                Cx = (C-1)*strideW + (KW-1)*dilationW + 1 + 2*kWindowMargin input columns (clipped to H, W);
//                winRows*winCols*roundup(blockC,8)*4 bytes, twice (input and grad_input), must fit in the UB
//                the stage-2 tile buffers leave free (UB - 8 KiB - their bytes). Among the windows that fit, the
//                one with the highest output/halo pixel ratio (then the larger). 0 = no window. blockC is halved
//                (not below kWindowMinBlockC) while the window covers fewer than kWindowMinOut output pixels
//                and the narrower block's window covers more. Corners in the window are read from / added into
//                UB; the window's grad_input is added to the unit's accumulator plane once per window. Blocks of
//                <= kGatherMaxLp channels add a one-pixel zero ring around the image when it fits (RingFits); the
//                final, tile-aware choice charges windows without it kWindowBorderWeight per border sample.
//   stage-1 G matmul tiles:   gTileM x gTileN over [qLen, K*CinG] per (image of the chunk, group), each axis
//                             even(x, t) = min(x, roundUp16(ceil(x/t))) for t tiles (about equal, no small
//                             tail); PlanStage1Tiles tries t = ceil(x/2048) .. +15 per axis (lengths >= 128
//                             unless the first) and keeps the shape with the fewest modelled cycles summed
//                             over the chunks (each chunk: its busiest of 24 lanes, tile u on lane u % 24,
//                             tiles costed by Stage1TileCycles under their PlanStage1Matmul plan; plus the
//                             tiles' A and B GM reads at 889 B per cycle, the HBM they share)
//   stage-1 dW matmul tiles:  wTileM x wTileN over [CoutG, CinG*K] per group, chosen like the G tiles (even
//                             splits of CoutG and CinG*K, the fewest modelled cycles of all chunks' grad_weight
//                             phases over the Ka chunks below);
//                             a chunk's rows (<= chunkRows) are split in Ka chunks of wChunkK rows, partial s into
//                             slot s: wSplitK = min(max(ceil(chunkRows/2048), min(ceil(48/wTiles),
//                             max(1, chunkRows/128))), 1 + (B/4) / (Cout*CinG*K*4)) with wTiles = groups x
//                             ceil(CoutG/256) x ceil(CinG*K/256) (about 48 nominal grad_weight units per chunk, Ka
//                             chunks of >= 128 rows), then lowered (PlanStage1Tiles) to the fewest slots, from
//                             ceil(chunkRows/2048) up, whose modelled grad_weight GEMM of one full chunk (busiest
//                             cube lane, plus the next chunk's G GEMM with gRegions = 2) fits within its modelled
//                             sampling (stage-2 units in rounds of 48 lanes x tiles per unit x kStage2TileCycles;
//                             within kWIdleLanesSamplingPct percent of it while the split's units, tiles x Ka
//                             chunks, are fewer than the 24 cube lanes): the GEMM is hidden under phase C, and each
//                             slot beyond the first costs a per-chunk
//                             write and a stage-3 read. wChunkK = ceil(chunkRows/wSplitK). Every slot is written by
//                             chunk 0 (which is full, so it has all wSplitK Ka chunks) and atomically added to by
//                             later chunks; the final stage 3 sums the slots in slot order into grad_weight.
//   gMatmul / wMatmul: TCubeTiling of ONE tile (SetShape = tile, SetOrgShape = full matrices, SetDim =
//   usedVecCores; SetFixSplit base block and the L1 plan (baseK, order, steps, depths) of PlanStage1Matmul:
//   the candidate base with the fewest modelled cycles); the kernel distributes the tiles itself (the vector
//   core of CubeLane l takes tiles l, l+usedVecCores, ...).
// Cores (MIX AIC:AIV = 1:2): blockDim = min(aicNum, ceil(aivNum/2)) blocks (each 1 cube + 2 vector cores
//   at launch), usedVecCores = min(aivNum, 2*blockDim) vector cores take work units; vector cores with
//   index >= usedVecCores only join the SyncAlls and matmul Ends. Tiling key = I/O dtype.
// UB (per vector core, checked against the platform's UB - 8 KiB): stage 0 176 KiB, stage 3 ~176 KiB,
//   stage 2 tile buffers (two tiles in flight; formula in the .cpp, mirrors the kernel's InitBuffer calls)
//   plus the UB window, within the limit by construction (blockC halving, window from the rest).
//
// User workspace (bytes; every region rounded up to 512 B, in this order). R = chunkRows (one chunk;
// rows r = image-in-chunk * qLen + pixel-in-chunk). The input copy [N,H,W,Cin] in T lives in the grad_input
// output (overwritten only by the final stage), so its region is empty:
//   xt     0                        (kept for the layout; 16-bit stage 2 casts the T rows in UB)
//   giacc  pixelBands*A*H*W*Cin*4   grad_input accumulator planes [band][A,H,W,Cin] fp32, A = accImgs (N, or
//                                   chunkImgs = 1 with image-local planes: see pixelBands)
//   g      R*K*Cin*4                dL/dD of the chunk as [image][groups][chunkPix][K][CinG] fp32 (even chunks)
//   g2     (gRegions-1)*R*K*Cin*4   the same for odd chunks when gRegions = 2 (chunk c+1's G GEMM runs
//                                   during chunk c's sampling), else empty
//   got    R*Cout*E                 grad_output of the chunk as [groups][R][CoutG] (T)
//   dcol   R*Cin*K*E                offsetOut of the chunk as [groups][R][CinG*K] (T)
//   gw     wSplitK*Cout*CinG*K*4    grad_weight Ka slots fp32 (slot s: Ka chunk s summed over the chunks)
//   part   R*numBlocks*3*K*4        per-block partial offset/mask gradients of the chunk
//                                   [image][block][3][K][chunkPix] fp32
//   zeroed pixelBands*A*numBlocks*4 per accumulator plane (band, image slot, block): how many of its rows (from
//                                   the top) are zeroed or accumulated, int32 (stage 2 zeroes rows on demand)
//   rec    chunkImgs*pixelBands*dg*recTiles*recFloats*4 (recTiles > 0: shared stage-2 fronts) the chunk's tile
//                                   records [image][band][deformable group][tile][recFloats] fp32: row vectors
//                                   mw_0..3, ly, lx, hy, hx, m and two key rows (rs each), the gather table
// The weight rearranged as [groups][CoutG][K][CinG] (T) lives in the grad_weight output until the final
// stage. Bound: userBytes <= 4*(|grad_input| + |grad_weight|) + WB (60 MiB: extra bands + chunk) + 2 MiB
// (zeroed: beyond it the counts come out of WB, kZeroStateFree) + 2 MiB - 64 KiB (rec, kRecordFree: larger
// record sets are not taken) + 10*512 for every dtype. Total workspace = GetLibApiWorkSpaceSize() + sum of the
// regions; the same formula in Python is tests/python/test_kernel_common.workspace_formula, checked by
// tests/python/test_workspace.py.
#ifndef DEFORMABLE_CONV2D_BACKWARD_TILING_H
#define DEFORMABLE_CONV2D_BACKWARD_TILING_H

#include "exe_graph/runtime/tiling_context.h"
#include "graph/ge_error_codes.h"
#include "register/tilingdata_base.h"
#include "tiling/tiling_api.h"

#include <cstdint>

// Tiling keys (DCN_TILING_KEY_*) and every host<->kernel constant: one definition, in op_kernel.
#include "../op_kernel/dcn_tiling_constants.h"

namespace optiling {

BEGIN_TILING_DATA_DEF(DeformableConv2dBackwardTilingData)
    // ---- 64-bit: shape and attributes
    TILING_DATA_FIELD_DEF(int64_t, n);
    TILING_DATA_FIELD_DEF(int64_t, cin);
    TILING_DATA_FIELD_DEF(int64_t, h);
    TILING_DATA_FIELD_DEF(int64_t, w);
    TILING_DATA_FIELD_DEF(int64_t, cout);
    TILING_DATA_FIELD_DEF(int64_t, kh);
    TILING_DATA_FIELD_DEF(int64_t, kw);
    TILING_DATA_FIELD_DEF(int64_t, ho);
    TILING_DATA_FIELD_DEF(int64_t, wo);
    TILING_DATA_FIELD_DEF(int64_t, strideH);
    TILING_DATA_FIELD_DEF(int64_t, strideW);
    TILING_DATA_FIELD_DEF(int64_t, padTop);
    TILING_DATA_FIELD_DEF(int64_t, padLeft);
    TILING_DATA_FIELD_DEF(int64_t, dilationH);
    TILING_DATA_FIELD_DEF(int64_t, dilationW);
    TILING_DATA_FIELD_DEF(int64_t, groups);
    TILING_DATA_FIELD_DEF(int64_t, deformableGroups);
    // ---- 64-bit: work split
    TILING_DATA_FIELD_DEF(int64_t, segLen);
    TILING_DATA_FIELD_DEF(int64_t, blockC);
    TILING_DATA_FIELD_DEF(int64_t, blocksPerSeg);
    TILING_DATA_FIELD_DEF(int64_t, numBlocks);
    TILING_DATA_FIELD_DEF(int64_t, pixelTile);
    TILING_DATA_FIELD_DEF(int64_t, pixelBands);
    TILING_DATA_FIELD_DEF(int64_t, bandLen);
    TILING_DATA_FIELD_DEF(int64_t, gTileM);
    TILING_DATA_FIELD_DEF(int64_t, gTileN);
    TILING_DATA_FIELD_DEF(int64_t, wTileM);
    TILING_DATA_FIELD_DEF(int64_t, wTileN);
    TILING_DATA_FIELD_DEF(int64_t, wSplitK);
    TILING_DATA_FIELD_DEF(int64_t, wChunkK);
    TILING_DATA_FIELD_DEF(int64_t, winOutRows);
    TILING_DATA_FIELD_DEF(int64_t, winOutCols);
    TILING_DATA_FIELD_DEF(int64_t, winRows);
    TILING_DATA_FIELD_DEF(int64_t, winCols);
    TILING_DATA_FIELD_DEF(int64_t, chunkImgs);
    TILING_DATA_FIELD_DEF(int64_t, chunkOutRows);
    TILING_DATA_FIELD_DEF(int64_t, chunkOutCols);
    TILING_DATA_FIELD_DEF(int64_t, chunkPix);
    TILING_DATA_FIELD_DEF(int64_t, chunkRows);
    TILING_DATA_FIELD_DEF(int64_t, pixChunks);
    TILING_DATA_FIELD_DEF(int64_t, numChunks);
    TILING_DATA_FIELD_DEF(int64_t, gRegions); // 2: chunk c's G in region c % 2 (wsG, wsG2); 1: wsG only
    TILING_DATA_FIELD_DEF(int64_t, accImgs);  // images of the grad_input accumulator planes: N, or chunkImgs (local)
    TILING_DATA_FIELD_DEF(
        int64_t, recTiles); // shared stage-2 tile records per (image, band, deformable group); 0: none
    TILING_DATA_FIELD_DEF(int64_t, recFloats); // floats per record
    // ---- 64-bit: user-workspace byte offsets (from the user workspace base)
    TILING_DATA_FIELD_DEF(uint64_t, wsXt);
    TILING_DATA_FIELD_DEF(uint64_t, wsGiacc);
    TILING_DATA_FIELD_DEF(uint64_t, wsG);
    TILING_DATA_FIELD_DEF(uint64_t, wsG2);
    TILING_DATA_FIELD_DEF(uint64_t, wsGot);
    TILING_DATA_FIELD_DEF(uint64_t, wsDcol);
    TILING_DATA_FIELD_DEF(uint64_t, wsGw);
    TILING_DATA_FIELD_DEF(uint64_t, wsPart);
    TILING_DATA_FIELD_DEF(uint64_t, wsZeroed);
    TILING_DATA_FIELD_DEF(uint64_t, wsRec);
    TILING_DATA_FIELD_DEF(uint64_t, wsUserBytes);
    // ---- 64-bit: UB a vector core may allocate (the kernel's optional buffers: records beside phase A)
    TILING_DATA_FIELD_DEF(uint64_t, ubBytes);
    // ---- 32-bit
    TILING_DATA_FIELD_DEF(uint32_t, usedVecCores); // vector cores [0, usedVecCores) take work units
    TILING_DATA_FIELD_DEF(uint32_t, modulated);    // 1: offset has [dx|dy|mask], 0: [dx|dy]
    // ---- matmul tilings
    TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, gMatmul);  // G  = GO_g[n]^T x Wp_g
    TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, wMatmul);  // dW = GOt_g^T  x Dcol_g
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(DeformableConv2dBackward, DeformableConv2dBackwardTilingData)

ge::graphStatus TilingDeformableConv2dBackward(gert::TilingContext *context);

}  // namespace optiling

#endif  // DEFORMABLE_CONV2D_BACKWARD_TILING_H
