"""Shared helpers of the kernel tests (test_kernel*.py, test_determinism*.py, test_workspace*.py).

No tests here. A case is the geometry of one DeformableConv2dBackward call; `make_inputs` builds
deterministic inputs (offsetOut = the float64 reference forward, rounded to the I/O dtype),
`run_twin` calls the operator on the CPU twin through ascend_dcn.ops, `run_reference` the float64
oracle, `workspace_formula` the documented workspace size (op_host/deformable_conv2d_backward_tiling.h).
"""
import math
from dataclasses import dataclass, field

import pytest
import torch

from ascend_dcn import reference

LIB_API_WORKSPACE = 16 * 1024 * 1024  # PlatformAscendC::GetLibApiWorkSpaceSize() on NpuArch 2201
DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


@dataclass
class Case:
    name: str
    n: int
    cin: int
    cout: int
    h: int
    w: int
    kh: int = 3
    kw: int = 3
    stride: tuple = (1, 1)
    padding: tuple = (1, 1, 1, 1)  # top, bottom, left, right
    dilation: tuple = (1, 1)
    groups: int = 1
    dg: int = 1
    modulated: bool = True
    offset_kind: str = "random"  # random | integer | large | converge
    extra: dict = field(default_factory=dict)

    @property
    def attrs(self):
        return dict(kernel_size=[self.kh, self.kw], stride=[1, 1, *self.stride], padding=list(self.padding),
                    dilation=[1, 1, *self.dilation], groups=self.groups, deformable_groups=self.dg,
                    modulated=self.modulated)

    @property
    def out_hw(self):
        a = self.attrs
        return reference.out_hw(self.h, self.w, a["kernel_size"], a["stride"], a["padding"], a["dilation"])


def require_twin():
    """Skip (with the reason) when the twin operator libraries cannot be loaded."""
    try:
        from ascend_dcn import _backend
        _backend.get_twin_opapi()
    except Exception as e:  # noqa: BLE001 - any failure means the backend is not built
        pytest.skip(f"twin operator libraries unavailable ({type(e).__name__}: {e}); build with "
                    "`pip install --no-build-isolation .` or set ASCEND_DCN_TWIN_LIB_DIR to a build dir")


def set_vector_cores(count):
    from ascend_dcn import _backend
    _backend.twin_set_platform("Ascend910B2", int(count))


