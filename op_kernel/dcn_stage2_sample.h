// Stage 2 (vector): bilinear scatter of G into the grad_input accumulator and per-block partial
// offset/mask gradients.
//
// Work unit (n, b, j) of the current pixel chunk (DcnParams cN0.., SetChunk): image n of the chunk, channel
// block b = [c0, c0+len) (inside one conv group gc and one deformable group dgi; see BlockRange), band j =
// chunk pixels [cQ0 + j*L, ...) (L = bandLen, or for a short chunk its span split evenly; where tiles run across rows,
// the tiles of the chunk's span split evenly: DCN_BAND_START). In this
// chunk the unit exclusively owns the accumulator plane slice giacc[j] plane of (n, [c0, c0+len)) (BlockPixelAt; chunks
// run in order, SyncAll between) and the chunk's partial slots part[n][b][*][*][band j pixels] (ChunkPartAt; G rows:
// ChunkGRow); it visits the (pixel tile, kernel-point chunk, pixel, kernel point) of its band in a fixed order:
//   y = (ho*sH - padTop + kh*dH) + dy,  x = (wo*sW - padLeft + kw*dW) + dx     (never rounded as a sum)
//   y0 = base + floor(dy) (Cast CAST_FLOOR; exact integers), ly = dy - floor(dy) (exact), hy = 1 - ly
//   (x likewise; vector, per tile)
//   whole-sample rule: only -1 < y < H and -1 < x < W contribute (decided exactly from y0 and ly, per tile in vector
//   form); corners (yc, xc) outside the image (0 <= yc < H, 0 <= xc < W fails) contribute nothing. Per tile (rows =
//   pixelTile*KT <= 64 sample points; 32 for wide, 128 for narrow blocks of <= 16 channels):
//     corner planes X_c[row][LP] <- X rows of the valid corners (zero otherwise; per-point DMA, pairs of
//     adjacent corners in one transfer), then per corner ONE Mul X_c*G over all rows and the row sums
//     s_c[row] = sum_block G*X(n, yc, xc, block), and the contribution rows C_c[row] = (m*w_c)[row] * G[row]
//     written over the consumed corner planes:
//       len == LP (block of whole 32-B blocks, the common case): the corner planes hold rs = roundup(rows, 8)
//       rows each (whole 8-row repeats, no tail instructions); the b = LP/8 blocks of each row are added into
//       block 0 (one masked Add per level and block over the 4 planes' 4*rs rows, 8 rows per repeat, ceil(log2 b)
//       levels), one BlockReduceSum gives the row sums of all 4 planes (8 per repeat); the coefficients mw_c
//       are broadcast to one block per row by Brcb (8 rows per repeat) and multiplied in with b Muls per
//       corner (8 rows per repeat);
//       len < LP (padding lanes): one WholeReduceSum repeat per row (wide rows: upper half added first),
//       coefficients broadcast by Gather and one block-stride-0 masked Mul per corner
//   then per sample point (program order; the scatter visits a tile's points in the fixed order (j, kernel
//   point, g) of pixel g*ceil(PT/4) + j, Back):
//     giacc[j] at BlockPixelAt(n, c0, len, yc, xc) += C_c[row]  (DataCopyPad with atomic add, adjacent corners in one
//     transfer;
//                                              only this unit writes there, in program order)
//     gx += (m*wdx_c)*s_c, gy += (m*wdy_c)*s_c, gm += w_c*s_c   (scalar, valid corners in order c = 0..3)
//   part[n][b][0|1|2][k][p] = gx | gy | gm  (every slot written, zero outside the image; RowOrderParts: [p][k],
//                                           the tile's rows as they are, ChunkPartRowAt)
// Per tile: one G DMA (every kernel point in the tile), one offset DMA (one deformable group; else one per
// offset block), one partials store (every kernel point in the tile; else one per offset block).
// Scalar GetValue/SetValue are used only for per-sample-point scalars (coordinates, weights, partial sums).
//
// Shared fronts (tiling recTiles > 0: a deformable group of many whole blocks, op_host PlanSharedFronts): every block's
// unit samples the same points, so a tile's front (the coordinates, weights, key and gather-offset work below: the
// weight rows mw_c, ly, lx, hy, hx, m, the key rows and the window's gather table) is computed once per (image, band,
// deformable group) in the chunk's first phase (Stage2Mode::kRecords, ProduceRecord: units sliced across the cores;
// RecordItem beside the phase's other units when the producer's buffers, ProducerUb, fit: dcn_phase_a.h)
// and stored in the chunk's record region (rec, a record per tile in the unit's tile order); the sampling units load
// it (LoadRecordKeys, LoadRecordTableAndRows: the table into the coordinate planes they no longer use) instead of
// running Coords and Weights. The results are the same bits either way.
//
// Tile pipeline (issue 11): tiles are pushed in the order above and run in three program-order steps,
// Push(t) = offsets DMA of t; Front(t-1) = G DMA, coordinates and weights (V), then the scalar unit reads
// y0/x0 and issues the corner loads of t-1; Back(t-2) = products and partials (V), scatter and partials
// store (MTE3 / window adds). The scalar unit thus issues tile t-1's loads (MTE2) while tile t-2's scatter
// (MTE3) and vector work run, and it waits (V_S) only for tile t-1's coordinates (for blocks of >= 16 channels
// the coordinates of t are issued beside the Back of t-2, sharing its barriers). Two tiles are in flight:
// offsets, G tiles and corner planes live in 2-deep queues, the weight rows, row infos and order tables per
// slot (tile parity); every wait orders only work issued before it, so the waits sit where the reuse is:
// a corner-plane buffer and the partials plane are rewritten after an MTE3_V in the Front of the tile two
// on. The pipeline drains (every tile through Back) only at the end of a unit; windows change inside it (each
// tile carries its window, UseWindow), and every GM atomic add (a window's flush follows its last tile's Back
// and precedes the next tile's), every window add and every reduction runs in the same order as tile by tile.
//
// UB window (tiling winOutRows > 0): the unit's pixels are visited in windows of winOutRows x winOutCols
// output pixels (row-major over the image, intersected with the unit's band). Per window, the input
// rows x columns its kernel points reach plus kWindowMargin on every side (clipped to the image; for
// window-served blocks, len == LP <= 32, to the image and a one-pixel ring around it when the capacity allows:
// the ring pixels of xwin are zeroed, those of gwin never flushed, so border points are window-served too) are
// loaded once, x the block's channels, into xwin [row][cols][LP] (xt is channel-block-major, BlockPixelAt: one
// DataCopyPad for the whole window when len == LP; else one per input row, or one for all rows of a full-width
// window), and a grad_input window gwin of the same shape is zeroed: xwin in the Loads of the previous window's
// last tile (DMA-only loads, DirectWindowLoad: its DMAs run under that tile's Back; else in the Loads of the
// window's first tile), gwin in the Back of the window's first tile (after an MTE3_V: the previous window's
// flush was issued right after its last Back, a pipeline step earlier). A corner pair whose pixels both
// lie in the window is copied from xwin (one UB->UB copy) and its contributions are added into gwin (one vector Add per
// corner, in program order; a pair of valid corners in one 2-repeat Add when LP <= 64 and the corner planes
// are <= 255 blocks apart); other pairs take the GM path above. At the end of the window, gwin is added
// to the unit's accumulator plane (atomic DataCopyPads shaped like the load; only this
// unit writes there, in program order); a window without any tile of the unit (band edges) is neither loaded
// nor flushed.
//
// Window-served points (LP <= 32, issue 11): a point whose 4 corners all lie in the open window takes no
// per-point load at all. Per tile, GatherOffsets (or WeightsAndOffsets, in the weights' vector levels) builds
// (vector only) the byte offset of every 32-B block of the 4 corner planes, and ONE Gatherb (21 uint32 per
// cycle, Vector table 12) fills the planes from xwin; every other row reads the zero area behind xwin, and the
// scalar unit then loads only the corners of the remaining points (border or far samples) as above. The served
// points' adds go in rounds (ScatterRounds: one barrier per round; AssignRound puts a point in the first round
// where none of its 4 gwin pixels has an add yet, so each pixel gets its adds in round order, fixed by the tile).
// Their scatter is one Add per point for LP <= 32 (2
// repeats = the corner rows; LP = 8: 2 blocks = the corner columns; LP 16/32 with cornerHop_: the contributions
// are stored by row, [row][corner][LP], so a corner pair is 2*LP contiguous lanes), else one per corner pair.
//
// 16-bit I/O (T = half / bfloat16): xt holds the input in T, so GM corner rows arrive in 4 staging planes
// xs[c][row][LPT] (T, LPT = roundup(blockC, 16): 32-B rows) and are cast to fp32 in UB after the tile's queue
// hand-over (CastStagedCorners, in the next tile's Loads). The window (DCN_WINDOW_ELEM_BYTES):
//   winT_ (LP == LPT <= kGatherMaxLp, i.e. 16 or 32 channels): xwin holds T and loads like an fp32 window; the
//   Gatherb fills the staging planes (half the bytes), window corner pairs are copied there too, and the
//   tile's 4 planes are cast in ONE Cast (a third less UB per window pixel than an fp32 window, so larger
//   windows);
//   otherwise xwin is fp32, loaded in pieces that fit the staging planes (DMA, MTE2_V, Cast, and V_MTE2 before
//   the next piece), and one Cast per GM-loaded corner.
// The casts are exact, so the results equal those from an fp32 input copy.
//
// Wide blocks (blockC = 128, K <= 32, R <= 32): a row is 16 blocks (2 repeats); wide blocks are whole
// 128-channel blocks, so they take the block-wise path (4 Add levels).
//
// UB (KT = min(K, 64), PT = pixelTile with R = PT*KT <= 64 (32 wide, 128 narrow), PTP = roundup(PT, 16),
//   LP = roundup(blockC, 8), hpr = LP/64 for LP > 64 else 1, plane = KT*PTP, rs = roundup(R, 8)): G tiles
//   2 x rs*LP*4, corner planes 2 x 4*rs*LP*4, raw offsets 2 x offRows*PTP*sizeof(T) (offRows = 3*KT, or
//   2*dg*K + K for spanOffsets_), coordinate planes
//   (13*plane + 2*PTP)*4 (incl. 3 fp32 offset planes or 2 base planes, compare mask, outside key), partials
//   3*plane*4, corner sums 4*rs*4, weight rows 2 x 11*rs*4, broadcast coefficients 4*max(R*hpr, rs)*8*4,
//   Gather table R*hpr*8*4, order tables 2 x (rs + plane)*4, 16-bit staging 4*rs*LPT*2, the window's zero
//   area LP*E and the corner-gather indices 4*rs*(LP*E/32)*4 for LP <= 32, E = DCN_WINDOW_ELEM_BYTES (op_host
//   Stage2UbBytes). The tiling halves blockC
//   (rounded up to whole 32-B rows, down to 8) while these exceed the UB limit (183.75 KiB); the UB window takes what
//   they leave.
#ifndef DCN_STAGE2_SAMPLE_H
#define DCN_STAGE2_SAMPLE_H

#include "dcn_common.h"
#include "dcn_stage1_matmul.h"

namespace dcn_kernel {

// Row vectors of a tile (dcn_tiling::kStage2RowVecs of rs = roundup(rows, 8) floats each): mw_0..3 (then
// gx, gy, gm, tmp), ly, lx, hy, hx, m, two temporaries.
constexpr int64_t RV_LY = 4;
constexpr int64_t RV_LX = 5;
constexpr int64_t RV_HY = 6;
constexpr int64_t RV_HX = 7;
constexpr int64_t RV_M = 8;
constexpr int64_t RV_T1 = 9;
constexpr int64_t RV_T2 = 10;
// Coordinate planes (coordBuf_, plane_ floats each): 0..7 xs ys x0 y0 lx ly hx hy (x before y, like the offsets'
// dx, dy blocks: an x/y pair of planes is one instruction of 2*plane_ elements; Coords swaps the first two pairs'
// roles once the sample bases are consumed: x0, y0 = base + floor in planes 0, 1 from then on, the compares'
// v0 + ceil, then the key, in 2, 3), CP_OFF..+2 the offsets
// in fp32 (16-bit I/O), CP_MSK the compare mask (then the column ramp and a block of ones in its unused half), CP_OUT
// the kOutsideKey plane (only without mask slots: MarkOutside); the base planes xb, yb (the sample bases of a one-row
// tile at output (0, 0): i*sW + kw*dW, kh*dH, fixed): 32-bit I/O in CP_OFF, CP_OFF + 1 (free: its offsets stay in the
// raw queue), 16-bit I/O in CP_OUT and one plane more (BasePlaneX); then the pixel bases hb[PTP], wb[PTP]
// (PixelBasePlane: plane DCN_STAGE2_COORD_PLANES(sizeof(T))). Planes 6, 7 (hx, hy) are scratch when hy, hx are rows
// (onesBlock_): ceil(d) + base (Coords' ceilRule), the window index and a corner plane (WeightsAndOffsets).
constexpr int64_t CP_OFF = 8;
constexpr int64_t CP_MSK = 11;
constexpr int64_t CP_OUT = 12;
// The x base plane (y: the next one): CP_OFF for 32-bit I/O, CP_OUT for 16-bit I/O (CP_OFF..+2 hold its offsets; the
// base planes then need the mask slots, which leave CP_OUT unused).
__aicore__ constexpr inline int64_t BasePlaneX(int64_t elt) { return elt == 4 ? CP_OFF : CP_OUT; }
// The plane of the pixel bases hb, wb (the last rows of the coordinate buffer).
__aicore__ constexpr inline int64_t PixelBasePlane(int64_t elt) { return DCN_STAGE2_COORD_PLANES(elt); }
// y0 of a sample point outside the whole-sample window (every real y0 is >= -1)
constexpr float kOutsideKey = -4.0f;
// e of a point the UB window does not serve (the fused gather offsets, ExpandTable): above every window offset; exact
// in fp32 (the window offsets are integers below 2^22), and e + delta_c + 32*j stays above the zero area's offset
constexpr float kFarOffset = 8388608.0f;
// keys (y0 + 1)*(W + 2) + x0 + 1 of points inside stay below (H + 1)*(W + 2): int16 holds them up to this product
constexpr int64_t kQuadKeyLimit = 32767;
// Larger images (relKeys_): the int16 holds the key relative to the tile's reference row (KeyBase), clamped to
// [kRelKeyFar, kQuadKeyLimit]; either end marks a point whose fp32 key the Loads read instead (outside, or sampled
// beyond the rows the int16 spans).
constexpr float kRelKeyFar = -1.0f;

// kSample: the chunk's units (image, block, band) sample (scatter and partials); with shared fronts (DcnParams
// recTiles > 0) each tile's front comes from its record (LoadRecordKeys, LoadRecordTableAndRows) instead of Coords and
// Weights. kRecords: the chunk's (image, band, deformable group) units compute every tile's front once and store it
// as its record (ProduceRecord), in the chunk's first phase.
enum class Stage2Mode : int32_t { kSample = 0, kRecords = 1 };

template <typename T>
class Stage2Sample {
public:
    __aicore__ inline void Run(
        AscendC::TPipe& pipe, const DcnParams& p, const DcnTensors<T>& t, int64_t aivIdx, Stage1Feed<T>* feed,
        Stage2Mode mode = Stage2Mode::kSample)
    {
        Setup(pipe, p, t, mode, 2);
        if (produce_) {
            const int64_t items = RecordItems(aivIdx);
            for (int64_t k = 0; k < items; ++k) {
                RecordItem(aivIdx, k);
            }
            FinishRecords();
        } else {
            const int64_t total = p.cImgs * p.numBlocks * p.pixelBands; // units of the current pixel chunk
            const int64_t mine = SnakeCount(total, aivIdx, p.usedVecCores);
            for (int64_t k = 0; k < mine; ++k) {
                if (feed != nullptr) {
                    feed->Tick(k, mine); // the grad_weight GEMM runs meanwhile
                }
                const int64_t u = SnakeUnit(k, aivIdx, p.usedVecCores);
                const int64_t nb = u / p.pixelBands;
                ProcessUnit(p.cN0 + nb / p.numBlocks, nb % p.numBlocks, u % p.pixelBands);
            }
        }
        ReleaseEvents();
        pipe.Reset(); // the SyncAll that follows starts with PipeBarrier<PIPE_ALL>
    }

    // The records' producer beside phase A's other units (dcn_phase_a.h), in the UB after theirs: RecordsUbBytes
    // (recordSlots gather tables: 2, or 1 where two do not fit) before BeginRecords, then this core's items
    // (RecordItem k < the count BeginRecords returns) in any order with the other units' work, then EndRecords.
    __aicore__ inline int64_t RecordsUbBytes(const DcnParams& p, int64_t recordSlots)
    {
        Geometry(p, Stage2Mode::kRecords, recordSlots);
        int64_t bytes = 0;
        for (int64_t i = 0; i < kProducerBuffers; ++i) {
            bytes += ProducerUb(i);
        }
        return bytes;
    }
    __aicore__ inline int64_t BeginRecords(
        AscendC::TPipe& pipe, const DcnParams& p, const DcnTensors<T>& t, int64_t aivIdx, int64_t recordSlots)
    {
        Setup(pipe, p, t, Stage2Mode::kRecords, recordSlots);
        return RecordItems(aivIdx);
    }
    // Item k of this core's records: a slice of the tiles of one (image, band, deformable group) unit.
    __aicore__ inline void RecordItem(int64_t aivIdx, int64_t k)
    {
        const DcnParams& p = *p_;
        // units (image, band, deformable group), the group's first block standing for all of them, in slices of
        // `slice` tiles (about two slices per vector core): a record is a function of the inputs only, so
        // which core computes it does not matter
        const int64_t blocksPerDg = (p.cinDg / p.segLen) * p.blocksPerSeg;
        int64_t slice, slices;
        RecordSlices(p, slice, slices);
        const int64_t item = SnakeUnit(k, aivIdx, p.usedVecCores);
        const int64_t u = item / slices, sl = item - u * slices;
        const int64_t d = u % p.dg, band = (u / p.dg) % p.pixelBands, i = u / (p.dg * p.pixelBands);
        recFirst_ = sl * slice;
        recEnd_ = recFirst_ + slice;
        ProcessUnit(p.cN0 + i, d * blocksPerDg, band);
    }
    __aicore__ inline void EndRecords()
    {
        FinishRecords();
        ReleaseEvents();
    }

private:
    __aicore__ inline void RecordSlices(const DcnParams& p, int64_t& slice, int64_t& slices) const
    {
        const int64_t units = p.cImgs * p.pixelBands * p.dg;
        slice = MaxI(1, CeilDiv(units * p.recTiles, 4 * p.usedVecCores));
        slices = CeilDiv(p.recTiles, slice);
    }
    __aicore__ inline int64_t RecordItems(int64_t aivIdx) const
    {
        const DcnParams& p = *p_;
        int64_t slice, slices;
        RecordSlices(p, slice, slices);
        return SnakeCount(p.cImgs * p.pixelBands * p.dg * slices, aivIdx, p.usedVecCores);
    }
    __aicore__ inline void ReleaseEvents()
    {
        if (consume_) {
            GetTPipePtr()->template ReleaseEventID<AscendC::HardEvent::MTE2_S>(recSEvent_);
            GetTPipePtr()->template ReleaseEventID<AscendC::HardEvent::MTE2_V>(tabEvent_);
            for (int64_t slot = 0; slot < 2; ++slot) {
                GetTPipePtr()->template ReleaseEventID<AscendC::HardEvent::MTE2_V>(rowEvent_[slot]);
            }
        }
        GetTPipePtr()->template ReleaseEventID<AscendC::HardEvent::V_S>(coordEvent_);
        for (int64_t slot = 0; slot < 2; ++slot) {
            GetTPipePtr()->template ReleaseEventID<AscendC::HardEvent::MTE3_V>(storeEvent_[slot]);
        }
    }

    // The producer's buffers (Setup with produce_; RecordsUbBytes), bytes after Geometry: 0 raw offsets (2-deep
    // queue), 1 coordinate planes, 2 key rows, 3 corner sums (GatherOffsets' q, d, qb rows), 4 row vectors,
    // 5 gather tables and their work rows (tableSlots_ of tableSpan_ floats; none without corner gathers), 6 row
    // order tables, 7 plane order tables, 8 the offset table's Gather indices (unfused offsets only). No G tiles,
    // corner planes, staging, partials, broadcast table or zeroing state: the Back's.
    static constexpr int64_t kProducerBuffers = 9;
    __aicore__ inline int64_t ProducerUb(int64_t i) const
    {
        const int64_t bytes[kProducerBuffers] = {
            2 * offRows_ * ptp_ * static_cast<int64_t>(sizeof(T)),
            (cpHb_ * plane_ + 2 * ptp_) * 4,
            2 * 2 * rs_ * 4,
            4 * rs_ * 4,
            2 * dcn_tiling::kStage2RowVecs * rs_ * 4,
            gatherCorners_ ? (tableSlots_ ? 2 : 1) * tableSpan_ * 4 : 0,
            2 * rs_ * 4,
            2 * plane_ * 4,
            gatherCorners_ && !fusedOffsets_ ? 4 * cornerRows_ * winNb_ * 4 : 0};
        return RoundUp(bytes[i], dcn_tiling::kUbBlockBytes);
    }

    // The stage's shape-only geometry and paths (no UB): tiles, planes, offsets' layout, window element, gather
    // tables and the fused offsets' conditions. recordSlots: the producer's gather tables at most (2 or 1).
    __aicore__ inline void Geometry(const DcnParams& p, Stage2Mode mode, int64_t recordSlots)
    {
        produce_ = mode == Stage2Mode::kRecords;
        consume_ = !produce_ && p.recTiles > 0;
        kt_ = MinI(p.k, dcn_tiling::kStage2MaxKt);
        pt_ = p.pixelTile;
        ptp_ = RoundUp(pt_, dcn_tiling::kPixelAlign);
        lp_ = RoundUp(p.blockC, 8);
        plane_ = kt_ * ptp_;
        // dg > 1 and the span of a group's offset channels (2*dg*K + K rows of T) fits kOffsetSpanMaxBytes: a
        // whole tile's offsets load as one DMA of the span (offset block j of the tile at offHop_ = dg*K rows * PTP
        // apart); otherwise offset block j lands at j * plane_ (offHop_ = plane_)
        const int64_t span = 2 * p.dg * p.k + p.k;
        spanOffsets_ = p.dg > 1 && p.k <= dcn_tiling::kStage2MaxKt &&
                       span * static_cast<int64_t>(sizeof(T)) <= dcn_tiling::kOffsetSpanMaxBytes;
        offRows_ = spanOffsets_ ? MaxI(span, 3 * kt_) : 3 * kt_;
        offHop_ = spanOffsets_ ? p.dg * p.k * ptp_ : plane_;
        rows_ = pt_ * kt_;
        // a row of a wide block (LP = 128 = 2 repeats of 64 fp32 lanes) is reduced and scaled as 2 repeats
        hpr_ = lp_ > dcn_tiling::kRepeatLanes ? lp_ / dcn_tiling::kRepeatLanes : 1;
        rs_ = RoundUp(rows_, dcn_tiling::kRedAlign);
        // the corner planes hold whole 8-row repeats (rs_ rows each), so the per-row vector work over them needs no
        // tail instructions and the 4 planes form one run of 4*rs_ rows
        cornerRows_ = rs_;
        lpt_ = RoundUp(p.blockC, 16);
        cpXb_ = BasePlaneX(static_cast<int64_t>(sizeof(T)));
        cpHb_ = PixelBasePlane(static_cast<int64_t>(sizeof(T)));
        // the partials plane per slot when every tile holds all K kernel points (K <= KT), else one
        slotParts_ = kt_ == p.k;
        directOffsets_ = DirectOffsetGrads(p, static_cast<int64_t>(sizeof(T)));
        rowParts_ = RowOrderParts(p, static_cast<int64_t>(sizeof(T)));
        // per corner max(rows*hpr, rs) broadcast blocks: rows*hpr for the Gather path, rs (Brcb writes whole
        // repeats of 8 rows) for the block-wise path
        brcStride_ = MaxI(rows_ * hpr_, rs_) * dcn_tiling::kBrcLanes;
        // xwin holds the input in T (winT_: 16-bit I/O, LP == LPT <= kGatherMaxLp; its gathered corner rows land
        // in the staging planes and are cast per tile) or in fp32; gwin is fp32. Pixels are LP elements apart.
        winElt_ = DCN_WINDOW_ELEM_BYTES(p.blockC, static_cast<int64_t>(sizeof(T)));
        winT_ = winElt_ != 4;
        if (p.winRows > 0) {
            const uint32_t winPixels = static_cast<uint32_t>(p.winRows * p.winCols);
            // xwin is followed by a zero area of one pixel (zeroOff_ bytes from xwin): the corner gathers of
            // points the window does not serve read it
            zeroOff_ = static_cast<int64_t>(winPixels * lp_ * winElt_);
        }
        // a block of ones behind the column ramp when the mask plane has room (OneMinus), never written again
        onesBlock_ = plane_ / 2 + ptp_ + dcn_tiling::kBrcLanes <= plane_;
        maskBytes_ = RoundUp(RoundUp(plane_, dcn_tiling::kRepeatLanes) / 8, dcn_tiling::kUbBlockBytes);
        maskSlots_ =
            4 * maskBytes_ <= 2 * plane_; // four masks (Coords, GatherOffsets) before the ramp (plane/2 floats)
        rampRow_ = kt_ >= 2;
        // GatherOffsets' Axpy form of the window index (below): for a served point every term is an integer of
        // magnitude at most (H + 2)*(W + 2), exact in fp32 below 2^24 (larger images: the window-relative form).
        // Corner gathers (Gatherb from the window, see GatherOffsets): a window pixel of 1, 2 or 4 blocks, whole
        // repeats of 8 blocks over the 4 corner planes (fp32, or the staging planes for winT_), and the offset work
        // areas within the broadcast buffer.
        const int64_t nb = lp_ * winElt_ / dcn_tiling::kUbBlockBytes;
        winNb_ = nb;
        const int64_t cornerBlocks = 4 * cornerRows_ * nb;
        gatherTableAt_ = RoundUp(cornerBlocks, 8);
        gatherCorners_ = p.winRows > 0 && lp_ <= dcn_tiling::kGatherMaxLp && 8 % nb == 0 && cornerBlocks % 8 == 0 &&
                         cornerBlocks / 8 <= 255 && gatherTableAt_ + 4 * nb * rs_ <= 4 * brcStride_;
        axpyIndex_ = (p.h + 2) * (p.w + 2) < (int64_t{1} << 24);
        // records: a gather table (and its work rows) per slot when two fit the broadcast buffer and recordSlots
        // allows, so that a tile's weights need not wait for the previous record's stores
        tableSpan_ = RoundUp(gatherTableAt_ + 4 * nb * rs_, 8);
        tableSlots_ = produce_ && recordSlots > 1 && gatherCorners_ && 2 * tableSpan_ <= 4 * brcStride_;
        // WeightsAndOffsets: the gather offsets in the levels of the weights (every tile holds all K kernel points,
        // so one row order; hy, hx by OneMinus; the mask slots; the Axpy index)
        fusedOffsets_ = gatherCorners_ && onesBlock_ && maskSlots_ && axpyIndex_ && kt_ == p.k;
    }

