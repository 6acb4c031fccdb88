// Stage 0 (vector): rearrange the inputs of one pixel chunk (DcnParams cN0.., SetChunk; chunk rows
// r = i*qLen + (q - q0) for image n = cN0+i, pixel q) into the user workspace, and a share of the input copy xt
// (XtTiles: the first chunk that of image group 0, every chunk of group g a slice of group g+1's, so that the
// copy's HBM traffic runs in the first phases of the chunks before its use instead of all in the first chunk's,
// which is HBM-bound). The weight is rearranged by a
// prologue of its own (Stage0Part::kWeight, before the first chunk and its SyncAll), so that the G GEMM of
// every chunk can run during that chunk's rearrangement (dcn_stage1_matmul.h, Stage1Feed).
//   prologue only:
//   wp    [groups][CoutG][K][CinG] <- weight [Cout][CinG][K]     (per oc: [CinG][K] -> [K][CinG]; wp is the
//                                   grad_weight output, overwritten only by stage 3)
//   its share (XtTiles):
//   xt    [N][blocks][H,W,len] T <- input [N,Cin,H,W]           (per image and channel block [c0, c0+len):
//                                   [len][HW] -> [HW][len] at (n*Cin + c0)*HW, BlockPixelAt; xt is the
//                                   grad_input output, overwritten only by stage 3)
//   every chunk:
//   got   [groups][chunkRows][CoutG]  <- gradOutput [N][Cout][HoWo] (per (n,g): [CoutG][qLen] -> [qLen][CoutG])
//   dcol  [groups][chunkRows][CinG*K] <- offsetOut [N][Cin][Ho][KH][Wo][KW]
//                                    (per (n,g,ho) of the chunk: [CinG][KH][cols][KW] -> [cols][CinG*KH*KW] in
//                                    rows (i*qLen + (ho-row0)*Wo); rows (cl, kh) in blocks of KH, so a tile of
//                                    whole output rows moves several channels with one DMA each way; with
//                                    DcolKwMajor the row's elements are in (kw, kh, cl) order:
//                                    [CinG][KH][cols*KW] -> [cols*KW][KH*CinG], a plain transpose)
// (The grad_input accumulator planes are zeroed by stage 2, rows on demand: dcn_stage2_sample.h.)
// Work units: tiles of those transposes, enumerated in that order; vector
// core i takes its units in snake order (SnakeUnit). Every unit writes a disjoint GM range, so the result is
// independent of the assignment. Before each of its units a core gives the Matmul feed (if any) a tick.
#ifndef DCN_STAGE0_REARRANGE_H
#define DCN_STAGE0_REARRANGE_H

#include "dcn_transpose.h"
#include "dcn_stage1_matmul.h"

namespace dcn_kernel {

enum class Stage0Part : int32_t { kWeight = 0, kChunk = 1 };

template <typename T>
class Stage0Rearrange {
public:
    __aicore__ inline void Run(
        AscendC::TPipe& pipe, const DcnParams& p, const DcnTensors<T>& t, int64_t aivIdx, Stage0Part part,
        Stage1Feed<T>* feed)
    {
        runner_.Init(pipe);
        const Plan plan = MakePlan(p, part);
        const int64_t mine = SnakeCount(plan.total, aivIdx, p.usedVecCores);
        for (int64_t k = 0; k < mine; ++k) {
            if (feed != nullptr) {
                feed->Tick(k, mine);
            }
            RunUnit(p, t, plan, SnakeUnit(k, aivIdx, p.usedVecCores), runner_);
        }
        pipe.Reset(); // the SyncAll that follows starts with PipeBarrier<PIPE_ALL>
    }

