// Stage 3 (vector): fold one pixel chunk's partials (DcnParams cN0.., SetChunk) and, in the final call,
// combine and convert to the output dtype T.
//   fold (every chunk; for chunk c it runs in the first phase of chunk c+1, for the last chunk in the final
//   call):
//   grad_offset[n][j*dg*K + dgi*K + k][q] = sum over the blocks b of deformable group dgi, in block order,
//                                           of part[n][b][j][k][q]     (j = dx, dy[, mask]; q in the chunk;
//                                           RowOrderParts: part[n][b][j][q][k], summed per pixel piece by
//                                           halving, a fixed order too: SumInto; then transposed: FoldRows)
//   final call only:
//   grad_weight = sum over the wSplitK slots s, in order, of gw[s] (slot s holds Ka chunk s summed over the
//                 pixel chunks in chunk order by stage 1; chunk 0 has every Ka chunk), cast; with DcolKwMajor the
//                 slots' columns are (kw, kh, cl) and WeightPiece transposes them back to (cl, kh, kw)
//   grad_input[n][c][y][x] = sum over bands j, in order, of giacc[j] at BlockPixelAt(n, block of c, y, x) + c - c0
//                            (per image and channel block: [HW][len] -> [len][HW], transpose + cast); with
//                            image-local planes (accImgs < N) also in the fold of an image group's last chunk, for
//                            the group's images (AccFlushAfter; the next group's stage 2 zeroes rows on demand)
//   grad_bias[oc] = sum over n, then pixels in 2048-element chunks, of gradOutput[n][oc][p]
//                   (lane-wise fp32 accumulation in a fixed order, then ReduceSum)
// Units (enumerated in this order, vector core i takes i, i+usedVecCores, ...): pixel pieces x offset rows
// (or, for short chunk rows, runs of kernel points of one (image, j, deformable group): FoldKGroup),
// grad_weight pieces, then (final) grad_input transpose tiles and grad_bias channels; a core runs its grad_input tiles
// merged in proportion with its other units (the tiles' DMAs beside the others' vector work). Each unit writes a
// disjoint range and its summation order is fixed by the shape, so results do not depend on the core count or the
// order of the units.
#ifndef DCN_STAGE3_FINALIZE_H
#define DCN_STAGE3_FINALIZE_H

#include "dcn_transpose.h"

