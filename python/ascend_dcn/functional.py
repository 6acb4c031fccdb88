"""User-facing deformable convolution functions (autograd-capable, torch.compile-traceable,
TorchScript-scriptable).

deformable_conv2d  — torch_npu.npu_deformable_conv2d's argument list, defaults, layouts and return
                     value: (output, offset_out). Offset [dx | dy | mask] blocks, 4-value
                     stride/padding/dilation. offset_out is deformOut [N, Cin, Ho*KH, Wo*KW] in the
                     input dtype (the mask multiplied in), non-differentiable, as torch_npu returns it.
deform_conv2d      — torchvision.ops.deform_conv2d's argument list, defaults, layouts and return
                     value (output only): interleaved (dy, dx) offset pairs + separate mask;
                     mask=None is DCNv1 (run natively as modulated=False). padding may also be a
                     4-tuple (top, bottom, left, right). Under torch.jit.script stride, padding and
                     dilation are Tuple[int, int] (torchvision's annotations).

Both: forward = ascend_dcn::deformable_conv2d (torch_npu forward on NPU, torch on CPU),
backward = this project's operator (ascend_dcn.ops.deformable_conv2d_backward). Offset/mask
gradients of the torchvision layout come from differentiable torch indexing. save_deform_out=False
(last argument, keyword or positional) selects the memory-saving mode: deformOut is not kept for
the backward, which recomputes it.

Arguments are validated at the forward, before any work, with the operator's rules (including the
backward's) and the caller's argument names; mistakes raise ascend_dcn.errors.AclnnError, a
RuntimeError as in torchvision and torch_npu. A batch of N = 0 returns an empty output (zero
parameter gradients) without calling the operator. float64 runs on CPU in float64 end to end (the
backward by the float64 reference), so torch.autograd.gradcheck works; float64 on an NPU is an error.

Border convention: the gradients follow CANN (and mmcv): a sample exactly at y = -1 or x = -1 gets
zero offset gradient; torchvision gives it a one-sided derivative. Everything else equals
torchvision's (docs/border-convention.md).
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

import torch
from torch import Tensor

from . import autograd as _autograd  # noqa: F401  (registers the autograd formula)
from . import library as _library  # noqa: F401  (registers the custom ops)
from . import validation


def deformable_conv2d(input: Tensor, weight: Tensor, offset: Tensor, bias: Optional[Tensor],
                      kernel_size: List[int], stride: List[int], padding: List[int],
                      dilation: List[int] = (1, 1, 1, 1), groups: int = 1,
                      deformable_groups: int = 1, modulated: bool = True,
                      save_deform_out: bool = True) -> Tuple[Tensor, Tensor]:
    """torch_npu.npu_deformable_conv2d: returns (output [N, Cout, Ho, Wo], offset_out).

    offset_out = deformOut [N, Cin, Ho*KH, Wo*KW], the input dtype, non-differentiable (as in
    torch_npu). modulated=False (DCNv1, offset [N, 2*dg*KH*KW, Ho, Wo]) is our extension."""
    return torch.ops.ascend_dcn.deformable_conv2d(
        input, weight, offset, bias, list(kernel_size), list(stride), list(padding),
        list(dilation), groups, deformable_groups, modulated, save_deform_out)


def _padding_four(padding) -> List[int]:
    """int, (pH, pW) or (top, bottom, left, right) -> [top, bottom, left, right]."""
    if isinstance(padding, bool):
        raise validation.error_for_status(
            161002, "padding", "must be an int, a pair (pH, pW) or a 4-tuple (top, bottom, left, right)",
            "int or sequence of 2 or 4 ints", repr(padding))
    if isinstance(padding, int):
        return [padding, padding, padding, padding]
    items = _int_items(padding, "padding", (2, 4),
                       "must be an int, a pair (pH, pW) or a 4-tuple (top, bottom, left, right)")
    return items if len(items) == 4 else [items[0], items[0], items[1], items[1]]


def _pair_arg(value, name: str) -> List[int]:
    if isinstance(value, bool):
        raise validation.error_for_status(161002, name, "must be an int or a pair of ints",
                                          "int or sequence of 2 ints", repr(value))
    if isinstance(value, int):
        return [value, value]
    return _int_items(value, name, (2,), "must be an int or a pair of ints")


def _int_items(value, name, lengths, rule) -> List[int]:
    import operator
    try:
        items = list(value)
    except TypeError:
        items = None
    if items is not None and len(items) in lengths:
        try:
            if not any(isinstance(v, bool) for v in items):
                return [operator.index(v) for v in items]
        except TypeError:
            pass
    expected = " or ".join(f"{n} ints" for n in lengths)
    raise validation.error_for_status(161002, name, rule, f"an int or a sequence of {expected}",
                                      repr(value))


def _deform_conv2d_core(input: Tensor, offset: Tensor, weight: Tensor, bias: Optional[Tensor],
                        stride: List[int], padding4: List[int], dilation: List[int],
                        mask: Optional[Tensor], save_deform_out: bool) -> Tensor:
    """torchvision layouts -> the Ascend op (scriptable). stride/dilation: 2 ints, padding4: 4."""
    KH, KW = weight.shape[2], weight.shape[3]
    dg = offset.shape[1] // (2 * KH * KW)
    groups = input.shape[1] // weight.shape[1]
    dy = offset[:, 0::2]
    dx = offset[:, 1::2]
    modulated = mask is not None
    if mask is not None:
        ascend_offset = torch.cat([dx, dy, mask], dim=1)
    else:
        ascend_offset = torch.cat([dx, dy], dim=1)
    out, _ = torch.ops.ascend_dcn.deformable_conv2d(
        input, weight, ascend_offset, bias, [KH, KW], [1, 1, stride[0], stride[1]], padding4,
        [1, 1, dilation[0], dilation[1]], groups, dg, modulated, save_deform_out)
    return out


def _deform_conv2d_eager(input, offset, weight, bias, stride, padding, dilation, mask,
                         save_deform_out) -> Tensor:
    st, pd, dl = _pair_arg(stride, "stride"), _padding_four(padding), _pair_arg(dilation, "dilation")
    autocast = isinstance(input, Tensor) and torch.is_autocast_enabled(input.device.type)
    validation.check_tv_args(input, offset, weight, bias, st, pd, dl, mask, same_dtype=not autocast)
    return _deform_conv2d_core(input, offset, weight, bias, st, pd, dl, mask, bool(save_deform_out))


def deform_conv2d(input: Tensor, offset: Tensor, weight: Tensor, bias: Optional[Tensor] = None,
                  stride: Tuple[int, int] = (1, 1), padding: Tuple[int, int] = (0, 0),
                  dilation: Tuple[int, int] = (1, 1), mask: Optional[Tensor] = None,
                  save_deform_out: bool = True) -> Tensor:
    """torchvision.ops.deform_conv2d: returns output [N, Cout, Ho, Wo].

    offset [N, 2*dg*KH*KW, Ho, Wo] (channel 2j = dy, 2j+1 = dx), mask [N, dg*KH*KW, Ho, Wo] or None
    (DCNv1). groups = Cin / weight.shape[1]; dg = offset.shape[1] / (2*KH*KW). stride, padding,
    dilation: an int or an (H, W) pair; padding also (top, bottom, left, right).
    Border convention: CANN's (a sample exactly at y = -1 or x = -1 gets zero offset gradient;
    torchvision: one-sided derivative) — docs/border-convention.md."""
    if not torch.jit.is_scripting():
        return _deform_conv2d_eager(input, offset, weight, bias, stride, padding, dilation, mask,
                                    save_deform_out)
    return _deform_conv2d_core(input, offset, weight, bias, [stride[0], stride[1]],
                               [padding[0], padding[0], padding[1], padding[1]],
                               [dilation[0], dilation[1]], mask, save_deform_out)