def make_inputs(case, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    ho, wo = case.out_hw
    k = case.kh * case.kw
    x = torch.randn(case.n, case.cin, case.h, case.w, generator=g, dtype=torch.float64)
    weight = torch.randn(case.cout, case.cin // case.groups, case.kh, case.kw, generator=g, dtype=torch.float64)
    weight /= math.sqrt(weight[0].numel())
    blocks = 3 if case.modulated else 2
    off = torch.randn(case.n, blocks * case.dg * k, ho, wo, generator=g, dtype=torch.float64) * 1.5
    if case.offset_kind == "integer":  # exact integer coordinates, e.g. y == -1 with padding 1
        off[:, :2 * case.dg * k] = off[:, :2 * case.dg * k].round()
    elif case.offset_kind == "large":  # most samples fall outside the image
        off[:, :2 * case.dg * k] *= 40.0
    elif case.offset_kind == "converge":  # every kernel point of a pixel samples near one location (piled-up adds)
        kk = torch.arange(k, dtype=torch.float64)
        cy, cx = (case.kh - 1) / 2, (case.kw - 1) / 2
        dil_h, dil_w = case.dilation
        dx = -(kk % case.kw - cx) * dil_w + 0.3
        dy = -(torch.div(kk, case.kw, rounding_mode="floor") - cy) * dil_h + 0.6
        off[:, :case.dg * k] = (dx.repeat(case.dg).view(1, -1, 1, 1) + 0.05 * off[:, :case.dg * k])
        off[:, case.dg * k:2 * case.dg * k] = (dy.repeat(case.dg).view(1, -1, 1, 1) +
                                              0.05 * off[:, case.dg * k:2 * case.dg * k])
    if case.modulated:
        off[:, 2 * case.dg * k:] = torch.rand(case.n, case.dg * k, ho, wo, generator=g, dtype=torch.float64)
    go = torch.randn(case.n, case.cout, ho, wo, generator=g, dtype=torch.float64)
    t = DTYPES[dtype]
    x, weight, off, go = (v.to(t) for v in (x, weight, off, go))
    a = case.attrs
    d = reference.deform_sample(x, off, a["kernel_size"], a["stride"], a["padding"], a["dilation"],
                                case.dg, case.modulated).to(t)
    return dict(input=x, grad_output=go, offset_out=d, weight=weight, offset=off)


def run_twin(case, inputs):
    from ascend_dcn import ops
    a = case.attrs
    return ops.deformable_conv2d_backward(inputs["input"], inputs["grad_output"], inputs["offset_out"],
                                          inputs["weight"], inputs["offset"], a["kernel_size"], a["stride"],
                                          a["padding"], a["dilation"], a["groups"], a["deformable_groups"],
                                          a["modulated"])


def run_reference(case, inputs):
    a = case.attrs
    return reference.deformable_conv2d_backward(inputs["input"], inputs["grad_output"], inputs["offset_out"],
                                                inputs["weight"], inputs["offset"], a["kernel_size"], a["stride"],
                                                a["padding"], a["dilation"], a["groups"], a["deformable_groups"],
                                                a["modulated"])


COUNTERS = ("gmToUbBytes", "ubToGmBytes", "gmAtomicBytes", "vecElemOps", "vecInstrs", "cubeMacs", "scalarUbOps",
            "ubPeakBytes")


def last_launch_counters():
    """Cost counters of the last twin kernel launch (twinLastLaunch* of libnnopbase), or {} if unavailable."""
    import ctypes
    from ascend_dcn import _backend
    try:
        lib = ctypes.CDLL(_backend.get_twin_opapi().runtime_paths[0])
        lib.twinLastLaunchWallSeconds.restype = ctypes.c_double
        out = {"cores": int(lib.twinLastLaunchCores()), "wallSeconds": float(lib.twinLastLaunchWallSeconds())}
        for name in COUNTERS:
            v = ctypes.c_uint64()
            if lib.twinLastLaunchCounter(name.encode(), ctypes.byref(v)) == 0:
                out[name] = int(v.value)
        return out
    except (OSError, AttributeError, IndexError):
        return {}


def _gcd(a, b):
    return math.gcd(a, b)


UB_LIMIT = 196608 - 256 - 8 * 1024  # A2/A3 UB as GetCoreMemSize(UB) reports it (256 B KFC reserve) minus the toolchain reservation
WINDOW_MARGIN, WINDOW_MIN_OUT, WINDOW_MIN_BLOCK_C, WINDOW_TILE_WEIGHT = 4, 20, 16, 64
WINDOW_BORDER_WEIGHT = 4  # dcn_tiling::kWindowBorderWeight
GATHER_MAX_LP = 32  # dcn_tiling::kGatherMaxLp: gathered blocks' windows may hold a zero ring around the image
STAGE2_ROWS_NARROW8 = 144  # dcn_tiling::kStage2RowsNarrow8: the most tile rows of an 8-channel block


def _cdiv(a, b):
    return -(-a // b)


OFFSET_SPAN_MAX_BYTES = 640  # dcn_tiling::kOffsetSpanMaxBytes


def _offset_rows(k, dg, elt):
    """Rows of one stage-2 offsets buffer: 3 x KT, or with dg > 1 the 2*dg*K + K channels a
    group's offsets span when their bytes (elt per element) fit OFFSET_SPAN_MAX_BYTES (one DMA per tile)."""
    kt, span = min(k, 64), 2 * dg * k + k
    return max(span, 3 * kt) if dg > 1 and k <= 64 and span * elt <= OFFSET_SPAN_MAX_BYTES else 3 * kt


def _window_elt(block_c, elt):
    """Bytes per element of the stage-2 input window: 16-bit when LP is whole 16-bit blocks and gathered."""
    lp = _cdiv(block_c, 8) * 8
    return elt if elt < 4 and lp % 16 == 0 and lp <= GATHER_MAX_LP else 4


def _stage2_ub(k, pixel_tile, block_c, elt, dg=1):
    """Stage-2 tile buffers (bytes) as allocated by Stage2Sample::Run (independent re-derivation)."""
    kt = min(k, 64)
    ptp = _cdiv(pixel_tile, 16) * 16
    lp = _cdiv(block_c, 8) * 8
    plane = kt * ptp
    rows = pixel_tile * kt
    hpr = lp // 64 if lp > 64 else 1
    rs = _cdiv(rows, 8) * 8
    staging = 4 * rs * _cdiv(block_c, 16) * 16 * elt if elt < 4 else 0  # 16-bit input rows cast in UB
    win_elt = _window_elt(block_c, elt)
    # two tiles in flight (tile pipeline): offsets, G tiles, corner planes (G tiles and corner planes: whole 8-row
    # repeats), weight rows and order tables x 2
    return (2 * rs * lp * 4 + 2 * _offset_rows(k, dg, elt) * ptp * elt + 2 * 4 * rs * lp * 4 + ((13 + (1 if elt < 4 else 0)) * plane + 2 * ptp) * 4 + 4 * rs * 4
            + (2 if kt == k else 1) * 3 * plane * 4 + 4 * rs * 4 + 2 * 11 * rs * 4 + 4 * max(rows * hpr, rs) * 8 * 4 + rows * hpr * 8 * 4
            + 2 * (rs * 4 + plane * 4) + staging
            + lp * win_elt + 2048 + 2 * 32  # window zero area, the planes' zero area (kPlaneZeroBytes), count words
            + (4 * rs * (lp * win_elt // 32) * 4 if lp <= 32 else 0))  # gather indices


WS_BUDGET = 60 << 20  # dcn_tiling::kWsBudget: extra grad_input band planes + the per-chunk regions


def _budget_after_zero_state(case, budget):
    """MakeTilingPlan's budget: the planes' zeroed-row counts (at most 8 bands x N x ceil(Cin/8) int32) beyond
    kZeroStateFree (2 MiB) bytes come out of it."""
    most = 8 * case.n * _cdiv(case.cin, 8) * 4
    return max(0, budget - max(0, most - (2 << 20)))


def stage2_split(case, dtype, budget=WS_BUDGET):
    """Stage-2 block width, pixel tile and UB window of the tiling (deformable_conv2d_backward_tiling.h)."""
    split = _window_split(case, dtype)
    # then halved (not below 8) while a chunk's units (images x blocks x bands) fill at most half of the 48
    # lanes, the narrower block's window is as large and it has more units
    units = _units(_chunks_for(case, dtype, budget, split))
    while units * 2 <= 48 and split["block_c"] > 8 and split["block_c"] % 16 == 0 and split["window"][0] > 0:
        narrower = _split_for(case, dtype, split["block_c"] // 2)
        w0, w1 = split["window"], narrower["window"]
        if w1[0] * w1[1] < w0[0] * w0[1]:
            break
        n_units = _units(_chunks_for(case, dtype, budget, narrower))
        if n_units <= units:
            break
        split, units = narrower, n_units
    # then the window fitted to the output rows a unit spans (a band may start inside a row; a row piece: 1)
    cp = _chunks_for(case, dtype, budget, split)
    ho, wo = case.out_hw
    if cp["out_cols"] < wo:
        span = 1
    elif cp["bands"] > 1:
        span = min(cp["out_rows"], _cdiv(cp["band_len"], wo) + 1)
    else:
        span = cp["out_rows"]
    if split["window"][0] > 0:  # the final, tile-aware window within those rows
        split = _window_split(case, dtype, split["block_c"], span, tile_aware=True)
    return split


def _units(cp):
    return cp["imgs"] * cp["num_blocks"] * cp["bands"]


def _split_for(case, dtype, block_c):
    """The split for a given block width: its pixel tile and UB window."""
    return _window_split(case, dtype, block_c)


def _border_samples(case):
    """Sample points of one image on its last row or column at zero offsets (op_host BorderSamples)."""
    ho, wo = case.out_hw
    a = case.attrs
    sh, sw, dh, dw = a["stride"][2], a["stride"][3], a["dilation"][2], a["dilation"][3]
    pad_top, pad_left = case.padding[0], case.padding[2]
    on_row = sum(1 for oh in range(ho) for kh in range(case.kh) if oh * sh - pad_top + kh * dh == case.h - 1)
    on_col = sum(1 for ow in range(wo) for kw in range(case.kw) if ow * sw - pad_left + kw * dw == case.w - 1)
    return on_row * wo * case.kw + on_col * ho * case.kh - on_row * on_col


def _window_split(case, dtype, force_block_c=None, max_rows=None, tile_aware=False):
    """Block width (halved for the UB and for a useful window), pixel tile and UB window."""
    elt = 4 if dtype == "float32" else 2
    ho, wo = case.out_hw
    howo, k = ho * wo, case.kh * case.kw
    sh, sw = case.attrs["stride"][2], case.attrs["stride"][3]
    dh, dw = case.attrs["dilation"][2], case.attrs["dilation"][3]
    seg = _gcd(case.cin // case.groups, case.cin // case.dg)
    wide = seg % 128 == 0 and k <= 32

    def tile(bc):  # PixelTile: fewer pixels for the narrowest block while the stage-2 buffers exceed the UB
        pt = (32 if bc == 128 else 128 if bc <= 16 else 64) // min(k, 64)
        if bc <= 8:  # 8-channel blocks: the tiles fill their padded pixel lanes
            pt = min(_cdiv(pt, 16) * 16, STAGE2_ROWS_NARROW8 // min(k, 64))
        pt = max(1, min(howo, pt))
        while bc <= 8 and pt > 1 and _stage2_ub(k, pt, bc, elt, case.dg) > UB_LIMIT:
            pt -= 1
        return pt

    def span_r(r):
        return (r - 1) * sh + (case.kh - 1) * dh + 1 + 2 * WINDOW_MARGIN

    def span_c(c):
        return (c - 1) * sw + (case.kw - 1) * dw + 1 + 2 * WINDOW_MARGIN

    def window(bc):
        base = _stage2_ub(k, tile(bc), bc, elt, case.dg)
        if base >= UB_LIMIT:
            return (0, 0, 0, 0)
        fit = (UB_LIMIT - base) // (_cdiv(bc, 8) * 8 * (4 + _window_elt(bc, elt)))  # xwin + gwin (fp32)
        lp = _cdiv(bc, 8) * 8
        nb = lp // 8
        # lowest (tiles x weight + halo pixels [+ the strip's border samples without a ring]) per output pixel,
        # then the larger window; per row count the widest window that fits and every whole multiple of the
        # pixel tile below it
        pt = tile(bc)
        best, best_num, best_den = (0, 0, 0, 0), 0, 1
        ring_nb = nb if lp <= GATHER_MAX_LP else 0

        def ring_fits(wr, cand, c):  # PlanWindow's RingFits
            rows, cols = min(span_r(wr), case.h + 2), min(span_c(cand), case.w + 2)
            return ring_nb > 0 and rows * cols <= fit and cols <= 4095 and (cols * ring_nb <= 255) == (c * ring_nb <= 255)

        border = _border_samples(case) if tile_aware and ring_nb else 0
        for wr in range(1, min(ho, max_rows or ho) + 1):
            r = min(span_r(wr), case.h)
            max_c = min(fit // r, 4095)
            if min(span_c(wo), case.w) <= max_c:
                wc = wo
            elif span_c(1) <= max_c:
                wc = (max_c - span_c(1)) // sw + 1
            else:
                break
            for cand in [wc] + ([m * pt for m in range((wc - 1) // pt, 0, -1)] if tile_aware else []):
                c = min(span_c(cand), case.w)
                tiles, halo = _cdiv(wr * wo, pt), r * c  # a strip of wr output rows: wo // cand windows + the rest
                if cand < wo:
                    whole, rest = divmod(wo, cand)
                    tiles = wr * (whole * _cdiv(cand, pt) + _cdiv(rest, pt))
                    halo = r * (whole * c + (min(span_c(rest), case.w) if rest else 0))
                num, den = tiles * WINDOW_TILE_WEIGHT + halo, wr * wo
                if border and not ring_fits(wr, cand, c):
                    num += WINDOW_BORDER_WEIGHT * _cdiv(border * wr, ho)
                if not tile_aware:  # halo pixels per output pixel of this window
                    num, den = r * c, wr * cand
                if best[0] == 0 or num * best_den < best_num * den or (
                        num * best_den == best_num * den and wr * cand > best[0] * best[1]):
                    best, best_num, best_den = (wr, cand, r, c), num, den
        if best[0] and ring_fits(best[0], best[1], best[3]):  # a zero ring around the image (PlanWindow)
            best = (best[0], best[1], min(span_r(best[0]), case.h + 2), min(span_c(best[1]), case.w + 2))
        return best

    if force_block_c is not None:
        return {"seg": seg, "block_c": force_block_c, "pixel_tile": tile(force_block_c), "window": window(force_block_c)}
    block_c = 128 if wide else min(seg, 64)
    while _stage2_ub(k, tile(block_c), block_c, elt, case.dg) > UB_LIMIT and block_c > 8:
        block_c = _cdiv(_cdiv(block_c, 2), 8) * 8  # halved, whole 32-B fp32 rows
    win = window(block_c)
    cur_c, cur = block_c, win
    while cur[0] * cur[1] < min(WINDOW_MIN_OUT, howo) and cur_c > WINDOW_MIN_BLOCK_C and cur_c % 16 == 0:
        narrower = window(cur_c // 2)
        if narrower[0] * narrower[1] <= cur[0] * cur[1] and cur[0] * cur[1] > 0:
            break
        cur_c, cur = cur_c // 2, narrower  # from a block without a window, also past narrower ones without
        if cur[0] * cur[1] > win[0] * win[1]:
            block_c, win = cur_c, cur
    return {"seg": seg, "block_c": block_c, "pixel_tile": tile(block_c), "window": win}




def chunk_plan(case, dtype, budget=WS_BUDGET):
    """Pixel bands, pixel chunks and grad_weight Ka chunks of the tiling (PlanWorkSplit / PlanChunks,
    deformable_conv2d_backward_tiling.h) for a workspace budget, derived independently of the C++ plan."""
    budget = _budget_after_zero_state(case, budget)
    return _chunks_for(case, dtype, budget, stage2_split(case, dtype, budget))


def _chunks_for(case, dtype, budget, split):
    """chunk_plan for a given stage-2 split."""
    elt = 4 if dtype == "float32" else 2
    ho, wo = case.out_hw
    howo, k = ho * wo, case.kh * case.kw
    seg, block_c = split["seg"], split["block_c"]
    num_blocks = (case.cin // seg) * _cdiv(seg, block_c)
    plane = case.n * case.h * case.w * case.cin * 4

    def chunks(chunk_budget, g_regions, n=case.n):
        row_bytes = k * case.cin * (4 * g_regions + elt) + case.cout * elt + num_blocks * 3 * k * 4
        rows_budget = max(1, (chunk_budget - chunk_budget // 4) // row_bytes)
        pix = howo
        if n * howo > rows_budget:
            pix = min(howo, max(rows_budget // n, min(rows_budget, 256)))
        if pix >= howo:
            out_rows, out_cols = ho, wo
        elif pix >= wo:
            out_rows, out_cols = pix // wo, wo
        else:
            out_rows, out_cols = 1, pix
        chunk_pix = out_rows * out_cols
        imgs = min(n, max(1, rows_budget // chunk_pix))
        return out_rows, out_cols, chunk_pix, imgs

    def lane_rounds(imgs, bands):
        # op_host LaneRounds: rounds of 48 stage-2 lanes a pixel chunk of every image group takes
        full, rest = divmod(case.n, imgs)
        return full * _cdiv(imgs * num_blocks * bands, 48) + (_cdiv(rest * num_blocks * bands, 48) if rest else 0)

    def balanced_rows(out_rows, out_cols):
        # op_host BalancedChunkRows: a whole-row chunk's rows once balanced, ceil(Ho / chunks) for as many chunks
        return _cdiv(ho, _cdiv(ho, out_rows)) if out_cols == wo and out_rows < ho else out_rows

    def sampling_slots(imgs, bands, band_len, pix_chunks):
        # op_host SamplingSlots: those rounds per pixel chunk, each a band long
        return lane_rounds(imgs, bands) * pix_chunks * band_len

    def local_bands(g_regions, one_band_chunks):
        # op_host PlanLocalBands: image-local planes (one image per chunk), the first N planes in the batch
        # plane's room, the rest out of the budget; the band count with the fewest sampling slots
        img_plane = case.h * case.w * case.cin * 4
        best, best_rank = None, 0
        for b in range(1, min(8, howo) + 1):
            extra = max(0, b - case.n) * img_plane
            if extra > budget - budget // 5:
                break
            out_rows, out_cols, chunk_pix, _ = chunks(budget - extra, g_regions, n=1)
            pix_chunks = _cdiv(ho, out_rows) * _cdiv(wo, out_cols)
            if b > chunk_pix or (out_cols == wo and chunk_pix < b * wo) or \
                    case.n * pix_chunks * 100 > one_band_chunks * 250:
                continue
            band_len = _cdiv(chunk_pix, b)
            bands = _cdiv(chunk_pix, band_len)
            # ranked with the bands of the balanced rows whole-row chunks get (op_host BalancedSlots); the plan
            # carries its sampling slots (SamplingSlots) for the comparisons that take it
            rows = balanced_rows(out_rows, out_cols)
            rank = sampling_slots(1, bands, _cdiv(rows * out_cols, bands) if rows < out_rows else band_len,
                                  pix_chunks)
            if best is None or rank < best_rank:
                best_rank = rank
                best = (sampling_slots(1, bands, band_len, pix_chunks), budget - extra,
                        (out_rows, out_cols, chunk_pix, 1, bands, band_len, case.n * pix_chunks, g_regions, 1))
        return best

    def bands_and_chunks(g_regions):
        # bands: the count that keeps the most of 48 stage-2 lanes busy per round; more bands only for a
        # share more than 15 % higher (5 % when it needs at most 1.25x the chunks of the best count so far),
        # with a pixel per band, >= 1 output row per band (whole-row chunks)
        # and <= 2.5x the one-band chunks; each extra plane comes out of the budget (at least budget // 5
        # stays)
        bands, chunk_budget, best, one_band_chunks = 1, budget, None, 0
        for b in range(1, min(8, howo) + 1):
            extra = (b - 1) * plane
            if extra > budget - budget // 5:
                break
            out_rows, out_cols, chunk_pix, imgs = chunks(budget - extra, g_regions)
            n_chunks = _cdiv(case.n, imgs) * _cdiv(ho, out_rows) * _cdiv(wo, out_cols)
            if b == 1:
                one_band_chunks = n_chunks
            elif b > chunk_pix or (out_cols == wo and chunk_pix < b * wo) or n_chunks * 100 > one_band_chunks * 250:
                continue
            units = imgs * num_blocks * b
            slots = _cdiv(units, 48) * 48
            gain = 105 if best is not None and n_chunks * 100 <= best[2] * 125 else 115
            if best is None or units * best[1] * 100 > best[0] * slots * gain:
                bands, chunk_budget, best = b, budget - extra, (units, slots, n_chunks)
        out_rows, out_cols, chunk_pix, imgs = chunks(chunk_budget, g_regions)
        band_len = _cdiv(chunk_pix, bands)
        bands = _cdiv(chunk_pix, band_len)

        # lane balance: fewer images per chunk when the run then needs fewer rounds of 48 stage-2 lanes
        imgs = min(range(1, imgs + 1), key=lambda i: (lane_rounds(i, bands), -i))
        pix_chunks = _cdiv(ho, out_rows) * _cdiv(wo, out_cols)
        num_chunks = _cdiv(case.n, imgs) * pix_chunks
        # image-local planes when they save > 15 % of the sampling slots and a chunk has fewer units than lanes or
        # they need at most 1.25x the chunks
        local = local_bands(g_regions, one_band_chunks) if case.n > 1 else None
        if local and (imgs * num_blocks * bands < 48 or local[2][6] * 100 <= num_chunks * 125) and \
                local[0] * 115 < sampling_slots(imgs, bands, band_len, pix_chunks) * 100:
            return local[1], local[2], local
        return chunk_budget, (out_rows, out_cols, chunk_pix, imgs, bands, band_len, num_chunks, g_regions, case.n), local

    def geo_slots(geo):
        out_rows, out_cols, _, imgs, bands, band_len = geo[:6]
        return sampling_slots(imgs, bands, band_len, _cdiv(ho, out_rows) * _cdiv(wo, out_cols))

    def cube_fits(geo):
        # op_host CubeFitsBesideSampling: a full chunk's two GEMMs (ideal fp32 cube cycles over 24 cube cores) take
        # at most half its modelled sampling (Stage2LaneCycles: rounds of 48 lanes x tiles per unit x 3500 cycles)
        _, _, chunk_pix, imgs, bands, band_len = geo[:6]
        cube = 2 * imgs * chunk_pix * k * (case.cin // case.groups) * case.cout / (24 * 1024)
        tiles = _cdiv(band_len, split["pixel_tile"]) * _cdiv(k, min(k, 64))
        return cube * 100 <= _cdiv(imgs * num_blocks * bands, 48) * tiles * 3500 * 50

    # one G region; with several chunks, two (chunk c+1's G GEMM during chunk c's sampling) when they need
    # no more chunks, or at most 2x the chunks (kGAheadMaxChunkPct) with the same bands and accumulator planes for
    # 16-bit I/O, and for fp32 where the chunk's GEMMs fit beside its sampling
    chunk_budget, geo, local_one = bands_and_chunks(1)
    local_two = None
    if geo[6] > 1:
        two_budget, two, local_two = bands_and_chunks(2)
        same_structure = two[8] == geo[8] and two[4] == geo[4]
        if two[6] <= geo[6] or (same_structure and two[6] * 100 <= 200 * geo[6] and (elt == 2 or cube_fits(two))):
            chunk_budget, geo = two_budget, two
        if local_two and not (local_two[2][6] > 1 and (elt == 2 or cube_fits(local_two[2]))):
            local_two = None
    # an image-local plan with no more chunks and fewer sampling slots, where the chosen plan takes several rounds of
    # 48 stage-2 lanes and its last is partly idle (op_host PlanUnits)
    for cand in (local_one, local_two):
        units = geo[3] * num_blocks * geo[4]
        if cand and units > 48 and units % 48 != 0 and cand[2][6] <= geo[6] and cand[0] < geo_slots(geo):
            chunk_budget, geo = cand[1], cand[2]
    budget = chunk_budget  # what the chunk regions get
    out_rows, out_cols, chunk_pix, imgs, bands, band_len, num_chunks, g_regions, acc_imgs = geo
    if balanced_rows(out_rows, out_cols) < out_rows:  # whole-row chunks of balanced rows (op_host PlanUnits)
        out_rows = balanced_rows(out_rows, out_cols)
        chunk_pix = out_rows * wo
        band_len = _cdiv(chunk_pix, bands)
        bands = _cdiv(chunk_pix, band_len)
    chunk_rows = imgs * chunk_pix
    slot_bytes = case.cout * (case.cin // case.groups) * k * 4
    # about 48 grad_weight units (256 x 256 tiles x Ka chunks of >= 128 rows), at least 2048-row Ka chunks'
    # count, at most the slots a quarter of the chunk budget holds
    cout_g, kcg = case.cout // case.groups, k * (case.cin // case.groups)
    w_tiles = case.groups * _cdiv(cout_g, min(cout_g, 256)) * _cdiv(kcg, min(kcg, 256))
    for_units = min(_cdiv(48, w_tiles), max(1, chunk_rows // 128))
    w_split = min(max(_cdiv(chunk_rows, 2048), for_units), 1 + (budget // 4) // slot_bytes)
    w_chunk = _cdiv(chunk_rows, w_split)
    w_split = _cdiv(chunk_rows, w_chunk)
    # ... which the tiling then lowers, from ceil(rows / 2048) slots up, to the fewest whose modelled grad_weight
    # GEMM hides under the chunk's sampling (PlanStage1Tiles: the cube model of the Matmul plans, not mirrored
    # here): the slot counts it can take
    w_splits = sorted({_cdiv(chunk_rows, _cdiv(chunk_rows, s))
                       for s in range(min(_cdiv(chunk_rows, 2048), w_split), w_split + 1)})
    return {"num_blocks": num_blocks, "imgs": imgs, "out_rows": out_rows, "out_cols": out_cols,
            "chunk_pix": chunk_pix, "chunk_rows": chunk_rows, "num_chunks": num_chunks, "bands": bands,
            "band_len": band_len, "w_split": w_split, "w_chunk": w_chunk, "w_splits": w_splits,
            "g_regions": g_regions, "acc_imgs": acc_imgs}


SHARE_MIN_BLOCKS = 16  # dcn_tiling::kShareMinBlocks (fp32: twice as many)
SHARE_MIN_BLOCKS_WIDE = 8  # dcn_tiling::kShareMinBlocksWide (16-bit I/O, blocks of >= SHARE_WIDE_BLOCK_C channels)
SHARE_WIDE_BLOCK_C = 32  # dcn_tiling::kShareWideBlockC
SHARE_NARROW_BLOCK_C = 16  # dcn_tiling::kShareNarrowBlockC (fp32: SHARE_MIN_BLOCKS for blocks of at most this)
SHARE_MIN_BLOCKS_ONE_G = 4  # dcn_tiling::kShareMinBlocksOneG (fp32 with one G region)
RECORD_FREE = (2 << 20) - (64 << 10)  # dcn_tiling::kRecordFree
RECORD_ROWS = 11  # dcn_tiling::kStage2RecordRows
COORD_PLANES = 13  # dcn_tiling::kStage2CoordPlanes (16-bit I/O: one more)


def _most_unit_tiles(case, cp, pt, win_out_rows, win_out_cols, win_rows):
    """The most tiles a stage-2 unit pushes in any pixel chunk (op_host MostUnitTiles: the kernel's loops over the
    chunk's band, its UB windows and their output rows; where tiles run across rows, a full-width window or none,
    band b starts at tile b*T//bands of the chunk's T tiles, DCN_BAND_START)."""
    ho, wo = case.out_hw
    k = case.kh * case.kw
    col_chunks = _cdiv(wo, cp["out_cols"])
    pix_chunks = _cdiv(ho, cp["out_rows"]) * col_chunks
    most = 0
    for pc in range(pix_chunks):
        row0, col0 = (pc // col_chunks) * cp["out_rows"], (pc % col_chunks) * cp["out_cols"]
        rows, cols = min(cp["out_rows"], ho - row0), min(cp["out_cols"], wo - col0)
        q0 = row0 * wo + col0
        q_end = q0 + (rows - 1) * wo + cols
        tiles = _cdiv(q_end - q0, pt)
        for band in range(cp["bands"]):
            begin = q0 + band * cp["band_len"]
            end = min(q_end, begin + cp["band_len"])
            if (win_rows == 0 or win_out_cols >= wo) and cp["imgs"] * cp["num_blocks"] * cp["bands"] > 48:
                begin = q0 + pt * (band * tiles // cp["bands"])
                end = min(q_end, q0 + pt * ((band + 1) * tiles // cp["bands"]))
            if begin >= end:
                continue
            spans = []
            if win_rows == 0:
                spans.append((begin, end))
            else:
                oh_last = (end - 1) // wo
                for oh0 in range(begin // wo, oh_last + 1, win_out_rows):
                    oh_end = min(oh0 + win_out_rows, oh_last + 1)
                    if win_out_cols >= wo:
                        spans.append((max(begin, oh0 * wo), min(end, oh_end * wo)))
                        continue
                    for ow0 in range(0, wo, win_out_cols):
                        ow_end = min(ow0 + win_out_cols, wo)
                        spans += [(max(begin, oh * wo + ow0), min(end, oh * wo + ow_end)) for oh in range(oh0, oh_end)]
            most = max(most, sum(_cdiv(b - a, pt) for a, b in spans if a < b) * _cdiv(k, min(k, 64)))
    return most


def shared_fronts(case, dtype, budget=WS_BUDGET):
    """(records per (image, band, deformable group), floats per record) of the shared stage-2 fronts (op_host
    PlanSharedFronts), (0, 0) when the units compute their own."""
    elt = 4 if dtype == "float32" else 2
    k = case.kh * case.kw
    ho, wo = case.out_hw
    split = stage2_split(case, dtype, _budget_after_zero_state(case, budget))
    cp = chunk_plan(case, dtype, budget)
    seg, block_c, pt = split["seg"], split["block_c"], split["pixel_tile"]
    win_out_rows, win_out_cols, win_rows, _ = split["window"]
    blocks_per_dg = (case.cin // case.dg // seg) * _cdiv(seg, block_c)
    min_blocks = SHARE_MIN_BLOCKS
    if elt == 4 and cp["g_regions"] == 1:
        min_blocks = SHARE_MIN_BLOCKS_ONE_G
    elif elt == 4 and block_c > SHARE_NARROW_BLOCK_C:
        min_blocks = 2 * SHARE_MIN_BLOCKS
    elif elt < 4 and block_c >= SHARE_WIDE_BLOCK_C:
        min_blocks = SHARE_MIN_BLOCKS_WIDE
    if (blocks_per_dg < min_blocks or k > 64 or seg % block_c or block_c % 8):
        return 0, 0
    rs = _cdiv(pt * k, 8) * 8
    win_blocks = block_c * _window_elt(block_c, elt) // 32 if win_rows > 0 else 0
    floats = _cdiv(RECORD_ROWS * rs + 4 * rs * win_blocks, 8) * 8
    ptp = _cdiv(pt, 16) * 16
    if 4 * rs * win_blocks > (COORD_PLANES + (1 if elt < 4 else 0)) * k * ptp + 2 * ptp:
        return 0, 0
    tiles = _most_unit_tiles(case, cp, pt, win_out_rows, win_out_cols, win_rows)
    if cp["imgs"] * cp["bands"] * case.dg * tiles * floats * 4 > RECORD_FREE:
        return 0, 0
    return tiles, floats


def workspace_regions(case, dtype, budget=WS_BUDGET, w_split=None):
    """The user-workspace regions in layout order (bytes before the 512-B alignment):
    xt, giacc, g, g2, got, dcol, gw, part, zeroed, rec (op_host/deformable_conv2d_backward_tiling.h), with w_split grad_weight
    Ka slots (default: the most the tiling can take, chunk_plan's w_split)."""
    elt = 4 if dtype == "float32" else 2
    k = case.kh * case.kw
    cp = dict(chunk_plan(case, dtype, budget))
    if w_split is not None:
        assert w_split in cp["w_splits"], (w_split, cp["w_splits"])
        cp["w_split"] = w_split
    rows = cp["chunk_rows"]
    hw = case.h * case.w
    rec_tiles, rec_floats = shared_fronts(case, dtype, budget)
    xt_images = 0  # the input copy (in the I/O dtype) lives in grad_input
    return [xt_images * hw * case.cin * 4, cp["bands"] * cp["acc_imgs"] * hw * case.cin * 4, rows * k * case.cin * 4,
            (cp["g_regions"] - 1) * rows * k * case.cin * 4, rows * case.cout * elt, rows * case.cin * k * elt,
            cp["w_split"] * case.cout * (case.cin // case.groups) * k * 4, rows * cp["num_blocks"] * 3 * k * 4,
            cp["bands"] * cp["acc_imgs"] * cp["num_blocks"] * 4,  # zeroed: one int32 row count per plane
            cp["imgs"] * cp["bands"] * case.dg * rec_tiles * rec_floats * 4]  # rec: shared stage-2 fronts


def workspace_formula(case, dtype, budget=WS_BUDGET, w_split=None):
    """Workspace bytes = GetLibApiWorkSpaceSize() + sum of the 512-B aligned user regions
    (op_host/deformable_conv2d_backward_tiling.h); by default with the most Ka slots (an upper bound)."""
    return LIB_API_WORKSPACE + sum(-(-r // 512) * 512 for r in workspace_regions(case, dtype, budget, w_split))


def workspace_slots(case, dtype, size, budget=WS_BUDGET):
    """The grad_weight Ka slot counts the tiling can take whose workspace formula gives `size` (every other region
    exact; several only when slots are smaller than the 512-B region alignment); empty when none does."""
    return [w for w in chunk_plan(case, dtype, budget)["w_splits"] if workspace_formula(case, dtype, budget, w) == size]


def workspace_bound(case, dtype):
    """Issue 11's bound: 16 MiB (Matmul library) + 4 B x (|grad_input| + |grad_weight|) + 64 MiB."""
    gi = case.n * case.cin * case.h * case.w
    gw = case.cout * (case.cin // case.groups) * case.kh * case.kw
    return LIB_API_WORKSPACE + 4 * (gi + gw) + (64 << 20)