namespace dcn_kernel {

// Row pitch (elements) a grouped fold unit reserves per row: 32-B rows of fp32 and of 16-bit outputs
constexpr int64_t kFoldPitch = 16;

template <typename T>
class Stage3Finalize {
public:
    __aicore__ inline void Run(
        AscendC::TPipe& pipe, const DcnParams& p, const DcnTensors<T>& t, int64_t aivIdx, bool final)
    {
        InitBuffers(pipe);
        const int64_t nOff = FoldUnits(p);
        const int64_t wElems = p.cout * p.cinG * p.k;
        // grad_weight pieces of about wElems / kTargetUnits elements (at most a reduction chunk): on small weights
        // a piece's wSplitK slot rows then come several per DMA (SumRows) and the pieces fill the lanes
        const int64_t wPiece = MinI(dcn_tiling::kReduceChunk, RoundUp(CeilDiv(wElems, dcn_tiling::kTargetUnits), 8));
        // (DcolKwMajor: pieces of one output channel's wChans channels, each through WeightPiece's transpose)
        const bool kwMajor = DcolKwMajor(p);
        const int64_t wChans = kwMajor ? WeightPieceChannels(p) : 0;
        const int64_t wPerOc = kwMajor ? CeilDiv(p.cinG, wChans) : 0;
        const int64_t nW = !final ? 0 : kwMajor ? p.cout * wPerOc : CeilDiv(wElems, wPiece);
        // grad_input: every image at the end, or with image-local planes the images of the chunk's group after its
        // last chunk and at the end
        const bool flush = final || AccFlushAfter(p);
        const bool localAcc = p.accImgs < p.n;
        const int64_t in0 = localAcc ? p.cN0 : 0, inImgs = localAcc ? p.cImgs : p.n;
        const int64_t nIn = flush ? inImgs * BlockTilesPerImage<GradInputJobs>(p) : 0;
        const int64_t nB = final ? p.cout : 0;
        const int64_t total = nOff + nW + nIn + nB;

        // this core's units (u = aivIdx + k * lanes): its grad_input tiles (DMA-bound) merged in proportion with its
        // other units (vector-bound), a tile first at equal shares, so that the vector work runs beside the tiles'
        // loads and stores
        const int64_t lanes = p.usedVecCores, inFirst = nOff + nW;
        const int64_t mine = RoundRobinCount(total, aivIdx, lanes);
        const int64_t before = RoundRobinCount(inFirst, aivIdx, lanes); // this core's units before its tiles
        const int64_t mineIn = RoundRobinCount(inFirst + nIn, aivIdx, lanes) - before;
        const int64_t mineOther = mine - mineIn;
        int64_t doneIn = 0, doneOther = 0;
        for (int64_t m = 0; m < mine; ++m) {
            const bool tile = doneIn < mineIn && (doneOther == mineOther || doneIn * mineOther <= doneOther * mineIn);
            const int64_t k = tile ? before + doneIn : (doneOther < before ? doneOther : doneOther + mineIn);
            if (tile) {
                ++doneIn;
            } else {
                ++doneOther;
            }
            const int64_t u = aivIdx + k * lanes;
            if (m > 0) {
                AscendC::PipeBarrier<PIPE_V>(); // the previous unit's vector reads of acc precede its next writes
            }
            int64_t v = u;
            if (v < nOff) {
                FoldUnit(p, t, v);
                continue;
            }
            v -= nOff;
            if (v < nW && kwMajor) {
                const int64_t c0 = (v % wPerOc) * wChans;
                WeightPiece(p, t, v / wPerOc, c0, MinI(wChans, p.cinG - c0));
                continue;
            }
            if (v < nW) {
                int64_t e0 = v * wPiece;
                const int64_t cnt = MinI(wPiece, wElems - e0);
                SumRows(t.gw, e0, wElems, p.wSplitK, cnt, t.gradWeight, e0);
                continue;
            }
            v -= nW;
            if (v < nIn) {
                int64_t tile = 0;
                const TransposeJob jt = LocateBlockTile<GradInputJobs>(p, v, tile, in0);
                runner_.RunTile(t.giacc, t.gradInput, jt, tile);
                continue;
            }
            v -= nIn;
            GradBias(p, t, v);
        }
        // No PipeBarrier<PIPE_ALL>: after the final run the TPipe's Destroy ends with one. After a fold the
        // next chunk's stage 0 (no zero buffer after chunk 0) uses only the UB of its TransposeRunner (the
        // addresses of runner_ here, which a fold does not touch unless it writes a group's grad_input: then the
        // barrier below) and GM this stage does not access; the SyncAll after it drains every pipe.
        if (nIn > 0 && !final) {
            AscendC::PipeBarrier<PIPE_ALL>();
        }
        pipe.Reset();
    }

