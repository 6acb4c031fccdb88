"""Autograd of ascend_dcn::deformable_conv2d: the backward is this project's operator.

Gradients are not materialised (ctx.set_materialize_grads(False)): deformOut's gradient is never
allocated (autograd would otherwise pass a zero tensor of deformOut's size); an undefined gradient
of out is taken as zero.
Saved between forward and backward:
  save_deform_out=True : input, weight, offset, deformOut        (what torch_npu keeps)
  save_deform_out=False: input, weight, offset                   (deformOut, N*Cin*KH*KW*Ho*Wo
                         elements, is recomputed in the backward by ascend_dcn::deformable_sample,
                         the same sampling code as the forward)
N = 0: zero gradients without any operator call. float64 (CPU only): the float64 oracle
(library.reference_backward), so gradcheck runs in float64 on the real forward.
Otherwise the backward calls ascend_dcn::deformable_conv2d_backward once and returns the gradients of
input, weight, offset (incl. the mask block) and bias. Gradients are computed for all four tensors
in one operator call, as torch_npu does; the ones autograd does not need are dropped. Double
backward is not supported: differentiating the backward/sampling ops raises a clear error.
"""
from __future__ import annotations

import contextlib

import torch

from . import library


def _setup_context(ctx, inputs, output):
    (input, weight, offset, bias, kernel_size, stride, padding, dilation, groups,
     deformable_groups, modulated, save_deform_out) = inputs
    deform_out = output[1]
    ctx.mark_non_differentiable(deform_out)
    # deformOut never receives a gradient: without this, autograd would pass the backward a
    # zero-filled deformOut-sized tensor (N*Cin*KH*KW*Ho*Wo elements) as its "gradient".
    ctx.set_materialize_grads(False)
    ctx.attrs = (list(kernel_size), list(stride), list(padding), list(dilation), groups,
                 deformable_groups, modulated)
    ctx.has_bias = bias is not None
    ctx.bias_dtype = None if bias is None else bias.dtype
    ctx.save_deform_out = save_deform_out
    if save_deform_out:
        ctx.save_for_backward(input, weight, offset, deform_out)
    else:
        ctx.save_for_backward(input, weight, offset)


def _backward(ctx, grad_out, _grad_deform_out):
    kernel_size, stride, padding, dilation, groups, deformable_groups, modulated = ctx.attrs
    if ctx.save_deform_out:
        input, weight, offset, deform_out = ctx.saved_tensors
    elif ctx.saved_tensors[0].shape[0] == 0:
        input, weight, offset = ctx.saved_tensors
        deform_out = input.new_zeros((0, input.shape[1], offset.shape[2] * kernel_size[0],
                                      offset.shape[3] * kernel_size[1]))
    else:
        input, weight, offset = ctx.saved_tensors
        deform_out = torch.ops.ascend_dcn.deformable_sample(
            input, offset, kernel_size, stride, padding, dilation, deformable_groups, modulated)
    if grad_out is None:   # grads are not materialised (setup_context): an undefined grad is zero
        grad_out = input.new_zeros((input.shape[0], weight.shape[0], offset.shape[2], offset.shape[3]))
    grad_out = grad_out.to(input.dtype).contiguous()
    args = (input, grad_out, deform_out, weight, offset, kernel_size, stride, padding, dilation,
            groups, deformable_groups, modulated)
    if input.shape[0] == 0:             # empty batch: zero parameter gradients, no operator call
        grad_input, grad_weight, grad_offset = (torch.zeros_like(t) for t in (input, weight, offset))
        grad_bias = grad_out.new_zeros((weight.shape[0],))
    elif input.dtype == torch.float64:  # CPU float64 (the forward refuses it elsewhere): the oracle
        grad_input, grad_weight, grad_offset, grad_bias = library.reference_backward(*args)
    else:
        grad_input, grad_weight, grad_offset, grad_bias = \
            torch.ops.ascend_dcn.deformable_conv2d_backward(*args)
    if ctx.has_bias:
        grad_bias = grad_bias.to(ctx.bias_dtype)
    else:
        grad_bias = None
    return (grad_input, grad_weight, grad_offset, grad_bias,
            None, None, None, None, None, None, None, None)


library.deformable_conv2d.register_autograd(_backward, setup_context=_setup_context)


def _no_double_backward(ctx, *grads):
    raise RuntimeError("ascend_dcn: double backward through the deformable convolution is not "
                       "supported (its backward, the operator, is not differentiable)")


def _no_context(ctx, inputs, output):
    pass


library.deformable_conv2d_backward.register_autograd(_no_double_backward, setup_context=_no_context)
library.deformable_sample.register_autograd(_no_double_backward, setup_context=_no_context)


@contextlib.contextmanager
def backward_backend(name: str):
    """Internal switch (tests only): "reference" runs the float64 oracle instead of the operator,
    so that torch.autograd.gradcheck can run in float64; "operator" is the default."""
    previous = library.set_backward_backend(name)
    try:
        yield
    finally:
        library.set_backward_backend(previous)
