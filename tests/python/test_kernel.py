"""The kernel (op_kernel/ + tiling) on the CPU twin against the float64 reference.

Shape matrix: the benchmark suite (ascend_dcn.suite) with batch and spatial sizes scaled down
(channel counts, kernel, groups and deformable groups kept), the DOC-B example of op-semantics §6.5,
and edge cases (channel tails, Cout = 1, groups and dg with segments bounded by both, 1x1 and
non-square kernels, stride 2, asymmetric padding, dilation 2, large offsets, integer offsets that hit
y == -1, batch 3). Precision: ascend_dcn.precision (fp32 1e-4 / fp16, bf16 1e-3, double criterion).
"""
import pytest
import torch

from ascend_dcn import suite as bench_suite
from ascend_dcn.precision import check_precision
from test_kernel_common import (Case, last_launch_counters, make_inputs, require_twin, run_reference, run_twin,
                                set_vector_cores, shared_fronts)

# The benchmark suite (ascend_dcn.suite, the one table of it), scaled down for the CPU twin: channel
# counts, stride, groups and deformable groups come from the table (kernel 3x3, padding 1, dilation 1,
# modulated, as in every row); the batch becomes 1 (rows with N <= 2) or 2 (larger batches) and the
# image the small size below (name suffix, H, W).
SCALED = {
    "r1": ("c3_entry_s2", 8, 10), "r2": ("c3_body", 6, 7), "r3": ("c4_body", 5, 6), "r4": ("c5_body", 4, 5),
    "r5": ("c4_dg4", 5, 6), "r6": ("x101_g32", 4, 5), "r7": ("centernet1", 4, 4), "r8": ("centernet3", 6, 6),
    "r9": ("edvr_l1_dg8", 6, 6), "r10": ("edvr_l3_dg8", 4, 4), "r11": ("basicvsr_dg16", 6, 6),
    "r12": ("ppyolo_c5", 3, 3),
}
SUITE = [Case(f"{r.key}_{SCALED[r.key][0]}", 1 if r.n <= 2 else 2, r.cin, r.cout, *SCALED[r.key][1:],
              stride=(r.stride, r.stride), groups=r.groups, dg=r.dg) for r in bench_suite.SUITE]

