"""The Python dispatch that routes NPU tensors to the torch_npu extension, with a fake device backend.

The fake backend: tensors of torch's PrivateUse1 device (the device torch_npu names "npu") made as
wrapper subclasses that own no memory and refuse to compute (any aten op on them fails), and a fake
extension module standing in for ascend_dcn_npu_ext that records every call. Checked:

* ops.deformable_conv2d_backward, ops.get_workspace_size / ops.execute and the torch.library op
  (torch.ops.ascend_dcn.deformable_conv2d_backward, and through it autograd and torch.compile) all
  reach the extension for NPU tensors, with the arguments of the call;
* no Python code path launches phase 2 on a raw NPU stream: the twin binding is never used for NPU
  tensors, a stream argument is refused for NPU executors, and an executor that is not the
  extension's is refused for NPU tensors;
* the extension's errors that carry an aclnn status become ascend_dcn.errors classes.
"""
import types

import pytest
import torch

from ascend_dcn import _backend, errors, npu, ops

NPU = torch.device(torch._C._get_privateuse1_backend_name(), 0)


class FakeNpuTensor(torch.Tensor):
    """Metadata-only tensor on the PrivateUse1 device; computing with it is an error."""

    @staticmethod
    def __new__(cls, shape, dtype=torch.float32):
        return torch.Tensor._make_wrapper_subclass(cls, shape, dtype=dtype, device=NPU)

    @classmethod
    def __torch_dispatch__(cls, func, types_, args=(), kwargs=None):
        if func.namespace == "ascend_dcn":
            # below the Python key the dispatcher picks the op's PrivateUse1 kernel (none is
            # registered here, as before the extension loads) or its Python implementation
            with torch._C._ExcludeDispatchKeyGuard(torch._C.DispatchKeySet(torch._C.DispatchKey.Python)):
                return func(*args, **(kwargs or {}))
        raise AssertionError(f"computed {func} on a fake NPU tensor in Python")


class FakeExecutor:
    def __init__(self, size):
        self.workspace_size = size
        self.used = False


class FakeExtension(types.ModuleType):
    NpuExecutor = FakeExecutor

    def __init__(self):
        super().__init__("ascend_dcn_npu_ext")
        self.calls = []

    def get_workspace_size(self, *args):
        self.calls.append(("get_workspace_size", args))
        return 128, FakeExecutor(128)

    def execute(self, workspace, size, executor):
        self.calls.append(("execute", (workspace, size, executor)))
        executor.used = True

    def deformable_conv2d_backward(self, *args):
        self.calls.append(("deformable_conv2d_backward", args))
        x, go, _, w, off = args[:5]
        return (FakeNpuTensor(x.shape), FakeNpuTensor(w.shape), FakeNpuTensor(off.shape),
                FakeNpuTensor((w.shape[0],), go.dtype))


@pytest.fixture
def ext(monkeypatch):
    fake = FakeExtension()

    def get_extension(device=None):
        fake.calls.append(("get_extension", str(device)))
        return fake
    monkeypatch.setattr(npu, "get_extension", get_extension)
    monkeypatch.setattr(npu, "_extension", fake)

    def no_twin(*args, **kwargs):
        raise AssertionError("the twin binding was used for NPU tensors")
    monkeypatch.setattr(_backend, "get_twin_opapi", no_twin)
    return fake


def case(requires_grad=False):
    N, Cin, Cout, H, W, K = 1, 4, 6, 5, 5, 3
    x = FakeNpuTensor((N, Cin, H, W))
    w = FakeNpuTensor((Cout, Cin, K, K))
    off = FakeNpuTensor((N, 3 * K * K, H, W))
    go = FakeNpuTensor((N, Cout, H, W))
    d = FakeNpuTensor((N, Cin, H * K, W * K))
    attrs = ([K, K], [1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], 1, 1, True)
    return (x, go, d, w, off), attrs


def names(calls):
    return [c[0] for c in calls]