    // Geometry, the UB (the sampler's buffers; the producer's ProducerUb set) and its defined contents, the
    // pipeline's state and events.
    __aicore__ inline void Setup(
        AscendC::TPipe& pipe, const DcnParams& p, const DcnTensors<T>& t, Stage2Mode mode, int64_t recordSlots)
    {
        p_ = &p;
        t_ = &t;
        Geometry(p, mode, recordSlots);
        if (produce_) { // (records: no G rows, corner planes, staging, partials, broadcast table or zeroing state)
            pipe.InitBuffer(offQue_, 2, static_cast<uint32_t>(ProducerUb(0) / 2));
            pipe.InitBuffer(coordBuf_, static_cast<uint32_t>(ProducerUb(1)));
            pipe.InitBuffer(keyBuf_, static_cast<uint32_t>(ProducerUb(2)));
            pipe.InitBuffer(redBuf_, static_cast<uint32_t>(ProducerUb(3)));
            pipe.InitBuffer(rowBuf_, static_cast<uint32_t>(ProducerUb(4)));
            if (ProducerUb(5) > 0) {
                pipe.InitBuffer(brcBuf_, static_cast<uint32_t>(ProducerUb(5)));
            }
            pipe.InitBuffer(rowTabBuf_, static_cast<uint32_t>(ProducerUb(6)));
            pipe.InitBuffer(planeTabBuf_, static_cast<uint32_t>(ProducerUb(7)));
        } else {
            // G tiles of RoundUp(pt*kt, 8) rows (cornerRows_): the contributions' whole 8-row repeats read them
            pipe.InitBuffer(gQue_, 2, static_cast<uint32_t>(cornerRows_ * lp_ * 4));
            pipe.InitBuffer(offQue_, 2, static_cast<uint32_t>(offRows_ * ptp_ * sizeof(T)));
            pipe.InitBuffer(xQue_, 2, static_cast<uint32_t>(4 * cornerRows_ * lp_ * 4));
            if constexpr (!IsSameType<T, float>::value) {
                const int64_t stageElems = 4 * cornerRows_ * lpt_;
                pipe.InitBuffer(xsBuf_, static_cast<uint32_t>(stageElems * sizeof(T)));
                xs_ = xsBuf_.Get<T>();
                // padding lanes (never loaded) are cast along with the rows: defined once
                AscendC::Duplicate(
                    xs_.template ReinterpretCast<float>(), 0.0f, static_cast<int32_t>(stageElems * sizeof(T) / 4));
            }
            pipe.InitBuffer(coordBuf_, static_cast<uint32_t>((cpHb_ * plane_ + 2 * ptp_) * 4));
            pipe.InitBuffer(partBuf_, static_cast<uint32_t>((slotParts_ ? 2 : 1) * 3 * plane_ * 4));
            pipe.InitBuffer(keyBuf_, static_cast<uint32_t>(2 * 2 * rs_ * 4));
            pipe.InitBuffer(redBuf_, static_cast<uint32_t>(4 * rs_ * 4));
            pipe.InitBuffer(rowBuf_, static_cast<uint32_t>(2 * dcn_tiling::kStage2RowVecs * rs_ * 4));
            pipe.InitBuffer(brcBuf_, static_cast<uint32_t>(4 * brcStride_ * 4));
            pipe.InitBuffer(tableBuf_, static_cast<uint32_t>(rows_ * hpr_ * dcn_tiling::kBrcLanes * 4));
            pipe.InitBuffer(rowTabBuf_, static_cast<uint32_t>(2 * rs_ * 4));
            pipe.InitBuffer(planeTabBuf_, static_cast<uint32_t>(2 * plane_ * 4));
            // the accumulator planes' on-demand zeroing (ZeroTo): a zero area, and a load and a store word of the
            // unit's zeroed-row count (BeginPlane, EndPlane)
            pipe.InitBuffer(planeZeroBuf_, static_cast<uint32_t>(dcn_tiling::kPlaneZeroBytes));
            pipe.InitBuffer(zeroStateBuf_, static_cast<uint32_t>(2 * dcn_tiling::kUbBlockBytes));
        }
        zerosReady_ = false;
        CloseWindowState();
        if (p.winRows > 0 && !produce_) { // (records: the windows' geometry only, no window buffers)
            const uint32_t winPixels = static_cast<uint32_t>(p.winRows * p.winCols);
            pipe.InitBuffer(xwinBuf_, static_cast<uint32_t>((winPixels + 1) * lp_ * winElt_));
            pipe.InitBuffer(gwinBuf_, static_cast<uint32_t>(winPixels * lp_ * 4));
            xwin_ = xwinBuf_.Get<float>();
            gwin_ = gwinBuf_.Get<float>();
            // padding lanes of the window pixels (never loaded) and the zero block are defined once
            AscendC::Duplicate(xwin_, 0.0f, static_cast<int32_t>((winPixels + 1) * lp_ * winElt_ / 4));
        }

        // Defined contents in the padding columns of the coordinate planes.
        coord_ = coordBuf_.Get<float>();
        AscendC::Duplicate(coord_, 0.0f, static_cast<int32_t>(cpHb_ * plane_ + 2 * ptp_));
        outside_ = coord_[CP_OUT * plane_]; // a plane of kOutsideKey (Select's tensor form), never written again
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Duplicate(outside_, kOutsideKey, static_cast<int32_t>(plane_));
        if (onesBlock_) {
            AscendC::Duplicate(Ones(), 1.0f, static_cast<int32_t>(dcn_tiling::kBrcLanes));
        }
        AscendC::LocalTensor<T> raw0 = offQue_.AllocTensor<T>(); // both queue buffers
        AscendC::LocalTensor<T> raw1 = offQue_.AllocTensor<T>();
        AscendC::Duplicate(
            raw0.template ReinterpretCast<float>(), 0.0f, static_cast<int32_t>(offRows_ * ptp_ * sizeof(T) / 4));
        AscendC::Duplicate(
            raw1.template ReinterpretCast<float>(), 0.0f, static_cast<int32_t>(offRows_ * ptp_ * sizeof(T) / 4));
        offQue_.FreeTensor(raw0);
        offQue_.FreeTensor(raw1);
        // rows past a tile's G rows (the padding to whole repeats, short tiles) are read by the contributions: defined
        if (!produce_) { // (records: no G rows)
            AscendC::LocalTensor<float> g0 = gQue_.AllocTensor<float>(), g1 = gQue_.AllocTensor<float>();
            AscendC::Duplicate(g0, 0.0f, static_cast<int32_t>(cornerRows_ * lp_));
            AscendC::Duplicate(g1, 0.0f, static_cast<int32_t>(cornerRows_ * lp_));
            gQue_.FreeTensor(g0);
            gQue_.FreeTensor(g1);
        }
        AscendC::Duplicate(rowBuf_.Get<float>(), 0.0f, static_cast<int32_t>(2 * dcn_tiling::kStage2RowVecs * rs_));
        AscendC::Duplicate(redBuf_.Get<float>(), 0.0f, static_cast<int32_t>(4 * rs_));
        if (produce_) { // a record carries both key rows of its slot, the second unused with one key per point
            AscendC::Duplicate(keyBuf_.Get<float>(), 0.0f, static_cast<int32_t>(2 * 2 * rs_));
        }
        // broadcast table (the Back's): entry (r*hpr + h)*8 + l = byte offset of row r (Gather copies coef[r] into
        // one 32-B block per repeat of the row)
        // No scalar UB writes in the setup (the scalar unit goes on to the first tiles while the vector pipe runs
        // it): the table's row 0 (zeros; the rows below by ExtendByDoubling) and a ramp 0..7 in coordinate plane 0
        // (zeroed above; SetupTables: the rest) by masked Adds of 1, 2, 4
        if (!produce_) {
            AscendC::Duplicate(tableBuf_.Get<int32_t>(), 0, static_cast<int32_t>(hpr_ * dcn_tiling::kBrcLanes));
        }
        for (uint64_t bit = 1; bit < dcn_tiling::kBrcLanes; bit *= 2) {
            uint64_t lanes[2] = {0, 0};
            for (uint64_t e = 0; e < dcn_tiling::kBrcLanes; ++e) {
                lanes[0] |= (e & bit) != 0 ? uint64_t{1} << e : 0;
            }
            AscendC::Adds(coord_, coord_, static_cast<float>(bit), lanes, 1, AscendC::UnaryRepeatParams());
            AscendC::PipeBarrier<PIPE_V>();
        }
        basesFenced_ = false;
        hasCoord_ = hasFront_ = hasBack_ = false;
        fusedStarted_ = fusedPending_ = fusedUnfenced_ = false;
        coordsPending_ = coordsUnfenced_ = false;
        coordsPc_ = 0;
        coordsInBack_ = lp_ >= 16;
        coordEvent_ = GetTPipePtr()->template AllocEventID<AscendC::HardEvent::V_S>();
        winEvent_ = GetTPipePtr()->template AllocEventID<AscendC::HardEvent::MTE2_V>();
        winWait_ = false;
        for (int64_t slot = 0; slot < 2; ++slot) {
            storeEvent_[slot] = GetTPipePtr()->template AllocEventID<AscendC::HardEvent::MTE3_V>();
            storePending_[slot] = false;
        }
        storeSyncAll_ = false;

        nextSlot_ = 0;
        winSeq_ = 0;
        openWin_ = xwinOwner_ = gwinOwner_ = useWin_ = -1;
        footCount_ = 0;
        servedCount_ = 0;
        addsInFlight_ = false;
        ClearRoundMap();
        // contributions by row ([row][c][LP], the 4 corners of a row contiguous), 8 rows per repeat
        cornerHop_ = lp_ <= dcn_tiling::kRepeatLanes && rows_ <= 255 && brcStride_ / dcn_tiling::kBrcLanes <= 255;
        const int64_t nb = winNb_;
        const int64_t gb = lp_ / 8; // fp32 blocks per gwin pixel (the scatter's Adds)
        tableBase_ = 0;
        // fusedOffsets_: the table from e in row order (ExpandTable; its row vector behind the table in the broadcast
        // buffer: fits, as the table and GatherOffsets' work area do); no Gather indices (the host's UB plan still
        // reserves them: it does not decide the fused path)
        if (gatherCorners_ && !fusedOffsets_) { // Gather indices of the offset table (GatherOffsets), entry (c, row, j)
            // <- element row of S row c*nb + j
            pipe.InitBuffer(gatherIdxBuf_, static_cast<uint32_t>(4 * cornerRows_ * nb * 4));
            AscendC::LocalTensor<uint32_t> idx = gatherIdxBuf_.Get<uint32_t>();
            for (int64_t c = 0; c < (consume_ ? 0 : 4); ++c) { // (shared fronts: the records hold the tables)
                for (int64_t row = 0; row < cornerRows_; ++row) {
                    for (int64_t j = 0; j < nb; ++j) {
                        const int64_t at = (c * nb + j) * rs_ + row;
                        idx.SetValue(
                            static_cast<uint32_t>((c * cornerRows_ + row) * nb + j), static_cast<uint32_t>(at * 4));
                    }
                }
            }
            // (the first pixel tile's S_V in Coords orders these writes before the vector reads)
        }
        if (!produce_) { // the broadcast table's rows 1.. (entry (r*hpr + h)*8 + l = r*4; 32-B units)
            ExtendByDoubling(tableBuf_.Get<int32_t>(), hpr_ * dcn_tiling::kBrcLanes, rows_, 4);
        }
        SetupTables();
        // one-row tiles with every kernel point: the sample bases of output (0, 0), once per kernel point row
        // (a tile adds its row's and column's offsets, Coords); the ramp is never written again
        basePlanes_ = rampRow_ && kt_ == p.k && (IsSameType<T, float>::value || maskSlots_);
        for (int64_t k = 0; basePlanes_ && k < p.k; ++k) {
            const int64_t khi = k / p.kw, kwi = k - khi * p.kw;
            AscendC::Duplicate(
                coord_[(cpXb_ + 1) * plane_ + k * ptp_], static_cast<float>(khi * p.dilationH),
                static_cast<int32_t>(ptp_));
            AscendC::Adds(
                coord_[cpXb_ * plane_ + k * ptp_], Ramp(), static_cast<float>(kwi * p.dilationW),
                static_cast<int32_t>(ptp_));
        }
        if (basePlanes_) {
            AscendC::PipeBarrier<PIPE_V>(); // the base planes are complete before the first tile reads them
        }
        // one Add for the 4 corners of a point (LP = 8: repeat = corner row pair, block = corner column)
        quadAdds_ = gatherCorners_ && gb == 1 && 2 * cornerRows_ <= 255 && p.winCols <= 255;
        // one Add for the 4 corners of a point whose contributions are stored by row (cornerHop_, len == LP):
        // its two corner pairs are 2*LP contiguous lanes each, one repeat per pair
        pointAdds_ = cornerHop_ && 2 * lp_ <= dcn_tiling::kRepeatLanes && p.winCols * gb <= 255;
        keyPath_ = (p.h + 1) * (p.w + 2) < (int64_t{1} << 24);
        // int16 keys where the scalar unit binds the tiles (narrow blocks: tiles of 128 or, 8-channel, 144 rows, one
        // Add per point); wider blocks are vector-bound, where the extra Cast and barrier would cost more than the
        // reads save Larger images (relKeys_): keys relative to the tile's reference row (KeyBase), for blocks whose
        // coordinates run before the Loads, not beside the Back (coordsInBack_): the conversion's scratch is the row
        // sums' buffer
        const bool bigImage = (p.h + 1) * (p.w + 2) > kQuadKeyLimit;
        relKeys_ = keyPath_ && lp_ <= dcn_tiling::kNarrowBlockC && !coordsInBack_ && bigImage;
        quadKeys_ = keyPath_ && lp_ <= dcn_tiling::kNarrowBlockC && (!bigImage || relKeys_);

        if (consume_) { // a tile's record: in UB for the scalar unit (keys) and the vector pipe (gather table, rows)
            recSEvent_ = GetTPipePtr()->template AllocEventID<AscendC::HardEvent::MTE2_S>();
            tabEvent_ = GetTPipePtr()->template AllocEventID<AscendC::HardEvent::MTE2_V>();
            for (int64_t slot = 0; slot < 2; ++slot) {
                rowEvent_[slot] = GetTPipePtr()->template AllocEventID<AscendC::HardEvent::MTE2_V>();
            }
        }
        recFirst_ = 0;
        recEnd_ = int64_t{1} << 62; // every tile (sampling)
    }

    // Per tile row (sample point), filled by the load pass and read by the scatter pass.
    struct RowInfo {
        int32_t y0, x0;
        bool inside;                  // whole-sample window -1 < y < H, -1 < x < W
        bool served;                  // its 4 corners lie in the UB window (gathered there, added into gwin)
        int8_t gmFirst[2], gmLast[2]; // 16-bit I/O: corners of pair r loaded from GM into staging (-1: none)
    };

    // One tile of the pipeline: unit (n, block b in conv group gc at cl0, deformable group dgi, channels
    // [c0, c0+len)), pixels [p0, p0+pt), kernel points [k0, k0+kt); slot = tile parity (per-slot buffers).
    struct TileJob {
        int64_t n, b, gc, cl0, dgi, c0, len, p0, pt, k0, kt, slot;
        int64_t win; // the sequence number of its UB window (OpenWindow), -1: none
        int64_t rec; // shared fronts: its record (RecordOf), in the unit's tile order
    };

    // A UB window's geometry (OpenWindow), kept in a ring of kWinSlots while tiles of it are in flight.
    struct WinGeom {
        int64_t lo, hi, xlo, xhi, imgLo, imgHi, imgXLo, imgXHi;
    };
    static constexpr int64_t kWinSlots = 8; // > the windows of the tiles in flight (4) and gwin's owner

    __aicore__ inline void ProcessUnit(int64_t n, int64_t b, int64_t band)
    {
        const DcnParams &p = *p_;
        int64_t c0, len;
        BlockRange(p, b, c0, len);
        const int64_t gc = c0 / p.cinG, cl0 = c0 - gc * p.cinG, dgi = c0 / p.cinDg;
        const bool tileRuns =
            DCN_BAND_TILE_RUNS(p.winRows, p.winOutCols, p.wo, p.chunkImgs * p.numBlocks * p.pixelBands);
        const int64_t pBegin =
            p.cQ0 + DCN_BAND_START(p.cQLen, p.chunkPix, p.bandLen, p.pixelBands, pt_, tileRuns, band);
        const int64_t pEnd =
            p.cQ0 +
            MinI(p.cQLen, DCN_BAND_START(p.cQLen, p.chunkPix, p.bandLen, p.pixelBands, pt_, tileRuns, band + 1));
        giaccBase_ = band * p.giaccPlane - AccShift(p, n);
        recBase_ = (((n - p.cN0) * p.pixelBands + band) * p.dg + dgi) * p.recTiles;
        recSeq_ = 0;
        if (produce_) {
            if (pBegin >= pEnd) {
                return;
            }
        } else {
            BeginPlane(n, b, band, c0, len);
            if (pBegin >= pEnd) {
                // a band past the end of a short chunk: the last of its group still completes the plane
                EndPlane(false);
                return;
            }
        }
        TileJob unit;
        unit.n = n;
        unit.b = b;
        unit.gc = gc;
        unit.cl0 = cl0;
        unit.dgi = dgi;
        unit.c0 = c0;
        unit.len = len;
        unit.p0 = unit.pt = unit.k0 = unit.kt = unit.slot = 0;
        openWin_ = -1;
        if (p.winRows == 0) {
            ProcessPixels(unit, pBegin, pEnd);
            Drain();
            if (!produce_) {
                EndPlane(true);
            }
            return;
        }
        const int64_t ohLast = (pEnd - 1) / p.wo;
        const bool ring = gatherCorners_ && len == lp_; // border points window-served (OpenWindow)
        for (int64_t oh0 = pBegin / p.wo; oh0 <= ohLast; oh0 += p.winOutRows) {
            const int64_t ohEnd = MinI(oh0 + p.winOutRows, ohLast + 1);
            if (p.winOutCols >= p.wo) {  // full-width window: one contiguous pixel range (tiles span rows)
                const int64_t from = MaxI(pBegin, oh0 * p.wo), to = MinI(pEnd, ohEnd * p.wo);
                OpenWindow(oh0, ohEnd - 1, 0, p.wo - 1, ring);
                ProcessPixels(unit, from, to);
                continue;
            }
            for (int64_t ow0 = 0; ow0 < p.wo; ow0 += p.winOutCols) {
                const int64_t owEnd = MinI(ow0 + p.winOutCols, p.wo);
                // the window's pixels inside the band: one contiguous range per output row
                const int64_t first = MaxI(pBegin, oh0 * p.wo + ow0);
                const int64_t last = MinI(pEnd, (ohEnd - 1) * p.wo + owEnd);
                if (first >= last) {
                    continue;
                }
                OpenWindow(oh0, ohEnd - 1, ow0, owEnd - 1, ring);
                for (int64_t oh = oh0; oh < ohEnd; ++oh) {
                    const int64_t from = MaxI(pBegin, oh * p.wo + ow0), to = MinI(pEnd, oh * p.wo + owEnd);
                    if (from < to) {
                        ProcessPixels(unit, from, to);
                    }
                }
            }
        }
        Drain();
        if (gwinOwner_ >= 0) { // the unit's last window
            UseWindow(gwinOwner_);
            FlushWindow(n, c0, len);
        }
        gwinOwner_ = xwinOwner_ = -1;
        if (!produce_) {
            EndPlane(true);
        }
    }

    // The unit's accumulator plane (band, image slot, block): its elements [0, zeroElems_) are zeroed (or hold
    // contributions), the rest is undefined until ZeroTo zeroes it ahead of its first write (whole rows before a
    // write: EnsureRows). The count of whole rows starts at 0 in the first chunk of the image group (a new plane, or an
    // image-local plane whose previous image was flushed) and is carried from chunk to chunk in the `zeroed` region
    // (one unit per plane and chunk; SyncAll between chunks).
    __aicore__ inline void BeginPlane(int64_t n, int64_t b, int64_t band, int64_t c0, int64_t len)
    {
        const DcnParams& p = *p_;
        planeAt_ = giaccBase_ + BlockPixelAt(p, n, c0, len, 0, 0);
        rowElems_ = p.w * len;
        stateAt_ = (band * p.accImgs + n % p.accImgs) * p.numBlocks + b;
        int64_t rows = 0;
        if (p.cIdx % p.pixChunks != 0) {
            AscendC::LocalTensor<int32_t> word = zeroStateBuf_.Get<int32_t>();
            PipeSync<AscendC::HardEvent::S_MTE2>(); // the last unit's scalar read of the word precedes the load
            AscendC::DataCopyExtParams cp{1, 4, 0, 0, 0};
            AscendC::DataCopyPadExtParams<int32_t> noPad;
            AscendC::DataCopyPad(word, t_->zeroed[stateAt_], cp, noPad);
            PipeSync<AscendC::HardEvent::MTE2_S>();
            rows = word.GetValue(0);
        }
        zeroElems_ = fencedElems_ = seenElems_ = zeroTarget_ = rows * rowElems_; // earlier chunks': their SyncAll
        zeroAtSet_[0] = zeroAtSet_[1] = zeroElems_;
        gmFootCount_ = 0; // another plane: no GM write of this unit yet (the last unit's are in its own plane)
        flushOpen_ = false;
    }
    // The image group's last chunk zeroes the plane's remaining elements (stage 3 reads it whole after the SyncAll);
    // other chunks store the count of whole zeroed rows for the plane's next unit, unless the unit had no pixels (a
    // short chunk's empty band, never a group's first chunk: its count stays as loaded).
    __aicore__ inline void EndPlane(bool hasPixels)
    {
        const DcnParams& p = *p_;
        if (p.cIdx % p.pixChunks == p.pixChunks - 1) {
            ZeroTo(p.h * rowElems_, false, -1);
            return;
        }
        if (!hasPixels) {
            return;
        }
        // written by the vector pipe (the Matmul client holds an MTE3_S flag while the grad_weight GEMM runs); the
        // last store of the word (a unit with pixels too) has read it and its Duplicate is complete: this unit's
        // Backs waited for MTE3 (MTE3_V) and have PipeBarrier<PIPE_V>s since
        AscendC::LocalTensor<int32_t> word = zeroStateBuf_.Get<int32_t>()[dcn_tiling::kUbBlockBytes / 4];
        AscendC::Duplicate(
            word, static_cast<int32_t>(zeroElems_ / rowElems_), static_cast<int32_t>(dcn_tiling::kBrcLanes));
        PipeSync<AscendC::HardEvent::V_MTE3>();
        AscendC::DataCopyExtParams cp{1, 4, 0, 0, 0};
        AscendC::DataCopyPad(t_->zeroed[stateAt_], word, cp);
    }
    // Plane elements [zeroElems_, elems) <- 0 in kPlaneZeroBytes DMAs, at most `dmas` of them (-1: all), never
    // written since the plane's group began (no write of this core is in flight there). `atomic`: the caller's
    // atomic add mode, off for the zeros. They complete before a later write of theirs by a PipeBarrier<PIPE_MTE3>
    // (EnsureRows) unless an MTE3 -> V -> MTE3 round trip has ordered them already: a wait for MTE3 on V records what
    // was zeroed before its flag was set (ZerosSeen), the V_MTE3 that follows fences it (FenceSeenZeros).
    __aicore__ inline void ZeroTo(int64_t elems, bool atomic, int64_t dmas)
    {
        if (elems <= zeroElems_ || dmas == 0) {
            return;
        }
        if (atomic) {
            AscendC::SetAtomicNone();
        }
        const int64_t chunk = dcn_tiling::kPlaneZeroBytes / 4;
        AscendC::LocalTensor<float> zeros = planeZeroBuf_.Get<float>();
        if (!zerosReady_) { // the zero area, once per stage (written only here)
            AscendC::Duplicate(zeros, 0.0f, static_cast<int32_t>(chunk));
            PipeSync<AscendC::HardEvent::V_MTE3>();
            zerosReady_ = true;
        }
        for (int64_t i = 0; zeroElems_ < elems && i != dmas; ++i) {
            const int64_t cnt = MinI(chunk, elems - zeroElems_);
            AscendC::DataCopyExtParams cp{1, static_cast<uint32_t>(cnt * 4), 0, 0, 0};
            AscendC::DataCopyPad(t_->giacc[planeAt_ + zeroElems_], zeros, cp);
            zeroElems_ += cnt;
        }
        if (atomic) {
            AscendC::SetAtomicAdd<float>();
        }
    }
    // Plane rows [0, rows) defined and their zeros complete before a write of them.
    __aicore__ inline void EnsureRows(int64_t rows, bool atomic)
    {
        ZeroTo(rows * rowElems_, atomic, -1);
        if (rows * rowElems_ > fencedElems_) {
            AscendC::PipeBarrier<PIPE_MTE3>();
            MarkMte3Complete();
        }
    }
    // Every MTE3 write so far has completed (a PipeBarrier<PIPE_MTE3>): no footprint or zeroed element is pending.
    __aicore__ inline void MarkMte3Complete()
    {
        gmFootCount_ = 0;
        flushOpen_ = false;
        fencedElems_ = seenElems_ = zeroElems_;
    }
    __aicore__ inline void ZerosSeen(int64_t elems) { seenElems_ = MaxI(seenElems_, elems); }
    __aicore__ inline void FenceSeenZeros() { fencedElems_ = MaxI(fencedElems_, seenElems_); }