    // The UB of every unit kind (the transpose runner first: a later stage 0 after pipe.Reset uses the same addresses).
    // leanRunner: the runner carries only the rearrangement's tiles (phase A beside the records: TransposeRunner lean).
    __aicore__ inline void InitBuffers(AscendC::TPipe& pipe, bool leanRunner = false)
    {
        // (UbBytes: the same buffers)
        runner_.Init(pipe, leanRunner, static_cast<int64_t>(sizeof(T)));
        pipe.InitBuffer(inQue_, 2, dcn_tiling::kReduceChunk * 4);
        pipe.InitBuffer(outQue_, 2, dcn_tiling::kReduceChunk * 4);
        pipe.InitBuffer(accBuf_, dcn_tiling::kReduceChunk * 4);
        pipe.InitBuffer(castBuf_, dcn_tiling::kReduceChunk * 4);
        pipe.InitBuffer(redBuf_, 64 * 4);
        pipe.InitBuffer(tabBuf_, dcn_tiling::kFoldTable * 4);
        tabPix_ = 0; // no transpose table built yet
    }
    // UB bytes of InitBuffers(pipe, leanRunner).
    __aicore__ static inline int64_t UbBytes(bool leanRunner)
    {
        return TransposeRunner::UbBytes(leanRunner, static_cast<int64_t>(sizeof(T))) + dcn_tiling::kStage3OwnUbBytes;
    }
    // Fold units of the chunk p describes (0 when stage 2 stored the offset gradients itself); sets the fold's shape.
    __aicore__ inline int64_t FoldUnits(const DcnParams& p)
    {
        fold_.offCh = p.offsetBlocks * p.dg * p.k;
        fold_.pixPieces = CeilDiv(p.cQLen, dcn_tiling::kReduceChunk);
        fold_.blocksPerDg = (p.cinDg / p.segLen) * p.blocksPerSeg;
        fold_.kGroup = FoldKGroup(p, fold_.blocksPerDg);
        fold_.kGroups = CeilDiv(p.k, fold_.kGroup);
        fold_.rowParts = RowOrderParts(p, static_cast<int64_t>(sizeof(T)));
        fold_.foldPix = fold_.rowParts ? FoldPixels(p, fold_.blocksPerDg) : 0;
        const int64_t foldPieces = fold_.rowParts ? CeilDiv(p.cQLen, fold_.foldPix) : 0;
        return DirectOffsetGrads(p, static_cast<int64_t>(sizeof(T))) ? 0 : // stage 2 stored them
                   fold_.rowParts ? p.cImgs * p.offsetBlocks * p.dg * foldPieces :
               fold_.kGroup > 1   ? p.cImgs * p.offsetBlocks * p.dg * fold_.kGroups :
                                    p.cImgs * fold_.offCh * fold_.pixPieces;
    }
    // Fold unit v < FoldUnits(p) (after FoldUnits(p)): one range of grad_offset rows, summed over the group's blocks.
    __aicore__ inline void FoldUnit(const DcnParams& p, const DcnTensors<T>& t, int64_t v)
    {
        const int64_t offCh = fold_.offCh, blocksPerDg = fold_.blocksPerDg;
        if (fold_.rowParts) { // pixel piece of (image, j, deformable group), piece-major like the rows
            const int64_t jobs = p.cImgs * p.offsetBlocks * p.dg, piece = v / jobs, jb = v % jobs;
            const int64_t n = p.cN0 + jb / (p.offsetBlocks * p.dg), jd = jb % (p.offsetBlocks * p.dg);
            const int64_t q = p.cQ0 + piece * fold_.foldPix;
            FoldRows(p, t, n, jd / p.dg, jd % p.dg, blocksPerDg, q, MinI(fold_.foldPix, p.cQ0 + p.cQLen - q));
            return;
        }
        if (fold_.kGroup > 1) { // kernel points k0 .. k0+kr-1 of (image, j, deformable group), all pixels
            const int64_t kGroup = fold_.kGroup, kGroups = fold_.kGroups;
            const int64_t kg = v % kGroups, jd = (v / kGroups) % (p.offsetBlocks * p.dg);
            const int64_t n = p.cN0 + v / kGroups / (p.offsetBlocks * p.dg);
            const int64_t j = jd / p.dg, dgi = jd % p.dg, k0 = kg * kGroup, kr = MinI(kGroup, p.k - k0);
            const int64_t r = j * p.dg * p.k + dgi * p.k + k0;
            SumRowGroup(
                t.part, ChunkPartAt(p, n, dgi * blocksPerDg, j, k0, p.cQ0), 3 * p.k * p.chunkPix, blocksPerDg, kr,
                p.chunkPix, p.cQLen, t.gradOffset, (n * offCh + r) * p.howo + p.cQ0, p.howo);
            return;
        }
        // piece-major: a chunk's last piece is short, and row-major units would give every short piece
        // to the same half of the lanes (pixPieces = 2 and an even lane count)
        const int64_t offRows = p.cImgs * offCh;
        int64_t piece = v / offRows, row = v % offRows;
        int64_t n = p.cN0 + row / offCh, r = row % offCh;
        int64_t j = r / (p.dg * p.k), rem = r % (p.dg * p.k);
        int64_t dgi = rem / p.k, k = rem % p.k;
        int64_t q = p.cQ0 + piece * dcn_tiling::kReduceChunk;
        int64_t cnt = MinI(dcn_tiling::kReduceChunk, p.cQ0 + p.cQLen - q);
        int64_t first = ChunkPartAt(p, n, dgi * blocksPerDg, j, k, q);
        SumRows(t.part, first, 3 * p.k * p.chunkPix, blocksPerDg, cnt, t.gradOffset, (n * offCh + r) * p.howo + q);
    }
    // The transposes of this stage's buffers (phase A: the next chunk's rearrangement tiles run through it).
    __aicore__ inline TransposeRunner& Runner() { return runner_; }

private:
    // image n, channel block b: the block's giacc planes [HW][len] (summed over the bands, band order) ->
    // grad_input rows [c0, c0+len) x HW (same offset); narrow blocks take up to kTransposeCap / 8 rows per tile
    struct GradInputJobs {
        __aicore__ static inline TransposeJob Make(const DcnParams& p, int64_t n, int64_t b)
        {
            TransposeJob j = BlockPlaneJob(p, n, b, false, static_cast<int64_t>(sizeof(T)));
            j.srcOffset -= static_cast<uint64_t>(AccShift(p, n)); // image n's place in the (image-local) planes
            return j;
        }
    };

