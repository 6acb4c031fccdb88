"""The Ascend-host build path (cmake/cann_build.cmake, build.sh) run against the fake CANN layout.

tests/fake_cann/npu_op_layout stands in for a CANN toolkit with the npu_op_* modules: its cmake module records every request of the
project (npu_op_package, npu_op_code_gen, npu_op_library, npu_op_kernel_*, npu_op_package_add) into
<build>/fake_cann_requests.log and writes placeholder libraries/kernels where CANN's module would
install the real ones. These tests check what the project asks CANN to build, the package name, the
staged vendor tree, and that the produced custom_opp_<os>_<arch>.run really installs.
The project is copied to a temporary directory so the checkout's build_out/ is never touched.
"""
import json
import os
import platform
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FAKE_CANN = ROOT / "tests" / "fake_cann" / "npu_op_layout"
VENDOR = "ascend_dcn"
UNITS = ["ascend910b", "ascend910_93"]
KERNEL_ENTRY = "deformable_conv2d_backward.cpp"

pytestmark = pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("ASCEND_") and k not in ("LD_LIBRARY_PATH",)}
    env.update(extra)
    return env


def copy_project(dst: Path) -> Path:
    dst.mkdir(parents=True, exist_ok=True)
    for name in ("CMakeLists.txt", "CMakePresets.json", "build.sh"):
        shutil.copy2(ROOT / name, dst / name)
    for name in ("cmake", "framework", "op_host", "op_kernel"):
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, dst / name)
        else:
            (dst / name).mkdir()
    # The kernel part may not have landed yet in this checkout: the fake does not compile it.
    if not (dst / "op_kernel" / KERNEL_ENTRY).exists():
        (dst / "op_kernel" / KERNEL_ENTRY).write_text("// placeholder for the build test\n")
    return dst


def parse_requests(log: Path):
    calls = []
    for line in log.read_text().splitlines():
        fields = line.split("|")
        calls.append((fields[0], [f for f in fields[1:] if f != ""]))
    return calls


def calls_of(calls, fn):
    return [args for name, args in calls if name == fn]


def keyword_values(args, key, keys):
    """Values after `key` up to the next keyword of `keys`."""
    if key not in args:
        return []
    out = []
    for a in args[args.index(key) + 1:]:
        if a in keys:
            break
        out.append(a)
    return out