    __aicore__ inline void CloseWindowState()
    {
        winLo_ = 0;
        winHi_ = 0;
        winXLo_ = 0;
        winXHi_ = 0;
        winW_ = 0;
        imgLo_ = imgHi_ = imgXLo_ = imgXHi_ = 0;
        winRing_ = false;
    }

    // The geometry of window `seq` (-1: none) into the window state that LoadWindow, FlushWindow, InWindow,
    // GatherOffsets and the scatter read: each pipeline step sets the window of the tile it works on.
    __aicore__ inline void UseWindow(int64_t seq)
    {
        useWin_ = seq;
        if (seq < 0) {
            CloseWindowState();
            return;
        }
        const WinGeom& g = wins_[seq % kWinSlots];
        winLo_ = g.lo;
        winHi_ = g.hi;
        winXLo_ = g.xlo;
        winXHi_ = g.xhi;
        imgLo_ = g.imgLo;
        imgHi_ = g.imgHi;
        imgXLo_ = g.imgXLo;
        imgXHi_ = g.imgXHi;
        winW_ = winXHi_ - winXLo_;
        winRing_ = winLo_ < imgLo_ || winHi_ > imgHi_ || winXLo_ < imgXLo_ || winXHi_ > imgXHi_;
    }

    // Window transfers (xt -> xwin, gwin -> giacc): in GM the block's pixels are len apart (BlockPixelAt), in
    // UB LP apart. len == LP: the whole window is one transfer of rows blocks of winW*len (GM row stride
    // W*len). Otherwise one block per pixel (padded to LP in UB): per row, or for a full-width window (its rows
    // are consecutive pixels) as many rows as one DataCopyPad's block count allows.
    __aicore__ inline int64_t WindowRowsPerDma(int64_t len) const
    {
        if (len == lp_) {
            return imgHi_ - imgLo_;
        }
        return winW_ == p_->w ? MaxI(1, dcn_tiling::kMaxDmaBlocks / winW_) : 1; // (no ring: len < LP)
    }

    // Transfer of `rows` in-image window rows, GM -> UB (toUb: xt -> xwin) or UB -> GM (gwin -> giacc), of
    // elements of `elt` bytes (xwin: winElt_, gwin: 4): the GM gap in bytes, the UB gap in 32-B blocks (the ring
    // columns, len == LP).
    __aicore__ inline AscendC::DataCopyExtParams WindowRows(int64_t len, int64_t rows, bool toUb, int64_t elt) const
    {
        uint32_t gmGap = 0, ubGap = 0;
        AscendC::DataCopyExtParams cp;
        const int64_t imgW = imgXHi_ - imgXLo_;
        if (len == lp_) {
            cp.blockCount = static_cast<uint16_t>(rows);
            cp.blockLen = static_cast<uint32_t>(imgW * len * elt);
            gmGap = static_cast<uint32_t>((p_->w - imgW) * len * elt);
            ubGap = static_cast<uint32_t>((winW_ - imgW) * lp_ * elt / dcn_tiling::kUbBlockBytes);
        } else {
            cp.blockCount = static_cast<uint16_t>(rows * winW_);
            cp.blockLen = static_cast<uint32_t>(len * elt);
            ubGap = static_cast<uint32_t>(
                (lp_ * elt - RoundUp(len * elt, dcn_tiling::kUbBlockBytes)) / dcn_tiling::kUbBlockBytes);
        }
        cp.srcStride = toUb ? gmGap : ubGap;
        cp.dstStride = toUb ? ubGap : gmGap;
        cp.rsv = 0;
        return cp;
    }

    __aicore__ inline bool InWindow(int64_t y, int64_t x) const
    {
        return y >= winLo_ && y < winHi_ && x >= winXLo_ && x < winXHi_;
    }

    // Input rows [winLo_, winHi_) x columns [winXLo_, winXHi_) reached by output rows ohFirst..ohLast and
    // columns owFirst..owLast (+ margin), clipped to the image [imgLo_, imgHi_) x [imgXLo_, imgXHi_) or, with
    // `ring`, to the image and a ring of one pixel around it when that fits the window's capacity (PlanWindow):
    // the ring pixels of xwin are zero and those of gwin are never flushed, so a sample point whose corners
    // touch the ring (a border point: its corners outside the image contribute nothing) is window-served.
    // Only the geometry, in the ring wins_ (sequence number openWin_, carried by the window's tiles): xwin and
    // gwin follow the tiles through the pipeline (LoadWindow, Back, Step).
    __aicore__ inline void OpenWindow(int64_t ohFirst, int64_t ohLast, int64_t owFirst, int64_t owLast, bool ring)
    {
        const DcnParams &p = *p_;
        const int64_t m = dcn_tiling::kWindowMargin, r = ring ? 1 : 0;
        const int64_t lo = ohFirst * p.strideH - p.padTop - m;
        const int64_t hi = ohLast * p.strideH - p.padTop + (p.kh - 1) * p.dilationH + m + 1;
        const int64_t xlo = owFirst * p.strideW - p.padLeft - m;
        const int64_t xhi = owLast * p.strideW - p.padLeft + (p.kw - 1) * p.dilationW + m + 1;
        openWin_ = -1;
        if (MinI(p.h, hi) <= MaxI(0, lo) || MinI(p.w, xhi) <= MaxI(0, xlo)) {
            return;  // the window lies outside the image: every corner takes the GM path (none is valid)
        }
        WinGeom g;
        g.imgLo = MaxI(0, lo);
        g.imgHi = MinI(p.h, hi);
        g.imgXLo = MaxI(0, xlo);
        g.imgXHi = MinI(p.w, xhi);
        g.lo = MaxI(-r, lo);
        g.hi = MinI(p.h + r, hi);
        g.xlo = MaxI(-r, xlo);
        g.xhi = MinI(p.w + r, xhi);
        if (g.hi - g.lo > p.winRows || g.xhi - g.xlo > p.winCols) { // the ring does not fit: none
            g.lo = g.imgLo;
            g.hi = g.imgHi;
            g.xlo = g.imgXLo;
            g.xhi = g.imgXHi;
        }
        wins_[winSeq_ % kWinSlots] = g;
        openWin_ = winSeq_++;
    }

    // Offset (floats) of in-image pixel (y, imgXLo_) in xwin / gwin.
    __aicore__ inline int64_t WindowRowAt(int64_t y) const { return ((y - winLo_) * winW_ + imgXLo_ - winXLo_) * lp_; }

    // The window in use's input rows -> xwin (the V_MTE2 orders the previous window's UB copies and gathers, V,
    // before xwin is overwritten; the MTE2_V orders these loads before the first tile's gathers and copies, V:
    // at once, or with `prefetch` (DirectWindowLoad: issued in the Loads of the previous window's last tile) by
    // winEvent_, waited for in the first tile's Loads).
    __aicore__ inline void LoadWindow(int64_t n, int64_t c0, int64_t len, bool prefetch)
    {
        const DcnParams& p = *p_;
        if (winRing_) { // the ring pixels (never loaded) are zero; earlier windows left input rows there
            if (prefetch) {
                AscendC::PipeBarrier<PIPE_V>(); // the last tile's gathers and copies from xwin came just before
            }
            AscendC::Duplicate(xwin_, 0.0f, static_cast<int32_t>((winHi_ - winLo_) * winW_ * lp_ * winElt_ / 4));
        }
        PipeSync<AscendC::HardEvent::V_MTE2>();
        if constexpr (!IsSameType<T, float>::value) {
            if (!winT_) { // an fp32 window of 16-bit input
                LoadWindowCast(n, c0, len);
                return;
            }
        }
        // xwin in T (fp32 I/O, or winT_): the rows as they are in GM
        AscendC::DataCopyPadExtParams<T> noPad;
        AscendC::LocalTensor<T> xw = xwin_.template ReinterpretCast<T>();
        const int64_t step = WindowRowsPerDma(len);
        for (int64_t y = imgLo_; y < imgHi_; y += step) {
            const AscendC::DataCopyExtParams cp = WindowRows(len, MinI(step, imgHi_ - y), true, winElt_);
            AscendC::DataCopyPad(xw[WindowRowAt(y)], t_->xt[BlockPixelAt(p, n, c0, len, y, imgXLo_)], cp, noPad);
        }
        if (prefetch) {
            AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(winEvent_);
            winWait_ = true;
            return;
        }
        PipeSync<AscendC::HardEvent::MTE2_V>();
    }

    // xwin loads with DMAs alone (fp32 I/O or a 16-bit window, winT_), not through the staging planes: so it
    // can be loaded while the previous tile's staged corners wait for their cast.
    __aicore__ inline bool DirectWindowLoad() const { return IsSameType<T, float>::value || winT_; }

    // 16-bit I/O: window rows (T) -> xwin (fp32) through the staging planes, in pieces of whole rows (or of
    // one row's columns) that fit them. The caller's V_MTE2 orders the first piece after earlier staging reads.
    // len == LP (the window's fp32 pixels are len apart, like the block's pixels in GM): a piece of nr rows is
    // one transfer, each row padded to 32 B in the staging planes, and one Cast (per row if padded); else see
    // LoadWindowPiecePixels.
    __aicore__ inline void LoadWindowCast(int64_t n, int64_t c0, int64_t len)
    {
        const DcnParams& p = *p_;
        const int64_t stageElems = 4 * cornerRows_ * lpt_; // T elements the staging planes hold
        const bool dense = len == lp_;
        const int64_t capPix = dense ? stageElems / len : 4 * cornerRows_; // pixels per piece
        const int64_t imgW = imgXHi_ - imgXLo_;                      // == winW_ without a ring (always for len < LP)
        const int64_t rowElems = RoundUp(imgW * len * static_cast<int64_t>(sizeof(T)), dcn_tiling::kUbBlockBytes) /
                                 static_cast<int64_t>(sizeof(T));
        const int64_t groupRows = dense ? MaxI(1, stageElems / rowElems) : MaxI(1, capPix / imgW);
        const int64_t pieceCols = MinI(imgW, capPix);
        AscendC::DataCopyPadExtParams<T> noPad;
        bool firstPiece = true;
        for (int64_t y = imgLo_; y < imgHi_; y += groupRows) {
            const int64_t nr = MinI(groupRows, imgHi_ - y);
            for (int64_t x = 0; x < imgW; x += pieceCols) {
                const int64_t nc = MinI(pieceCols, imgW - x);
                if (!firstPiece) {
                    PipeSync<AscendC::HardEvent::V_MTE2>(); // the previous piece is cast before it is overwritten
                }
                firstPiece = false;
                AscendC::LocalTensor<float> dst = xwin_[WindowRowAt(y) + x * lp_];
                if (!dense) {
                    LoadWindowPiecePixels(n, c0, len, y, x, nr, nc);
                    CastPixels(dst, xs_, nr * nc); // nr == 1 or nc == winW_: one contiguous run of xwin pixels
                    continue;
                }
                const int64_t runBytes = nc * len * static_cast<int64_t>(sizeof(T));
                const int64_t pitch = RoundUp(runBytes, dcn_tiling::kUbBlockBytes) / static_cast<int64_t>(sizeof(T));
                AscendC::DataCopyExtParams cp;
                cp.blockCount = static_cast<uint16_t>(nr);
                cp.blockLen = static_cast<uint32_t>(runBytes);
                cp.srcStride = static_cast<uint32_t>((p.w - nc) * len * static_cast<int64_t>(sizeof(T)));
                cp.dstStride = 0;
                cp.rsv = 0;
                AscendC::DataCopyPad(xs_, t_->xt[BlockPixelAt(p, n, c0, len, y, imgXLo_ + x)], cp, noPad);
                PipeSync<AscendC::HardEvent::MTE2_V>();
                if (pitch == nc * len && (nr == 1 || nc == winW_)) { // unpadded rows, no ring between: one run
                    AscendC::Cast(dst, xs_, AscendC::RoundMode::CAST_NONE, static_cast<uint32_t>(nr * nc * len));
                    continue;
                }
                for (int64_t r = 0; r < nr; ++r) {
                    AscendC::Cast(
                        dst[r * winW_ * lp_], xs_[r * pitch], AscendC::RoundMode::CAST_NONE,
                        static_cast<uint32_t>(nc * len));
                }
            }
        }
    }

    // One piece of a window whose pixels are padded in UB (len < LP): rows y..y+nr, columns x..x+nc -> the
    // staging planes, one block per pixel (LPT apart): per row, or for the whole piece when the window is
    // full-width (its rows are consecutive pixels). Ends with the MTE2_V before the caller's cast.
    __aicore__ inline void LoadWindowPiecePixels(
        int64_t n, int64_t c0, int64_t len, int64_t y, int64_t x, int64_t nr, int64_t nc)
    {
        const DcnParams& p = *p_;
        const bool whole = winW_ == p.w && nc == winW_;
        AscendC::DataCopyExtParams cp;
        cp.blockCount = static_cast<uint16_t>(whole ? nr * nc : nc);
        cp.blockLen = static_cast<uint32_t>(len * sizeof(T));
        cp.srcStride = 0;
        cp.dstStride = static_cast<uint32_t>(
            (lpt_ * sizeof(T) - RoundUp(len * sizeof(T), dcn_tiling::kUbBlockBytes)) / dcn_tiling::kUbBlockBytes);
        cp.rsv = 0;
        AscendC::DataCopyPadExtParams<T> noPad;
        for (int64_t r = 0; r < (whole ? 1 : nr); ++r) {
            AscendC::DataCopyPad(
                xs_[r * nc * lpt_], t_->xt[BlockPixelAt(p, n, c0, len, y + r, imgXLo_ + x)], cp, noPad);
        }
        PipeSync<AscendC::HardEvent::MTE2_V>();
    }

    // dst[i][0:LP] = fp32(src[i][0:LP]) for `pixels` rows of LP fp32 (dst) and LPT T elements (src).
    __aicore__ inline void CastPixels(
        const AscendC::LocalTensor<float>& dst, const AscendC::LocalTensor<T>& src, int64_t pixels)
    {
        if (lpt_ == lp_) {
            AscendC::Cast(dst, src, AscendC::RoundMode::CAST_NONE, static_cast<uint32_t>(pixels * lp_));
            return;
        }
        // LP = 8, 24, 40 or 56 (< 64 lanes): one masked repeat per pixel, LP/8 blocks (dst) and LPT/16 (src) apart
        const AscendC::UnaryRepeatParams rep(1, 1, static_cast<uint8_t>(lp_ / 8), static_cast<uint8_t>(lpt_ / 16));
        for (int64_t done = 0; done < pixels; done += 255) {
            const int64_t reps = MinI(255, pixels - done);
            AscendC::Cast(
                dst[done * lp_], src[done * lpt_], AscendC::RoundMode::CAST_NONE, static_cast<uint64_t>(lp_),
                static_cast<uint8_t>(reps), rep);
        }
    }

    // 16-bit I/O: the corner rows a tile staged (after the queue hand-over) -> its corner planes: all 4 planes
    // in one Cast when the window's corners were gathered into them (winT_; every row written: window corners,
    // the zero area, then the GM loads), else one Cast per GM-loaded (or, winT_, window-copied) corner.
    __aicore__ inline void CastStagedCorners(const AscendC::LocalTensor<float>& xp, const TileJob& J)
    {
        if (stagedAll_[J.slot]) {
            CastPixels(xp, xs_, 4 * cornerRows_);
            return;
        }
        const int64_t planeElems = cornerRows_ * lp_, planeT = cornerRows_ * lpt_;
        const RowInfo* info = rowInfo_[J.slot];
        for (int64_t row = 0; row < J.pt * J.kt; ++row) {
            const RowInfo& ri = info[row];
            if (!ri.inside) {
                continue;
            }
            for (int r = 0; r < 2; ++r) {
                for (int c = ri.gmFirst[r]; c >= 0 && c <= ri.gmLast[r]; ++c) {
                    AscendC::Cast(
                        xp[c * planeElems + row * lp_], xs_[c * planeT + row * lpt_], AscendC::RoundMode::CAST_NONE,
                        static_cast<uint32_t>(J.len));
                }
            }
        }
    }

    // gwin rows of the window in use (UseWindow: gwin's owner, whose last tile's Back is done) -> the unit's
    // accumulator plane (atomic add; only this unit writes there). The V_MTE3 orders the window adds before.
    __aicore__ inline void FlushWindow(int64_t n, int64_t c0, int64_t len)
    {
        const DcnParams& p = *p_;
        PipeSync<AscendC::HardEvent::V_MTE3>();
        FenceSeenZeros();
        EnsureRows(imgHi_, false);
        // this window's GM atomics of corner pairs that straddle its edge (one corner inside) may be in flight
        OrderGmWrite(imgLo_, imgHi_ - 1, imgXLo_, imgXHi_ - 1);
        AscendC::SetAtomicAdd<float>();
        const int64_t step = WindowRowsPerDma(len);
        for (int64_t y = imgLo_; y < imgHi_; y += step) { // the in-image rows and columns (the ring is dropped)
            const AscendC::DataCopyExtParams cp = WindowRows(len, MinI(step, imgHi_ - y), false, 4);
            AscendC::DataCopyPad(
                t_->giacc[giaccBase_ + BlockPixelAt(p, n, c0, len, y, imgXLo_)], gwin_[WindowRowAt(y)], cp);
        }
        AscendC::SetAtomicNone();
        flushOpen_ = true; // its rows are in flight until the next PipeBarrier<PIPE_MTE3>
        flushY0_ = static_cast<int32_t>(imgLo_);
        flushY1_ = static_cast<int32_t>(imgHi_ - 1);
        flushX0_ = static_cast<int32_t>(imgXLo_);
        flushX1_ = static_cast<int32_t>(imgXHi_ - 1);
        // gwin is zeroed again after an MTE3_V in the next window's first Back
    }

    // Output pixels [from, to) of one unit, in tiles of pixelTile pixels x kernel-point chunks, pushed into
    // the tile pipeline in order.
    __aicore__ inline void ProcessPixels(const TileJob& unit, int64_t from, int64_t to)
    {
        for (int64_t p0 = from; p0 < to; p0 += pt_) {
            for (int64_t k0 = 0; k0 < p_->k; k0 += kt_) {
                TileJob job = unit;
                job.p0 = p0;
                job.pt = MinI(pt_, to - p0);
                job.k0 = k0;
                job.kt = MinI(kt_, p_->k - k0);
                job.slot = nextSlot_;
                job.win = openWin_;
                const int64_t seq = recSeq_++;
                job.rec = recBase_ + seq;
                if (seq < recFirst_ || seq >= recEnd_) { // records: another slice's tile
                    continue;
                }
                nextSlot_ ^= 1;
                Push(job);
                if (seq + 1 == recEnd_) {
                    // records: the slice's last tile. Its tiles through the pipeline now, while the window
                    // geometries they name are still in wins_: the unit's later windows, opened as the loops
                    // pass the other slices' tiles, reuse the kWinSlots entries
                    Drain();
                }
            }
        }
    }

    // Tile pipeline (program order = issue order; every wait below orders only work issued before it).
    // Three tiles are in flight besides the one whose offsets were just loaded: per Step, with c the newest
    // tile, f the one before and b the one before that,
    //   wait(coordinates of f) ; Coords(c) (V) ; Loads(f) (S issues MTE2 / V) ; Back(b) (V, S issues MTE3 /
    //   V window adds; its scatter rounds may carry c's first weight levels, FusedLevelsInRounds) ; Weights(c)
    //   (MTE2: G rows; V: weight rows, gather offsets)
    // With blocks of 16 or more channels (coordsInBack_: the vector pipe is the busier one) Coords(c) runs
    // beside Back(b) instead: one level after each of b's barriers (products, row sums, contributions,
    // partials; BarrierBeside) and then in b's scatter rounds, before c's weight levels; the rest after the Back.
    // The levels share b's barriers instead of taking their own (c's planes are disjoint from b's buffers), and
    // the scalar unit's wait for f's coordinates then covers f's Back too. Either way the scalar unit waits
    // only for coordinates issued a whole Step earlier; it issues f's loads while b's products run on V and
    // b's scatter follows. Buffers: offsets and G tiles in 2-deep queues (G of f and c), corner planes in a 2-deep
    // queue (f and b), weight rows, row infos, order tables and the scalar key planes per slot (tile parity;
    // c and b share a slot: Back(b) reads its rows before Weights(c) writes them); the coordinate planes and
    // the partials plane are single (Coords(c) and Weights(c) are one Step).
    __aicore__ inline void Push(const TileJob& job)
    {
        if (!consume_) {
            LoadOffsets(job);
        }
        if (hasCoord_) {
            Step();
        }
        jobCoord_ = job;
        hasCoord_ = true;
    }

    __aicore__ inline void Step()
    {
        if (produce_) { // records: each tile's front at once, stored
            if (hasCoord_) {
                ProduceRecord(jobCoord_);
                hasCoord_ = false;
            }
            return;
        }
        if (hasFront_) { // f's coordinates (a Step ago) are visible to the scalar unit; hb/wb are free
            if (consume_) {
                AscendC::WaitFlag<AscendC::HardEvent::MTE2_S>(recSEvent_);
            } else {
                AscendC::WaitFlag<AscendC::HardEvent::V_S>(coordEvent_);
            }
        }
        if (consume_ && hasCoord_) { // records: c's keys
            LoadRecordKeys(jobCoord_);
        }
        // c's coordinates beside b's Back (its barriers and rounds carry the levels) when this Step has one and
        // the row's vector pipe is the busier one (CoordsInBack); else all at once here
        const bool coordsInBack = !consume_ && hasCoord_ && hasBack_ && hasFront_ && coordsInBack_;
        if (coordsInBack) {
            BeginCoords(jobCoord_);
        } else if (hasCoord_ && !consume_) {
            Coords(jobCoord_);
        }
        if (hasFront_) {
            Loads(jobFront_, hasBack_);
        }
        if (consume_ && (hasCoord_ || hasFront_)) { // c's gather table, f's row vectors (for its Back a Step later)
            LoadRecordTableAndRows(hasCoord_, hasFront_);
        }
        if (hasBack_) {
            if (!hasFront_) {
                DrainBackPrologue();
            }
            FusedLevelsInRounds();
            Back(jobBack_);
            // b was its window's last tile: gwin -> GM now, so the flush (MTE3) runs under c's weights and the
            // next Step's coordinates, loads and products before the next Back zeroes gwin (without a next
            // tile, draining: at the end of the unit)
            if (hasFront_ && jobFront_.win != jobBack_.win && gwinOwner_ >= 0) {
                UseWindow(gwinOwner_);
                FlushWindow(jobBack_.n, jobBack_.c0, jobBack_.len);
                gwinOwner_ = -1;
            }
        }
        if (coordsInBack) { // the levels the Back did not take
            FinishCoords();
        }
        if (hasCoord_) {
            if (consume_) {
                LoadGRows(jobCoord_);
            } else {
                Weights(jobCoord_);
            }
        }
        hasBack_ = hasFront_;
        jobBack_ = jobFront_;
        hasFront_ = hasCoord_;
        jobFront_ = jobCoord_;
        hasCoord_ = false;
    }

    // Every pushed tile through the pipeline (at the end of a unit).
    __aicore__ inline void Drain()
    {
        while (hasCoord_ || hasFront_ || hasBack_) {
            Step();
        }
    }

    // A Back without the Loads of the tile after it (draining): the work Loads would have ordered before it.
    __aicore__ inline void DrainBackPrologue()
    {
        if constexpr (!IsSameType<T, float>::value) {
            xpBack_ = xQue_.DeQue<float>();
            if (winT_) { // the tile's window corner copies (UB->UB) into the staging planes came just before (its
                         // Loads); a Loads' cast follows the next tile's coordinates and weights (barriers)
                AscendC::PipeBarrier<PIPE_V>();
            }
            CastStagedCorners(xpBack_, jobBack_);
        }
        // no Loads in between (whose barrier orders b's window corner copies and casts before b's products;
        // with one partials plane, whose MTE3_V orders the previous partials store before b's partials): here
        AscendC::PipeBarrier<PIPE_V>();
        if (!slotParts_) {
            PipeSync<AscendC::HardEvent::MTE3_V>();
            ZerosSeen(zeroElems_);
        }
    }

    // The slot's last Back has stored its scatter and partials (MTE3) before the slot's buffers are rewritten.
    __aicore__ inline void WaitStores(int64_t slot)
    {
        if (storePending_[slot]) {
            AscendC::WaitFlag<AscendC::HardEvent::MTE3_V>(storeEvent_[slot]);
            ZerosSeen(zeroAtSet_[slot]);
            storePending_[slot] = false;
        }
    }

