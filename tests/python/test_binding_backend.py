"""ascend_dcn._backend / ascend_dcn.ops plumbing that needs no native library: library discovery
errors, translation of native call errors into the package's AclnnError classes, tensor descriptions,
and the NPU dispatch's error when the NPU backend is missing."""

import pytest
import torch

from ascend_dcn import _backend, errors, ops


class FakeCallError(RuntimeError):
    def __init__(self, status, message, argument="", api="aclnnDeformableConv2dBackwardGetWorkspaceSize"):
        super().__init__(message)
        self.status, self.message, self.argument, self.api = status, message, argument, api


def test_translate_contract_message_into_param_invalid():
    exc = FakeCallError(161002, "groups: inC and outC must be divisible by groups; expected a divisor of inC=6, "
                                "got 4", argument="groups")
    err = _backend.translate_error(exc)
    assert isinstance(err, errors.AclnnParamInvalidError) and isinstance(err, ValueError)
    assert (err.status, err.argument, err.rule) == (161002, "groups", "inC and outC must be divisible by groups")
    assert err.expected == "a divisor of inC=6" and err.actual == "4"


def test_translate_nullptr_without_argument_parses_it_from_the_message():
    err = _backend.translate_error(FakeCallError(161001, "gradOutput: must not be null; expected a tensor, "
                                                        "got nullptr"))
    assert isinstance(err, errors.AclnnNullptrError) and isinstance(err, TypeError)
    assert err.argument == "gradOutput"


def test_translate_unstructured_runtime_error_keeps_status_and_text():
    err = _backend.translate_error(FakeCallError(361001, "kernel launch failed: AIV core 3: UB overflow",
                                                 api="aclnnDeformableConv2dBackward"))
    assert type(err) is errors.AclnnError
    assert err.status == 361001 and err.argument == "aclnnDeformableConv2dBackward"
    assert "UB overflow" in str(err) and err.native_message.startswith("kernel launch failed")


def test_missing_twin_libraries_say_where_and_how(tmp_path, monkeypatch):
    monkeypatch.setenv(_backend.TWIN_LIB_DIR_ENV, str(tmp_path))
    with pytest.raises(_backend.BackendUnavailableError) as info:
        _backend.twin_library_paths()
    text = str(info.value)
    assert str(tmp_path) in text and "libcust_opapi.so" in text and "pip install" in text


def test_twin_libraries_found_in_the_given_directory(tmp_path, monkeypatch):
    for name in ("libcust_opapi.so", "libnnopbase.so"):
        (tmp_path / name).write_bytes(b"")
    monkeypatch.setenv(_backend.TWIN_LIB_DIR_ENV, str(tmp_path))
    assert _backend.twin_library_paths() == (str(tmp_path / "libcust_opapi.so"), [str(tmp_path / "libnnopbase.so")])


def test_tensor_spec_describes_views():
    t = torch.zeros(2, 3, 4, 5)[:, :, 1:, ::2]
    ptr, shape, strides, dtype, fmt = ops.tensor_spec(t, "NCHW")
    assert ptr == t.data_ptr() and shape == [2, 3, 3, 3] and strides == [60, 20, 5, 2]
    assert (dtype, fmt) == ("float32", "NCHW")
    assert ops.tensor_spec(torch.zeros(4, dtype=torch.bfloat16))[3:] == ("bfloat16", "ND")
    assert ops.tensor_spec(None) is None
    with pytest.raises(errors.AclnnParamInvalidError):
        ops.tensor_spec(torch.zeros(2, dtype=torch.complex64))


def test_npu_dispatch_without_npu_module_is_a_clear_error(monkeypatch):
    import sys
    import ascend_dcn
    monkeypatch.delattr(ascend_dcn, "npu", raising=False)
    monkeypatch.setitem(sys.modules, "ascend_dcn.npu", None)  # makes `from . import npu` fail
    with pytest.raises(_backend.BackendUnavailableError, match="ascend_dcn.npu"):
        ops._npu_extension(_FakeDevice())


def test_npu_dispatch_without_torch_npu_says_what_is_missing():
    try:
        import torch_npu  # noqa: F401
        pytest.skip("torch_npu is installed: this checks the message when it is missing")
    except ImportError:
        pass
    with pytest.raises(Exception, match="torch_npu"):
        ops._npu_extension(_FakeDevice())


def test_unknown_devices_are_refused():
    with pytest.raises(_backend.BackendUnavailableError, match="not supported"):
        ops._resolve_opapi(_FakeDevice(), None)


class _FakeDevice:
    type = "npu"
