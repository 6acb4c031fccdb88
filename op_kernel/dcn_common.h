// Shared kernel-side definitions of DeformableConv2dBackward: shape parameters read from the tiling
// data, the GM views (inputs, outputs, user-workspace regions) and small integer helpers.
// Device-compilable: no standard library, no dynamic allocation, no virtual functions, no recursion.
//
// GM layouts (element units; T = I/O dtype):
//   input [N,Cin,H,W] T; gradOutput [N,Cout,Ho,Wo] T; offsetOut D [N,Cin,Ho*KH,Wo*KW] T;
//   weight [Cout,CinG,KH,KW] T; offset [N,(3|2)*dg*K,Ho,Wo] T; outputs have the shapes of the inputs.
//   Workspace regions: see op_host/deformable_conv2d_backward_tiling.h (G, dcol, got and part hold one pixel
//   chunk; ChunkRange gives the chunk's images and pixels).
#ifndef DCN_COMMON_H
#define DCN_COMMON_H

#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "dcn_tiling_constants.h"

namespace dcn_kernel {

template <typename A, typename B> struct IsSameType { static constexpr bool value = false; };
template <typename A> struct IsSameType<A, A> { static constexpr bool value = true; };

__aicore__ inline int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
__aicore__ inline int64_t RoundUp(int64_t a, int64_t b) { return CeilDiv(a, b) * b; }
__aicore__ inline int64_t MinI(int64_t a, int64_t b) { return a < b ? a : b; }
// Snake order of a stage's units over `lanes` vector cores: the lane's k-th unit is k*lanes + (lane in even rounds,
// lanes-1-lane in odd ones), so units whose cost alternates with their index (a job's full and partial tiles, two job
// kinds) reach every lane alike, and an odd last round fills the high lanes the even rounds' remainders left idle.
// Which lane runs a unit never changes a result (each unit writes its own range, in a fixed order).
__aicore__ inline int64_t SnakeUnit(int64_t k, int64_t lane, int64_t lanes)
{
    return k * lanes + ((k & 1) == 0 ? lane : lanes - 1 - lane);
}
// Units of `total` the lane takes in snake order (0 <= lane < lanes).
__aicore__ inline int64_t SnakeCount(int64_t total, int64_t lane, int64_t lanes)
{
    const int64_t full = total / lanes;
    return full + (SnakeUnit(full, lane, lanes) < total ? 1 : 0);
}
// Units u < total of the lane in round-robin order (u = lane + k*lanes: stage 3).
__aicore__ inline int64_t RoundRobinCount(int64_t total, int64_t lane, int64_t lanes)
{
    return total > lane ? CeilDiv(total - lane, lanes) : 0;
}
// Bits lo..hi-1 of a 64-lane mask (0 <= lo <= hi <= 64): the lanes [lo, hi) of one repeat of 32-bit elements.
__aicore__ inline uint64_t LaneBits(int64_t lo, int64_t hi)
{
    const uint64_t below = hi >= 64 ? ~uint64_t{0} : (uint64_t{1} << hi) - 1;
    return lo >= 64 ? 0 : below & ~((uint64_t{1} << lo) - 1);
}
__aicore__ inline int64_t MaxI(int64_t a, int64_t b) { return a > b ? a : b; }


// Shape, attributes and work split (copied from the tiling data; all int64).
struct DcnParams {
    int64_t n, cin, h, w, cout, kh, kw, ho, wo;
    int64_t strideH, strideW, padTop, padLeft, dilationH, dilationW, groups, dg;
    int64_t k, howo, cinG, coutG, cinDg, offsetBlocks;  // derived
    int64_t segLen, blockC, blocksPerSeg, numBlocks, pixelTile, pixelBands, bandLen, giaccPlane;
    int64_t gTileM, gTileN, wTileM, wTileN, wSplitK, wChunkK;
    int64_t winOutRows, winOutCols, winRows, winCols;  // stage-2 UB window (0 = none)
    int64_t chunkImgs, chunkOutRows, chunkOutCols, chunkPix, chunkRows, pixChunks, numChunks; // pixel chunks
    int64_t gRegions; // 2: chunk c's G is in region c % 2 and computed during chunk c-1's sampling
    // images of the grad_input accumulator planes (tiling accImgs): n, or chunkImgs (image-local planes: image n at
    // n % accImgs; a group's planes go to grad_input after its last chunk, AccFlushAfter)
    int64_t accImgs;
    // shared stage-2 tile records (tiling recTiles, recFloats; 0: none): record seq of (image i of the chunk, band j,
    // deformable group d) at ((i * pixelBands + j) * dg + d) * recTiles + seq, recFloats floats each
    int64_t recTiles, recFloats;
    // the current chunk (SetChunk): images [cN0, cN0+cImgs), pixels [cQ0, cQ0+cQLen) of each, output rows
    // [cRow0, cRow0+cRows) x columns [cCol0, cCol0+cCols); cR = cImgs*cQLen rows; cIdx = chunk index
    int64_t cIdx, cN0, cImgs, cQ0, cQLen, cRow0, cRows, cCol0, cCols, cR;
    int64_t usedVecCores;
    int64_t ubBytes; // UB the kernel may allocate per vector core (tiling ubBytes)
    bool modulated;
};

template <typename TD>
__aicore__ inline void LoadParams(const TD &td, DcnParams &p)
{
    p.n = td.n; p.cin = td.cin; p.h = td.h; p.w = td.w; p.cout = td.cout; p.kh = td.kh; p.kw = td.kw;
    p.ho = td.ho; p.wo = td.wo; p.strideH = td.strideH; p.strideW = td.strideW; p.padTop = td.padTop;
    p.padLeft = td.padLeft; p.dilationH = td.dilationH; p.dilationW = td.dilationW; p.groups = td.groups;
    p.dg = td.deformableGroups;
    p.k = p.kh * p.kw; p.howo = p.ho * p.wo; p.cinG = p.cin / p.groups; p.coutG = p.cout / p.groups;
    p.cinDg = p.cin / p.dg; p.modulated = td.modulated != 0; p.offsetBlocks = p.modulated ? 3 : 2;
    p.segLen = td.segLen; p.blockC = td.blockC; p.blocksPerSeg = td.blocksPerSeg; p.numBlocks = td.numBlocks;
    p.pixelTile = td.pixelTile; p.pixelBands = td.pixelBands; p.bandLen = td.bandLen;
    p.accImgs = td.accImgs;
    p.recTiles = td.recTiles;
    p.recFloats = td.recFloats;
    p.ubBytes = static_cast<int64_t>(td.ubBytes);
    p.giaccPlane = p.accImgs * p.h * p.w * p.cin;
    p.gTileM = td.gTileM;
    p.gTileN = td.gTileN;
    p.wTileM = td.wTileM;
    p.wTileN = td.wTileN; p.wSplitK = td.wSplitK; p.wChunkK = td.wChunkK; p.usedVecCores = td.usedVecCores;
    p.winOutRows = td.winOutRows;
    p.winOutCols = td.winOutCols;
    p.winRows = td.winRows;
    p.winCols = td.winCols;
    p.chunkImgs = td.chunkImgs;
    p.chunkOutRows = td.chunkOutRows;
    p.chunkOutCols = td.chunkOutCols;
    p.chunkPix = td.chunkPix;
    p.chunkRows = td.chunkRows;
    p.pixChunks = td.pixChunks;
    p.numChunks = td.numChunks;
    p.gRegions = td.gRegions;
    p.cIdx = -1;
    p.cN0 = 0;
    p.cImgs = 0;
    p.cQ0 = 0;
    p.cQLen = 0;
    p.cRow0 = 0;
    p.cRows = 0;
    p.cCol0 = 0;
    p.cCols = 0;
    p.cR = 0;
}

// Chunk c (0 <= c < numChunks; tiling header "pixel chunks") -> the current-chunk fields of p. Its pixels
// form one contiguous range of every image: whole output rows (chunkOutCols == Wo) or a piece of one row.
__aicore__ inline void SetChunk(DcnParams& p, int64_t c)
{
    const int64_t grp = c / p.pixChunks, pc = c - grp * p.pixChunks;
    const int64_t colChunks = CeilDiv(p.wo, p.chunkOutCols);
    const int64_t rc = pc / colChunks, cc = pc - rc * colChunks;
    p.cIdx = c;
    p.cN0 = grp * p.chunkImgs;
    p.cImgs = MinI(p.chunkImgs, p.n - p.cN0);
    p.cRow0 = rc * p.chunkOutRows;
    p.cRows = MinI(p.chunkOutRows, p.ho - p.cRow0);
    p.cCol0 = cc * p.chunkOutCols;
    p.cCols = MinI(p.chunkOutCols, p.wo - p.cCol0);
    p.cQ0 = p.cRow0 * p.wo + p.cCol0;
    p.cQLen = (p.cRows - 1) * p.wo + p.cCols;
    p.cR = p.cImgs * p.cQLen;
}

// Row of the chunk's G region for image n, conv group gc, output pixel q (of the current chunk).
__aicore__ inline int64_t ChunkGRow(const DcnParams& p, int64_t n, int64_t gc, int64_t q)
{
    return ((n - p.cN0) * p.groups + gc) * p.chunkPix + (q - p.cQ0);
}

// Stage 2 stores its offset/mask partials straight into grad_offset (no fold) when every deformable group
// is one channel block (nothing to sum over blocks), the output is fp32 (no cast; elt = sizeof(T)) and there
// are several pixel chunks: then each chunk's fold would run in the next chunk's HBM-bound first phase
// (BasicVSR++ 11.6 -> 11.9 % by the model). With one chunk the fold runs once at the end, and the direct
// store's one DMA per partial block and tile holds up stage 2 more than the fold costs (EDVR L3 9.9 -> 9.8 %).
__aicore__ inline bool DirectOffsetGrads(const DcnParams& p, int64_t elt)
{
    return elt == 4 && (p.cinDg / p.segLen) * p.blocksPerSeg == 1 && p.numChunks > 1;
}

// Element of the chunk's part region: image n, block b, partial j (dx, dy, mask), kernel point k, pixel q.
// Two layouts of the same (n, b, j) slabs of K x chunkPix elements: planes [k][q] (ChunkPartAt), or, with
// RowOrderParts, stage 2's row order [q][k] (ChunkPartRowAt: a tile's rows (pixel, kernel point) are one run),
// which the fold transposes once per deformable group instead of every block per tile.
__aicore__ inline int64_t ChunkPartAt(const DcnParams& p, int64_t n, int64_t b, int64_t j, int64_t k, int64_t q)
{
    return ((((n - p.cN0) * p.numBlocks + b) * 3 + j) * p.k + k) * p.chunkPix + (q - p.cQ0);
}
__aicore__ inline int64_t ChunkPartRowAt(const DcnParams& p, int64_t n, int64_t b, int64_t j, int64_t q)
{
    return (((n - p.cN0) * p.numBlocks + b) * 3 + j) * p.k * p.chunkPix + (q - p.cQ0) * p.k;
}

// The part region in row order (ChunkPartRowAt) when the partials are folded (not DirectOffsetGrads), a stage-2
// tile holds every kernel point (K <= kStage2MaxKt) and a deformable group has several channel blocks: the fold
// then transposes each group's sum once instead of three row -> plane Gathers per tile in every block. With one
// block per group the fold only moves the rows, and the Gathers cost the scalar-bound tiles of those rows less than
// the fold's transposes (EDVR / BasicVSR++ fp16 +1.1 / +1.4 % when taken).
__aicore__ inline bool RowOrderParts(const DcnParams& p, int64_t elt)
{
    return !DirectOffsetGrads(p, elt) && p.k <= dcn_tiling::kStage2MaxKt && (p.cinDg / p.segLen) * p.blocksPerSeg > 1;
}

// All GM views used by the stages.
template <typename T>
struct DcnTensors {
    AscendC::GlobalTensor<T> input, gradOutput, offsetOut, weight, offset;
    AscendC::GlobalTensor<T> gradInput, gradWeight, gradOffset, gradBias;
    AscendC::GlobalTensor<float> giacc, g, gw, part; // g: the G region of the chunk being worked on
    AscendC::GlobalTensor<T> xt, wp, got, dcol;
    AscendC::GlobalTensor<float> gEven, gOdd; // the G regions (gOdd == gEven when gRegions == 1)
    AscendC::GlobalTensor<int32_t> zeroed;    // per accumulator plane: its rows zeroed so far (stage 2)
    AscendC::GlobalTensor<float> rec;         // the chunk's shared stage-2 tile records (DcnParams recTiles)
};

// The G region of chunk c.
template <typename T>
__aicore__ inline AscendC::GlobalTensor<float> ChunkG(const DcnParams& p, const DcnTensors<T>& t, int64_t c)
{
    return (p.gRegions > 1 && (c & 1) != 0) ? t.gOdd : t.gEven;
}

// One-shot ordering point between two pipes (e.g. V_S: vector results visible to the scalar unit):
// the event id comes from the pipe (FetchEventID), so it never collides with the queues' own events.
template <AscendC::HardEvent EVT>
__aicore__ inline void PipeSync()
{
    AscendC::TEventID id = GetTPipePtr()->template FetchEventID<EVT>();
    AscendC::SetFlag<EVT>(id);
    AscendC::WaitFlag<EVT>(id);
}

// Offset tables that grow linearly by units: t[u*unit + q] = t[q] + u*inc for 0 < u < units, from the first
// unit t[0, unit) (already written and ordered before the vector pipe). Each Adds doubles the units built
// (log2(units) vector instructions instead of a scalar write per entry); ends with PipeBarrier<PIPE_V>, so
// later vector reads of t see every entry.
__aicore__ inline void ExtendByDoubling(
    const AscendC::LocalTensor<int32_t>& t, int64_t unit, int64_t units, int64_t inc)
{
    for (int64_t k = 1; k < units; k *= 2) {
        AscendC::Adds(t[k * unit], t, static_cast<int32_t>(k * inc), static_cast<int32_t>(MinI(k, units - k) * unit));
        AscendC::PipeBarrier<PIPE_V>(); // the next doubling (or the table's reader) reads these entries
    }
}

// Lane of vector core i (0 <= i < used) for work that runs on the cube cores (stage 1): a block's two
// vector cores are 2b and 2b+1 and share one cube core, so lanes 0, 1, ... go to the first vector core of
// blocks 0, 1, ... before any second one: lane = (i % 2) * ceil(used / 2) + i / 2, a permutation of
// [0, used). Unit u runs on the core whose lane is u % used; results never depend on it (units are disjoint).
__aicore__ inline int64_t CubeLane(int64_t i, int64_t used) { return (i % 2) * CeilDiv(used, 2) + i / 2; }

// Channel block b (0 <= b < numBlocks) of one image: first channel and channel count.
__aicore__ inline void BlockRange(const DcnParams &p, int64_t b, int64_t &c0, int64_t &len)
{
    int64_t seg = b / p.blocksPerSeg;
    int64_t j = b - seg * p.blocksPerSeg;
    c0 = seg * p.segLen + j * p.blockC;
    len = MinI(p.blockC, p.segLen - j * p.blockC);
}

// Elements from BlockPixelAt(p, n, ...) to image n's place in the accumulator planes (0 unless image-local).
__aicore__ inline int64_t AccShift(const DcnParams& p, int64_t n) { return (n - n % p.accImgs) * p.cin * p.h * p.w; }

// Image-local planes: the current chunk is its image group's last, so its planes go to grad_input (and are zeroed)
// in the phase after its sampling (stage 3's fold of the chunk).
__aicore__ inline bool AccFlushAfter(const DcnParams& p)
{
    return p.accImgs < p.n && p.cIdx % p.pixChunks == p.pixChunks - 1;
}

// dcol's columns per conv group in (kw, kh, channel) order instead of (channel, kh, kw): stage 0 then moves it by
// plain transposes (rows (kh, channel) -> columns (wo, kw): TransDataTo5HD instead of a Gather of KW-element
// groups), and stage 3 writes grad_weight from the slots through a transpose that restores (channel, kh, kw)
// (WeightPiece, slower than the plain slot sum). Taken for kernels of at most kDcolKwMajorMaxK points and groups of
// at least kDcolKwMajorMinCinG channels (a transpose tile of stage 0 holds the channels of one kh), where the
// rearrangement can bind its phase: the G GEMM runs elsewhere (gRegions = 2) or does at most
// kDcolKwMajorMaxCoutG MACs per dcol element (scripts/perf_model.py, session 23: the rows with CoutG 256 and 512
// and the G GEMM beside the rearrangement gain nothing and lose 0.4-2 % to WeightPiece). A function of the plan.
constexpr int64_t kDcolKwMajorMaxK = 64;
constexpr int64_t kDcolKwMajorMinCinG = 16;
constexpr int64_t kDcolKwMajorMaxCoutG = 128;
__aicore__ inline bool DcolKwMajor(const DcnParams& p)
{
    return p.k <= kDcolKwMajorMaxK && p.cinG >= kDcolKwMajorMinCinG &&
           (p.gRegions > 1 || p.coutG <= kDcolKwMajorMaxCoutG);
}

// xt and the giacc band planes are channel-block-major: image n, channel block [c0, c0+len) is one plane of
// H*W pixels x len channels (pixel stride len) at element (n*Cin + c0)*H*W. A stage-2 window of the block is
// then rows x (cols*len) with a fixed row stride (one DMA), and the planes tile [N][Cin][H][W] exactly.
__aicore__ inline int64_t BlockPixelAt(const DcnParams& p, int64_t n, int64_t c0, int64_t len, int64_t y, int64_t x)
{
    return (n * p.cin + c0) * p.h * p.w + (y * p.w + x) * len;
}

}  // namespace dcn_kernel

#endif  // DCN_COMMON_H