    // Offsets [j][kk][pp] (T) of a tile -> offQue.
    __aicore__ inline void LoadOffsets(const TileJob& J)
    {
        const DcnParams& p = *p_;
        const int64_t elt = sizeof(T);
        AscendC::LocalTensor<T> raw = offQue_.AllocTensor<T>();
        const int64_t offCh = p.offsetBlocks * p.dg * p.k;
        // The [j][kk] planes are offHop_ apart (kt == KT) and, with every kernel point in the tile, the offset
        // channels j*dg*K + dgi*K + kk of blocks j = 0, 1[, 2] lie in one run of channels: consecutive for one
        // deformable group, with the other groups' channels in between for spanOffsets_ (loaded, not read).
        // Then one DMA loads the run.
        const bool wholeTile = J.kt == kt_ && J.kt == p.k;
        const bool oneDma = wholeTile && (p.dg == 1 || spanOffsets_);
        const int64_t offDmas = oneDma ? 1 : p.offsetBlocks;
        for (int64_t j = 0; j < offDmas; ++j) {
            AscendC::DataCopyExtParams cp;
            cp.blockCount = static_cast<uint16_t>(oneDma ? (p.offsetBlocks - 1) * p.dg * p.k + J.kt : J.kt);
            cp.blockLen = static_cast<uint32_t>(J.pt * elt);
            cp.srcStride = static_cast<uint32_t>((p.howo - J.pt) * elt);
            cp.dstStride = static_cast<uint32_t>(
                (ptp_ * elt - RoundUp(J.pt * elt, dcn_tiling::kUbBlockBytes)) / dcn_tiling::kUbBlockBytes);
            cp.rsv = 0;
            AscendC::DataCopyPadExtParams<T> noPad;
            int64_t ch = j * p.dg * p.k + J.dgi * p.k + J.k0;
            AscendC::DataCopyPad(raw[j * offHop_], t_->offset[(J.n * offCh + ch) * p.howo + J.p0], cp, noPad);
        }
        offQue_.EnQue(raw);
    }

    // Coordinates of tile J (vector over the [kk][pp] planes) and its scalar key planes (slot), all levels here.
    __aicore__ inline void Coords(const TileJob& J)
    {
        BeginCoords(J);
        FinishCoords();
    }

    // The levels not issued yet, each after a barrier of its own.
    __aicore__ inline void FinishCoords()
    {
        while (coordsPending_) {
            if (coordsUnfenced_) {
                AscendC::PipeBarrier<PIPE_V>();
            }
            CoordsStep();
        }
    }

    // Coords of tile J in levels (CoordsStep issues one; a PipeBarrier<PIPE_V> must come between two, which the
    // Back's own barriers may provide: BarrierBeside, ScatterRounds); the last one sets the V_S flag.
    __aicore__ inline void BeginCoords(const TileJob& J)
    {
        coordsJob_ = J;
        coordsPc_ = 0;
        coordsPending_ = true;
        coordsUnfenced_ = false;
    }
    // The last level (the key rows' Gather) needs no barrier before the tile's weight levels: it reads coordinate
    // planes 0, 1 or 3 and writes the key rows, which the first weight level (and the non-fused weights' Gathers
    // and GatherOffsets) neither write nor read.
    __aicore__ inline void CoordsStep()
    {
        coordsPending_ = CoordsLevel(coordsJob_);
        coordsUnfenced_ = coordsPending_;
        if (!coordsPending_ && !produce_) { // the coordinates are visible to the scalar unit (its Loads a Step
                                            // later; the records' producer reads none)
            AscendC::SetFlag<AscendC::HardEvent::V_S>(coordEvent_);
        }
    }
    // A PipeBarrier<PIPE_V> of the Back (its products, row sums, contributions, partials) and beside it the next
    // coordinates level of the tile two on, when they run in this Back (Step): a level touches only that tile's
    // coordinate, mask and key planes, none of which the Back reads or writes.
    __aicore__ inline void BarrierBeside()
    {
        AscendC::PipeBarrier<PIPE_V>();
        coordsUnfenced_ = false;
        if (coordsPending_) {
            CoordsStep();
        }
    }

    // The coordinates' vector levels: each call issues the instructions up to the next point that needs a
    // PipeBarrier<PIPE_V> (the level after coordsPc_) and returns true while levels remain; the levels are the
    // stretches between the barriers of one straight run of this code (resumed by the switch at the level's
    // case label; every local is set before it). Level 0 also dequeues the tile's offsets.
    __aicore__ inline bool CoordsLevel(const TileJob& J)
    {
        const DcnParams& p = *p_;
        const uint32_t planeCnt = static_cast<uint32_t>(plane_);
        const int64_t pt = J.pt, kt = J.kt, k0 = J.k0;
        const int64_t oh0 = J.p0 / p.wo, ow0 = J.p0 - oh0 * p.wo;
        const bool vectorBases = k0 == 0 && rampRow_ && ow0 + pt <= p.wo; // a new pixel tile in one output row
        const bool planeBases = vectorBases && basePlanes_; // ... with every kernel point: from the base planes
        // a new pixel tile over a few output rows (at most 64 pixel lanes): vector too, a masked pair per row
        const int64_t spanRows = (ow0 + pt - 1) / p.wo + 1;
        const bool spanBases =
            k0 == 0 && rampRow_ && !vectorBases && ptp_ <= dcn_tiling::kRepeatLanes && 2 * spanRows < pt;
        const bool pixelBasesByVector = vectorBases || spanBases;
        AscendC::LocalTensor<float> hb = coord_[cpHb_ * plane_];
        AscendC::LocalTensor<float> wb = coord_[cpHb_ * plane_ + ptp_];
        // the planes 0..3: xs, ys (sample bases, then base + floor) and x0, y0 (floors) until the roles swap
        // (from level 4 on): x0, y0 (base + floor) in planes 0, 1 and xs, ys (v0 + ceil) in 2, 3
        AscendC::LocalTensor<float> pl0 = coord_[0], pl1 = coord_[plane_], pl2 = coord_[2 * plane_],
                                    pl3 = coord_[3 * plane_];
        AscendC::LocalTensor<float> lx = coord_[4 * plane_], ly = coord_[5 * plane_];
        AscendC::LocalTensor<float> hx = coord_[6 * plane_];      // then hy (OneMinus over both)
        const int32_t pairCnt = static_cast<int32_t>(2 * plane_); // an x plane and its y plane
        AscendC::LocalTensor<float> cx = coord_[6 * plane_], cy = coord_[7 * plane_];
        AscendC::LocalTensor<uint8_t> msk = coord_[CP_MSK * plane_].template ReinterpretCast<uint8_t>();
        const float wk = static_cast<float>(p.w + 2);
        const int64_t hop = OffsetHop(); // offset block j at off[j * hop] (OffsetPlanes, after level 0's DeQue)
        AscendC::LocalTensor<float> off;
        if (coordsPc_ > 0) {
            off = OffsetPlanes();
        }
        const bool pairOff = hop == plane_; // dx, dy planes adjacent like x0, y0
        // ceilRule: one-row tiles from the base planes (32-bit I/O) test -1 < v with v0 + ceil(frac) = base + ceil(d)
        // (floor(d) + ceil(d - floor(d)) = ceil(d), every term exact below 2^24): ceil(d) in the hx, hy planes (free
        // with onesBlock_), plus the base planes a level later, compared with minus the tile's row/column offset
        const bool ceilRule = planeBases && pairOff && maskSlots_ && onesBlock_;
        // quadKeys_: the key rows converted, whole scalar reads of four; relKeys_: their relative keys in the row sums'
        // buffer (free while the coordinates run before the Loads)
        const int32_t keyCnt = static_cast<int32_t>(RoundUp(pt * kt, 4));
        AscendC::LocalTensor<float> relKeyRows = redBuf_.Get<float>();
        switch (coordsPc_) {
            case 0:
                if (k0 == 0) { // the pixel bases of a new pixel tile
                    if (planeBases) {
                        // no pixel bases (the sample bases come from the base planes below)
                    } else if (vectorBases) { // one output row: vector, from the column ramp (the previous
                        // tile's KernelPointBases reads of hb/wb are ordered by the barrier that follows them)
                        AscendC::Duplicate(
                            hb, static_cast<float>(oh0 * p.strideH - p.padTop), static_cast<int32_t>(ptp_));
                        AscendC::Adds(
                            wb, Ramp(), static_cast<float>(ow0 * p.strideW - p.padLeft), static_cast<int32_t>(ptp_));
                    } else if (spanBases) { // row r of the tile: lanes [lo, hi) by a bit mask, from the ramp (a
                        // barrier between the rows: their lanes may share a 32-B block)
                        for (int64_t r = 0, lo = 0; lo < pt; ++r) {
                            const int64_t hi = MinI(pt, (r + 1) * p.wo - ow0);
                            uint64_t lanes[2] = {LaneBits(lo, hi), 0};
                            if (r > 0) {
                                AscendC::PipeBarrier<PIPE_V>();
                            }
                            AscendC::Duplicate(
                                hb, static_cast<float>((oh0 + r) * p.strideH - p.padTop), lanes, 1, 1, 8);
                            AscendC::Adds(
                                wb, Ramp(), static_cast<float>((ow0 - r * p.wo) * p.strideW - p.padLeft), lanes, 1,
                                AscendC::UnaryRepeatParams());
                            lo = hi;
                        }
                    } else {
                        // the vector reads of hb/wb are done: the wait for the previous tile's coordinates (the first
                        // such tile of the phase: after the setup's zeros)
                        if (!basesFenced_ || produce_) {
                            PipeSync<AscendC::HardEvent::V_S>();
                            basesFenced_ = true;
                        }
                        for (int64_t i = 0; i < pt; ++i) {
                            int64_t pix = J.p0 + i, oh = pix / p.wo, ow = pix - oh * p.wo;
                            hb.SetValue(static_cast<uint32_t>(i), static_cast<float>(oh * p.strideH - p.padTop));
                            wb.SetValue(static_cast<uint32_t>(i), static_cast<float>(ow * p.strideW - p.padLeft));
                        }
                    }
                    PipeSync<AscendC::HardEvent::S_V>();
                }
                // ---- coordinates (vector over the [kk][pp] planes; compare mask and the outside plane
                // in scratch planes of their own)
                rawCoord_ = offQue_.DeQue<T>();
                off = OffsetPlanes();
                if constexpr (!IsSameType<T, float>::value) { // cast into the fp32 offset planes, plane_ apart
                    if (offHop_ == plane_) {
                        AscendC::Cast(
                            off, rawCoord_, AscendC::RoundMode::CAST_NONE,
                            static_cast<uint32_t>(p.offsetBlocks * plane_));
                    } else {
                        for (int64_t j = 0; j < p.offsetBlocks; ++j) {
                            AscendC::Cast(
                                off[j * plane_], rawCoord_[j * offHop_], AscendC::RoundMode::CAST_NONE, planeCnt);
                        }
                    }
                }
                // The fraction comes from the offset alone (ly = dy - floor(dy), exact in fp32) and the integer
                // part is base + floor(dy) (exact integers), so no rounding of base + dy enters the weights.
                if (planeBases) { // ys = kh*dH + oh*sH - padTop, xs = i*sW + kw*dW + ow0*sW - padLeft
                    AscendC::Adds(
                        pl1, coord_[(cpXb_ + 1) * plane_], static_cast<float>(oh0 * p.strideH - p.padTop),
                        static_cast<int32_t>(planeCnt));
                    AscendC::Adds(
                        pl0, coord_[cpXb_ * plane_], static_cast<float>(ow0 * p.strideW - p.padLeft),
                        static_cast<int32_t>(planeCnt));
                } else {
                    if (pixelBasesByVector) { // the pixel bases written by vector are complete
                        coordsPc_ = 1;
                        return true;
                        case 1:;
                    }
                    KernelPointBases(pl1, pl0, hb, wb, k0, kt);
                }
                // floor in fp32 (Cast float -> float, CAST_FLOOR: exact; NaN and +-inf stay non-finite, so ly is NaN),
                // beside the bases for 32-bit I/O (the offsets came by DMA), after the conversion for 16-bit (with
                // vector pixel bases from the ramp the barrier before KernelPointBases, issued after the conversion,
                // orders it; with the base planes, a level of its own)
                if (!IsSameType<T, float>::value &&
                    (planeBases || !pixelBasesByVector)) { // off (converted above) is complete
                    coordsPc_ = 2;
                    return true;
                    case 2:;
                }
                if (pairOff) {
                    AscendC::Cast(
                        pl2, off[0], AscendC::RoundMode::CAST_FLOOR, static_cast<uint32_t>(pairCnt)); // floors
                    if (ceilRule) {
                        AscendC::Cast(
                            cx, off[0], AscendC::RoundMode::CAST_CEIL, static_cast<uint32_t>(pairCnt)); // ceil(dx, dy)
                    }
                } else {
                    AscendC::Cast(pl2, off[0], AscendC::RoundMode::CAST_FLOOR, planeCnt);   // floor(dx)
                    AscendC::Cast(pl3, off[hop], AscendC::RoundMode::CAST_FLOOR, planeCnt); // floor(dy)
                }
                coordsPc_ = 3; // the bases and the floors are complete
                return true;
            case 3:
                if (pairOff) {
                    AscendC::Sub(lx, off[0], pl2, pairCnt); // frac(dx), frac(dy)
                } else {
                    AscendC::Sub(lx, off[0], pl2, static_cast<int32_t>(planeCnt));   // frac(dx)
                    AscendC::Sub(ly, off[hop], pl3, static_cast<int32_t>(planeCnt)); // frac(dy)
                }
                AscendC::Add(pl0, pl0, pl2, pairCnt); // base + floor(dx), base + floor(dy): planes 0, 1 from here
                if (ceilRule) {                       // the base planes' part of base + ceil (x, y: a pair like cx, cy)
                    AscendC::Add(cx, cx, coord_[cpXb_ * plane_], pairCnt);
                }
                coordsPc_ = 4;
                return true;
            case 4:
                // the roles of the plane pairs swap: x0, y0 (base + floor) in planes 0, 1 (pl0, pl1); xs, ys (below:
                // v0 + ceil) in 2, 3 (pl2, pl3)
                // ---- whole-sample rule in vector form: y0 <- kOutsideKey for the sample points outside
                // -1 < y < H, -1 < x < W, so the scalar unit reads y0, and x0 only for points inside (or one key per
                // point, below). Per axis
                // (v0 an exact integer, frac in [0, 1], NaN or -inf for non-finite offsets):
                //   inside <=> frac >= 0 && v0 < size && v0 + ceil(frac) >= 0
                // (v0 + ceil(frac) >= 0 <=> v0 >= 0, or v0 == -1 and frac > 0). xs/ys (the floors' planes) hold v0 +
                // ceil(frac).
                if (!ceilRule) {
                    AscendC::Cast(pl2, lx, AscendC::RoundMode::CAST_CEIL, static_cast<uint32_t>(pairCnt));
                    coordsPc_ = 5;
                    return true;
                    case 5:
                        AscendC::Add(pl2, pl2, pl0, pairCnt);
                }
                if (maskSlots_) { // four conditions into four masks, ANDed (2 Ands), then the Selects: y0 <- key
                                  // outside
                    // A non-finite offset makes its fraction NaN and v0 + ceil(frac) NaN, so it fails the first two
                    // compares (frac >= 0 holds for every finite one: no compare of its own). ceilRule: +inf passes
                    // them (ceil(+inf) = +inf) but fails v0 < size (floor(+inf) = +inf); NaN and -inf fail them.
                    if (ceilRule) { // base + ceil(d) >= 0 <=> (base plane + ceil(d)) >= -(the tile's row/column offset)
                        CompareInto(0, cy, static_cast<float>(-(oh0 * p.strideH - p.padTop)), AscendC::CMPMODE::GE);
                        CompareInto(1, cx, static_cast<float>(-(ow0 * p.strideW - p.padLeft)), AscendC::CMPMODE::GE);
                    } else {
                        coordsPc_ = 6;
                        return true;
                        case 6:
                            CompareInto(0, pl3, 0.0f, AscendC::CMPMODE::GE);
                            CompareInto(1, pl2, 0.0f, AscendC::CMPMODE::GE);
                    }
                    CompareInto(2, pl1, static_cast<float>(p.h), AscendC::CMPMODE::LT);
                    CompareInto(3, pl0, static_cast<float>(p.w), AscendC::CMPMODE::LT);
                    coordsPc_ = 7;
                    return true;
                    case 7:
                        // with the key (below), in the levels of the mask ANDs: key = y0*(W + 2) + x0 + (W + 3) from
                        // the unmarked y0 (over ys, whose compare is done), then kOutsideKey where mask 0 fails, like
                        // y0
                        if (keyPath_) {
                            AscendC::Adds(pl3, pl0, wk + 1.0f, static_cast<int32_t>(planeCnt));
                        }
                        AndMasks(4);
                        coordsPc_ = 8;
                        return true;
                    case 8:
                        if (keyPath_) {
                            AscendC::Axpy(pl3, pl1, wk, static_cast<int32_t>(planeCnt)); // exact integers
                        }
                        AndMasks(2);
                        coordsPc_ = 9;
                        return true;
                    case 9:
                        AscendC::Select(
                            pl1, MaskAt(0), pl1, kOutsideKey, AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, planeCnt);
                        if (keyPath_) {
                            AscendC::Select(
                                pl3, MaskAt(0), pl3, kOutsideKey, AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, planeCnt);
                        }
                        // the fractions of outside points (NaN for non-finite offsets) -> 0: their corner rows are
                        // zero, so their partials are 0 (x0 of an outside point is never read)
                        AscendC::Select(ly, MaskAt(0), ly, 0.0f, AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, planeCnt);
                        AscendC::Select(lx, MaskAt(0), lx, 0.0f, AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, planeCnt);
                } else { // (barriers of its own: one level)
                    MarkOutside(pl1, pl3, msk, 0.0f, AscendC::CMPMODE::GE);
                    MarkOutside(pl1, ly, msk, 0.0f, AscendC::CMPMODE::GE, false, true);
                    MarkOutside(pl1, pl1, msk, static_cast<float>(p.h), AscendC::CMPMODE::LT);
                    MarkOutside(pl0, pl2, msk, 0.0f, AscendC::CMPMODE::GE);
                    MarkOutside(pl0, lx, msk, 0.0f, AscendC::CMPMODE::GE, false, true);
                    MarkOutside(pl0, pl0, msk, static_cast<float>(p.w), AscendC::CMPMODE::LT);
                    MarkOutside(pl1, pl0, msk, kOutsideKey + 1.0f, AscendC::CMPMODE::GT);
                }
                // the weights 1 - frac from the sanitized fractions (a non-finite offset gives frac 0: its point is
                // outside, and its offset/mask partials are 0 like the reference's, not NaN); the Selects that wrote
                // ly and lx are ordered by the barriers after them (MarkOutside's leading ones; maskSlots_: the one
                // before the Muls below or before the keys' Gather)
                if (onesBlock_) {                  // hy, hx as rows in Weights (OneMinus)
                    if (keyPath_ && !maskSlots_) { // orders the last Select (y0, msk) before the key below
                        coordsPc_ = 10;
                        return true;
                        case 10:;
                    }
                } else {
                    if (maskSlots_) { // the fractions' Selects
                        coordsPc_ = 11;
                        return true;
                        case 11:;
                    }
                    AscendC::Muls(hx, lx, -1.0f, static_cast<int32_t>(2 * plane_));
                    coordsPc_ = 12; // also orders the last Select (y0, msk) before the key below
                    return true;
                    case 12:
                        AscendC::Adds(hx, hx, 1.0f, static_cast<int32_t>(2 * plane_));
                }
                if (keyPath_ && !maskSlots_) {
                    // one fp32 key per point (the Loads read two keys per scalar access):
                    // key = (y0 + 1)*(W + 2) + (x0 + 1) = y0*(W + 2) + x0 + (W + 3), exact (an integer below 2^24 for
                    // points inside), kOutsideKey (< 0) outside; over ys (consumed); maskSlots_: above
                    AscendC::Muls(pl3, pl1, wk, static_cast<int32_t>(planeCnt));
                    coordsPc_ = 13;
                    return true;
                    case 13:
                        AscendC::Add(pl3, pl3, pl0, static_cast<int32_t>(planeCnt));
                        coordsPc_ = 14;
                        return true;
                    case 14:
                        AscendC::Adds(pl3, pl3, wk + 1.0f, static_cast<int32_t>(planeCnt));
                        // not ordered by the caller: the compare reads whole 256-B repeats of y0 (plane 1), which reach
                        // the key's plane 3 when a plane is shorter than 64 floats
                        MarkOutside(pl3, pl1, msk, kOutsideKey + 1.0f, AscendC::CMPMODE::GT);
                }
                // what the scalar unit reads (the key; y0, x0 without it) -> the slot's key rows, in row order (the
                // Loads of J read them a Step later)
                coordsPc_ = 15;
                return true;
            case 15:
                break;
            case 16: // quadKeys_: the fp32 keys (gathered below) -> int16 behind them, four per scalar read
                if (relKeys_) { // relative to the tile's reference row, then clamped
                    AscendC::Adds(relKeyRows, KeyRows(J.slot), static_cast<float>(-KeyBase(J)), keyCnt);
                    coordsPc_ = 17;
                    return true;
                }
                AscendC::Cast(
                    QuadKeyRows(J.slot), KeyRows(J.slot), AscendC::RoundMode::CAST_RINT, static_cast<uint32_t>(keyCnt));
                return false;
            case 17:
                AscendC::Maxs(relKeyRows, relKeyRows, kRelKeyFar, keyCnt);
                coordsPc_ = 18;
                return true;
            case 18:
                AscendC::Mins(relKeyRows, relKeyRows, static_cast<float>(kQuadKeyLimit), keyCnt);
                coordsPc_ = 19;
                return true;
            case 19: // exact integers in [-1, 32767]
                AscendC::Cast(
                    QuadKeyRows(J.slot), relKeyRows, AscendC::RoundMode::CAST_RINT, static_cast<uint32_t>(keyCnt));
                return false;
            default:
                break;
        }
        AscendC::LocalTensor<float> keys = KeyRows(J.slot);
        AscendC::LocalTensor<uint32_t> rowTab = RowTable(kt);
        // whole scalar reads: the Loads read the rows in pairs, or in fours as int16 (rowTab has rs_ entries, rs_ a
        // multiple of 8)
        const uint32_t rowCnt = static_cast<uint32_t>(RoundUp(pt * kt, quadKeys_ ? 4 : 2));
        if (keyPath_) { // the key (in ys, plane 3)
            AscendC::Gather(keys, coord_, rowTab, static_cast<uint32_t>(3 * plane_ * 4), rowCnt);
        } else { // y0 (plane 1), then x0 (plane 0)
            AscendC::Gather(keys, coord_, rowTab, static_cast<uint32_t>(plane_ * 4), rowCnt);
            AscendC::Gather(keys[rs_], coord_, rowTab, 0, rowCnt);
        }
        if (quadKeys_) { // the Cast reads the gathered keys: a level of its own
            coordsPc_ = 16;
            return true;
        }
        return false;
    }

    // Sample bases of kernel points [k0, k0+kt): ys[kk][i] = hb[i] + kh*dH, xs[kk][i] = wb[i] + kw*dW (k = k0+kk
    // = kh*KW + kw). Rows of one kh are consecutive and rows of one kw are KW apart: one Adds per kh and one per
    // kw, a row per repeat (pixel plane of PTP <= 64 lanes, source repeat stride 0); else one Adds per row.
    __aicore__ inline void KernelPointBases(
        const AscendC::LocalTensor<float>& ys, const AscendC::LocalTensor<float>& xs,
        const AscendC::LocalTensor<float>& hb, const AscendC::LocalTensor<float>& wb, int64_t k0, int64_t kt)
    {
        const DcnParams& p = *p_;
        const int64_t rowBlocks = ptp_ / 8;
        if (ptp_ > dcn_tiling::kRepeatLanes || p.kw * rowBlocks > 255) {
            for (int64_t kk = 0; kk < kt; ++kk) {
                const int64_t k = k0 + kk, khi = k / p.kw, kwi = k - khi * p.kw;
                AscendC::Adds(ys[kk * ptp_], hb, static_cast<float>(khi * p.dilationH), static_cast<int32_t>(ptp_));
                AscendC::Adds(xs[kk * ptp_], wb, static_cast<float>(kwi * p.dilationW), static_cast<int32_t>(ptp_));
            }
            return;
        }
        const uint64_t mask = static_cast<uint64_t>(ptp_);
        const uint8_t rb = static_cast<uint8_t>(rowBlocks);
        for (int64_t khi = k0 / p.kw; khi * p.kw < k0 + kt; ++khi) { // rows of kh: k in [kh*KW, kh*KW + KW)
            const int64_t first = MaxI(k0, khi * p.kw), last = MinI(k0 + kt, khi * p.kw + p.kw);
            AscendC::Adds(
                ys[(first - k0) * ptp_], hb, static_cast<float>(khi * p.dilationH), mask,
                static_cast<uint8_t>(last - first), AscendC::UnaryRepeatParams(1, 1, rb, 0));
        }
        const uint8_t kwStride = static_cast<uint8_t>(p.kw * rowBlocks);
        for (int64_t kwi = 0; kwi < p.kw; ++kwi) { // rows of kw: k = kwi + m*KW in [k0, k0+kt)
            const int64_t first = k0 + ((kwi - k0 % p.kw) + p.kw) % p.kw;
            if (first >= k0 + kt) {
                continue;
            }
            const int64_t count = (k0 + kt - 1 - first) / p.kw + 1;
            AscendC::Adds(
                xs[(first - k0) * ptp_], wb, static_cast<float>(kwi * p.dilationW), mask, static_cast<uint8_t>(count),
                AscendC::UnaryRepeatParams(1, 1, kwStride, 0));
        }
    }

    // The fp32 offset planes of the tile whose offsets Coords dequeued (rawCoord_): offset block j at
    // off[j * OffsetHop()] (32-bit I/O: the raw offsets themselves, offHop_ apart; 16-bit: Coords' converted planes,
    // plane_ apart).
    __aicore__ inline AscendC::LocalTensor<float> OffsetPlanes() const
    {
        if constexpr (IsSameType<T, float>::value) {
            return rawCoord_.template ReinterpretCast<float>();
        } else {
            return coord_[CP_OFF * plane_];
        }
    }
    __aicore__ inline int64_t OffsetHop() const { return IsSameType<T, float>::value ? offHop_ : plane_; }