    // Kernel points per fold unit: 1 (a unit folds one offset row, its short rows of several blocks per DMA),
    // or kr > 1 consecutive kernel points of one (image, j, deformable group) when the chunk's pixels fit one
    // reduction chunk kr times and the busiest of kTargetUnits lanes then issues fewer DMAs (one per block
    // for the kr rows, one for the output): rows of a chunk's pixels are short on small layers (EDVR L3: 256
    // pixels, one unit of 2 DMAs per row before). A function of the chunk's shape only; the per-element
    // block order is the same either way.
    __aicore__ static inline int64_t FoldKGroup(const DcnParams& p, int64_t blocks)
    {
        if (p.cQLen > dcn_tiling::kReduceChunk) {
            return 1;
        }
        const int64_t kr = MinI(p.k, dcn_tiling::kReduceChunk / RoundUp(p.cQLen, kFoldPitch));
        const int64_t perDma = dcn_tiling::kReduceChunk / RoundUp(p.cQLen, dcn_tiling::kUbBlockBytes / 4);
        const int64_t rowsPerKr = p.cImgs * p.offsetBlocks * p.dg; // units per kernel point (group)
        const int64_t byRow = CeilDiv(rowsPerKr * p.k, dcn_tiling::kTargetUnits) * (CeilDiv(blocks, perDma) + 1);
        const int64_t byGroup = CeilDiv(rowsPerKr * CeilDiv(p.k, kr), dcn_tiling::kTargetUnits) * (blocks + 1);
        return kr > 1 && byGroup < byRow ? kr : 1;
    }

    // dst[dstOff + i*dstRowStride + e] = D( sum_{b < blocks, in order} src[first + b*blockStride + i*srcRowStride + e]
    // ) for rows i < rows and e < cnt (rows * RoundUp(cnt, kFoldPitch) <= dcn_tiling::kReduceChunk): a block's rows
    // come with one DMA (32-B aligned rows in UB, their pad lanes copies of the row's first element), the
    // blocks are added over the whole rows, and the rows go out with one DMA (32-B aligned rows of D).
    template <typename D>
    __aicore__ inline void SumRowGroup(
        const AscendC::GlobalTensor<float>& src, int64_t first, int64_t blockStride, int64_t blocks, int64_t rows,
        int64_t srcRowStride, int64_t cnt, const AscendC::GlobalTensor<D>& dst, int64_t dstOff, int64_t dstRowStride)
    {
        AscendC::LocalTensor<float> acc = accBuf_.Get<float>();
        const int64_t pitch = RoundUp(cnt, dcn_tiling::kUbBlockBytes / 4); // fp32 rows in UB
        const int64_t outPitch = RoundUp(cnt, dcn_tiling::kUbBlockBytes / static_cast<int64_t>(sizeof(D)));
        const int32_t lanes = static_cast<int32_t>(rows * pitch);
        SumBlockRows(src, first, blockStride, blocks, rows, srcRowStride, cnt);
        AscendC::LocalTensor<D> out = outQue_.AllocTensor<D>();
        if constexpr (IsSameType<D, float>::value) {
            AscendC::Adds(out, acc, 0.0f, lanes);
        } else if (outPitch == pitch) {
            AscendC::Cast(out, acc, AscendC::RoundMode::CAST_RINT, static_cast<uint32_t>(lanes));
        } else { // 16-bit rows are 16-element aligned: one Cast per row
            for (int64_t i = 0; i < rows; ++i) {
                AscendC::Cast(
                    out[i * outPitch], acc[i * pitch], AscendC::RoundMode::CAST_RINT, static_cast<uint32_t>(cnt));
            }
        }
        outQue_.EnQue(out);
        out = outQue_.DeQue<D>();
        const int64_t elt = static_cast<int64_t>(sizeof(D));
        AscendC::DataCopyPad(dst[dstOff], out, RowsParams(rows, cnt * elt, 0, (dstRowStride - cnt) * elt));
        outQue_.FreeTensor(out);
    }

