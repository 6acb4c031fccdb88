"""ascend_dcn.npu.get_extension / backend_info with a stand-in torch_npu module and a stand-in
extension build (recording bind_library), so the loading logic that normally only runs on an Ascend
host is exercised here: check order, the library bound, load-once caching, SoC refusal, trust."""
import importlib.machinery
import os
import sys
import types

import pytest

from ascend_dcn import npu


def make_vendor(directory):
    for rel in ("op_api/lib/libcust_opapi.so", "op_api/include/aclnn_deformable_conv2d_backward.h"):
        (directory / rel).parent.mkdir(parents=True, exist_ok=True)
        (directory / rel).write_text("fake")
    for d in [directory] + [p for p in directory.rglob("*") if p.is_dir()]:
        d.chmod(0o755)
    return directory


def make_cann(root):
    (root / "include" / "aclnn").mkdir(parents=True)
    (root / "include" / "aclnn" / "acl_meta.h").write_text("fake")
    return root


def fake_torch_npu(soc="Ascend910B2", available=True):
    module = types.ModuleType("torch_npu")
    module.__spec__ = importlib.machinery.ModuleSpec("torch_npu", loader=None)
    module.__version__ = "fake"
    module.npu = types.SimpleNamespace(is_available=lambda: available,
                                       get_device_name=lambda device=None: soc)
    return module


class FakeExtension(types.ModuleType):
    class NpuExecutor:
        pass

    def __init__(self):
        super().__init__(npu.EXTENSION_NAME)
        self.binds = []

    def bind_library(self, path):
        self.binds.append(path)


@pytest.fixture
def host(monkeypatch, tmp_path):
    """A fake Ascend host: CANN include, an installed package, torch_npu and extension stand-ins."""
    for key in list(os.environ):
        if key.startswith("ASCEND_"):
            monkeypatch.delenv(key)
    cann = make_cann(tmp_path / "cann")
    vendor = make_vendor(tmp_path / "inst" / "vendors" / "ascend_dcn")
    monkeypatch.setenv("ASCEND_HOME_PATH", str(cann))
    monkeypatch.setenv("ASCEND_CUSTOM_OPP_PATH", str(vendor))
    monkeypatch.setitem(sys.modules, "torch_npu", fake_torch_npu())
    ext = FakeExtension()
    builds = []

    def build_extension(verbose=False):
        builds.append(verbose)
        return ext
    monkeypatch.setattr(npu, "build_extension", build_extension)
    monkeypatch.setattr(npu, "_extension", None)
    monkeypatch.setattr(npu, "_bound_opapi", None)
    monkeypatch.setattr(npu, "_loaded_env", None)
    monkeypatch.setattr(npu, "_checked_devices", set())
    npu.set_opp_path(None)
    yield types.SimpleNamespace(cann=cann, vendor=vendor, ext=ext, builds=builds)
    npu.set_opp_path(None)


def lib_of(vendor):
    return str((vendor / "op_api" / "lib" / "libcust_opapi.so").resolve())


def test_get_extension_builds_once_and_binds_our_library(host):
    ext = npu.get_extension()
    assert npu.get_extension() is ext is host.ext
    assert host.builds == [False]
    assert host.ext.binds == [lib_of(host.vendor)]
    assert npu.loaded_extension() is ext
    assert npu.is_npu_executor(ext.NpuExecutor()) and not npu.is_npu_executor(object())


def test_set_opp_path_rebinds(host, tmp_path):
    npu.get_extension()
    other = make_vendor(tmp_path / "other" / "vendors" / "ascend_dcn")
    npu.set_opp_path(tmp_path / "other")
    npu.get_extension()
    assert host.ext.binds == [lib_of(host.vendor), lib_of(other)]
    assert host.builds == [False], "the extension is built once; only the library is rebound"


def test_unsupported_soc_is_refused_before_building(host, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch_npu", fake_torch_npu(soc="Ascend310P3"))
    with pytest.raises(npu.NpuBackendError) as err:
        npu.get_extension()
    assert err.value.missing == "soc" and "Ascend310P3" in str(err.value)
    assert host.builds == [] and host.ext.binds == []


def test_no_visible_npu(host, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch_npu", fake_torch_npu(available=False))
    with pytest.raises(npu.NpuBackendError) as err:
        npu.get_extension()
    assert err.value.missing == "npu_device" and "npu-smi info" in err.value.fix


def test_missing_package_on_a_host(host, monkeypatch):
    monkeypatch.delenv("ASCEND_CUSTOM_OPP_PATH")
    with pytest.raises(npu.NpuBackendError) as err:
        npu.get_extension()
    assert err.value.missing == "vendor_package"
    assert host.ext.binds == []


def test_untrusted_package_is_never_bound(host):
    (host.vendor / "op_api" / "lib").chmod(0o777)
    with pytest.raises(npu.UntrustedPathError) as err:
        npu.get_extension()
    assert "writable by group or others" in err.value.rule
    assert host.ext.binds == []


def test_bind_failure_is_explained(host, monkeypatch):
    def broken(path):
        raise RuntimeError("dlopen: undefined symbol aclnnFoo")
    monkeypatch.setattr(host.ext, "bind_library", broken)
    with pytest.raises(npu.NpuBackendError) as err:
        npu.get_extension()
    assert err.value.missing == "load" and "undefined symbol aclnnFoo" in str(err.value)
    assert "bash build.sh" in err.value.fix


def test_backend_info_selects_npu_on_a_complete_host(host):
    info = npu.backend_info()
    assert info["selected_backend"] == "npu"
    assert info["soc"] == "Ascend910B2" and info["soc_supported"] and info["torch_npu"] == "fake"
    assert info["cann_include"] == str(host.cann / "include")
    assert info["problems"] == []


def test_repeated_calls_skip_the_lookup_until_the_environment_changes(host, monkeypatch):
    ext = npu.get_extension()

    def no_lookup(*args, **kwargs):
        raise AssertionError("file-system lookup on the fast path")
    monkeypatch.setattr(npu, "resolve_opapi_path", no_lookup)
    monkeypatch.setattr(npu, "device_soc_name", no_lookup)
    assert npu.get_extension() is ext


def test_environment_change_rebinds(host, monkeypatch, tmp_path):
    npu.get_extension()
    other = make_vendor(tmp_path / "moved" / "vendors" / "ascend_dcn")
    monkeypatch.setenv("ASCEND_CUSTOM_OPP_PATH", str(other))
    npu.get_extension()
    assert host.ext.binds == [lib_of(host.vendor), lib_of(other)]
