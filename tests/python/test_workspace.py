"""Workspace size returned by aclnnDeformableConv2dBackwardGetWorkspaceSize equals the documented
formula (op_host/deformable_conv2d_backward_tiling.h; test_kernel_common.workspace_formula), and stays
within issue 11's bound 16 MiB + 4 B x (|grad_input| + |grad_weight|) + 64 MiB however large N and Ho*Wo
get (the kernel works in pixel chunks; test_chunks.py runs many chunks)."""
import pytest
import torch

from test_kernel_common import (Case, DTYPES, chunk_plan, make_inputs, require_twin, shared_fronts, workspace_bound,
                                workspace_formula, workspace_slots)

CASES = [
    Case("basic", 1, 16, 8, 6, 7),
    Case("groups_dg", 2, 12, 4, 5, 5, groups=2, dg=3),
    Case("v1_k5", 1, 8, 6, 6, 6, kh=5, kw=5, padding=(2, 2, 2, 2), modulated=False),
    Case("many_blocks", 2, 200, 16, 4, 4, stride=(2, 2)),
    Case("long_ka", 3, 8, 8, 30, 30),  # N*Ho*Wo = 2700 > 2048: two grad_weight Ka chunks
    # 32 blocks of 16 channels in one deformable group: shared stage-2 fronts (the records' region; every dtype)
    Case("shared_fronts_g32", 1, 512, 32, 8, 8, groups=32),
]


# Large layers (the workspace query only; the tensors are allocated but never touched). R50 c3 at batch
# 16 is suite row 2 (2x128x100x168, 3x3) with N = 16 on Ascend910B2: ~2.5 GB before the chunk loop.
LARGE = [
    Case("r2_c3_batch16", 16, 128, 128, 100, 168),
    Case("huge_howo_1024x1024", 1, 64, 64, 1024, 1024),
    Case("huge_n_4096", 4096, 16, 16, 16, 16),
    Case("wide_weight_2048", 1, 2048, 2048, 8, 8),
    Case("grouped_dg_k5_n64", 64, 256, 256, 13, 13, kh=5, kw=5, padding=(2, 2, 2, 2), groups=4, dg=8),
    Case("v1_stride2_n32", 32, 256, 128, 96, 96, stride=(2, 2), modulated=False),
    # suite row 1 (R50 c3 entry, stride 2) at full size: image-local accumulator planes (3 band planes of one image)
    Case("r1_c3_entry_local_planes", 2, 128, 128, 200, 336, stride=(2, 2)),
]


def query_workspace(case, dtype, inp):
    from ascend_dcn import ops
    t = DTYPES[dtype]
    a = case.attrs
    outs = [torch.empty_like(inp["input"]), torch.empty_like(inp["weight"]), torch.empty_like(inp["offset"]),
            torch.empty(case.cout, dtype=t)]
    size, _executor = ops.get_workspace_size(inp["input"], inp["grad_output"], inp["offset_out"], inp["weight"],
                                             inp["offset"], a["kernel_size"], a["stride"], a["padding"],
                                             a["dilation"], a["groups"], a["deformable_groups"], a["modulated"],
                                             *outs)
    return int(size)


def empty_inputs(case, dtype):
    t = DTYPES[dtype]
    ho, wo = case.out_hw
    k = case.kh * case.kw
    blocks = 3 if case.modulated else 2
    return dict(input=torch.empty(case.n, case.cin, case.h, case.w, dtype=t),
                grad_output=torch.empty(case.n, case.cout, ho, wo, dtype=t),
                offset_out=torch.empty(case.n, case.cin, ho * case.kh, wo * case.kw, dtype=t),
                weight=torch.empty(case.cout, case.cin // case.groups, case.kh, case.kw, dtype=t),
                offset=torch.empty(case.n, blocks * case.dg * k, ho, wo, dtype=t))


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_workspace_matches_formula(case, dtype):
    require_twin()
    assert workspace_slots(case, dtype, query_workspace(case, dtype, make_inputs(case, dtype)))


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_shared_fronts_case_has_records(dtype):
    # the case above exercises the records' region (formula) only while the tiling shares its fronts
    tiles, floats = shared_fronts(CASES[-1], dtype)
    assert tiles > 0 and floats > 0
    assert shared_fronts(CASES[0], dtype) == (0, 0)  # one block per group: nothing to share


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("case", LARGE, ids=lambda c: c.name)
def test_large_layers_within_the_bound(case, dtype):
    # every dtype: the input copy (in the I/O dtype) lives in the grad_input output, not in the workspace
    require_twin()
    size = query_workspace(case, dtype, empty_inputs(case, dtype))
    assert workspace_slots(case, dtype, size)
    assert size <= workspace_formula(case, dtype) <= workspace_bound(case, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_large_layers_cover_image_local_planes(dtype):
    # the bound above holds for both kinds of grad_input accumulator planes (the formula: bands x acc_imgs planes)
    plans = {c.name: chunk_plan(c, dtype) for c in LARGE}
    assert plans["r1_c3_entry_local_planes"]["acc_imgs"] == 1 and plans["r1_c3_entry_local_planes"]["bands"] == 3
    assert plans["r2_c3_batch16"]["acc_imgs"] == 16


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_r2_batch16_before_and_after(dtype):
    # the batch-16 R50 c3 layer of the issue: workspace within the bound for every dtype, far below the
    # ~2.5 GB of the whole-batch layout (G, dcol, got, part and 6 band planes over all 268800 pixels)
    case = LARGE[0]
    size = workspace_formula(case, dtype)
    assert size <= workspace_bound(case, dtype)
    ho, wo = case.out_hw
    pixels, k = case.n * ho * wo, case.kh * case.kw
    whole_batch_g = pixels * k * case.cin * 4
    assert size < whole_batch_g


def test_formula_is_not_constant():
    # the formula reacts to every factor it documents (guards against a formula that ignores the shape)
    base = Case("b", 1, 16, 8, 6, 7)
    variants = [Case("n", 2, 16, 8, 6, 7), Case("c", 1, 24, 8, 6, 7), Case("k", 1, 16, 8, 6, 7, kh=5, kw=5,
                padding=(2, 2, 2, 2)), Case("o", 1, 16, 16, 6, 7)]
    ref = workspace_formula(base, "float32")
    assert all(workspace_formula(v, "float32") > ref for v in variants)
    assert workspace_formula(base, "float16") < ref