    // acc[i*pitch + e] = sum_{b < blocks, in order} src[first + b*blockStride + i*srcRowStride + e] for rows i < rows,
    // e < cnt (pitch = roundup(cnt, 8); rows * pitch <= kReduceChunk): a block's rows come with one DMA (32-B aligned
    // rows in UB, their pad lanes copies of the row's first element), the blocks are added over the whole rows.
    __aicore__ inline void SumBlockRows(
        const AscendC::GlobalTensor<float>& src, int64_t first, int64_t blockStride, int64_t blocks, int64_t rows,
        int64_t srcRowStride, int64_t cnt)
    {
        AscendC::DataCopyPadExtParams<float> noPad;
        AscendC::LocalTensor<float> acc = accBuf_.Get<float>();
        const int32_t lanes = static_cast<int32_t>(rows * RoundUp(cnt, dcn_tiling::kUbBlockBytes / 4));
        const AscendC::DataCopyExtParams cp = RowsParams(rows, cnt * 4, (srcRowStride - cnt) * 4, 0);
        for (int64_t b = 0; b < blocks; ++b) {
            AscendC::LocalTensor<float> in = inQue_.AllocTensor<float>();
            AscendC::DataCopyPad(in, src[first + b * blockStride], cp, noPad);
            inQue_.EnQue(in);
            in = inQue_.DeQue<float>();
            if (b == 0) {
                AscendC::Adds(acc, in, 0.0f, lanes);
            } else {
                AscendC::Add(acc, acc, in, lanes);
            }
            AscendC::PipeBarrier<PIPE_V>();
            inQue_.FreeTensor(in);
        }
    }

    // Channels per WeightPiece: at most 128 (the transposed rows fit the cast buffer), and the K rows of the
    // slots' piece fit a reduction chunk.
    __aicore__ static inline int64_t WeightPieceChannels(const DcnParams& p)
    {
        const int64_t kOut = RoundUp(p.k, dcn_tiling::kTransposeRowAlign);
        int64_t ch = MinI(128, dcn_tiling::kReduceChunk / kOut);
        ch = MinI(ch, dcn_tiling::kReduceChunk / p.k) / 8 * 8;
        return MinI(MaxI(8, ch), p.cinG);
    }

    // grad_weight[oc][c0 + i][kh][kw] = T( sum over the slots s, in order, of gw[s][oc][kw][kh][c0 + i] ) for i < cnt
    // (DcolKwMajor): the slots' K rows (kw, kh) of cnt channels are summed (SumBlockRows, one DMA per slot), one
    // TransDataTo5HD per 16 output lanes moves them to rows of RoundUp(K, 16) lanes in (kh, kw) order
    // (BlockTransposeRowGroups with KernelAxesSwap; lanes past K repeat row 0, never stored), and the cnt rows of K
    // elements (contiguous in grad_weight) go out with one DMA. Every element is the same sum as SumRows'.
    __aicore__ inline void WeightPiece(const DcnParams& p, const DcnTensors<T>& t, int64_t oc, int64_t c0, int64_t cnt)
    {
        const int64_t wElems = p.cout * p.cinG * p.k;
        const int64_t pitch = RoundUp(cnt, dcn_tiling::kUbBlockBytes / 4);
        const int64_t kOut = RoundUp(p.k, dcn_tiling::kTransposeRowAlign);
        SumBlockRows(t.gw, oc * p.cinG * p.k + c0, wElems, p.wSplitK, p.k, p.cinG, cnt);
        AscendC::LocalTensor<float> acc = accBuf_.Get<float>();
        AscendC::LocalTensor<float> tr = castBuf_.Get<float>(); // [pitch][kOut]
        BlockTransposeRowGroups(tr, acc, 0, p.k, pitch / 8, pitch, kOut, KernelAxesSwap{p.kh, p.kw});
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::LocalTensor<T> out = outQue_.AllocTensor<T>();
        const int32_t lanes = static_cast<int32_t>(cnt * kOut);
        if constexpr (IsSameType<T, float>::value) {
            AscendC::Adds(out, tr, 0.0f, lanes);
        } else {
            AscendC::Cast(out, tr, AscendC::RoundMode::CAST_RINT, static_cast<uint32_t>(lanes));
        }
        outQue_.EnQue(out);
        out = outQue_.DeQue<T>();
        const int64_t elt = static_cast<int64_t>(sizeof(T));
        AscendC::DataCopyExtParams cp = RowsParams(cnt, p.k * elt, 0, 0);
        cp.srcStride = static_cast<uint32_t>(
            (kOut * elt - RoundUp(p.k * elt, dcn_tiling::kUbBlockBytes)) / dcn_tiling::kUbBlockBytes);
        AscendC::DataCopyPad(t.gradWeight[(oc * p.cinG + c0) * p.k], out, cp);
        outQue_.FreeTensor(out);
    }

