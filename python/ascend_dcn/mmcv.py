"""mmcv.ops's deformable-convolution API, computed by ascend_dcn: swap ``from mmcv.ops import ...``
for ``from ascend_dcn.mmcv import ...``.

Functions (mmcv's argument order and defaults; positional or keyword):
  deform_conv2d(input, offset, weight, stride=1, padding=0, dilation=1, groups=1, deform_groups=1,
                bias=False, im2col_step=32) -> output                              (DCNv1)
  modulated_deform_conv2d(input, offset, mask, weight, bias=None, stride=1, padding=0, dilation=1,
                          groups=1, deform_groups=1) -> output                     (DCNv2)
Modules (mmcv's constructor arguments, defaults, attributes, parameters and state_dict keys):
  DeformConv2d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
               deform_groups=1, bias=False, im2col_step=32)      forward(x, offset); no bias
  DeformConv2dPack(...same...)                                     forward(x); conv_offset
  ModulatedDeformConv2d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                        groups=1, deform_groups=1, bias=True)      forward(x, offset, mask)
  ModulatedDeformConv2dPack(...same...)                            forward(x); conv_offset
The modules also take mmcv's older keyword ``deformable_groups`` (with mmcv's DeprecationWarning).

Layouts are mmcv's (= torchvision's): offset [N, 2*deform_groups*KH*KW, Ho, Wo] with channel 2j = dy,
2j+1 = dx; mask [N, deform_groups*KH*KW, Ho, Wo]. Failures are mmcv's: AssertionError for
bias=True on DeformConv2d / bias given to deform_conv2d, channels not divisible by groups, a batch
not divisible by im2col_step; ValueError for a non-4-D input or an output that would be empty;
RuntimeError (ascend_dcn.errors.AclnnError) for tensors whose shapes do not fit. Like mmcv, input is
cast to offset's dtype and weight/mask/bias to input's (mmcv's AMP behaviour). im2col_step does not
change the result (the computation is not split by batch).

Border convention (CANN's and mmcv's): a sample exactly at y = -1 or x = -1 gets zero offset
gradient, as in mmcv; torchvision differs there (docs/border-convention.md).

Registry: with mmengine installed, ``register_modules()`` registers DeformConv2dPack as "DCN" and
ModulatedDeformConv2dPack as "DCNv2" in mmengine's MODELS (as mmcv does), so configs
``dict(type="DCNv2", ...)`` build ours; importing this module does it when those names are free.
"""
from __future__ import annotations

import math
import warnings
from typing import Optional, Tuple, Union

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.nn.modules.utils import _pair, _single

from . import functional as _functional

__all__ = ["deform_conv2d", "modulated_deform_conv2d", "DeformConv2d", "DeformConv2dPack",
           "ModulatedDeformConv2d", "ModulatedDeformConv2dPack", "register_modules"]

IntOrPair = Union[int, Tuple[int, ...]]


def _check_input_4d(input) -> None:
    if input is not None and input.dim() != 4:
        raise ValueError(f"Expected 4D tensor as input, got {input.dim()}D tensor instead.")


