// Tiled GM->GM transpose with optional dtype cast, on the vector unit (TransDataTo5HD or Gather in UB).
//
// Job: dst[c*dstRowStride + r*E + e] = Cast<DstT>(sum_{q < planes, in order} src[q*planeStride + S(r) + c*E + e])
//      for r < R, c < C, e < E (E = contiguous element group, e.g. KW for the offsetOut rearrangement;
//      planes > 1 only for float sources: the banded grad_input accumulator). Source rows come in blocks of
//      B = rowBlock rows: S(r) = (r / B)*srcBlockStride + (r % B)*srcRowStride (B = 1: S(r) = r*srcRowStride).
// Tiles are fixed by the job shape (TR x TC), so the tiling of a job never depends on the core count. A tile
// never straddles a row block. Packed tiles (B > 1, one plane, full rows: C*E == srcRowStride, the B rows
// of a block contiguous in GM): whole blocks at full width, one DMA for all blocks of the tile (block b of
// the tile at b*RoundUp(B*C*E, 16) in UB, its rows unpadded); other tiles: rows padded to srcAlign (16, or 8 for
// the fp32 accumulator of stage 3) in UB, one DMA.
// UB use: in/out queues (double-buffered, 4 * kTransposeCap * 4 B) and a scratch buffer (4 * kTransposeCap * 4 B)
// = 128 KiB (lean, for phase A beside the stage-2 records: one table of one CAP, no gather or plane buffer). A job's
// tiles hold at most CAP = TransposeJob::cap elements: kTransposeCap, or 2 * kTransposeCap
// when source and destination are both 2-byte types (TransposeCapFor: the same bytes per queue buffer, half the
// DMAs per byte). The scratch buffer holds the two offset tables (the two tile shapes used last, e.g. a stage's
// got and dcol tiles; CAP uint32 entries each) and, for 4-byte jobs only (CAP = kTransposeCap), behind them
// the gather buffer (a cast's staging) and the plane buffer (planes > 1; the plane adds use the gather buffer as a
// second plane buffer, as they precede the cast; a tile of whole unpadded rows whose planes all fit the in buffer
// needs neither: one DMA brings every plane into it, RunTile's fusedPlanes); 2-byte jobs need neither (no cast, one
// plane). Output rows inside UB
// are padded to 16 elements (32 B for 2- and 4-byte types). Requires E <= CAP (tiling guarantees KW <= 2048). In UB a
// tile moves by block transposes (TransDataTo5HD: 16 source rows x one 32-B block per repeat; Vector table 9: 64 / 128
// elements per cycle) when its groups are single elements and its source rows 32-B aligned (not packed) and its output
// rows, rounded up to whole column blocks, fit the buffer (a call's repeats step along the axis that needs fewer
// calls: BlockTranspose); else by one Gather over an offset table (5 elements per cycle, table 12). Both move the
// same elements.
#ifndef DCN_TRANSPOSE_H
#define DCN_TRANSPOSE_H

#include "dcn_common.h"

