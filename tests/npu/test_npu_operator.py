"""Our operator on the NPU against the float64 reference and against torch_npu's
npu_deformable_conv2dbk (Ascend hosts only; skipped elsewhere with the reason).

* every golden case (scaled-down suite + edge cases) x float32/float16/bfloat16, under CANN's
  precision standard (ascend_dcn.precision: double ten-thousandth / double thousandth);
* with ASCEND_DCN_NPU_FULL_SUITE=1 also the full-size benchmark rows (tests/npu/suite.py);
* torch_npu's built-in path (fp32 outputs on A2/A3) on the modulated float32 cases: both must meet
  the standard against the reference, and their difference is reported.
"""
import pytest
import torch

from npu_requirements import full_suite_enabled, require_npu, to_device

pytestmark = pytest.mark.npu
DEVICE = require_npu()

import torch_npu  # noqa: E402,F401  (available: require_npu passed)

from ascend_dcn import ops  # noqa: E402
from ascend_dcn.golden_cases import CASES, TORCH_DTYPES, make_golden  # noqa: E402
from ascend_dcn.precision import check_precision  # noqa: E402
from suite import FULL_SUITE  # noqa: E402

NAMES = ("grad_input", "grad_weight", "grad_offset", "grad_bias")
DTYPES = ("float32", "float16", "bfloat16")
CASE_ITEMS = list(CASES.items()) + (list(FULL_SUITE.items()) if full_suite_enabled() else [])


def run_ours(golden, dtype):
    t = to_device(golden["inputs"], DEVICE, TORCH_DTYPES[dtype])
    a = golden["attrs"]
    out = ops.deformable_conv2d_backward(
        t["input"], t["grad_output"], t["offset_out"], t["weight"], t["offset"], a["kernel_size"],
        a["stride"], a["padding"], a["dilation"], a["groups"], a["deformable_groups"], a["modulated"])
    torch.npu.synchronize()
    return out


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name, case", CASE_ITEMS, ids=[n for n, _ in CASE_ITEMS])
def test_against_reference(name, case, dtype):
    golden = make_golden(case, dtype=dtype, seed=1)
    outputs = run_ours(golden, dtype)
    for out_name, actual in zip(NAMES, outputs):
        assert actual.dtype == TORCH_DTYPES[dtype], f"{out_name}: dtype {actual.dtype}"
        result = check_precision(actual.cpu(), golden["outputs"][out_name], dtype)
        assert result.passed, result.summary(f"{name}/{dtype}/{out_name}")


MODULATED_CASES = [(n, c) for n, c in CASE_ITEMS if c.modulated]


@pytest.mark.parametrize("name, case", MODULATED_CASES, ids=[n for n, _ in MODULATED_CASES])
def test_against_torch_npu_builtin(name, case):
    golden = make_golden(case, dtype="float32", seed=2)
    t = to_device(golden["inputs"], DEVICE, torch.float32)
    a = golden["attrs"]
    theirs = torch_npu.npu_deformable_conv2dbk(
        t["input"], t["grad_output"], t["offset_out"], t["weight"], t["offset"], a["kernel_size"],
        a["stride"], a["padding"], a["dilation"], a["groups"], a["deformable_groups"], a["modulated"])
    ours = run_ours(golden, "float32")
    for out_name, mine, builtin in zip(NAMES, ours, theirs):
        assert mine.shape == builtin.shape, f"{out_name}: {tuple(mine.shape)} vs torch_npu {tuple(builtin.shape)}"
        gold = golden["outputs"][out_name]
        ours_ok = check_precision(mine.cpu(), gold, "float32")
        assert ours_ok.passed, ours_ok.summary(f"{name}/ours/{out_name}")
        diff = check_precision(mine.cpu(), builtin.float().cpu(), "float32")
        print(f"{name}/{out_name}: torch_npu vs reference: "
              f"{check_precision(builtin.float().cpu(), gold, 'float32').summary()}; ours vs torch_npu: "
              f"{diff.summary()}")