    // G rows [pp][kk][LP] (fp32) of tile J -> gQue: rows (p, k) of consecutive pixels are CinG apart when the tile
    // holds every kernel point (kt == K): one DMA for the whole tile; else one per pixel (K > 64).
    __aicore__ inline void LoadGRows(const TileJob& J)
    {
        const DcnParams& p = *p_;
        const DcnTensors<T>& t = *t_;
        const int64_t pt = J.pt, kt = J.kt, k0 = J.k0;
        AscendC::LocalTensor<float> gt = gQue_.AllocTensor<float>();
        const bool wholeK = kt == p.k;
        const int64_t gDmas = wholeK ? 1 : pt;
        for (int64_t i = 0; i < gDmas; ++i) {
            AscendC::DataCopyExtParams cp;
            cp.blockCount = static_cast<uint16_t>(wholeK ? pt * kt : kt);
            cp.blockLen = static_cast<uint32_t>(J.len * 4);
            cp.srcStride = static_cast<uint32_t>((p.cinG - J.len) * 4);
            cp.dstStride = static_cast<uint32_t>(
                (lp_ * 4 - RoundUp(J.len * 4, dcn_tiling::kUbBlockBytes)) / dcn_tiling::kUbBlockBytes);
            cp.rsv = 0;
            AscendC::DataCopyPadExtParams<float> noPad;
            int64_t src = (ChunkGRow(p, J.n, J.gc, J.p0 + i) * p.k + k0) * p.cinG + J.cl0;
            AscendC::DataCopyPad(gt[i * kt * lp_], t.g[src], cp, noPad);
        }
        gQue_.EnQue(gt);
    }

    // Shared fronts: tile J's record (keys, gather table, row vectors 0..8) -> UB in place of its Coords and Weights
    // (Step), in two parts. The keys when J is pushed (its slot's key rows were last read by the scalar unit's Loads of
    // the tile two before), for the scalar unit's Loads a Step later (recSEvent_).
    __aicore__ inline void LoadRecordKeys(const TileJob& J)
    {
        AscendC::DataCopyPadExtParams<float> noPad;
        PipeSync<AscendC::HardEvent::S_MTE2>();
        AscendC::DataCopyPad(KeyRows(J.slot), RecordOf(J)[kRecordRowVecs * rs_], RecordCopy(2 * rs_), noPad);
        AscendC::SetFlag<AscendC::HardEvent::MTE2_S>(recSEvent_);
    }
    // After the Loads of f (its gathers read the table: RecordTable, the coordinate planes the units no longer
    // compute; the Back of the tile before f, which read f's slot rows, came a Step earlier): c's gather table (hasC)
    // for its Loads (tabEvent_), f's row vectors (hasF) for its Back a Step later (rowEvent_). One V_MTE2 covers both.
    __aicore__ inline void LoadRecordTableAndRows(bool hasC, bool hasF)
    {
        AscendC::DataCopyPadExtParams<float> noPad;
        PipeSync<AscendC::HardEvent::V_MTE2>();
        if (hasC) {
            if (RecordHasTable(jobCoord_)) {
                AscendC::DataCopyPad(
                    RecordTable().template ReinterpretCast<float>(),
                    RecordOf(jobCoord_)[dcn_tiling::kStage2RecordRows * rs_], RecordCopy(4 * cornerRows_ * winNb_),
                    noPad);
            }
            AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(tabEvent_);
        }
        if (hasF) {
            AscendC::DataCopyPad(RowVecs(jobFront_.slot), RecordOf(jobFront_), RecordCopy(kRecordRowVecs * rs_), noPad);
            AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(rowEvent_[jobFront_.slot]);
        }
    }
    __aicore__ inline AscendC::GlobalTensor<float> RecordOf(const TileJob& J) const
    {
        return t_->rec[J.rec * p_->recFloats];
    }
    // The gather table of the tile in the Loads: the broadcast buffer's (Weights), or with shared fronts the record's,
    // in the coordinate planes (unused then; the host checks they hold it: PlanSharedFronts).
    __aicore__ inline AscendC::LocalTensor<uint32_t> RecordTable()
    {
        return coord_.template ReinterpretCast<uint32_t>();
    }
    __aicore__ inline AscendC::LocalTensor<uint32_t> GatherTable()
    {
        return consume_ ? RecordTable() : brcBuf_.Get<uint32_t>();
    }

    // Records: tile J's front (Coords, Weights) -> its record. The scalar unit reads nothing the fronts compute, so it
    // waits for the vector pipe (V_S) only before scalar writes of J's pixel bases (CoordsLevel). The vector pipe waits
    // for the stores of the record that last used J's buffers: with a gather table per slot (tableSlots_) the tile two
    // before (slot rows, keys, table: a whole tile ago), before J's coordinates; else the tile before (the one table),
    // before J's weights, so that J's coordinates run beside those stores.
    __aicore__ inline void ProduceRecord(const TileJob& J)
    {
        const int64_t slot = tableSlots_ ? J.slot : 0;
        if (tableSlots_ && storePending_[slot]) { // the record two before: before J's coordinates
            AscendC::WaitFlag<AscendC::HardEvent::MTE3_V>(storeEvent_[slot]);
            storePending_[slot] = false;
        }
        Coords(J);
        if (!tableSlots_ && storePending_[slot]) { // the record before (the one table): before J's weights
            AscendC::WaitFlag<AscendC::HardEvent::MTE3_V>(storeEvent_[slot]);
            storePending_[slot] = false;
        }
        tableBase_ = slot * tableSpan_;
        Weights(J);
        PipeSync<AscendC::HardEvent::V_MTE3>();
        const AscendC::GlobalTensor<float> rec = RecordOf(J);
        AscendC::DataCopyPad(rec, RowVecs(J.slot), RecordCopy(kRecordRowVecs * rs_));
        AscendC::DataCopyPad(rec[kRecordRowVecs * rs_], KeyRows(J.slot), RecordCopy(2 * rs_));
        if (RecordHasTable(J)) {
            AscendC::DataCopyPad(
                rec[dcn_tiling::kStage2RecordRows * rs_], brcBuf_.Get<float>()[tableBase_],
                RecordCopy(4 * cornerRows_ * winNb_));
        }
        AscendC::SetFlag<AscendC::HardEvent::MTE3_V>(storeEvent_[slot]);
        storePending_[slot] = true;
    }
    // The records' last flags, waited for at the end of the stage.
    __aicore__ inline void FinishRecords()
    {
        for (int64_t slot = 0; slot < 2; ++slot) {
            if (storePending_[slot]) {
                AscendC::WaitFlag<AscendC::HardEvent::MTE3_V>(storeEvent_[slot]);
                storePending_[slot] = false;
            }
        }
    }

    // A record's rows: the weight rows mw_0..3, ly, lx, hy, hx, m (RowVecs 0..8; the Back reads no others).
    static constexpr int64_t kRecordRowVecs = dcn_tiling::kStage2RecordRows - 2;
    // Tile J's corner gathers read a table (its window is open): the record carries it.
    __aicore__ inline bool RecordHasTable(const TileJob& J) const { return gatherCorners_ && J.win >= 0; }
    __aicore__ static inline AscendC::DataCopyExtParams RecordCopy(int64_t floats)
    {
        return AscendC::DataCopyExtParams{1, static_cast<uint32_t>(floats * 4), 0, 0, 0};
    }

    // G rows, weight rows and gather offsets of tile J (after its Coords; the Back of the tile two before,
    // the same slot, precedes).
    __aicore__ inline void Weights(const TileJob& J)
    {
        const DcnParams& p = *p_;
        const int64_t pt = J.pt, kt = J.kt;
        if (!produce_) {
            LoadGRows(J);
        }

        AscendC::LocalTensor<T> raw = rawCoord_; // dequeued by Coords
        if (fusedOffsets_) { // the levels the Back before did not take (FusedLevelsInRounds), in order
            if (!fusedStarted_) {
                BeginFusedLevels(J);
            }
            while (fusedPending_) {
                if (fusedUnfenced_) {
                    AscendC::PipeBarrier<PIPE_V>();
                }
                IssueFusedLevel();
            }
            fusedStarted_ = false;
            offQue_.FreeTensor(raw);
            return;
        }
        const int64_t hop = OffsetHop();
        AscendC::LocalTensor<float> off = OffsetPlanes();

        // ---- per-row weights of the slot (row order i*kt + kk, vector): Gather the planes into rows (ly, lx, m;
        // hy, hx = 1 - ly, 1 - lx by one OneMinus over two rows when the ones block exists, else gathered from
        // the planes Coords made), then mw_c = m * w_c with w = {hy*hx, hy*lx, ly*hx, ly*lx} (m = 1 for DCNv1)
        const int64_t rows = pt * kt;
        const uint32_t rowCnt = static_cast<uint32_t>(rows);
        AscendC::LocalTensor<float> rv = RowVecs(J.slot);
        AscendC::LocalTensor<uint32_t> rowTab = RowTable(J.kt);
        AscendC::LocalTensor<float> rLy = rv[RV_LY * rs_], rLx = rv[RV_LX * rs_], rHy = rv[RV_HY * rs_];
        AscendC::LocalTensor<float> rHx = rv[RV_HX * rs_], rM = rv[RV_M * rs_];
        AscendC::LocalTensor<float> rT1 = rv[RV_T1 * rs_], rT2 = rv[RV_T2 * rs_];
        AscendC::Gather(rLy, coord_, rowTab, static_cast<uint32_t>(5 * plane_ * 4), rowCnt);
        AscendC::Gather(rLx, coord_, rowTab, static_cast<uint32_t>(4 * plane_ * 4), rowCnt);
        const int32_t rc = static_cast<int32_t>(rows);
        AscendC::LocalTensor<float> mhy = rHy, mly = rLy; // m*hy, m*ly (DCNv1: hy, ly)
        if (onesBlock_) { // hy, hx as rows (one OneMinus over the ly, lx rows) instead of two more Gathers
            if (p.modulated) {
                AscendC::Gather(rM, off, rowTab, static_cast<uint32_t>(2 * hop * 4), rowCnt);
            }
            AscendC::PipeBarrier<PIPE_V>();
            OneMinus(rHy, rLy, 2 * rs_); // hy, hx (rows RV_HY, RV_HX: 2 after RV_LY, RV_LX)
            if (p.modulated) {
                AscendC::Mul(rT2, rM, rLy, rc); // m*ly
                mly = rT2;
                mhy = rT1;
            }
            AscendC::PipeBarrier<PIPE_V>();
            if (p.modulated) {
                AscendC::Mul(rT1, rM, rHy, rc); // m*hy
            }
            AscendC::Mul(rv[2 * rs_], mly, rHx, rc);
            AscendC::Mul(rv[3 * rs_], mly, rLx, rc);
            if (p.modulated) {
                AscendC::PipeBarrier<PIPE_V>();
            }
        } else { // hy, hx from the planes Coords made
            AscendC::Gather(rHy, coord_, rowTab, static_cast<uint32_t>(7 * plane_ * 4), rowCnt);
            AscendC::Gather(rHx, coord_, rowTab, static_cast<uint32_t>(6 * plane_ * 4), rowCnt);
            if (p.modulated) {
                AscendC::Gather(rM, off, rowTab, static_cast<uint32_t>(2 * hop * 4), rowCnt);
                AscendC::PipeBarrier<PIPE_V>();
                AscendC::Mul(rT1, rM, rHy, rc); // m*hy
                AscendC::Mul(rT2, rM, rLy, rc); // m*ly
                mhy = rT1;
                mly = rT2;
            }
            AscendC::PipeBarrier<PIPE_V>();
            AscendC::Mul(rv[2 * rs_], mly, rHx, rc);
            AscendC::Mul(rv[3 * rs_], mly, rLx, rc);
        }
        AscendC::Mul(rv[0 * rs_], mhy, rHx, rc);
        AscendC::Mul(rv[1 * rs_], mhy, rLx, rc);
        offQue_.FreeTensor(raw);
        UseWindow(J.win);
        if (gatherCorners_ && winHi_ > winLo_) {
            GatherOffsets(J);
        }
    }

    // Weights (above) and, when the tile's window is open, its gather offsets (GatherOffsets) in one chain of
    // vector levels (fusedOffsets_), beside the weight rows: the served rule's 4 compares on x0, y0 directly
    // (ANDed in 2 levels), e = (x0 + y0*winW - winXLo - winLo*winW)*pixBytes (Muls, Axpy, Adds; exact: integers
    // below 2^24 times a power of two), e = kFarOffset where the rule fails (one Select), then the table (ExpandTable,
    // levels 5..9). e in plane 6 (free with onesBlock_; x0, y0 are read by then; the compares' whole repeats read
    // past y0 into plane 2, not written). Rows past a short tile take whatever their planes give (an in-window pixel
    // or the zero area): they are never scattered or stored.
    // The levels are issued one at a time (IssueFusedLevel: level L+1 only after a PipeBarrier<PIPE_V> that
    // follows level L): by Weights, or inside the previous tile's scatter rounds (FusedLevelsInRounds).
    __aicore__ inline void WeightsAndOffsets(const TileJob& J, int level)
    {
        const int64_t used = useWin_; // the Back's window when the level runs in its rounds: restored after it
        UseWindow(J.win);
        WeightsAndOffsetsLevel(J, level);
        UseWindow(used);
    }
    __aicore__ inline void WeightsAndOffsetsLevel(const TileJob& J, int level)
    {
        const DcnParams& p = *p_;
        const int32_t rc = static_cast<int32_t>(J.pt * J.kt);
        const uint32_t rowCnt = static_cast<uint32_t>(J.pt * J.kt);
        AscendC::LocalTensor<float> rv = RowVecs(J.slot);
        AscendC::LocalTensor<uint32_t> rowTab = RowTable(J.kt);
        const int64_t hop = OffsetHop();
        AscendC::LocalTensor<float> off = OffsetPlanes();
        AscendC::LocalTensor<float> rLy = rv[RV_LY * rs_], rLx = rv[RV_LX * rs_], rHy = rv[RV_HY * rs_];
        AscendC::LocalTensor<float> rHx = rv[RV_HX * rs_], rM = rv[RV_M * rs_];
        AscendC::LocalTensor<float> rT1 = rv[RV_T1 * rs_], rT2 = rv[RV_T2 * rs_];
        const bool offsets = winHi_ > winLo_;
        const int32_t planeCnt = static_cast<int32_t>(plane_);
        AscendC::LocalTensor<float> x0 = coord_[0], y0 = coord_[plane_], e = coord_[6 * plane_];
        const float pixBytes = static_cast<float>(lp_ * winElt_);
        // level 1: the weights' rows; the served rule's compares (on x0, y0: whole repeats, they read into the
        // planes after y0, not written here); e = x0*pixBytes
        if (level == 1) {
            AscendC::Gather(rLy, coord_, rowTab, static_cast<uint32_t>(5 * plane_ * 4), rowCnt);
            AscendC::Gather(rLx, coord_, rowTab, static_cast<uint32_t>(4 * plane_ * 4), rowCnt);
            if (p.modulated) {
                AscendC::Gather(rM, off, rowTab, static_cast<uint32_t>(2 * hop * 4), rowCnt);
            }
            if (offsets) {
                CompareInto(0, y0, static_cast<float>(winLo_), AscendC::CMPMODE::GE);
                CompareInto(1, x0, static_cast<float>(winXLo_), AscendC::CMPMODE::GE);
                CompareInto(2, y0, static_cast<float>(winHi_ - 2), AscendC::CMPMODE::LE);
                CompareInto(3, x0, static_cast<float>(winXLo_ + winW_ - 2), AscendC::CMPMODE::LE);
                AscendC::Muls(e, x0, pixBytes, planeCnt);
            }
            return;
        }
        // level 2: hy, hx (and m*ly); the masks' first And; e = (x0 + y0*winW)*pixBytes
        if (level == 2) {
            OneMinus(rHy, rLy, 2 * rs_);
            if (p.modulated) {
                AscendC::Mul(rT2, rM, rLy, rc); // m*ly
            }
            if (offsets) {
                AndMasks(4);
                AscendC::Axpy(e, y0, static_cast<float>(winW_) * pixBytes, planeCnt);
            }
            return;
        }
        // level 3: m*hy, w_2, w_3; the second And; V_c = e + (delta_c - winXLo - winLo*winW)*pixBytes
        AscendC::LocalTensor<float> mhy = p.modulated ? rT1 : rHy, mly = p.modulated ? rT2 : rLy;
        if (level == 3) {
            if (p.modulated) {
                AscendC::Mul(rT1, rM, rHy, rc); // m*hy
            }
            AscendC::Mul(rv[2 * rs_], mly, rHx, rc);
            AscendC::Mul(rv[3 * rs_], mly, rLx, rc);
            if (offsets) { // e relative to the window's first pixel (the corners' deltas come with the table)
                AndMasks(2);
                AscendC::Adds(e, e, static_cast<float>((-winXLo_ - winLo_ * winW_) * lp_ * winElt_), planeCnt);
            }
            return;
        }
        // level 4 (after m*hy and e): w_0, w_1; e of the points not served -> kFarOffset (the table's Mins turns their
        // entries into the zero area)
        if (level == 4) {
            AscendC::Mul(rv[0 * rs_], mhy, rHx, rc);
            AscendC::Mul(rv[1 * rs_], mhy, rLx, rc);
            if (offsets) {
                AscendC::Select(
                    e, MaskAt(0), e, kFarOffset, AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE,
                    static_cast<uint32_t>(plane_));
            }
            return;
        }
        ExpandTable(J, level); // levels 5..9 (open window only)
    }

    // Levels 5..9 of the fused gather offsets (after level 4's Select: e = the point's window offset, or
    // kFarOffset where the window does not serve it), the table in block-column-major order: entry (j, c, row) =
    // e[row] + delta_c*pixBytes + 32*j, delta = 0, 1, winW, winW + 1 (corner c's pixel after (y0, x0) in the window),
    // so that the Loads gather block column j of all 4 corner planes with one Gatherb (destination block stride nb):
    //   5: the rows of e (row order, every corner row: padding rows read plane element 0 or a padding pixel, whose e
    //      is a served offset or kFarOffset like every other) -> R;  6: column 0 = R + delta_c*pixBytes (4 Adds);
    //   7: columns j > 0 = column 0 + 32*j;  8: Mins with the zero area's offset (entries of points not served are
    //   >= 2^23);  9: Cast to int32.
    // Exact: every value is an integer multiple of 32 below 2^24 except the kFarOffset ones, which the Mins replaces.
    __aicore__ inline void ExpandTable(const TileJob& J, int level)
    {
        AscendC::LocalTensor<float> work = brcBuf_.Get<float>()[tableBase_];
        const int64_t nb = winNb_, column = 4 * cornerRows_, entries = nb * column;
        AscendC::LocalTensor<float> rr = work[entries];
        const int32_t rowCnt = static_cast<int32_t>(cornerRows_), colCnt = static_cast<int32_t>(column);
        if (level == 5) {
            AscendC::Gather(
                rr, coord_, RowTable(J.kt), static_cast<uint32_t>(6 * plane_ * 4), static_cast<uint32_t>(cornerRows_));
            return;
        }
        if (level == 6) {
            const int64_t delta[4] = {0, 1, winW_, winW_ + 1};
            for (int c = 0; c < 4; ++c) {
                AscendC::Adds(work[c * cornerRows_], rr, static_cast<float>(delta[c] * lp_ * winElt_), rowCnt);
            }
            return;
        }
        if (level == 7) {
            for (int64_t j = 1; j < nb; ++j) {
                AscendC::Adds(work[j * column], work, static_cast<float>(j * dcn_tiling::kUbBlockBytes), colCnt);
            }
            return;
        }
        if (level == 8) {
            AscendC::Mins(work, work, static_cast<float>(zeroOff_), static_cast<int32_t>(entries));
            return;
        }
        AscendC::Cast(
            work.template ReinterpretCast<int32_t>(), work, AscendC::RoundMode::CAST_RINT,
            static_cast<uint32_t>(entries));
    }

    // The fused levels of tile J from the first: levels 1..4, with an open window 5, 6 (more than one block per
    // pixel) and 7.
    __aicore__ inline void BeginFusedLevels(const TileJob& J)
    {
        fusedJob_ = J;
        fusedLevel_ = 1;
        fusedStarted_ = fusedPending_ = true;
        fusedUnfenced_ = false;
        UseWindow(J.win);
        fusedLast_ = winHi_ > winLo_ ? 9 : 4;
    }
    // The next level (the previous one is fenced by a PipeBarrier<PIPE_V> since); then unfenced.
    __aicore__ inline void IssueFusedLevel()
    {
        WeightsAndOffsets(fusedJob_, fusedLevel_);
        fusedUnfenced_ = true;
        // level 7 (ExpandTable: the block columns j > 0) is skipped for one block per pixel
        fusedLevel_ = fusedLevel_ == 6 && winNb_ == 1 ? fusedLevel_ + 2 : fusedLevel_ + 1;
        fusedPending_ = fusedLevel_ <= fusedLast_;
    }
    // Weights(c) after Back(b) in the same Step may run any of its fused levels inside b's scatter rounds (one level
    // per round, between the round barriers, so each level is fenced by the round barrier after it instead of a
    // barrier of its own; since ExpandTable builds the table from rows, no ~200-cycle element Gather holds the
    // rounds' adds up), when nothing in those rounds touches what the levels access: c's coordinate planes, weight rows
    // (c's slot is b's: b's contributions and partials have read them before its rounds), the broadcast buffer (b's
    // partials' scratch, done) and offsets, nor the window state's data (the levels compute table entries from c's
    // window geometry, WeightsAndOffsets, and read neither xwin nor gwin); the Back must not be a draining one. c's
    // window may differ from b's (session 27: before, the levels of a tile that opened a window took barriers of their
    // own; R50 c4 fp16 -2.0 %, R50 c3 body fp32 -3.2 %).
    __aicore__ inline void FusedLevelsInRounds()
    {
        if (fusedOffsets_ && !consume_ && hasCoord_ && hasFront_) {
            BeginFusedLevels(jobCoord_);
            UseWindow(jobBack_.win);
        }
    }

    // Corner loads of tile J (its coordinates' wait is done); `withBack`: the previous tile (jobBack_) waits
    // for its Back, which follows (16-bit I/O: its corner casts are done here, before J's loads reuse the
    // staging planes).
    __aicore__ inline void Loads(const TileJob& J, bool withBack)
    {
        const DcnParams& p = *p_;
        const int64_t pt = J.pt, kt = J.kt;
        UseWindow(J.win);
        const bool gather = gatherCorners_ && winHi_ > winLo_;
        AscendC::LocalTensor<float> keys = KeyRows(J.slot);
        if (consume_) { // J's gather table is in UB
            AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(tabEvent_);
        }
        if constexpr (!IsSameType<T, float>::value) {
            if (withBack) { // the previous tile's GM corner rows leave the staging planes before J's loads
                xpBack_ = xQue_.DeQue<float>();
                CastStagedCorners(xpBack_, jobBack_);
            }
        }

        if (J.win >= 0 && J.win != xwinOwner_) { // J is the first tile of its window, not prefetched
            LoadWindow(J.n, J.c0, J.len, false);
            xwinOwner_ = J.win;
        } else if (winWait_) { // ... prefetched by the previous tile's Loads
            AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(winEvent_);
            winWait_ = false;
        }

        // ---- X rows of the 4 corners of every point: planes xp[c][row][LP], row = i*kt + kk (the G order);
        // rows of corners outside the image (or of points outside the whole-sample window) stay zero, so
        // their corner sums are 0 and the vector partials need no masks. The queue buffer was last read by
        // the scatter of the tile two before J, the partials plane (written next by the previous tile's
        // Back) by its partials store (both: the slot's store event, set two tiles before).
        if (slotParts_) {
            WaitStores(J.slot);
        }
        // one partials plane or a Back while draining (it set no flag): all stores so far
        if (!slotParts_ || storeSyncAll_) {
            PipeSync<AscendC::HardEvent::MTE3_V>();
            ZerosSeen(zeroElems_);
            storeSyncAll_ = false;
        }
        AscendC::LocalTensor<float> xp = xQue_.AllocTensor<float>();
        stagedAll_[J.slot] = gather && winT_;
        if (gather) { // every row: its window corners, or the zero block (GatherOffsets); winT_: into the staging
            // planes, cast with the GM-loaded corners in the next Front (CastStagedCorners)
            AscendC::PipeBarrier<PIPE_V>(); // the offsets (and a 16-bit window's casts) are complete
            AscendC::LocalTensor<uint32_t> dst =
                winT_ ? xs_.template ReinterpretCast<uint32_t>() : xp.template ReinterpretCast<uint32_t>();
            if (fusedOffsets_) { // block column j of the 4 corner planes per Gatherb (ExpandTable's order)
                const int64_t column = 4 * cornerRows_;
                for (int64_t j = 0; j < winNb_; ++j) {
                    AscendC::Gatherb(
                        dst[j * dcn_tiling::kBrcLanes], xwin_.template ReinterpretCast<uint32_t>(),
                        GatherTable()[j * column], static_cast<uint8_t>(column / 8),
                        AscendC::GatherRepeatParams(static_cast<uint8_t>(winNb_), static_cast<uint8_t>(8 * winNb_)));
                }
            } else {
                AscendC::Gatherb(
                    dst, xwin_.template ReinterpretCast<uint32_t>(), GatherTable(),
                    static_cast<uint8_t>(4 * cornerRows_ * winNb_ / 8), AscendC::GatherRepeatParams(1, 8));
            }
        }
        if (!gather) {
            AscendC::Duplicate(xp, 0.0f, static_cast<int32_t>(4 * cornerRows_ * lp_));
        }
        AscendC::PipeBarrier<PIPE_V>();  // window corner copies (UB->UB, vector pipe) follow the zeroing
        RowInfo* info = rowInfo_[J.slot];
        int64_t loaded = 0; // points the window does not serve: their corners are loaded one by one
        // two rows' keys per scalar read (quadKeys_: four int16 keys): the key rows start 32-B aligned (rs_ a multiple
        // of 8) and Coords gathers (and casts) whole reads of rows
        const AscendC::LocalTensor<uint64_t> keyPairs = keys.template ReinterpretCast<uint64_t>();
        const AscendC::LocalTensor<uint64_t> keyQuads = QuadKeyRows(J.slot).template ReinterpretCast<uint64_t>();
        uint64_t pair = 0, pairX = 0;
        const int64_t keyBase = relKeys_ ? KeyBase(J) : 0;
        for (int64_t i = 0; i < pt; ++i) {
            for (int64_t kk = 0; kk < kt; ++kk) {
                const int64_t row = i * kt + kk;
                const uint32_t idx = static_cast<uint32_t>(row);
                RowInfo& ri = info[row];
                if (quadKeys_) {
                    if ((idx & 3U) == 0) {
                        pair = keyQuads.GetValue(idx >> 2);
                    }
                } else if ((idx & 1U) == 0) {
                    pair = keyPairs.GetValue(idx >> 1);
                    if (!keyPath_) {
                        pairX = keyPairs.GetValue((static_cast<uint32_t>(rs_) + idx) >> 1);
                    }
                }
                const bool odd = (idx & 1U) != 0;
                if (keyPath_) {
                    float fk = quadKeys_ ? static_cast<float>(QuadPart(pair, idx & 3U)) : PairHalf(pair, odd);
                    if (relKeys_) { // a relative key, or (either end of its range) the fp32 key
                        fk = fk > kRelKeyFar && fk < static_cast<float>(kQuadKeyLimit) ?
                                 fk + static_cast<float>(keyBase) :
                                 PairHalf(keyPairs.GetValue(idx >> 1), odd);
                    }
                    ri.inside = fk >= 0.0f;
                    const int32_t key = ri.inside ? static_cast<int32_t>(fk) : 0, wk = static_cast<int32_t>(p.w + 2);
                    ri.y0 = key / wk - 1;
                    ri.x0 = key - (key / wk) * wk - 1;
                } else {
                    const float fy0 = PairHalf(pair, odd);
                    ri.inside = fy0 > kOutsideKey + 1.0f;
                    ri.y0 = ri.inside ? static_cast<int32_t>(fy0) : 0;
                    ri.x0 = ri.inside ? static_cast<int32_t>(PairHalf(pairX, odd)) : 0;
                }
                ri.served = gather && ri.inside && ri.y0 >= winLo_ && ri.y0 + 1 < winHi_ && ri.x0 >= winXLo_ &&
                            ri.x0 + 1 < winXHi_;
                ri.gmFirst[0] = ri.gmFirst[1] = -1;
                ri.gmLast[0] = ri.gmLast[1] = -1;
                loaded += ri.inside && !ri.served ? 1 : 0;
            }
        }
        if (loaded > 0) { // MTE2 writes xp (or the staging planes) after the vector zeroing / gather / casts
            PipeSync<AscendC::HardEvent::V_MTE2>();
            for (int64_t row = 0; row < pt * kt; ++row) {
                RowInfo& ri = info[row];
                if (ri.inside && !ri.served) {
                    LoadCornerRows(J.n, J.c0, J.len, xp, row, ri);
                }
            }
        }
        xQue_.EnQue(xp);
        // J is its window's last tile and the next one (its coordinates issued) has a window: load that now, so
        // the DMAs run under b's products and c's weights (J's gathers and copies, V, are issued)
        if (hasCoord_ && jobCoord_.win >= 0 && jobCoord_.win != J.win && DirectWindowLoad()) {
            UseWindow(jobCoord_.win);
            LoadWindow(jobCoord_.n, jobCoord_.c0, jobCoord_.len, true);
            xwinOwner_ = jobCoord_.win;
        }
        if (kt_ < p.k) {
            // the scalar reads of the key rows precede the slot's next key rows (Coords two tiles on); when
            // every tile starts a pixel tile (K <= KT), the pixel bases' S_V in each Coords orders them
            PipeSync<AscendC::HardEvent::S_V>();
        }
    }

