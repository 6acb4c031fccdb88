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


# Known precision issue, not a Matmul one (grad_weight and grad_bias pass, and every output of the 3x3
# case): with 1x1 kernels at sample coordinates up to ~256, about 1e-4 of grad_input's / grad_offset's
# elements miss the fp32 standard (error ratios 1.02e-4 to 1.08e-4 > 1e-4, relative errors ~2e-4). Stage 2
# forms the sample position y + dy in fp32 (ulp 3e-5 at 256), so the bilinear fraction carries that
# absolute error; a 1x1 kernel gives each element only a few samples to average it out. Kernel-side fix:
# take the fraction from dy's own fractional part. Strict: once no listed output fails for a listed case,
# this test fails until the case is removed.
KNOWN_COORDINATE_PRECISION = {
    "howo_65792_k1x1": {"grad_input", "grad_offset"},
    "howo_65535_k1x1": {"grad_input", "grad_offset"},
}


@pytest.mark.parametrize("case", CLIFF_CASES, ids=lambda c: c.name)
def test_matmul_limit_shapes_fp32(case):
    require_twin()
    inputs = make_inputs(case, "float32")
    got = run_twin(case, inputs)
    want = run_reference(case, inputs)
    results = {name: check_precision(a, g, "float32") for name, a, g in zip(NAMES, got, want)}
    known = KNOWN_COORDINATE_PRECISION.get(case.name, set())
    report = [r.summary(name) for name, r in results.items() if not r.passed and name not in known]
    assert not report, f"{case.name}:\n" + "\n".join(report)
    known_failures = [results[name].summary(name) for name in sorted(known) if not results[name].passed]
    if known:
        assert known_failures, f"{case.name}: {sorted(known)} now meet the fp32 standard; drop the case from " \
                               "KNOWN_COORDINATE_PRECISION"
        pytest.xfail("known fp32 sample-coordinate precision issue (KNOWN_COORDINATE_PRECISION): " +
                     "; ".join(known_failures))
