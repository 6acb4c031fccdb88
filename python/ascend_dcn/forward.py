"""Forward contract of the deformable convolution (op-semantics.md §4-§6) on CPU, streamed over tiles.

Layouts (Ascend, torch_npu):
  input     [N, Cin, H, W]                     NCHW
  offset    [N, 3*dg*KH*KW, Ho, Wo]            [dx block | dy block | mask block] (modulated=True)
            [N, 2*dg*KH*KW, Ho, Wo]            [dx block | dy block]            (modulated=False)
            channel of (block b, group g, kh, kw) = b*dg*K + g*K + kh*KW + kw, K = KH*KW
  weight    [Cout, Cin/groups, KH, KW]
  deformOut [N, Cin, Ho*KH, Wo*KW]             row oh*KH+kh, column ow*KW+kw, mask multiplied in
  out       [N, Cout, Ho, Wo]                  = conv2d(deformOut, weight, bias, stride=(KH, KW), groups)
  stride = [1, 1, sH, sW], dilation = [1, 1, dH, dW], padding = [top, bottom, left, right].

Numerics: math in float32 (float64 stays float64, for gradcheck); results are returned in the input
dtype. Sampling: true floor, per-corner validity (0 <= yc < H, 0 <= xc < W), invalid corners
contribute 0 (they read a zero row, never the image); corner weights are multiplied by the mask and
accumulated in the order (y0,x0), (y0,x1), (y1,x0), (y1,x1) (KRN-A2, op-semantics §7).

Streaming (bounded memory): one image and one band of output rows at a time. Per band the sampled
values are built as columns [pixels, K, Cin] (pixel-major: one row gather of Cin/dg contiguous
values per corner, from the image transposed to [H*W (+1 zero row), Cin/dg]); the band's output is
columns x weight (one GEMM per conv group), and the band's deformOut rows are written only when
deformOut is wanted. Peak working memory beyond the outputs: one transposed image plus one band
(about BAND_BYTES; the scratch of a band also serves the channel-major copy of deformOut's rows). Bands depend on the shape only, so results are deterministic run to run. No
Python loop runs over pixels or channels; loops are over images, bands, groups and the 4 corners.

On NPU tensors the forward is torch_npu.npu_deformable_conv2d (DCNv1 runs it with a mask of ones,
which yields the identical deformOut); its outputs are cast back to the input dtype.
"""
from __future__ import annotations

from typing import Optional, Sequence, Tuple

import torch

# working-set target of one band (bytes): its columns and scratch (2 x rows*Wo*K*Cin elements) plus
# the sampling coordinates and weights (about COORD_BYTES per sample point and deformable group);
# bands are whole output rows, at least one row
BAND_BYTES = 2 << 20
COORD_BYTES = 64


def math_dtype(dtype: torch.dtype) -> torch.dtype:
    """Accumulation dtype: float32 for fp32/fp16/bf16, float64 kept for float64 inputs."""
    return torch.float64 if dtype == torch.float64 else torch.float32


def output_size(H: int, W: int, kernel_size: Sequence[int], stride: Sequence[int],
                padding: Sequence[int], dilation: Sequence[int]) -> Tuple[int, int]:
    """Ho, Wo of op-semantics §4 (Ascend 4-value stride/padding/dilation)."""
    KH, KW = kernel_size
    Ho = (H + padding[0] + padding[1] - ((KH - 1) * dilation[2] + 1)) // stride[2] + 1
    Wo = (W + padding[2] + padding[3] - ((KW - 1) * dilation[3] + 1)) // stride[3] + 1
    return Ho, Wo