    // `rows` blocks of `bytes` each, gmGapIn / gmGapOut bytes apart in GM for a load / a store (UB side:
    // consecutive 32-B aligned rows)
    __aicore__ static inline AscendC::DataCopyExtParams RowsParams(
        int64_t rows, int64_t bytes, int64_t gmGapIn, int64_t gmGapOut)
    {
        AscendC::DataCopyExtParams cp;
        cp.blockCount = static_cast<uint16_t>(rows);
        cp.blockLen = static_cast<uint32_t>(bytes);
        cp.srcStride = static_cast<uint32_t>(gmGapIn);
        cp.dstStride = static_cast<uint32_t>(gmGapOut);
        cp.rsv = 0;
        return cp;
    }

    __aicore__ static inline AscendC::DataCopyExtParams Contig(int64_t bytes) { return RowsParams(1, bytes, 0, 0); }

    // Pixels per fold piece (RowOrderParts): a piece of P pixels is one run of P*K elements in every block's slab;
    // all blocks' runs of a piece come with one DMA when they fit a reduction chunk (blocks * roundup(P*K, 8) <=
    // kReduceChunk), and the transposed rows [K][roundup(P, 16)] fit the table (dcn_tiling::kFoldTable entries).
    __aicore__ static inline int64_t FoldPixels(const DcnParams& p, int64_t blocks)
    {
        int64_t pix = MaxI(1, MinI(p.cQLen, dcn_tiling::kReduceChunk / (blocks * p.k)));
        while (pix > 1 && (p.k * RoundUp(pix, kFoldPitch) > dcn_tiling::kFoldTable ||
                           (blocks * RoundUp(pix * p.k, 8) > dcn_tiling::kReduceChunk && pix * p.k > 8))) {
            --pix;
        }
        return pix;
    }

    // grad_offset[n][j*dg*K + dgi*K + k][q0 + i] = T( sum over the blocks of dgi of their partial [q0 + i][k] (row
    // order, ChunkPartRowAt) ), i < pix, k < K: the blocks' runs of pix*K elements summed by SumInto (several blocks
    // per DMA, each DMA's blocks by halving: log2 levels of one Add instead of one Add per block), then one Gather
    // transposes [pix][K] -> [K][roundup(pix, 16)] (table entry (k, i) = byte offset of (i, k); padding columns read
    // element k, never stored) and one DMA writes the K rows. The table's row 0 comes from the scalar unit, the other
    // rows by doubling (ExtendByDoubling).
    __aicore__ inline void FoldRows(
        const DcnParams& p, const DcnTensors<T>& t, int64_t n, int64_t j, int64_t dgi, int64_t blocks, int64_t q0,
        int64_t pix)
    {
        const int64_t pitch = RoundUp(pix, kFoldPitch), outCnt = p.k * pitch;
        SumInto(t.part, ChunkPartRowAt(p, n, dgi * blocks, j, q0), 3 * p.k * p.chunkPix, blocks, pix * p.k, true);
        AscendC::LocalTensor<float> acc = accBuf_.Get<float>();
        AscendC::LocalTensor<uint32_t> table = tabBuf_.Get<uint32_t>();
        if (pix != tabPix_) { // the scalar writes wait for the Gathers that read the table before
            if (tabPix_ != 0) {
                PipeSync<AscendC::HardEvent::V_S>();
            }
            for (int64_t i = 0; i < pitch; ++i) { // row k = 0; row k = row 0 + 4k (vector doubling)
                table.SetValue(static_cast<uint32_t>(i), static_cast<uint32_t>(i < pix ? i * p.k * 4 : 0));
            }
            PipeSync<AscendC::HardEvent::S_V>();
            ExtendByDoubling(table.template ReinterpretCast<int32_t>(), pitch, p.k, 4);
            tabPix_ = pix;
        }
        AscendC::LocalTensor<T> out = outQue_.AllocTensor<T>();
        if constexpr (IsSameType<T, float>::value) {
            AscendC::Gather(out, acc, table, 0, static_cast<uint32_t>(outCnt));
        } else {
            AscendC::LocalTensor<float> rowsF = castBuf_.Get<float>();
            AscendC::Gather(rowsF, acc, table, 0, static_cast<uint32_t>(outCnt));
            AscendC::PipeBarrier<PIPE_V>();
            AscendC::Cast(out, rowsF, AscendC::RoundMode::CAST_RINT, static_cast<uint32_t>(outCnt));
        }
        outQue_.EnQue(out);
        out = outQue_.DeQue<T>();
        const int64_t elt = static_cast<int64_t>(sizeof(T));
        AscendC::DataCopyExtParams cp = RowsParams(p.k, pix * elt, 0, (p.howo - pix) * elt);
        cp.srcStride = static_cast<uint32_t>(
            (pitch * elt - RoundUp(pix * elt, dcn_tiling::kUbBlockBytes)) / dcn_tiling::kUbBlockBytes);
        AscendC::DataCopyPad(t.gradOffset[((n * p.offsetBlocks + j) * p.dg * p.k + dgi * p.k) * p.howo + q0], out, cp);
        outQue_.FreeTensor(out);
    }

