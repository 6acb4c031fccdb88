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
        self._padding4 = four
        self.dilation = _pair(dilation)
        self.groups = groups
        self.deform_groups = deform_groups
        self.save_deform_out = save_deform_out
        self.weight = nn.Parameter(torch.empty(out_channels, in_channels // groups, *self.kernel_size))
        if bias:
            self.bias = nn.Parameter(torch.empty(out_channels))
        else:
            self.register_parameter("bias", None)

    def _deform(self, input: Tensor, offset: Tensor, mask: Optional[Tensor]) -> Tensor:
        return functional.deform_conv2d(input, offset, self.weight, self.bias, self.stride,
                                        self._padding4, self.dilation, mask,
                                        save_deform_out=self.save_deform_out)

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
        self._offset_prepad = None if symmetric else (pad[2], pad[3], pad[0], pad[1])

    def init_offset(self) -> None:
        self.conv_offset.weight.data.zero_()
        self.conv_offset.bias.data.zero_()

    def _predict(self, x: Tensor) -> Tensor:
        if self._offset_prepad is not None:
            x = F.pad(x, self._offset_prepad)
        return self.conv_offset(x)


class DeformConv2dPack(_PackBase):
    """mmcv.ops.DeformConv2dPack (DCNv1): offset = conv_offset(x), torchvision/mmcv offset layout."""

    _offset_blocks = 2

    def __init__(self, in_channels: int, out_channels: int, kernel_size: IntOrPair,
                 stride: IntOrPair = 1, padding=0, dilation: IntOrPair = 1, groups: int = 1,
                 deform_groups: int = 1, bias: bool = False, *, save_deform_out: bool = True):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                         deform_groups, bias, save_deform_out)
        self.reset_parameters()
        self._make_conv_offset()
        self.init_offset()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, nonlinearity="relu")
        if self.bias is not None:
            self.bias.data.zero_()

    def forward(self, x: Tensor) -> Tensor:
        return self._deform(x, self._predict(x), None)


class ModulatedDeformConv2dPack(_PackBase):
    """mmcv.ops.ModulatedDeformConv2dPack (DCNv2): conv_offset(x) -> (o1, o2, mask logits);
    offset = cat(o1, o2) in the torchvision/mmcv layout, mask = sigmoid(logits)."""

    _offset_blocks = 3

    def __init__(self, in_channels: int, out_channels: int, kernel_size: IntOrPair,
                 stride: IntOrPair = 1, padding=0, dilation: IntOrPair = 1, groups: int = 1,
                 deform_groups: int = 1, bias: bool = True, *, save_deform_out: bool = True):
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
