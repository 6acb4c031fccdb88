#!/usr/bin/env python3
"""Benchmark of the operator's CPU backend (the twin) against a peer measured in the same run.

Peer: torchvision.ops.deform_conv2d backward on CPU when torchvision is importable (inputs converted
with ascend_dcn.layouts), else the float64 reference ascend_dcn.reference.deformable_conv2d_backward
(a vectorised torch implementation). Runs alternate (ours, peer, ours, peer, ...); the table reports
medians per shape, the ratio peer/ours (> 1: ours faster) and the geometric mean of the ratios.

Shapes: landscape.md §5 rows with batch and spatial sizes divided by --scale (channels, kernel,
groups, dg kept). Times depend on this machine; only the ratios are meaningful.

Usage: python scripts/bench.py [--scale 8] [--repeats 3] [--dtype float32] [--rows 1,2,3]
"""
import argparse
import math
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "python"))

import torch  # noqa: E402

from test_kernel_common import Case, make_inputs, run_reference, run_twin  # noqa: E402

ROWS = [  # name, N, Cin, Cout, H, W, stride, groups, dg  (K = 3, padding 1, dilation 1)
    ("r1 c3 entry s2", 2, 128, 128, 200, 336, 2, 1, 1),
    ("r2 c3 body", 2, 128, 128, 100, 168, 1, 1, 1),
    ("r3 c4 body", 2, 256, 256, 50, 84, 1, 1, 1),
    ("r4 c5 body", 2, 512, 512, 25, 42, 1, 1, 1),
    ("r5 c4 dg4", 2, 256, 256, 50, 84, 1, 1, 4),
    ("r6 x101 g32", 2, 512, 512, 50, 84, 1, 32, 1),
    ("r7 centernet #1", 32, 512, 256, 16, 16, 1, 1, 1),
    ("r8 centernet #3", 32, 128, 64, 64, 64, 1, 1, 1),
    ("r9 edvr L1 dg8", 8, 64, 64, 64, 64, 1, 1, 8),
    ("r10 edvr L3 dg8", 8, 64, 64, 16, 16, 1, 1, 8),
    ("r11 basicvsr dg16", 8, 128, 64, 64, 64, 1, 1, 16),
    ("r12 ppyolo c5", 8, 512, 512, 19, 19, 1, 1, 1),
]


def scaled_case(row, scale):
    name, n, cin, cout, h, w, s, g, dg = row
    n2 = max(1, n // scale)
    h2, w2 = max(3, h // scale), max(3, w // scale)
    return Case(name, n2, cin, cout, h2, w2, stride=(s, s), groups=g, dg=dg)


def torchvision_peer():
    try:
        from torchvision.ops import deform_conv2d  # noqa: F401
    except ImportError:
        return None
    from ascend_dcn import layouts
    from torchvision.ops import deform_conv2d

    def run(case, inp):
        k = case.kh * case.kw
        x = inp["input"].detach().clone().requires_grad_(True)
        w = inp["weight"].detach().clone().requires_grad_(True)
        off_tv = layouts.ascend_to_tv_offset(inp["offset"], modulated=case.modulated)
        off_tv, mask_tv = (off_tv if isinstance(off_tv, tuple) else (off_tv, None))
        off_tv = off_tv.detach().clone().requires_grad_(True)
        mask_tv = None if mask_tv is None else mask_tv.detach().clone().requires_grad_(True)
        out = deform_conv2d(x, off_tv, w, None, stride=case.stride, padding=(case.padding[0], case.padding[2]),
                            dilation=case.dilation, mask=mask_tv)
        out.backward(inp["grad_output"])
        return k
    return run


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=int, default=8, help="divide batch and spatial sizes by this")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--dtype", default="float32", choices=["float32", "float16", "bfloat16"])
    ap.add_argument("--rows", default="", help="comma-separated row numbers (1-12); default all")
    args = ap.parse_args()

    rows = ROWS if not args.rows else [ROWS[int(i) - 1] for i in args.rows.split(",")]
    tv = torchvision_peer()
    peer_name = "torchvision CPU backward" if tv else "float64 reference (torchvision not installed)"
    if tv is None:
        print("note: torchvision is not importable; the peer is ascend_dcn.reference (float64).", file=sys.stderr)
    print(f"peer: {peer_name}; dtype {args.dtype}; scale 1/{args.scale}; {args.repeats} alternating repeats; "
          f"torch threads {torch.get_num_threads()}")
    print(f"{'shape':<20} {'N':>3} {'Cin':>4} {'Cout':>4} {'HxW':>8} {'ours ms':>9} {'peer ms':>9} {'peer/ours':>9}")
    ratios = []
    for row in rows:
        case = scaled_case(row, args.scale)
        inp = make_inputs(case, args.dtype)
        ours_fn = lambda: run_twin(case, inp)  # noqa: E731
        peer_fn = (lambda: tv(case, inp)) if tv else (lambda: run_reference(case, inp))  # noqa: E731
        ours_fn()
        peer_fn()  # warm-up
        t_ours, t_peer = [], []
        for _ in range(args.repeats):
            t_ours.append(timed(ours_fn))
            t_peer.append(timed(peer_fn))
        mo, mp = statistics.median(t_ours), statistics.median(t_peer)
        ratios.append(mp / mo)
        print(f"{case.name:<20} {case.n:>3} {case.cin:>4} {case.cout:>4} {f'{case.h}x{case.w}':>8} "
              f"{mo * 1e3:>9.1f} {mp * 1e3:>9.1f} {mp / mo:>9.2f}")
    gm = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"geometric mean peer/ours: {gm:.2f}  (> 1 means the twin backend is faster than the peer)")


if __name__ == "__main__":
    main()
