"""torch.library custom ops of the `ascend_dcn` namespace, their fake kernels and autocast rules.

Ops (argument lists of torch_npu; Ascend layouts, see forward.py):
  ascend_dcn::deformable_conv2d(input, weight, offset, bias?, kernel_size, stride, padding, dilation,
        groups, deformable_groups, modulated, save_deform_out) -> (out, deformOut)
      deformOut is non-differentiable (as in torch_npu, whose derivative uses only out's gradient).
      save_deform_out=False: deformOut is neither materialised nor saved (the op returns an empty
      deformOut of shape [0]; for N = 0 the empty deformOut of its own shape); the backward
      recomputes it. On CPU the forward then streams over
      bands of output rows and never holds the whole deformOut (ascend_dcn.forward).
  ascend_dcn::deformable_sample(input, offset, kernel_size, stride, padding, dilation,
        deformable_groups, modulated) -> deformOut           (the forward's sampling stage alone)
  ascend_dcn::deformable_conv2d_backward(input, grad_output, offset_out, weight, offset, kernel_size,
        stride, padding, dilation, groups, deformable_groups, modulated)
        -> (grad_input, grad_weight, grad_offset, grad_bias)   = ascend_dcn.ops (our operator)

Layer-level allowances (the operator itself accepts neither): a batch of N = 0 returns empty outputs
without running anything (and the autograd backward returns zero parameter gradients); float64 on
CPU is computed in float64 end to end — the forward in float64, the backward by the float64 oracle
(reference_backward), so torch.autograd.gradcheck passes. float64 on an NPU is a clear error.
Every rule of the backward is checked at the forward (validation.check_forward_args).

Backward backend: "operator" (default) runs ascend_dcn.ops.deformable_conv2d_backward. "reference"
runs the float64 oracle ascend_dcn.reference.deformable_conv2d_backward for every dtype (tests only:
autograd.backward_backend("reference")).

Autocast: under torch.autocast the floating-point tensor arguments of the forward and sampling ops
are cast to the autocast dtype in effect (CPU default bfloat16; fp16 or bf16 on NPU), the op runs
with autocast disabled and returns that dtype (float32 math inside). Registered for AutocastCPU and
AutocastPrivateUse1 (torch_npu's device).
"""
from __future__ import annotations

from typing import List, Optional, Tuple

import torch
from torch import Tensor

from . import forward as _fwd

_BACKENDS = ("operator", "reference")
_backward_backend = "operator"


def set_backward_backend(name: str) -> str:
    """Select the implementation of the backward op; returns the previous one."""
    global _backward_backend
    if name not in _BACKENDS:
        raise ValueError(f"backend: must be one of {_BACKENDS}; got {name!r}")
    previous, _backward_backend = _backward_backend, name
    return previous


def get_backward_backend() -> str:
    return _backward_backend


def _validate_forward(input, weight, offset, bias, kernel_size, stride, padding, dilation, groups,
                      deformable_groups, modulated):
    """The forward's rules (validation.check_forward_args, which includes the backward's rules) with
    the two layer-level allowances: a batch of N = 0, and float64 on CPU (computed in float64)."""
    from . import validation
    from .errors import AclnnParamInvalidError
    if isinstance(input, Tensor) and input.dtype == torch.float64 and input.device.type != "cpu":
        raise AclnnParamInvalidError(
            "input", f"float64 is supported on CPU only (the operator on {input.device.type} computes in "
            "float32, float16 or bfloat16); convert with .float() or run the float64 model on CPU",
            "float32, float16 or bfloat16", "float64")
    validation.check_forward_args(input, weight, offset, bias, list(kernel_size), list(stride),
                                  list(padding), list(dilation), groups, deformable_groups, modulated,
                                  allow_empty_batch=True, allow_float64=True)


def _empty_batch_forward(input, weight, offset, kernel_size):
    """(out, deformOut) for N = 0: empty tensors of the right shapes, no operator call."""
    N, C = input.shape[0], input.shape[1]
    Ho, Wo = offset.shape[2], offset.shape[3]
    return (input.new_zeros((N, weight.shape[0], Ho, Wo)),
            input.new_zeros((N, C, Ho * kernel_size[0], Wo * kernel_size[1])))


# ---------------------------------------------------------------------------------------------
# forward
@torch.library.custom_op("ascend_dcn::deformable_conv2d", mutates_args=())
def deformable_conv2d(input: Tensor, weight: Tensor, offset: Tensor, bias: Optional[Tensor],
                      kernel_size: List[int], stride: List[int], padding: List[int],
                      dilation: List[int], groups: int, deformable_groups: int, modulated: bool,
                      save_deform_out: bool) -> Tuple[Tensor, Tensor]:
    _validate_forward(input, weight, offset, bias, kernel_size, stride, padding, dilation, groups,
                      deformable_groups, modulated)
    if input.shape[0] == 0:
        out, deform_out = _empty_batch_forward(input, weight, offset, kernel_size)
    else:
        out, deform_out = _fwd.deformable_conv2d_forward(
            input, weight, offset, bias, kernel_size, stride, padding, dilation, groups,
            deformable_groups, modulated, need_deform_out=save_deform_out)
    if not save_deform_out and input.shape[0] != 0:
        deform_out = input.new_empty((0,))   # memory-saving mode: deformOut is not materialised
    return out, deform_out