def band_rows(C: int, K: int, Wo: int, dg: int, elem_bytes: int, budget: Optional[int] = None) -> int:
    """Output rows per band, so that one band's working set (columns + scratch + coordinates) stays
    near `budget` (default BAND_BYTES)."""
    budget = BAND_BYTES if budget is None else budget
    per_row = max(1, Wo * K * (2 * C * elem_bytes + COORD_BYTES * dg))
    return max(1, budget // per_row)


class _Sampler:
    """Columns [pixels, K, C] of one image and one band of output rows, in the math dtype.

    The image is kept as rows of channels: row g*(H*W+1) + h*W + w holds input[g*Cg:(g+1)*Cg, h, w]
    for deformable group g, and row g*(H*W+1) + H*W is zero (every invalid corner of group g reads
    it). One row gather per corner then yields the columns in (pixel, k, g, c) order = [P, K, C]."""

    def __init__(self, input_n: torch.Tensor, offset_n: torch.Tensor, kernel_size, stride, padding,
                 dilation, deformable_groups: int, modulated: bool, mdt: torch.dtype):
        C, H, W = input_n.shape
        dg = deformable_groups
        self.KH, self.KW = kernel_size
        self.H, self.W, self.C, self.dg = H, W, C, dg
        self.modulated = modulated
        self.mdt = mdt
        blocks = 3 if modulated else 2
        K = self.KH * self.KW
        # offset of this image: [blocks, dg, K, Ho, Wo] in the math dtype
        self.off = offset_n.to(mdt).reshape(blocks, dg, K, *offset_n.shape[-2:])
        x = input_n.to(mdt).reshape(dg, C // dg, H * W)
        self.rows = torch.empty((dg, H * W + 1, C // dg), dtype=mdt)
        self.rows[:, : H * W].copy_(x.transpose(1, 2))
        self.rows[:, H * W].zero_()
        self.rows = self.rows.view(dg * (H * W + 1), C // dg)
        dev = offset_n.device
        kh = torch.arange(self.KH, device=dev).view(self.KH, 1)
        kw = torch.arange(self.KW, device=dev).view(1, self.KW)
        # integer base positions (exact) per kernel point, [K, 1, 1, 1]; output rows/columns are
        # added per band, and the sum is converted to the math dtype once
        self.base_y_k = (kh * dilation[2] - padding[0]).expand(self.KH, self.KW).reshape(K, 1, 1, 1)
        self.base_x_k = (kw * dilation[3] - padding[2]).expand(self.KH, self.KW).reshape(K, 1, 1, 1)
        self.group_row0 = (torch.arange(dg, device=dev, dtype=torch.int32) * (H * W + 1)).view(1, 1, 1, dg)
        self.zero_row = self.group_row0 + H * W
        self.sH, self.sW = stride[2], stride[3]

    def columns(self, oh0: int, oh1: int, out: torch.Tensor, tmp: torch.Tensor) -> torch.Tensor:
        """Fills `out` [(oh1-oh0)*Wo, K, C] with deformOut's values of output rows oh0..oh1-1;
        `tmp` is scratch of the same size."""
        Wo = self.off.shape[-1]
        rows_n = oh1 - oh0
        K = self.KH * self.KW
        L = rows_n * Wo * K * self.dg
        dev = self.off.device
        oh = torch.arange(oh0, oh1, device=dev).view(1, 1, rows_n, 1)
        ow = torch.arange(Wo, device=dev).view(1, 1, 1, Wo)
        off = self.off[:, :, :, oh0:oh1]                                # [blocks, dg, K, rows, Wo]
        # order (pixel, k, g) of the columns: [rows, Wo, K, dg]
        base_y = (self.base_y_k + oh * self.sH).to(self.mdt)          # [K, 1, rows, 1]
        base_x = (self.base_x_k + ow * self.sW).to(self.mdt)          # [K, 1, 1, Wo]
        y = (base_y + off[1].transpose(0, 1)).permute(2, 3, 0, 1)     # [rows, Wo, K, dg]
        x = (base_x + off[0].transpose(0, 1)).permute(2, 3, 0, 1)
        mask = off[2].permute(2, 3, 1, 0) if self.modulated else None
        y0 = torch.floor(y)
        x0 = torch.floor(x)
        ly, lx = y - y0, x - x0
        hy, hx = (y0 + 1) - y, (x0 + 1) - x                           # KRN-A2 forms (y1 - y), (x1 - x)
        H, W = self.H, self.W
        y0i = y0.to(torch.int32)      # |coordinates| < 2**31 is guaranteed by the validation limits
        x0i = x0.to(torch.int32)
        # per-axis validity of the two corner rows / columns; a corner is valid iff both of its are
        vy = ((y0i >= 0) & (y0i < H), (y0i >= -1) & (y0i < H - 1))
        vx = ((x0i >= 0) & (x0i < W), (x0i >= -1) & (x0i < W - 1))
        row = (y0i * W + self.group_row0, None)
        row = (row[0], row[0] + W)                                     # first element of rows y0, y0+1
        col = (x0i, x0i + 1)
        wy = (hy, ly)
        wx = (hx, lx)
        zero = torch.zeros((), dtype=self.mdt, device=dev)
        acc = out.view(L, self.C // self.dg)
        scratch = tmp.view(-1)[: acc.numel()].view(L, self.C // self.dg)
        for i, (a, b) in enumerate(((0, 0), (0, 1), (1, 0), (1, 1))):  # the 4 corners (not a data loop)
            valid = vy[a] & vx[b]
            wgt = wy[a] * wx[b]
            if mask is not None:
                wgt = wgt * mask
            wgt = torch.where(valid, wgt, zero).reshape(L, 1)
            idx = torch.where(valid, row[a] + col[b], self.zero_row).reshape(L)
            if i == 0:
                torch.index_select(self.rows, 0, idx, out=acc)
                acc.mul_(wgt)
            else:
                torch.index_select(self.rows, 0, idx, out=scratch)
                scratch.mul_(wgt)
                acc.add_(scratch)
        return out


def _bands(Ho: int, rows: int):
    for oh0 in range(0, Ho, rows):
        yield oh0, min(Ho, oh0 + rows)


def _write_deform_out(deform_out_n: torch.Tensor, cols: torch.Tensor, oh0: int, oh1: int,
                      KH: int, KW: int, scratch: torch.Tensor):
    """deformOut[n][:, oh0*KH:oh1*KH, :] <- columns [rows*Wo, K, C] (row oh*KH+kh, col ow*KW+kw).
    Two passes (a blocked 2-D transpose to channel-major, then a swap of ow and kh with KW-long
    contiguous runs) are far cheaper than one 5-D permuted copy with the channel innermost."""
    C = cols.shape[-1]
    rows_n = oh1 - oh0
    Wo = cols.shape[0] // rows_n
    chan_major = scratch[: C * cols.shape[0] * KH * KW].view(C, cols.shape[0] * KH * KW)
    chan_major.copy_(cols.view(-1, C).t())                                  # [C, rows*Wo*KH*KW]
    src = chan_major.view(C, rows_n, Wo, KH, KW).permute(0, 1, 3, 2, 4)   # [C, rows, KH, Wo, KW]
    dst = deform_out_n[:, oh0 * KH:oh1 * KH, :].view(C, rows_n, KH, Wo, KW)
    dst.copy_(src)


def _grouped_weight(weight: torch.Tensor, groups: int, mdt: torch.dtype) -> torch.Tensor:
    """weight [Cout, Cin/g, KH, KW] -> [g, K*Cin/g, Cout/g] matching the columns' (k, c) order."""
    Cout, Cg, KH, KW = weight.shape
    w = weight.to(mdt).reshape(groups, Cout // groups, Cg, KH * KW)
    return w.permute(0, 3, 2, 1).reshape(groups, KH * KW * Cg, Cout // groups).contiguous()


def _cpu_forward(input, weight, offset, bias, kernel_size, stride, padding, dilation, groups,
                 deformable_groups, modulated, want_out: bool, want_deform_out: bool):
    N, C, H, W = input.shape
    KH, KW = kernel_size
    K = KH * KW
    Ho, Wo = offset.shape[2], offset.shape[3]
    mdt = math_dtype(input.dtype)
    Cout = weight.shape[0] if want_out else 0
    out = input.new_empty((N, Cout, Ho, Wo), dtype=mdt) if want_out else None
    deform_out = input.new_empty((N, C, Ho * KH, Wo * KW), dtype=input.dtype) if want_deform_out else None
    if N == 0 or Ho * Wo == 0:
        if out is not None and bias is not None:
            out.copy_(bias.to(mdt).view(1, Cout, 1, 1).expand_as(out))
        elif out is not None:
            out.zero_()
        return out, deform_out
    w = _grouped_weight(weight, groups, mdt) if want_out else None
    b = None if bias is None else bias.to(mdt)
    Cgc, Coutg = C // groups, Cout // groups
    rows = band_rows(C, K, Wo, deformable_groups, torch.finfo(mdt).bits // 8)
    cols_buf = torch.empty((min(rows, Ho) * Wo, K, C), dtype=mdt)
    scratch = torch.empty(cols_buf.numel(), dtype=mdt)
    for n in range(N):
        sampler = _Sampler(input[n], offset[n], kernel_size, stride, padding, dilation,
                           deformable_groups, modulated, mdt)
        out_n = out[n].view(Cout, Ho * Wo) if want_out else None
        for oh0, oh1 in _bands(Ho, rows):
            P = (oh1 - oh0) * Wo
            cols = sampler.columns(oh0, oh1, cols_buf[:P], scratch)
            if want_deform_out:
                _write_deform_out(deform_out[n], cols, oh0, oh1, KH, KW, scratch)
            if want_out:
                flat = cols.view(P, K * C)
                for g in range(groups):
                    a = flat if groups == 1 else \
                        cols[:, :, g * Cgc:(g + 1) * Cgc].reshape(P, K * Cgc)
                    res = torch.mm(a, w[g])                                  # [P, Cout/g]
                    out_n[g * Coutg:(g + 1) * Coutg, oh0 * Wo:oh1 * Wo].copy_(res.t())
        del sampler
    if out is not None and b is not None:
        out.add_(b.view(1, Cout, 1, 1))
    return out, deform_out


def deform_sample(input: torch.Tensor, offset: torch.Tensor, kernel_size: Sequence[int],
                  stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int],
                  deformable_groups: int = 1, modulated: bool = True) -> torch.Tensor:
    """deformOut [N, Cin, Ho*KH, Wo*KW] in the input dtype (CPU; streamed over bands)."""
    return _cpu_forward(input, None, offset, None, kernel_size, stride, padding, dilation, 1,
                        deformable_groups, modulated, want_out=False, want_deform_out=True)[1]


def _npu_forward(input, weight, offset, bias, kernel_size, stride, padding, dilation, groups,
                 deformable_groups, modulated):
    import torch_npu  # noqa: F401  (only reached for NPU tensors)
    if not modulated:   # torch_npu requires modulated=True: a mask of ones gives the same deformOut
        ones = torch.ones_like(offset[:, : offset.shape[1] // 2])
        offset = torch.cat([offset, ones], dim=1)
    out, deform_out = torch_npu.npu_deformable_conv2d(
        input, weight, offset, bias, list(kernel_size), list(stride), list(padding), list(dilation),
        groups, deformable_groups, True)
    return out.to(input.dtype), deform_out.to(input.dtype)


def deformable_conv2d_forward(input: torch.Tensor, weight: torch.Tensor, offset: torch.Tensor,
                              bias: Optional[torch.Tensor], kernel_size: Sequence[int],
                              stride: Sequence[int], padding: Sequence[int],
                              dilation: Sequence[int] = (1, 1, 1, 1), groups: int = 1,
                              deformable_groups: int = 1, modulated: bool = True,
                              need_deform_out: bool = True
                              ) -> Tuple[torch.Tensor, Optional[torch.Tensor]]:
    """(out, deformOut), both in the input dtype. Arguments as torch_npu.npu_deformable_conv2d.
    need_deform_out=False (CPU): deformOut is not materialised (None is returned in its place), so
    the forward's peak memory is the output plus one band."""
    if input.device.type == "npu":
        return _npu_forward(input, weight, offset, bias, kernel_size, stride, padding, dilation,
                            groups, deformable_groups, modulated)
    out, deform_out = _cpu_forward(input, weight, offset, bias, kernel_size, stride, padding,
                                   dilation, groups, deformable_groups, modulated, want_out=True,
                                   want_deform_out=need_deform_out)
    return out.to(input.dtype), deform_out


def sample_deform_out(input: torch.Tensor, offset: torch.Tensor, kernel_size: Sequence[int],
                      stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int],
                      deformable_groups: int = 1, modulated: bool = True) -> torch.Tensor:
    """deformOut alone, in the input dtype, produced by the same code as the forward's deformOut
    (memory-saving recompute). On NPU the forward op is run with a zero weight of one output
    channel (deformOut does not depend on the weight)."""
    if input.device.type == "npu":
        weight = input.new_zeros((1, input.shape[1], kernel_size[0], kernel_size[1]))
        return _npu_forward(input, weight, offset, None, kernel_size, stride, padding, dilation,
                            1, deformable_groups, modulated)[1]
    return deform_sample(input, offset, kernel_size, stride, padding, dilation,
                         deformable_groups, modulated)