namespace dcn_kernel {


struct TransposeJob {
    uint64_t srcOffset;      // element offset of r=0,c=0 in the source GM tensor
    uint64_t dstOffset;      // element offset of c=0,r=0 in the destination GM tensor
    int64_t rows, cols, group;
    int64_t srcRowStride, dstRowStride;
    int64_t planes;          // >= 1; planes > 1 only for float sources
    uint64_t planeStride;    // elements between planes
    int64_t rowBlock = 1;    // rows per source block (>= 1)
    int64_t srcBlockStride = 0; // elements between source blocks (used when rowBlock > 1)
    int64_t maxTileRows = 64;   // tile rows (x group elements) at most; narrow jobs take more rows per tile
    int64_t srcAlign = dcn_tiling::kTransposeRowAlign; // UB source rows padded to this many elements (>= 32 B)
    int64_t cap = dcn_tiling::kTransposeCap;           // elements of a tile in UB at most (TransposeCapFor)
};

// Tile elements of a job moving srcBytes-wide elements to dstBytes-wide ones: 2-byte -> 2-byte jobs (no cast)
// fill the 4-byte-sized queue buffers with twice the elements.
__aicore__ inline int64_t TransposeCapFor(int64_t srcBytes, int64_t dstBytes)
{
    return srcBytes == 2 && dstBytes == 2 ? 2 * dcn_tiling::kTransposeCap : dcn_tiling::kTransposeCap;
}

// Element offset of source row r (relative to srcOffset).
__aicore__ inline int64_t TransposeSrcRow(const TransposeJob& j, int64_t r)
{
    return j.rowBlock == 1 ? r * j.srcRowStride :
                             (r / j.rowBlock) * j.srcBlockStride + (r % j.rowBlock) * j.srcRowStride;
}

// UB elements of one packed block (B full rows).
__aicore__ inline int64_t TransposePackedBlock(const TransposeJob& j)
{
    return RoundUp(j.rowBlock * j.cols * j.group, dcn_tiling::kTransposeRowAlign);
}

// Blocks per packed tile (0: the job is not packed, see the header).
__aicore__ inline int64_t TransposePackedBlocks(const TransposeJob& j)
{
    if (j.rowBlock == 1 || j.planes != 1 || j.cols * j.group != j.srcRowStride ||
        j.srcBlockStride - j.rowBlock * j.srcRowStride > static_cast<int64_t>(0x3FFFFFFF) / 4) {
        return 0;
    }
    // the most blocks that fit in and out, and divide the job's blocks: every tile has one shape, so the
    // gather table is built once per job shape
    const int64_t blocks = j.rows / j.rowBlock;
    int64_t nb = MinI(j.cap / TransposePackedBlock(j), blocks);
    while (nb > 0 &&
           (blocks % nb != 0 || j.cols * RoundUp(nb * j.rowBlock * j.group, dcn_tiling::kTransposeRowAlign) > j.cap)) {
        --nb;
    }
    return nb;
}

__aicore__ inline void TransposeTileShape(const TransposeJob &j, int64_t &tr, int64_t &tc)
{
    const int64_t nb = TransposePackedBlocks(j);
    if (nb > 0) {
        tr = nb * j.rowBlock;
        tc = j.cols;
        return;
    }
    tr = MinI(j.rows, MaxI(1, j.maxTileRows / j.group));
    if (j.rowBlock > 1) { // the largest divisor of the block that fits: tiles inside one block
        tr = MinI(tr, j.rowBlock);
        while (j.rowBlock % tr != 0) {
            --tr;
        }
    }
    int64_t rowOutPad = RoundUp(tr * j.group, dcn_tiling::kTransposeRowAlign);
    int64_t byIn = ((j.cap / tr) / j.srcAlign * j.srcAlign) / j.group;
    tc = MinI(j.cols, MinI(MaxI(1, byIn), j.cap / rowOutPad));
}

__aicore__ inline int64_t TransposeTileCount(const TransposeJob &j)
{
    int64_t tr, tc;
    TransposeTileShape(j, tr, tc);
    return CeilDiv(j.rows, tr) * CeilDiv(j.cols, tc);
}

// Transpose between image n's NCHW rows [c0, c0+len) x HW of channel block b and the block's [HW][len] plane
// (BlockPixelAt: the same element offset). toPlane: NCHW -> plane (stage 0, the input copy xt); else plane ->
// NCHW summed over the band planes in band order (stage 3, grad_input), narrow blocks with up to
// CAP / 8 rows per tile (fp32 source rows padded to 8 elements). elt: bytes of the I/O dtype (the
// NCHW side; the planes are elt-wide for the input copy, fp32 for grad_input).
__aicore__ inline TransposeJob BlockPlaneJob(const DcnParams& p, int64_t n, int64_t b, bool toPlane, int64_t elt)
{
    int64_t c0, len;
    BlockRange(p, b, c0, len);
    const int64_t hw = p.h * p.w;
    TransposeJob j;
    j.srcOffset = (n * p.cin + c0) * hw;
    j.dstOffset = j.srcOffset;
    j.group = 1;
    j.rows = toPlane ? len : hw;
    j.cols = toPlane ? hw : len;
    j.srcRowStride = j.cols;
    j.dstRowStride = j.rows;
    j.planes = toPlane ? 1 : p.pixelBands;
    j.planeStride = toPlane ? 0 : p.giaccPlane;
    j.cap = toPlane ? TransposeCapFor(elt, elt) : TransposeCapFor(4, elt);
    if (!toPlane) { // fp32 source rows (the accumulator) need only 8 elements of padding: 512 rows of 8 channels
        j.srcAlign = dcn_tiling::kUbBlockBytes / 4;
        // several band planes: tiles whose planes all fit one queue buffer (whole rows, one DMA for the planes:
        // RunTile) when they keep kFusedPlaneMinRows rows (whole groups of 16)
        const int64_t rowPad = RoundUp(len, j.srcAlign);
        const int64_t fusedRows =
            j.cap / (j.planes * rowPad) / dcn_tiling::kTransposeRowAlign * dcn_tiling::kTransposeRowAlign;
        j.maxTileRows =
            j.planes > 1 && fusedRows >= dcn_tiling::kFusedPlaneMinRows ? fusedRows : MaxI(64, j.cap / rowPad);
    }
    return j;
}

// Per-block transposes of one image (xt in stage 0, grad_input in stage 3: Jobs::Make(p, n, b) is the job of
// image n, channel block b): tiles enumerated image by image, block by block. Blocks of one segment have
// blockC channels except the last (the segment's rest), and every segment is alike, so a unit's block and
// tile follow from two tile counts.
template <class Jobs>
__aicore__ inline int64_t BlockTilesPerImage(const DcnParams& p)
{
    const int64_t full = TransposeTileCount(Jobs::Make(p, 0, 0));
    const int64_t last = TransposeTileCount(Jobs::Make(p, 0, p.blocksPerSeg - 1));
    return (p.cin / p.segLen) * ((p.blocksPerSeg - 1) * full + last);
}

template <class Jobs>
__aicore__ inline TransposeJob LocateBlockTile(const DcnParams& p, int64_t v, int64_t& tile, int64_t n0 = 0)
{
    const int64_t full = TransposeTileCount(Jobs::Make(p, 0, 0));
    const int64_t last = TransposeTileCount(Jobs::Make(p, 0, p.blocksPerSeg - 1));
    const int64_t perSeg = (p.blocksPerSeg - 1) * full + last, perImage = (p.cin / p.segLen) * perSeg;
    const int64_t n = n0 + v / perImage, r = v % perImage, seg = r / perSeg, inSeg = r - seg * perSeg;
    const int64_t j = MinI(inSeg / full, p.blocksPerSeg - 1);
    tile = inSeg - j * full;
    return Jobs::Make(p, n, seg * p.blocksPerSeg + j);
}

// Source rows of the output lanes of a block transpose: lane l reads source row l (SameRow), or, for a tile whose
// K = KH*KW rows are (kw, kh) and whose output rows list them in (kh, kw) order, row (l % KW)*KH + l / KW
// (KernelAxesSwap, stage 3's grad_weight pieces).
struct SameRow {
    __aicore__ inline int64_t operator()(int64_t lane) const { return lane; }
};
struct KernelAxesSwap {
    int64_t kh, kw;
    __aicore__ inline int64_t operator()(int64_t lane) const { return (lane % kw) * kh + lane / kw; }
};

// TransDataTo5HD by row groups g0.. of an rt-row tile (G = 8 for 4-byte, 16 for 2-byte types; source rows sin
// apart, output rows sout apart): one call per 16 output lanes, its repeats the `groups` column groups (the next
// 32-B block of the source rows, G output rows further). Output lane l of every output row comes from source row
// rowOf(l) (lanes past rt: row 0, never stored). 4-byte: dst block 2j+h = output row j of the group, its lanes
// 8h..8h+7; 2-byte: dst block j = output row j.
template <typename U, typename RowOf>
__aicore__ inline void BlockTransposeRowGroups(
    const AscendC::LocalTensor<U>& out, const AscendC::LocalTensor<U>& in, int64_t g0, int64_t rt, int64_t groups,
    int64_t sin, int64_t sout, const RowOf& rowOf)
{
    constexpr int64_t kList = AscendC::NCHW_CONV_ADDR_LIST_SIZE;
    constexpr int64_t kG = dcn_tiling::kUbBlockBytes / static_cast<int64_t>(sizeof(U));
    constexpr int64_t kHalves = kList / kG; // dst blocks per output row of a group: 2 (4-byte) or 1
    // with one repeat the strides must be 0 (the repeat starts at list + stride)
    const uint16_t dstRep = groups > 1 ? static_cast<uint16_t>(kG * sout * sizeof(U) / 32) : 0;
    const uint16_t srcRep = groups > 1 ? 1 : 0;
    const AscendC::TransDataTo5HDParams params(false, false, static_cast<uint8_t>(groups), dstRep, srcRep);
    AscendC::LocalTensor<U> sl[kList], dl[kList];
    for (int64_t g = g0; g * kList < rt; ++g) {
        for (int64_t i = 0; i < kList; ++i) {
            sl[i] = in[(g * kList + i < rt ? rowOf(g * kList + i) : 0) * sin];
            dl[i] = out[(i / kHalves) * sout + g * kList + (i % kHalves) * kG];
        }
        AscendC::TransDataTo5HD<U>(dl, sl, params);
    }
}

class TransposeRunner {
public:
    // lean (phase A beside the records, dcn_phase_a.h): one table slot of the largest CAP of an elt-byte job and
    // no gather or plane buffer, i.e. only jobs without a cast and with one plane (elt -> elt, the rearrangement's)
    __aicore__ inline void Init(AscendC::TPipe& pipe, bool lean = false, int64_t elt = 4)
    {
        pipe.InitBuffer(inQue_, 2, dcn_tiling::kTransposeCap * 4);
        pipe.InitBuffer(outQue_, 2, dcn_tiling::kTransposeCap * 4);
        tables_ = lean ? 1 : kTables;
        pipe.InitBuffer(
            scratchBuf_, static_cast<uint32_t>(
                             lean ? TransposeCapFor(elt, elt) * 4 : (kTables + 2) * dcn_tiling::kTransposeCap * 4));
        for (int64_t i = 0; i < kTables; ++i) {
            cache_[i].rt = -1;
            cache_[i].cap = 0;
            tableRead_[i] = false;
        }
        lastTable_ = 0;
    }

