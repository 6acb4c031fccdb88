"""Issue 15's hazards on an Ascend host: our operator runs through torch_npu's operator machinery,
so it is ordered with torch_npu's task queue, uses its caching allocator safely, runs on the
tensors' device, and shows up in its profiler (Ascend hosts only; skipped elsewhere with the reason).

For each torch_npu setting — TASK_QUEUE_ENABLE=0, 1, 2 and ASCEND_LAUNCH_BLOCKING=1 — a child
process (queue_hazard_child.py; torch_npu reads these at start) runs: inputs produced by a long
chain of queued operators right before the backward; large tensors freed while queued operators
still read them; the two-phase API between queued operators; tensors on a non-current device; the
torch.library op eager and under torch.compile. Each result is compared bitwise with a quiet run
and with the CPU float64 reference under CANN's precision standard.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from npu_requirements import require_npu

pytestmark = pytest.mark.npu
DEVICE = require_npu()

import torch  # noqa: E402
import torch_npu  # noqa: E402,F401

from ascend_dcn import npu, ops  # noqa: E402

CHILD = Path(__file__).with_name("queue_hazard_child.py")
SETTINGS = {
    "task_queue_0": {"TASK_QUEUE_ENABLE": "0"},
    "task_queue_1": {"TASK_QUEUE_ENABLE": "1"},
    "task_queue_2": {"TASK_QUEUE_ENABLE": "2"},
    "launch_blocking": {"ASCEND_LAUNCH_BLOCKING": "1"},
}
SCENARIOS = ("queued_producers", "freed_blocks_reused", "two_phase_between_operators", "non_current_device",
             "torch_library_op_and_compile")


@pytest.fixture(scope="module", params=list(SETTINGS), ids=list(SETTINGS))
def child_report(request):
    env = dict(os.environ)
    env.pop("TASK_QUEUE_ENABLE", None)
    env.pop("ASCEND_LAUNCH_BLOCKING", None)
    env.update(SETTINGS[request.param])
    env["PYTHONPATH"] = os.pathsep.join([str(CHILD.parent)] + [p for p in sys.path if p])
    proc = subprocess.run([sys.executable, str(CHILD)], env=env, capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return request.param, json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_hazard_matches_quiet_run_and_cpu_reference(child_report, scenario):
    setting, report = child_report
    result = report[scenario]
    if result.get("skipped"):
        pytest.skip(f"{setting}/{scenario}: {result['skipped']}")
    assert result["ok"], f"{setting}/{scenario}: {result['detail']}"


def _small_call():
    from queue_hazard_child import ATTRS, make_inputs
    cpu, _ = make_inputs(N=1, Cin=8, Cout=8, H=8, W=8)
    return [t.to(DEVICE) for t in cpu], ATTRS


def test_extension_binds_our_vendor_library_not_cann_builtin():
    ext = npu.get_extension(torch.device(DEVICE))
    bound = ext.execute_symbol_file()
    package = npu.find_vendor_package()
    assert Path(bound).resolve() == Path(package["opapi"]).resolve()
    assert not bound.endswith("libopapi.so")


def test_profiler_shows_our_operator_by_name(tmp_path):
    inputs, attrs = _small_call()
    ops.deformable_conv2d_backward(*inputs, **attrs)   # build/bind outside the profiled region
    torch.npu.synchronize()
    activities = [torch_npu.profiler.ProfilerActivity.CPU, torch_npu.profiler.ProfilerActivity.NPU]
    with torch_npu.profiler.profile(activities=activities,
                                    on_trace_ready=torch_npu.profiler.tensorboard_trace_handler(str(tmp_path))):
        torch.ops.ascend_dcn.deformable_conv2d_backward(*inputs, *attrs.values())
        torch.npu.synchronize()
    text = ""
    for f in tmp_path.rglob("*"):
        if f.is_file() and f.suffix in (".json", ".csv"):
            text += f.read_text(errors="replace")
    assert "aclnnDeformableConv2dBackward" in text, f"no event named aclnnDeformableConv2dBackward under {tmp_path}"
    assert "ascend_dcn::deformable_conv2d_backward" in text


def test_failures_carry_our_status_name_and_message():
    inputs, attrs = _small_call()
    bad = dict(attrs, groups=3)   # Cin = 8 is not divisible by 3
    with pytest.raises(RuntimeError) as err:
        torch.ops.ascend_dcn.deformable_conv2d_backward(*inputs, *bad.values())
    assert "161002" in str(err.value) and "ACLNN_ERR_PARAM_INVALID" in str(err.value)
