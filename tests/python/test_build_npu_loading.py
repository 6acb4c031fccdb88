"""ascend_dcn.npu.get_opapi / current_stream_ptr / backend_info with a stand-in torch_npu module
and a stand-in ascend_dcn._C (recording OpApi), so the loading logic that normally only runs on an
Ascend host is exercised here: check order, arguments to OpApi, load-once caching, SoC refusal."""
import importlib.machinery
import sys
import types

import pytest

import ascend_dcn
from ascend_dcn import npu


def make_vendor(directory):
    for rel in ("op_api/lib/libcust_opapi.so", "op_api/include/aclnn_deformable_conv2d_backward.h"):
        (directory / rel).parent.mkdir(parents=True, exist_ok=True)
        (directory / rel).write_text("fake")
    return directory


def make_cann(root):
    (root / "lib64").mkdir(parents=True)
    for lib in ("libascendcl.so", "libnnopbase.so"):
        (root / "lib64" / lib).write_text("fake")
    return root


class FakeStream:
    npu_stream = 0xABC0


def fake_torch_npu(soc="Ascend910B2", available=True):
    module = types.ModuleType("torch_npu")
    module.__spec__ = importlib.machinery.ModuleSpec("torch_npu", loader=None)
    module.__version__ = "fake"
    calls = []

    def current_stream(device=None):
        calls.append(("current_stream", device))
        return FakeStream()

    module.npu = types.SimpleNamespace(is_available=lambda: available,
                                       get_device_name=lambda device=None: soc,
                                       current_stream=current_stream)
    module.calls = calls
    return module


def fake_extension():
    module = types.ModuleType("ascend_dcn._C")
    module.loads = []

    class OpApi:
        def __init__(self, opapi_path, runtime_paths):
            module.loads.append((opapi_path, list(runtime_paths)))

    module.OpApi = OpApi
    return module


@pytest.fixture
def host(monkeypatch, tmp_path):
    """A fake Ascend host: CANN libs, an installed package, torch_npu and _C stand-ins."""
    for key in list(__import__("os").environ):
        if key.startswith("ASCEND_") or key == "LD_LIBRARY_PATH":
            monkeypatch.delenv(key)
    cann = make_cann(tmp_path / "cann")
    vendor = make_vendor(tmp_path / "inst" / "vendors" / "ascend_dcn")
    monkeypatch.setenv("ASCEND_HOME_PATH", str(cann))
    monkeypatch.setenv("ASCEND_CUSTOM_OPP_PATH", str(vendor))
    torch_npu = fake_torch_npu()
    ext = fake_extension()
    monkeypatch.setitem(sys.modules, "torch_npu", torch_npu)
    monkeypatch.setitem(sys.modules, "ascend_dcn._C", ext)
    monkeypatch.setattr(ascend_dcn, "_C", ext, raising=False)
    monkeypatch.setattr(npu, "_opapi", None)
    monkeypatch.setattr(npu, "_opapi_key", None)
    monkeypatch.setattr(npu, "_loaded_env", None)
    monkeypatch.setattr(npu, "_checked_devices", set())
    npu.set_opp_path(None)
    return types.SimpleNamespace(cann=cann, vendor=vendor, torch_npu=torch_npu, ext=ext)


def test_get_opapi_loads_package_with_runtime_once(host):
    api = npu.get_opapi()
    assert npu.get_opapi() is api
    assert host.ext.loads == [(str(host.vendor / "op_api" / "lib" / "libcust_opapi.so"),
                               [str(host.cann / "lib64" / "libascendcl.so"),
                                str(host.cann / "lib64" / "libnnopbase.so")])]


def test_set_opp_path_switches_the_loaded_package(host, tmp_path):
    npu.get_opapi()
    other = make_vendor(tmp_path / "other" / "vendors" / "ascend_dcn")
    npu.set_opp_path(tmp_path / "other")
    npu.get_opapi()
    assert [load[0] for load in host.ext.loads] == [
        str(host.vendor / "op_api" / "lib" / "libcust_opapi.so"),
        str(other.resolve() / "op_api" / "lib" / "libcust_opapi.so")]
    npu.set_opp_path(None)


def test_current_stream_ptr_uses_torch_npu_stream(host):
    assert npu.current_stream_ptr("npu:1") == 0xABC0
    assert host.torch_npu.calls == [("current_stream", "npu:1")]


def test_unsupported_soc_is_refused_before_loading(host, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch_npu", fake_torch_npu(soc="Ascend310P3"))
    with pytest.raises(npu.NpuBackendError) as err:
        npu.get_opapi()
    assert err.value.missing == "soc" and "Ascend310P3" in str(err.value)
    assert host.ext.loads == []


def test_no_visible_npu(host, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch_npu", fake_torch_npu(available=False))
    with pytest.raises(npu.NpuBackendError) as err:
        npu.get_opapi()
    assert err.value.missing == "npu_device" and "npu-smi info" in err.value.fix


def test_missing_package_on_a_host(host, monkeypatch):
    monkeypatch.delenv("ASCEND_CUSTOM_OPP_PATH")
    with pytest.raises(npu.NpuBackendError) as err:
        npu.get_opapi()
    assert err.value.missing == "vendor_package"
    assert host.ext.loads == []


def test_load_failure_is_explained(host, monkeypatch):
    def broken(opapi_path, runtime_paths):
        raise RuntimeError("dlopen: undefined symbol aclnnFoo")
    monkeypatch.setattr(host.ext, "OpApi", broken)
    with pytest.raises(npu.NpuBackendError) as err:
        npu.get_opapi()
    assert err.value.missing == "load" and "undefined symbol aclnnFoo" in str(err.value)
    assert "bash build.sh" in err.value.fix


def test_backend_info_selects_npu_on_a_complete_host(host):
    info = npu.backend_info()
    assert info["selected_backend"] == "npu"
    assert info["soc"] == "Ascend910B2" and info["soc_supported"] and info["torch_npu"] == "fake"
    assert info["problems"] == []


def test_repeated_calls_skip_the_lookup_until_the_environment_changes(host, monkeypatch, tmp_path):
    api = npu.get_opapi()

    def no_lookup(*args, **kwargs):
        raise AssertionError("file-system lookup on the fast path")
    monkeypatch.setattr(npu, "resolve_library_paths", no_lookup)
    monkeypatch.setattr(npu, "device_soc_name", no_lookup)
    assert npu.get_opapi() is api


def test_environment_change_reloads(host, monkeypatch, tmp_path):
    npu.get_opapi()
    other = make_vendor(tmp_path / "moved" / "vendors" / "ascend_dcn")
    monkeypatch.setenv("ASCEND_CUSTOM_OPP_PATH", str(other))
    npu.get_opapi()
    assert [load[0] for load in host.ext.loads] == [
        str(host.vendor / "op_api" / "lib" / "libcust_opapi.so"),
        str(other / "op_api" / "lib" / "libcust_opapi.so")]
