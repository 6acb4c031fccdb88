"""The kernel's pixel-chunk loop (issue 11) on small shapes: many chunks forced through the tiling's
workspace budget (band planes + chunk regions), which follows the device memory (WsBudgetForHbm:
min(60 MiB, HBM / 512)). The twin's
TWIN_HBM_BYTES (a twin-only test knob, re-read by twin_set_platform) makes the device small, so the budget
and the chunks are small; several cases then take image-local grad_input planes (one image per chunk, its
planes written to grad_input and zeroed after its last chunk), one keeps the batch's planes. Checks: the workspace the tiling reports equals the Python formula for that
budget (so the chunks really are the ones test_kernel_common.chunk_plan derives), precision against the
float64 reference, and bitwise equality across runs and 1 / 7 / 48 vector cores."""
import os

import pytest
import torch

from ascend_dcn.precision import check_precision
from test_kernel_common import (Case, DTYPES, chunk_plan, make_inputs, require_twin, run_reference, run_twin,
                                set_vector_cores, workspace_slots)

HBM_PER_BUDGET = 512  # dcn_tiling::kHbmPerWsBudget (budgets >= 34 KiB: the workspace must fit the device)

# (case, workspace budget in bytes): every chunk form of PlanChunks, several pixel bands each. The forms named are
# fp32's (test_cases_are_multi_chunk checks them); 16-bit I/O takes other chunks and G regions on the same budgets.
CASES = [
    # whole output rows of one image per chunk (12 rows in chunks of 7 + 5), one G region
    (Case("rows_of_one_image", 2, 8, 8, 12, 10), 86 << 10),
    # pieces of one output row (12 + 12 + 12 + 4 columns), conv groups and deformable groups, one G region
    (Case("row_pieces_g2_dg2", 1, 16, 8, 5, 40, groups=2, dg=2), 61 << 10),
    # two whole images per chunk, 3 chunks (2 + 2 + 1 images), channel blocks of 4, two G regions
    (Case("image_pairs_dg3", 5, 12, 8, 6, 7, dg=3), 212 << 10),
    # 1x1 kernel, 96 output channels: fp32 300-row chunks (5 output rows of one image) of 2 grad_weight Ka chunks of
    # 150 rows; the tiling keeps several in every dtype (the GEMM of 4 x 96 channels outlasts the short sampling of
    # 4 input channels), and later chunks add into every slot
    (Case("ka_slots_k1", 2, 4, 96, 40, 60, kh=1, kw=1, padding=(0, 0, 0, 0)), 256 << 10),
    # DCNv1 (no mask), stride 2, one image per chunk (10 output rows in chunks of 7 + 3), two G regions
    (Case("v1_stride2_rows", 2, 8, 8, 20, 12, stride=(2, 2), modulated=False), 94 << 10),
]
NAMES = ("grad_input", "grad_weight", "grad_offset", "grad_bias")


@pytest.fixture
def chunk_budget():
    """Set the twin's device memory so the tiling's chunk budget is the requested one; restore after."""
    old = os.environ.get("TWIN_HBM_BYTES")

    def apply(budget):
        os.environ["TWIN_HBM_BYTES"] = str(budget * HBM_PER_BUDGET)
        set_vector_cores(0)  # twin_set_platform re-reads TWIN_HBM_BYTES

    yield apply
    if old is None:
        os.environ.pop("TWIN_HBM_BYTES", None)
    else:
        os.environ["TWIN_HBM_BYTES"] = old
    set_vector_cores(0)


def workspace_size(case, inputs):
    from ascend_dcn import ops
    a = case.attrs
    outs = [torch.empty_like(inputs["input"]), torch.empty_like(inputs["weight"]), torch.empty_like(inputs["offset"]),
            torch.empty(case.cout, dtype=inputs["input"].dtype)]
    size, _executor = ops.get_workspace_size(inputs["input"], inputs["grad_output"], inputs["offset_out"],
                                             inputs["weight"], inputs["offset"], a["kernel_size"], a["stride"],
                                             a["padding"], a["dilation"], a["groups"], a["deformable_groups"],
                                             a["modulated"], *outs)
    return int(size)