    // UB bytes of Init(pipe, lean, elt).
    __aicore__ static inline int64_t UbBytes(bool lean, int64_t elt)
    {
        return 4 * dcn_tiling::kTransposeCap * 4 +
               (lean ? TransposeCapFor(elt, elt) * 4 : (kTables + 2) * dcn_tiling::kTransposeCap * 4);
    }

    template <typename SrcT, typename DstT>
    __aicore__ inline void RunTile(
        const AscendC::GlobalTensor<SrcT>& src, const AscendC::GlobalTensor<DstT>& dst, const TransposeJob& j,
        int64_t tile)
    {
        int64_t tr, tc;
        TransposeTileShape(j, tr, tc);
        int64_t nTc = CeilDiv(j.cols, tc);
        int64_t r0 = (tile / nTc) * tr;
        int64_t c0 = (tile % nTc) * tc;
        int64_t rt = MinI(tr, j.rows - r0);
        int64_t ct = MinI(tc, j.cols - c0);
        int64_t e = j.group;
        int64_t sin = RoundUp(ct * e, j.srcAlign);
        int64_t sout = RoundUp(rt * e, dcn_tiling::kTransposeRowAlign);
        const int64_t srcElt = sizeof(SrcT);
        const int64_t dstElt = sizeof(DstT);
        // packed tiles: block b of the tile at b*sblk in UB, its rows unpadded (ct*e apart)
        const int64_t blk = TransposePackedBlocks(j) > 0 ? j.rowBlock : 0;
        const int64_t sblk = blk > 0 ? TransposePackedBlock(j) : 0;

        AscendC::LocalTensor<SrcT> in = inQue_.AllocTensor<SrcT>();
        AscendC::DataCopyExtParams cpIn;
        // every plane of the tile in the one buffer, plane q at q*rt*sin (whole unpadded rows: a tile is one run of
        // each plane, the planes planeStride apart): one DMA, under the queue's double buffering
        const int64_t run = rt * sin;
        const bool fusedPlanes = j.planes > 1 && blk == 0 && ct * e == j.srcRowStride && sin == ct * e &&
                                 j.planes * run * srcElt <= dcn_tiling::kTransposeCap * 4 &&
                                 (static_cast<int64_t>(j.planeStride) - run) * srcElt <= int64_t{0xFFFFFFFF};
        if (fusedPlanes) {
            cpIn.blockCount = static_cast<uint16_t>(j.planes);
            cpIn.blockLen = static_cast<uint32_t>(run * srcElt);
            cpIn.srcStride = static_cast<uint32_t>((static_cast<int64_t>(j.planeStride) - run) * srcElt);
            cpIn.dstStride = 0;
        } else if (blk > 0) {
            cpIn.blockCount = static_cast<uint16_t>(rt / blk);
            cpIn.blockLen = static_cast<uint32_t>(blk * ct * e * srcElt);
            cpIn.srcStride = static_cast<uint32_t>((j.srcBlockStride - blk * ct * e) * srcElt);
            cpIn.dstStride = static_cast<uint32_t>(
                (sblk * srcElt - RoundUp(blk * ct * e * srcElt, dcn_tiling::kUbBlockBytes)) /
                dcn_tiling::kUbBlockBytes);
        } else {
            cpIn.blockCount = static_cast<uint16_t>(rt);
            cpIn.blockLen = static_cast<uint32_t>(ct * e * srcElt);
            cpIn.srcStride = static_cast<uint32_t>((j.srcRowStride - ct * e) * srcElt);
            cpIn.dstStride = static_cast<uint32_t>(
                (sin * srcElt - RoundUp(ct * e * srcElt, dcn_tiling::kUbBlockBytes)) / dcn_tiling::kUbBlockBytes);
        }
        cpIn.rsv = 0;
        AscendC::DataCopyPadExtParams<SrcT> noPad;
        AscendC::DataCopyPad(in, src[j.srcOffset + TransposeSrcRow(j, r0) + c0 * e], cpIn, noPad);
        inQue_.EnQue(in);

        // Tiles of single elements (e == 1) with 32-B aligned source rows (not packed) move by block transposes
        // (BlockTranspose, TransDataTo5HD); the others by one Gather over an offset table.
        const bool blockwise = e == 1 && blk == 0 && BlockwiseFits(ct, sout, srcElt);
        const TableKey key = {rt, ct, e, srcElt, blk, sin, j.cap};
        int64_t slot = 0;
        while (!blockwise && slot < tables_ && !SameKey(cache_[slot], key)) {
            ++slot;
        }
        const bool build = !blockwise && slot == tables_;
        bool reuse = false; // the rebuilt table's memory may still be read by an earlier Gather (V)
        if (build) {
            slot = tables_ > 1 ? 1 - lastTable_ : 0; // replace the table used less recently
            reuse = tableRead_[slot];
            if (tables_ > 1 && cache_[1 - slot].cap != j.cap) {
                cache_[1 - slot].rt = -1; // tables of another CAP lie elsewhere in the scratch buffer
                reuse = reuse || tableRead_[1 - slot];
            }
        }
        if (!blockwise) {
            lastTable_ = slot;
        }
        AscendC::LocalTensor<uint32_t> table = scratchBuf_.Get<uint32_t>()[slot * j.cap]; // slot 0 when blockwise
        if (build) {
            // The offset table (bytes into the UB source tile) is rebuilt only for a tile shape that neither
            // table holds. Entry (c, q) = entry (0, q) + c*e*srcElt: the scalar unit writes output row c = 0,
            // then repeated Adds double the rows built so far (log2(ct) vector instructions). Row 0's padding
            // entries (q >= rt*e) are 0, so row c's are c*e*srcElt: inside the tile's first source row, gathered
            // into padding lanes that are never stored. The scalar writes wait for the Gathers that read this
            // memory before (V_S), when there were any since the last wait.
            if (reuse) {
                PipeSync<AscendC::HardEvent::V_S>();
                tableRead_[0] = false;
                tableRead_[1] = false;
            }
            for (int64_t q = 0; q < sout; ++q) {
                uint32_t off = 0;
                if (q < rt * e) {
                    int64_t r = q / e;
                    int64_t row = blk > 0 ? (r / blk) * sblk + (r % blk) * ct * e : r * sin;
                    off = static_cast<uint32_t>((row + (q - r * e)) * srcElt);
                }
                table.SetValue(static_cast<uint32_t>(q), off);
            }
            PipeSync<AscendC::HardEvent::S_V>();
            ExtendByDoubling(table.template ReinterpretCast<int32_t>(), sout, ct, e * srcElt);
            cache_[slot] = key;
        }

        in = inQue_.DeQue<SrcT>();
        if constexpr (IsSameType<SrcT, float>::value) {
            for (int64_t q = 1; fusedPlanes && q < j.planes; ++q) { // in plane order (fixed summation order)
                if (q > 1) {
                    AscendC::PipeBarrier<PIPE_V>();
                }
                AscendC::Add(in, in, in[q * run], static_cast<int32_t>(run));
            }
            // else further planes (j.planes > 1: never lean, whose scratch holds one table only) are added in plane
            // order (fixed summation order), two per round: both planes' DMAs go out together (into the plane buffer
            // and the cast's staging buffer, which the adds precede), so a round costs one latency; the V_MTE2/MTE2_V
            // round trip of a round orders the previous round's adds (and the previous tile's Cast) before its loads
            // and its adds, a barrier the round's second add after its first
            for (int64_t q0 = 1; !fusedPlanes && q0 < j.planes; q0 += 2) {
                AscendC::LocalTensor<float> bufs[2] = {
                    scratchBuf_.Get<float>()[(kTables + 1) * dcn_tiling::kTransposeCap],
                    scratchBuf_.Get<float>()[kTables * dcn_tiling::kTransposeCap]};
                const int64_t n = MinI(2, j.planes - q0);
                PipeSync<AscendC::HardEvent::V_MTE2>();
                for (int64_t i = 0; i < n; ++i) {
                    AscendC::DataCopyPad(
                        bufs[i], src[j.srcOffset + (q0 + i) * j.planeStride + TransposeSrcRow(j, r0) + c0 * e], cpIn,
                        noPad);
                }
                PipeSync<AscendC::HardEvent::MTE2_V>();
                for (int64_t i = 0; i < n; ++i) {
                    if (i > 0) {
                        AscendC::PipeBarrier<PIPE_V>();
                    }
                    AddPlane(in, bufs[i], rt, ct * e, sin);
                }
            }
        }
        if (j.planes > 1 || !IsSameType<SrcT, DstT>::value) {
            // the plane adds have written in; the previous tile's Cast has read gathered
            AscendC::PipeBarrier<PIPE_V>();
        }
        AscendC::LocalTensor<DstT> out = outQue_.AllocTensor<DstT>();
        uint32_t count = static_cast<uint32_t>(ct * sout);
        if constexpr (IsSameType<SrcT, DstT>::value) {
            if (blockwise) {
                TransposeRows(out, in, rt, ct, sin, sout);
            } else {
                AscendC::Gather(out, in, table, 0, count);
                tableRead_[slot] = true;
            }
        } else {
            AscendC::LocalTensor<SrcT> gathered =
                scratchBuf_.Get<SrcT>()[kTables * dcn_tiling::kTransposeCap * 4 / static_cast<int64_t>(sizeof(SrcT))];
            if (blockwise) {
                TransposeRows(gathered, in, rt, ct, sin, sout);
            } else {
                AscendC::Gather(gathered, in, table, 0, count);
                tableRead_[slot] = true;
            }
            AscendC::PipeBarrier<PIPE_V>();
            if constexpr (IsSameType<DstT, float>::value) {
                AscendC::Cast(out, gathered, AscendC::RoundMode::CAST_NONE, count);
            } else {
                AscendC::Cast(out, gathered, AscendC::RoundMode::CAST_RINT, count);
            }
        }
        inQue_.FreeTensor(in);
        outQue_.EnQue(out);

        out = outQue_.DeQue<DstT>();
        AscendC::DataCopyExtParams cpOut;
        cpOut.blockCount = static_cast<uint16_t>(ct);
        cpOut.blockLen = static_cast<uint32_t>(rt * e * dstElt);
        cpOut.srcStride = static_cast<uint32_t>((sout * dstElt - RoundUp(rt * e * dstElt, dcn_tiling::kUbBlockBytes)) / dcn_tiling::kUbBlockBytes);
        cpOut.dstStride = static_cast<uint32_t>((j.dstRowStride - rt * e) * dstElt);
        cpOut.rsv = 0;
        AscendC::DataCopyPad(dst[j.dstOffset + c0 * j.dstRowStride + r0 * e], out, cpOut);
        outQue_.FreeTensor(out);
    }

private:
    // in += plane over the loaded part of each of the rt rows (pitch sin, `width` elements; padding is unwritten):
    // rows of <= 64 lanes in masked repeats (one repeat per row), longer rows one Add each.
    __aicore__ static inline void AddPlane(
        const AscendC::LocalTensor<float>& in, const AscendC::LocalTensor<float>& plane, int64_t rt, int64_t width,
        int64_t sin)
    {
        if (width <= dcn_tiling::kRepeatLanes && sin / 8 <= 255) {
            const uint8_t rowBlocks = static_cast<uint8_t>(sin / 8);
            const AscendC::BinaryRepeatParams rowRep(1, 1, 1, rowBlocks, rowBlocks, rowBlocks);
            for (int64_t r = 0; r < rt; r += 255) {
                AscendC::Add(
                    in[r * sin], in[r * sin], plane[r * sin], static_cast<uint64_t>(width),
                    static_cast<uint8_t>(MinI(255, rt - r)), rowRep);
            }
        } else {
            for (int64_t r = 0; r < rt; ++r) {
                AscendC::Add(in[r * sin], in[r * sin], plane[r * sin], static_cast<int32_t>(width));
            }
        }
    }