def test_fused_call_goes_to_the_extension(ext):
    inputs, attrs = case()
    grads = ops.deformable_conv2d_backward(*inputs, *attrs)
    assert names(ext.calls) == ["get_extension", "deformable_conv2d_backward"]
    assert ext.calls[0][1] == str(NPU)
    args = ext.calls[1][1]
    assert all(a is b for a, b in zip(args[:5], inputs)), "the tensors themselves are handed over"
    assert list(args[5:]) == list(attrs)
    assert [tuple(g.shape) for g in grads] == [(1, 4, 5, 5), (6, 4, 3, 3), (1, 27, 5, 5), (6,)]


def test_two_phase_api_goes_to_the_extension(ext):
    inputs, attrs = case()
    x, go, d, w, off = inputs
    outs = (FakeNpuTensor(x.shape), FakeNpuTensor(w.shape), FakeNpuTensor(off.shape), FakeNpuTensor((6,)))
    size, executor = ops.get_workspace_size(*inputs, *attrs, *outs)
    assert size == 128 and isinstance(executor, FakeExecutor)
    call = ext.calls[-1]
    assert call[0] == "get_workspace_size" and all(a is b for a, b in zip(call[1][12:], outs))
    workspace = FakeNpuTensor((size,), torch.uint8)
    ops.execute(workspace, size, executor)
    assert ext.calls[-1] == ("execute", (workspace, 128, executor)) and executor.used


def test_no_raw_stream_for_npu_executors(ext):
    inputs, attrs = case()
    _, executor = ops.get_workspace_size(*inputs, *attrs, None, None, None, None)
    with pytest.raises(ValueError, match="current stream"):
        ops.execute(FakeNpuTensor((128,), torch.uint8), 128, executor, stream=0x1234)
    with pytest.raises(TypeError, match="must be an NPU tensor"):
        ops.execute(0xDEAD000, 128, executor)
    assert "execute" not in names(ext.calls)


def test_foreign_executor_with_npu_workspace_is_refused(ext):
    with pytest.raises(ValueError, match="not made by the NPU extension"):
        ops.execute(FakeNpuTensor((128,), torch.uint8), 128, object())


def test_torch_library_op_reaches_the_extension(ext):
    inputs, attrs = case()
    grads = torch.ops.ascend_dcn.deformable_conv2d_backward(*inputs, *attrs)
    assert "deformable_conv2d_backward" in names(ext.calls)
    assert len(grads) == 4 and all(g.device == NPU for g in grads)


def test_extension_status_errors_become_aclnn_errors(ext, monkeypatch):
    def failing(*args):
        raise RuntimeError("aclnnDeformableConv2dBackwardGetWorkspaceSize failed with status 161002 "
                           "(ACLNN_ERR_PARAM_INVALID): groups: must divide Cin; expected 0, got 1\n"
                           "[ERROR] 2026-12-03 ERR01001 OPS invalid parameter")
    monkeypatch.setattr(ext, "get_workspace_size", failing)
    inputs, attrs = case()
    with pytest.raises(errors.AclnnParamInvalidError) as err:
        ops.get_workspace_size(*inputs, *attrs, None, None, None, None)
    assert err.value.status == 161002 and err.value.argument == "groups"


def test_other_extension_errors_pass_through(ext, monkeypatch):
    def failing(*args):
        raise RuntimeError("NPU out of memory")
    monkeypatch.setattr(ext, "deformable_conv2d_backward", failing)
    inputs, attrs = case()
    with pytest.raises(RuntimeError, match="out of memory"):
        ops.deformable_conv2d_backward(*inputs, *attrs)


def test_python_sources_never_launch_on_a_raw_npu_stream():
    """No Python module takes torch_npu's raw stream handle (the old direct-launch path)."""
    import pathlib
    import ascend_dcn
    root = pathlib.Path(ascend_dcn.__file__).parent
    offenders = [p.name for p in root.glob("*.py") if "npu_stream" in p.read_text() or
                 "current_stream_ptr" in p.read_text()]
    assert offenders == []


def test_cpu_tensors_still_use_the_twin(monkeypatch):
    calls = []

    class Api:
        def get_workspace_size(self, inputs, attrs, outputs, precheck=True, keep_alive=None):
            calls.append(keep_alive)
            return 0, "executor"
    x = torch.zeros(1, 4, 5, 5)
    ops.get_workspace_size(x, None, None, None, None, [3, 3], [1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], 1, 1,
                           True, None, None, None, None, opapi=Api())
    assert calls and calls[0][0] is x
