"""build.sh on the two toolkit layouts of tests/fake_cann: route selection, the toolkit environment
(--cann-path = sourcing that toolkit's set_env.sh), and "both routes make the same package".

* npu_op_layout: a toolkit with CANN's npu_op_* cmake modules (asc-config.cmake), no set_env.sh;
* msopgen_layout: shaped like 8.1.RC1 (no npu_op_* modules; msopgen in python/site-packages/bin, the
  operator-project template under tools/op_project_templates, set_env.sh beside the toolkit). Its
  template compiles a C++17 probe with the template's -std=c++11, and its kernel "compile" fails unless
  the op compiler on PATH and ASCEND_HOME_PATH at build time belong to the configured toolkit.
"""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from test_build_cann import ROOT, clean_env, copy_project

FAKES = ROOT / "tests" / "fake_cann"
NPU_OP = FAKES / "npu_op_layout"
MSOPGEN = FAKES / "msopgen_layout" / "toolkit"
MSOPGEN_SETENV = FAKES / "msopgen_layout" / "set_env.sh"
VENDOR = "ascend_dcn"

pytestmark = pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")


def run_build(project, *args, env=None, timeout=300):
    return subprocess.run(["bash", "build.sh", *args], cwd=project, env=env or clean_env(),
                          capture_output=True, text=True, timeout=timeout)


def sourced_env(set_env, **extra):
    """The environment after `source <set_env>` in a clean shell."""
    out = subprocess.run(["bash", "-c", 'source "$1" && env -0', "_", str(set_env)], env=clean_env(),
                         capture_output=True, text=True, check=True).stdout
    env = dict(item.split("=", 1) for item in out.split("\0") if "=" in item)
    env.update(extra)
    return env


def package(project):
    (run,) = (project / "build_out").glob("custom_opp_*.run")
    return run