    // out row c (pitch sout) <- column c of the in rows r < rt (pitch sin), for c < ct: 2-byte types move as
    // uint16_t bits.
    template <typename U>
    __aicore__ inline void TransposeRows(
        const AscendC::LocalTensor<U>& out, const AscendC::LocalTensor<U>& in, int64_t rt, int64_t ct, int64_t sin,
        int64_t sout)
    {
        if constexpr (sizeof(U) == 2) {
            BlockTranspose(
                out.template ReinterpretCast<uint16_t>(), in.template ReinterpretCast<uint16_t>(), rt, ct, sin, sout);
        } else {
            BlockTranspose(out, in, rt, ct, sin, sout);
        }
    }

    // TransDataTo5HD over groups of 16 source rows and G source columns (one 32-B block: G = 8 for 4-byte, 16
    // for 2-byte types). 4-byte: dst block 2j+h = output row j of the group, its elements 8h..8h+7; 2-byte: dst
    // block j = output row j. A call's repeats step through one axis, so the tile takes the fewer calls of:
    //   by row group (BlockTransposeRowGroups): one call per 16 source rows, its repeats the column groups;
    //   by column group (tall narrow tiles: the weight prologue, grad_input planes of narrow blocks): one call
    //   per column group, its repeats the whole row groups (16 source rows further, 16 output lanes further),
    //   and a tail of rt % 16 rows by row group as above.
    // The last group's columns past ct (inside the rows' 32-B DMA slots) fill output rows past ct: padding,
    // never stored (BlockwiseFits: those rows fit the buffer). Either way every element moves once, unchanged.
    template <typename U>
    __aicore__ inline void BlockTranspose(
        const AscendC::LocalTensor<U>& out, const AscendC::LocalTensor<U>& in, int64_t rt, int64_t ct, int64_t sin,
        int64_t sout)
    {
        constexpr int64_t kList = AscendC::NCHW_CONV_ADDR_LIST_SIZE;
        constexpr int64_t kG = dcn_tiling::kUbBlockBytes / static_cast<int64_t>(sizeof(U));
        const int64_t groups = CeilDiv(ct, kG);
        const int64_t fullRowGroups = rt / kList;
        const int64_t byColumnCalls = groups + (rt % kList != 0 ? 1 : 0);
        if (fullRowGroups > 1 && fullRowGroups <= 255 && byColumnCalls < CeilDiv(rt, kList)) {
            BlockTransposeByColumns(out, in, fullRowGroups, groups, sin, sout);
            if (rt % kList != 0) {
                BlockTransposeRowGroups(out, in, fullRowGroups, rt, groups, sin, sout, SameRow());
            }
            return;
        }
        BlockTransposeRowGroups(out, in, 0, rt, groups, sin, sout, SameRow());
    }

