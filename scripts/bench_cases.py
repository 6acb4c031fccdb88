"""The benchmark suite (ascend_dcn/suite.py, the one table) as scaled cases, and the deterministic
inputs every benchmark side shares.

A case is one DeformableConv2dBackward call in the Ascend layouts of the contract
(docs/aclnnDeformableConv2dBackward.md):
  input [N, Cin, H, W], weight [Cout, Cin/groups, KH, KW], offset [N, 3*dg*K, Ho, Wo]
  ([dx | dy | mask]; 2 blocks when modulated=False), grad_output [N, Cout, Ho, Wo],
  offset_out [N, Cin, Ho*KH, Wo*KW] (the forward's deformOut, from the float64 reference).
Attributes in aclnn form: stride/dilation [1, 1, h, w], padding [top, bottom, left, right].

Scaling (``suite_case(row, scale)``): about 1/scale of the layer's pixels N*H*W: the batch is divided
first, what is left of the factor divides H and W by its square root each (at least 8x8); channels,
kernel, stride, groups and deformable groups are kept, so the per-pixel work is that of the real layer.

This module imports torch and ascend_dcn.reference only (no twin), and must keep working under the
separate torchvision venv's torch too (the torchvision worker imports ``attrs``/``out_hw``; there the
suite table is loaded by file path, the package not being installed).
"""
import importlib.util
import math
import os
from dataclasses import dataclass