    // Products, partials, scatter and partials store of tile J (its corner rows in the oldest xQue buffer).
    // The caller orders J's window corner copies (V) and 16-bit casts before the products (PipeBarrier<PIPE_V>)
    // and the previous partials store (MTE3) before the partials are written (MTE3_V).
    __aicore__ inline void Back(const TileJob& J)
    {
        const DcnParams& p = *p_;
        const DcnTensors<T>& t = *t_;
        if (consume_) { // J's row vectors (LoadRecordTableAndRows) are in UB
            AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(rowEvent_[J.slot]);
        }
        const uint32_t planeCnt = static_cast<uint32_t>(plane_);
        // The first tile of a window zeroes gwin before its window adds (the previous window was flushed right
        // after its last Back, Step).
        const bool newGwin = J.win != gwinOwner_ && J.win >= 0;
        gwinOwner_ = J.win;
        UseWindow(J.win);
        const int64_t pt = J.pt, kt = J.kt, len = J.len;
        if constexpr (IsSameType<T, float>::value) {
            xpBack_ = xQue_.DeQue<float>();
        }
        AscendC::LocalTensor<float> xp = xpBack_;
        AscendC::LocalTensor<float> gt = gQue_.DeQue<float>();

        // ---- s_c[row] = sum_block X_c * G for all rows: one Mul (in place) per corner, then the row sums
        const int64_t rows = pt * kt;
        const uint8_t repBlocks = static_cast<uint8_t>(lp_ / 8); // blocks from one row to the next
        const AscendC::BinaryRepeatParams rowRep(1, 1, 1, repBlocks, repBlocks, repBlocks);
        const int64_t planeElems = cornerRows_ * lp_;
        for (int c = 0; c < 4; ++c) {
            if (len == lp_) {  // no padding lanes: the rows are contiguous, count form
                AscendC::Mul(xp[c * planeElems], xp[c * planeElems], gt, static_cast<int32_t>(rows * lp_));
            } else {           // G padding lanes are undefined: masked form, len lanes per row
                AscendC::Mul(xp[c * planeElems], xp[c * planeElems], gt, static_cast<uint64_t>(len),
                             static_cast<uint8_t>(rows), rowRep);
            }
        }
        BarrierBeside();
        AscendC::LocalTensor<float> red = redBuf_.Get<float>();
        AscendC::LocalTensor<float> brc = brcBuf_.Get<float>();
        AscendC::LocalTensor<float> rv = RowVecs(J.slot);
        if (len == lp_) {
            BlockwiseRowSums(xp, red);
            BlockwiseContributions(xp, gt, rv, brc, rows);
        } else {
            RepeatRowSums(xp, red, rows, len);
            GatherContributions(xp, gt, rv, brc, rows, len);
        }

        // ---- offset/mask partials per row (vector), s_c = 0 for corners outside the image:
        //   gx = m*(hy*(s1 - s0) + ly*(s3 - s2)),  gy = m*(hx*(s2 - s0) + lx*(s3 - s1)),
        //   gm = hy*(hx*s0 + lx*s1) + ly*(hx*s2 + lx*s3)
        // written over the mw rows (their broadcast is done), then Gathered into the [j][kk][pp] planes
        AscendC::LocalTensor<float> rLy = rv[RV_LY * rs_], rLx = rv[RV_LX * rs_], rHy = rv[RV_HY * rs_];
        AscendC::LocalTensor<float> rHx = rv[RV_HX * rs_], rM = rv[RV_M * rs_];
        // Every row vector below is rs_ long (whole vectors: the padding rows past the tile are defined and never
        // stored), so operations on adjacent vectors merge into one instruction of 2 or 3 vectors: the sums
        // s0..s3 are adjacent in red, and the scratch rows of the broadcast buffer (free after the contributions;
        // the next tile's gather offsets are written there after this Back) are laid out so that the pairs of the
        // three expressions are adjacent too: D = s[1..3] - s[0..2] (s1 - s0, -, s3 - s2), E = s[2..3] - s[0..1]
        // (s2 - s0, s3 - s1), Q = (hx*s2, lx*s3, hx*s0, lx*s1), then Q[0..2] + Q[1..3] = (cd, -, ab) and
        // (cd, -, ab) * (ly, lx, hy) (rows RV_LY, RV_LX, RV_HY). 11 instructions instead of 16 (each issued by the
        // scalar unit), each element computed by the same operations as one vector at a time.
        const int32_t rv1 = static_cast<int32_t>(rs_), rv2 = static_cast<int32_t>(2 * rs_);
        const int32_t rv3 = static_cast<int32_t>(3 * rs_);
        AscendC::LocalTensor<float> gx = rv[0], gy = rv[rs_], gm = rv[2 * rs_];
        AscendC::LocalTensor<float> d = brc[0], e = brc[3 * rs_], qv = brc[5 * rs_], gx2 = brc[9 * rs_];
        AscendC::LocalTensor<float> gy2 = brc[10 * rs_], cdab = brc[11 * rs_];
        // In 4 levels separated by PipeBarrier<PIPE_V> (the depth of the three expressions); no instruction of a
        // level writes a row another instruction of the same level reads (the vector pipe may start one before the
        // previous finishes).
        BarrierBeside();                               // the contributions' reads of brc are done
        AscendC::Sub(d, red[rs_], red[0], rv3);        // level 1: s1 - s0, (s2 - s1), s3 - s2
        AscendC::Sub(e, red[2 * rs_], red[0], rv2);    // s2 - s0, s3 - s1
        AscendC::Mul(qv, rHx, red[2 * rs_], rv1);      // hx*s2
        AscendC::Mul(qv[rs_], rLx, red[3 * rs_], rv1); // lx*s3
        AscendC::Mul(qv[2 * rs_], rHx, red[0], rv1);   // hx*s0
        AscendC::Mul(qv[3 * rs_], rLx, red[rs_], rv1); // lx*s1
        BarrierBeside();
        AscendC::Mul(gx, d, rHy, rv1); // level 2
        AscendC::Mul(gx2, d[2 * rs_], rLy, rv1);
        AscendC::Mul(gy, e, rHx, rv1);
        AscendC::Mul(gy2, e[rs_], rLx, rv1);
        AscendC::Add(cdab, qv, qv[rs_], rv3); // hx*s2 + lx*s3, (-), hx*s0 + lx*s1
        // rowParts_: the last level writes the partial rows [j][rs] of the slot's partials buffer (stored as they
        // are); else the mw rows, Gathered into the [j][kk][pp] planes
        AscendC::LocalTensor<float> part = partBuf_.Get<float>()[(slotParts_ ? J.slot : 0) * 3 * plane_];
        AscendC::LocalTensor<float> px = rowParts_ ? part : gx, py = rowParts_ ? part[rs_] : gy;
        AscendC::LocalTensor<float> pm = rowParts_ ? part[2 * rs_] : gm;
        BarrierBeside();
        AscendC::Add(p.modulated ? gx : px, gx, gx2, rv2); // level 3: gx, gy (px, py adjacent like them)
        AscendC::Mul(cdab, cdab, rLy, rv3);                // cd*ly, (-), ab*hy
        BarrierBeside();
        if (p.modulated) { // level 4
            AscendC::Mul(px, gx, rM, rv1);
            AscendC::Mul(py, gy, rM, rv1);
        }
        AscendC::Add(pm, cdab[2 * rs_], cdab, rv1);
        BarrierBeside();
        if (!rowParts_) {
            AscendC::LocalTensor<uint32_t> planeTab = planeTabBuf_.Get<uint32_t>()[TableSet(J.kt) * plane_];
            AscendC::Gather(part, rv, planeTab, 0, planeCnt);                                      // dx <- gx
            AscendC::Gather(part[plane_], rv, planeTab, static_cast<uint32_t>(rs_ * 4), planeCnt); // dy <- gy
            if (p.modulated) {
                AscendC::Gather(part[2 * plane_], rv, planeTab, static_cast<uint32_t>(2 * rs_ * 4), planeCnt); // mask
            }
        }
        PipeSync<AscendC::HardEvent::V_MTE3>();
        FenceSeenZeros();
        if (newGwin) { // the previous window's flush (MTE3) has read gwin
            PipeSync<AscendC::HardEvent::MTE3_V>();
            ZerosSeen(zeroElems_);
            AscendC::Duplicate(gwin_, 0.0f, static_cast<int32_t>((winHi_ - winLo_) * winW_ * lp_));
            // the window's plane rows and one window height below: zeroed a few DMAs per Back, ahead of the flush
            // and of the next window's atomics, so that MTE3 runs them under the tiles
            zeroTarget_ = MaxI(zeroTarget_, MinI(p.h, 2 * imgHi_ - imgLo_) * rowElems_);
        }
        ZeroTo(zeroTarget_, false, kZeroDmasPerBack);

        // ---- per point: scatter (m*w_c)*G to grad_input (GM atomics or UB window adds, program order)
        AscendC::SetAtomicAdd<float>();
        const RowInfo* info = rowInfo_[J.slot];
        // the contributions' layout (BlockwiseContributions): by row [row][c][LP] with cornerHop_ and len == LP,
        // else corner planes [c][row][LP]; cs = elements from one corner's row to the next corner's
        const bool byRow = cornerHop_ && len == lp_;
        const int64_t cs = byRow ? lp_ : cornerRows_ * lp_, rowStride = byRow ? 4 * lp_ : lp_;
        // the contributions (V) precede the window adds by the partials' barriers; a new window's zeroing by this
        footCount_ = 0;
        addsInFlight_ = false;
        servedCount_ = 0;
        if (newGwin) {
            BarrierBeside();
        }
        // Points in the order (j, kk, g) of pixel i = g*q + j (4 groups of q pixels): consecutive points belong
        // to pixels q apart, so their window adds rarely touch the same pixels; a fixed order, so the sums stay
        // deterministic. Window-served points are collected and added in rounds (AssignRound, ScatterRounds):
        // every gwin pixel receives their adds in round order. Other points are issued as they come (their GM
        // atomics in this order; the window adds of a point partly in the window after the rounds collected so far
        // and a barrier, then OrderWindowAdds among such points).
        const int64_t q = CeilDiv(pt, kScatterGroups);
        for (int64_t j = 0; j < q; ++j) {
            for (int64_t kk = 0; kk < kt; ++kk) {
                for (int64_t g = 0; g < kScatterGroups; ++g) {
                    const int64_t i = g * q + j;
                    if (i >= pt) {
                        continue;
                    }
                    const int64_t row = i * kt + kk;
                    const RowInfo& ri = info[row];
                    if (ri.served) {
                        servedRow_[servedCount_] = static_cast<int16_t>(row);
                        servedRound_[servedCount_] = AssignRound(ri.y0, ri.x0);
                        ++servedCount_;
                    } else if (ri.inside) {
                        if (servedCount_ > 0 && PartlyInWindow(ri.y0, ri.x0)) {
                            ScatterRounds(len, xp, rowStride, cs, info);
                        }
                        if (addsInFlight_) { // the rounds' adds (any pixel) precede the point's window adds
                            AscendC::PipeBarrier<PIPE_V>();
                            addsInFlight_ = false;
                            footCount_ = 0;
                        }
                        ScatterPoint(J.n, J.c0, len, xp, row * rowStride, cs, ri.y0, ri.x0);
                    }
                }
            }
        }
        ScatterRounds(len, xp, rowStride, cs, info);
        AscendC::SetAtomicNone();

        // ---- partial offset/mask gradients of this block -> part[n][b][j][k0+kk][p0+i]
        // part[n][b][j][k][p]: with every kernel point in the tile (kt == K == KT) the (j, kk) rows are HoWo
        // apart in GM and PTP apart in UB for all j: one DMA stores them.
        // DirectOffsetGrads: the block is its deformable group's only one and the output fp32, so these are the
        // finished values: grad_offset[n][j*dg*K + dgi*K + k][p] (rows of one j HoWo apart; one DMA per j)
        const bool wholeTile = kt == kt_ && kt == p.k;
        if (rowParts_) { // rows (i, kk) of partial j: one run of pt*K at part[n][b][j][p0][0]; one DMA for all j
            AscendC::DataCopyExtParams cp;
            cp.blockCount = static_cast<uint16_t>(p.offsetBlocks);
            cp.blockLen = static_cast<uint32_t>(rows * 4);
            cp.srcStride = static_cast<uint32_t>(
                (rs_ * 4 - RoundUp(rows * 4, dcn_tiling::kUbBlockBytes)) / dcn_tiling::kUbBlockBytes);
            cp.dstStride = static_cast<uint32_t>((p.k * p.chunkPix - rows) * 4);
            cp.rsv = 0;
            AscendC::DataCopyPad(t.part[ChunkPartRowAt(p, J.n, J.b, 0, J.p0)], part, cp);
        }
        const int64_t partDmas = rowParts_ ? 0 : (wholeTile && !directOffsets_ ? 1 : p.offsetBlocks);
        for (int64_t j = 0; j < partDmas; ++j) {
            AscendC::DataCopyExtParams cp;
            cp.blockCount = static_cast<uint16_t>(partDmas == 1 ? p.offsetBlocks * kt : kt);
            cp.blockLen = static_cast<uint32_t>(pt * 4);
            cp.srcStride = static_cast<uint32_t>((ptp_ * 4 - RoundUp(pt * 4, dcn_tiling::kUbBlockBytes)) / dcn_tiling::kUbBlockBytes);
            cp.dstStride = static_cast<uint32_t>(((directOffsets_ ? p.howo : p.chunkPix) - pt) * 4);
            cp.rsv = 0;
            if constexpr (IsSameType<T, float>::value) {
                if (directOffsets_) {
                    const int64_t row = (J.n * p.offsetBlocks + j) * p.dg * p.k + J.dgi * p.k + J.k0;
                    AscendC::DataCopyPad(t.gradOffset[row * p.howo + J.p0], part[j * plane_], cp);
                    continue;
                }
            }
            int64_t dst = ChunkPartAt(p, J.n, J.b, j, J.k0, J.p0);
            AscendC::DataCopyPad(t.part[dst], part[j * plane_], cp);
        }
        // the next writers' wait (the Loads of the tile two on, the same slot: xp's buffer, the partials
        // plane): the scatter's and the partials store's reads are done; the window adds (read xp, write
        // gwin) precede the next writes by PipeBarrier<PIPE_V>s
        if (slotParts_ && hasCoord_) { // the slot's next tile (hasCoord_: pushed) waits for exactly these
            AscendC::SetFlag<AscendC::HardEvent::MTE3_V>(storeEvent_[J.slot]);
            zeroAtSet_[J.slot] = zeroElems_;
            storePending_[J.slot] = true;
        } else if (slotParts_) { // draining: the next Loads waits for every store
            storeSyncAll_ = true;
        }
        xQue_.FreeTensor(xp);
        gQue_.FreeTensor(gt);
    }

    // Row sums of the 4 corner product planes, rows of LP = 8*b lanes all valid (len == LP): the b blocks of
    // every row are added pairwise into block 0 (ceil(log2 b) levels, one masked Add per level and block over the
    // 4 planes' 4*cornerRows_ rows, 8 rows per repeat, block stride b), then one BlockReduceSum sums each row's
    // block 0 (8 rows per repeat). s_c[row] -> red[c*rs + row] (rs == cornerRows_); the padding rows (and the rows
    // past a short tile) give sums in red's rows past the tile, never read. Fixed order, independent of the core.
    __aicore__ inline void BlockwiseRowSums(
        const AscendC::LocalTensor<float>& xp, const AscendC::LocalTensor<float>& red)
    {
        const int64_t b = lp_ / 8;
        const uint8_t repeats = static_cast<uint8_t>(4 * cornerRows_ / 8);
        const uint8_t bs = static_cast<uint8_t>(b), rs = static_cast<uint8_t>(8 * b);
        const AscendC::BinaryRepeatParams addRep(bs, bs, bs, rs, rs, rs);
        for (int64_t width = b; width > 1;) {
            const int64_t kept = (width + 1) / 2, moved = width / 2; // blocks [kept, width) onto [0, moved)
            for (int64_t j = 0; j < moved; ++j) {
                AscendC::Add(
                    xp[j * 8], xp[j * 8], xp[(kept + j) * 8], static_cast<uint64_t>(dcn_tiling::kRepeatLanes), repeats,
                    addRep);
            }
            BarrierBeside();
            width = kept;
        }
        AscendC::BlockReduceSum(
            red, xp, static_cast<int32_t>(repeats), static_cast<int32_t>(dcn_tiling::kRepeatLanes), 1,
            static_cast<int32_t>(b), static_cast<int32_t>(8 * b));
    }

    // Contributions C_c[row] = (m*w_c)[row] * G[row] over the consumed corner planes (len == LP): the
    // coefficient rows mw_c (rv rows 0..3) broadcast to one 32-B block per row by Brcb (8 rows per repeat),
    // then per block column j of the rows one Mul (8 rows per repeat, block stride b, broadcast block
    // stride 1).
    __aicore__ inline void BlockwiseContributions(
        const AscendC::LocalTensor<float>& xp, const AscendC::LocalTensor<float>& gt,
        const AscendC::LocalTensor<float>& rv, const AscendC::LocalTensor<float>& brc, int64_t rows)
    {
        const int64_t b = lp_ / 8;
        const uint8_t repeats = static_cast<uint8_t>(cornerRows_ / 8); // whole 8-row repeats of every plane
        if (brcStride_ == rs_ * dcn_tiling::kBrcLanes) { // rv rows 0..3 are rs apart like the broadcast planes
            AscendC::Brcb(brc, rv, static_cast<uint8_t>(4 * rs_ / 8), AscendC::BrcbRepeatParams(1, 8));
        } else {
            for (int c = 0; c < 4; ++c) {
                AscendC::Brcb(brc[c * brcStride_], rv[c * rs_], repeats, AscendC::BrcbRepeatParams(1, 8));
            }
        }
        BarrierBeside(); // the broadcasts are complete and the row sums have read xp
        // cornerHop_: written by row ([row][c][LP]: the row sums have consumed the planes) so that a point's corner
        // pairs are contiguous for the scatter: row r of corner c at (4r + c)*LP, 8 rows per repeat (block
        // stride 4b, repeat stride 32b <= 128 blocks for LP <= 32); LP = 64 (a repeat stride past 255 blocks): one
        // Mul per block column j, a repeat per row, its 4 blocks the 4 corners
        if (cornerHop_ && 32 * b > 255) {
            const uint8_t bs = static_cast<uint8_t>(b), rowBlocks = static_cast<uint8_t>(4 * b);
            const uint8_t brcHop = static_cast<uint8_t>(brcStride_ / dcn_tiling::kBrcLanes);
            const AscendC::BinaryRepeatParams hopRep(bs, 0, brcHop, rowBlocks, bs, 1);
            for (int64_t j = 0; j < b; ++j) {
                AscendC::Mul(
                    xp[j * 8], gt[j * 8], brc, static_cast<uint64_t>(4 * dcn_tiling::kBrcLanes),
                    static_cast<uint8_t>(rows), hopRep);
            }
            return;
        }
        // one Mul per corner and block column over the whole 8-row repeats (rows past the tile: defined G rows and
        // coefficients, their contributions never scattered)
        const uint8_t bs = static_cast<uint8_t>(b), rs = static_cast<uint8_t>(8 * b);
        const int64_t cornerAt = cornerHop_ ? lp_ : cornerRows_ * lp_; // elements between corners of one row
        const uint8_t ds = static_cast<uint8_t>(cornerHop_ ? 4 * b : b);
        const AscendC::BinaryRepeatParams mulRep(ds, bs, 1, static_cast<uint8_t>(8 * ds), rs, 8);
        for (int c = 0; c < 4; ++c) {
            for (int64_t j = 0; j < b; ++j) {
                AscendC::Mul(
                    xp[c * cornerAt + j * 8], gt[j * 8], brc[c * brcStride_],
                    static_cast<uint64_t>(dcn_tiling::kRepeatLanes), repeats, mulRep);
            }
        }
    }

    // Row sums when the rows have padding lanes (len < LP): for 2-repeat rows one Add of the upper half
    // onto the lower half, then one WholeReduceSum repeat per row (len lanes).
    __aicore__ inline void RepeatRowSums(
        const AscendC::LocalTensor<float>& xp, const AscendC::LocalTensor<float>& red, int64_t rows, int64_t len)
    {
        const uint8_t repBlocks = static_cast<uint8_t>(lp_ / 8);
        const uint64_t redMask = static_cast<uint64_t>(hpr_ > 1 ? dcn_tiling::kRepeatLanes : len);
        const AscendC::BinaryRepeatParams rowRep(1, 1, 1, repBlocks, repBlocks, repBlocks);
        const int64_t planeElems = cornerRows_ * lp_;
        if (hpr_ > 1) {
            for (int c = 0; c < 4; ++c) {
                AscendC::Add(
                    xp[c * planeElems], xp[c * planeElems], xp[c * planeElems + dcn_tiling::kRepeatLanes],
                    static_cast<uint64_t>(dcn_tiling::kRepeatLanes), static_cast<uint8_t>(rows), rowRep);
            }
            BarrierBeside();
        }
        for (int c = 0; c < 4; ++c) {
            AscendC::WholeReduceSum(
                red[c * rs_], xp[c * planeElems], static_cast<int32_t>(redMask), static_cast<int32_t>(rows), 1, 1,
                repBlocks);
        }
    }

    // Contributions when the rows have padding lanes: coefficient rows broadcast to 8 lanes per repeat of a
    // row by Gather, then one block-stride-0 masked Mul per corner.
    __aicore__ inline void GatherContributions(
        const AscendC::LocalTensor<float>& xp, const AscendC::LocalTensor<float>& gt,
        const AscendC::LocalTensor<float>& rv, const AscendC::LocalTensor<float>& brc, int64_t rows, int64_t len)
    {
        AscendC::LocalTensor<uint32_t> table = tableBuf_.Get<uint32_t>();
        for (int c = 0; c < 4; ++c) {
            AscendC::Gather(
                brc[c * brcStride_], rv, table, static_cast<uint32_t>(c * rs_ * 4),
                static_cast<uint32_t>(rows * hpr_ * dcn_tiling::kBrcLanes));
        }
        BarrierBeside();
        const int64_t planeElems = cornerRows_ * lp_;
        const uint8_t repeats = static_cast<uint8_t>(rows * hpr_);
        const uint8_t halfBlocks = static_cast<uint8_t>(lp_ / (8 * hpr_)); // blocks from one repeat to the next
        const uint64_t mulMask = static_cast<uint64_t>(hpr_ > 1 ? dcn_tiling::kRepeatLanes : len);
        const AscendC::BinaryRepeatParams brcRep(1, 1, 0, halfBlocks, halfBlocks, 1);
        for (int c = 0; c < 4; ++c) {
            AscendC::Mul(xp[c * planeElems], gt, brc[c * brcStride_], mulMask, repeats, brcRep);
        }
    }

