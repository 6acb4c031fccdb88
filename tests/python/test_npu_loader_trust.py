"""The library loader trusts only what is safe (issue 18 point 6): ascend_dcn.npu's discovery and the
C++ loader (OpApiLibrary, used by ascend_dcn._C and by the torch_npu extension) refuse libraries in
directories or files that others could have planted or changed, relative ASCEND_CUSTOM_OPP_PATH
entries and load_priority entries that are not plain vendor names — each with an error naming the
path and the rule."""
import os
import shutil
from pathlib import Path

import pytest

from ascend_dcn import _backend, npu


def make_vendor(directory: Path) -> Path:
    for rel in (npu.OPAPI_RELPATH, npu.ACLNN_HEADER_RELPATH):
        (directory / rel).parent.mkdir(parents=True, exist_ok=True)
        (directory / rel).write_text("fake")
    for d in [directory] + [p for p in directory.rglob("*") if p.is_dir()]:
        d.chmod(0o755)
    return directory


@pytest.fixture(autouse=True)
def reset_explicit_path():
    npu.set_opp_path(None)
    yield
    npu.set_opp_path(None)


def test_trusted_package_is_found(tmp_path):
    vendor = make_vendor(tmp_path / "inst" / "vendors" / "ascend_dcn")
    found = npu.find_vendor_package({"ASCEND_CUSTOM_OPP_PATH": str(vendor)})
    assert found["opapi"] == str((vendor / npu.OPAPI_RELPATH).resolve())


def test_relative_custom_opp_path_entry_is_refused(tmp_path, monkeypatch):
    make_vendor(tmp_path / "rel" / "vendors" / "ascend_dcn")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(npu.UntrustedPathError) as err:
        npu.find_vendor_package({"ASCEND_CUSTOM_OPP_PATH": "rel/vendors/ascend_dcn"})
    assert err.value.path == "rel/vendors/ascend_dcn" and "relative" in err.value.rule
    assert "ASCEND_CUSTOM_OPP_PATH" in str(err.value)


@pytest.mark.parametrize("entry", ["..", "../elsewhere", "/abs/vendor", "a/b", "."])
def test_load_priority_entries_must_be_plain_vendor_names(tmp_path, entry):
    vendors = tmp_path / "opp" / "vendors"
    make_vendor(vendors / "ascend_dcn")
    (vendors / "config.ini").write_text(f"load_priority=customize,{entry}\n")
    with pytest.raises(npu.UntrustedPathError) as err:
        npu.find_vendor_package({"ASCEND_OPP_PATH": str(tmp_path / "opp")})
    assert err.value.path == str(vendors / "config.ini")
    assert repr(entry) in err.value.rule and "plain vendor name" in err.value.rule


def test_plain_load_priority_names_are_accepted(tmp_path):
    vendors = tmp_path / "opp" / "vendors"
    make_vendor(vendors / "ascend_dcn")
    (vendors / "config.ini").write_text("load_priority=customize,mx_driving-1.0,ascend_dcn\n")
    assert npu.read_load_priority(vendors) == ["customize", "mx_driving-1.0", "ascend_dcn"]
    assert npu.find_vendor_package({"ASCEND_OPP_PATH": str(tmp_path / "opp")})["path"] == str(vendors / "ascend_dcn")


@pytest.mark.parametrize("target, mode, what", [("lib_dir", 0o775, "directory"), ("lib_dir", 0o757, "directory"),
                                                ("lib", 0o664, "file"), ("lib", 0o646, "file")])
def test_group_or_other_writable_library_is_refused(tmp_path, target, mode, what):
    vendor = make_vendor(tmp_path / "inst" / "vendors" / "ascend_dcn")
    lib = vendor / npu.OPAPI_RELPATH
    (lib.parent if target == "lib_dir" else lib).chmod(mode)
    with pytest.raises(npu.UntrustedPathError) as err:
        npu.find_vendor_package({"ASCEND_CUSTOM_OPP_PATH": str(vendor)})
    assert err.value.path == str(lib)
    assert f"its {what}" in err.value.rule and "writable by group or others" in err.value.rule
    assert err.value.missing == "untrusted"