    // The part's work units (tiles of its transposes, in the order above): counts per transpose kind and tiles per
    // job, computed once per stage.
    struct Plan {
        int64_t nX = 0, nW = 0, nG = 0, total = 0; // xt, wp, got tiles; all units (dcol tiles last)
        int64_t x0 = 0;                            // the first xt tile (XtTiles)
        int64_t tw = 0, tg = 0, td = 0;            // tiles of one wp, got, dcol job
    };
    // The xt tiles [x0, x1) of the chunk's first phase, numbered image-major over all N images (BlockTilesPerImage
    // each, LocateBlockTile): chunk c of image group g = c / pixChunks takes slice c mod pixChunks of pixChunks even
    // slices of group g+1's tiles (none in the last group), and chunk 0 also group 0's, which precede them; with one
    // chunk per group, chunk c takes group c's (its first phase precedes its sampling). A group's copy is complete
    // when the first phase of its first chunk ends (SyncAll), before its first sampling; each image's copy lives in
    // its grad_input range, written by nothing else until that image's flush.
    __aicore__ static inline void XtTiles(const DcnParams& p, int64_t& x0, int64_t& x1)
    {
        const int64_t perImage = BlockTilesPerImage<XtJobs>(p);
        const int64_t grp = p.cIdx / p.pixChunks, pc = p.cIdx - grp * p.pixChunks;
        const int64_t g = p.pixChunks == 1 ? grp : grp + 1;
        const int64_t first = MinI(p.n, g * p.chunkImgs) * perImage;
        const int64_t end = MinI(p.n, (g + 1) * p.chunkImgs) * perImage;
        x0 = first + pc * (end - first) / p.pixChunks;
        x1 = first + (pc + 1) * (end - first) / p.pixChunks;
        if (p.cIdx == 0) {
            x0 = 0;
        }
    }
    __aicore__ static inline Plan MakePlan(const DcnParams& p, Stage0Part part)
    {
        const bool prologue = part == Stage0Part::kWeight;
        Plan plan;
        plan.tw = TransposeTileCount(WpJob(p, 0));
        plan.tg = TransposeTileCount(GotJob(p, p.cN0, 0));
        plan.td = TransposeTileCount(DcolJob(p, p.cN0, 0, p.cRow0));
        if (!prologue) {
            int64_t x1 = 0;
            XtTiles(p, plan.x0, x1);
            plan.nX = x1 - plan.x0;
        }
        plan.nW = prologue ? p.cout * plan.tw : 0;
        plan.nG = prologue ? 0 : p.cImgs * p.groups * plan.tg;
        const int64_t nD = prologue ? 0 : p.cImgs * p.groups * p.cRows * plan.td;
        plan.total = plan.nX + plan.nW + plan.nG + nD;
        return plan;
    }