EDGE = [
    Case("docb_example", 1, 6, 4, 2, 4, kh=5, kw=5, padding=(2, 2, 2, 2), groups=2),
    Case("cin_tail_10", 1, 10, 6, 5, 6),
    Case("cin_72_cout_1", 1, 72, 1, 5, 5),
    Case("groups2_dg3_seg2", 2, 12, 4, 5, 5, groups=2, dg=3),
    Case("kernel_1x1", 1, 16, 8, 5, 6, kh=1, kw=1, padding=(0, 0, 0, 0)),
    Case("kernel_2x3", 1, 8, 8, 6, 7, kh=2, kw=3, padding=(0, 1, 1, 1)),
    Case("kernel_3x1_stride2", 1, 8, 8, 7, 6, kh=3, kw=1, stride=(2, 1), padding=(1, 1, 0, 0)),
    Case("asym_pad_0101", 1, 16, 8, 6, 6, padding=(0, 1, 0, 1)),
    Case("asym_pad_2013", 1, 8, 8, 6, 5, padding=(2, 0, 1, 3)),
    Case("dilation2", 1, 16, 8, 7, 7, dilation=(2, 2), padding=(2, 2, 2, 2)),
    Case("large_offsets", 1, 16, 8, 6, 6, offset_kind="large"),
    Case("integer_offsets_y_minus1", 1, 16, 8, 5, 5, offset_kind="integer"),
    Case("batch3_k5_g2", 3, 8, 6, 5, 5, kh=5, kw=5, padding=(2, 2, 2, 2), groups=2),
    # 4 kernel points: planes of 64 floats, just room for the four compare masks (the ANDed-mask path)
    Case("k2x2_mask_slots", 2, 16, 8, 9, 11, kh=2, kw=2, padding=(0, 0, 0, 0)),
    Case("wide_kernel_k81", 1, 8, 4, 9, 9, kh=9, kw=9, padding=(4, 4, 4, 4)),
    Case("wide_kernel_k81_c64", 1, 64, 8, 9, 9, kh=9, kw=9, padding=(4, 4, 4, 4)),  # largest stage-2 UB (KT 64, 64-ch block)
    # Ho*Wo = 2304 > 2048: pixel chunks of stage 3, grad_bias chunks, two grad_weight Ka chunks
    Case("spatial_chunks_48x48", 1, 8, 4, 48, 48),
    Case("cin_24", 2, 24, 16, 6, 6),
    Case("cin_200_block_tail", 1, 200, 16, 4, 5),
    Case("batch_33", 33, 8, 8, 3, 4),
    Case("single_band_dg8", 6, 64, 8, 4, 4, dg=8),  # N*numBlocks = 48: one pixel band (no plane sum)
    # K = 130 > 2 * 64 kernel points per tile with 16-channel blocks (coordinates beside the Back): three tiles per
    # pixel tile, two of them without pixel bases of their own
    Case("kernel_1x130_cin16", 1, 16, 4, 2, 134, kh=1, kw=130, padding=(0, 0, 0, 0)),
    # K = 64 on 8-channel blocks: the 128-row tiles did not fit the UB (no plan); one pixel per tile now
    Case("kernel_8x8_cin72", 1, 72, 4, 9, 14, kh=8, kw=8, padding=(4, 4, 4, 4)),
    # dcol in (kw, kh, channel) order (>= 16 channels per group, K <= 64): stage 3 transposes grad_weight back;
    # non-square kernels (kh and kw must not trade places), K > 16 (several 16-lane groups of the transpose)
    Case("dcol_kw_major_3x5", 1, 16, 8, 7, 9, kh=3, kw=5, padding=(1, 1, 2, 2)),
    Case("dcol_kw_major_5x7_g2", 1, 32, 8, 7, 9, kh=5, kw=7, padding=(2, 2, 3, 3), groups=2),
    # K = 41 and 55: fp32 1/K lies below 1/K, so floor(row * (1/K)) misses whole multiples of K; the vector order
    # tables take floor((row + 0.5) * (1/K)) (dcn_stage2_sample.h OrderTable)
    Case("order_tables_k1x41", 1, 8, 4, 3, 50, kh=1, kw=41, padding=(0, 0, 0, 0)),
    Case("order_tables_k5x11_dg2", 1, 16, 4, 7, 14, kh=5, kw=11, padding=(2, 2, 5, 5), dg=2),
]

# Stage-2 UB window (tiling winOutRows < Ho): several windows per pixel band, corners with |dy| > the
# window margin (offsets ~ N(0, 1.5^2)) or beyond a window edge take the GM path, the rest come from UB.
WINDOW = [
    Case("window_k1_c64_rows2", 48, 64, 8, 12, 16, kh=1, kw=1, padding=(0, 0, 0, 0)),  # winOutRows 2, one band
    Case("window_k3_s2_c16", 1, 16, 8, 60, 90, stride=(2, 2)),                          # winOutRows 2, 8 bands
    Case("window_dil2_dg2", 1, 32, 8, 40, 120, dilation=(2, 2), padding=(2, 2, 2, 2), dg=2),
    # 8-channel blocks, windows of 3 x ~560-650 input pixels: 16-bit I/O casts a window row in two pieces
    # (the staging planes hold 504 pixels) with one masked repeat per pixel (8 fp32 lanes, 16 T lanes)
    Case("window_row_pieces_dg4", 1, 32, 8, 3, 1000, dg=4),
    # 16- and 32-channel blocks under windows of 200 and 129 columns: too wide for the one-Add scatter of a
    # window-served point (winCols * LP/8 > 255 blocks), so its corner pairs take the per-pair Adds from the
    # by-row contributions
    Case("window_wide_lp16", 26, 16, 8, 2, 200),
    Case("window_wide_lp32", 32, 32, 8, 2, 300),
    # every kernel point of a pixel samples near one location: up to 36 window adds per gwin pixel in a tile, more
    # than the 24 masked scatter rounds (AssignRound's rounds of one point each after them)
    Case("window_converging_offsets", 1, 32, 8, 12, 14, offset_kind="converge"),
    Case("window_converging_offsets_lp8", 2, 16, 8, 12, 14, dg=2, offset_kind="converge"),
]

