"""The operator as a Python call: ``deformable_conv2d_backward`` (drop-in for torch_npu's
``npu_deformable_conv2dbk``) and thin wrappers of the two aclnn phases.

Flow of ``deformable_conv2d_backward``:
  1. ``ascend_dcn.validation.check_backward_args`` — the contract's rules, order and status codes
     (raises ``ascend_dcn.errors.AclnnError`` subclasses); all tensors must be on one device.
  2. inputs made contiguous (non-contiguous inputs are accepted); outputs allocated with torch:
     grad_input/grad_weight/grad_offset like input/weight/offset (input's dtype), grad_bias
     ``[Cout]`` with grad_output's dtype.
  3. CPU tensors -> the CPU twin (``ascend_dcn._backend``); NPU tensors (torch's PrivateUse1 device,
     "npu" under torch_npu) -> the torch_npu extension (``ascend_dcn.npu.get_extension()``), which
     runs both phases itself: phase 2 goes through torch_npu's task queue on its current stream,
     never from Python on a raw stream.
  4. ``get_workspace_size`` -> workspace = torch uint8 tensor on the same device -> ``execute``.
Two-phase API: ``get_workspace_size`` returns ``(size, executor)``; the executor holds references to
every tensor it describes until it has run or is dropped (dropping an unexecuted executor releases
it). On NPU tensors ``execute`` queues phase 2 exactly where the fused call would, so a caller who
uses the two phases between other torch_npu operators gets the same result as the fused call.
Tensor formats passed to aclnn: a torch tensor carries no format, so each argument is tagged with the
format its role has in the contract — NCHW for the eight 4-D tensors, ND for grad_bias — whatever
its rank; a tensor of the wrong rank is then reported by the dimension rule (step 5), exactly as
the Python validation does.
"""

import operator
import re
import types

import torch

from . import _backend
from .errors import AclnnParamInvalidError
from .validation import check_backward_args

__all__ = ["deformable_conv2d_backward", "get_workspace_size", "execute", "tensor_spec"]

_DTYPE_NAMES = {
    torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16", torch.float64: "float64",
    torch.int8: "int8", torch.uint8: "uint8", torch.int16: "int16", torch.int32: "int32", torch.int64: "int64",
    torch.bool: "bool",
}


def tensor_spec(t, format_name=None):
    """``(data_ptr, shape, strides, dtype_name, format_name)`` of a torch tensor for ``_C``; None stays None."""
    if t is None:
        return None
    if t.dtype not in _DTYPE_NAMES:
        raise AclnnParamInvalidError("tensor", "dtype has no aclDataType mapping", "a supported dtype", str(t.dtype))
    fmt = format_name or ("NCHW" if t.dim() == 4 else "ND")
    return (t.data_ptr(), list(t.shape), list(t.stride()), _DTYPE_NAMES[t.dtype], fmt)


def _int_list(v):
    """Ints stay ints (numpy / 0-d integer tensors accepted); floats or bools are refused, never truncated."""
    if v is None:
        return None
    out = []
    for x in v:
        if isinstance(x, bool):
            raise TypeError(f"int array element must be an int, got bool {x!r}")
        out.append(operator.index(x))
    return out


def npu_device_type():
    """The device type NPU tensors have: torch's PrivateUse1 backend name ("npu" once torch_npu is
    imported; "privateuseone" otherwise)."""
    return torch._C._get_privateuse1_backend_name()


def _is_npu(device):
    return device.type == npu_device_type()


def _resolve_opapi(device, opapi):
    """The twin's OpApi for CPU tensors; NPU tensors never get one (they use the extension)."""
    if opapi is not None:
        return opapi
    if device.type == "cpu":
        opapi = _backend.get_twin_opapi()
        _backend.twin_apply_thread_budget()
        return opapi
    raise _backend.BackendUnavailableError(
        f"tensors on device '{device}' are not supported: use CPU tensors (CPU twin) or NPU tensors (torch_npu)")