    // Unit u < plan.total through the runner.
    __aicore__ static inline void RunUnit(
        const DcnParams& p, const DcnTensors<T>& t, const Plan& plan, int64_t u, TransposeRunner& runner)
    {
        int64_t v = u;
        if (v < plan.nX) {
            int64_t tile = 0;
            const TransposeJob jx = LocateBlockTile<XtJobs>(p, plan.x0 + v, tile);
            runner.RunTile(t.input, t.xt, jx, tile);
            return;
        }
        v -= plan.nX;
        if (v < plan.nW) {
            runner.RunTile(t.weight, t.wp, WpJob(p, v / plan.tw), v % plan.tw);
            return;
        }
        v -= plan.nW;
        if (v < plan.nG) {
            int64_t m = v / plan.tg;
            runner.RunTile(t.gradOutput, t.got, GotJob(p, p.cN0 + m / p.groups, m % p.groups), v % plan.tg);
            return;
        }
        v -= plan.nG;
        int64_t m = v / plan.td;
        int64_t ho = p.cRow0 + m % p.cRows;
        int64_t ng = m / p.cRows;
        runner.RunTile(t.offsetOut, t.dcol, DcolJob(p, p.cN0 + ng / p.groups, ng % p.groups, ho), v % plan.td);
    }

private:
    // image n, channel block b: input rows [c0, c0+len) x HW -> the block's xt plane [HW][len] (same offset)
    struct XtJobs {
        __aicore__ static inline TransposeJob Make(const DcnParams& p, int64_t n, int64_t b)
        {
            return BlockPlaneJob(p, n, b, true, static_cast<int64_t>(sizeof(T)));
        }
    };
    __aicore__ static inline TransposeJob WpJob(const DcnParams &p, int64_t oc)
    {
        TransposeJob j;
        j.planes = 1; j.planeStride = 0;
        j.srcOffset = oc * p.cinG * p.k; j.dstOffset = oc * p.k * p.cinG;
        j.rows = p.cinG; j.cols = p.k; j.group = 1; j.srcRowStride = p.k; j.dstRowStride = p.cinG;
        j.cap = Cap();
        // narrow rows (K elements, padded to 16 in UB): up to CAP / 16 rows per tile, not 64
        j.maxTileRows = MaxI(64, j.cap / RoundUp(p.k, dcn_tiling::kTransposeRowAlign));
        return j;
    }
    // image n, conv group g: the chunk's pixels [q0, q0+qLen) -> got rows i*qLen + (q - q0)
    __aicore__ static inline TransposeJob GotJob(const DcnParams &p, int64_t n, int64_t g)
    {
        TransposeJob j;
        j.planes = 1; j.planeStride = 0;
        j.srcOffset = (n * p.cout + g * p.coutG) * p.howo + p.cQ0;
        j.dstOffset = (g * p.chunkRows + (n - p.cN0) * p.cQLen) * p.coutG;
        j.rows = p.coutG;
        j.cols = p.cQLen;
        j.group = 1;
        j.srcRowStride = p.howo;
        j.dstRowStride = p.coutG;
        j.cap = Cap();
        return j;
    }
    // image n, conv group gc, output row ho of the chunk: rows (cl, kh) of the group's channels (blocks of KH
    // rows, one per channel), columns [col0, col0+cols) -> dcol rows i*qLen + (ho - row0)*Wo + (ow - col0),
    // element cl*K + kh*KW + kw
    // (DcolKwMajor: rows (kh, cl) in blocks of CinG rows one channel stride apart, columns (ow, kw) of single
    // elements -> dcol rows ..., element kw*KH*CinG + kh*CinG + cl: a plain transpose, by TransDataTo5HD)
    __aicore__ static inline TransposeJob DcolJob(const DcnParams& p, int64_t n, int64_t gc, int64_t ho)
    {
        const int64_t rowLen = p.cinG * p.k;
        TransposeJob j;
        j.planes = 1; j.planeStride = 0;
        j.srcOffset = (((n * p.cin + gc * p.cinG) * p.ho + ho) * p.kh * p.wo + p.cCol0) * p.kw;
        j.dstOffset = (gc * p.chunkRows + (n - p.cN0) * p.cQLen + (ho - p.cRow0) * p.wo) * rowLen;
        if (DcolKwMajor(p)) {
            j.rows = p.kh * p.cinG;
            j.cols = p.cCols * p.kw;
            j.group = 1;
            j.dstRowStride = p.kh * p.cinG;
            j.cap = Cap();
            j.rowBlock = p.cinG;
            j.srcRowStride = p.ho * p.kh * p.wo * p.kw; // the next channel
            j.srcBlockStride = p.wo * p.kw;             // the next kh
            return j;
        }
        j.rows = p.cinG * p.kh;
        j.cols = p.cCols;
        j.group = p.kw;
        j.dstRowStride = rowLen;
        j.cap = Cap();
        if (p.kh == 1) { // one row per channel: plain rows, one channel stride apart
            j.srcRowStride = p.ho * p.wo * p.kw;
        } else {
            j.srcRowStride = p.wo * p.kw;
            j.rowBlock = p.kh;
            j.srcBlockStride = p.ho * p.kh * p.wo * p.kw;
        }
        return j;
    }

    // tile elements of this stage's T -> T transposes (16-bit: twice the elements of fp32 tiles)
    __aicore__ static inline int64_t Cap()
    {
        return TransposeCapFor(static_cast<int64_t>(sizeof(T)), static_cast<int64_t>(sizeof(T)));
    }
    TransposeRunner runner_;
};

}  // namespace dcn_kernel

#endif  // DCN_STAGE0_REARRANGE_H