    // The first rowGroups (>= 2) whole row groups, one call per column group: repeat g reads source rows
    // g*16 .. g*16 + 15 (16 * sin elements further) and writes output lanes g*16 .. g*16 + 15 of the group's G
    // output rows (16 elements further).
    template <typename U>
    __aicore__ inline void BlockTransposeByColumns(
        const AscendC::LocalTensor<U>& out, const AscendC::LocalTensor<U>& in, int64_t rowGroups, int64_t groups,
        int64_t sin, int64_t sout)
    {
        constexpr int64_t kList = AscendC::NCHW_CONV_ADDR_LIST_SIZE;
        constexpr int64_t kG = dcn_tiling::kUbBlockBytes / static_cast<int64_t>(sizeof(U));
        constexpr int64_t kHalves = kList / kG;
        const uint16_t dstRep = static_cast<uint16_t>(kList * sizeof(U) / 32);
        const uint16_t srcRep = static_cast<uint16_t>(kList * sin * sizeof(U) / 32);
        const AscendC::TransDataTo5HDParams params(false, false, static_cast<uint8_t>(rowGroups), dstRep, srcRep);
        AscendC::LocalTensor<U> sl[kList], dl[kList];
        for (int64_t c = 0; c < groups; ++c) {
            for (int64_t i = 0; i < kList; ++i) {
                sl[i] = in[i * sin + c * kG];
                dl[i] = out[(c * kG + i / kHalves) * sout + (i % kHalves) * kG];
            }
            AscendC::TransDataTo5HD<U>(dl, sl, params);
        }
    }