    // dst[dstOff + i] = D( sum_{r < rows, in order} src[first + r*stride + i] ), i < cnt (cnt <=
    // dcn_tiling::kReduceChunk)
    template <typename D>
    __aicore__ inline void SumRows(
        const AscendC::GlobalTensor<float>& src, int64_t first, int64_t stride, int64_t rows, int64_t cnt,
        const AscendC::GlobalTensor<D>& dst, int64_t dstOff)
    {
        SumInto(src, first, stride, rows, cnt);
        WriteOut(accBuf_.Get<float>(), cnt, dst, dstOff);
    }

    // acc[i] = sum_{r < rows} src[first + r*stride + i], i < cnt (cnt <= dcn_tiling::kReduceChunk): in row order, or
    // (halving) each DMA's rows summed by halving (rows [0, h) += rows [m - h, m), h = floor(m/2), m -> m - h: one Add
    // over h whole rows per level) and the DMAs' sums in order; either order is a function of rows and cnt alone
    __aicore__ inline void SumInto(
        const AscendC::GlobalTensor<float>& src, int64_t first, int64_t stride, int64_t rows, int64_t cnt,
        bool halving = false)
    {
        AscendC::DataCopyPadExtParams<float> noPad;
        AscendC::LocalTensor<float> acc = accBuf_.Get<float>();
        const int32_t n32 = static_cast<int32_t>(cnt);
        // short rows come several per DMA (each padded to 32 B in UB), added in the same order
        const int64_t pitch = RoundUp(cnt, dcn_tiling::kUbBlockBytes / 4);
        const int64_t perDma = MaxI(1, dcn_tiling::kReduceChunk / pitch);
        for (int64_t r0 = 0; r0 < rows; r0 += perDma) {
            const int64_t nr = MinI(perDma, rows - r0);
            AscendC::LocalTensor<float> in = inQue_.AllocTensor<float>();
            AscendC::DataCopyPad(in, src[first + r0 * stride], RowsParams(nr, cnt * 4, (stride - cnt) * 4, 0), noPad);
            inQue_.EnQue(in);
            in = inQue_.DeQue<float>();
            // halving: rows [0, h) += rows [kept - h, kept) until one is left (the rows' pad lanes are defined by the
            // DMA and never read back); the rows kept are then added into acc in row order
            int64_t kept = nr;
            while (halving && kept > 1) {
                const int64_t h = kept / 2;
                AscendC::Add(in, in, in[(kept - h) * pitch], static_cast<int32_t>(h * pitch));
                AscendC::PipeBarrier<PIPE_V>();
                kept -= h;
            }
            for (int64_t r = 0; r < kept; ++r) {
                if (r0 + r == 0) {
                    AscendC::Adds(acc, in, 0.0f, n32);
                } else {
                    AscendC::Add(acc, acc, in[r * pitch], n32);
                }
                AscendC::PipeBarrier<PIPE_V>();
            }
            inQue_.FreeTensor(in);
        }
    }

    template <typename D>
    __aicore__ inline void WriteOut(
        const AscendC::LocalTensor<float>& acc, int64_t cnt, const AscendC::GlobalTensor<D>& dst, int64_t dstOff)
    {
        AscendC::LocalTensor<D> out = outQue_.AllocTensor<D>();
        if constexpr (IsSameType<D, float>::value) {
            AscendC::Adds(out, acc, 0.0f, static_cast<int32_t>(cnt));
        } else {
            AscendC::Cast(out, acc, AscendC::RoundMode::CAST_RINT, static_cast<uint32_t>(cnt));
        }
        outQue_.EnQue(out);
        out = outQue_.DeQue<D>();
        AscendC::DataCopyPad(dst[dstOff], out, Contig(cnt * static_cast<int64_t>(sizeof(D))));
        outQue_.FreeTensor(out);
    }

