"""Named golden cases for the backward operator, their generation from the float64 reference, and
their on-disk form (.bin + manifest.json) used by scripts/gen_golden.py and scripts/verify_result.py.

Generation (make_golden): random float64 values are drawn with a seeded torch.Generator, rounded
to the case dtype, and the reference is evaluated on the ROUNDED values: offset_out is the forward
deformOut rounded to the case dtype and the backward consumes it as given — exactly what a kernel
receives. Expected outputs are stored both in the case dtype and as float64 copies.

.bin files are raw little-endian C-order arrays; bfloat16 is stored as its 16-bit pattern.
Manifest (JSON): {"format_version": 1, "case", "dtype", "seed", "attrs": {kernel_size, stride,
padding, dilation, groups, deformable_groups, modulated}, "inputs": [entry], "outputs": [entry],
"forward_outputs": [entry]} with entry = {"name", "file", "shape", "dtype"} and, for outputs,
"file_fp64" (float64 golden). Inputs: input, weight, offset, bias, grad_output, offset_out.
Backward outputs: grad_input, grad_weight, grad_offset, grad_bias. Forward outputs: out.
"""

import json
import os
from dataclasses import asdict, dataclass, field

import numpy as np
import torch

from . import reference

__all__ = ["GoldenCase", "CASES", "make_golden", "write_golden", "load_manifest", "save_bin", "load_bin",
           "TORCH_DTYPES"]

TORCH_DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
                "float64": torch.float64}


@dataclass(frozen=True)
class GoldenCase:
    N: int
    Cin: int
    Cout: int
    H: int
    W: int
    kernel_size: tuple = (3, 3)
    stride: tuple = (1, 1, 1, 1)
    padding: tuple = (1, 1, 1, 1)
    dilation: tuple = (1, 1, 1, 1)
    groups: int = 1
    deformable_groups: int = 1
    modulated: bool = True
    offset_range: float = 2.0        # offsets ~ U(-r, r)
    integer_offsets: bool = False    # round offsets to integers (boundary cases)
    note: str = field(default="", compare=False)

    def attrs(self):
        return {"kernel_size": list(self.kernel_size), "stride": list(self.stride),
                "padding": list(self.padding), "dilation": list(self.dilation), "groups": self.groups,
                "deformable_groups": self.deformable_groups, "modulated": self.modulated}


def _row(N, C, Co, H, W, s=1, g=1, dg=1, note=""):
    return GoldenCase(N, C, Co, H, W, stride=(1, 1, s, s), groups=g, deformable_groups=dg, note=note)


CASES = {
    "doc_example": GoldenCase(1, 6, 4, 2, 4, kernel_size=(5, 5), padding=(2, 2, 2, 2), groups=2,
                              note="DOC-B call example shapes (op-semantics §6.5)"),
    "tiny": GoldenCase(1, 2, 2, 4, 4, note="smallest 3x3 case"),
    "groups2_dg2_asym": GoldenCase(2, 4, 6, 6, 7, kernel_size=(3, 2), stride=(1, 1, 2, 1),
                                   padding=(1, 0, 1, 2), dilation=(1, 1, 1, 2), groups=2,
                                   deformable_groups=2, note="groups 2, dg 2, asymmetric attrs"),
    "dcnv1": GoldenCase(1, 4, 4, 5, 5, modulated=False, note="modulated=False, [dx|dy] offsets"),
    "edge_minus1": GoldenCase(1, 4, 4, 5, 5, offset_range=0.0,
                              note="zero offsets + padding 1: samples exactly at y/x == -1"),
    "integer_offsets": GoldenCase(1, 4, 4, 5, 6, offset_range=3.0, integer_offsets=True,
                                  note="integer offsets: shifted grid, exact corners"),
    "far_offsets": GoldenCase(1, 4, 4, 6, 6, offset_range=60.0, note="|offset| up to 60: most samples outside"),
    "tail_c24_dil2": GoldenCase(1, 24, 8, 8, 8, dilation=(1, 1, 2, 2), padding=(2, 2, 2, 2),
                                note="Cin not a multiple of 16, dilation 2"),
    # Scaled-down rows of landscape.md §5 (N <= 2, channels <= 32, spatial <= 12).
    "suite_row1_small": _row(1, 16, 16, 12, 12, s=2, note="R50-DCN c3 entry, stride 2"),
    "suite_row2_small": _row(1, 16, 16, 8, 10, note="R50-DCN c3 body"),
    "suite_row3_small": _row(1, 32, 32, 8, 8, note="R50-DCN c4 body"),
    "suite_row4_small": _row(1, 32, 32, 6, 6, note="R50-DCN c5 body"),
    "suite_row5_small": _row(1, 16, 16, 8, 8, dg=4, note="mdconv dg=4 c4"),
    "suite_row6_small": _row(1, 32, 32, 6, 6, g=32, note="X101 groups=32 (Cin/groups = 1)"),
    "suite_row7_small": _row(2, 32, 16, 6, 6, note="CenterNet up-path #1"),
    "suite_row8_small": _row(2, 16, 8, 12, 12, note="CenterNet up-path #3"),
    "suite_row9_small": _row(1, 16, 16, 10, 10, dg=8, note="EDVR PCD L1 dg=8"),
    "suite_row10_small": _row(2, 16, 16, 6, 6, dg=8, note="EDVR PCD L3 dg=8"),
    "suite_row11_small": _row(1, 32, 16, 8, 8, dg=16, note="BasicVSR++ dg=16"),
    "suite_row12_small": _row(1, 32, 32, 7, 7, note="PP-YOLO c5"),
}