def extract(run, dest):
    result = subprocess.run([str(run), "--noexec", f"--extract={dest}"], env=clean_env(),
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return dest


def tree(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


@pytest.fixture(scope="module")
def npu_op_built(tmp_path_factory):
    project = copy_project(tmp_path_factory.mktemp("npu_op"))
    result = run_build(project, f"--cann-path={NPU_OP}", "-j2")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return project, result


@pytest.fixture(scope="module")
def msopgen_built(tmp_path_factory):
    """The documented way: source the toolkit's set_env.sh, then bash build.sh (no -j: nproc)."""
    project = copy_project(tmp_path_factory.mktemp("msopgen"))
    log = project.parent / "fake_cann.log"
    result = run_build(project, env=sourced_env(MSOPGEN_SETENV, FAKE_CANN_LOG=str(log)))
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return project, result, log


def test_auto_route_with_npu_op_modules(npu_op_built):
    _, result = npu_op_built
    assert f"CANN fake-npu-op at {NPU_OP} (no set_env.sh beside {NPU_OP}" in result.stdout
    assert "route npu_op (the toolkit ships the npu_op_* cmake modules), -j 2" in result.stdout


def test_auto_route_without_them_is_msopgen_from_site_packages(msopgen_built):
    project, result, log = msopgen_built
    assert f"CANN fake-msopgen at {MSOPGEN} (as sourced (ASCEND_HOME_PATH))" in result.stdout
    nproc = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    assert f"route msopgen (no npu_op_* cmake modules in this toolkit; its msOpGen project flow), -j {nproc}" \
        in result.stdout
    assert f"msopgen route: {MSOPGEN}/python/site-packages/bin/msopgen gen" in result.stdout
    gen = project / "build_out" / "msopgen_project"
    (call,) = log.read_text().splitlines()
    assert call == (f"msopgen gen -i {project}/cmake/cann/deformable_conv2d_backward.json -f tf "
                    f"-c ai_core-ascend910b -lan cpp -out {gen}")
    assert f"package ready: {package(project)} (route msopgen, CANN fake-msopgen)" in result.stdout


def test_msopgen_project_uses_the_project_sources_and_settings(msopgen_built):
    project, _, _ = msopgen_built
    gen = project / "build_out" / "msopgen_project"
    for d in ("op_host", "op_kernel"):
        ours = sorted(p.name for p in (project / d).iterdir())
        theirs = sorted(p.name for p in (gen / d).iterdir() if p.name != "CMakeLists.txt")
        assert theirs == ours
        for name in ours:
            assert (gen / d / name).read_bytes() == (project / d / name).read_bytes()
    plugin_srcs = sorted(p.name for p in (gen / "framework" / "tf_plugin").glob("*.cc"))
    assert plugin_srcs == sorted(p.name for p in (project / "framework" / "tf_plugin").glob("*.cc"))
    variables = json.loads((gen / "CMakePresets.json").read_text())["configurePresets"][0]["cacheVariables"]
    assert variables["ASCEND_COMPUTE_UNIT"]["value"] == "ascend910b;ascend910_93"
    assert variables["vendor_name"]["value"] == VENDOR
    assert variables["ASCEND_CANN_PACKAGE_PATH"]["value"] == str(MSOPGEN)
    kernels = (gen / "build_out" / "fake_kernel.log").read_text().splitlines()
    assert sorted(kernels) == sorted(
        f"kernel compile op=DeformableConv2dBackward src={gen}/op_kernel/deformable_conv2d_backward.cpp unit={u}"
        for u in ("ascend910b", "ascend910_93"))


def test_msopgen_route_compiles_op_host_as_cxx17(msopgen_built, tmp_path):
    project, result, _ = msopgen_built
    gen = project / "build_out" / "msopgen_project"
    assert "op_host compiled with -std=c++17" in result.stdout
    commands = json.loads((gen / "build_out" / "compile_commands.json").read_text())
    host = [c["command"].split() for c in commands if "cxx_standard_probe.cpp" in c["file"]]
    assert len(host) == 3   # cust_op_proto, cust_optiling, cust_opapi
    for argv in host:
        assert [a for a in argv if a.startswith("-std=")][-1] == "-std=c++17"
    # the probe (standing in for op_host) really fails under the template's own standard
    probe = MSOPGEN / "tools" / "op_project_templates" / "ascendc" / "customize" / "cmake" / "cxx_standard_probe.cpp"
    cxx = shutil.which("g++") or shutil.which("c++")
    old = subprocess.run([cxx, "-std=c++11", "-fsyntax-only", str(probe)], capture_output=True, text=True)
    assert old.returncode != 0 and "C++17" in old.stderr


def test_both_routes_make_the_same_package(npu_op_built, msopgen_built, tmp_path):
    npu_project, _ = npu_op_built
    mso_project, _, _ = msopgen_built
    assert package(npu_project).name == package(mso_project).name
    a = extract(package(npu_project), tmp_path / "npu_op")
    b = extract(package(mso_project), tmp_path / "msopgen")
    assert tree(a) == tree(b)
    for script in ("install.sh", "upgrade.sh", "uninstall.sh", "help.info"):
        assert (a / script).read_bytes() == (b / script).read_bytes(), script
    vendor = b / "packages" / "vendors" / VENDOR
    for unit in ("ascend910b", "ascend910_93"):
        assert (vendor / "op_impl" / "ai_core" / "tbe" / "kernel" / unit / "deformable_conv2d_backward"
                / f"DeformableConv2dBackward_{unit}.o").is_file()
    for v in (a, b):
        assert (v / "packages" / "vendors" / VENDOR / "version.info").read_text() == "custom_opp_compiler_version=0.0.0\n"
    plugin = (vendor / "framework" / "tensorflow" / "libcust_tf_parsers.so").read_text()
    assert plugin == (ROOT / "framework" / "tf_plugin" / "tensorflow_deformable_conv2d_backward_plugin.cc").read_text()
    info = subprocess.run([str(package(mso_project)), "--info"], capture_output=True, text=True)
    assert "route msopgen, CANN fake-msopgen" in info.stdout


def test_cann_path_is_sourcing_that_toolkits_set_env(msopgen_built, tmp_path):
    """Another toolkit is sourced in the shell; --cann-path must win for configure AND build."""
    decoy = tmp_path / "decoy"
    shutil.copytree(FAKES / "msopgen_layout", decoy, symlinks=True)
    env = sourced_env(decoy / "set_env.sh")
    assert env["ASCEND_HOME_PATH"] == str(decoy / "toolkit")
    project = copy_project(tmp_path / "p")
    result = run_build(project, f"--cann-path={MSOPGEN}", "-j2", env=env)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert f"CANN fake-msopgen at {MSOPGEN} (sourced {MSOPGEN_SETENV})" in result.stdout
    assert f"msopgen route: {MSOPGEN}/python/site-packages/bin/msopgen gen" in result.stdout
    assert str(decoy) not in result.stdout
    # the same package as sourcing the toolkit's set_env.sh and running bash build.sh
    same = extract(package(project), tmp_path / "via_cann_path")
    reference = extract(package(msopgen_built[0]), tmp_path / "via_set_env")
    assert tree(same) == tree(reference)


def test_cann_path_without_the_fix_would_mix_toolkits(tmp_path):
    """The fake's kernel step does catch a build that runs with another toolkit's environment."""
    decoy = tmp_path / "decoy"
    shutil.copytree(FAKES / "msopgen_layout", decoy, symlinks=True)
    script = (MSOPGEN / "tools" / "op_project_templates" / "ascendc" / "customize" / "cmake"
              / "fake_kernel_compile.cmake")
    env = sourced_env(decoy / "set_env.sh")
    out = tmp_path / "out"
    result = subprocess.run(["cmake", "-DUNIT=ascend910b", "-DOP=Op", "-DSNAKE=op", f"-DSRC={script}",
                             f"-DOUT={out}", f"-DEXPECT={MSOPGEN}", f"-DLOG={tmp_path / 'log'}", "-P", str(script)],
                            env=env, capture_output=True, text=True)
    assert result.returncode != 0 and "configured with" in result.stderr


def test_set_env_describing_another_toolkit_is_refused(tmp_path):
    toolkit = tmp_path / "Ascend" / "latest"
    (toolkit / "python" / "site-packages" / "bin").mkdir(parents=True)
    shutil.copy2(MSOPGEN / "python" / "site-packages" / "bin" / "msopgen", toolkit / "python" / "site-packages" / "bin")
    (tmp_path / "Ascend" / "set_env.sh").write_text(f"export ASCEND_HOME_PATH={MSOPGEN}\n")
    project = copy_project(tmp_path / "p")
    result = run_build(project, f"--cann-path={toolkit}")
    assert result.returncode == 2
    assert f"describes the toolkit '{MSOPGEN}', not {toolkit}" in result.stderr


def test_route_switch_forces_the_route(tmp_path):
    project = copy_project(tmp_path / "p")
    forced = run_build(project, f"--cann-path={MSOPGEN}", "--route=npu_op")
    assert forced.returncode != 0
    assert "route npu_op (forced by --route)" in forced.stdout
    assert "has no AscendC operator-project cmake modules" in " ".join(forced.stderr.split())
    wrapper = subprocess.run(["bash", "cmake/cann/msopgen_build.sh", "--soc=Ascend910B2", f"--cann-path={NPU_OP}"],
                             cwd=project, env=clean_env(), capture_output=True, text=True, timeout=120)
    assert wrapper.returncode != 0
    assert "route msopgen (forced by --route)" in wrapper.stdout
    assert "msopgen not found" in wrapper.stderr
    refused = subprocess.run(["bash", "cmake/cann/msopgen_build.sh", "--soc=Ascend310P3"], cwd=project,
                             env=clean_env(), capture_output=True, text=True)
    assert refused.returncode == 2 and "not an Atlas A2" in refused.stderr
    bad = run_build(project, "--route=tbe")
    assert bad.returncode == 2 and "--route=tbe: expected auto, npu_op or msopgen" in bad.stderr


def test_toolkit_with_neither_machinery_is_refused(tmp_path):
    toolkit = tmp_path / "cann"
    (toolkit / "compiler" / "ccec_compiler" / "bin").mkdir(parents=True)
    project = copy_project(tmp_path / "p")
    result = run_build(project, f"--cann-path={toolkit}")
    assert result.returncode == 2
    assert "has neither the AscendC operator-project cmake modules" in result.stderr
    assert "nor msopgen (python/site-packages/bin/msopgen)" in result.stderr
