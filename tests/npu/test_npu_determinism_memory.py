"""Bitwise determinism across runs and a device-memory check of our operator on the NPU
(Ascend hosts only; skipped elsewhere with the reason).

Memory: the backward must not keep or allocate a K²-expanded copy of the input beyond what its
documented workspace needs: the peak extra device memory of one call is bounded by the outputs +
the workspace it reports + 32 MiB, and the workspace is smaller than the fp32 deformOut tensor
(N*Cin*K²*Ho*Wo*4 bytes) that the built-in A2/A3 path materialises.
"""
import pytest
import torch

from npu_requirements import require_npu, to_device

pytestmark = pytest.mark.npu
DEVICE = require_npu()

import torch_npu  # noqa: E402,F401

from ascend_dcn import ops  # noqa: E402
from ascend_dcn.golden_cases import CASES, TORCH_DTYPES, make_golden  # noqa: E402

DETERMINISM_CASES = ["suite_row5_small", "suite_row9_small", "groups2_dg2_asym", "dcnv1"]


def call(t, a):
    return ops.deformable_conv2d_backward(
        t["input"], t["grad_output"], t["offset_out"], t["weight"], t["offset"], a["kernel_size"],
        a["stride"], a["padding"], a["dilation"], a["groups"], a["deformable_groups"], a["modulated"])


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("name", DETERMINISM_CASES)
def test_bitwise_identical_runs(name, dtype):
    golden = make_golden(CASES[name], dtype=dtype, seed=3)
    t = to_device(golden["inputs"], DEVICE, TORCH_DTYPES[dtype])
    first = [x.cpu() for x in call(t, golden["attrs"])]
    for _ in range(4):
        again = [x.cpu() for x in call(t, golden["attrs"])]
        for a, b in zip(first, again):
            assert torch.equal(a.view(torch.int16) if a.element_size() == 2 else a.view(torch.int32),
                               b.view(torch.int16) if b.element_size() == 2 else b.view(torch.int32))


def test_peak_memory_is_bounded_by_outputs_and_workspace():
    golden = make_golden(CASES["suite_row3_small"], dtype="float16", seed=4)
    a = golden["attrs"]
    t = to_device(golden["inputs"], DEVICE, torch.float16)
    call(t, a)   # warm up: library load, kernel binaries, caching allocator
    torch.npu.synchronize()
    grads = [torch.empty_like(t[k]) for k in ("input", "weight", "offset")]
    grad_bias = torch.empty((t["weight"].shape[0],), dtype=torch.float16, device=DEVICE)
    workspace_size, executor = ops.get_workspace_size(
        t["input"], t["grad_output"], t["offset_out"], t["weight"], t["offset"], a["kernel_size"], a["stride"],
        a["padding"], a["dilation"], a["groups"], a["deformable_groups"], a["modulated"], *grads, grad_bias)
    workspace = torch.empty((int(workspace_size),), dtype=torch.uint8, device=DEVICE) if workspace_size else None
    ops.execute(workspace, workspace_size, executor, device=t["input"].device)
    torch.npu.synchronize()
    del workspace, grads, grad_bias

    torch.npu.reset_peak_memory_stats()
    base = torch.npu.memory_allocated()
    outputs = call(t, a)
    torch.npu.synchronize()
    peak_extra = torch.npu.max_memory_allocated() - base
    output_bytes = sum(o.numel() * o.element_size() for o in outputs)
    assert peak_extra <= output_bytes + int(workspace_size) + 32 * 2 ** 20, \
        f"peak extra {peak_extra} B > outputs {output_bytes} B + workspace {workspace_size} B + 32 MiB"
    n, cin = t["input"].shape[:2]
    kh, kw = a["kernel_size"]
    ho, wo = t["offset"].shape[2:]
    deform_out_fp32 = n * cin * kh * kw * ho * wo * 4
    assert int(workspace_size) < deform_out_fp32, \
        f"workspace {workspace_size} B is not below the fp32 deformOut size {deform_out_fp32} B"