def _npu_module():
    try:
        from . import npu
    except ImportError as e:
        raise _backend.BackendUnavailableError(
            f"NPU tensors need ascend_dcn.npu (the Ascend-host backend), which could not be imported: {e}") from e
    return npu


def _npu_extension(device):
    """The torch_npu extension for NPU tensors on ``device`` (ascend_dcn.npu.get_extension)."""
    return _npu_module().get_extension(device)


_NPU_STATUS_RE = re.compile(r"failed with status (?P<status>\d+) \((?P<name>\w+)\): (?P<message>[^\n]*)")


def translate_npu_error(exc):
    """The AclnnError of an extension failure that carries an aclnn status (returned), else None."""
    match = _NPU_STATUS_RE.search(str(exc))
    if match is None:
        return None
    err = _backend.translate_error(types.SimpleNamespace(
        status=int(match["status"]), message=match["message"], argument="",
        api=str(exc).split(" failed", 1)[0].strip()))
    return err


def _call_npu(fn, *args):
    try:
        return fn(*args)
    except RuntimeError as e:
        err = translate_npu_error(e)
        if err is not None:
            raise err from e
        raise


def get_workspace_size(input, grad_output, offset_out, weight, offset, kernel_size, stride, padding, dilation,
                       groups, deformable_groups, modulated, grad_input, grad_weight, grad_offset, grad_bias, *,
                       opapi=None, precheck=True):
    """Phase 1: ``aclnnDeformableConv2dBackwardGetWorkspaceSize`` -> ``(workspace_size, executor)``.

    Tensors may be None (passed as nullptr). CPU tensors use the twin (``opapi`` overrides it); NPU
    tensors use the torch_npu extension (phase 1 on this thread; ``opapi`` must be None).
    ``precheck`` runs the C++ contract check first (exact status codes even where the generated
    layer reports a tiling failure differently; the NPU extension always runs it). The executor keeps
    the tensors alive until it has run or is dropped. Errors raise ``ascend_dcn.errors.AclnnError``
    subclasses."""
    first = next((t for t in (input, grad_output, offset_out, weight, offset) if t is not None), None)
    device = first.device if first is not None else torch.device("cpu")
    attrs = [_int_list(kernel_size), _int_list(stride), _int_list(padding), _int_list(dilation),
             operator.index(groups), operator.index(deformable_groups), bool(modulated)]
    if _is_npu(device) and opapi is None:
        ext = _npu_extension(device)
        return _call_npu(ext.get_workspace_size, input, grad_output, offset_out, weight, offset, *attrs,
                         grad_input, grad_weight, grad_offset, grad_bias)
    api = _resolve_opapi(device, opapi)
    tensors = (input, grad_output, offset_out, weight, offset, grad_input, grad_weight, grad_offset, grad_bias)
    inputs = [tensor_spec(t, "NCHW") for t in tensors[:5]]
    outputs = [tensor_spec(t, "NCHW") for t in tensors[5:8]] + [tensor_spec(grad_bias, "ND")]
    try:
        return api.get_workspace_size(inputs, attrs, outputs, precheck=precheck,
                                      keep_alive=tuple(t for t in tensors if t is not None))
    except Exception as e:
        if _backend.is_call_error(e):
            raise _backend.translate_error(e) from e
        raise