V1 = [
    Case("v1_r2", 1, 128, 128, 6, 7, modulated=False),
    Case("v1_r9_dg8", 2, 64, 64, 6, 6, dg=8, modulated=False),
    Case("v1_groups2_dg3", 2, 12, 4, 5, 5, groups=2, dg=3, modulated=False),
    Case("v1_integer_offsets", 1, 16, 8, 5, 5, offset_kind="integer", modulated=False),
    # one kernel point: a tile's planes have no room for the block of ones, so hy, hx come from the planes
    Case("v1_k1", 2, 16, 8, 12, 16, kh=1, kw=1, padding=(0, 0, 0, 0), modulated=False),
]

# Shared stage-2 fronts (op_host PlanSharedFronts): many blocks per deformable group load each tile's coordinates,
# weights and gather offsets as records computed once in the chunk's first phase. (case, dtypes that share)
SHARED = [
    (Case("shared_fronts_g32", 1, 512, 32, 8, 8, groups=32), ("float32", "float16", "bfloat16")),
    (Case("shared_fronts_v1_c512", 1, 512, 16, 8, 8, modulated=False), ("float16", "bfloat16")),
    (Case("shared_fronts_g32_far", 1, 512, 32, 9, 7, groups=32, offset_kind="large"), ("float32", "float16")),
    # one kernel point (the gather offsets outside the weights' levels), 5x5 points, two deformable groups, many
    # records per unit
    (Case("shared_fronts_k1", 1, 512, 32, 10, 10, kh=1, kw=1, padding=(0, 0, 0, 0), groups=32), ("float32", "float16")),
    (Case("shared_fronts_k5", 1, 512, 32, 9, 9, kh=5, kw=5, padding=(2, 2, 2, 2), groups=32), ("float32", "bfloat16")),
    (Case("shared_fronts_dg2", 1, 1024, 32, 6, 6, dg=2, groups=32), ("float16",)),
    (Case("shared_fronts_40x40", 1, 512, 32, 40, 40, groups=32), ("float32", "float16")),
    # 8 blocks of 32 channels per group (16-bit I/O: kShareMinBlocksWide), 12 blocks with a DCNv1 layer
    (Case("shared_fronts_wide8", 1, 256, 32, 12, 12), ("float16", "bfloat16")),
    (Case("shared_fronts_wide12_v1", 2, 384, 16, 10, 10, modulated=False), ("float16",)),
    # fp32, 16 blocks of 16 channels (kShareNarrowBlockC: narrow blocks share from kShareMinBlocks in fp32 too)
    (Case("shared_fronts_g16", 1, 256, 16, 8, 8, groups=16), ("float32",)),
    # units of 50 tiles over 12 UB windows, their records produced in slices (about four per vector core): a
    # slice's last tiles leave the pipeline before the unit's later windows reuse the window-geometry slots (R50 c5's
    # layer shape)
    (Case("shared_fronts_slices", 1, 512, 32, 25, 42), ("float32", "float16")),
    # fp32 with one G region (one chunk), 4 blocks of 32 channels and 8 of 32 with a DCNv1 layer (kShareMinBlocksOneG)
    (Case("shared_fronts_oneg4", 1, 128, 32, 10, 10), ("float32",)),
    (Case("shared_fronts_oneg8_v1", 2, 256, 16, 9, 11, modulated=False), ("float32",)),
    # 16 blocks of 8 channels, 144-row tiles (R50 c3 entry's geometry): the records run beside phase A's
    # rearrangement with one gather table (two do not fit the UB beside it; dcn_phase_a.h RecordSlotsBeside)
    (Case("shared_fronts_narrow8_s2", 1, 128, 16, 140, 168, stride=(2, 2)), ("float16",)),
]

# fp16 and bf16 for every suite row, the DOC-B example, the border/tail cases and DCNv1
HALF_CASES = SUITE + [EDGE[0], EDGE[2], EDGE[3], EDGE[7], EDGE[9], EDGE[10], EDGE[11], EDGE[-3], EDGE[-2], EDGE[-1]] + V1[:2]