def _load_suite():
    try:
        from ascend_dcn import suite
        return suite
    except ImportError:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "ascend_dcn", "suite.py")
        spec = importlib.util.spec_from_file_location("ascend_dcn_suite", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod


_suite = _load_suite()
# name, N, Cin, Cout, H, W, stride, groups, dg  (K = 3x3, padding 1, dilation 1, modulated)
SUITE = [(f"{r.key} {r.label}", r.n, r.cin, r.cout, r.h, r.w, r.stride, r.groups, r.dg) for r in _suite.SUITE]


@dataclass(frozen=True)
class Case:
    name: str
    n: int
    cin: int
    cout: int
    h: int
    w: int
    kh: int = 3
    kw: int = 3
    stride: tuple = (1, 1)
    padding: tuple = (1, 1, 1, 1)   # top, bottom, left, right
    dilation: tuple = (1, 1)
    groups: int = 1
    dg: int = 1
    modulated: bool = True

    @property
    def k(self):
        return self.kh * self.kw

    @property
    def attrs(self):
        """Keyword arguments of ascend_dcn.ops / reference (aclnn attribute forms)."""
        return dict(kernel_size=[self.kh, self.kw], stride=[1, 1, *self.stride], padding=list(self.padding),
                    dilation=[1, 1, *self.dilation], groups=self.groups, deformable_groups=self.dg,
                    modulated=self.modulated)

    @property
    def out_hw(self):
        ho = (self.h + self.padding[0] + self.padding[1] - ((self.kh - 1) * self.dilation[0] + 1)) // self.stride[0] + 1
        wo = (self.w + self.padding[2] + self.padding[3] - ((self.kw - 1) * self.dilation[1] + 1)) // self.stride[1] + 1
        return ho, wo

    def shape_text(self):
        extra = "".join([f" g{self.groups}" if self.groups > 1 else "", f" dg{self.dg}" if self.dg > 1 else "",
                         f" s{self.stride[0]}" if self.stride != (1, 1) else "", "" if self.modulated else " v1"])
        return f"{self.n}x{self.cin}x{self.h}x{self.w}->{self.cout}{extra}"


MIN_HW = 8


def scaled_dims(n, h, w, scale):
    """(N', H', W') with N'*H'*W' ~ N*H*W / scale: the batch is divided first (N' >= 1), the factor
    left over divides H and W by its square root each (never below MIN_HW pixels, nor above H, W)."""
    if scale < 1:
        raise ValueError(f"scale: must be >= 1; got {scale}")
    n2 = max(1, n // scale)
    rest = scale * n2 / n            # factor still to take from the spatial size (<= 1 means none)
    side = math.sqrt(rest) if rest > 1 else 1.0
    h2 = min(h, max(MIN_HW, int(round(h / side))))
    w2 = min(w, max(MIN_HW, int(round(w / side))))
    return n2, h2, w2


def suite_case(index, scale=1):
    """Row ``index`` (1-based) of the suite with about 1/``scale`` of its pixels (``scaled_dims``)."""
    if not 1 <= index <= len(SUITE):
        raise ValueError(f"row: must be in 1..{len(SUITE)}; got {index}")
    name, n, cin, cout, h, w, s, g, dg = SUITE[index - 1]
    n2, h2, w2 = scaled_dims(n, h, w, scale)
    return Case(name, n2, cin, cout, h2, w2, stride=(s, s), groups=g, dg=dg)


def parse_rows(text):
    """'1,3,5-7' -> [1, 3, 5, 6, 7]; '' -> all rows."""
    if not text:
        return list(range(1, len(SUITE) + 1))
    rows = []
    for part in text.split(","):
        lo, _, hi = part.strip().partition("-")
        try:
            rows.extend(range(int(lo), int(hi or lo) + 1))
        except ValueError:
            raise ValueError(f"rows: expected numbers like '1,3,5-7'; got {text!r}") from None
    for r in rows:
        if not 1 <= r <= len(SUITE):
            raise ValueError(f"rows: row numbers must be in 1..{len(SUITE)}; got {r}")
    return rows


def gemm_flops(case):
    """FLOPs of the two products of the backward (columns gradient and grad_weight): 2 x 2*N*Cout*(Cin/g)*K*Ho*Wo."""
    ho, wo = case.out_hw
    return 2 * 2 * case.n * case.cout * (case.cin // case.groups) * case.k * ho * wo


def make_inputs(case, dtype_name, seed=0):
    """Deterministic inputs (dict of CPU tensors in ``dtype_name``); offset_out = the float64 reference
    forward's deformOut rounded to the dtype, offsets ~ N(0, 1.5^2) pixels, mask ~ U(0, 1)."""
    import torch
    from ascend_dcn import reference

    dtypes = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
              "float64": torch.float64}
    if dtype_name not in dtypes:
        raise ValueError(f"dtype: one of {sorted(dtypes)}; got {dtype_name!r}")
    g = torch.Generator().manual_seed(seed)
    ho, wo = case.out_hw
    f64 = torch.float64
    x = torch.randn(case.n, case.cin, case.h, case.w, generator=g, dtype=f64)
    weight = torch.randn(case.cout, case.cin // case.groups, case.kh, case.kw, generator=g, dtype=f64)
    weight /= math.sqrt(weight[0].numel())
    blocks = 3 if case.modulated else 2
    off = torch.randn(case.n, blocks * case.dg * case.k, ho, wo, generator=g, dtype=f64) * 1.5
    if case.modulated:
        off[:, 2 * case.dg * case.k:] = torch.rand(case.n, case.dg * case.k, ho, wo, generator=g, dtype=f64)
    go = torch.randn(case.n, case.cout, ho, wo, generator=g, dtype=f64)
    t = dtypes[dtype_name]
    x, weight, off, go = (v.to(t) for v in (x, weight, off, go))
    a = case.attrs
    d = reference.deform_sample(x, off, a["kernel_size"], a["stride"], a["padding"], a["dilation"],
                                case.dg, case.modulated).to(t)
    return dict(input=x, grad_output=go, offset_out=d, weight=weight, offset=off)


def input_bytes(case, elt):
    """Bytes of the five inputs and the four outputs (each read / written once: the HBM minimum)."""
    ho, wo = case.out_hw
    hw, howo = case.h * case.w, ho * wo
    off_ch = (3 if case.modulated else 2) * case.dg * case.k
    inputs = (case.n * case.cin * hw + case.n * case.cout * howo + case.n * case.cin * case.k * howo
              + case.cout * (case.cin // case.groups) * case.k + case.n * off_ch * howo)
    outputs = case.n * case.cin * hw + case.cout * (case.cin // case.groups) * case.k + case.n * off_ch * howo + case.cout
    return inputs * elt, outputs * elt
