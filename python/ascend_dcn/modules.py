"""nn.Modules: drop-in replacements for torchvision's and mmcv's deformable convolution layers.

DeformConv2d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
             bias=True)                                       — torchvision.ops.DeformConv2d
    parameters weight [Cout, Cin/groups, KH, KW], bias [Cout] (or None) -> state_dict keys
    {"weight", "bias"}; reset_parameters as torchvision (kaiming_uniform_(a=sqrt(5)), bias
    U(-1/sqrt(fan_in), 1/sqrt(fan_in))); forward(input, offset, mask=None), torchvision layouts.
DeformConv2dPack(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 deform_groups=1, bias=False)                 — mmcv.ops.DeformConv2dPack (DCNv1)
ModulatedDeformConv2dPack(..., deform_groups=1, bias=True)    — mmcv.ops.ModulatedDeformConv2dPack
    offsets (and the mask, sigmoid of the last third of the channels) predicted from the input by
    an nn.Conv2d named conv_offset, initialized to zero; state_dict keys weight, [bias],
    conv_offset.weight, conv_offset.bias; mmcv's weight init U(-1/sqrt(n), 1/sqrt(n)),
    n = in_channels*KH*KW (modulated) / kaiming_uniform_(nonlinearity='relu') (DCNv1). mmcv's
    renaming of pre-version-2 keys ("<name>_offset.*") is not provided: with torch >= 2 the parent
    module filters the state_dict per child, so that rename cannot work from inside the child.

padding: int, (pH, pW), or a 4-tuple (top, bottom, left, right) for asymmetric padding (then the
offset-predicting conv of the Pack modules pads the input explicitly with the same 4 values).
save_deform_out (keyword, default True): False selects the memory-saving mode (see functional.py).
The Pack modules also take mmcv's older keyword deformable_groups (= deform_groups) and mmcv's
im2col_step (accepted for compatibility; it does not change the result). mmcv's exact classes
(bias=False-only DeformConv2d, the non-Pack ModulatedDeformConv2d, im2col_step checks, the
functional forms with mmcv's argument order) are in ascend_dcn.mmcv.

Every forward validates its arguments first (the operator's rules, the user's argument names) and
raises ascend_dcn.errors.AclnnError (a RuntimeError) for a bad input/offset/mask; a batch of N = 0
gives an empty output; float64 modules run in float64 on CPU. Modules are TorchScript-scriptable
(torch.jit.script), as torchvision's are.
"""
from __future__ import annotations

import math
from typing import Optional, Sequence, Union

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.nn import init
from torch.nn.modules.utils import _pair

from . import functional

IntOrPair = Union[int, Sequence[int]]

BORDER_CONVENTION = """
    Border convention (CANN's and mmcv's; torchvision differs): a sampling point exactly at
    y = -1 or x = -1 gets zero offset gradient, where torchvision's one-sided derivative is
    non-zero; every other value and gradient equals torchvision's. With zero-initialised offsets
    (every Pack module at start) all samples on the top row / left column of a padding-1 layer sit
    there, so conv_offset's first gradients differ from torchvision's. See docs/border-convention.md.
"""


def _with_border_convention(cls):
    cls.__doc__ = (cls.__doc__ or "") + BORDER_CONVENTION
    return cls


def _resolve_deform_groups(cls_name, deform_groups, deformable_groups):
    """mmcv's older keyword deformable_groups (renamed deform_groups); both at once is an error."""
    if deformable_groups is None:
        return deform_groups
    if deform_groups != 1 and deform_groups != deformable_groups:
        raise ValueError(f"{cls_name}: give deform_groups or its older name deformable_groups, not both "
                         f"(deform_groups={deform_groups}, deformable_groups={deformable_groups})")
    return deformable_groups


def _padding_arg(padding):
    """(pair or None, 4-tuple [top, bottom, left, right]) from int / pair / 4-tuple."""
    if isinstance(padding, (list, tuple)) and len(padding) == 4:
        four = tuple(int(p) for p in padding)
        pair = (four[0], four[2]) if four[0] == four[1] and four[2] == four[3] else None
        return pair, four
    pair = _pair(padding)
    return tuple(int(p) for p in pair), (pair[0], pair[0], pair[1], pair[1])


class _DeformConvBase(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: IntOrPair,
                 stride: IntOrPair, padding, dilation: IntOrPair, groups: int, deform_groups: int,
                 bias: bool, save_deform_out: bool):
        super().__init__()
        if in_channels % groups != 0:
            raise ValueError(f"in_channels: must be divisible by groups; got {in_channels} % {groups}")
        if out_channels % groups != 0:
            raise ValueError(f"out_channels: must be divisible by groups; got {out_channels} % {groups}")
        if in_channels % deform_groups != 0:
            raise ValueError(f"in_channels: must be divisible by deform_groups; got "
                             f"{in_channels} % {deform_groups}")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _pair(kernel_size)
        self.stride = _pair(stride)
        pair, four = _padding_arg(padding)
        self.padding = pair if pair is not None else four
        self.dilation = _pair(dilation)
        self.groups = groups
        self.deform_groups = deform_groups
        self.save_deform_out = save_deform_out
        # the attributes the (scriptable) forward passes on: plain int lists
        self._stride2 = [int(v) for v in self.stride]
        self._padding4 = [int(v) for v in four]
        self._dilation2 = [int(v) for v in self.dilation]
        self.weight = nn.Parameter(torch.empty(out_channels, in_channels // groups, *self.kernel_size))
        if bias:
            self.bias = nn.Parameter(torch.empty(out_channels))
        else:
            self.register_parameter("bias", None)

    def _deform(self, input: Tensor, offset: Tensor, mask: Optional[Tensor]) -> Tensor:
        if not torch.jit.is_scripting():
            return functional._deform_conv2d_eager(input, offset, self.weight, self.bias, self._stride2,
                                                   self._padding4, self._dilation2, mask,
                                                   self.save_deform_out)
        return functional._deform_conv2d_core(input, offset, self.weight, self.bias, self._stride2,
                                              self._padding4, self._dilation2, mask, self.save_deform_out)

    def extra_repr(self) -> str:
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}, padding={self.padding}, dilation={self.dilation}, "
             f"groups={self.groups}")
        if self.deform_groups != 1:
            s += f", deform_groups={self.deform_groups}"
        if self.bias is None:
            s += ", bias=False"
        if not self.save_deform_out:
            s += ", save_deform_out=False"
        return s