def _round(t, dtype):
    """float64 -> case dtype -> float64 (values exactly representable in the case dtype)."""
    return t.to(TORCH_DTYPES[dtype]).to(torch.float64)


def make_golden(case, dtype="float32", seed=0):
    """Inputs (float64 tensors holding case-dtype values), backward outputs and forward outputs
    (float64), for GoldenCase ``case`` (or its name)."""
    if isinstance(case, str):
        case = CASES[case]
    if dtype not in ("float32", "float16", "bfloat16"):
        raise ValueError(f"dtype: must be float32, float16 or bfloat16; got {dtype}")
    gen = torch.Generator().manual_seed(int(seed))
    a = case.attrs()
    ks, st, pd, dl = a["kernel_size"], a["stride"], a["padding"], a["dilation"]
    Ho, Wo = reference.out_hw(case.H, case.W, ks, st, pd, dl)
    if Ho <= 0 or Wo <= 0:
        raise ValueError(f"case: output size ({Ho}, {Wo}) must be positive")
    K = ks[0] * ks[1]
    dg, g = case.deformable_groups, case.groups
    f64 = torch.float64
    x = _round(torch.randn(case.N, case.Cin, case.H, case.W, generator=gen, dtype=f64), dtype)
    fan_in = (case.Cin // g) * K
    w = _round(torch.randn(case.Cout, case.Cin // g, ks[0], ks[1], generator=gen, dtype=f64)
               / fan_in ** 0.5, dtype)
    xy = (torch.rand(case.N, 2 * dg * K, Ho, Wo, generator=gen, dtype=f64) * 2 - 1) * case.offset_range
    if case.integer_offsets:
        xy = torch.round(xy)
    blocks = [xy]
    if case.modulated:
        blocks.append(torch.rand(case.N, dg * K, Ho, Wo, generator=gen, dtype=f64))
    offset = _round(torch.cat(blocks, dim=1), dtype)
    bias = _round(torch.randn(case.Cout, generator=gen, dtype=f64), dtype)
    grad_output = _round(torch.randn(case.N, case.Cout, Ho, Wo, generator=gen, dtype=f64), dtype)
    out, offset_out = reference.deformable_conv2d(x, w, offset, bias, ks, st, pd, dl, g, dg, case.modulated)
    offset_out = _round(offset_out, dtype)
    grads = reference.deformable_conv2d_backward(x, grad_output, offset_out, w, offset, ks, st, pd, dl,
                                                 g, dg, case.modulated)
    inputs = {"input": x, "weight": w, "offset": offset, "bias": bias, "grad_output": grad_output,
              "offset_out": offset_out}
    outputs = dict(zip(("grad_input", "grad_weight", "grad_offset", "grad_bias"), grads))
    return {"case": case, "dtype": dtype, "seed": int(seed), "attrs": a, "inputs": inputs,
            "outputs": outputs, "forward_outputs": {"out": out}}


def save_bin(path, tensor, dtype):
    """Write ``tensor`` converted to ``dtype`` (name) as raw little-endian bytes."""
    t = tensor.detach().to("cpu", TORCH_DTYPES[dtype]).contiguous()
    if dtype == "bfloat16":
        arr = t.view(torch.int16).numpy().astype("<i2")
    else:
        arr = t.numpy().astype(np.dtype(dtype).newbyteorder("<"))
    arr.tofile(path)


def load_bin(path, dtype, shape):
    """Read a raw .bin written by save_bin -> float64 torch tensor of ``shape``."""
    count = int(np.prod(shape)) if len(shape) else 1
    if dtype == "bfloat16":
        raw = np.fromfile(path, dtype="<i2")
        t = torch.from_numpy(raw.astype(np.int16)).view(torch.bfloat16)
    else:
        raw = np.fromfile(path, dtype=np.dtype(dtype).newbyteorder("<"))
        t = torch.from_numpy(raw.astype(np.dtype(dtype)))
    if raw.size != count:
        raise ValueError(f"{path}: expected {count} {dtype} elements for shape {list(shape)}, got {raw.size}")
    return t.to(torch.float64).reshape(list(shape))


def write_golden(golden, out_dir):
    """Write the result of make_golden to ``out_dir`` (.bin files + manifest.json); return manifest path."""
    os.makedirs(out_dir, exist_ok=True)
    dtype = golden["dtype"]

    def entry(name, t, with_fp64):
        e = {"name": name, "file": f"{name}.bin", "shape": list(t.shape), "dtype": dtype}
        save_bin(os.path.join(out_dir, e["file"]), t, dtype)
        if with_fp64:
            e["file_fp64"] = f"{name}.fp64.bin"
            save_bin(os.path.join(out_dir, e["file_fp64"]), t, "float64")
        return e

    case = golden["case"]
    manifest = {
        "format_version": 1,
        "case": next((k for k, v in CASES.items() if v == case), "custom"),
        "note": case.note,
        "dtype": dtype,
        "seed": golden["seed"],
        "attrs": golden["attrs"],
        "case_params": {k: v for k, v in asdict(case).items() if k != "note"},
        "inputs": [entry(k, v, False) for k, v in golden["inputs"].items()],
        "outputs": [entry(k, v, True) for k, v in golden["outputs"].items()],
        "forward_outputs": [entry(k, v, True) for k, v in golden["forward_outputs"].items()],
    }
    path = os.path.join(out_dir, "manifest.json")
    with open(path, "w") as f:
        json.dump(manifest, f, indent=2)
    return path


def load_manifest(path):
    with open(path) as f:
        return json.load(f)
