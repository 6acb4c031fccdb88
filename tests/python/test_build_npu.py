"""ascend_dcn.npu on a machine without an NPU: package discovery order, the CANN include lookup of
the extension build, the SoC rule, and the errors that say what is missing and how to fix it (fake
directory layouts). CANN's runtime libraries are torch_npu's business and are not searched for."""
import importlib.util
from pathlib import Path

import pytest

from ascend_dcn import npu

HAS_TORCH_NPU = importlib.util.find_spec("torch_npu") is not None


def make_vendor(directory: Path, with_header=True) -> Path:
    (directory / "op_api" / "lib").mkdir(parents=True)
    (directory / "op_api" / "lib" / "libcust_opapi.so").write_text("fake")
    if with_header:
        (directory / "op_api" / "include").mkdir(parents=True)
        (directory / "op_api" / "include" / "aclnn_deformable_conv2d_backward.h").write_text("fake")
    (directory / "version.info").write_text("Version=test\n")
    for d in [directory] + [p for p in directory.rglob("*") if p.is_dir()]:
        d.chmod(0o755)  # the loader's trust rule, whatever the umask
    return directory


def make_cann(root: Path) -> Path:
    (root / "include" / "aclnn").mkdir(parents=True)
    (root / "include" / "aclnn" / "acl_meta.h").write_text("fake")
    return root


@pytest.fixture(autouse=True)
def reset_explicit_path():
    npu.set_opp_path(None)
    yield
    npu.set_opp_path(None)


def test_ascend_custom_opp_path_front_entry_wins(tmp_path):
    first = make_vendor(tmp_path / "a" / "vendors" / "ascend_dcn")
    second = make_vendor(tmp_path / "b" / "vendors" / "ascend_dcn")
    found = npu.find_vendor_package({"ASCEND_CUSTOM_OPP_PATH": f"{first}:{second}"})
    assert found["path"] == str(first) and found["source"] == "ASCEND_CUSTOM_OPP_PATH"
    assert found["opapi"] == str(first / "op_api" / "lib" / "libcust_opapi.so")
    assert found["version"] == "Version=test"


def test_other_vendor_packages_are_skipped(tmp_path):
    other = make_vendor(tmp_path / "other" / "vendors" / "someone", with_header=False)
    ours = make_vendor(tmp_path / "ours" / "vendors" / "ascend_dcn")
    found = npu.find_vendor_package({"ASCEND_CUSTOM_OPP_PATH": f"{other}:{ours}"})
    assert found["path"] == str(ours)


def test_custom_opp_path_before_opp_vendors(tmp_path):
    opp = tmp_path / "opp"
    make_vendor(opp / "vendors" / "ascend_dcn")
    custom = make_vendor(tmp_path / "custom" / "vendors" / "ascend_dcn")
    env = {"ASCEND_CUSTOM_OPP_PATH": str(custom), "ASCEND_OPP_PATH": str(opp)}
    assert npu.find_vendor_package(env)["path"] == str(custom)


def test_opp_vendors_follow_load_priority(tmp_path):
    vendors = tmp_path / "opp" / "vendors"
    make_vendor(vendors / "ascend_dcn")
    make_vendor(vendors / "rebuilt_dcn")   # e.g. the same package built with another vendor_name
    (vendors / "config.ini").write_text("load_priority=rebuilt_dcn,ascend_dcn\n")
    found = npu.find_vendor_package({"ASCEND_OPP_PATH": str(tmp_path / "opp")})
    assert found["path"] == str(vendors / "rebuilt_dcn")
    assert found["source"] == "ASCEND_OPP_PATH/vendors (config.ini)"
    assert npu.read_load_priority(vendors) == ["rebuilt_dcn", "ascend_dcn"]


def test_unlisted_vendor_dir_is_still_found(tmp_path):
    vendors = tmp_path / "opp" / "vendors"
    make_vendor(vendors / "ascend_dcn")
    (vendors / "config.ini").write_text("load_priority=somebody_else\n")
    found = npu.find_vendor_package({"ASCEND_OPP_PATH": str(tmp_path / "opp")})
    assert found["path"] == str(vendors / "ascend_dcn") and found["source"] == "ASCEND_OPP_PATH/vendors"


def test_opp_root_defaults_to_ascend_home_path(tmp_path):
    make_vendor(tmp_path / "cann" / "opp" / "vendors" / "ascend_dcn")
    found = npu.find_vendor_package({"ASCEND_HOME_PATH": str(tmp_path / "cann")})
    assert found["path"] == str(tmp_path / "cann" / "opp" / "vendors" / "ascend_dcn")


