#!/usr/bin/env python3
"""One side of the benchmark, in its own process (so its peak memory is its own).

    python scripts/bench_worker.py --impl ours|ours-lean|torch|torchvision --case CASE.pt --out OUT.pt

CASE.pt (written by bench.py with torch.save): {"case": dict of bench_cases.Case fields,
"inputs": dict of the five input tensors (Ascend layouts), "dtype": name}.

Every side is a layer as a user trains it: leaves input, weight, offset (requires_grad, no bias),
``out = layer(...)`` (the forward), ``out.backward(grad_output)`` (the backward).
  ours        torch.ops.ascend_dcn.deformable_conv2d, save_deform_out=True (standard mode): our CPU
              forward (ascend_dcn.forward) and, as the backward, our operator on the twin
  ours-lean   the same with save_deform_out=False (memory-saving mode: deformOut is not kept; the
              backward recomputes it)
  torch       plain PyTorch forward + autograd (scripts/bench_torch_dcn.py)
  torchvision torchvision.ops.deform_conv2d (its CPU kernels; offsets converted by ascend_dcn.layouts
              outside the timed part)

Protocol (stdout lines starting with "@@ " are JSON messages; anything else is ignored by bench.py):
  1. warm-up on a tiny case (library loading, thread pools, first-call costs stay out of the figures),
     then "@@ {"loaded": true}"; waits for the line "measure" on stdin (workers load in parallel,
     but measure their memory one at a time);
  2. memory: the peak resident set (VmHWM, reset through /proc/self/clear_refs; ru_maxrss where that
     is not allowed) minus the RSS before the window, read after the forward ("fwd_kib": what the
     forward needs, including what it keeps for the backward) and after the backward ("step_kib":
     the whole training step); the gradients (Ascend layouts) are saved to OUT.pt;
  3. then per line "run" on stdin: fresh leaves (untimed), one timed forward, one timed backward
     -> "@@ {"forward": s, "backward": s}"; "quit" ends.

Runs under the project venv (ours, ours-lean, torch) or the torchvision venv (torchvision only: it
imports nothing of ascend_dcn but layouts.py and suite.py, loaded by file path).
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


def load_layouts():
    """ascend_dcn/layouts.py by path (no package import: the torchvision venv lacks the extension)."""
    spec = importlib.util.spec_from_file_location("bench_layouts", os.path.join(PY_SRC, "ascend_dcn", "layouts.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class Side:
    """A layer under training: ``prepare`` makes fresh leaves (untimed), ``forward`` returns the
    output, ``backward`` runs autograd, ``grads`` gives (grad_input, grad_weight, grad_offset,
    grad_bias) in the Ascend layouts."""

    def __init__(self, inputs, attrs, twin_aiv=0):
        self.inputs, self.attrs = inputs, attrs
        self.go = inputs["grad_output"]

    def leaves(self, offset):
        self.x = self.inputs["input"].detach().clone().requires_grad_(True)
        self.w = self.inputs["weight"].detach().clone().requires_grad_(True)
        self.off = offset.detach().clone().requires_grad_(True)

    def prepare(self):
        self.leaves(self.inputs["offset"])

    def backward(self, out):
        out.backward(self.go)

    def grads(self):
        return self.x.grad, self.w.grad, self.off.grad, self.go.sum(dim=(0, 2, 3))


class Ours(Side):
    save_deform_out = True

    def __init__(self, inputs, attrs, twin_aiv=0):
        super().__init__(inputs, attrs)
        import ascend_dcn  # noqa: F401  (registers the ops and their autograd)
        from ascend_dcn import _backend
        if twin_aiv:
            _backend.twin_set_platform("Ascend910B2", int(twin_aiv))

    def forward(self):
        a = self.attrs
        out, _ = torch.ops.ascend_dcn.deformable_conv2d(
            self.x, self.w, self.off, None, a["kernel_size"], a["stride"], a["padding"], a["dilation"],
            a["groups"], a["deformable_groups"], a["modulated"], self.save_deform_out)
        return out


class OursLean(Ours):
    save_deform_out = False


class PlainTorch(Side):
    def forward(self):
        a = self.attrs
        return bench_torch_dcn.deform_conv2d(self.x, self.w, self.off, a["kernel_size"], a["stride"], a["padding"],
                                             a["dilation"], a["groups"], a["deformable_groups"], a["modulated"])


class TorchVision(Side):
    """torchvision.ops.deform_conv2d (CPU kernels, float32); offsets in torchvision's layout
    (interleaved (dy, dx) pairs + separate mask), converted with ascend_dcn.layouts untimed."""

    def __init__(self, inputs, attrs, twin_aiv=0):
        from torchvision.ops import deform_conv2d
        self.deform_conv2d = deform_conv2d
        self.layouts = load_layouts()
        pad = attrs["padding"]
        if pad[0] != pad[1] or pad[2] != pad[3]:
            raise ValueError(f"padding: torchvision needs symmetric padding; got {pad}")
        super().__init__({k: v.float() for k, v in inputs.items()}, attrs)
        off, mask = self.layouts.ascend_to_tv_offset(self.inputs["offset"], modulated=attrs["modulated"])
        self.off_tv, self.mask_tv = off.contiguous(), (None if mask is None else mask.contiguous())

    def prepare(self):
        self.leaves(self.off_tv)
        self.mask = None if self.mask_tv is None else self.mask_tv.detach().clone().requires_grad_(True)

    def forward(self):
        a = self.attrs
        return self.deform_conv2d(self.x, self.off, self.w, None, stride=tuple(a["stride"][2:]),
                                  padding=(a["padding"][0], a["padding"][2]),
                                  dilation=tuple(a["dilation"][2:]), mask=self.mask)

    def grads(self):
        gmask = None if self.mask is None else self.mask.grad
        goff = self.layouts.tv_grad_to_ascend(self.off.grad, gmask, modulated=self.attrs["modulated"])
        return self.x.grad, self.w.grad, goff, self.go.sum(dim=(0, 2, 3))


IMPLS = {"ours": Ours, "ours-lean": OursLean, "torch": PlainTorch, "torchvision": TorchVision}


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
    warm.backward(warm.forward())
    del warm

    impl = impl_cls(blob["inputs"], case.attrs, args.twin_aiv)
    emit(loaded=True)
    if sys.stdin.readline().strip() != "measure":  # bench.py opens the memory windows one at a time
        return 1
    impl.prepare()
    base, method = reset_peak_rss()
    out = impl.forward()
    fwd_peak = peak_rss_kib(method) - base
    impl.backward(out)
    del out
    step_peak = peak_rss_kib(method) - base
    torch.save([g.detach() for g in impl.grads()], args.out)
    emit(ready=True, fwd_kib=fwd_peak, step_kib=step_peak, memory_method=method,
         threads=torch.get_num_threads(), torch=torch.__version__)
    for line in sys.stdin:
        cmd = line.strip()
        if cmd == "run":
            impl.prepare()
            t0 = time.perf_counter()
            out = impl.forward()
            t1 = time.perf_counter()
            impl.backward(out)
            t2 = time.perf_counter()
            del out
            emit(forward=t1 - t0, backward=t2 - t1)
        elif cmd == "quit":
            break
        elif cmd:
            emit(error=f"unknown command {cmd!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
