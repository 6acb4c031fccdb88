#!/usr/bin/env python3
"""One side of the benchmark, in its own process (so its peak memory is its own).

    python scripts/bench_worker.py --impl ours|torch|reference|torchvision --case CASE.pt --out OUT.pt

CASE.pt (written by bench.py with torch.save): {"case": dict of bench_cases.Case fields,
"inputs": dict of the five input tensors (Ascend layouts), "dtype": name}.

Protocol (stdout lines starting with "@@ " are JSON messages; anything else is ignored by bench.py):
  1. warm-up on a tiny case (library loading, thread pools, first-call costs stay out of the figures),
     then "@@ {"loaded": true}"; waits for the line "measure" on stdin (workers load in parallel,
     but measure their memory one at a time);
  2. memory: peak resident set (VmHWM, reset through /proc/self/clear_refs; ru_maxrss where that is
     not allowed) during one full computation of the four gradients minus the RSS before it ->
     "peak_kib" (growth of the peak resident set above the loaded inputs; for the autograd peers this includes
     building the forward graph, whose saved tensors the backward needs); the gradients are saved to
     OUT.pt in the Ascend layouts (float64 for the reference) and reported in "@@ {ready...}";
  3. then per line "run" on stdin: one timed backward -> "@@ {"seconds": s}"; "quit" ends.
Timed part: ours = ascend_dcn.ops.deformable_conv2d_backward (validation, output allocation, twin
launch); reference = ascend_dcn.reference.deformable_conv2d_backward on float64 inputs; torch /
torchvision = ``out.backward(grad_output)`` only (their forward graph is built untimed before).

Runs under the project venv (ours, torch, reference) or the torchvision venv (torchvision only: it
imports nothing of ascend_dcn but layouts.py, loaded by file path).
"""
import argparse
import importlib.util
import json
import os
import resource
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PY_SRC = os.path.join(HERE, "..", "python")
sys.path.insert(0, HERE)

import torch  # noqa: E402

import bench_cases  # noqa: E402
import bench_torch_dcn  # noqa: E402


def emit(**msg):
    sys.stdout.write("@@ " + json.dumps(msg) + "\n")
    sys.stdout.flush()


