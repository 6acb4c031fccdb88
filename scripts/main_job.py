#!/usr/bin/env python3
"""The main job: aclnnDeformableConv2dBackward on a realistic DCN layer, checked for correctness.

Runs the operator through the best available backend — the installed vendor package on an
Ascend NPU when torch_npu, CANN and our package are present, otherwise the CPU twin — on a
layer from the benchmark suite (ascend_dcn/suite.py), and compares all four gradients
with the float64 reference under CANN's precision standard (fp32: double ten-thousandth,
fp16/bf16: double thousandth). Exit code 0 = PASS.

    python scripts/main_job.py [--layer edvr_l1|r50_c5|...] [--dtype float32|float16|bfloat16]
"""
import argparse
import sys
import time

import torch

from ascend_dcn import ops, precision, reference, suite


def _layer(index):
    """(N, Cin, Cout, H, W, K, stride, pad, dil, groups, dg) of suite row ``index``."""
    r = suite.row(index)
    return (r.n, r.cin, r.cout, r.h, r.w, 3, r.stride, 1, 1, r.groups, r.dg)


# Rows of the benchmark suite. The CPU twin runs the full kernel on the CPU, so the default is a
# realistic layer of moderate size; the larger rows run too, only slower.
LAYERS = {
    "edvr_l3": _layer(10),       # EDVR PCD L3, dg=8
    "r50_c5": _layer(4),         # mmdet R50-DCN c5
    "edvr_l1": _layer(9),        # EDVR PCD L1, dg=8
    "r50_c4_dg4": _layer(5),     # DCNv2 dg=4
}
DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


def pick_device():
    try:
        from ascend_dcn import npu
        info = npu.backend_info()
        if info.get("selected_backend") == "npu":
            return torch.device("npu"), "NPU (installed vendor package)"
    except Exception:  # noqa: BLE001 - any failure to find the NPU path means: use the twin
        pass
    return torch.device("cpu"), "CPU twin"


def make_layer(spec, dtype, device, seed=0):
    n, cin, cout, h, w, k, s, p, d, groups, dg = spec
    g = torch.Generator().manual_seed(seed)
    kernel_size = [k, k]
    stride, padding, dilation = [1, 1, s, s], [p, p, p, p], [1, 1, d, d]
    ho = (h + 2 * p - ((k - 1) * d + 1)) // s + 1
    wo = (w + 2 * p - ((k - 1) * d + 1)) // s + 1
    x = torch.randn(n, cin, h, w, generator=g)
    weight = torch.randn(cout, cin // groups, k, k, generator=g) * (cin // groups * k * k) ** -0.5
    offset = torch.randn(n, 3 * dg * k * k, ho, wo, generator=g) * 2.0
    offset[:, 2 * dg * k * k:] = torch.sigmoid(offset[:, 2 * dg * k * k:])
    grad_out = torch.randn(n, cout, ho, wo, generator=g)
    _, offset_out = reference.deformable_conv2d(
        x, weight, offset, None, kernel_size, stride, padding, dilation, groups, dg, True)
    args = [t.to(dtype) for t in (x, grad_out, offset_out, weight, offset)]
    attrs = (kernel_size, stride, padding, dilation, groups, dg, True)
    return args, attrs


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--layer", default="r50_c5", choices=sorted(LAYERS))
    parser.add_argument("--dtype", default="float32", choices=sorted(DTYPES))
    opts = parser.parse_args()

    dtype = DTYPES[opts.dtype]
    device, backend = pick_device()
    spec = LAYERS[opts.layer]
    print(f"layer {opts.layer}: N,Cin,Cout,H,W,K,s,p,d,g,dg = {spec}; dtype {opts.dtype}; backend {backend}")
    args, attrs = make_layer(spec, dtype, device)

    start = time.perf_counter()
    got = ops.deformable_conv2d_backward(*[a.to(device) for a in args], *attrs)
    elapsed = time.perf_counter() - start
    print(f"operator: {elapsed:.2f} s")
    again = ops.deformable_conv2d_backward(*[a.to(device) for a in args], *attrs)
    deterministic = all(torch.equal(a, b) for a, b in zip(got, again))
    print(f"second run bitwise identical: {deterministic}")

    start = time.perf_counter()
    want = reference.deformable_conv2d_backward(*[a.double() for a in args], *attrs)
    print(f"float64 reference: {time.perf_counter() - start:.2f} s")

    ok = deterministic
    for name, g, r in zip(("grad_input", "grad_weight", "grad_offset", "grad_bias"), got, want):
        res = precision.check_precision(g.cpu(), r, dtype)
        ok &= bool(res.passed)
        verdict = "PASS" if res.passed else "FAIL"
        print(f"  {name:12s} {tuple(g.shape)!s:22s} {verdict}  error ratio {res.error_ratio:.2e} "
              f"(limit {res.threshold:g}), max rel err {res.max_rel_err:.2e}")
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