def _check_output_size(input, weight, stride, padding, dilation) -> None:
    sizes = [input.size(0), weight.size(0)]
    for d in range(2):
        extent = dilation[d] * (weight.size(d + 2) - 1) + 1
        sizes.append((input.size(d + 2) + 2 * padding[d] - extent) // stride[d] + 1)
    if any(s <= 0 for s in sizes[2:]) or sizes[1] <= 0:
        raise ValueError("convolution input is too small (output would be "
                         + "x".join(str(s) for s in sizes) + ")")


def _check_groups(input, offset, weight, groups, deform_groups, blocks) -> None:
    """mmcv passes groups/deform_groups explicitly; they must agree with the tensors' shapes."""
    from .errors import AclnnParamInvalidError
    K = weight.size(2) * weight.size(3)
    if groups <= 0 or weight.size(1) * groups != input.size(1):
        raise AclnnParamInvalidError("groups", "weight.shape[1] * groups must equal the input channels",
                                     f"{weight.size(1)} * groups == {input.size(1)}", groups)
    if deform_groups <= 0 or offset.dim() != 4 or offset.size(1) != blocks * deform_groups * K:
        raise AclnnParamInvalidError(
            "offset", f"offset.shape[1] must be {blocks} * deform_groups * kH * kW",
            blocks * deform_groups * K, offset.size(1) if offset.dim() == 4 else list(offset.shape))


def deform_conv2d(input: Tensor, offset: Tensor, weight: Tensor, stride: IntOrPair = 1,
                  padding: IntOrPair = 0, dilation: IntOrPair = 1, groups: int = 1,
                  deform_groups: int = 1, bias: bool = False, im2col_step: int = 32) -> Tensor:
    """mmcv.ops.deform_conv2d (DeformConv2dFunction.apply): DCNv1, mmcv's argument order."""
    _check_input_4d(input)
    assert bias is False, "Only support bias is False."
    stride, padding, dilation = _pair(stride), _pair(padding), _pair(dilation)
    input = input.type_as(offset)
    weight = weight.type_as(input)
    if input.size(0) > 0:
        step = min(im2col_step, input.size(0))
        assert input.size(0) % step == 0, "batch size must be divisible by im2col_step"
    _check_output_size(input, weight, stride, padding, dilation)
    _check_groups(input, offset, weight, groups, deform_groups, 2)
    return _functional.deform_conv2d(input, offset, weight, None, stride, padding, dilation, None)


def modulated_deform_conv2d(input: Tensor, offset: Tensor, mask: Tensor, weight: Tensor,
                            bias: Optional[Tensor] = None, stride: IntOrPair = 1,
                            padding: IntOrPair = 0, dilation: IntOrPair = 1, groups: int = 1,
                            deform_groups: int = 1) -> Tensor:
    """mmcv.ops.modulated_deform_conv2d (ModulatedDeformConv2dFunction.apply): DCNv2."""
    _check_input_4d(input)
    stride, padding, dilation = _pair(stride), _pair(padding), _pair(dilation)
    input = input.type_as(offset)
    weight = weight.type_as(input)
    mask = mask.type_as(input)
    if bias is not None:
        bias = bias.type_as(input)
    _check_output_size(input, weight, stride, padding, dilation)
    _check_groups(input, offset, weight, groups, deform_groups, 2)
    return _functional.deform_conv2d(input, offset, weight, bias, stride, padding, dilation, mask)


def _renamed_deform_groups(cls_name: str, kwargs: dict) -> dict:
    """mmcv's deprecated_api_warning({'deformable_groups': 'deform_groups'}) behaviour."""
    if "deformable_groups" in kwargs:
        assert "deform_groups" not in kwargs, (
            f'The expected behavior is to replace the deprecated key `deformable_groups` to new key '
            f'`deform_groups`, but got them in the arguments at the same time, which is confusing. '
            f'`deformable_groups` will be deprecated in the future, please use `deform_groups` instead.')
        warnings.warn(f'"deformable_groups" is deprecated in `{cls_name}`, please use "deform_groups" '
                      f'instead', DeprecationWarning, stacklevel=3)
        kwargs = dict(kwargs)
        kwargs["deform_groups"] = kwargs.pop("deformable_groups")
    return kwargs


def _rename_old_offset_keys(state_dict, prefix, local_metadata) -> None:
    """mmcv's Pack modules before state_dict version 2 stored conv_offset as '<name>_offset.*'."""
    version = local_metadata.get("version", None)
    if version is not None and version >= 2:
        return
    for suffix in ("weight", "bias"):
        new_key, old_key = f"{prefix}conv_offset.{suffix}", f"{prefix[:-1]}_offset.{suffix}"
        if new_key not in state_dict and old_key in state_dict:
            state_dict[new_key] = state_dict.pop(old_key)


class DeformConv2d(nn.Module):
    """mmcv.ops.DeformConv2d: DCNv1 with an external offset, forward(x, offset); weight only
    (bias=True is an AssertionError, as in mmcv)."""

    def __init__(self, *args, **kwargs):
        super().__init__()
        self._setup(*args, **_renamed_deform_groups(type(self).__name__, kwargs))

    def _setup(self, in_channels: int, out_channels: int, kernel_size: IntOrPair,
               stride: IntOrPair = 1, padding: IntOrPair = 0, dilation: IntOrPair = 1,
               groups: int = 1, deform_groups: int = 1, bias: bool = False,
               im2col_step: int = 32) -> None:
        assert not bias, f"bias={bias} is not supported in DeformConv2d."
        assert in_channels % groups == 0, \
            f"in_channels {in_channels} cannot be divisible by groups {groups}"
        assert out_channels % groups == 0, \
            f"out_channels {out_channels} cannot be divisible by groups {groups}"
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _pair(kernel_size)
        self.stride = _pair(stride)
        self.padding = _pair(padding)
        self.dilation = _pair(dilation)
        self.groups = groups
        self.deform_groups = deform_groups
        self.im2col_step = im2col_step
        self.transposed = False              # nn.Conv2d compatibility, as mmcv
        self.output_padding = _single(0)
        self.weight = nn.Parameter(torch.empty(out_channels, in_channels // groups, *self.kernel_size))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        nn.init.kaiming_uniform_(self.weight, nonlinearity="relu")

    def _deform(self, x: Tensor, offset: Tensor) -> Tensor:
        return deform_conv2d(x, offset, self.weight, self.stride, self.padding, self.dilation,
                             self.groups, self.deform_groups, False, self.im2col_step)

    def forward(self, x: Tensor, offset: Tensor) -> Tensor:
        # an input smaller than the kernel is zero-padded at the bottom/right and the output
        # cropped back, as mmcv does
        pad_h = max(self.kernel_size[0] - x.size(2), 0)
        pad_w = max(self.kernel_size[1] - x.size(3), 0)
        if pad_h == 0 and pad_w == 0:
            return self._deform(x, offset)
        x = F.pad(x, (0, pad_w, 0, pad_h), "constant", 0).contiguous()
        offset = F.pad(offset, (0, pad_w, 0, pad_h), "constant", 0).contiguous()
        out = self._deform(x, offset)
        return out[:, :, :out.size(2) - pad_h, :out.size(3) - pad_w].contiguous()

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(in_channels={self.in_channels},\n"
                f"out_channels={self.out_channels},\nkernel_size={self.kernel_size},\n"
                f"stride={self.stride},\npadding={self.padding},\ndilation={self.dilation},\n"
                f"groups={self.groups},\ndeform_groups={self.deform_groups},\nbias=False)")


class DeformConv2dPack(DeformConv2d):
    """mmcv.ops.DeformConv2dPack ("DCN"): offsets predicted by conv_offset (zero-initialised)."""

    _version = 2

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.conv_offset = nn.Conv2d(
            self.in_channels, self.deform_groups * 2 * self.kernel_size[0] * self.kernel_size[1],
            kernel_size=self.kernel_size, stride=self.stride, padding=self.padding,
            dilation=self.dilation, bias=True)
        self.init_offset()

    def init_offset(self) -> None:
        self.conv_offset.weight.data.zero_()
        self.conv_offset.bias.data.zero_()

    def forward(self, x: Tensor) -> Tensor:  # type: ignore[override]
        return self._deform(x, self.conv_offset(x))

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        _rename_old_offset_keys(state_dict, prefix, local_metadata)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)


class ModulatedDeformConv2d(nn.Module):
    """mmcv.ops.ModulatedDeformConv2d: DCNv2 with external offset and mask, forward(x, offset, mask)."""

    def __init__(self, *args, **kwargs):
        super().__init__()
        self._setup(*args, **_renamed_deform_groups(type(self).__name__, kwargs))

    def _setup(self, in_channels: int, out_channels: int, kernel_size: IntOrPair,
               stride: IntOrPair = 1, padding: IntOrPair = 0, dilation: IntOrPair = 1,
               groups: int = 1, deform_groups: int = 1, bias: Union[bool, str] = True) -> None:
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _pair(kernel_size)
        self.stride = _pair(stride)
        self.padding = _pair(padding)
        self.dilation = _pair(dilation)
        self.groups = groups
        self.deform_groups = deform_groups
        self.transposed = False
        self.output_padding = _single(0)
        self.weight = nn.Parameter(torch.empty(out_channels, in_channels // groups, *self.kernel_size))
        if bias:
            self.bias = nn.Parameter(torch.empty(out_channels))
        else:
            self.register_parameter("bias", None)
        self.init_weights()

    def init_weights(self) -> None:
        n = self.in_channels * self.kernel_size[0] * self.kernel_size[1]
        stdv = 1.0 / math.sqrt(n)
        self.weight.data.uniform_(-stdv, stdv)
        if self.bias is not None:
            self.bias.data.zero_()

    def forward(self, x: Tensor, offset: Tensor, mask: Tensor) -> Tensor:
        return modulated_deform_conv2d(x, offset, mask, self.weight, self.bias, self.stride,
                                       self.padding, self.dilation, self.groups, self.deform_groups)


class ModulatedDeformConv2dPack(ModulatedDeformConv2d):
    """mmcv.ops.ModulatedDeformConv2dPack ("DCNv2"): conv_offset(x) -> (o1, o2, mask logits);
    offset = cat(o1, o2), mask = sigmoid(logits); conv_offset zero-initialised."""

    _version = 2

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.conv_offset = nn.Conv2d(
            self.in_channels, self.deform_groups * 3 * self.kernel_size[0] * self.kernel_size[1],
            kernel_size=self.kernel_size, stride=self.stride, padding=self.padding,
            dilation=self.dilation, bias=True)
        self.init_weights()

    def init_weights(self) -> None:
        super().init_weights()
        if hasattr(self, "conv_offset"):
            self.conv_offset.weight.data.zero_()
            self.conv_offset.bias.data.zero_()

    def forward(self, x: Tensor) -> Tensor:  # type: ignore[override]
        o1, o2, mask = torch.chunk(self.conv_offset(x), 3, dim=1)
        offset = torch.cat((o1, o2), dim=1)
        return modulated_deform_conv2d(x, offset, torch.sigmoid(mask), self.weight, self.bias,
                                       self.stride, self.padding, self.dilation, self.groups,
                                       self.deform_groups)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        _rename_old_offset_keys(state_dict, prefix, local_metadata)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)


REGISTRY_NAMES = {"DCN": DeformConv2dPack, "DCNv2": ModulatedDeformConv2dPack}


def register_modules(registry=None, force: bool = False) -> list:
    """Register DeformConv2dPack as "DCN" and ModulatedDeformConv2dPack as "DCNv2" in ``registry``
    (default: mmengine.registry.MODELS). Names already taken (e.g. by mmcv itself) are left alone
    unless force=True. Returns the names registered; [] when mmengine is not installed."""
    if registry is None:
        try:
            from mmengine.registry import MODELS as registry
        except ImportError:
            return []
    done = []
    for name, cls in REGISTRY_NAMES.items():
        if not force and registry.get(name) is not None:
            continue
        registry.register_module(name=name, module=cls, force=force)
        done.append(name)
    return done


register_modules()