@deformable_conv2d.register_fake
def _deformable_conv2d_fake(input, weight, offset, bias, kernel_size, stride, padding, dilation,
                            groups, deformable_groups, modulated, save_deform_out):
    _validate_forward(input, weight, offset, bias, kernel_size, stride, padding, dilation, groups,
                      deformable_groups, modulated)
    N, C = input.shape[0], input.shape[1]
    Ho, Wo = offset.shape[2], offset.shape[3]
    out = input.new_empty((N, weight.shape[0], Ho, Wo))
    if not save_deform_out and N != 0:
        return out, input.new_empty((0,))
    deform_out = input.new_empty((N, C, Ho * kernel_size[0], Wo * kernel_size[1]))
    return out, deform_out


# ---------------------------------------------------------------------------------------------
# sampling stage alone (memory-saving recompute)
@torch.library.custom_op("ascend_dcn::deformable_sample", mutates_args=())
def deformable_sample(input: Tensor, offset: Tensor, kernel_size: List[int], stride: List[int],
                      padding: List[int], dilation: List[int], deformable_groups: int,
                      modulated: bool) -> Tensor:
    return _fwd.sample_deform_out(input, offset, kernel_size, stride, padding, dilation,
                                  deformable_groups, modulated)


@deformable_sample.register_fake
def _deformable_sample_fake(input, offset, kernel_size, stride, padding, dilation,
                            deformable_groups, modulated):
    N, C = input.shape[0], input.shape[1]
    return input.new_empty((N, C, offset.shape[2] * kernel_size[0], offset.shape[3] * kernel_size[1]))


# ---------------------------------------------------------------------------------------------
# backward (this project's operator)
def reference_backward(input, grad_output, offset_out, weight, offset, kernel_size, stride,
                        padding, dilation, groups, deformable_groups, modulated):
    from . import reference
    grads = reference.deformable_conv2d_backward(
        input, grad_output, offset_out, weight, offset, list(kernel_size), list(stride),
        list(padding), list(dilation), groups, deformable_groups, modulated)
    # same dtypes/devices/shapes as the operator's outputs (grad_bias: [Cout], grad_output's dtype)
    specs = ((input, input.shape), (input, weight.shape), (input, offset.shape),
             (grad_output, (weight.shape[0],)))
    return tuple(torch.as_tensor(g).to(device=like.device, dtype=like.dtype).reshape(shape).clone()
                 for g, (like, shape) in zip(grads, specs))


@torch.library.custom_op("ascend_dcn::deformable_conv2d_backward", mutates_args=())
def deformable_conv2d_backward(input: Tensor, grad_output: Tensor, offset_out: Tensor,
                               weight: Tensor, offset: Tensor, kernel_size: List[int],
                               stride: List[int], padding: List[int], dilation: List[int],
                               groups: int, deformable_groups: int, modulated: bool
                               ) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    args = (input, grad_output, offset_out, weight, offset, list(kernel_size), list(stride),
            list(padding), list(dilation), groups, deformable_groups, modulated)
    if _backward_backend == "reference":
        return reference_backward(*args)
    from . import ops
    grads = ops.deformable_conv2d_backward(*args)
    # a custom op may not return its inputs' storage: outputs are fresh tensors already
    return tuple(grads)


@deformable_conv2d_backward.register_fake
def _deformable_conv2d_backward_fake(input, grad_output, offset_out, weight, offset, kernel_size,
                                     stride, padding, dilation, groups, deformable_groups,
                                     modulated):
    return (torch.empty_like(input), torch.empty_like(weight), torch.empty_like(offset),
            grad_output.new_empty((grad_output.shape[1],)))


# ---------------------------------------------------------------------------------------------
# autocast
_autocast_lib = torch.library.Library("ascend_dcn", "IMPL")


def _register_autocast(op_name: str, dispatch_key: str, device_type):
    """Autocast kernel: floating tensors on `device_type` are cast to the autocast dtype in effect,
    then the op runs below the autocast key. `device_type` may be a callable (resolved per call)."""
    op = getattr(torch.ops.ascend_dcn, op_name).default
    key = getattr(torch._C.DispatchKey, dispatch_key)

    def kernel(_keyset, *args):
        device = device_type() if callable(device_type) else device_type
        dtype = torch.get_autocast_dtype(device)
        cast = tuple(a.to(dtype) if isinstance(a, Tensor) and a.is_floating_point()
                     and a.device.type == device else a for a in args)
        with torch._C._ExcludeDispatchKeyGuard(torch._C.DispatchKeySet(key)):
            return op(*cast)

    _autocast_lib.impl(op_name, kernel, dispatch_key, with_keyset=True)


def _privateuse1_device() -> str:
    """torch_npu renames the PrivateUse1 backend to "npu"; resolved when the kernel runs, so the
    registration also holds if torch_npu is imported after ascend_dcn."""
    return torch._C._get_privateuse1_backend_name()


for _name in ("deformable_conv2d", "deformable_sample"):
    _register_autocast(_name, "AutocastCPU", "cpu")
    _register_autocast(_name, "AutocastPrivateUse1", _privateuse1_device)