def _status_kib(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise KeyError(key)


def reset_peak_rss():
    """Start a memory window: returns (current RSS KiB, method). Linux >= 4.0 resets the peak RSS
    (VmHWM) to the current RSS when "5" is written to /proc/self/clear_refs; where that is not
    allowed, the window falls back to ru_maxrss, whose delta only shows growth beyond the earlier peak."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return _status_kib("VmRSS"), "VmHWM"
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "ru_maxrss"


def peak_rss_kib(method):
    if method == "VmHWM":
        return _status_kib("VmHWM")
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux


def import_ascend_dcn():
    try:
        import ascend_dcn  # noqa: F401
    except ImportError:
        sys.path.insert(0, PY_SRC)


def load_layouts():
    """ascend_dcn/layouts.py by path (no package import: the torchvision venv lacks the extension)."""
    spec = importlib.util.spec_from_file_location("bench_layouts", os.path.join(PY_SRC, "ascend_dcn", "layouts.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class Ours:
    def __init__(self, inputs, attrs, twin_aiv=0):
        import_ascend_dcn()
        from ascend_dcn import _backend, ops
        if twin_aiv:
            _backend.twin_set_platform("Ascend910B2", int(twin_aiv))
        self.ops, self.inputs, self.attrs = ops, inputs, attrs

    def prepare(self):
        pass

    def run(self):
        i, a = self.inputs, self.attrs
        return self.ops.deformable_conv2d_backward(i["input"], i["grad_output"], i["offset_out"], i["weight"],
                                                   i["offset"], a["kernel_size"], a["stride"], a["padding"],
                                                   a["dilation"], a["groups"], a["deformable_groups"], a["modulated"])

    def to_ascend(self, grads):
        return grads


class Reference(Ours):
    def __init__(self, inputs, attrs, twin_aiv=0):
        import_ascend_dcn()
        from ascend_dcn import reference
        self.reference = reference
        self.inputs = {k: v.to(torch.float64) for k, v in inputs.items()}
        self.attrs = attrs

    def run(self):
        i, a = self.inputs, self.attrs
        return self.reference.deformable_conv2d_backward(
            i["input"], i["grad_output"], i["offset_out"], i["weight"], i["offset"], a["kernel_size"], a["stride"],
            a["padding"], a["dilation"], a["groups"], a["deformable_groups"], a["modulated"])


class PlainTorch(Ours):
    def __init__(self, inputs, attrs, twin_aiv=0):
        self.runner = bench_torch_dcn.Runner(inputs, attrs)

    def prepare(self):
        self.runner.prepare()

    def run(self):
        return self.runner.run()


class TorchVision(Ours):
    """torchvision.ops.deform_conv2d (CPU kernels) forward untimed, backward timed; offsets and their
    gradients converted with ascend_dcn.layouts (interleaved (dy, dx) pairs + separate mask)."""

    def __init__(self, inputs, attrs, twin_aiv=0):
        from torchvision.ops import deform_conv2d
        self.deform_conv2d = deform_conv2d
        self.layouts = load_layouts()
        pad = attrs["padding"]
        if pad[0] != pad[1] or pad[2] != pad[3]:
            raise ValueError(f"padding: torchvision needs symmetric padding; got {pad}")
        inputs = {k: v.float() for k, v in inputs.items()}  # torchvision's CPU kernels: float32 here
        self.inputs, self.attrs = inputs, attrs
        off, mask = self.layouts.ascend_to_tv_offset(inputs["offset"], modulated=attrs["modulated"])
        self.off_tv, self.mask_tv = off.contiguous(), (None if mask is None else mask.contiguous())

    def prepare(self):
        a = self.attrs
        self.x = self.inputs["input"].detach().clone().requires_grad_(True)
        self.w = self.inputs["weight"].detach().clone().requires_grad_(True)
        self.off = self.off_tv.detach().clone().requires_grad_(True)
        self.mask = None if self.mask_tv is None else self.mask_tv.detach().clone().requires_grad_(True)
        self.out = self.deform_conv2d(self.x, self.off, self.w, None, stride=tuple(a["stride"][2:]),
                                      padding=(a["padding"][0], a["padding"][2]),
                                      dilation=tuple(a["dilation"][2:]), mask=self.mask)

    def run(self):
        go = self.inputs["grad_output"]
        self.out.backward(go)
        self.out = None
        return self.x.grad, self.w.grad, (self.off.grad, None if self.mask is None else self.mask.grad), \
            go.sum(dim=(0, 2, 3))

    def to_ascend(self, grads):
        gi, gw, (goff, gmask), gb = grads
        return gi, gw, self.layouts.tv_grad_to_ascend(goff, gmask, modulated=self.attrs["modulated"]), gb


IMPLS = {"ours": Ours, "reference": Reference, "torch": PlainTorch, "torchvision": TorchVision}


def tiny_inputs(case):
    """Random inputs for the warm-up (offset_out only needs the right shape there)."""
    g = torch.Generator().manual_seed(1)
    ho, wo = case.out_hw
    blocks = 3 if case.modulated else 2
    return dict(input=torch.randn(case.n, case.cin, case.h, case.w, generator=g),
                grad_output=torch.randn(case.n, case.cout, ho, wo, generator=g),
                offset_out=torch.randn(case.n, case.cin, ho * case.kh, wo * case.kw, generator=g),
                weight=torch.randn(case.cout, case.cin // case.groups, case.kh, case.kw, generator=g),
                offset=torch.rand(case.n, blocks * case.dg * case.k, ho, wo, generator=g))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--impl", required=True, choices=sorted(IMPLS))
    ap.add_argument("--case", required=True, help="CASE.pt written by bench.py")
    ap.add_argument("--out", required=True, help="where to torch.save the gradients")
    ap.add_argument("--twin-aiv", type=int, default=0, help="twin vector cores (0 = the twin's default)")
    args = ap.parse_args()

    blob = torch.load(args.case)
    case = bench_cases.Case(**blob["case"])
    dtype = blob["inputs"]["input"].dtype
    impl_cls = IMPLS[args.impl]

    tiny = bench_cases.Case("warm-up", 1, case.cin, case.cout, 5, 5, groups=case.groups, dg=case.dg,
                            modulated=case.modulated)
    warm = impl_cls({k: v.to(dtype) for k, v in tiny_inputs(tiny).items()}, tiny.attrs, args.twin_aiv)
    warm.prepare()
    warm.run()
    del warm

    impl = impl_cls(blob["inputs"], case.attrs, args.twin_aiv)
    emit(loaded=True)
    if sys.stdin.readline().strip() != "measure":  # bench.py opens the memory windows one at a time
        return 1
    base, method = reset_peak_rss()
    t0 = time.perf_counter()
    impl.prepare()
    grads = impl.run()
    first = time.perf_counter() - t0
    peak = peak_rss_kib(method) - base
    torch.save([g.detach() for g in impl.to_ascend(grads)], args.out)
    del grads
    emit(ready=True, peak_kib=peak, memory_method=method, first_seconds=first, threads=torch.get_num_threads(),
         torch=torch.__version__)
    for line in sys.stdin:
        cmd = line.strip()
        if cmd == "run":
            impl.prepare()
            t0 = time.perf_counter()
            impl.run()
            emit(seconds=time.perf_counter() - t0)
        elif cmd == "quit":
            break
        elif cmd:
            emit(error=f"unknown command {cmd!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
