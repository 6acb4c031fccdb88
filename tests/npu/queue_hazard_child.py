"""Child process of test_npu_queue_hazards.py: the ordering / memory / device hazards of issue 15,
run under the torch_npu environment the parent chose (TASK_QUEUE_ENABLE, ASCEND_LAUNCH_BLOCKING are
read when torch_npu starts, hence a process per setting). Prints one JSON line:
{"scenario": {"ok": bool, "detail": str}, ...}.

Each scenario computes the backward on NPU in a hazardous situation and compares it
(a) bitwise with the same call made on a quiet device (synchronised before and after), and
(b) with the CPU float64 reference under CANN's precision standard.
"""
import json
import os
import sys
import traceback

import torch
import torch_npu  # noqa: F401

from ascend_dcn import ops, reference
from ascend_dcn.precision import check_precision

DEVICE_INDEX = int(os.environ.get("ASCEND_DCN_TEST_DEVICE", "0"))
DEV = torch.device("npu", DEVICE_INDEX)
ATTRS = dict(kernel_size=[3, 3], stride=[1, 1, 1, 1], padding=[1, 1, 1, 1], dilation=[1, 1, 1, 1], groups=1,
             deformable_groups=1, modulated=True)
NAMES = ("grad_input", "grad_weight", "grad_offset", "grad_bias")


def make_inputs(seed=0, N=2, Cin=32, Cout=32, H=24, W=24):
    g = torch.Generator().manual_seed(seed)
    K = 9
    x = torch.randn(N, Cin, H, W, generator=g, dtype=torch.float64)
    w = torch.randn(Cout, Cin, 3, 3, generator=g, dtype=torch.float64) * 0.1
    off = torch.randn(N, 3 * K, H, W, generator=g, dtype=torch.float64)
    off[:, 2 * K:] = torch.rand(N, K, H, W, generator=g, dtype=torch.float64)
    go = torch.randn(N, Cout, H, W, generator=g, dtype=torch.float64)
    _, d = reference.deformable_conv2d(x, w, off, None, **ATTRS)
    cpu = [t.float() for t in (x, go, d, w, off)]
    gold = reference.deformable_conv2d_backward(x, go, d, w, off, **ATTRS)
    return cpu, gold


def call(inputs):
    return ops.deformable_conv2d_backward(*inputs, **ATTRS)


def quiet_result(cpu, device):
    torch.npu.synchronize(device)
    out = call([t.to(device) for t in cpu])
    torch.npu.synchronize(device)
    return [o.cpu() for o in out]


def compare(got, quiet, gold):
    problems = []
    for name, g, q, ref in zip(NAMES, got, quiet, gold):
        g = g.cpu()
        if not torch.equal(g, q):
            problems.append(f"{name}: differs from the quiet run (max |diff| {(g - q).abs().max().item():.3g})")
        result = check_precision(g, ref, "float32")
        if not result.passed:
            problems.append(result.summary(name))
    return problems


def produced_by_queued_chain(cpu):
    """Every input is the end of a long chain of queued operators issued right before the call
    (values exact: *2 then /2 in float32 is exact here); the intermediates hold other values, so a
    kernel launched ahead of the chain reads wrong data."""
    out = []
    for t in cpu:
        x = t.to(DEV)
        for _ in range(200):
            x = x * 2.0
            x = x / 2.0
        out.append(x)
    return call(out)


def freed_blocks_reused(cpu):
    """Large tensors freed while queued operators still read them: our workspace and outputs come
    from the caching allocator and may reuse their blocks; the readers must still see their data."""
    big = [torch.full((64, 1024, 1024), float(i + 1), device=DEV) for i in range(4)]   # 4 x 256 MiB
    # queued readers of the big blocks; min and max are exact, so any overwritten element shows
    readers = [(r(b), float(i + 1)) for i, b in enumerate(big) for r in (torch.amin, torch.amax) for _ in range(4)]
    del big
    grads = call([t.to(DEV) for t in cpu])
    wrong = [(i, s.item(), e) for i, (s, e) in enumerate(readers) if s.item() != e]
    return grads, wrong