    __aicore__ inline void GradBias(const DcnParams &p, const DcnTensors<T> &t, int64_t oc)
    {
        AscendC::LocalTensor<float> acc = accBuf_.Get<float>();
        const int64_t width = MinI(dcn_tiling::kReduceChunk, p.howo);
        AscendC::Duplicate(acc, 0.0f, static_cast<int32_t>(width));
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::DataCopyPadExtParams<T> noPad;
        // Ho*Wo fits a chunk: the images' rows of channel oc (Cout*HoWo apart in GM) come several per DMA, each
        // row padded to 32 B in UB; they are added in the same order (image by image, lane-wise)
        const int64_t pitch = RoundUp(p.howo, dcn_tiling::kUbBlockBytes / static_cast<int64_t>(sizeof(T)));
        const int64_t perDma = p.howo <= dcn_tiling::kReduceChunk ? MaxI(1, dcn_tiling::kReduceChunk / pitch) : 0;
        for (int64_t n0 = 0; perDma > 0 && n0 < p.n; n0 += perDma) {
            const int64_t rows = MinI(perDma, p.n - n0);
            const int64_t elt = static_cast<int64_t>(sizeof(T));
            AscendC::LocalTensor<T> in = inQue_.AllocTensor<T>();
            AscendC::DataCopyPad(
                in, t.gradOutput[(n0 * p.cout + oc) * p.howo],
                RowsParams(rows, p.howo * elt, (p.cout - 1) * p.howo * elt, 0), noPad);
            inQue_.EnQue(in);
            in = inQue_.DeQue<T>();
            AscendC::LocalTensor<float> rowsF;
            if constexpr (IsSameType<T, float>::value) {
                rowsF = in;
            } else {
                rowsF = castBuf_.Get<float>();
                AscendC::Cast(rowsF, in, AscendC::RoundMode::CAST_NONE, static_cast<uint32_t>(rows * pitch));
                AscendC::PipeBarrier<PIPE_V>();
            }
            for (int64_t r = 0; r < rows; ++r) {
                AscendC::Add(acc, acc, rowsF[r * pitch], static_cast<int32_t>(p.howo));
                AscendC::PipeBarrier<PIPE_V>();
            }
            inQue_.FreeTensor(in);
        }
        for (int64_t n = 0; perDma == 0 && n < p.n; ++n) {
            for (int64_t p0 = 0; p0 < p.howo; p0 += dcn_tiling::kReduceChunk) {
                const int64_t cnt = MinI(dcn_tiling::kReduceChunk, p.howo - p0);
                AscendC::LocalTensor<T> in = inQue_.AllocTensor<T>();
                AscendC::DataCopyPad(in, t.gradOutput[(n * p.cout + oc) * p.howo + p0],
                                     Contig(cnt * static_cast<int64_t>(sizeof(T))), noPad);
                inQue_.EnQue(in);
                in = inQue_.DeQue<T>();
                if constexpr (IsSameType<T, float>::value) {
                    AscendC::Add(acc, acc, in, static_cast<int32_t>(cnt));
                } else {
                    AscendC::LocalTensor<float> f = castBuf_.Get<float>();
                    AscendC::Cast(f, in, AscendC::RoundMode::CAST_NONE, static_cast<uint32_t>(cnt));
                    AscendC::PipeBarrier<PIPE_V>();
                    AscendC::Add(acc, acc, f, static_cast<int32_t>(cnt));
                }
                AscendC::PipeBarrier<PIPE_V>();
                inQue_.FreeTensor(in);
            }
        }
        AscendC::LocalTensor<float> red = redBuf_.Get<float>();
        AscendC::LocalTensor<float> tmp = castBuf_.Get<float>();
        AscendC::ReduceSum(red, acc, tmp, static_cast<int32_t>(width));
        AscendC::PipeBarrier<PIPE_V>();
        WriteOut(red, 1, t.gradBias, oc);
    }

    TransposeRunner runner_;
    AscendC::TQue<AscendC::TPosition::VECIN, 2> inQue_;
    AscendC::TQue<AscendC::TPosition::VECOUT, 2> outQue_;
    AscendC::TBuf<AscendC::TPosition::VECCALC> accBuf_, castBuf_, redBuf_, tabBuf_;
    struct FoldShape {
        int64_t offCh = 0, pixPieces = 0, blocksPerDg = 0, kGroup = 1, kGroups = 1, foldPix = 0;
        bool rowParts = false;
    } fold_;         // the fold's shape for the chunk of the last FoldUnits
    int64_t tabPix_; // pixels of the fold pieces the transpose table in tabBuf_ was built for (0: none)
};

}  // namespace dcn_kernel

#endif  // DCN_STAGE3_FINALIZE_H