def system_info():
    os_id = "linux"
    release = Path("/etc/os-release")
    if release.is_file():
        for line in release.read_text().splitlines():
            if line.startswith("ID="):
                os_id = line[3:].strip().strip('"')
    return f"{os_id}_{platform.machine()}"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    project = copy_project(tmp_path_factory.mktemp("project"))
    result = subprocess.run(["bash", "build.sh", f"--cann-path={FAKE_CANN}", "-j2"], cwd=project,
                            env=clean_env(), capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return project, result


def test_build_sh_reports_the_package(built):
    project, result = built
    run = project / "build_out" / f"custom_opp_{system_info()}.run"
    assert run.is_file() and os.access(run, os.X_OK)
    assert f"package ready: {run}" in result.stdout
    assert f"CANN fake-npu-op at {FAKE_CANN}" in result.stdout
    assert "route npu_op (the toolkit ships the npu_op_* cmake modules)" in result.stdout
    assert "(route npu_op, CANN fake-npu-op)" in result.stdout


def test_package_declaration(built):
    project, _ = built
    calls = parse_requests(project / "build_out" / "fake_cann_requests.log")
    (pkg,) = calls_of(calls, "npu_op_package")
    assert pkg[0] == VENDOR
    assert keyword_values(pkg, "TYPE", {"CONFIG"}) == ["RUN"]
    config = keyword_values(pkg, "CONFIG", set())
    settings = dict(zip(config[::2], config[1::2]))
    assert settings["ENABLE_BINARY_PACKAGE"] == "True"
    assert settings["ENABLE_SOURCE_PACKAGE"] == "True"
    assert settings["ENABLE_CPACK"] == "False"
    assert settings["INSTALL_PATH"] == str(project / "build_out" / "opp_stage")


def test_opbuild_and_host_libraries(built):
    project, _ = built
    calls = parse_requests(project / "build_out" / "fake_cann_requests.log")
    host_srcs = sorted(str(p) for p in (project / "op_host").glob("*.cpp"))
    assert host_srcs, "op_host has no sources"
    (gen,) = calls_of(calls, "npu_op_code_gen")
    keys = {"SRC", "PACKAGE", "OUT_DIR", "COMPILE_OPTIONS"}
    assert sorted(keyword_values(gen, "SRC", keys)) == host_srcs
    assert keyword_values(gen, "PACKAGE", keys) == [VENDOR]
    assert keyword_values(gen, "OUT_DIR", keys) == [str(project / "build_out" / "autogen")]
    assert "-std=c++17" in keyword_values(gen, "COMPILE_OPTIONS", keys)
    assert calls_of(calls, "opbuild_optypes") == [["DeformableConv2dBackward"]]

    libs = {args[0]: (args[1], args[2:]) for args in calls_of(calls, "npu_op_library")}
    assert set(libs) == {"cust_opapi", "cust_optiling", "cust_op_proto", "cust_tf_parsers"}   # TF plugin: default ON
    autogen = project / "build_out" / "autogen"
    assert libs["cust_opapi"] == ("ACLNN", [str(autogen / "aclnn_deformable_conv2d_backward.cpp")])
    assert libs["cust_optiling"][0] == "TILING" and sorted(libs["cust_optiling"][1]) == host_srcs
    assert libs["cust_op_proto"][0] == "GRAPH"
    assert sorted(libs["cust_op_proto"][1]) == sorted(host_srcs + [str(autogen / "op_proto.cc")])
    added = [set(a[a.index("LIBRARY") + 1:]) for a in calls_of(calls, "npu_op_package_add")]
    assert {"cust_opapi", "cust_optiling", "cust_op_proto"} in added


def test_kernel_requests_for_both_compute_units(built):
    project, _ = built
    calls = parse_requests(project / "build_out" / "fake_cann_requests.log")
    (sources,) = calls_of(calls, "npu_op_kernel_sources")
    keys = {"OP_TYPE", "KERNEL_FILE", "KERNEL_DIR", "COMPUTE_UNIT"}
    assert sources[0] == "ascendc_kernels"
    assert keyword_values(sources, "OP_TYPE", keys) == ["DeformableConv2dBackward"]
    assert keyword_values(sources, "KERNEL_FILE", keys) == [KERNEL_ENTRY]
    (library,) = calls_of(calls, "npu_op_kernel_library")
    assert keyword_values(library, "SRC_BASE", {"TILING_LIBRARY"}) == [str(project / "op_kernel")]
    assert keyword_values(library, "TILING_LIBRARY", {"SRC_BASE"}) == ["cust_optiling"]
    assert ["ascend_dcn", "LIBRARY", "ascendc_kernels"] in calls_of(calls, "npu_op_package_add")
    # Release build: no debug kernel options requested.
    assert calls_of(calls, "npu_op_kernel_options") == []
    compiled = (project / "build_out" / "fake_cann_build.log").read_text().splitlines()
    kernel_compiles = sorted(line for line in compiled if line.startswith("ascendc compile"))
    src = project / "op_kernel" / KERNEL_ENTRY
    assert kernel_compiles == sorted(
        f"ascendc compile op=DeformableConv2dBackward src={src} compute_unit={u}" for u in UNITS)


def expected_vendor_files(arch):
    files = [
        "version.info",
        "op_api/include/aclnn_deformable_conv2d_backward.h",
        "op_api/lib/libcust_opapi.so",
        f"op_impl/ai_core/tbe/op_tiling/lib/linux/{arch}/libcust_opmaster_rt2.0.so",
        "op_impl/ai_core/tbe/op_tiling/liboptiling.so",
        "op_proto/inc/op_proto.h",
        f"op_proto/lib/linux/{arch}/libcust_opsproto_rt2.0.so",
        f"op_impl/ai_core/tbe/{VENDOR}_impl/dynamic/{KERNEL_ENTRY}",
    ]
    for unit in UNITS:
        files.append(f"op_impl/ai_core/tbe/config/{unit}/aic-{unit}-ops-info.json")
        files.append(f"op_impl/ai_core/tbe/kernel/config/{unit}/binary_info_config.json")
        files.append(f"op_impl/ai_core/tbe/kernel/{unit}/deformable_conv2d_backward/"
                     f"DeformableConv2dBackward_{unit}.o")
    return files


def test_run_installs_with_install_path(built, tmp_path):
    project, _ = built
    run = project / "build_out" / f"custom_opp_{system_info()}.run"
    target = tmp_path / "opp"
    result = subprocess.run([str(run), f"--install-path={target}"], env=clean_env(),
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout
    vendor = target / "vendors" / VENDOR
    for rel in expected_vendor_files(platform.machine()):
        assert (vendor / rel).is_file(), rel
    assert (vendor / "scripts" / "uninstall.sh").is_file()
    probe = subprocess.run(
        ["bash", "-c", f"source {vendor}/bin/set_env.bash; echo $ASCEND_CUSTOM_OPP_PATH; echo $LD_LIBRARY_PATH"],
        env=clean_env(ASCEND_CUSTOM_OPP_PATH="/earlier/vendor"), capture_output=True, text=True)
    opp_path, ld_path = probe.stdout.splitlines()
    assert opp_path == f"{vendor}:/earlier/vendor"
    assert ld_path.split(":")[0] == f"{vendor}/op_api/lib"


def test_run_extract_only(built, tmp_path):
    project, _ = built
    run = project / "build_out" / f"custom_opp_{system_info()}.run"
    result = subprocess.run([str(run), "--noexec", f"--extract={tmp_path}/x"], env=clean_env(),
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "x" / "install.sh").is_file()
    assert (tmp_path / "x" / "packages" / "vendors" / VENDOR / "op_api" / "lib" / "libcust_opapi.so").is_file()


def configure(project: Path, build: Path, *defs):
    return subprocess.run(
        ["cmake", "-S", str(project), "-B", str(build), f"-DASCEND_CANN_PACKAGE_PATH={FAKE_CANN}",
         "-DASCEND_COMPUTE_UNIT=ascend910b;ascend910_93", *defs],
        env=clean_env(), capture_output=True, text=True, timeout=300)


def test_framework_plugin_is_built_by_default(built):
    project, _ = built
    calls = parse_requests(project / "build_out" / "fake_cann_requests.log")
    plugin = [a for a in calls_of(calls, "npu_op_library") if a[0] == "cust_tf_parsers"]
    assert plugin == [["cust_tf_parsers", "TF_PLUGIN",
                       str(project / "framework" / "tf_plugin" / "tensorflow_deformable_conv2d_backward_plugin.cc")]]
    assert ["ascend_dcn", "LIBRARY", "cust_tf_parsers"] in calls_of(calls, "npu_op_package_add")
    staged = project / "build_out" / "opp_run_root" / "packages" / "vendors" / VENDOR / "framework" / "tensorflow"
    assert (staged / "libcust_tf_parsers.so").is_file()


def test_framework_plugin_can_be_switched_off(tmp_path):
    project = copy_project(tmp_path)
    result = subprocess.run(["bash", "build.sh", f"--cann-path={FAKE_CANN}", "-DASCEND_DCN_FRAMEWORK_PLUGIN=OFF"],
                            cwd=project, env=clean_env(), capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    calls = parse_requests(project / "build_out" / "fake_cann_requests.log")
    assert all(a[0] != "cust_tf_parsers" for a in calls_of(calls, "npu_op_library"))
    assert not (project / "build_out" / "opp_run_root" / "packages" / "vendors" / VENDOR / "framework").exists()


@pytest.mark.parametrize("defs, message", [
    (["-DASCEND_COMPUTE_UNIT=ascend310p", "-Dvendor_name=ascend_dcn"], "ASCEND_COMPUTE_UNIT: 'ascend310p' is not supported"),
    (["-Dvendor_name=customize"], "vendor_name: 'customize' is CANN's placeholder"),
    (["-Dvendor_name=bad-name"], "vendor_name: must match [A-Za-z0-9_]+"),
    (["-Dvendor_name=ascend_dcn", "-DENABLE_BINARY_PACKAGE=False"], "ENABLE_BINARY_PACKAGE: must be True"),
])
def test_configure_rejects_bad_settings(built, tmp_path, defs, message):
    project, _ = built
    result = configure(project, tmp_path / "b", *defs)
    assert result.returncode != 0
    assert message in " ".join((result.stdout + result.stderr).split())


def test_debug_build_requests_debug_kernel_options(built, tmp_path):
    project, _ = built
    result = configure(project, tmp_path / "b", "-Dvendor_name=ascend_dcn", "-DCMAKE_BUILD_TYPE=Debug")
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    calls = parse_requests(tmp_path / "b" / "fake_cann_requests.log")
    assert calls_of(calls, "npu_op_kernel_options") == [["ascendc_kernels", "ALL", "OPTIONS", "-g", "-O0"]]


def test_configure_without_asc_modules_points_to_msopgen_route(tmp_path):
    """A toolkit that is CANN for find_cann.cmake but lacks asc-config.cmake (older releases)."""
    project = copy_project(tmp_path / "p")
    old_cann = tmp_path / "old_cann"
    (old_cann / "compiler" / "ccec_compiler" / "bin").mkdir(parents=True)
    result = subprocess.run(
        ["cmake", "-S", str(project), "-B", str(tmp_path / "b"), f"-DASCEND_CANN_PACKAGE_PATH={old_cann}",
         "-DASCEND_COMPUTE_UNIT=ascend910b;ascend910_93", "-Dvendor_name=ascend_dcn"],
        env=clean_env(), capture_output=True, text=True, timeout=300)
    assert result.returncode != 0
    message = " ".join((result.stdout + result.stderr).split())
    assert "has no AscendC operator-project cmake modules" in message
    assert "bash build.sh --route=msopgen" in message and "bash build.sh --twin" in message


def test_msopgen_prototype_matches_the_aclnn_signature_order():
    (op,) = json.loads((ROOT / "cmake" / "cann" / "deformable_conv2d_backward.json").read_text())
    assert op["op"] == "DeformableConv2dBackward"
    assert [i["name"] for i in op["input_desc"]] == ["input", "grad_output", "offset_out", "weight", "offset"]
    assert [a["name"] for a in op["attr"]] == ["kernel_size", "stride", "padding", "dilation", "groups",
                                              "deformable_groups", "modulated"]
    assert [o["name"] for o in op["output_desc"]] == ["grad_input", "grad_weight", "grad_offset", "grad_bias"]
    definition = (ROOT / "op_host" / "deformable_conv2d_backward_def.cpp").read_text()
    for entry in op["input_desc"] + op["attr"] + op["output_desc"]:
        assert f'"{entry["name"]}"' in definition, entry["name"]
    for entry in op["input_desc"] + op["output_desc"]:
        assert len(entry["format"]) == len(entry["type"])