def test_set_opp_path_takes_precedence(tmp_path):
    explicit = make_vendor(tmp_path / "explicit" / "vendors" / "ascend_dcn")
    env_pkg = make_vendor(tmp_path / "env" / "vendors" / "ascend_dcn")
    npu.set_opp_path(tmp_path / "explicit")          # the --install-path root
    found = npu.find_vendor_package({"ASCEND_CUSTOM_OPP_PATH": str(env_pkg)})
    assert found["path"] == str(explicit.resolve()) and found["source"] == "set_opp_path"
    npu.set_opp_path(explicit)                       # the vendor dir itself
    assert npu.find_vendor_package({})["path"] == str(explicit.resolve())


def test_set_opp_path_rejects_a_directory_without_the_package(tmp_path):
    with pytest.raises(npu.NpuBackendError) as err:
        npu.set_opp_path(tmp_path)
    assert err.value.missing == "vendor_package"
    assert "op_api/lib/libcust_opapi.so" in str(err.value)


def test_nothing_found(tmp_path):
    assert npu.find_vendor_package({"ASCEND_CUSTOM_OPP_PATH": str(tmp_path / "nope")}) is None


def test_resolve_opapi_path_returns_the_trusted_library(tmp_path):
    vendor = make_vendor(tmp_path / "inst" / "vendors" / "ascend_dcn")
    opapi = npu.resolve_opapi_path({"ASCEND_CUSTOM_OPP_PATH": str(vendor)})
    assert opapi == str((vendor / "op_api" / "lib" / "libcust_opapi.so").resolve())


def test_cann_include_dir(tmp_path):
    cann = make_cann(tmp_path / "cann")
    assert npu.cann_include_dir({"ASCEND_HOME_PATH": str(cann)}) == cann / "include"
    with pytest.raises(npu.NpuBackendError) as err:
        npu.cann_include_dir({"ASCEND_HOME_PATH": str(tmp_path / "nocann")})
    assert err.value.missing == "cann" and "set_env.sh" in str(err.value)


def test_missing_package_error_lists_where_it_looked(tmp_path):
    cann = make_cann(tmp_path / "cann")
    env = {"ASCEND_HOME_PATH": str(cann), "ASCEND_CUSTOM_OPP_PATH": str(tmp_path / "x")}
    with pytest.raises(npu.NpuBackendError) as err:
        npu.resolve_opapi_path(env)
    message = str(err.value)
    assert err.value.missing == "vendor_package"
    assert str(tmp_path / "x") in message and str(cann / "opp" / "vendors" / "ascend_dcn") in message
    assert "bash build.sh" in message and "--install-path" in message and "set_env.bash" in message


@pytest.mark.parametrize("name, ok", [("Ascend910B2", True), ("Ascend910B4-1", True), ("Ascend910B2C", True),
                                      ("Ascend910_9392", True), ("Ascend910_9362", True), ("Ascend910_9381", True),
                                      ("Ascend910A", False), ("Ascend910ProB", False), ("Ascend310P3", False),
                                      ("Ascend950PR_9599", False), ("Ascend910_9579", False)])
def test_soc_rule(name, ok):
    if ok:
        assert npu.check_soc_name(name).startswith("Atlas A")
    else:
        with pytest.raises(npu.NpuBackendError) as err:
            npu.check_soc_name(name)
        assert err.value.missing == "soc" and name in str(err.value)
        assert "Ascend910B" in err.value.fix and "Ascend910_93" in err.value.fix


@pytest.mark.skipif(HAS_TORCH_NPU, reason="torch_npu is installed: the no-torch_npu error cannot occur")
def test_without_torch_npu_every_entry_point_says_so():
    for call in (npu.get_extension, npu.build_extension, npu.device_soc_name):
        with pytest.raises(npu.NpuBackendError) as err:
            call()
        assert err.value.missing == "torch_npu"
        assert "torch_npu is not installed" in str(err.value) and "pip install torch-npu" in str(err.value)


def test_backend_info_reports_what_was_found(tmp_path):
    cann = make_cann(tmp_path / "cann")
    vendor = make_vendor(tmp_path / "inst" / "vendors" / "ascend_dcn")
    info = npu.backend_info({"ASCEND_HOME_PATH": str(cann), "ASCEND_CUSTOM_OPP_PATH": str(vendor)})
    assert info["vendor_package"]["path"] == str(vendor)
    assert info["cann_include"] == str(cann / "include") and info["extension_sources"]
    assert info["package_search"][0] == ["ASCEND_CUSTOM_OPP_PATH", str(vendor)]
    assert set(info["twin_libraries"]) == {"libnnopbase.so", "libcust_opapi.so"}
    assert info["selected_backend"] in ("npu", "twin", "none")
    if not HAS_TORCH_NPU:
        assert info["torch_npu"] is None and info["selected_backend"] != "npu"
        assert any("torch_npu is not installed" in p for p in info["problems"])


def test_backend_info_empty_environment_lists_every_problem():
    info = npu.backend_info({})
    assert info["vendor_package"] is None
    assert any("installed ascend_dcn package not found" in p for p in info["problems"])