    // Whether a tile's block transpose fits: its output rows rounded up to whole column groups fit the output
    // buffer (4 * kTransposeCap bytes, like the gather buffer of a cast) and one call's repeats fit 255.
    __aicore__ static inline bool BlockwiseFits(int64_t ct, int64_t sout, int64_t srcElt)
    {
        const int64_t g = dcn_tiling::kUbBlockBytes / srcElt;
        return RoundUp(ct, g) * sout * srcElt <= 4 * dcn_tiling::kTransposeCap && CeilDiv(ct, g) <= 255;
    }

    struct TableKey {
        int64_t rt, ct, e, elt, blk, sin, cap;
    };
    static constexpr int64_t kTables = 2;
    __aicore__ static inline bool SameKey(const TableKey& a, const TableKey& b)
    {
        return a.rt == b.rt && a.ct == b.ct && a.e == b.e && a.elt == b.elt && a.blk == b.blk && a.sin == b.sin &&
               a.cap == b.cap;
    }

    AscendC::TQue<AscendC::TPosition::VECIN, 2> inQue_;
    AscendC::TQue<AscendC::TPosition::VECOUT, 2> outQue_;
    // [table 0][table 1] of CAP uint32 each; 4-byte jobs (CAP = kTransposeCap): then [gather][plane]
    AscendC::TBuf<AscendC::TPosition::VECCALC> scratchBuf_;
    int64_t tables_ = kTables; // table slots in use (1: lean)
    TableKey cache_[kTables];
    bool tableRead_[kTables]; // a Gather has read the table of this slot since the last V_S wait
    int64_t lastTable_;
};

}  // namespace dcn_kernel

#endif  // DCN_TRANSPOSE_H