    // key[i] <- kOutsideKey where !(v[i] <cmp> bound), for the plane_ elements of a tile's coordinate planes:
    // CompareScalar, then Select (tensor-tensor mode) against the outside_ plane (CANN 8.1.RC1 has no
    // Compares); zeroFailed also sets v <- 0 there (the scalar-src1 Select count form). CompareScalar works on
    // whole 256-B repeats: it reads up to roundup(plane, 64) elements (the following coordinate plane,
    // always defined); Select writes exactly plane_ elements. The leading barrier orders the compare after
    // the vector writes of v (and, from the second call on, after the previous Select, which read msk and
    // may have written v; `ordered`: the caller's own barrier did); the caller orders the last Select before
    // its readers.
    __aicore__ inline void MarkOutside(
        const AscendC::LocalTensor<float>& key, const AscendC::LocalTensor<float>& v,
        const AscendC::LocalTensor<uint8_t>& msk, float bound, AscendC::CMPMODE cmp, bool ordered = false,
        bool zeroFailed = false)
    {
        if (!ordered) {
            AscendC::PipeBarrier<PIPE_V>();
        }
        AscendC::CompareScalar(msk, v, bound, cmp, static_cast<uint32_t>(RoundUp(plane_, dcn_tiling::kRepeatLanes)));
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Select(
            key, msk, key, outside_, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, static_cast<uint32_t>(plane_));
        if (zeroFailed) { // v <- 0 where the compare failed (a fraction that is NaN: a non-finite offset)
            AscendC::Select(v, msk, v, 0.0f, AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, static_cast<uint32_t>(plane_));
        }
    }

    // One level of the masks' AND tree: masks [0, h) &= masks [n - h, n), h = n / 2 (one And over the bytes, as
    // uint16); n masks become n - h.
    __aicore__ inline void AndMasks(int64_t n)
    {
        const int64_t h = n / 2;
        AscendC::And(
            MaskAt(0).template ReinterpretCast<uint16_t>(), MaskAt(0).template ReinterpretCast<uint16_t>(),
            MaskAt(n - h).template ReinterpretCast<uint16_t>(), static_cast<int32_t>(h * maskBytes_ / 2));
    }

    // Compare mask i (maskSlots_): maskBytes_ bytes from the start of the compare-mask plane; four fit before
    // the column ramp (the plane's second half).
    __aicore__ inline AscendC::LocalTensor<uint8_t> MaskAt(int64_t i)
    {
        return coord_[CP_MSK * plane_].template ReinterpretCast<uint8_t>()[i * maskBytes_];
    }
    __aicore__ inline void CompareInto(
        int64_t i, const AscendC::LocalTensor<float>& v, float bound, AscendC::CMPMODE cmp)
    {
        AscendC::CompareScalar(
            MaskAt(i), v, bound, cmp, static_cast<uint32_t>(RoundUp(plane_, dcn_tiling::kRepeatLanes)));
    }
    // dst <- kOutsideKey where any of masks [0, n) is 0 (their compares are complete): the masks ANDed into
    // mask 0 by halves (one And over the upper half's bytes, as uint16, per level), then one Select
    __aicore__ inline void SelectOutside(const AscendC::LocalTensor<float>& dst, int64_t n)
    {
        for (; n > 1; n -= n / 2) {
            AndMasks(n);
            AscendC::PipeBarrier<PIPE_V>();
        }
        AscendC::Select(
            dst, MaskAt(0), dst, kOutsideKey, AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, static_cast<uint32_t>(plane_));
    }

    // After the ramp's seeds 0..7 (vector, Run's setup): the ramp in coordinate plane 0 completed by doubling, the
    // column ramp i*strideW (vector pixel bases, behind the compare mask's bytes) and the order tables (set 0 for KT
    // kernel points, set 1 for the last kernel-point chunk when K > KT leaves one) from it; then the scratch planes
    // 0..4 back to their defined zeros.
    __aicore__ inline void SetupTables()
    {
        const int64_t rampLen = MaxI(MaxI(rs_, rowParts_ ? 0 : plane_), rampRow_ ? ptp_ : 0);
        for (int64_t len = dcn_tiling::kBrcLanes; len < rampLen; len *= 2) {
            AscendC::Adds(coord_[len], coord_, static_cast<float>(len), static_cast<int32_t>(MinI(len, rampLen - len)));
            AscendC::PipeBarrier<PIPE_V>();
        }
        if (rampRow_) {
            AscendC::Muls(Ramp(), coord_, static_cast<float>(p_->strideW), static_cast<int32_t>(ptp_));
        }
        BuildOrderTables(kt_, 0);
        if (p_->k > kt_ && p_->k % kt_ != 0) {
            BuildOrderTables(p_->k % kt_, 1);
        }
        AscendC::PipeBarrier<PIPE_V>(); // the tables' Casts and the ramp's Muls read plane 0 / 3 before the zeroing
        AscendC::Duplicate(coord_, 0.0f, static_cast<int32_t>(5 * plane_));
        // (the first tile's first writes of planes 0..4 follow a barrier: the base planes' below, or the level
        // break after its pixel bases, or the V_S before its scalar pixel bases)
    }

    // Row-order tables for kt kernel points per pixel (row = i*kt + kk, plane index idx = kk*PTP + i):
    //   rowTab[row]   = byte offset of plane element idx(row), 0 for rows >= R   (planes -> rows)
    //   planeTab[idx] = byte offset of row element row(idx), 0 for padding pixels i >= PT or kk >= kt (rows -> planes)
    // Two sets (TableSet), written once in the setup by the vector pipe from the ramp e = 0, 1, ... in coordinate
    // plane 0 (planes 1..4 scratch); SetupTables' last barrier orders them before their readers.
    __aicore__ inline void BuildOrderTables(int64_t kt, int64_t set)
    {
        AscendC::LocalTensor<uint32_t> rowTab = rowTabBuf_.Get<uint32_t>()[set * rs_];
        AscendC::LocalTensor<uint32_t> planeTab = planeTabBuf_.Get<uint32_t>()[set * plane_];
        // rows: i = row / kt, kk = row - i*kt -> (kk*PTP + i)*4
        OrderTable(rowTab, rs_, kt, ptp_, rows_, rs_);
        if (!rowParts_) { // (row-order partials need no planes) kk = idx / PTP, i = idx - kk*PTP -> (i*kt + kk)*4
            OrderTable(planeTab, plane_, ptp_, kt, kt * ptp_, pt_);
        }
    }

    // dst[e] = (r*mul + q)*4 for e < n with q = e / d, r = e - q*d, where e < eEnd and r < rEnd, else 0 (vector, in
    // fp32: every value an integer below 2^24). The quotient is floor((e + 0.5) * (1/d)), exact: (e + 0.5)/d lies at
    // least 0.5/d >= 2^-8 from an integer and the two roundings move it by less than 2^-10.
    __aicore__ inline void OrderTable(
        const AscendC::LocalTensor<uint32_t>& dst, int64_t n, int64_t d, int64_t mul, int64_t eEnd, int64_t rEnd)
    {
        const int32_t cnt = static_cast<int32_t>(n);
        AscendC::LocalTensor<float> e = coord_, q = coord_[plane_], r = coord_[2 * plane_], v = coord_[3 * plane_],
                                    m = coord_[4 * plane_];
        AscendC::Adds(q, e, 0.5f, cnt);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Muls(q, q, 1.0f / static_cast<float>(d), cnt);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Cast(q, q, AscendC::RoundMode::CAST_FLOOR, static_cast<uint32_t>(n));
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Muls(r, q, static_cast<float>(d), cnt);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Sub(r, e, r, cnt);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Muls(v, r, static_cast<float>(mul), cnt); // r*mul, and m = rEnd - r (> 0 exactly where r < rEnd)
        AscendC::Muls(m, r, -1.0f, cnt);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Add(v, v, q, cnt);
        AscendC::Adds(m, m, static_cast<float>(rEnd), cnt);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Muls(v, v, 4.0f, cnt);
        AscendC::Mins(m, m, 1.0f, cnt); // 1 where r < rEnd, else <= 0
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Maxs(m, m, 0.0f, cnt);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Mul(v, v, m, cnt);
        AscendC::PipeBarrier<PIPE_V>();
        if (eEnd < n) { // entries e >= eEnd: a whole-block tail and the lanes of the block before it
            const int64_t head = eEnd / dcn_tiling::kBrcLanes * dcn_tiling::kBrcLanes;
            uint64_t lanes[2] = {LaneBits(eEnd - head, dcn_tiling::kBrcLanes), 0};
            AscendC::Duplicate(v[head], 0.0f, lanes, 1, 1, 8);
            if (head + dcn_tiling::kBrcLanes < n) {
                AscendC::Duplicate(
                    v[head + dcn_tiling::kBrcLanes], 0.0f, static_cast<int32_t>(n - head - dcn_tiling::kBrcLanes));
            }
            AscendC::PipeBarrier<PIPE_V>();
        }
        AscendC::Cast(
            dst.template ReinterpretCast<int32_t>(), v, AscendC::RoundMode::CAST_RINT, static_cast<uint32_t>(n));
    }

    // Order-table set of a tile's kernel-point count: 0 for KT, 1 for the last kernel-point chunk of K > KT.
    __aicore__ inline int64_t TableSet(int64_t kt) const { return kt == kt_ ? 0 : 1; }
    __aicore__ inline AscendC::LocalTensor<uint32_t> RowTable(int64_t kt)
    {
        return rowTabBuf_.Get<uint32_t>()[TableSet(kt) * rs_];
    }

    // Scalar-read rows of a slot: the key (or y0, then x0), rs_ floats each, in row order.
    __aicore__ inline AscendC::LocalTensor<float> KeyRows(int64_t slot) { return keyBuf_.Get<float>()[slot * 2 * rs_]; }
    // quadKeys_: the slot's keys as int16 (exact integers, kOutsideKey outside) in the second half of its key rows
    // (unused with one key per point), 32-B aligned: the Loads read four rows per 64-bit scalar access.
    // relKeys_: the key of the tile's reference row, (yRef + 1)*(W + 2), yRef = the middle of its sample rows without
    // offsets less half the rows int16 keys span (whole rows of W + 2 keys below kQuadKeyLimit); a function of the tile
    // alone (its records' producer and consumers agree). |key - KeyBase| < 2^24: exact in fp32.
    __aicore__ inline int64_t KeyBase(const TileJob& J) const
    {
        const DcnParams& p = *p_;
        const int64_t wk = p.w + 2, oh0 = J.p0 / p.wo, oh1 = (J.p0 + J.pt - 1) / p.wo;
        const int64_t mid = (oh0 + oh1) * p.strideH / 2 - p.padTop + (p.kh - 1) * p.dilationH / 2;
        return (mid + 1 - kQuadKeyLimit / wk / 2) * wk;
    }
    __aicore__ inline AscendC::LocalTensor<int16_t> QuadKeyRows(int64_t slot)
    {
        return keyBuf_.Get<float>()[slot * 2 * rs_ + rs_].template ReinterpretCast<int16_t>();
    }

    // A block of eight 1.0f behind the column ramp (the broadcast operand of OneMinus; onesBlock_).
    __aicore__ inline AscendC::LocalTensor<float> Ones() { return coord_[CP_MSK * plane_ + plane_ / 2 + ptp_]; }

    // dst[i] = 1 - src[i] for i < count: Sub from the ones block read with block and repeat stride 0 (the same
    // value as -src + 1); whole repeats, then the tail.
    __aicore__ inline void OneMinus(
        const AscendC::LocalTensor<float>& dst, const AscendC::LocalTensor<float>& src, int64_t count)
    {
        const int64_t lanes = dcn_tiling::kRepeatLanes, full = count / lanes, tail = count - full * lanes;
        const AscendC::BinaryRepeatParams rep(1, 0, 1, 8, 0, 8);
        if (full > 0) {
            AscendC::Sub(dst, Ones(), src, static_cast<uint64_t>(lanes), static_cast<uint8_t>(full), rep);
        }
        if (tail > 0) {
            AscendC::Sub(dst[full * lanes], Ones(), src[full * lanes], static_cast<uint64_t>(tail), 1, rep);
        }
    }

    // The column ramp (PTP floats, i*strideW) in the second half of the compare-mask plane, whose mask uses
    // at most plane/8 bytes (rounded to 32 B); it fits there when the plane has >= 2 kernel points (rampRow_).
    __aicore__ inline AscendC::LocalTensor<float> Ramp() { return coord_[CP_MSK * plane_ + plane_ / 2]; }

    // The float of a pair of key rows read as one 64-bit value: row 2j in the low word, 2j+1 in the high word.
    __aicore__ static inline float PairHalf(uint64_t pair, bool high)
    {
        union {
            uint32_t u;
            float f;
        } v;
        v.u = static_cast<uint32_t>(high ? (pair >> 32) : pair);
        return v.f;
    }

    // The int16 of four key rows read as one 64-bit value: row 4j + q in bits [16q, 16q + 16).
    __aicore__ static inline int16_t QuadPart(uint64_t quad, uint32_t q)
    {
        return static_cast<int16_t>(static_cast<uint16_t>(quad >> (16U * q)));
    }

    // Row vectors of a slot (dcn_tiling::kStage2RowVecs rows of rs_ floats).

    __aicore__ inline AscendC::LocalTensor<float> RowVecs(int64_t slot)
    {
        return rowBuf_.Get<float>()[slot * dcn_tiling::kStage2RowVecs * rs_];
    }

    // Corner c = 2*r + q of a sample point is (y0 + r, x0 + q); the two corners of one image row are
    // adjacent pixels of the block's plane in xt/giacc (BlockPixelAt: len apart), so a valid pair moves with
    // one 2-block DataCopyPad.
    __aicore__ inline void CornerPositions(
        int64_t n, int64_t c0, int64_t len, int64_t y0, int64_t x0, bool valid[4], int64_t pos[4]) const
    {
        const DcnParams &p = *p_;
        for (int c = 0; c < 4; ++c) {
            int64_t yc = y0 + (c >> 1), xc = x0 + (c & 1);
            valid[c] = yc >= 0 && yc < p.h && xc >= 0 && xc < p.w;
            pos[c] = valid[c] ? BlockPixelAt(p, n, c0, len, yc, xc) : 0;
        }
    }

    // X rows of the valid corners of one point (tile row `row`) into the corner planes (GM -> UB; 16-bit I/O:
    // into the staging planes, recorded in ri.gmFirst/gmLast for CastStagedCorners).
    __aicore__ inline void LoadCornerRows(
        int64_t n, int64_t c0, int64_t len, const AscendC::LocalTensor<float>& xp, int64_t row, RowInfo& ri)
    {
        const int64_t rowOff = row * lp_, y0 = ri.y0, x0 = ri.x0;
        ri.gmFirst[0] = ri.gmFirst[1] = -1;
        ri.gmLast[0] = ri.gmLast[1] = -1;
        bool valid[4];
        int64_t pos[4];
        CornerPositions(n, c0, len, y0, x0, valid, pos);
        const int64_t planeElems = cornerRows_ * lp_;
        AscendC::DataCopyPadExtParams<float> noPad;
        for (int r = 0; r < 2; ++r) {
            const int a = 2 * r, b = 2 * r + 1;
            if (valid[a] || valid[b]) {
                const int first = valid[a] ? a : b;
                const int64_t yc = y0 + r;
                const int64_t lastC = valid[b] ? b : a;
                if (InWindow(yc, x0 + (first & 1)) && InWindow(yc, x0 + (lastC & 1))) {  // one UB copy, the pair
                    AscendC::DataCopyParams uc;
                    uc.blockCount = static_cast<uint16_t>(valid[a] && valid[b] ? 2 : 1);
                    uc.blockLen = static_cast<uint16_t>(lp_ * winElt_ / dcn_tiling::kUbBlockBytes);
                    uc.srcStride = 0;
                    const int64_t xc = x0 + (first & 1);
                    const int64_t at = ((yc - winLo_) * winW_ + xc - winXLo_) * lp_;
                    if constexpr (!IsSameType<T, float>::value) {
                        if (winT_) { // T rows into the staging planes (LPT == LP), cast with the GM-loaded ones
                            const int64_t planeT = cornerRows_ * lpt_;
                            uc.dstStride =
                                static_cast<uint16_t>((planeT - lpt_) * sizeof(T) / dcn_tiling::kUbBlockBytes);
                            AscendC::DataCopy(
                                xs_[first * planeT + row * lpt_], xwin_.template ReinterpretCast<T>()[at], uc);
                            ri.gmFirst[r] = static_cast<int8_t>(first);
                            ri.gmLast[r] = static_cast<int8_t>(lastC);
                            continue;
                        }
                    }
                    uc.dstStride = static_cast<uint16_t>((planeElems - lp_) / 8);
                    AscendC::DataCopy(xp[first * planeElems + rowOff], xwin_[at], uc);
                    continue;
                }
                AscendC::DataCopyExtParams cp;
                cp.blockCount = static_cast<uint16_t>(valid[a] && valid[b] ? 2 : 1);
                cp.rsv = 0;
                if constexpr (IsSameType<T, float>::value) {
                    cp.blockLen = static_cast<uint32_t>(len * 4);
                    cp.srcStride = 0;
                    // the next corner's plane row: planeElems floats further
                    cp.dstStride = static_cast<uint32_t>(
                        (planeElems * 4 - RoundUp(len * 4, dcn_tiling::kUbBlockBytes)) / dcn_tiling::kUbBlockBytes);
                    AscendC::DataCopyPad(xp[first * planeElems + rowOff], t_->xt[pos[first]], cp, noPad);
                } else {
                    const int64_t planeT = cornerRows_ * lpt_, elt = sizeof(T);
                    cp.blockLen = static_cast<uint32_t>(len * elt);
                    cp.srcStride = 0;
                    cp.dstStride = static_cast<uint32_t>(
                        (planeT * elt - RoundUp(len * elt, dcn_tiling::kUbBlockBytes)) / dcn_tiling::kUbBlockBytes);
                    AscendC::DataCopyPadExtParams<T> noPadT;
                    AscendC::DataCopyPad(xs_[first * planeT + row * lpt_], t_->xt[pos[first]], cp, noPadT);
                    ri.gmFirst[r] = static_cast<int8_t>(first);
                    ri.gmLast[r] = static_cast<int8_t>(lastC);
                }
            }
        }
    }

    // One sample point inside the whole-sample window: scatter its contribution rows C_c (corner planes
    // at element `rowOff`) to giacc (atomic add already enabled; only this unit writes there, program
    // order) or, for corner rows held by the UB window, into gwin (vector Add, program order).
    __aicore__ inline void ScatterPoint(
        int64_t n, int64_t c0, int64_t len, const AscendC::LocalTensor<float>& xp, int64_t rowOff, int64_t cs,
        int64_t y0, int64_t x0)
    {
        bool valid[4];
        int64_t pos[4];
        CornerPositions(n, c0, len, y0, x0, valid, pos);
        bool ordered = false;
        for (int r = 0; r < 2; ++r) {
            const int a = 2 * r, b = 2 * r + 1;
            if (valid[a] || valid[b]) {
                const int first = valid[a] ? a : b;
                const int64_t yc = y0 + r;
                const int64_t lastC = valid[b] ? b : a;
                if (InWindow(yc, x0 + (first & 1)) && InWindow(yc, x0 + (lastC & 1))) {  // into the UB window
                    if (!ordered) {
                        OrderWindowAdds(y0, x0);
                        ordered = true;
                    }
                    if (valid[a] && valid[b] && PairAdds(cs)) { // the pair in one Add: 2 repeats, one per corner
                        const int64_t at = ((yc - winLo_) * winW_ + x0 - winXLo_) * lp_;
                        const uint8_t px = static_cast<uint8_t>(lp_ / 8), pl = static_cast<uint8_t>(cs / 8);
                        AscendC::Add(
                            gwin_[at], gwin_[at], xp[a * cs + rowOff], static_cast<uint64_t>(len), 2,
                            AscendC::BinaryRepeatParams(1, 1, 1, px, px, pl));
                        continue;
                    }
                    for (int c = first; c <= b; ++c) {
                        if (valid[c]) {
                            const int64_t at = ((yc - winLo_) * winW_ + x0 + (c & 1) - winXLo_) * lp_;
                            AscendC::Add(gwin_[at], gwin_[at], xp[c * cs + rowOff], static_cast<int32_t>(len));
                        }
                    }
                    continue;
                }
                AscendC::DataCopyExtParams cp;
                cp.blockCount = static_cast<uint16_t>(valid[a] && valid[b] ? 2 : 1);
                cp.blockLen = static_cast<uint32_t>(len * 4);
                cp.srcStride = static_cast<uint32_t>(
                    (cs * 4 - RoundUp(len * 4, dcn_tiling::kUbBlockBytes)) / dcn_tiling::kUbBlockBytes);
                cp.dstStride = 0;
                cp.rsv = 0;
                EnsureRows(yc + 1, true);
                OrderGmWrite(yc, yc, x0 + (first & 1), x0 + (lastC & 1));
                AscendC::DataCopyPad(t_->giacc[giaccBase_ + pos[first]], xp[first * cs + rowOff], cp);
                AddGmFootprint(yc, x0 + (first & 1), x0 + (lastC & 1));
            }
        }
    }

    // Gatherb offsets of tile J's corner planes (bytes from xwin, in the order of the planes' blocks:
    // [c][row][j], cornerRows_ rows per plane, j < nb = LP*E/32 with E = winElt_) into the broadcast buffer. A point
    // whose 4 corners lie in the open window (winLo <= y0, y0 + 1 < winHi, winXLo <= x0, x0 + 1 < winXHi: all valid, so
    // it has no zero corner rows) reads its corner rows there; every other row (outside points, border or GM-path
    // points, rows past the tile) reads the zero area behind xwin, and the GM path overwrites its valid
    // corners afterwards. Vector only:
    //   e = (y0 - winLo)*winW + (x0 - winXLo), or kOutsideKey when not served   ([kk][pp] planes)
    //   rows (Gather by rowTab): q = e*LP*E, d = min(e + 4, 1) (1 served, 0 not)
    //   S[c*nb + j][row] = zeroOff + d*(q + delta_c - zeroOff) + 32*j   (rows of rs_, 32-B aligned)
    //   with delta = 0, LP*E, winW*LP*E, (winW + 1)*LP*E, then the table = Gather(S, gatherIdx_) and Cast
    // (exact in fp32: every value is an integer below 2^24). Scratch: the lx, hx, hy planes (read by the weight
    // Gathers before, barriers since), the corner-sum rows (q, d, qb) and the broadcast buffer (the S rows).
    __aicore__ inline void GatherOffsets(const TileJob& J)
    {
        const uint32_t planeCnt = static_cast<uint32_t>(plane_);
        const int64_t nb = winNb_, rowsJ = J.pt * J.kt;
        const float pixBytes = static_cast<float>(lp_ * winElt_), zero = static_cast<float>(zeroOff_);
        AscendC::LocalTensor<float> x0 = coord_[0], y0 = coord_[plane_]; // the coordinates' base + floor (Coords)
        AscendC::LocalTensor<float> e = coord_[4 * plane_], ty = coord_[6 * plane_], tx = coord_[7 * plane_];
        AscendC::LocalTensor<uint8_t> msk = coord_[CP_MSK * plane_].template ReinterpretCast<uint8_t>();
        // the broadcast buffer: the table, then its S rows; the rows q, d, qb in the corner-sum rows (read by the Back
        // before, barriers since; written next by the next Back)
        AscendC::LocalTensor<float> work = brcBuf_.Get<float>()[tableBase_];
        AscendC::LocalTensor<float> sv = work[gatherTableAt_];
        AscendC::LocalTensor<float> q = redBuf_.Get<float>(), d = q[rs_], qb = q[2 * rs_];
        const int32_t rsCnt = static_cast<int32_t>(rs_);
        // the weight Gathers' reads of the lx (and hx, hy) planes precede the barriers before the weight Muls
        AscendC::Adds(ty, y0, static_cast<float>(-winLo_), static_cast<int32_t>(planeCnt));
        AscendC::Adds(tx, x0, static_cast<float>(-winXLo_), static_cast<int32_t>(planeCnt));
        AscendC::Duplicate(q, kOutsideKey, rsCnt); // rows past the tile read the zero area
        if (axpyIndex_) {                          // e = (x0 - winXLo - winLo*winW) + y0*winW: one level fewer
            AscendC::Adds(e, x0, static_cast<float>(-winXLo_ - winLo_ * winW_), static_cast<int32_t>(planeCnt));
            AscendC::PipeBarrier<PIPE_V>();
            AscendC::Axpy(e, y0, static_cast<float>(winW_), static_cast<int32_t>(planeCnt));
        } else { // e = ty*winW + tx (window-relative terms only)
            AscendC::PipeBarrier<PIPE_V>();
            AscendC::Muls(e, ty, static_cast<float>(winW_), static_cast<int32_t>(planeCnt));
            AscendC::PipeBarrier<PIPE_V>();
            AscendC::Add(e, e, tx, static_cast<int32_t>(planeCnt));
        }
        // e (Axpy) and msk (the coordinates' last Select, barriers since) are ordered before the Select by
        // MarkOutside's second barrier (maskSlots_: the barrier after the compares)
        if (maskSlots_) { // four masks, ANDed (2 Ands), one Select
            CompareInto(0, ty, 0.0f, AscendC::CMPMODE::GE);
            CompareInto(1, tx, 0.0f, AscendC::CMPMODE::GE);
            CompareInto(2, ty, static_cast<float>(winHi_ - winLo_ - 2), AscendC::CMPMODE::LE);
            CompareInto(3, tx, static_cast<float>(winW_ - 2), AscendC::CMPMODE::LE);
            AscendC::PipeBarrier<PIPE_V>();
            SelectOutside(e, 4);
        } else {
            MarkOutside(e, ty, msk, 0.0f, AscendC::CMPMODE::GE, true);
            MarkOutside(e, ty, msk, static_cast<float>(winHi_ - winLo_ - 2), AscendC::CMPMODE::LE);
            MarkOutside(e, tx, msk, 0.0f, AscendC::CMPMODE::GE);
            MarkOutside(e, tx, msk, static_cast<float>(winW_ - 2), AscendC::CMPMODE::LE);
        }

        AscendC::LocalTensor<uint32_t> rowTab = RowTable(J.kt);
        AscendC::PipeBarrier<PIPE_V>(); // e's Select
        AscendC::Gather(q, coord_, rowTab, static_cast<uint32_t>(4 * plane_ * 4), static_cast<uint32_t>(rowsJ));
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Adds(d, q, -kOutsideKey, rsCnt);
        AscendC::Muls(qb, q, pixBytes, rsCnt);

        // S rows behind the table: the table takes 4*cornerRows_*nb entries (rounded to whole blocks)
        const float delta[4] = {
            0.0f, pixBytes, static_cast<float>(winW_) * pixBytes, static_cast<float>(winW_ + 1) * pixBytes};
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Mins(d, d, 1.0f, rsCnt);
        for (int c = 0; c < 4; ++c) {
            AscendC::Adds(sv[c * nb * rs_], qb, delta[c] - zero, rsCnt);
        }
        // the 4 corners' S rows (nb*rs apart) as the 4 repeats of one instruction per piece of <= 64 lanes
        const uint8_t cs = static_cast<uint8_t>(nb * rs_ / 8);
        AscendC::PipeBarrier<PIPE_V>();
        for (int64_t h = 0; h < rs_; h += dcn_tiling::kRepeatLanes) {
            const uint64_t m = static_cast<uint64_t>(MinI(dcn_tiling::kRepeatLanes, rs_ - h));
            AscendC::Mul(sv[h], sv[h], d[h], m, 4, AscendC::BinaryRepeatParams(1, 1, 1, cs, cs, 0));
        }
        AscendC::PipeBarrier<PIPE_V>();
        for (int64_t h = 0; h < rs_; h += dcn_tiling::kRepeatLanes) {
            const uint64_t m = static_cast<uint64_t>(MinI(dcn_tiling::kRepeatLanes, rs_ - h));
            AscendC::Adds(sv[h], sv[h], zero, m, 4, AscendC::UnaryRepeatParams(1, 1, cs, cs));
        }
        if (nb > 1) {
            AscendC::PipeBarrier<PIPE_V>();
            for (int64_t j = 1; j < nb; ++j) {
                for (int64_t h = 0; h < rs_; h += dcn_tiling::kRepeatLanes) {
                    const uint64_t m = static_cast<uint64_t>(MinI(dcn_tiling::kRepeatLanes, rs_ - h));
                    AscendC::Adds(
                        sv[j * rs_ + h], sv[h], static_cast<float>(32 * j), m, 4,
                        AscendC::UnaryRepeatParams(1, 1, cs, cs));
                }
            }
        }
        AscendC::PipeBarrier<PIPE_V>();
        const uint32_t entries = static_cast<uint32_t>(4 * cornerRows_ * nb);
        AscendC::Gather(work, sv, gatherIdxBuf_.Get<uint32_t>(), 0, entries);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Cast(work.template ReinterpretCast<int32_t>(), work, AscendC::RoundMode::CAST_RINT, entries);
    }