NAMES = ("grad_input", "grad_weight", "grad_offset", "grad_bias")


def check_case(case, dtype, request, seed=0):
    require_twin()
    inputs = make_inputs(case, dtype, seed)
    got = run_twin(case, inputs)
    for key, value in last_launch_counters().items():  # twin cost counters, per case (pytest user_properties, e.g. in --junitxml)
        request.node.user_properties.append((f"twin_{key}", value))
    want = run_reference(case, inputs)
    report = []
    for name, a, g in zip(NAMES, got, want):
        assert a.dtype == inputs["input"].dtype, f"{name}: dtype {a.dtype}"
        r = check_precision(a, g, dtype)
        if not r.passed:
            report.append(r.summary(name))
    assert not report, f"{case.name} {dtype}:\n" + "\n".join(report)


@pytest.mark.parametrize("case", SUITE, ids=lambda c: c.name)
def test_suite_fp32(case, request):
    check_case(case, "float32", request)


@pytest.mark.parametrize("case", EDGE, ids=lambda c: c.name)
def test_edge_fp32(case, request):
    check_case(case, "float32", request)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("case", WINDOW, ids=lambda c: c.name)
def test_window(case, dtype, request):
    check_case(case, dtype, request)


def test_window_deterministic_across_core_counts():
    # windows, GM fallback and the window flushes are per unit: bitwise equal at 1, 7 and 48 vector cores
    require_twin()
    case = WINDOW[1]
    inputs = make_inputs(case, "float32")
    runs = []
    try:
        for cores in (1, 7, 48):
            set_vector_cores(cores)
            runs.append(run_twin(case, inputs))
    finally:
        set_vector_cores(0)  # back to the full chip
    for other in runs[1:]:
        for a, b in zip(runs[0], other):
            assert torch.equal(a.view(torch.int32), b.view(torch.int32))


@pytest.mark.parametrize("case", V1, ids=lambda c: c.name)
def test_unmodulated_fp32(case, request):
    check_case(case, "float32", request)


@pytest.mark.parametrize("case,dtype", [(c, d) for c, ds in SHARED for d in ds],
                         ids=[f"{c.name}-{d}" for c, ds in SHARED for d in ds])
def test_shared_fronts(case, dtype, request):
    assert shared_fronts(case, dtype)[0] > 0  # the tiling shares the fronts of this case (else it tests nothing new)
    check_case(case, dtype, request)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("case", HALF_CASES, ids=lambda c: c.name)
def test_half_precision(case, dtype, request):
    check_case(case, dtype, request)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_nonfinite_offsets_are_outside(dtype):
    # NaN and +-inf offsets (dx of one point, dy of another, both of a third; modulated and DCNv1): those
    # sample points are outside the image, so they add nothing and their offset/mask gradients are 0, like
    # the reference's; every gradient stays finite and meets the precision standard
    require_twin()
    for modulated in (True, False):
        case = Case("nonfinite", 1, 16, 8, 6, 7, modulated=modulated)
        inputs = make_inputs(case, dtype)
        off = inputs["offset"].clone()
        k = case.kh * case.kw
        off[0, 0, 1, 1] = float("nan")          # dx of kernel point 0
        off[0, k + 4, 2, 2] = float("inf")      # dy of kernel point 4
        off[0, 3, 4, 4] = float("-inf")         # dx and dy of kernel point 3
        off[0, k + 3, 4, 4] = float("nan")
        inputs["offset"] = off
        got = run_twin(case, inputs)
        want = run_reference(case, inputs)
        for name, a, g in zip(NAMES, got, want):
            assert torch.isfinite(a).all(), f"{name}: non-finite values"
            r = check_precision(a, g, dtype)
            assert r.passed, f"modulated={modulated} {dtype}: " + r.summary(name)
        grad_offset = got[2].view(1, -1, k, case.out_hw[0], case.out_hw[1])
        for kk, (y, x) in ((0, (1, 1)), (4, (2, 2)), (3, (4, 4))):
            assert torch.count_nonzero(grad_offset[0, :, kk, y, x]) == 0, f"point {kk} at ({y}, {x})"
