// Named tiling steps of DeformableConv2dBackward (see deformable_conv2d_backward_tiling_plan.h).
#include "deformable_conv2d_backward_tiling_plan.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "../op_kernel/dcn_tiling_constants.h"
#include "dcn_checked_math.h"

namespace dcn {
namespace {

using namespace dcn_tiling;

int64_t Gcd(int64_t a, int64_t b)
{
    while (b != 0) {
        const int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}
int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t RoundUp(int64_t a, int64_t b) { return CeilDiv(a, b) * b; }
// `total` cut into `count` tiles of even size, rounded up to kGTileAlign elements (at most total): no
// small tail tile (a unit that pays a whole request's fill and L0C->GM transfers for little work).
int64_t EvenTile(int64_t total, int64_t count) { return std::min(total, RoundUp(CeilDiv(total, count), kGTileAlign)); }

// The G tile lengths of one axis of `total` elements that the search tries: from the fewest tiles of at
// most kGTileMaxLen elements, kGTileCounts tile counts, each length once, none shorter than kGTileMinLen
// (but the first).
std::vector<int64_t> GTileLengths(int64_t total)
{
    std::vector<int64_t> out;
    const int64_t first = CeilDiv(total, kGTileMaxLen);
    for (int64_t count = first; count < first + kGTileCounts; ++count) {
        const int64_t len = EvenTile(total, count);
        if (!out.empty() && len < kGTileMinLen) {
            break;
        }
        if (out.empty() || len != out.back()) {
            out.push_back(len);
        }
    }
    return out;
}

// Rows of one stage-2 offsets buffer (pixel planes of ptp elements of elt bytes): 3 blocks x KT kernel points,
// or with dg > 1 the 2*dg*K + K channels from a group's dx rows to its mask rows when their bytes fit
// kOffsetSpanMaxBytes (Stage2Sample's spanOffsets_: one DMA loads them all).
int64_t OffsetRows(int64_t k, int64_t dg, int64_t elt)
{
    const int64_t kt = std::min(k, kStage2MaxKt), span = 2 * dg * k + k;
    const bool spanned = dg > 1 && k <= kStage2MaxKt && span * elt <= kOffsetSpanMaxBytes;
    return spanned ? std::max(span, 3 * kt) : 3 * kt;
}

// Stage 2 UB (mirrors Stage2Sample::Run's InitBuffer calls). The tile pipeline (Front of tile j+1 before
// the Back of tile j) holds two tiles: offsets, G tiles and corner planes in 2-deep queues, weight rows and
// order tables per slot.
uint64_t Stage2UbBytes(int64_t k, int64_t dg, int64_t pixelTile, int64_t blockC, int64_t elt)
{
    const int64_t kt = std::min(k, kStage2MaxKt);
    const int64_t ptp = RoundUp(pixelTile, kPixelAlign);
    const int64_t lp = RoundUp(blockC, 8);
    const int64_t plane = kt * ptp;
    const int64_t rows = pixelTile * kt;
    const int64_t hpr = lp > kRepeatLanes ? lp / kRepeatLanes : 1;  // repeats per row
    const int64_t rs = RoundUp(rows, kRedAlign);                    // corner planes and G tiles: whole 8-row repeats
    const int64_t gTiles = 2 * rs * lp * 4;
    const int64_t rawOffsets = 2 * OffsetRows(k, dg, elt) * ptp * elt;
    const int64_t cornerPlanes = 2 * 4 * rs * lp * 4;
    // xs ys x0 y0 lx ly hx hy, 3 fp32 offset planes (16-bit I/O), mask, outside key (16-bit I/O: 1 base plane more);
    // hb, wb
    const int64_t coords = (DCN_STAGE2_COORD_PLANES(elt) * plane + 2 * ptp) * 4;
    const int64_t partials = (kt == k ? 2 : 1) * 3 * plane * 4; // per slot when K <= KT
    const int64_t keyPlanes = 2 * 2 * rs * 4; // per slot: the scalar-read key (or y0, x0) rows
    const int64_t sums = 4 * rs * 4;
    const int64_t rowVecs = 2 * kStage2RowVecs * rs * 4;
    const int64_t broadcast = 4 * std::max(rows * hpr, rs) * kBrcLanes * 4; // Gather path: rows*hpr, Brcb: rs blocks
    const int64_t table = rows * hpr * kBrcLanes * 4;
    const int64_t orderTables = 2 * (rs * 4 + plane * 4);
    // 16-bit I/O: the input rows (corners, window) arrive in T and are cast in UB: 4 staging planes of rows
    // padded to 16 elements (32 B)
    const int64_t staging = elt < 4 ? 4 * rs * RoundUp(blockC, 16) * elt : 0;
    // the zero area behind the UB window (one window pixel, LP elements of the window's dtype; corner gathers of
    // points the window does not serve read it) and the Gather indices of the corner-gather offsets (one per
    // 32-B block of the corner rows, LP <= kGatherMaxLp)
    const int64_t winElt = DCN_WINDOW_ELEM_BYTES(blockC, elt);
    // ... and the accumulator planes' zeroing: a zero area and the unit's zeroed-row count (a load and a store word)
    const int64_t zeroArea = lp * winElt + kPlaneZeroBytes + 2 * kUbBlockBytes;
    const int64_t gatherIdx = lp <= kGatherMaxLp ? 4 * rs * (lp * winElt / kUbBlockBytes) * 4 : 0;
    return static_cast<uint64_t>(
        gTiles + rawOffsets + cornerPlanes + coords + keyPlanes + partials + sums + rowVecs + broadcast + table +
        orderTables + staging + zeroArea + gatherIdx);
}

// Input rows / columns a stage-2 window of `out` output rows / columns reaches (kernel reach + margin
// both sides), before clipping to the image.
int64_t WindowSpanRows(const TilingShape &s, int64_t out)
{
    return (out - 1) * s.strideH + (s.kh - 1) * s.dilationH + 1 + 2 * kWindowMargin;
}
int64_t WindowSpanCols(const TilingShape &s, int64_t out)
{
    return (out - 1) * s.strideW + (s.kw - 1) * s.dilationW + 1 + 2 * kWindowMargin;
}

// UB bytes per window input pixel: input (xwin, LP elements of DCN_WINDOW_ELEM_BYTES) and grad_input (gwin,
// LP fp32).
int64_t WindowPixelBytes(int64_t blockC, int64_t elt)
{
    return RoundUp(blockC, 8) * (DCN_WINDOW_ELEM_BYTES(blockC, elt) + 4);
}

// Stage-2 tile pixels for a block width (shape and UB only): the tile's rows over the kernel points (8-channel blocks:
// as many as the padded pixel lanes hold, up to kStage2RowsNarrow8 rows), and for the narrowest block (8 channels,
// which PlanWorkSplit does not narrow further) fewer pixels while the stage-2 buffers exceed the UB (K = 61..64 with
// 128-row tiles: two slots of partials planes; such shapes had no plan).
int64_t PixelTile(const TilingShape& s, int64_t blockC, uint64_t ubLimit)
{
    const int64_t k = s.kh * s.kw, kt = std::min(k, kStage2MaxKt);
    const int64_t rows = blockC == kBlockCWide ? kStage2RowsWide : (blockC <= kNarrowBlockC ? kStage2RowsNarrow : kStage2Rows);
    int64_t pt = rows / kt;
    // 8-channel blocks (the least UB per tile row; their tiles bound by the scalar unit's issue): the tiles fill the
    // pixel lanes their planes are padded to, up to kStage2RowsNarrow8 rows
    if (blockC <= 8) {
        pt = std::min(RoundUp(pt, kPixelAlign), kStage2RowsNarrow8 / kt);
    }
    pt = std::max<int64_t>(1, std::min(s.ho * s.wo, pt));
    while (blockC <= 8 && pt > 1 && Stage2UbBytes(k, s.dg, pt, blockC, s.elt) > ubLimit) {
        --pt;
    }
    return pt;
}

// Whether a window of wr x wc output pixels (input columns c) can hold the zero ring of one pixel around the
// image (PlanWindow): its rows and columns, clipped to the image plus the ring, fit, and the ring keeps the
// single-Add limit of the window's row pitch (nb fp32 blocks per pixel; 0: a block without gathered corners).
bool RingFits(const TilingShape& s, int64_t wr, int64_t wc, int64_t c, int64_t nb, int64_t fitPixels)
{
    const int64_t rows = std::min(WindowSpanRows(s, wr), s.h + 2);
    const int64_t cols = std::min(WindowSpanCols(s, wc), s.w + 2);
    return nb > 0 && rows * cols <= fitPixels && cols <= kMaxDmaBlocks && (cols * nb <= 255) == (c * nb <= 255);
}

// Sample points of one image whose sample, at zero offsets, lies on the image's last row or last column: their
// corner pairs reach one pixel past the image, so without the ring they are not window-served and take the
// per-point corner path (a shape-only estimate; offsets move samples across every border).
int64_t BorderSamples(const TilingShape& s)
{
    int64_t onLastRow = 0, onLastCol = 0; // (output row, kernel row) pairs with y = H - 1; columns likewise
    for (int64_t oh = 0; oh < s.ho; ++oh) {
        for (int64_t kh = 0; kh < s.kh; ++kh) {
            onLastRow += oh * s.strideH - s.padTop + kh * s.dilationH == s.h - 1 ? 1 : 0;
        }
    }
    for (int64_t ow = 0; ow < s.wo; ++ow) {
        for (int64_t kw = 0; kw < s.kw; ++kw) {
            onLastCol += ow * s.strideW - s.padLeft + kw * s.dilationW == s.w - 1 ? 1 : 0;
        }
    }
    return onLastRow * s.wo * s.kw + onLastCol * s.ho * s.kh - onLastRow * onLastCol;
}

// The best window (output rows x output columns) whose clipped halo fits `fitPixels` input pixels. Plain
// (block-width decisions): the widest window per row count, highest ratio of output pixels to halo pixels,
// then the larger window. Tile-aware (the final choice): the
// lowest cost per output pixel over a strip of wr output rows, (tiles x kWindowTileWeight + halo pixels) /
// (wr x Wo), then the larger window. A strip is covered by Wo / wc windows and one of the rest; a tile is a run
// of pixelTile pixels of one window row, or of a full-width window's whole pixel range. Per output row count
// the widest window that fits is tried and, below it, every whole multiple of the pixel tile (a partial tile
// costs a whole one). false: not even 1 x 1 fits.
bool BestWindow(
    const TilingShape& s, int64_t pixelTile, int64_t fitPixels, int64_t maxOutRows, bool tileAware, int64_t ringNb,
    int64_t& outRows, int64_t& outCols, int64_t& rows, int64_t& cols)
{
    outRows = outCols = rows = cols = 0;
    int64_t bestNum = 0, bestDen = 1;
    const int64_t border = ringNb > 0 && tileAware ? BorderSamples(s) : 0;
    auto consider = [&](int64_t wr, int64_t wc, int64_t r) {
        const int64_t c = std::min(WindowSpanCols(s, wc), s.w);
        int64_t tiles = CeilDiv(wr * s.wo, pixelTile), halo = r * c;
        if (wc < s.wo) {
            const int64_t whole = s.wo / wc, rest = s.wo - whole * wc;
            tiles = wr * (whole * CeilDiv(wc, pixelTile) + CeilDiv(rest, pixelTile));
            halo = r * (whole * c + (rest > 0 ? std::min(WindowSpanCols(s, rest), s.w) : 0));
        }
        int64_t num = tiles * kWindowTileWeight + halo, den = wr * s.wo;
        // a window whose ring does not fit (PlanWindow) also pays for its strip's share of the border samples
        // (rounded up; kWindowBorderWeight halo pixels each)
        if (border > 0 && !RingFits(s, wr, wc, c, ringNb, fitPixels)) {
            num += kWindowBorderWeight * CeilDiv(border * wr, s.ho);
        }
        if (!tileAware) { // halo pixels per output pixel of this window
            num = r * c;
            den = wr * wc;
        }
        // better: num / den < bestNum / bestDen, or equal and a larger window
        if (outRows == 0 || num * bestDen < bestNum * den ||
            (num * bestDen == bestNum * den && wr * wc > outRows * outCols)) {
            outRows = wr;
            outCols = wc;
            rows = r;
            cols = c;
            bestNum = num;
            bestDen = den;
        }
    };
    for (int64_t wr = 1; wr <= std::min(s.ho, maxOutRows); ++wr) {
        const int64_t r = std::min(WindowSpanRows(s, wr), s.h);
        const int64_t maxCols = std::min(fitPixels / r, kMaxDmaBlocks);
        int64_t wc = 0;
        if (std::min(WindowSpanCols(s, s.wo), s.w) <= maxCols) {
            wc = s.wo;
        } else if (WindowSpanCols(s, 1) <= maxCols) {
            wc = (maxCols - WindowSpanCols(s, 1)) / s.strideW + 1;
        }
        if (wc == 0) {
            break;  // more rows only leave fewer columns
        }
        consider(wr, wc, r);
        for (int64_t m = tileAware ? (wc - 1) / pixelTile : 0; m >= 1; --m) {
            consider(wr, m * pixelTile, r);
        }
    }
    return outRows > 0;
}

uint64_t TransposeUbBytes() { return 8 * kTransposeCap * 4; } // 2+2 queue buffers, gather, 2 tables, plane

}  // namespace

bool PlanCores(const TilingPlatform &platform, CoreSplit &cores, std::string &error)
{
    // MIX AIC:AIV = 1:2: a block is one cube core plus two vector cores. The platform may expose fewer
    // vector cores than 2 x cube cores (e.g. a core-count override of 7 vector cores = 4 blocks): the
    // launch still has two vector cores per block, and only vector cores [0, usedVecCores) take work;
    // the others join every SyncAll and matmul End. On a full chip usedVecCores == 2 * blockDim.
    cores.blockDim = std::min(platform.aicNum, (platform.aivNum + 1) / 2);
    if (cores.blockDim == 0) {
        error = "platform: the MIX AIC:AIV = 1:2 kernel needs at least 1 cube core and 1 vector core; got " +
                std::to_string(platform.aicNum) + " cube and " + std::to_string(platform.aivNum) + " vector cores";
        return false;
    }
    cores.usedVecCores = std::min(platform.aivNum, 2 * cores.blockDim);
    return true;
}

uint64_t WsBudgetForHbm(uint64_t hbmBytes)
{
    const uint64_t full = static_cast<uint64_t>(kWsBudget);
    return hbmBytes == 0 ? full : std::min(full, hbmBytes / static_cast<uint64_t>(kHbmPerWsBudget));
}

WorkSplit PlanWorkSplit(const TilingShape& s, uint64_t ubLimit, uint64_t wsBudget)
{
    WorkSplit w;
    const int64_t k = s.kh * s.kw, howo = s.ho * s.wo, cinG = s.cin / s.groups;
    const int64_t cinDg = s.cin / s.dg;
    // Stage 2 channel blocks: segments inside one conv group AND one deformable group, cut into blocks
    // as wide as possible. Wide (128-channel) blocks need whole 128-channel blocks and <= 32 kernel
    // points (UB: <= 32 rows per tile).
    w.segLen = Gcd(cinG, cinDg);
    const bool wide = w.segLen % kBlockCWide == 0 && k <= kWideMaxK;
    w.blockC = wide ? kBlockCWide : std::min(w.segLen, kBlockCMax);
    // ... halved (rounded up to whole 32-B fp32 rows) while the stage-2 tile buffers alone exceed the UB
    // (two tiles in flight; large K, 16-bit staging) ...
    while (Stage2UbBytes(k, s.dg, PixelTile(s, w.blockC, ubLimit), w.blockC, s.elt) > ubLimit && w.blockC > 8) {
        w.blockC = RoundUp(CeilDiv(w.blockC, 2), 8);
    }
    // ... then halved while the UB window (PlanWindow) covers fewer than kWindowMinOut output pixels and
    // the narrower block's window covers more (from a block without any window, also past narrower blocks
    // without one): a corner from UB costs far less than a corner DMA, more than the per-point work the
    // narrower block adds.
    PlanWindow(s, ubLimit, w);
    WorkSplit cur = w;
    while (cur.winOutRows * cur.winOutCols < std::min(kWindowMinOut, howo) && cur.blockC > kWindowMinBlockC &&
           cur.blockC % 16 == 0) {
        WorkSplit narrower = cur;
        narrower.blockC = cur.blockC / 2;
        PlanWindow(s, ubLimit, narrower);
        const int64_t now = cur.winOutRows * cur.winOutCols;
        if (narrower.winOutRows * narrower.winOutCols <= now && now > 0) {
            break;
        }
        cur = narrower;
        if (cur.winOutRows * cur.winOutCols > w.winOutRows * w.winOutCols) {
            w = cur;
        }
    }
    PlanUnits(s, ubLimit, wsBudget, w);
    // ... and halved (not below 8 channels, whole 32-B fp32 rows) while a chunk's stage-2 units (images x
    // blocks x bands) leave more than half of the kTargetUnits lanes idle and the narrower block has more
    // units and a window as large: idle lanes cost more than the per-point work of a second block (the
    // window's halo pixels double with the halved row bytes).
    while (UnitsOf(w) * 2 <= kTargetUnits && w.blockC > 8 && w.blockC % 16 == 0 && w.winOutRows > 0) {
        WorkSplit narrower = w;
        narrower.blockC = w.blockC / 2;
        PlanWindow(s, ubLimit, narrower);
        if (narrower.winOutRows * narrower.winOutCols < w.winOutRows * w.winOutCols) {
            break;
        }
        PlanUnits(s, ubLimit, wsBudget, narrower);
        if (UnitsOf(narrower) <= UnitsOf(w)) {
            break;
        }
        w = narrower;
    }
    // ... and finally chosen tile-aware (whole pixel tiles per window row, BestWindow) within the output rows a
    // unit's pixels span (a band may start inside a row; a piece of one row: 1): window rows beyond them would
    // only add halo rows
    const int64_t span = w.chunkOutCols < s.wo ? 1 :
                         w.pixelBands > 1      ? std::min(w.chunkOutRows, CeilDiv(w.bandLen, s.wo) + 1) :
                                                 w.chunkOutRows;
    if (w.winOutRows > 0) {
        PlanWindow(s, ubLimit, w, span, true);
    }
    return w;
}

// Stage-2 units of one (full) pixel chunk: images x channel blocks x pixel bands.
int64_t UnitsOf(const WorkSplit& w) { return w.chunkImgs * w.numBlocks * w.pixelBands; }

namespace {

// Rounds of kTargetUnits stage-2 lanes a pixel chunk of every image group takes: N images in groups of imgs (the
// last group the rest), perImage units per image.
int64_t LaneRounds(int64_t n, int64_t imgs, int64_t perImage)
{
    const int64_t full = n / imgs, rest = n - full * imgs;
    return full * CeilDiv(imgs * perImage, kTargetUnits) + (rest > 0 ? CeilDiv(rest * perImage, kTargetUnits) : 0);
}

uint64_t SamplingSlots(const TilingShape& s, const WorkSplit& w);
double Stage2LaneCycles(const TilingShape& s, const WorkSplit& w);

// Whether a full chunk's two GEMMs (G and grad_weight: ideal fp32 cube cycles, their MACs over kStage1Lanes cube
// cores at kCubeMacsPerCycleFp32) take at most kGAheadCubeSharePct percent of its modelled sampling
// (Stage2LaneCycles), so that the next chunk's G GEMM fits beside the sampling with the grad_weight GEMM.
bool CubeFitsBesideSampling(const TilingShape& s, const WorkSplit& w)
{
    const double kcg = static_cast<double>(s.kh * s.kw * (s.cin / s.groups));
    const double macs = 2.0 * static_cast<double>(w.chunkRows) * kcg * static_cast<double>(s.cout);
    const double cube = macs / static_cast<double>(kStage1Lanes * kCubeMacsPerCycleFp32);
    return cube * 100.0 <= Stage2LaneCycles(s, w) * static_cast<double>(kGAheadCubeSharePct);
}
bool PlanLocalBands(
    const TilingShape& s, uint64_t wsBudget, int64_t gRegions, const WorkSplit& w0, int64_t oneBandChunks,
    WorkSplit& best, uint64_t& bestBudget);

// An image-local plan PlanBandsAndChunks considered (valid: PlanLocalBands found one), and its chunk budget.
struct LocalCandidate {
    bool valid = false;
    WorkSplit w;
    uint64_t budget = 0;
};

// Pixel bands and chunks for gRegions G regions (PlanUnits); chunkBudget: what the chunk regions get; local: the
// image-local plan it weighed (taken or not).
WorkSplit PlanBandsAndChunks(
    const TilingShape& s, uint64_t wsBudget, int64_t gRegions, const WorkSplit& w0, uint64_t& chunkBudget,
    LocalCandidate& local)
{
    WorkSplit w = w0;
    const int64_t howo = s.ho * s.wo;
    // Pixel bands: a chunk's stage-2 units (images x blocks x bands) are spread over kTargetUnits lanes
    // (a constant target, not the core count). The band count b in 1..kMaxBands keeps the most lanes busy
    // per round, units / (rounds * kTargetUnits) with rounds = ceil(units / kTargetUnits); a larger b is
    // taken only if it raises that share by more than kBandGainPct percent (or by more than
    // kBandCloseGainPct percent while it needs at most kBandCloseChunkPct percent of the chunks of the best
    // count so far: the extra plane then barely shrinks the chunks), its bands keep at least
    // kBandMinOutRows output rows when the chunk is whole rows (a band's UB windows reload their margin
    // rows; a piece of one row has the same rows in any band) and it costs at most
    // kBandChunkGrowthPct percent of the one-band chunk count. Each plane beyond the first (N*H*W*Cin fp32)
    // comes out of the workspace budget, which leaves at least budget / kChunkShareDiv to the chunk
    // regions; the chunks take the rest (so the chunk images, and the units, depend on b).
    const uint64_t plane = static_cast<uint64_t>(s.n) * static_cast<uint64_t>(s.h) * static_cast<uint64_t>(s.w) *
                           static_cast<uint64_t>(s.cin) * 4;
    const uint64_t bandRoom = wsBudget - wsBudget / static_cast<uint64_t>(kChunkShareDiv);
    int64_t bands = 1, oneBandChunks = 0;
    chunkBudget = wsBudget;
    uint64_t bestBusy = 0, bestSlots = 1; // the best share busy / slots so far
    int64_t bestChunks = 0;               // ... and its chunk count
    for (int64_t b = 1; b <= std::min(kMaxBands, howo); ++b) {
        const uint64_t extra = static_cast<uint64_t>(b - 1) * plane;
        if (extra > bandRoom) {
            break;
        }
        WorkSplit trial = w;
        PlanChunks(s, wsBudget - extra, gRegions, trial);
        if (b == 1) {
            oneBandChunks = trial.numChunks;
        } else if (
            b > trial.chunkPix || (trial.chunkOutCols == s.wo && trial.chunkPix < b * kBandMinOutRows * s.wo) ||
            trial.numChunks * 100 > oneBandChunks * kBandChunkGrowthPct) {
            continue; // no band without a pixel (its plane would only shrink the chunks)
        }
        const uint64_t units = static_cast<uint64_t>(trial.chunkImgs * w.numBlocks * b);
        const uint64_t slots = static_cast<uint64_t>(CeilDiv(static_cast<int64_t>(units), kTargetUnits) * kTargetUnits);
        // units / slots > bestBusy / bestSlots * (100 + gain) / 100, in integers
        const bool close = trial.numChunks * 100 <= bestChunks * kBandCloseChunkPct;
        const uint64_t gainPct = static_cast<uint64_t>(100 + (close ? kBandCloseGainPct : kBandGainPct));
        if (b == 1 || units * bestSlots * 100 > bestBusy * slots * gainPct) {
            bands = b;
            bestChunks = trial.numChunks;
            chunkBudget = wsBudget - extra;
            bestBusy = units;
            bestSlots = slots;
        }
    }
    PlanChunks(s, chunkBudget, gRegions, w);
    w.bandLen = CeilDiv(w.chunkPix, bands);
    w.pixelBands = CeilDiv(w.chunkPix, w.bandLen); // no empty band in a full chunk
    BalanceChunkImages(s, w);
    w.accImgs = s.n;
    // Image-local planes (accImgs = chunkImgs = 1): taken when their bands keep the lanes so much busier that the
    // modelled sampling (SamplingSlots) drops by more than kBandGainPct percent, and either a chunk of the batch
    // planes has fewer stage-2 units than lanes or the local plan needs at most kBandCloseChunkPct percent of its
    // chunks. (Each image's flush reads, writes and zeroes its planes once more and every chunk costs a phase: by
    // scripts/perf_model.py the slot rule alone put PP-YOLO c5 fp16 +12 % (8 chunks for 4), fp32 +3 %.)
    local.valid = PlanLocalBands(s, wsBudget, gRegions, w0, oneBandChunks, local.w, local.budget);
    if (local.valid && (UnitsOf(w) < kTargetUnits || local.w.numChunks * 100 <= w.numChunks * kBandCloseChunkPct) &&
        SamplingSlots(s, local.w) * static_cast<uint64_t>(100 + kBandGainPct) < SamplingSlots(s, w) * 100) {
        chunkBudget = local.budget;
        return local.w;
    }
    return w;
}

// Modelled sampling of a whole run in band-pixel slots: per pixel chunk and image group, its stage-2 units (images
// x blocks x bands) in rounds of kTargetUnits lanes, each round as long as a band (bandLen pixels).
uint64_t SamplingSlots(const TilingShape& s, const WorkSplit& w)
{
    const int64_t rounds = LaneRounds(s.n, w.chunkImgs, w.numBlocks * w.pixelBands);
    return static_cast<uint64_t>(rounds * w.pixChunks) * static_cast<uint64_t>(w.bandLen);
}

// Rows of a whole-row pixel chunk once balanced: as many chunks as chunkOutRows rows give, ceil(Ho / chunks) rows each
// (PlanUnits; other chunks keep theirs).
int64_t BalancedChunkRows(const TilingShape& s, const WorkSplit& w)
{
    return w.chunkOutCols == s.wo && w.chunkOutRows < s.ho ? CeilDiv(s.ho, CeilDiv(s.ho, w.chunkOutRows)) :
                                                             w.chunkOutRows;
}

// SamplingSlots with the bands of the balanced rows. PlanLocalBands ranks its band counts by it: the remnant chunk of
// unbalanced rows inflates the slots of some counts more than others (X101 fp32: 3 bands of 10-row chunks over 6
// bands of 6-row ones, 10 chunks for 16, -10.4 % by scripts/perf_model.py). The other choices keep SamplingSlots,
// against which their thresholds were set: taking the balanced count there too moved R50 c5 fp32 (+8.6 %) and X101
// fp16 (+9.8 %) to slower plans.
uint64_t BalancedSlots(const TilingShape& s, const WorkSplit& w)
{
    const int64_t rounds = LaneRounds(s.n, w.chunkImgs, w.numBlocks * w.pixelBands);
    const int64_t rows = BalancedChunkRows(s, w);
    const int64_t bandLen = rows < w.chunkOutRows ? CeilDiv(rows * s.wo, w.pixelBands) : w.bandLen;
    return static_cast<uint64_t>(rounds * w.pixChunks) * static_cast<uint64_t>(bandLen);
}

// Image-local grad_input planes (WorkSplit::accImgs): chunks of one image, b band planes of one image each. The
// first N of them take the room of the batch plane (the workspace's 4 B x |grad_input|); planes beyond it come out
// of the workspace budget like extra bands of the batch (at most bandRoom), the chunks take the rest. The band count
// b in 1..kMaxBands with the fewest SamplingSlots (ties: fewer bands), under the batch plan's band rules (a pixel
// per band, >= kBandMinOutRows output rows per band for whole-row chunks, at most kBandChunkGrowthPct percent of
// the batch plan's one-band chunks). false: no image-local plan (one image, or no band count fits).
bool PlanLocalBands(
    const TilingShape& s, uint64_t wsBudget, int64_t gRegions, const WorkSplit& w0, int64_t oneBandChunks,
    WorkSplit& best, uint64_t& bestBudget)
{
    if (s.n < 2) {
        return false;
    }
    const uint64_t imgPlane =
        static_cast<uint64_t>(s.h) * static_cast<uint64_t>(s.w) * static_cast<uint64_t>(s.cin) * 4;
    const uint64_t bandRoom = wsBudget - wsBudget / static_cast<uint64_t>(kChunkShareDiv);
    TilingShape one = s;
    one.n = 1;
    uint64_t bestSlots = 0;
    for (int64_t b = 1; b <= std::min(kMaxBands, s.ho * s.wo); ++b) {
        const uint64_t extra = b > s.n ? static_cast<uint64_t>(b - s.n) * imgPlane : 0;
        if (extra > bandRoom) {
            break;
        }
        WorkSplit trial = w0;
        PlanChunks(one, wsBudget - extra, gRegions, trial);
        trial.numChunks = s.n * trial.pixChunks;
        if (b > trial.chunkPix || (trial.chunkOutCols == s.wo && trial.chunkPix < b * kBandMinOutRows * s.wo) ||
            trial.numChunks * 100 > oneBandChunks * kBandChunkGrowthPct) {
            continue;
        }
        trial.bandLen = CeilDiv(trial.chunkPix, b);
        trial.pixelBands = CeilDiv(trial.chunkPix, trial.bandLen);
        trial.accImgs = 1;
        const uint64_t slots = BalancedSlots(s, trial);
        if (bestSlots == 0 || slots < bestSlots) {
            best = trial;
            bestBudget = wsBudget - extra;
            bestSlots = slots;
        }
    }
    return bestSlots > 0;
}

} // namespace

// Everything of the split that follows the block width and window: blocks, pixel tile, bands, chunks and
// the stage-1 tiles.
void PlanUnits(const TilingShape& s, uint64_t ubLimit, uint64_t wsBudget, WorkSplit& w)
{
    const int64_t k = s.kh * s.kw, cinG = s.cin / s.groups, coutG = s.cout / s.groups;
    w.blocksPerSeg = CeilDiv(w.segLen, w.blockC);
    w.numBlocks = (s.cin / w.segLen) * w.blocksPerSeg;
    w.pixelTile = PixelTile(s, w.blockC, ubLimit);
    // The bands and chunks with one G region; with several chunks, also with two (chunk c+1's G GEMM then
    // runs during chunk c's sampling, dcn_stage1_matmul.h), taken when they need no more chunks: the second
    // region comes out of the chunk budget, and smaller chunks cost more per row than the overlap saves
    // (scripts/perf_model.py: R50 c4 37.8 -> 35.1 %, PP-YOLO c5 46.9 -> 41.8 % when taken at 1.5x chunks). 16-bit
    // I/O takes them at up to kGAheadMaxChunkPct percent of the chunks while the bands and accumulator planes stay:
    // its cube is 4x faster, so the next chunk's G GEMM fits beside the sampling, and the phase between two
    // samplings, no longer bound by dcol (DcolKwMajor), was bound by the G GEMM's fixpipe writes (session 23: fp16
    // 12.6 -> 13.2 %, CenterNet up1 / up3 -10 %, no row slower). fp32 takes them on the same terms where a chunk's
    // two GEMMs are short beside its sampling (CubeFitsBesideSampling; session 25: R50 c3 entry / body, X101,
    // EDVR L1, BasicVSR++ -0.6 to -2.5 %; taken everywhere, R50 c4 +7.3 %: its GEMMs take as long as its sampling).
    // Where the plan so chosen takes several rounds of stage-2 units and leaves lanes idle in the last (units above
    // kTargetUnits and not a multiple of it), an image-local plan (one or two G regions; fp32 with two on the terms
    // above) that needs no more chunks and fewer sampling slots is taken instead: it fills the lanes without a phase
    // more, which the slot thresholds of PlanBandsAndChunks do not credit (they weigh slots against more chunks).
    // scripts/perf_model.py: BasicVSR++ fp32 -8.4 % (128 units in 3 rounds -> 48 in 1, 8 chunks for 13), X101 fp32 -1.6
    // %, fp16 -5.2 % (128 -> 96 units); where the chosen plan's rounds are full, the local plans with fewer slots were
    // slower (R50 c4 fp16 +19 %, EDVR L1 fp32 +5.6 %: twice the band planes).
    uint64_t chunkBudget = 0, twoBudget = 0;
    LocalCandidate localOne, localTwo;
    w = PlanBandsAndChunks(s, wsBudget, 1, w, chunkBudget, localOne);
    if (w.numChunks > 1) {
        const WorkSplit two = PlanBandsAndChunks(s, wsBudget, 2, w, twoBudget, localTwo);
        const bool sameStructure = two.accImgs == w.accImgs && two.pixelBands == w.pixelBands;
        if (two.numChunks <= w.numChunks || (sameStructure && two.numChunks * 100 <= kGAheadMaxChunkPct * w.numChunks &&
                                             (s.elt == 2 || CubeFitsBesideSampling(s, two)))) {
            w = two;
            chunkBudget = twoBudget;
        }
        localTwo.valid =
            localTwo.valid && localTwo.w.numChunks > 1 && (s.elt == 2 || CubeFitsBesideSampling(s, localTwo.w));
    }
    for (const LocalCandidate* c : {&localOne, &localTwo}) {
        if (c->valid && UnitsOf(w) > kTargetUnits && UnitsOf(w) % kTargetUnits != 0 && c->w.numChunks <= w.numChunks &&
            SamplingSlots(s, c->w) < SamplingSlots(s, w)) {
            w = c->w;
            chunkBudget = c->budget;
        }
    }
    // Whole-row chunks hold balanced rows: as many pixel chunks, ceil(Ho / chunks) rows each, so the last is at
    // most one row shorter instead of a remnant whose units leave most lanes idle (their bands shrink with the
    // chunk; nothing else of the plan changes). scripts/perf_model.py: PP-YOLO c5 (19 rows: 13 + 6 -> 10 + 9) fp32
    // -12.2 %, fp16 -2.4 %; the other suite rows' chunks already hold ceil(Ho / chunks) rows.
    const int64_t rows = BalancedChunkRows(s, w);
    if (rows < w.chunkOutRows) {
        w.chunkOutRows = rows;
        w.chunkPix = rows * s.wo;
        w.chunkRows = w.chunkImgs * w.chunkPix;
        w.bandLen = CeilDiv(w.chunkPix, w.pixelBands);
        w.pixelBands = CeilDiv(w.chunkPix, w.bandLen);
    }
    // Stage 1 matmul tiles and the grad_weight Ka chunks of one pixel chunk: wSplitK partial slots (slot 0
    // is the grad_weight accumulator itself). Enough slots that the chunk's grad_weight work makes about
    // kWTargetUnits units (tiles x Ka chunks; a shape-only target, so the summation order never depends on
    // the core count) but Ka chunks of at least kWChunkKMin rows, and at least as many as kWChunkK-row chunks
    // need; all while the slots beyond the first fit a quarter of the chunk budget (then the chunks grow).
    const int64_t kcg = k * cinG;
    // (units counted in nominal kWTileM x kWTileN tiles; the grad_weight tile itself is PlanStage1Tiles')
    const int64_t wTiles = s.groups * CeilDiv(coutG, kWTileM) * CeilDiv(kcg, kWTileN);
    const int64_t forUnits = std::min(CeilDiv(kWTargetUnits, wTiles), std::max<int64_t>(1, w.chunkRows / kWChunkKMin));
    const int64_t slotBytes = s.cout * kcg * 4;
    const int64_t slots = 1 + static_cast<int64_t>((chunkBudget / 4) / static_cast<uint64_t>(slotBytes));
    const int64_t split = std::min(std::max(CeilDiv(w.chunkRows, kWChunkK), forUnits), slots);
    w.wChunkK = CeilDiv(w.chunkRows, split);
    w.wSplitK = CeilDiv(w.chunkRows, w.wChunkK);
}

// Lane balance of the chunk images: a chunk's stage-2 units (images x blocks x bands) run in rounds of
// kTargetUnits lanes (a shape-only constant), so the whole run takes sum over its image groups of
// ceil(units / kTargetUnits) rounds per pixel chunk. Fewer images per chunk are taken when they need fewer
// rounds (e.g. 72 units = 2 rounds at 75 % -> 48 units = 1 round); among equal counts the most images
// (fewest chunks).
void BalanceChunkImages(const TilingShape& s, WorkSplit& w)
{
    const int64_t perImage = w.numBlocks * w.pixelBands;
    auto rounds = [&](int64_t imgs) { return LaneRounds(s.n, imgs, perImage); };
    int64_t best = w.chunkImgs, bestRounds = rounds(best);
    for (int64_t imgs = w.chunkImgs - 1; imgs >= 1; --imgs) {
        const int64_t r = rounds(imgs);
        if (r < bestRounds) {
            best = imgs;
            bestRounds = r;
        }
    }
    w.chunkImgs = best;
    w.chunkRows = w.chunkImgs * w.chunkPix;
    w.numChunks = CeilDiv(s.n, w.chunkImgs) * w.pixChunks;
}

void PlanChunks(const TilingShape& s, uint64_t chunkBudget, int64_t gRegions, WorkSplit& w)
{
    // Bytes per chunk row (one output pixel of one image): G (K*Cin fp32, once per G region), dcol (K*Cin T),
    // got (Cout T) and the offset/mask partials (numBlocks*3*K fp32). Three quarters of the budget go to
    // rows, one quarter to the grad_weight partial slots (PlanWorkSplit).
    const int64_t k = s.kh * s.kw, howo = s.ho * s.wo;
    const int64_t rowBytes = k * s.cin * (4 * gRegions + s.elt) + s.cout * s.elt + w.numBlocks * 3 * k * 4;
    const int64_t rowsBudget =
        std::max<int64_t>(1, static_cast<int64_t>((chunkBudget - chunkBudget / 4) / static_cast<uint64_t>(rowBytes)));
    int64_t pix = howo;
    if (s.n * howo > rowsBudget) {
        // as many images as keep kChunkMinPix pixels each (more images = more stage-2 units), whole rows
        // when a row fits, else a piece of one row
        pix = std::min(howo, std::max(rowsBudget / s.n, std::min(rowsBudget, kChunkMinPix)));
    }
    if (pix >= howo) {
        w.chunkOutRows = s.ho;
        w.chunkOutCols = s.wo;
    } else if (pix >= s.wo) {
        w.chunkOutRows = pix / s.wo;
        w.chunkOutCols = s.wo;
    } else {
        w.chunkOutRows = 1;
        w.chunkOutCols = pix;
    }
    w.chunkPix = w.chunkOutRows * w.chunkOutCols;
    w.chunkImgs = std::min(s.n, std::max<int64_t>(1, rowsBudget / w.chunkPix));
    w.chunkRows = w.chunkImgs * w.chunkPix;
    w.pixChunks = CeilDiv(s.ho, w.chunkOutRows) * CeilDiv(s.wo, w.chunkOutCols);
    w.numChunks = CeilDiv(s.n, w.chunkImgs) * w.pixChunks;
    w.gRegions = gRegions;
}

void PlanWindow(const TilingShape& s, uint64_t ubLimit, WorkSplit& w, int64_t maxOutRows, bool tileAware)
{
    // The window takes the UB the stage-2 tile buffers leave free (every shape-dependent byte of the
    // stage, so a bigger tile shrinks the window); none when not even a 1 x 1 output window fits.
    w.winOutRows = w.winOutCols = w.winRows = w.winCols = 0;
    const uint64_t base = Stage2UbBytes(s.kh * s.kw, s.dg, PixelTile(s, w.blockC, ubLimit), w.blockC, s.elt);
    if (base >= ubLimit) {
        return;
    }
    const int64_t fitPixels =
        static_cast<int64_t>((ubLimit - base) / static_cast<uint64_t>(WindowPixelBytes(w.blockC, s.elt)));
    // Blocks whose window corners are gathered (LP <= kGatherMaxLp) may hold a zero ring of one pixel around
    // the image, so that border samples are window-served (dcn_stage2_sample.h OpenWindow): the capacity
    // grows to the ring when that still fits (RingFits). The final (tile-aware) choice weighs a window without
    // it by the border samples it leaves to the per-point corner path (BestWindow).
    const int64_t nb = RoundUp(w.blockC, 8) / 8;
    const int64_t ringNb = nb * 8 <= kGatherMaxLp ? nb : 0;
    if (!BestWindow(
            s, PixelTile(s, w.blockC, ubLimit), fitPixels, maxOutRows, tileAware, ringNb, w.winOutRows, w.winOutCols,
            w.winRows, w.winCols)) {
        return;
    }
    if (RingFits(s, w.winOutRows, w.winOutCols, w.winCols, ringNb, fitPixels)) {
        w.winRows = std::min(WindowSpanRows(s, w.winOutRows), s.h + 2);
        w.winCols = std::min(WindowSpanCols(s, w.winOutCols), s.w + 2);
    }
}

MatmulL1Limits Stage1Limits(const TilingPlatform& platform)
{
    MatmulL1Limits l;
    l.l0aBytes = platform.l0aBytes;
    l.l0bBytes = platform.l0bBytes;
    l.l0cBytes = platform.l0cBytes;
    l.l1Bytes = platform.l1Bytes;
    return l;
}

namespace {

// Modelled cycles of one phase's Matmul tiles: tile u on lane u % kStage1Lanes (the kernel's order: consecutive
// tiles on distinct cube cores) costing cyclesOf(u); the phase takes its busiest lane. Past kStage1ExactTiles
// tiles: ceil(tiles / lanes) x the mean tile of one `period` of the tile pattern.
template <typename CyclesOf>
double BusiestLane(int64_t tiles, int64_t period, const CyclesOf& cyclesOf)
{
    if (tiles <= kStage1ExactTiles) {
        double lanes[kStage1Lanes] = {};
        for (int64_t u = 0; u < tiles; ++u) {
            lanes[u % kStage1Lanes] += cyclesOf(u);
        }
        return *std::max_element(lanes, lanes + kStage1Lanes);
    }
    double sum = 0;
    for (int64_t u = 0; u < period; ++u) {
        sum += cyclesOf(u);
    }
    return sum / static_cast<double>(period) * static_cast<double>(CeilDiv(tiles, kStage1Lanes));
}

// The chunks of the stage loop as (images, pixels) kinds with their counts: image groups of chunkImgs images
// and the last group, pixel chunks of chunkOutRows x chunkOutCols and the row / column tails.
struct ChunkKind {
    int64_t imgs, pix, count;
};

std::vector<ChunkKind> ChunkKinds(const TilingShape& s, const WorkSplit& w)
{
    auto parts = [](int64_t total, int64_t len) {
        std::vector<std::pair<int64_t, int64_t>> out; // (length, count)
        if (total / len > 0) {
            out.push_back({len, total / len});
        }
        if (total % len > 0) {
            out.push_back({total % len, 1});
        }
        return out;
    };
    std::vector<ChunkKind> kinds;
    for (const auto& img : parts(s.n, w.chunkImgs)) {
        for (const auto& row : parts(s.ho, w.chunkOutRows)) {
            for (const auto& col : parts(s.wo, w.chunkOutCols)) {
                kinds.push_back({img.first, row.first * col.first, img.second * row.second * col.second});
            }
        }
    }
    return kinds;
}

// Modelled cycles of all chunks' G phases with tiles tileM x tileN (plus the tiles' GM reads at the HBM rate);
// < 0 when no Matmul plan fits.
double GPhaseCycles(
    const TilingShape& s, const std::vector<ChunkKind>& kinds, const MatmulL1Limits& limits, int64_t tileM,
    int64_t tileN)
{
    const int64_t kcg = s.kh * s.kw * (s.cin / s.groups), coutG = s.cout / s.groups;
    Stage1MatmulPlan plan;
    if (!PlanStage1Matmul(tileM, tileN, coutG, s.elt, limits, plan)) {
        return -1;
    }
    double total = 0;
    for (const ChunkKind& kind : kinds) {
        const int64_t tm = CeilDiv(kind.pix, tileM), tn = CeilDiv(kcg, tileN);
        const int64_t tailM = kind.pix - (tm - 1) * tileM, tailN = kcg - (tn - 1) * tileN;
        double cycles[2][2]; // [m tail][n tail]
        for (int a = 0; a < 2; ++a) {
            for (int b = 0; b < 2; ++b) {
                cycles[a][b] = Stage1TileCycles(a ? tailM : tileM, b ? tailN : tileN, coutG, plan, s.elt);
            }
        }
        // SetStage1Tile's order: n fastest, then m, then group and image
        const double lanes = BusiestLane(kind.imgs * s.groups * tm * tn, tm * tn, [&](int64_t u) {
            return cycles[(u / tn) % tm == tm - 1 ? 1 : 0][u % tn == tn - 1 ? 1 : 0];
        });
        // the tiles' GM reads (A rows and B columns of every tile) on the chip's shared HBM
        const double reads = static_cast<double>(kind.imgs * s.groups) * static_cast<double>(kind.pix * tn + kcg * tm) *
                             static_cast<double>(coutG * s.elt);
        total += (lanes + reads / kStage1HbmBytesPerCycle) * static_cast<double>(kind.count);
    }
    return total;
}

// The same for the grad_weight phases with tiles tileM x tileN over Ka chunks of w.wChunkK rows.
double WPhaseCycles(
    const TilingShape& s, const WorkSplit& w, const std::vector<ChunkKind>& kinds, const MatmulL1Limits& limits,
    int64_t tileM, int64_t tileN)
{
    const int64_t kcg = s.kh * s.kw * (s.cin / s.groups), coutG = s.cout / s.groups;
    Stage1MatmulPlan plan;
    if (!PlanStage1Matmul(tileM, tileN, w.wChunkK, s.elt, limits, plan)) {
        return -1;
    }
    double total = 0;
    for (const ChunkKind& kind : kinds) {
        const int64_t rows = kind.imgs * kind.pix;
        const int64_t tm = CeilDiv(coutG, tileM), tn = CeilDiv(kcg, tileN), tk = CeilDiv(rows, w.wChunkK);
        const int64_t tail[3] = {coutG - (tm - 1) * tileM, kcg - (tn - 1) * tileN, rows - (tk - 1) * w.wChunkK};
        double cycles[2][2][2]; // [m tail][n tail][k tail]
        for (int a = 0; a < 2; ++a) {
            for (int b = 0; b < 2; ++b) {
                for (int c = 0; c < 2; ++c) {
                    cycles[a][b][c] = Stage1TileCycles(
                        a ? tail[0] : tileM, b ? tail[1] : tileN, c ? tail[2] : w.wChunkK, plan, s.elt);
                }
            }
        }
        // SetStage1Tile's order: Ka chunk fastest, then n, then m, then group
        const double lanes = BusiestLane(s.groups * tm * tn * tk, tm * tn * tk, [&](int64_t u) {
            const int64_t r = u / tk;
            return cycles[(r / tn) % tm == tm - 1 ? 1 : 0][r % tn == tn - 1 ? 1 : 0][u % tk == tk - 1 ? 1 : 0];
        });
        const double reads = static_cast<double>(s.groups) * static_cast<double>(coutG * tn + kcg * tm) *
                             static_cast<double>(rows * s.elt);
        total += (lanes + reads / kStage1HbmBytesPerCycle) * static_cast<double>(kind.count);
    }
    return total;
}

// Modelled vector-core cycles of one full chunk's sampling on its busiest lane: its stage-2 units (images x
// blocks x bands) in rounds of kTargetUnits lanes, each unit's tiles (pixel tiles of a band x kernel-point
// chunks) at kStage2TileCycles.
double Stage2LaneCycles(const TilingShape& s, const WorkSplit& w)
{
    const int64_t k = s.kh * s.kw, kt = std::min(k, kStage2MaxKt);
    const int64_t units = w.chunkImgs * w.numBlocks * w.pixelBands;
    const int64_t tiles = CeilDiv(w.bandLen, w.pixelTile) * CeilDiv(k, kt);
    return static_cast<double>(CeilDiv(units, kTargetUnits) * tiles) * static_cast<double>(kStage2TileCycles);
}

} // namespace

bool PlanStage1Tiles(const TilingShape& s, const MatmulL1Limits& limits, WorkSplit& w)
{
    // Every tile shape tried (GTileLengths of both axes) gets its best Matmul plan (PlanStage1Matmul); the
    // shape with the fewest modelled cycles over all chunks wins (G: GPhaseCycles; grad_weight: WPhaseCycles
    // with the Ka chunks PlanWorkSplit chose). Ties keep the earlier shape (fewer, larger tiles).
    const std::vector<ChunkKind> kinds = ChunkKinds(s, w);
    const int64_t kcg = s.kh * s.kw * (s.cin / s.groups), coutG = s.cout / s.groups;
    double bestG = -1, bestW = -1;
    for (const int64_t tileM : GTileLengths(w.chunkPix)) {
        for (const int64_t tileN : GTileLengths(kcg)) {
            const double cycles = GPhaseCycles(s, kinds, limits, tileM, tileN);
            if (cycles >= 0 && (bestG < 0 || cycles < bestG)) {
                bestG = cycles;
                w.gTileM = tileM;
                w.gTileN = tileN;
            }
        }
    }
    // The grad_weight GEMM of a chunk runs during its sampling (phase C). Its Ka split (PlanWorkSplit: slots for
    // about kWTargetUnits units) only pays while the GEMM would outlast the sampling: every slot beyond the first
    // is written per chunk and read by stage 3. So the fewest slots (from the kWChunkK minimum up to that split)
    // whose modelled busiest cube lane for one full chunk (with the next chunk's G GEMM when it shares the phase,
    // gRegions = 2) fits within the modelled vector lane of its sampling (Stage2LaneCycles) are taken; while its units
    // (tiles x Ka chunks) leave cube lanes idle, within kWIdleLanesSamplingPct percent of it (more Ka chunks then
    // spread the GEMM over the idle lanes).
    const std::vector<ChunkKind> full = {{w.chunkImgs, w.chunkPix, 1}};
    const double sampling = Stage2LaneCycles(s, w);
    const double nextG = w.gRegions > 1 ? GPhaseCycles(s, full, limits, w.gTileM, w.gTileN) : 0.0;
    const int64_t maxSplit = w.wSplitK;
    for (int64_t split = CeilDiv(w.chunkRows, kWChunkK); split <= maxSplit; ++split) {
        WorkSplit trial = w;
        trial.wChunkK = CeilDiv(w.chunkRows, split);
        trial.wSplitK = CeilDiv(w.chunkRows, trial.wChunkK);
        if (trial.wSplitK != split && split != maxSplit) {
            continue; // the same Ka chunks as a smaller split
        }
        double best = -1;
        int64_t units = 0; // grad_weight units of the best tile shape
        for (const int64_t tileM : GTileLengths(coutG)) {
            for (const int64_t tileN : GTileLengths(kcg)) {
                const double cycles = WPhaseCycles(s, trial, full, limits, tileM, tileN);
                if (cycles >= 0 && (best < 0 || cycles < best)) {
                    best = cycles;
                    units = s.groups * CeilDiv(coutG, tileM) * CeilDiv(kcg, tileN) * trial.wSplitK;
                }
            }
        }
        const double share = units < kStage1Lanes ? static_cast<double>(kWIdleLanesSamplingPct) / 100.0 : 1.0;
        if ((best >= 0 && best + nextG <= sampling * share) || split == maxSplit) {
            w.wChunkK = trial.wChunkK;
            w.wSplitK = trial.wSplitK;
            break;
        }
    }
    for (const int64_t tileM : GTileLengths(coutG)) {
        for (const int64_t tileN : GTileLengths(kcg)) {
            const double cycles = WPhaseCycles(s, w, kinds, limits, tileM, tileN);
            if (cycles >= 0 && (bestW < 0 || cycles < bestW)) {
                bestW = cycles;
                w.wTileM = tileM;
                w.wTileN = tileN;
            }
        }
    }
    return bestG >= 0 && bestW >= 0;
}

UbBudget PlanUbBytes(const TilingShape &s, const WorkSplit &w)
{
    UbBudget ub;
    ub.stage0 = TransposeUbBytes();
    ub.stage2 = Stage2UbBytes(s.kh * s.kw, s.dg, w.pixelTile, w.blockC, s.elt) +
                static_cast<uint64_t>(w.winRows * w.winCols * WindowPixelBytes(w.blockC, s.elt));
    ub.stage3 = TransposeUbBytes() + kStage3OwnUbBytes; // the transpose runner and Stage3Finalize's own buffers
    ub.need = std::max({ub.stage0, ub.stage2, ub.stage3});
    return ub;
}

int64_t MostUnitTiles(const TilingShape& s, const WorkSplit& w)
{
    const int64_t k = s.kh * s.kw, kChunks = CeilDiv(k, std::min(k, kStage2MaxKt));
    const int64_t colChunks = CeilDiv(s.wo, w.chunkOutCols);
    const bool tileRuns = DCN_BAND_TILE_RUNS(w.winRows, w.winOutCols, s.wo, UnitsOf(w));
    int64_t most = 0;
    for (int64_t pc = 0; pc < w.pixChunks; ++pc) { // the chunks of one image group (every group alike)
        const int64_t row0 = (pc / colChunks) * w.chunkOutRows, rows = std::min(w.chunkOutRows, s.ho - row0);
        const int64_t col0 = (pc % colChunks) * w.chunkOutCols, cols = std::min(w.chunkOutCols, s.wo - col0);
        const int64_t q0 = row0 * s.wo + col0, qEnd = q0 + (rows - 1) * s.wo + cols;
        const auto start = [&](int64_t b) {
            return DCN_BAND_START(qEnd - q0, w.chunkPix, w.bandLen, w.pixelBands, w.pixelTile, tileRuns, b);
        };
        for (int64_t band = 0; band < w.pixelBands; ++band) {
            const int64_t begin = q0 + start(band), end = std::min(qEnd, q0 + start(band + 1));
            int64_t tiles = 0;
            const auto pixels = [&](int64_t from, int64_t to) {
                tiles += from < to ? CeilDiv(to - from, w.pixelTile) : 0;
            };
            if (begin >= end) {
                continue;
            }
            if (w.winRows == 0) {
                pixels(begin, end);
            }
            const int64_t ohLast = (end - 1) / s.wo;
            for (int64_t oh0 = begin / s.wo; w.winRows > 0 && oh0 <= ohLast; oh0 += w.winOutRows) {
                const int64_t ohEnd = std::min(oh0 + w.winOutRows, ohLast + 1);
                if (w.winOutCols >= s.wo) { // full-width windows: one pixel range
                    pixels(std::max(begin, oh0 * s.wo), std::min(end, ohEnd * s.wo));
                    continue;
                }
                for (int64_t ow0 = 0; ow0 < s.wo; ow0 += w.winOutCols) {
                    const int64_t owEnd = std::min(ow0 + w.winOutCols, s.wo);
                    for (int64_t oh = oh0; oh < ohEnd; ++oh) {
                        pixels(std::max(begin, oh * s.wo + ow0), std::min(end, oh * s.wo + owEnd));
                    }
                }
            }
            most = std::max(most, tiles * kChunks);
        }
    }
    return most;
}

int64_t SharedFrontsMinBlocks(const TilingShape& s, const WorkSplit& w)
{
    if (s.elt == 4 && w.gRegions == 1) {
        return kShareMinBlocksOneG;
    }
    if (s.elt == 4 && w.blockC > kShareNarrowBlockC) {
        return 2 * kShareMinBlocks;
    }
    if (s.elt < 4 && w.blockC >= kShareWideBlockC) {
        return kShareMinBlocksWide;
    }
    return kShareMinBlocks;
}

void PlanSharedFronts(const TilingShape& s, WorkSplit& w)
{
    w.recTiles = 0;
    w.recFloats = 0;
    const int64_t k = s.kh * s.kw, blocksPerDg = (s.cin / s.dg / w.segLen) * w.blocksPerSeg;
    if (blocksPerDg < SharedFrontsMinBlocks(s, w) || k > kStage2MaxKt || w.segLen % w.blockC != 0 ||
        w.blockC % 8 != 0) {
        return; // few blocks per group (the records cost more than they save), kernel-point chunks, or blocks of
                // several widths (the units' tiles and windows must be alike)
    }
    const int64_t rs = RoundUp(w.pixelTile * k, kRedAlign);
    const int64_t winBlocks = w.winRows > 0 ? w.blockC * DCN_WINDOW_ELEM_BYTES(w.blockC, s.elt) / kUbBlockBytes : 0;
    const int64_t floats = RoundUp(kStage2RecordRows * rs + 4 * rs * winBlocks, kUbBlockBytes / 4);
    // the sampling units take a record's gather table into the coordinate planes they no longer compute
    const int64_t ptp = RoundUp(w.pixelTile, kPixelAlign);
    if (4 * rs * winBlocks > DCN_STAGE2_COORD_PLANES(s.elt) * k * ptp + 2 * ptp) {
        return;
    }
    const int64_t tiles = MostUnitTiles(s, w);
    uint64_t bytes = 0;
    if (!CheckedBytes({w.chunkImgs, w.pixelBands, s.dg, tiles, floats, 4}, &bytes) ||
        bytes > static_cast<uint64_t>(kRecordFree)) {
        return;
    }
    w.recTiles = tiles;
    w.recFloats = floats;
}

WorkspaceLayout PlanWorkspace(const TilingShape &s, const WorkSplit &w)
{
    // Every size product and the running offset overflow-checked (dcn_checked_math.h): caller sizes
    // that pass the contract can still make a region exceed 2^64 bytes.
    const int64_t hw = s.h * s.w, k = s.kh * s.kw, cinG = s.cin / s.groups;
    // the input copy xt ([N,H,W,Cin] in T) lives in the grad_input output (written only by the final stage):
    // its region is empty for every dtype
    const int64_t xtImages = 0;
    WorkspaceLayout ws;
    uint64_t off = 0;
    auto region = [&off, &ws](std::initializer_list<int64_t> factors) {
        const uint64_t at = off;
        uint64_t bytes = 0;
        ws.fits = ws.fits && CheckedBytes(factors, &bytes) && CheckedAlignUp(bytes, kWsAlign, &bytes) &&
                  CheckedAdd(off, bytes, &off);
        return at;
    };
    ws.xt = region({xtImages, hw, s.cin, 4});
    ws.giacc = region({w.pixelBands, w.accImgs, hw, s.cin, 4});
    ws.g = region({w.chunkRows, k, s.cin, 4});
    ws.g2 = region({w.gRegions - 1, w.chunkRows, k, s.cin, 4});
    ws.got = region({w.chunkRows, s.cout, s.elt});
    ws.dcol = region({w.chunkRows, s.cin, k, s.elt});
    ws.gw = region({w.wSplitK, s.cout, cinG, k, 4});
    ws.part = region({w.chunkRows, w.numBlocks, 3, k, 4});
    ws.zeroed = region({w.pixelBands, w.accImgs, w.numBlocks, 4});
    ws.rec = region({w.recTiles > 0 ? 1 : 0, w.chunkImgs, w.pixelBands, s.dg, w.recTiles, w.recFloats, 4});
    ws.userBytes = off;
    return ws;
}

namespace {

// The accumulator planes' zeroed-row counts (one int32 per band x image slot x block plane: at most kMaxBands x N x
// ceil(Cin/8)) take the workspace bound's room beyond the budget up to kZeroStateFree bytes; the rest of that most
// comes out of the budget (only for batches of about 2^19 / Cin images and more).
uint64_t BudgetAfterZeroState(const TilingShape& s, uint64_t wsBudget)
{
    uint64_t most = 0;
    if (!CheckedBytes({kMaxBands, s.n, CeilDiv(s.cin, 8), 4}, &most)) {
        return 0;
    }
    const uint64_t excess = most > static_cast<uint64_t>(kZeroStateFree) ? most - kZeroStateFree : 0;
    return wsBudget > excess ? wsBudget - excess : 0;
}

} // namespace

bool MakeTilingPlan(
    const TilingShape& shape, const TilingPlatform& platform, TilingPlan& plan, std::string& error, uint64_t wsBudget)
{
    wsBudget = BudgetAfterZeroState(shape, wsBudget);
    if (!PlanCores(platform, plan.cores, error)) {
        return false;
    }
    const uint64_t ubLimit = platform.ubBytes > static_cast<uint64_t>(kUbReserved) ? platform.ubBytes - kUbReserved : 0;
    plan.split = PlanWorkSplit(shape, ubLimit, wsBudget);
    PlanSharedFronts(shape, plan.split);
    if (!PlanStage1Tiles(shape, Stage1Limits(platform), plan.split)) {
        error = "matmul: no stage-1 Matmul plan fits the cube core's L0/L1 buffers";
        return false;
    }
    const int64_t howo = shape.ho * shape.wo, kcg = shape.kh * shape.kw * (shape.cin / shape.groups);
    if (howo > INT32_MAX || kcg > INT32_MAX || plan.split.chunkRows > INT32_MAX) {
        error = "gradOutput: Ho*Wo must be <= 2147483647 for the matmul tiling; got " + std::to_string(howo);
        return false;
    }
    plan.ub = PlanUbBytes(shape, plan.split);
    plan.ub.limit = ubLimit;
    if (plan.ub.need > ubLimit) {
        error = "UB budget: need " + std::to_string(plan.ub.need) + " bytes, platform allows " + std::to_string(ubLimit);
        return false;
    }
    plan.ws = PlanWorkspace(shape, plan.split);
    if (!plan.ws.fits) {
        error = "workspace: the shape needs 2^64 bytes or more";
        return false;
    }
    return true;
}

}  // namespace dcn
