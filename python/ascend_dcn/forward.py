"""Forward contract of the deformable convolution (op-semantics.md §4-§6), vectorized in torch.

Layouts (Ascend, torch_npu):
  input     [N, Cin, H, W]                     NCHW
  offset    [N, 3*dg*KH*KW, Ho, Wo]            [dx block | dy block | mask block] (modulated=True)
            [N, 2*dg*KH*KW, Ho, Wo]            [dx block | dy block]            (modulated=False)
            channel of (block b, group g, kh, kw) = b*dg*K + g*K + kh*KW + kw, K = KH*KW
  weight    [Cout, Cin/groups, KH, KW]
  deformOut [N, Cin, Ho*KH, Wo*KW]             row oh*KH+kh, column ow*KW+kw, mask multiplied in
  out       [N, Cout, Ho, Wo]                  conv2d(deformOut, weight, bias, stride=(KH, KW), groups)
  stride = [1, 1, sH, sW], dilation = [1, 1, dH, dW], padding = [top, bottom, left, right].

Numerics: math in float32 (float64 stays float64, for gradcheck); results are returned in the input
dtype. Sampling: true floor, per-corner validity (0 <= yc < H, 0 <= xc < W), invalid corners
contribute 0 without loading their value; corner weights are multiplied by the mask and accumulated
in the order (y0,x0), (y0,x1), (y1,x0), (y1,x1) (KRN-A2, op-semantics §7). No Python loop runs over
pixels or channels: the four corners are gathered with one vectorized gather each.

On NPU tensors the forward is torch_npu.npu_deformable_conv2d (DCNv1 runs it with a mask of ones,
which yields the identical deformOut); its outputs are cast back to the input dtype.
"""
from __future__ import annotations

from typing import Optional, Sequence, Tuple

import torch
import torch.nn.functional as F


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


def _sample_coordinates(offset: torch.Tensor, kernel_size, stride, padding, dilation,
                        deformable_groups: int, modulated: bool, dtype: torch.dtype):
    """Sampling positions y, x and mask, each [N, dg, KH, KW, Ho, Wo] in `dtype`."""
    KH, KW = kernel_size
    N, _, Ho, Wo = offset.shape
    blocks = 3 if modulated else 2
    off = offset.to(dtype).reshape(N, blocks, deformable_groups, KH, KW, Ho, Wo)
    dev = offset.device
    oh = torch.arange(Ho, device=dev).view(1, 1, Ho, 1)
    ow = torch.arange(Wo, device=dev).view(1, 1, 1, Wo)
    kh = torch.arange(KH, device=dev).view(KH, 1, 1, 1)
    kw = torch.arange(KW, device=dev).view(1, KW, 1, 1)
    # integer base positions (exact), converted once; one rounding when the offset is added
    base_y = (oh * stride[2] - padding[0] + kh * dilation[2]).to(dtype)   # [KH, 1, Ho, 1]
    base_x = (ow * stride[3] - padding[2] + kw * dilation[3]).to(dtype)   # [1, KW, 1, Wo]
    y = base_y + off[:, 1]
    x = base_x + off[:, 0]
    mask = off[:, 2] if modulated else None
    return y, x, mask


def deform_sample(input: torch.Tensor, offset: torch.Tensor, kernel_size: Sequence[int],
                  stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int],
                  deformable_groups: int = 1, modulated: bool = True) -> torch.Tensor:
    """deformOut [N, Cin, Ho*KH, Wo*KW] in the math dtype (float32, or float64 for float64 input)."""
    KH, KW = kernel_size
    N, C, H, W = input.shape
    dg = deformable_groups
    Cg = C // dg
    Ho, Wo = offset.shape[2], offset.shape[3]
    mdt = math_dtype(input.dtype)
    y, x, mask = _sample_coordinates(offset, kernel_size, stride, padding, dilation, dg, modulated, mdt)
    y0 = torch.floor(y)
    x0 = torch.floor(x)
    ly, lx = y - y0, x - x0
    hy, hx = (y0 + 1) - y, (x0 + 1) - x          # KRN-A2 forms (y1 - y), (x1 - x)
    y0i = y0.to(torch.int64)
    x0i = x0.to(torch.int64)
    corners = ((0, 0, hy * hx), (0, 1, hy * lx), (1, 0, ly * hx), (1, 1, ly * lx))
    X = input.to(mdt).reshape(N, dg, Cg, H * W)
    P = KH * KW * Ho * Wo
    acc = None
    for dy, dx, weight in corners:       # the four bilinear corners (not a loop over data)
        cy, cx = y0i + dy, x0i + dx
        valid = (cy >= 0) & (cy < H) & (cx >= 0) & (cx < W)           # per-corner test
        if mask is not None:
            weight = weight * mask
        weight = torch.where(valid, weight, torch.zeros((), dtype=mdt, device=weight.device))
        flat = (cy.clamp(0, H - 1) * W + cx.clamp(0, W - 1)).reshape(N, dg, 1, P)
        value = torch.gather(X, 3, flat.expand(N, dg, Cg, P))          # [N, dg, Cg, P]
        value = torch.where(valid.reshape(N, dg, 1, P), value, torch.zeros((), dtype=mdt, device=value.device))
        term = value * weight.reshape(N, dg, 1, P)
        acc = term if acc is None else acc + term
    # [N, dg, Cg, KH, KW, Ho, Wo] -> [N, C, Ho, KH, Wo, KW] -> [N, C, Ho*KH, Wo*KW]
    acc = acc.reshape(N, C, KH, KW, Ho, Wo).permute(0, 1, 4, 2, 5, 3)
    return acc.reshape(N, C, Ho * KH, Wo * KW)


def conv_on_deform_out(deform_out: torch.Tensor, weight: torch.Tensor, bias: Optional[torch.Tensor],
                       kernel_size: Sequence[int], groups: int) -> torch.Tensor:
    """out = conv2d(deformOut, weight, bias, stride=(KH, KW), groups), in deformOut's dtype."""
    dt = deform_out.dtype
    b = None if bias is None else bias.to(dt)
    return F.conv2d(deform_out, weight.to(dt), b, stride=tuple(kernel_size), groups=groups)


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
                              deformable_groups: int = 1, modulated: bool = True
                              ) -> Tuple[torch.Tensor, torch.Tensor]:
    """(out, deformOut), both in the input dtype. Arguments as torch_npu.npu_deformable_conv2d."""
    if input.device.type == "npu":
        return _npu_forward(input, weight, offset, bias, kernel_size, stride, padding, dilation,
                            groups, deformable_groups, modulated)
    deform_out = deform_sample(input, offset, kernel_size, stride, padding, dilation,
                               deformable_groups, modulated)
    out = conv_on_deform_out(deform_out, weight, bias, kernel_size, groups)
    return out.to(input.dtype), deform_out.to(input.dtype)


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
                         deformable_groups, modulated).to(input.dtype)