def _chown_to_other_user(path: Path):
    if os.geteuid() != 0:
        pytest.skip("changing a file's owner needs root (the CI runs as root)")
    os.chown(path, 65534, 65534)  # nobody


@pytest.mark.parametrize("target", ["lib", "lib_dir"])
def test_library_owned_by_another_user_is_refused(tmp_path, target):
    vendor = make_vendor(tmp_path / "inst" / "vendors" / "ascend_dcn")
    lib = vendor / npu.OPAPI_RELPATH
    _chown_to_other_user(lib if target == "lib" else lib.parent)
    with pytest.raises(npu.UntrustedPathError) as err:
        npu.find_vendor_package({"ASCEND_CUSTOM_OPP_PATH": str(vendor)})
    assert "owned by uid 65534" in err.value.rule and "current user" in err.value.rule


def test_symlink_to_untrusted_location_is_judged_by_its_target(tmp_path):
    planted = tmp_path / "shared"
    planted.mkdir()
    planted.chmod(0o777)
    (planted / "libcust_opapi.so").write_text("fake")
    vendor = make_vendor(tmp_path / "inst" / "vendors" / "ascend_dcn")
    lib = vendor / npu.OPAPI_RELPATH
    lib.unlink()
    lib.symlink_to(planted / "libcust_opapi.so")
    with pytest.raises(npu.UntrustedPathError) as err:
        npu.find_vendor_package({"ASCEND_CUSTOM_OPP_PATH": str(vendor)})
    assert str(planted) in err.value.rule


# ---- the C++ loader (OpApiLibrary) applies the rule itself, before dlopen -------------------

def _twin_paths():
    try:
        ext = _backend.load_extension()
        opapi, runtime = _backend.twin_library_paths()
    except _backend.BackendUnavailableError as exc:
        pytest.skip(f"the twin's libraries are not built here: {exc}")
    return ext, opapi, runtime


def _copy_twin_opapi(tmp_path, dir_mode, opapi):
    d = tmp_path / "libdir"
    d.mkdir()
    lib = d / "libcust_opapi.so"
    shutil.copy(opapi, lib)
    lib.chmod(0o755)
    d.chmod(dir_mode)
    return lib


def test_cpp_loader_loads_a_trusted_copy(tmp_path):
    ext, opapi, runtime = _twin_paths()
    lib = _copy_twin_opapi(tmp_path, 0o755, opapi)
    api = ext.OpApi(str(lib), runtime)
    assert api.execute_symbol_file == str(lib.resolve())


def test_cpp_loader_refuses_a_world_writable_directory_before_dlopen(tmp_path):
    ext, opapi, runtime = _twin_paths()
    d = tmp_path / "planted"
    d.mkdir()
    d.chmod(0o777)
    # not even an ELF file: the refusal must come from the trust rule, not from dlopen
    (d / "libcust_opapi.so").write_text("not a library")
    with pytest.raises(RuntimeError) as err:
        ext.OpApi(str(d / "libcust_opapi.so"), runtime)
    message = str(err.value)
    assert f"untrusted library '{d / 'libcust_opapi.so'}'" in message
    assert "writable by group or others" in message


def test_cpp_loader_refuses_relative_paths_and_foreign_owners(tmp_path, monkeypatch):
    ext, opapi, runtime = _twin_paths()
    lib = _copy_twin_opapi(tmp_path, 0o755, opapi)
    monkeypatch.chdir(lib.parent)
    with pytest.raises(RuntimeError, match="must be absolute"):
        ext.OpApi("libcust_opapi.so", runtime)
    _chown_to_other_user(lib)
    with pytest.raises(RuntimeError, match="owned by uid 65534"):
        ext.OpApi(str(lib), runtime)