@_with_border_convention
class DeformConv2d(_DeformConvBase):
    """torchvision.ops.DeformConv2d: forward(input, offset, mask=None), torchvision layouts."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: IntOrPair,
                 stride: IntOrPair = 1, padding=0, dilation: IntOrPair = 1, groups: int = 1,
                 bias: bool = True, *, save_deform_out: bool = True):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                         1, bias, save_deform_out)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in)
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor, offset: Tensor, mask: Optional[Tensor] = None) -> Tensor:
        return self._deform(input, offset, mask)


class _PackBase(_DeformConvBase):
    _version = 2            # mmcv's state_dict version of the Pack modules
    _offset_blocks = 2

    def _make_conv_offset(self):
        pad = self._padding4
        symmetric = pad[0] == pad[1] and pad[2] == pad[3]
        self.conv_offset = nn.Conv2d(
            self.in_channels,
            self.deform_groups * self._offset_blocks * self.kernel_size[0] * self.kernel_size[1],
            kernel_size=self.kernel_size, stride=self.stride,
            padding=(pad[0], pad[2]) if symmetric else 0, dilation=self.dilation, bias=True)
        # asymmetric padding: the input is padded explicitly, F.pad order (left, right, top, bottom)
        self._offset_prepad = [pad[2], pad[3], pad[0], pad[1]]
        self._offset_prepadded = not symmetric

    def init_offset(self) -> None:
        self.conv_offset.weight.data.zero_()
        self.conv_offset.bias.data.zero_()

    def _predict(self, x: Tensor) -> Tensor:
        if self._offset_prepadded:
            x = F.pad(x, self._offset_prepad)
        return self.conv_offset(x)


@_with_border_convention
class DeformConv2dPack(_PackBase):
    """mmcv.ops.DeformConv2dPack (DCNv1): offset = conv_offset(x), torchvision/mmcv offset layout.
    Our extension: bias=True is allowed (mmcv's asserts bias=False; ascend_dcn.mmcv's does too)."""

    _offset_blocks = 2

    def __init__(self, in_channels: int, out_channels: int, kernel_size: IntOrPair,
                 stride: IntOrPair = 1, padding=0, dilation: IntOrPair = 1, groups: int = 1,
                 deform_groups: int = 1, bias: bool = False, im2col_step: int = 32, *,
                 deformable_groups: Optional[int] = None, save_deform_out: bool = True):
        deform_groups = _resolve_deform_groups(type(self).__name__, deform_groups, deformable_groups)
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                         deform_groups, bias, save_deform_out)
        self.im2col_step = im2col_step
        self.reset_parameters()
        self._make_conv_offset()
        self.init_offset()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, nonlinearity="relu")
        if self.bias is not None:
            self.bias.data.zero_()

    def forward(self, x: Tensor) -> Tensor:
        return self._deform(x, self._predict(x), None)


@_with_border_convention
class ModulatedDeformConv2dPack(_PackBase):
    """mmcv.ops.ModulatedDeformConv2dPack (DCNv2): conv_offset(x) -> (o1, o2, mask logits);
    offset = cat(o1, o2) in the torchvision/mmcv layout, mask = sigmoid(logits)."""

    _offset_blocks = 3

    def __init__(self, in_channels: int, out_channels: int, kernel_size: IntOrPair,
                 stride: IntOrPair = 1, padding=0, dilation: IntOrPair = 1, groups: int = 1,
                 deform_groups: int = 1, bias: bool = True, *,
                 deformable_groups: Optional[int] = None, save_deform_out: bool = True):
        deform_groups = _resolve_deform_groups(type(self).__name__, deform_groups, deformable_groups)
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                         deform_groups, bias, save_deform_out)
        self._make_conv_offset()
        self.init_weights()

    def init_weights(self) -> None:
        n = self.in_channels * self.kernel_size[0] * self.kernel_size[1]
        stdv = 1.0 / math.sqrt(n)
        self.weight.data.uniform_(-stdv, stdv)
        if self.bias is not None:
            self.bias.data.zero_()
        self.init_offset()

    def forward(self, x: Tensor) -> Tensor:
        o1, o2, mask = torch.chunk(self._predict(x), 3, dim=1)
        offset = torch.cat((o1, o2), dim=1)
        return self._deform(x, offset, torch.sigmoid(mask))