def test_cases_are_multi_chunk():
    # the table exercises what it claims (derived from the formula, independent of the C++ plan)
    plans = {c.name: chunk_plan(c, "float32", b) for c, b in CASES}
    assert all(p["num_chunks"] > 1 for p in plans.values())
    assert all(p["bands"] > 1 for p in plans.values())
    # both chunk loops: one G region (each chunk's G GEMM during its rearrangement) and two (chunk c+1's
    # during chunk c's sampling)
    assert {p["g_regions"] for p in plans.values()} == {1, 2}
    assert plans["rows_of_one_image"]["imgs"] == 1 and plans["rows_of_one_image"]["out_rows"] < 12
    assert plans["row_pieces_g2_dg2"]["out_rows"] == 1 and 40 % plans["row_pieces_g2_dg2"]["out_cols"] != 0
    assert plans["image_pairs_dg3"]["imgs"] == 2 and plans["image_pairs_dg3"]["out_rows"] == 6
    assert plans["ka_slots_k1"]["w_split"] == 2 and plans["ka_slots_k1"]["w_chunk"] == 150
    # both kinds of grad_input accumulator planes among the batches of several images: the batch's (acc_imgs = N:
    # grad_input written once, at the end) and image-local ones (acc_imgs = 1 < N: one image per chunk, each
    # image's grad_input written and its planes zeroed after its last chunk)
    multi = {c.name: c.n for c, _ in CASES if c.n > 1}
    assert {plans[name]["acc_imgs"] == n for name, n in multi.items()} == {True, False}
    assert plans["rows_of_one_image"]["acc_imgs"] == 1 and plans["image_pairs_dg3"]["acc_imgs"] == 5


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("case,budget", CASES, ids=[c.name for c, _ in CASES])
def test_multi_chunk_precision(case, budget, dtype, chunk_budget):
    require_twin()
    chunk_budget(budget)
    inputs = make_inputs(case, dtype)
    assert inputs["input"].dtype == DTYPES[dtype]
    slots = workspace_slots(case, dtype, workspace_size(case, inputs), budget)
    assert slots
    if case.name == "ka_slots_k1":  # the run sums several Ka slots (stage 3), added to by every later chunk
        assert min(slots) > 1
    got = run_twin(case, inputs)
    want = run_reference(case, inputs)
    report = []
    for name, a, g in zip(NAMES, got, want):
        r = check_precision(a, g, dtype)
        if not r.passed:
            report.append(r.summary(name))
    assert not report, f"{case.name} {dtype}:\n" + "\n".join(report)


@pytest.mark.parametrize("index", [0, 2, 3])  # image-local planes (0, 3), the batch's planes (2)
def test_multi_chunk_bitwise_across_runs_and_core_counts(index, chunk_budget):
    require_twin()
    case, budget = CASES[index]
    chunk_budget(budget)
    inputs = make_inputs(case, "float32")
    runs = []
    for cores in (48, 1, 7, 48):
        set_vector_cores(cores)
        runs.append(run_twin(case, inputs))
    for other in runs[1:]:
        for name, a, b in zip(NAMES, runs[0], other):
            assert torch.equal(a.view(torch.int32), b.view(torch.int32)), name


def test_one_chunk_equals_many_chunks_up_to_rounding(chunk_budget):
    # chunking changes only the fp32 summation order of grad_weight (Ka chunks) and nothing else of
    # grad_input's per-plane order within a band's pixels; the results stay within fp32 rounding
    require_twin()
    case, budget = CASES[0]
    inputs = make_inputs(case, "float32")
    chunk_budget(budget)
    many = run_twin(case, inputs)
    chunk_budget(60 << 20)
    one = run_twin(case, inputs)
    for name, a, b in zip(NAMES, many, one):
        assert torch.allclose(a, b, rtol=1e-5, atol=1e-5), name


def _run_on_filled_workspace(case, inputs, fill):
    """The two-phase API with every workspace byte = `fill` beforehand (0xFF: fp32 NaN) and NaN-filled outputs."""
    from ascend_dcn import ops
    a = case.attrs
    outs = [torch.full_like(inputs[k], float("nan")) for k in ("input", "weight", "offset")]
    outs.append(torch.full((case.cout,), float("nan"), dtype=inputs["grad_output"].dtype))
    size, executor = ops.get_workspace_size(inputs["input"], inputs["grad_output"], inputs["offset_out"],
                                            inputs["weight"], inputs["offset"], a["kernel_size"], a["stride"],
                                            a["padding"], a["dilation"], a["groups"], a["deformable_groups"],
                                            a["modulated"], *outs)
    workspace = torch.full((int(size),), fill, dtype=torch.uint8)
    ops.execute(workspace, size, executor)
    return outs


# (case, budget, vector cores; 0 = the chip's): the chunk cases, windows narrower than the image whose corner pairs
# straddle their edges (GM atomics into rows the window's flush also writes), one chunk of several images with three
# bands, and row pieces whose short middle chunks (33 = 15 + 15 + 3 columns) have empty bands, several per core
STALE_CASES = [(c, b, 0) for c, b in CASES] + [
    (Case("window_pairs", 4, 64, 8, 6, 100), 0, 0), (Case("one_chunk_bands", 3, 8, 8, 9, 9), 0, 0),
    (Case("pieces_empty_bands", 5, 4, 2, 7, 33, padding=(1, 0, 2, 2), dg=4), 40 << 10, 2)]


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("case,budget,cores", STALE_CASES, ids=[c.name for c, _, _ in STALE_CASES])
def test_stale_workspace_changes_nothing(case, budget, cores, dtype, chunk_budget):
    # Stage 2 zeroes the grad_input accumulator planes row by row ahead of their first write (no phase zeroes them
    # up front), and every other region is written before it is read: a workspace full of NaN bytes gives the
    # bitwise same gradients as a zeroed one. A plane row the kernel reads or adds to without zeroing it first
    # turns NaN.
    require_twin()
    chunk_budget(budget or (60 << 20))
    set_vector_cores(cores)
    inputs = make_inputs(case, dtype)
    clean = _run_on_filled_workspace(case, inputs, 0)
    stale = _run_on_filled_workspace(case, inputs, 0xFF)
    for name, a, b in zip(NAMES, clean, stale):
        assert not torch.isnan(a).any(), (name, "NaN on a zeroed workspace")
        bits = torch.int32 if a.dtype == torch.float32 else torch.int16
        assert torch.equal(a.view(bits), b.view(bits)), name
