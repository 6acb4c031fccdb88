// The one definition of every constant shared by the tiling (op_host) and the kernel (op_kernel) of
// DeformableConv2dBackward, and of the tiling keys. Device-compilable: constexpr integers and macros
// only, no includes. Include it after kernel_operator.h (kernel) or <cstdint> (host: op_host includes
// it as "../op_kernel/dcn_tiling_constants.h", as ops-nn op_host includes its op_kernel tiling headers).
// Changing a value here changes both sides at once; the tiling unit test (tests/op_host/) pins the
// resulting split fields and workspace regions.
#ifndef DCN_TILING_CONSTANTS_H
#define DCN_TILING_CONSTANTS_H

// Tiling keys: the I/O dtype (the kernel entry instantiates the kernel once per key, TILING_KEY_IS).
#define DCN_TILING_KEY_FLOAT32 0
#define DCN_TILING_KEY_FLOAT16 1
#define DCN_TILING_KEY_BFLOAT16 2

namespace dcn_tiling {

// ---- hardware granules
constexpr int64_t kUbBlockBytes = 32;     // UB block (DataCopy / vector operand alignment)
constexpr int64_t kGatherMaxLp = 32;      // stage 2 gathers window corners with Gatherb for LP <= 32 (1, 2 or 4 blocks)
constexpr int64_t kRepeatLanes = 64;      // fp32 lanes of one 256-B vector repeat
constexpr int64_t kMaxDmaBlocks = 4095;   // blockCount limit of one DataCopy / DataCopyPad
constexpr int64_t kBrcLanes = 8;          // fp32 lanes of one 32-B block (block-stride-0 broadcast operand)

// ---- stage 2 (bilinear scatter), dcn_stage2_sample.h
constexpr int64_t kBlockCMax = 64;        // channels of a normal stage-2 block (one fp32 repeat per row)
constexpr int64_t kBlockCWide = 128;      // wide block (2 repeats per row) when segLen % 128 == 0 and K <= 32
constexpr int64_t kWideMaxK = 32;         // kernel points allowed with wide blocks
constexpr int64_t kStage2MaxKt = 64;      // kernel points per tile
constexpr int64_t kStage2Rows = 64;       // sample points (G rows) per tile: pixelTile * min(K, 64) <= 64
constexpr int64_t kStage2RowsWide = 32;   // the same for wide blocks (UB)
constexpr int64_t kStage2RowsNarrow = 128; // the same for blocks of <= kNarrowBlockC channels (fewer tile DMAs)
constexpr int64_t kNarrowBlockC = 16;
// ... and for 8-channel blocks: their tiles fill the pixel lanes their planes are padded to (kPixelAlign), up to this
// many rows (16 pixels at 3x3 instead of 14). A tile's fixed work (its front: coordinates, weights, keys, or its
// shared-front record's loads; gathers, the Back's levels and their barriers) then serves 144 points instead of 126,
// at the cost of a smaller UB window (session 34, model: BasicVSR++ / EDVR L3 / EDVR L1 fp16 -7.4 / -5.8 / -3.0 %,
// fp32 -4.8 / -5.1 / -2.5 %; R50 c3 entry fp16 -2.1 %, fp32 -1.0 %; 16-channel blocks lose their windows at 144
// rows, +300 % and more)
constexpr int64_t kStage2RowsNarrow8 = 144;
// the most rows of any stage-2 tile (the kernel's per-row scalar tables)
constexpr int64_t kStage2MaxTileRows = kStage2RowsNarrow8 > kStage2RowsNarrow ? kStage2RowsNarrow8 : kStage2RowsNarrow;
constexpr int64_t kOffsetSpanMaxBytes = 640; // dg > 1: a tile's offsets (3 blocks x K channels of its
                                             // deformable group) load as one DMA of the 2*dg*K + K channels they
                                             // span when that many rows x the I/O dtype's bytes fit (one transfer,
                                             // not three; fp32 row 5 32 -> 37 %, fp16 row 5 10.3 -> 12.1 % once
                                             // its UB window held 16-bit input: before that the span's UB cost it
                                             // 8.4 -> 6.4 %). 640 B covers dg 8 at 3x3 (153 rows) in fp32 (EDVR
                                             // L1 11.1 -> 11.4 %, L3 8.8 -> 9.4 %); at dg 16 (297 rows) fp32's
                                             // unused channels' bytes and smaller window cost more than the two
                                             // DMAs (BasicVSR++ 1,643 -> 1,721 us, session 16), 16-bit's half-size
                                             // rows fit and the DMAs cost more (BasicVSR++ fp16 1,536 -> 1,447 us:
                                             // its sampling was bound by 3 offset + 1 G DMA per tile)
constexpr int64_t kPixelAlign = 16;       // pixel planes of a tile are padded to 16 elements
constexpr int64_t kPlaneZeroBytes = 2048; // UB zero area: the source of the accumulator planes' on-demand zeroing
                                          // (one DMA per 2 KiB, ZeroTo)
constexpr int64_t kStage2RecordRows = 11; // rows of rs floats of a shared tile record: row vectors 0..8, 2 key rows
constexpr int64_t kStage2RowVecs = 11;    // per-row weight/partial vectors of a tile (UB)
constexpr int64_t kStage2CoordPlanes = 13; // coordinate planes of a tile (UB; then 2 pixel-base rows) ...
// ... and for 16-bit I/O one more (the sample base planes: 32-bit I/O keeps them in two offset planes, 16-bit I/O in
// the outside-key plane, unused with mask slots, and this one); a macro like
// DCN_WINDOW_ELEM_BYTES, shared by the kernel and the host
#define DCN_STAGE2_COORD_PLANES(elt) (dcn_tiling::kStage2CoordPlanes + ((elt) < 4 ? 1 : 0))
constexpr int64_t kRedAlign = 8;          // per-corner sum rows padded to 8 fp32 (32 B)
constexpr int64_t kTargetUnits = 48;      // stage-2 units aimed at by the pixel bands (shape-only constant)
constexpr int64_t kMaxBands = 8;          // at most 8 pixel bands (grad_input accumulator planes)
constexpr int64_t kBandGainPct = 15;      // more bands must raise the busy share of the stage-2 lanes by > 15 %,
constexpr int64_t kBandCloseGainPct = 5;  // ... or by > 5 % with at most kBandCloseChunkPct percent of the best
constexpr int64_t kBandCloseChunkPct = 125; // plan's chunks so far (EDVR L1 fp16 794 -> 757 us)
constexpr int64_t kGAheadMaxChunkPct = 200; // 16-bit I/O: two G regions (the next chunk's G GEMM beside this chunk's
                                            // sampling) with up to 2x the chunks, same bands and accumulator planes
constexpr int64_t kGAheadCubeSharePct = 50; // ... and fp32 where a chunk's two GEMMs (ideal cube cycles) take at most
                                            // half its modelled sampling (R50 c4: 58 %, the others that gain <= 40 %)
constexpr int64_t kCubeMacsPerCycleFp32 = 16 * 16 * 4; // fp32 Mmad MACs per cycle (Cube formula: 16 x 16 x cube_k 4)
constexpr int64_t kBandMinOutRows = 1;    // ... keep >= 1 output row per band (chunks of whole rows)
constexpr int64_t kBandChunkGrowthPct = 250; // ... and at most 2.5x the one-band chunk count
constexpr int64_t kWindowMargin = 4;      // input rows kept in the UB window above and below the kernel's
                                          // reach: corners with |dy| < 4 come from / go to UB
constexpr int64_t kWindowMinOut = 20;     // output pixels a window should cover before blocks are narrowed
constexpr int64_t kWindowMinBlockC = 16;  // blocks are not narrowed below 16 channels for a window
constexpr int64_t kWindowTileWeight = 64; // window choice: one stage-2 tile costs about as much as 64 halo
                                          // pixels (assumption: ~1000 scalar-issue cycles per tile against
                                          // ~16 MTE2/MTE3/V cycles per loaded, zeroed and flushed pixel)
constexpr int64_t kWindowBorderWeight = 4; // window choice: a border sample that a window without the zero
                                           // ring does not serve (its corner pair reaches past the image: the
                                           // per-point path, UB copies of its corners and adds of its own)
                                           // costs as much as 4 halo pixels (assumption; measured, session 16:
                                           // 4 and 8 give the ring to CenterNet up1 fp16 787 -> 762 us and
                                           // PP-YOLO 667 -> 660 / 387 -> 385 us; 8 and up also to CenterNet up1
                                           // fp32, 907 -> 940 us, whose sampling is HBM-bound and pays the
                                           // shorter windows' halo bytes)

// ---- stage 0 / stage 3 (rearrangement, finalisation), dcn_transpose.h, dcn_stage0/3
constexpr int64_t kTransposeCap = 4096;     // elements per transpose UB buffer
constexpr int64_t kTransposeRowAlign = 16;  // transpose tile rows padded to 16 elements
constexpr int64_t kFusedPlaneMinRows = 32;  // fewest tile rows of a grad_input flush whose band planes come with one
                                            // DMA (BlockPlaneJob: all planes of a tile in one queue buffer)
constexpr int64_t kReduceChunk = 2048;      // fp32 elements per stage-3 reduction unit
// Entries of stage 3's row-order fold transpose table (Stage3Finalize::FoldRows: K rows of roundup(pixels, 16))
constexpr int64_t kFoldTable = 1024;
// UB bytes of stage 3's own buffers beside its transpose runner (Stage3Finalize::InitBuffers: 2 + 2 queue chunks, the
// accumulator and cast chunks, a 64-float reduction row, the fold table); the kernel's UbBytes and op_host's
// PlanUbBytes both use this sum
constexpr int64_t kStage3OwnUbBytes = 6 * kReduceChunk * 4 + 64 * 4 + kFoldTable * 4;

// ---- stage 1 (Matmul) output tiles, dcn_stage1_matmul.h; op_host PlanStage1Tiles / PlanStage1Matmul.
// G and grad_weight tiles: per shape, the tile (axes split evenly in multiples of 16) with the fewest modelled
// cube cycles per chunk, each tile shape with its own base block and L1 plan. The search is over shape-only constants
// (the lane count below is not the core count), so the tiles never depend on the core count.
constexpr int64_t kGTileAlign = 16;       // G tiles split their axis evenly, in multiples of 16 elements
constexpr int64_t kGTileMaxLen = 2048;    // longest G tile axis tried
constexpr int64_t kGTileMinLen = 128;     // shortest G tile axis tried (unless the axis is shorter)
constexpr int64_t kGTileCounts = 16;      // tile counts tried per axis (from the fewest)
constexpr int64_t kStage1Lanes = 24;      // cube cores the tile search assumes (A2/A3: 24 AIC)
constexpr int64_t kStage1ExactTiles = 4096; // chunks of more tiles are costed by their mean tile
constexpr int64_t kStage1HbmBytesPerCycle = 889; // HBM bytes per cube cycle the search charges the tiles' GM
                                                 // reads (perf model: 1.6 TB/s at 1.8 GHz, an assumption)
constexpr int64_t kWTileM = 256;                // nominal grad_weight tile rows (CoutG) and columns (CinG*K) that
constexpr int64_t kWTileN = 256;                // count the Ka split's units; the tiles themselves: like G tiles
constexpr int64_t kWChunkK = 2048;        // most rows of one grad_weight partial (Ka chunk inside a pixel chunk)
constexpr int64_t kWChunkKMin = 128;      // fewest rows of a Ka chunk split only to occupy the cores
constexpr int64_t kStage2TileCycles = 3500; // vector-core cycles of one stage-2 tile, for the Ka split's overlap
                                            // test (PlanStage1Tiles; a planning weight: scripts/perf_model.py's tiles
                                            // take ~1,750-2,300 cycles of timeline on the suite's rows, but the GEMM
                                            // beside them costs more than its own pipes (session 25, with the Matmul
                                            // search at 16 cycles per transfer: 3,500 -> PP-YOLO fp16 -6.9 %, R50 c4
                                            // fp32 -0.5 %, no row slower; 1,750 and 5,000 slower, R50 c3 body fp32
                                            // +18 % at 5,000)
constexpr int64_t kWTargetUnits = 48;     // grad_weight units (tiles x Ka chunks) aimed at per pixel chunk
// A Ka split whose grad_weight units (tiles x Ka chunks) leave cube lanes idle (fewer than kStage1Lanes) must fit this
// share of the sampling at kStage2TileCycles, about what the tiles' timeline takes (1,750-2,300 cycles per tile): a
// larger split then spreads the GEMM over idle lanes instead of letting it hold phase C (session 30, model: R50 c3
// entry fp32 -5.9 %: 9 grad_weight tiles on 24 cube lanes -> 18 units; at 55 % CenterNet up1 fp16 +0.6 %)
constexpr int64_t kWIdleLanesSamplingPct = 60;
// Matmul base blocks (TCubeTiling baseM x baseN, fixed with SetFixSplit; baseK is the L1 plan's): per tile,
// op_host PlanStage1Matmul.

// ---- pixel chunks (the kernel's stage loop) and pixel bands, op_host PlanWorkSplit / PlanChunks
constexpr int64_t kWsBudget = 60ll << 20; // default bytes of the workspace beyond the fp32 accumulators: the
                                          // grad_input band planes beyond the first + the per-chunk regions
                                          // (G, dcol, got, part, grad_weight Ka slots); a tiling-plan input
constexpr int64_t kHbmPerWsBudget = 512;  // the budget is at most the device memory / 512
constexpr int64_t kChunkShareDiv = 5;     // band planes leave at least budget / 5 to the chunk regions
constexpr int64_t kChunkMinPix = 256;     // output pixels per image a chunk keeps before it drops images
constexpr int64_t kRecordFree =
    (2ll << 20) - (64ll << 10); // shared stage-2 tile records (PlanSharedFronts) take the
                                // bound's room beyond kWsBudget and kZeroStateFree up to this many bytes
                                // (the rest of the bound's 64 MiB, less the regions' alignment); larger
                                // record sets: every unit computes its own fronts
// Blocks per deformable group from which the units share their fronts (16-bit I/O; fp32: twice as many). The records'
// producer computes each tile's front without the Back's barriers to ride on (~1,650 cycles per tile and ~0.6 us of
// setup per chunk in the first phase), so sharing pays where many blocks load each record (session 26, model: R50 c3
// entry fp16 -9.6 %, X101 -10.4 %, CenterNet up1 -5.8 % at 16 and 32 blocks; at 8: R50 c3 body fp16 +2.6 %, R50 c4
// -3.7 %; CenterNet up3 (4) +10 %, R50 c4 dg4 (2) +30 %; fp32 at 16: R50 c3 entry -4.7 %, CenterNet up1 +2.5 %).
constexpr int64_t kShareMinBlocks = 16;
// ... and for blocks of >= kShareWideBlockC channels in 16-bit I/O, whose sampling units are vector-bound and whose
// fronts take the most instructions per channel (session 27, after the weight levels ride the scatter rounds of any
// window: at 8 blocks R50 c4 fp16 -1.8 %, R50 c3 body (16-channel blocks) +4.4 %)
constexpr int64_t kShareMinBlocksWide = 8;
constexpr int64_t kShareWideBlockC = 32;
// ... and in fp32 for blocks of <= kShareNarrowBlockC channels: kShareMinBlocks (their sampling units are bound by the
// scalar unit's issue slots, which the records relieve; session 27: R50 c3 entry fp32 -4.8 % at 16 blocks of 8, while
// 32-channel blocks at 16: CenterNet up1 +2.5 %, PP-YOLO -1.7 %)
constexpr int64_t kShareNarrowBlockC = 16;
// ... and in fp32 with one G region (WorkSplit::gRegions = 1) from kShareMinBlocksOneG blocks: every chunk's first
// phase then runs the chunk's G GEMM on the cube while the vector cores only rearrange, so the records' producer rides
// in the cube's shadow (session 28, model: PP-YOLO c5 fp32 -1.7 %, R50 c4 -0.2 %, R50 c5 unchanged; no other suite
// row has one G region and several blocks per group in fp32)
constexpr int64_t kShareMinBlocksOneG = 4;
constexpr int64_t kZeroStateFree = 2ll << 20; // the accumulator planes' zeroed-row counts (one int32 per band x
                                              // image x block plane) take the bound's room beyond kWsBudget up to
                                              // this many bytes; beyond it they come out of the budget

// Bytes per element of stage 2's UB input window xwin (a macro: shared by the kernel and the host plan): the
// I/O dtype's for 16-bit I/O when a pixel's channels are whole 32-B blocks in both dtypes (LP = roundup(blockC, 8)
// a multiple of 16) and its corners are gathered (LP <= kGatherMaxLp): the window then loads with whole-row DMAs
// and a tile's gathered corner rows are cast once; otherwise fp32 (16-bit input cast while the window loads).
#define DCN_WINDOW_ELEM_BYTES(blockC, elt)                                                                             \
    (((elt) < 4 && (((blockC) + 7) / 8 * 8) % 16 == 0 && ((blockC) + 7) / 8 * 8 <= dcn_tiling::kGatherMaxLp) ? (elt) : \
                                                                                                               4)

// Pixels of each stage-2 band of a pixel chunk whose pixel span (row-major, from its first pixel) is `span`: bandLen
// in a full chunk (span == chunkPix: whole rows, or a piece of one row); a short chunk (the last rows or columns)
// splits its span evenly over the bands, so its units stay balanced.
#define DCN_CHUNK_BAND_LEN(span, chunkPix, bandLen, bands) \
    ((span) < (chunkPix) && ((span) + (bands) - 1) / (bands) < (bandLen) ? ((span) + (bands) - 1) / (bands) : (bandLen))
// First pixel (from the chunk's first) of stage-2 band b, b <= bands (band b covers [start(b), min(span, start(b+1))):
// with tileRuns (a unit's tiles of pt pixels run across output rows: a full-width UB window or none; and a full chunk
// has more units than kTargetUnits, so a lane takes several and its time follows their tile count), band b starts at
// tile floor(b*T/bands) of the span's T = ceil(span/pt) tiles: no band but the last ends in a partial tile and the
// most tiles of a band stay ceil(T/bands) (EDVR L3: bands of 86/86/84 pixels in 7/7/6 tiles of 14 -> 84/84/88 in
// 6/6/7; with one unit per lane the even pixel split keeps the longest band shorter); otherwise at
// b*DCN_CHUNK_BAND_LEN. A macro: the kernel's units and the host's tile counts (MostUnitTiles) take the same.
// tileRuns of DCN_BAND_START, from the plan: no UB window or a full-width one (winOutCols >= wo), and more units per
// full chunk (images x blocks x bands) than kTargetUnits.
#define DCN_BAND_TILE_RUNS(winRows, winOutCols, wo, units) \
    (((winRows) == 0 || (winOutCols) >= (wo)) && (units) > dcn_tiling::kTargetUnits)
#define DCN_BAND_START(span, chunkPix, bandLen, bands, pt, tileRuns, b)   \
    ((tileRuns) ? (pt) * ((b) * (((span) + (pt) - 1) / (pt)) / (bands)) : \
                  (b) * DCN_CHUNK_BAND_LEN(span, chunkPix, bandLen, bands))

// ---- workspace and UB budget
constexpr int64_t kWsAlign = 512;         // every user-workspace region starts 512-B aligned
constexpr int64_t kUbReserved = 8 * 1024; // UB kept free for the toolchain (cann-conventions §4.10)

}  // namespace dcn_tiling

#endif  // DCN_TILING_CONSTANTS_H
