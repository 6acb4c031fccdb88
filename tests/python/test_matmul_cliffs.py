"""Shapes at the Matmul API's documented limits compute correctly (issue 9 part 3).

The G and W matmuls read ND matrices whose row width is Ho*Wo (G's transposed A) and K*Cin/groups
(B of both). A row width of 65535 elements or more needs MatmulConfig.intrinsicsCheck (MatmulConfig
docs ">= 65535"; the TCubeTiling docs say "> 65535", so both sides of 65535 are covered: Ho*Wo just
past it, K*Cin/groups exactly at it). The contract admits any Ho*Wo and K*Cin/groups <= 65535; one
past that maximum is 161002 (tests/python/test_aclnn_validation.py). Tests go through ascend_dcn.ops against the float64 reference, so they
hold for any kernel data path. Channel counts are kept minimal: the cases exist for the row widths.
"""
import pytest

from ascend_dcn.precision import check_precision
from test_kernel_common import Case, make_inputs, require_twin, run_reference, run_twin

NAMES = ("grad_input", "grad_weight", "grad_offset", "grad_bias")
NO_PAD = (0, 0, 0, 0)

CLIFF_CASES = [
    # Ho*Wo = 256*257 = 65792 > 65535 (the 1x8x256x257, 1x1 kernel)
    Case("howo_65792_k1x1", 1, 8, 2, 256, 257, kh=1, kw=1, padding=NO_PAD),
    # Ho*Wo = 255*257 = 65535 exactly (the ">=" side of the docs' limit)
    Case("howo_65535_k1x1", 1, 2, 2, 255, 257, kh=1, kw=1, padding=NO_PAD),
    # Ho*Wo = 257*257 = 66049 (1x4x257x257, 3x3, pad 1)
    Case("howo_66049_k3x3", 1, 4, 2, 257, 257),
    # K*Cin/groups = 65535 exactly: the contract's maximum, on the ">=" side of the docs' limit
    Case("kcg_65535_k1x1", 1, 65535, 1, 1, 1, kh=1, kw=1, padding=NO_PAD),
    # K*Cin/groups = 15 * 8738 / 2 = 65535 with groups (B row width per group)
    Case("kcg_65535_k3x5_g2", 1, 8738, 2, 3, 5, kh=3, kw=5, padding=NO_PAD, groups=2),
]


@pytest.mark.parametrize("case", CLIFF_CASES, ids=lambda c: c.name)
def test_matmul_limit_shapes_fp32(case):
    require_twin()
    inputs = make_inputs(case, "float32")
    got = run_twin(case, inputs)
    want = run_reference(case, inputs)
    results = {name: check_precision(a, g, "float32") for name, a, g in zip(NAMES, got, want)}
    report = [r.summary(name) for name, r in results.items() if not r.passed]
    assert not report, f"{case.name}:\n" + "\n".join(report)