def two_phase_between_operators(cpu):
    """ops.get_workspace_size / ops.execute used between other queued operators give the fused
    call's result."""
    x, go, d, w, off = [t.to(DEV) for t in cpu]
    x = (x * 2.0) / 2.0
    outs = (torch.empty_like(x), torch.empty_like(w), torch.empty_like(off), torch.empty(w.shape[0], device=DEV))
    size, executor = ops.get_workspace_size(x, go, d, w, off, ATTRS["kernel_size"], ATTRS["stride"],
                                            ATTRS["padding"], ATTRS["dilation"], ATTRS["groups"],
                                            ATTRS["deformable_groups"], ATTRS["modulated"], *outs)
    workspace = torch.empty(size, dtype=torch.uint8, device=DEV) if size else None
    ops.execute(workspace, size, executor)
    del workspace, executor
    junk = [torch.full_like(o, 3.0) for o in outs]   # allocations right after: must not disturb
    del junk
    return outs


def non_current_device(cpu):
    """Tensors on another NPU than the current one: the extension's device guard launches on the
    tensors' device and stream."""
    if torch.npu.device_count() < 2:
        return None, "skipped: only one NPU visible"
    other = torch.device("npu", (DEVICE_INDEX + 1) % torch.npu.device_count())
    torch.npu.set_device(DEV)
    quiet = quiet_result(cpu, other)
    torch.npu.set_device(DEV)
    grads = call([t.to(other) for t in cpu])
    assert all(g.device == other for g in grads), [g.device for g in grads]
    return (grads, quiet), ""


def autograd_and_compile(cpu):
    """The torch.library op on NPU tensors (autograd's path and torch.compile's) takes the
    extension's PrivateUse1 kernel."""
    inputs = [t.to(DEV) for t in cpu]
    eager = torch.ops.ascend_dcn.deformable_conv2d_backward(*inputs, *ATTRS.values())
    compiled = torch.compile(lambda *a: torch.ops.ascend_dcn.deformable_conv2d_backward(*a), backend="aot_eager")
    return eager, compiled(*inputs, *ATTRS.values())


def main():
    torch.npu.set_device(DEV)
    cpu, gold = make_inputs()
    quiet = quiet_result(cpu, DEV)
    report = {}

    def record(name, fn):
        try:
            report[name] = fn()
        except Exception:  # noqa: BLE001 - reported to the parent
            report[name] = {"ok": False, "detail": traceback.format_exc()[-2000:]}

    def chain():
        problems = compare(produced_by_queued_chain(cpu), quiet, gold)
        return {"ok": not problems, "detail": "; ".join(problems)}

    def freed():
        grads, wrong = freed_blocks_reused(cpu)
        problems = compare(grads, quiet, gold) + [f"queued reader {i} saw {s}, expected {e}" for i, s, e in wrong]
        return {"ok": not problems, "detail": "; ".join(problems)}

    def two_phase():
        problems = compare(two_phase_between_operators(cpu), quiet, gold)
        return {"ok": not problems, "detail": "; ".join(problems)}

    def other_device():
        result, why = non_current_device(cpu)
        if result is None:
            return {"ok": True, "skipped": why, "detail": why}
        grads, other_quiet = result
        problems = compare(grads, other_quiet, gold)
        return {"ok": not problems, "detail": "; ".join(problems)}

    def library_op():
        eager, compiled = autograd_and_compile(cpu)
        problems = compare(eager, quiet, gold) + compare(compiled, quiet, gold)
        return {"ok": not problems, "detail": "; ".join(problems)}

    record("queued_producers", chain)
    record("freed_blocks_reused", freed)
    record("two_phase_between_operators", two_phase)
    record("non_current_device", other_device)
    record("torch_library_op_and_compile", library_op)
    torch.npu.synchronize()
    print(json.dumps(report))


if __name__ == "__main__":
    sys.exit(main())