def execute(workspace, workspace_size, executor, stream=None, *, opapi=None, device=None):
    """Phase 2: ``aclnnDeformableConv2dBackward``. ``workspace`` is a torch tensor, an address or None.

    An executor of NPU tensors is launched by the torch_npu extension through torch_npu's task
    queue on its current stream of the tensors' device; ``workspace`` must then be a tensor on that
    device (or None for size 0) and ``stream`` None (select a stream with ``torch.npu.stream(s)``)."""
    if _npu_module_loaded() and _npu_module().is_npu_executor(executor):
        if stream is not None:
            raise ValueError("execute: NPU executors run on torch_npu's current stream; use "
                             "`with torch.npu.stream(s):` instead of passing stream")
        if workspace is not None and not isinstance(workspace, torch.Tensor):
            raise TypeError("execute: the workspace of an NPU executor must be an NPU tensor (or None)")
        return _call_npu(_npu_module().loaded_extension().execute, workspace, int(workspace_size), executor)
    device = torch.device(device) if device is not None else (
        workspace.device if isinstance(workspace, torch.Tensor) else torch.device("cpu"))
    if _is_npu(device):
        raise ValueError("execute: this executor was not made by the NPU extension; NPU tensors must go "
                         "through ascend_dcn.ops.get_workspace_size on NPU tensors")
    api = _resolve_opapi(device, opapi)
    if isinstance(workspace, torch.Tensor):
        nbytes = workspace.numel() * workspace.element_size()
        if nbytes < int(workspace_size) or not workspace.is_contiguous():
            raise AclnnParamInvalidError("workspace", "must be a contiguous buffer of at least workspaceSize bytes",
                                         f">= {int(workspace_size)} contiguous bytes",
                                         f"{nbytes} bytes{'' if workspace.is_contiguous() else ', non-contiguous'}")
        ptr = workspace.data_ptr() if workspace.numel() else 0
    else:
        ptr = int(workspace or 0)
    try:
        return api.execute(ptr, int(workspace_size), executor, int(stream or 0))
    except Exception as e:
        if _backend.is_call_error(e):
            raise _backend.translate_error(e) from e
        raise


def _npu_module_loaded():
    import sys
    return sys.modules.get(__package__ + ".npu") is not None


def _check_same_device(named, device):
    for name, t in named:
        if t.device != device:
            raise AclnnParamInvalidError(name, "must be on the same device as input", str(device), str(t.device))


def deformable_conv2d_backward(input, grad_output, offset_out, weight, offset, kernel_size, stride, padding,
                               dilation=(1, 1, 1, 1), groups=1, deformable_groups=1, modulated=True):
    """Gradients of the modulated deformable convolution (CANN's aclnnDeformableConv2dBackward contract).

    Returns ``(grad_input, grad_weight, grad_offset, grad_bias)``; argument list and result order of
    ``torch_npu.npu_deformable_conv2dbk``. ``modulated=False`` (DCNv1, offset ``[N, 2*dg*KH*KW, Ho, Wo]``)
    is our extension. NPU tensors run through the torch_npu extension's fused call (the same kernel
    torch dispatches ``ascend_dcn::deformable_conv2d_backward`` to on NPU)."""
    check_backward_args(input, grad_output, offset_out, weight, offset, kernel_size, stride, padding, dilation,
                        groups, deformable_groups, modulated)
    device = input.device
    _check_same_device([("gradOutput", grad_output), ("offsetOut", offset_out), ("weight", weight),
                        ("offset", offset)], device)
    if _is_npu(device):
        ext = _npu_extension(device)
        return tuple(_call_npu(ext.deformable_conv2d_backward, input, grad_output, offset_out, weight, offset,
                               _int_list(kernel_size), _int_list(stride), _int_list(padding), _int_list(dilation),
                               operator.index(groups), operator.index(deformable_groups), bool(modulated)))
    inputs = [t.contiguous() for t in (input, grad_output, offset_out, weight, offset)]
    x, go = inputs[0], inputs[1]
    grad_input = torch.empty(x.shape, dtype=x.dtype, device=device)
    grad_weight = torch.empty(weight.shape, dtype=x.dtype, device=device)
    grad_offset = torch.empty(offset.shape, dtype=x.dtype, device=device)
    grad_bias = torch.empty((weight.shape[0],), dtype=go.dtype, device=device)
    api = _resolve_opapi(device, None)
    size, executor = get_workspace_size(*inputs, kernel_size, stride, padding, dilation, groups, deformable_groups,
                                        modulated, grad_input, grad_weight, grad_offset, grad_bias, opapi=api)
    workspace = torch.empty((int(size),), dtype=torch.uint8, device=device) if size else None
    execute(workspace, size, executor, opapi=api, device=device)
    return grad_input, grad_weight, grad_offset, grad_bias