    // The unit's GM writes into its accumulator plane (window flushes, the atomics of points the window does not
    // serve) land asynchronously: MTE3 copies whose GM destinations overlap need a PipeBarrier<PIPE_MTE3> between
    // them (PipeBarrier docs). A write of plane rows y0..y1 x columns x0..x1 (inclusive) waits for the writes in
    // flight when it overlaps one of them (the last flush's rectangle, the atomics' corner pairs since the last
    // barrier) or when the pair list is full; the barrier completes them all.
    __aicore__ inline void OrderGmWrite(int64_t y0, int64_t y1, int64_t x0, int64_t x1)
    {
        bool clash = gmFootCount_ == kMaxGmFootprints ||
                     (flushOpen_ && y0 <= flushY1_ && flushY0_ <= y1 && x0 <= flushX1_ && flushX0_ <= x1);
        for (int64_t i = 0; i < gmFootCount_ && !clash; ++i) {
            clash = gmFootY_[i] >= y0 && gmFootY_[i] <= y1 && x0 <= gmFootX1_[i] && gmFootX0_[i] <= x1;
        }
        if (clash) {
            AscendC::PipeBarrier<PIPE_MTE3>();
            MarkMte3Complete();
        }
    }
    __aicore__ inline void AddGmFootprint(int64_t y, int64_t x0, int64_t x1)
    {
        gmFootY_[gmFootCount_] = static_cast<int32_t>(y);
        gmFootX0_[gmFootCount_] = static_cast<int32_t>(x0);
        gmFootX1_[gmFootCount_] = static_cast<int32_t>(x1);
        ++gmFootCount_;
    }

    // Before a point's window adds (gwin pixels y0..y0+1 x x0..x0+1): a PipeBarrier<PIPE_V> only when an add issued
    // since the last one may touch the same pixels (a point within one pixel in both axes: a vector
    // read-modify-write of the same blocks) or the footprint list is full; adds of disjoint pixels may overlap
    // in the pipe. The scatter loop of a Back starts with an empty list (the partials' barriers order the earlier
    // tiles' adds; a barrier only after a new window's zeroing).
    __aicore__ inline void OrderWindowAdds(int64_t y0, int64_t x0)
    {
        bool clash = footCount_ == kMaxFootprints;
        for (int64_t i = 0; i < footCount_ && !clash; ++i) { // |dy| <= 1 and |dx| <= 1, two unsigned compares
            clash = static_cast<uint32_t>(footY_[i] - y0 + 1) <= 2U && static_cast<uint32_t>(footX_[i] - x0 + 1) <= 2U;
        }
        if (clash) {
            AscendC::PipeBarrier<PIPE_V>();
            footCount_ = 0;
        }
        footY_[footCount_] = static_cast<int32_t>(y0);
        footX_[footCount_] = static_cast<int32_t>(x0);
        ++footCount_;
    }

    // Round of a window-served point's adds (gwin pixels y0..y0+1 x x0..x0+1): the first round of the collection
    // in which none of them receives an add yet (RoundMap: per pixel the collection's rounds that add into it, a bit
    // per round 1..kMaskRounds under the collection's epoch; pixels folded onto a torus, so unrelated pixels that
    // fold together only share their bits). One round's adds thus touch distinct pixels, and a PipeBarrier<PIPE_V>
    // between rounds orders them; a pixel gets its adds in round order, a function of the tile's points alone
    // (deterministic). A point that finds every masked round taken gets a round of its own after them.
    __aicore__ inline uint8_t AssignRound(int64_t y0, int64_t x0)
    {
        const uint32_t r0 = (static_cast<uint32_t>(y0) & kRoundMapRowMask) << kRoundMapColBits;
        const uint32_t r1 = (static_cast<uint32_t>(y0 + 1) & kRoundMapRowMask) << kRoundMapColBits;
        const uint32_t c0 = static_cast<uint32_t>(x0) & kRoundMapColMask,
                       c1 = static_cast<uint32_t>(x0 + 1) & kRoundMapColMask;
        const uint32_t idx[4] = {r0 | c0, r0 | c1, r1 | c0, r1 | c1};
        uint32_t used = 0;
        for (int i = 0; i < 4; ++i) {
            const uint32_t e = roundMap_[idx[i]];
            used |= (e >> kMaskRounds) == roundEpoch_ ? e : 0U;
        }
        used &= kRoundBits;
        const int64_t free = AscendC::ScalarGetSFFValue<0>(static_cast<uint64_t>(used));
        if (free >= kMaskRounds) {
            ++overflowRounds_;
            return static_cast<uint8_t>(kMaskRounds + overflowRounds_);
        }
        const uint32_t bit = 1U << free;
        for (int i = 0; i < 4; ++i) {
            const uint32_t e = roundMap_[idx[i]];
            roundMap_[idx[i]] =
                (roundEpoch_ << kMaskRounds) | ((e >> kMaskRounds) == roundEpoch_ ? e & kRoundBits : 0U) | bit;
        }
        return static_cast<uint8_t>(free + 1);
    }

    // A point inside the image but not window-served: any of its corner pairs in the window (ScatterPoint adds
    // those into gwin)?
    __aicore__ inline bool PartlyInWindow(int64_t y0, int64_t x0) const
    {
        return InWindow(y0, x0) || InWindow(y0, x0 + 1) || InWindow(y0 + 1, x0) || InWindow(y0 + 1, x0 + 1);
    }

    // The collected window-served points' adds, round by round (counting sort: the collection order inside a
    // round), a PipeBarrier<PIPE_V> before every round but a first one with no window adds in flight (rounds or a
    // partial point's, footCount_); then the collection's rounds are retired (the map's next epoch; the map is
    // cleared before the 8-bit epoch could wrap).
    __aicore__ inline void ScatterRounds(
        int64_t len, const AscendC::LocalTensor<float>& xp, int64_t rowStride, int64_t cs, const RowInfo* info)
    {
        if (servedCount_ == 0) {
            return;
        }
        int64_t rounds = 0;
        for (int64_t e = 0; e < servedCount_; ++e) {
            rounds = MaxI(rounds, static_cast<int64_t>(servedRound_[e]));
        }
        int16_t start[kMaskRounds + dcn_tiling::kStage2MaxTileRows + 2];
        for (int64_t r = 0; r <= rounds + 1; ++r) {
            start[r] = 0;
        }
        for (int64_t e = 0; e < servedCount_; ++e) {
            ++start[servedRound_[e] + 1];
        }
        for (int64_t r = 1; r <= rounds + 1; ++r) {
            start[r] = static_cast<int16_t>(start[r] + start[r - 1]);
        }
        int16_t order[dcn_tiling::kStage2MaxTileRows];
        for (int64_t e = 0; e < servedCount_; ++e) {
            order[start[servedRound_[e]]++] = servedRow_[e];
        }
        // start[r] is now the end of round r (round r occupies [end of round r - 1, start[r]))
        int64_t e = 0;
        for (int64_t r = 1; r <= rounds; ++r) {
            if (r > 1 || addsInFlight_ || footCount_ > 0) {
                AscendC::PipeBarrier<PIPE_V>();
                footCount_ = 0;
                fusedUnfenced_ = false;
                coordsUnfenced_ = false;
            }
            // beside this round's adds: the next coordinates level of the tile two on, or (those done and fenced)
            // its next weight level (levels 1..4: the weight rows)
            if (coordsPending_ && !coordsUnfenced_) {
                CoordsStep();
            } else if (
                fusedPending_ && !fusedUnfenced_ && !coordsPending_ && !coordsUnfenced_ && fusedLevel_ <= fusedLast_) {
                IssueFusedLevel();
            }
            for (; e < start[r]; ++e) {
                const RowInfo& ri = info[order[e]];
                ScatterServed(len, xp, order[e] * rowStride, cs, ri.y0, ri.x0);
            }
        }
        addsInFlight_ = true;
        servedCount_ = 0;
        overflowRounds_ = 0;
        if (++roundEpoch_ > kMaxEpoch) {
            ClearRoundMap();
        }
    }

    // Every map entry of no epoch (0); the next collection is epoch 1.
    __aicore__ inline void ClearRoundMap()
    {
        for (int64_t i = 0; i < kRoundMapSize; ++i) {
            roundMap_[i] = 0;
        }
        roundEpoch_ = 1;
        overflowRounds_ = 0;
    }

    // A window-served point (all 4 corners in the window, see GatherOffsets): its contribution rows C_c (corner
    // c's row at element rowOff + c*cs of xp) added into gwin in program order. Corner pair r (row y0 + r) is
    // adjacent in gwin and one Add repeat; the pairs are winW pixels apart in gwin and 2*cs apart in xp.
    //   pointAdds_ (contributions by row, cs == LP, 2*LP <= 64 lanes): a pair is 2*LP contiguous lanes in xp;
    //   quadAdds_ (LP = 8): a pair is 2 blocks, cs apart in xp, len lanes each;
    //   else one Add per pair (PairAdds: a repeat per corner) or per corner.
    __aicore__ inline void ScatterServed(
        int64_t len, const AscendC::LocalTensor<float>& xp, int64_t rowOff, int64_t cs, int64_t y0, int64_t x0)
    {
        const int64_t at = ((y0 - winLo_) * winW_ + x0 - winXLo_) * lp_;
        const uint8_t px = static_cast<uint8_t>(lp_ / 8), pl = static_cast<uint8_t>(cs / 8);
        if (pointAdds_ && cs == lp_) {
            const uint8_t rowHop = static_cast<uint8_t>(winW_ * px);
            AscendC::Add(
                gwin_[at], gwin_[at], xp[rowOff], static_cast<uint64_t>(2 * len), 2,
                AscendC::BinaryRepeatParams(1, 1, 1, rowHop, rowHop, static_cast<uint8_t>(2 * px)));
            return;
        }
        if (quadAdds_) {
            const uint64_t lanes = (uint64_t{1} << len) - 1;
            uint64_t mask[2] = {lanes | (lanes << 8), 0};
            const uint8_t ww = static_cast<uint8_t>(winW_);
            AscendC::Add(
                gwin_[at], gwin_[at], xp[rowOff], mask, 2,
                AscendC::BinaryRepeatParams(1, 1, pl, ww, ww, static_cast<uint8_t>(2 * pl)));
            return;
        }
        for (int r = 0; r < 2; ++r) {
            const int64_t atR = at + r * winW_ * lp_;
            if (PairAdds(cs)) { // the pair in one Add: 2 repeats, one per corner
                AscendC::Add(
                    gwin_[atR], gwin_[atR], xp[2 * r * cs + rowOff], static_cast<uint64_t>(len), 2,
                    AscendC::BinaryRepeatParams(1, 1, 1, px, px, pl));
                continue;
            }
            for (int q = 0; q < 2; ++q) {
                AscendC::Add(
                    gwin_[atR + q * lp_], gwin_[atR + q * lp_], xp[(2 * r + q) * cs + rowOff],
                    static_cast<int32_t>(len));
            }
        }
    }

    RowInfo rowInfo_[2][dcn_tiling::kStage2MaxTileRows]; // per slot, the most rows of any tile
    TileJob jobCoord_, jobFront_, jobBack_; // tiles waiting for their Coords (offsets loaded) / Loads / Back
    bool hasCoord_, hasFront_, hasBack_;
    AscendC::TEventID coordEvent_;     // V_S: a tile's coordinates (Coords) -> its Loads a Step later
    AscendC::TEventID recSEvent_;      // MTE2_S (shared fronts): a tile's record -> its Loads' key reads
    AscendC::TEventID tabEvent_;       // MTE2_V (shared fronts): a tile's gather table -> its Loads
    AscendC::TEventID rowEvent_[2];    // MTE2_V per slot (shared fronts): a tile's row vectors -> its Back
    bool produce_ = false;             // Stage2Mode::kRecords: fronts computed and stored, no sampling
    bool consume_ = false;             // shared fronts: fronts loaded (LoadRecordKeys, LoadRecordTableAndRows)
    int64_t tableBase_ = 0;            // the gather table's offset in the broadcast buffer (floats; records: per slot)
    int64_t tableSpan_ = 0;   // records: the table and its work rows of one slot (0: one table, tableSlots_ off)
    bool tableSlots_ = false; // records: a gather table per slot fits the broadcast buffer
    int64_t recBase_ = 0, recSeq_ = 0;  // the unit's first record; its next tile's index in the unit (ProcessPixels)
    int64_t recFirst_ = 0, recEnd_ = 0; // records: the slice of the unit's tiles this call computes
    AscendC::TEventID winEvent_;       // MTE2_V: a prefetched window's loads -> its first tile's Loads
    bool winWait_;                     // winEvent_ is set and not waited for yet
    AscendC::TEventID storeEvent_[2];  // MTE3_V per slot: a Back's stores -> the slot's next Loads
    bool storePending_[2];
    bool slotParts_;                   // a partials plane per slot (K <= KT), so only the slot's stores are waited for
    bool directOffsets_;               // the partials go straight to grad_offset (DirectOffsetGrads: no fold)
    bool rowParts_;                    // ... or to the part region in row order (RowOrderParts: no Gathers)
    bool storeSyncAll_;                // a Back without a next tile of its slot yet: the next Loads waits for all MTE3
    AscendC::LocalTensor<T> rawCoord_; // offsets of jobCoord_ (dequeued by Coords, freed by Weights)
    bool rampRow_; // new pixel tiles over one (or a few, spanBases) output rows take their pixel bases from the column
                   // ramp (vector), others from SetValue
    bool basesFenced_ = false; // the setup's vector writes of coord_ precede the phase's first SetValue pixel bases
    bool basePlanes_;   // ... with every kernel point: sample bases from the base planes (cpXb_, cpXb_ + 1)
    int64_t cpXb_;      // the x base plane (BasePlaneX)
    int64_t cpHb_;      // the pixel bases' plane (PixelBasePlane)
    bool onesBlock_;    // the mask plane holds a block of ones behind the ramp (hy, hx by one OneMinus)
    bool maskSlots_;    // four compare masks fit the mask plane's first half: conditions ANDed, then Selects
    int64_t maskBytes_; // bytes of one compare mask slot (a plane's bits, whole 32-B blocks)
    bool axpyIndex_;    // GatherOffsets computes the window index by one Axpy (exact: (H + 2)*(W + 2) < 2^24)
    bool fusedOffsets_; // the gather offsets in the weights' levels (WeightsAndOffsets)
    TileJob coordsJob_; // the tile whose coordinates are under way (BeginCoords)
    int32_t coordsPc_;  // its next level (CoordsLevel)
    bool coordsPending_;  // levels remain
    bool coordsUnfenced_; // its last issued level has no PipeBarrier<PIPE_V> after it yet
    bool coordsInBack_;   // a tile's coordinates may run beside the Back before them (Step)
    TileJob fusedJob_;  // the tile whose fused levels are under way (BeginFusedLevels)
    int fusedLevel_, fusedLast_; // its next level and last level
    bool fusedStarted_;  // fusedJob_'s levels have begun (in the rounds of the Back before its Weights)
    bool fusedPending_;  // levels of fusedJob_ remain
    bool fusedUnfenced_; // its last issued level has no PipeBarrier<PIPE_V> after it yet
    bool keyPath_;  // y0, x0 of a point in one fp32 key (exact: (H + 1)*(W + 2) < 2^24), one scalar read per two points
    bool quadKeys_; // ... and as int16 ((H + 1)*(W + 2) <= kQuadKeyLimit, or relKeys_), one scalar read per four points
    bool relKeys_;  // ... relative to the tile's reference row (KeyBase), its fp32 key read where that does not fit
    // a corner pair's window adds fit one Add: LP <= 64 lanes, corners cs elements apart (<= 255 blocks)
    __aicore__ inline bool PairAdds(int64_t cs) const { return lp_ <= dcn_tiling::kRepeatLanes && cs / 8 <= 255; }
    bool cornerHop_; // contributions written by row [row][c][LP] (a point's corner pairs contiguous for the scatter)
    bool gatherCorners_;    // window-served points' corner rows come from one Gatherb per tile (GatherOffsets)
    static constexpr int64_t kMaxFootprints = 8;
    static constexpr int64_t kScatterGroups = 4;            // interleaved pixel groups of the scatter order (Back)
    int32_t footY_[kMaxFootprints], footX_[kMaxFootprints]; // window adds since the last PipeBarrier<PIPE_V>
    int64_t footCount_;
    static constexpr int64_t kMaxGmFootprints = 16; // GM atomics' corner pairs (row, columns) since the last
    int32_t gmFootY_[kMaxGmFootprints], gmFootX0_[kMaxGmFootprints], gmFootX1_[kMaxGmFootprints]; // PIPE_MTE3 barrier
    int64_t gmFootCount_;
    AscendC::TBuf<AscendC::TPosition::VECCALC> planeZeroBuf_, zeroStateBuf_; // ZeroTo's zeros; the count's words
    int64_t planeAt_, rowElems_, stateAt_; // the unit's plane: giacc element of row 0, elements per row, count index
    int64_t zeroElems_;                    // its elements [0, zeroElems_) are zeroed or accumulated (BeginPlane)
    int64_t fencedElems_;                  // ... of which [0, fencedElems_) are known complete for later MTE3 writes
    int64_t seenElems_;                    // ... and [0, seenElems_) complete as seen by V (a wait for MTE3)
    int64_t zeroTarget_;   // elements to zero ahead, a few DMAs per Back (the open windows' rows and one height more)
    int64_t zeroAtSet_[2]; // zeroElems_ when the slot's store flag (MTE3_V) was set
    static constexpr int64_t kZeroDmasPerBack = 4;
    bool zerosReady_;                               // the zero area is written (ZeroTo)
    bool flushOpen_;                                // a window flush since then, of plane rows / columns:
    int32_t flushY0_, flushY1_, flushX0_, flushX1_; // (inclusive)
    // window-served points of the Back in progress (collection order) and their rounds (AssignRound)
    int16_t servedRow_[dcn_tiling::kStage2MaxTileRows];
    uint8_t servedRound_[dcn_tiling::kStage2MaxTileRows];
    int64_t servedCount_;
    bool addsInFlight_; // window adds issued since the last PipeBarrier<PIPE_V> (rounds or a partial point)
    // rounds per gwin pixel of the collection under way (AssignRound): epoch << kMaskRounds | a bit per round
    // 1..kMaskRounds; pixels folded onto a torus of 16 rows x 32 columns (a tile's points span a few rows and up to
    // about pixelTile*strideW + 8 columns; pixels that fold together only share their rounds). 2 KiB of stack.
    static constexpr uint32_t kRoundMapColBits = 5;
    static constexpr uint32_t kRoundMapRowMask = 15U, kRoundMapColMask = (1U << kRoundMapColBits) - 1U;
    static constexpr int64_t kRoundMapSize = 16 << kRoundMapColBits;
    static constexpr uint32_t kMaskRounds = 24, kRoundBits = (1U << kMaskRounds) - 1U, kMaxEpoch = 255;
    uint32_t roundMap_[kRoundMapSize];
    uint32_t roundEpoch_;    // the collection's epoch (1..kMaxEpoch; map entries of other epochs hold no rounds)
    int64_t overflowRounds_; // rounds after the masked ones, one point each
    bool winT_;             // xwin holds T (16-bit I/O): gathered corners go to the staging planes, cast per tile
    bool stagedAll_[2];     // per slot: the tile's 4 corner planes were gathered into the staging planes (winT_)
    int64_t winElt_;        // bytes per xwin element (DCN_WINDOW_ELEM_BYTES)
    int64_t winNb_;         // 32-B blocks per xwin pixel
    bool quadAdds_;         // a window-served point's 4 corner adds fit one Add (LP = 8)
    bool pointAdds_;        // ... also for LP 16/32 when the contributions are stored by row (cornerHop_)
    int64_t zeroOff_;       // bytes from xwin to the zero area (one xwin pixel) behind it
    int64_t gatherTableAt_; // floats from the broadcast buffer's start to the S rows of GatherOffsets
    int64_t nextSlot_;
    AscendC::LocalTensor<float> xpBack_; // corner planes of jobBack_ once dequeued
    const DcnParams *p_;
    const DcnTensors<T> *t_;
    int64_t kt_, pt_, ptp_, lp_, lpt_, plane_, rows_, hpr_, rs_, brcStride_, giaccBase_;
    int64_t cornerRows_; // rows per corner plane (xp, the staging planes): rows_ padded to whole 8-row repeats (rs_)
    bool spanOffsets_;         // dg > 1: a whole tile's offsets in one DMA of the channels they span
    int64_t offRows_, offHop_; // rows (PTP elements) of an offsets buffer; elements between its offset blocks
    int64_t winLo_, winHi_, winXLo_, winXHi_, winW_;  // input rows x columns held by the UB window (or none)
    int64_t imgLo_, imgHi_, imgXLo_, imgXHi_;         // ... of them inside the image (loaded and flushed)
    bool winRing_;                                    // the window holds ring pixels (outside the image, zero in xwin)
    WinGeom wins_[kWinSlots];                         // the geometry of window seq at seq % kWinSlots
    int64_t winSeq_;                                  // windows opened so far
    int64_t openWin_;                                 // the window the next pushed tiles belong to (-1: none)
    int64_t xwinOwner_; // the window xwin holds (-1: none): loaded in the Loads of its first tile, or of the
                        // previous window's last tile (prefetch)
    int64_t useWin_;    // the window whose geometry the window state holds (UseWindow)
    int64_t gwinOwner_; // the window gwin accumulates (-1: none): zeroed in its first tile's Back, flushed
                        // right after its last tile's Back (Step; at the end of the unit after the drain)
    AscendC::LocalTensor<float> coord_, xwin_, gwin_, outside_;
    AscendC::LocalTensor<T> xs_; // 16-bit I/O staging planes [4][rows][LPT]
    AscendC::TQue<AscendC::TPosition::VECIN, 2> gQue_;
    AscendC::TQue<AscendC::TPosition::VECIN, 2> offQue_;
    AscendC::TQue<AscendC::TPosition::VECIN, 2> xQue_;
    AscendC::TBuf<AscendC::TPosition::VECCALC> coordBuf_, partBuf_, redBuf_, rowBuf_, brcBuf_, tableBuf_;
    AscendC::TBuf<AscendC::TPosition::VECCALC> rowTabBuf_, planeTabBuf_, keyBuf_;
    AscendC::TBuf<AscendC::TPosition::VECCALC> xwinBuf_, gwinBuf_, xsBuf_, gatherIdxBuf_;
};

}  // namespace dcn_kernel

#endif  // DCN_STAGE2_SAMPLE_H
