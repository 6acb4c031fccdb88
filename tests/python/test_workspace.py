"""Workspace size returned by aclnnDeformableConv2dBackwardGetWorkspaceSize equals the documented
formula (op_host/deformable_conv2d_backward_tiling.h; test_kernel_common.workspace_formula)."""
import pytest
import torch

from test_kernel_common import Case, DTYPES, make_inputs, require_twin, workspace_formula

CASES = [
    Case("basic", 1, 16, 8, 6, 7),
    Case("groups_dg", 2, 12, 4, 5, 5, groups=2, dg=3),
    Case("v1_k5", 1, 8, 6, 6, 6, kh=5, kw=5, padding=(2, 2, 2, 2), modulated=False),
    Case("many_blocks", 2, 200, 16, 4, 4, stride=(2, 2)),
    Case("long_ka", 3, 8, 8, 30, 30),  # N*Ho*Wo = 2700 > 2048: two grad_weight Ka chunks
]


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_workspace_matches_formula(case, dtype):
    require_twin()
    from ascend_dcn import ops
    t = DTYPES[dtype]
    inp = make_inputs(case, dtype)
    a = case.attrs
    outs = [torch.empty_like(inp["input"]), torch.empty_like(inp["weight"]), torch.empty_like(inp["offset"]),
            torch.empty(case.cout, dtype=t)]
    size, _executor = ops.get_workspace_size(inp["input"], inp["grad_output"], inp["offset_out"], inp["weight"],
                                             inp["offset"], a["kernel_size"], a["stride"], a["padding"],
                                             a["dilation"], a["groups"], a["deformable_groups"], a["modulated"],
                                             *outs)
    assert int(size) == workspace_formula(case, dtype)


def test_formula_is_not_constant():
    # the formula reacts to every factor it documents (guards against a formula that ignores the shape)
    base = Case("b", 1, 16, 8, 6, 7)
    variants = [Case("n", 2, 16, 8, 6, 7), Case("c", 1, 24, 8, 6, 7), Case("k", 1, 16, 8, 6, 7, kh=5, kw=5,
                padding=(2, 2, 2, 2)), Case("o", 1, 16, 16, 6, 7)]
    ref = workspace_formula(base, "float32")
    assert all(workspace_formula(v, "float32") > ref for v in variants)
    assert workspace_formula(base, "float16") < ref
