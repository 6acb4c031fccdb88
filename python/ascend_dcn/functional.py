"""User-facing deformable convolution functions (autograd-capable, torch.compile-traceable).

deformable_conv2d  — torch_npu.npu_deformable_conv2d's argument list and the Ascend layouts
                     (offset [dx | dy | mask] blocks, 4-value stride/padding/dilation); returns out.
                     The underlying op torch.ops.ascend_dcn.deformable_conv2d also returns deformOut.
deform_conv2d      — torchvision.ops.deform_conv2d's argument list and layouts (interleaved (dy, dx)
                     offset pairs + separate mask); mask=None is DCNv1 (run natively as
                     modulated=False). padding may also be a 4-tuple (top, bottom, left, right).

Both: forward = ascend_dcn::deformable_conv2d (torch_npu forward on NPU, vectorized torch on CPU),
backward = this project's operator (ascend_dcn.ops.deformable_conv2d_backward). Offset/mask
gradients of the torchvision layout come from the layout converters (ascend_dcn.layouts), which are
differentiable torch indexing ops. save_deform_out=False selects the memory-saving mode: deformOut
(N*Cin*KH*KW*Ho*Wo elements) is not kept for the backward, which recomputes it.

Boundary convention: the gradients follow the Ascend contract (op-semantics §5.2). They equal
torchvision's except grad_offset for samples exactly at y == -1 or x == -1 (op-semantics §5.3),
where Ascend gives 0 and torchvision a one-sided derivative.
"""
from __future__ import annotations

from typing import Optional, Sequence, Union

import torch
from torch import Tensor

from . import autograd as _autograd  # noqa: F401  (registers the autograd formula)
from . import layouts
from . import library as _library  # noqa: F401  (registers the custom ops)

IntOrPair = Union[int, Sequence[int]]


def deformable_conv2d(input: Tensor, weight: Tensor, offset: Tensor, bias: Optional[Tensor],
                      kernel_size: Sequence[int], stride: Sequence[int], padding: Sequence[int],
                      dilation: Sequence[int] = (1, 1, 1, 1), groups: int = 1,
                      deformable_groups: int = 1, modulated: bool = True, *,
                      save_deform_out: bool = True) -> Tensor:
    """torch_npu.npu_deformable_conv2d's arguments; returns the conv output [N, Cout, Ho, Wo]."""
    out, _ = torch.ops.ascend_dcn.deformable_conv2d(
        input, weight, offset, bias, list(kernel_size), list(stride), list(padding),
        list(dilation), groups, deformable_groups, modulated, save_deform_out)
    return out


def _padding_to_ascend(padding) -> list:
    if isinstance(padding, (list, tuple)) and len(padding) == 4:
        if any(isinstance(p, bool) or not isinstance(p, int) for p in padding):
            raise ValueError(f"padding: must be an int, a pair or a 4-tuple (top, bottom, left, right) "
                             f"of ints; got {padding!r}")
        return [int(p) for p in padding]
    return layouts.tv_padding_to_ascend(padding)


def deform_conv2d(input: Tensor, offset: Tensor, weight: Tensor, bias: Optional[Tensor] = None,
                  stride: IntOrPair = 1, padding: IntOrPair = 0, dilation: IntOrPair = 1,
                  mask: Optional[Tensor] = None, *, save_deform_out: bool = True) -> Tensor:
    """torchvision.ops.deform_conv2d's arguments and layouts; returns [N, Cout, Ho, Wo].

    offset [N, 2*dg*KH*KW, Ho, Wo] (channel 2j = dy, 2j+1 = dx), mask [N, dg*KH*KW, Ho, Wo] or None.
    groups = Cin / weight.shape[1]; dg = offset.shape[1] / (2*KH*KW)."""
    for name, t in (("input", input), ("offset", offset), ("weight", weight)):
        if not isinstance(t, Tensor) or t.dim() != 4:
            raise ValueError(f"{name}: must be a 4-D tensor; got "
                             f"{type(t).__name__ if not isinstance(t, Tensor) else f'{t.dim()}-D'}")
    KH, KW = int(weight.shape[2]), int(weight.shape[3])
    if offset.shape[1] == 0 or offset.shape[1] % (2 * KH * KW):
        raise ValueError(f"offset: channels must be a positive multiple of 2*KH*KW = {2 * KH * KW}; "
                         f"got {offset.shape[1]}")
    if weight.shape[1] == 0 or input.shape[1] % weight.shape[1]:
        raise ValueError(f"weight: input channels ({input.shape[1]}) must be a multiple of "
                         f"weight.shape[1] ({weight.shape[1]})")
    deformable_groups = offset.shape[1] // (2 * KH * KW)
    groups = input.shape[1] // weight.shape[1]
    modulated = mask is not None
    ascend_offset = layouts.tv_to_ascend_offset(offset, mask, modulated=modulated)
    return deformable_conv2d(input, weight, ascend_offset, bias, [KH, KW],
                             layouts.tv_stride_to_ascend(stride), _padding_to_ascend(padding),
                             layouts.tv_dilation_to_ascend(dilation), groups, deformable_groups,
                             modulated, save_deform_out=save_deform_out)
