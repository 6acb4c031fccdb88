"""The .run package and its installer (cmake/cann/scripts, packed by cmake/cann/pack_run.cmake):

* the options of the .run packages CANN's operator-project template makes (--help, --info, --list,
  --check, --quiet, --nox11, --noexec, --extract=, --tar) and the installer's (--install-path=,
  --upgrade, --force, --install-for-all); unknown options and empty values refused with status 1;
* installer safety: paths that could execute or mislead are refused, symbolic links planted in
  directories others can write are not followed, modes are fixed whatever the umask;
* install / reinstall / upgrade / uninstall keep vendors/config.ini load_priority right and leave the
  other vendors alone.
The package is packed from a tiny cmake project whose install rules lay out a vendor tree, with the same
pack_run.cmake both build routes use (no toolkit needed).
"""
import os
import platform
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from test_build_cann import ROOT, clean_env

VENDOR = "ascend_dcn"
NOBODY = 65534
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="planting files owned by another user needs root")

pytestmark = pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")

VENDOR_FILES = {
    "op_api/lib/libcust_opapi.so": "lib",
    "op_api/include/aclnn_deformable_conv2d_backward.h": "header",
    f"op_impl/ai_core/tbe/op_tiling/lib/linux/{platform.machine()}/libcust_opmaster_rt2.0.so": "lib",
    "op_impl/ai_core/tbe/config/ascend910b/aic-ascend910b-ops-info.json": "{}",
    "op_proto/inc/op_proto.h": "header",
    "version.info": "custom_opp_compiler_version=0.0.0",
}


@pytest.fixture(scope="module")
def run_file(tmp_path_factory):
    base = tmp_path_factory.mktemp("pack")
    src = base / "src"
    (src / "tree").mkdir(parents=True)
    rules = []
    for rel, text in VENDOR_FILES.items():
        (src / "tree" / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / "tree" / rel).write_text(text + "\n")
        rules.append(f"install(FILES tree/{rel} DESTINATION packages/vendors/{VENDOR}/{os.path.dirname(rel)})")
    (src / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.16)\nproject(p LANGUAGES NONE)\n"
                                        + "\n".join(rules) + "\n")
    build = base / "build"
    subprocess.run(["cmake", "-S", str(src), "-B", str(build)], check=True, capture_output=True)
    run = base / "custom_opp_test.run"
    result = subprocess.run(["cmake", f"-DBIN_DIR={build}", f"-DSTAGE_DIR={base}/stage", f"-DRUN_DIR={base}/root",
                             f"-DVENDOR={VENDOR}", f"-DSCRIPTS_DIR={ROOT}/cmake/cann/scripts", f"-DOUTPUT={run}",
                             "-DPACKAGE_INFO=ascend_dcn test package", "-P", str(ROOT / "cmake/cann/pack_run.cmake")],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    return run


def run_pkg(run, *args, umask=None, cwd=None, **env):
    def set_umask():
        if umask is not None:
            os.umask(umask)
    return subprocess.run([str(run), *args], env=clean_env(**env), capture_output=True, text=True, timeout=60,
                          preexec_fn=set_umask, cwd=cwd)


def mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


# ------------------------------------------------------------------------------------ .run options
def test_help_info_list(run_file):
    help_ = run_pkg(run_file, "--help")
    assert help_.returncode == 0
    for opt in ("--info", "--list", "--check", "--quiet", "--noexec", "--extract=<dir>", "--install-path=<abs dir>"):
        assert opt in help_.stdout, opt
    info = run_pkg(run_file, "--info")
    assert info.returncode == 0 and "ascend_dcn test package" in info.stdout and "sha256" in info.stdout
    listing = run_pkg(run_file, "--list")
    assert listing.returncode == 0
    assert "install.sh" in listing.stdout.split() and "uninstall.sh" in listing.stdout.split()
    assert f"packages/vendors/{VENDOR}/op_api/lib/libcust_opapi.so" in listing.stdout.split()
    tar = run_pkg(run_file, "--tar", "tzf")
    assert tar.returncode == 0 and "help.info" in tar.stdout.split()
    with_sh = subprocess.run(["sh", str(run_file), "--info"], env=clean_env(), capture_output=True, text=True)
    assert with_sh.returncode == 0 and "ascend_dcn test package" in with_sh.stdout


def test_check_verifies_and_installs_nothing(run_file, tmp_path):
    ok = run_pkg(run_file, "--check", "--quiet", f"--install-path={tmp_path}/t")
    assert ok.returncode == 0 and not (tmp_path / "t").exists()
    broken = tmp_path / "broken.run"
    data = bytearray(run_file.read_bytes())
    data[-100] ^= 0xFF
    broken.write_bytes(bytes(data))
    broken.chmod(0o755)
    bad = run_pkg(broken, "--check")
    assert bad.returncode == 2 and "corrupted" in bad.stderr
    assert run_pkg(broken, f"--install-path={tmp_path}/u").returncode == 2
    assert not (tmp_path / "u").exists()


def test_quiet_nox11_install(run_file, tmp_path):
    result = run_pkg(run_file, "--quiet", "--nox11", f"--install-path={tmp_path}/t")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "SUCCESS"
    assert (tmp_path / "t" / "vendors" / VENDOR / "op_api" / "lib" / "libcust_opapi.so").is_file()


def test_noexec_and_extract(run_file, tmp_path):
    assert run_pkg(run_file, "--noexec").returncode == 0
    only = run_pkg(run_file, "--noexec", f"--extract={tmp_path}/x")
    assert only.returncode == 0, only.stderr
    assert (tmp_path / "x" / "install.sh").is_file()
    assert not (tmp_path / "x" / "packages" / "vendors" / VENDOR / "scripts").exists()
    # --extract without --noexec: unpacked there, then installed from there (as CANN's packages)
    opp = tmp_path / "opp"
    opp.mkdir()
    both = run_pkg(run_file, f"--extract={tmp_path}/y", ASCEND_OPP_PATH=str(opp))
    assert both.returncode == 0, both.stderr
    assert (tmp_path / "y" / "install.sh").is_file() and (opp / "vendors" / VENDOR / "version.info").is_file()


@pytest.mark.parametrize("args", [["--bogus"], ["-x"], ["positional"], ["--extract="], ["--noexec", "--extract="],
                                  ["--install-path="], ["--tar"], ["--install-path"], ["--quiet=yes"]])
def test_unknown_options_and_empty_values_are_refused(run_file, tmp_path, args):
    opp = tmp_path / "opp"
    opp.mkdir()
    result = run_pkg(run_file, *args, ASCEND_OPP_PATH=str(opp))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "ERROR" in result.stderr and "Usage:" in result.stderr
    assert not (opp / "vendors").exists()


# ------------------------------------------------------------------------------------ installer safety
@pytest.mark.parametrize("name", ["a$(touch MARKER)b", "a`touch MARKER`b", "x#y", "x&y", "x y", "x;y", "x:y",
                                  "x'y", 'x"y', "a\nb", "x$HOME"])
def test_hostile_install_paths_are_refused_and_never_run(run_file, tmp_path, name):
    target = tmp_path / name
    result = run_pkg(run_file, f"--install-path={target}", cwd=tmp_path)
    assert result.returncode == 1, result.stdout
    assert "contains a character outside" in result.stderr
    assert not list(tmp_path.rglob("MARKER")) and not Path("MARKER").exists()
    assert not any(tmp_path.iterdir())


def test_dot_components_and_relative_paths_are_refused(run_file, tmp_path):
    dots = run_pkg(run_file, f"--install-path={tmp_path}/a/../b")
    assert dots.returncode == 1 and "'.' or '..' component" in dots.stderr
    relative = run_pkg(run_file, "--install-path=rel/dir")
    assert relative.returncode == 1 and "must be an absolute path" in relative.stderr
    custom = run_pkg(run_file, ASCEND_CUSTOM_OPP_PATH="relative/custom")
    assert custom.returncode == 1 and "ASCEND_CUSTOM_OPP_PATH must be an absolute path" in custom.stderr
    assert not Path("relative").exists()


def test_set_env_bash_quotes_the_path(run_file, tmp_path):
    target = tmp_path / "with+plus-and.dots"
    assert run_pkg(run_file, f"--install-path={target}").returncode == 0
    vendor = target / "vendors" / VENDOR
    probe = subprocess.run(["bash", "-c", f"source {vendor}/bin/set_env.bash; echo $ASCEND_CUSTOM_OPP_PATH; "
                            "echo $LD_LIBRARY_PATH; echo ${_ascend_dcn_vendor_dir-unset}"],
                           env=clean_env(ASCEND_CUSTOM_OPP_PATH="/earlier"), capture_output=True, text=True)
    assert probe.stdout.splitlines() == [f"{vendor}:/earlier", f"{vendor}/op_api/lib", "unset"]


@pytest.mark.parametrize("for_all, dirs, exe, data", [(False, 0o750, 0o550, 0o440), (True, 0o755, 0o555, 0o444)])
def test_modes_do_not_follow_the_umask(run_file, tmp_path, for_all, dirs, exe, data):
    args = [f"--install-path={tmp_path}/t"] + (["--install-for-all"] if for_all else [])
    assert run_pkg(run_file, *args, umask=0).returncode == 0
    vendor = tmp_path / "t" / "vendors" / VENDOR
    assert mode(vendor) == dirs and mode(vendor / "op_api" / "lib") == dirs
    assert mode(vendor / "op_api" / "lib" / "libcust_opapi.so") == exe
    assert mode(vendor / "scripts" / "uninstall.sh") == exe
    assert mode(vendor / "version.info") == data and mode(vendor / "bin" / "set_env.bash") == data
    for p in vendor.rglob("*"):
        assert mode(p) & 0o022 == 0, p


@needs_root
def test_planted_vendors_symlink_in_a_shared_directory_is_refused(run_file, tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    attacker = tmp_path / "attacker"
    attacker.mkdir()
    (shared / "vendors").symlink_to(attacker)
    os.lchown(shared / "vendors", NOBODY, NOBODY)
    result = run_pkg(run_file, f"--install-path={shared}")
    assert result.returncode == 1 and "symbolic link" in result.stderr
    assert list(attacker.iterdir()) == []


@needs_root
def test_planted_symlink_on_the_way_is_refused(run_file, tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    attacker = tmp_path / "attacker"
    attacker.mkdir()
    (shared / "opp").symlink_to(attacker)
    os.lchown(shared / "opp", NOBODY, NOBODY)
    result = run_pkg(run_file, f"--install-path={shared}/opp")
    assert result.returncode == 1 and f"refusing to follow the symbolic link {shared}/opp" in result.stderr
    assert list(attacker.iterdir()) == []
    # the same link made by this user (or root) is the user's own choice
    os.lchown(shared / "opp", os.getuid(), os.getgid())
    assert run_pkg(run_file, f"--install-path={shared}/opp").returncode == 0


@needs_root
def test_foreign_or_writable_vendors_directory_is_refused(run_file, tmp_path):
    (tmp_path / "a" / "vendors").mkdir(parents=True)
    os.chown(tmp_path / "a" / "vendors", NOBODY, NOBODY)
    foreign = run_pkg(run_file, f"--install-path={tmp_path}/a")
    assert foreign.returncode == 1 and "belongs to another user or others can write it" in foreign.stderr
    (tmp_path / "b" / "vendors").mkdir(parents=True)
    (tmp_path / "b" / "vendors").chmod(0o777)
    writable = run_pkg(run_file, f"--install-path={tmp_path}/b")
    assert writable.returncode == 1 and "others can write it" in writable.stderr


def test_config_ini_symlink_is_refused(run_file, tmp_path):
    opp = tmp_path / "opp"
    (opp / "vendors").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere.ini"
    elsewhere.write_text("load_priority=x\n")
    (opp / "vendors" / "config.ini").symlink_to(elsewhere)
    result = run_pkg(run_file, ASCEND_OPP_PATH=str(opp))
    assert result.returncode == 1 and "config.ini is a symbolic link" in result.stderr
    assert elsewhere.read_text() == "load_priority=x\n"


# ------------------------------------------------------------------------------------ load_priority
def test_install_reinstall_upgrade_uninstall_keep_load_priority(run_file, tmp_path):
    opp = tmp_path / "opp"
    other = opp / "vendors" / "other"
    other.mkdir(parents=True)
    (other / "keep.txt").write_text("other vendor\n")
    config = opp / "vendors" / "config.ini"
    config.write_text("# vendors\nload_priority=other,third\n")
    config.chmod(0o440)

    def priority():
        return [l for l in config.read_text().splitlines() if l.startswith("load_priority=")]

    assert run_pkg(run_file, ASCEND_OPP_PATH=str(opp)).returncode == 0
    assert priority() == ["load_priority=ascend_dcn,other,third"]
    assert run_pkg(run_file, "--quiet", ASCEND_OPP_PATH=str(opp)).returncode == 0          # reinstall
    assert priority() == ["load_priority=ascend_dcn,other,third"]
    config.chmod(0o640)
    config.write_text("# vendors\nload_priority=other,ascend_dcn,third\n")
    config.chmod(0o440)
    upgrade = run_pkg(run_file, "--upgrade", ASCEND_OPP_PATH=str(opp))
    assert upgrade.returncode == 0, upgrade.stderr
    assert priority() == ["load_priority=ascend_dcn,other,third"]
    assert mode(config) == 0o440 and config.read_text().startswith("# vendors\n")

    uninstall = subprocess.run(["bash", str(opp / "vendors" / VENDOR / "scripts" / "uninstall.sh")],
                               env=clean_env(), capture_output=True, text=True)
    assert uninstall.returncode == 0, uninstall.stderr
    assert not (opp / "vendors" / VENDOR).exists()
    assert priority() == ["load_priority=other,third"] and mode(config) == 0o440
    assert (other / "keep.txt").read_text() == "other vendor\n"


def test_upgrade_needs_an_installation_and_uninstall_of_install_path(run_file, tmp_path):
    first = run_pkg(run_file, "--upgrade", f"--install-path={tmp_path}/t")
    assert first.returncode == 1 and "nothing to upgrade" in first.stderr
    assert run_pkg(run_file, f"--install-path={tmp_path}/t").returncode == 0
    stale = tmp_path / "t" / "vendors" / VENDOR / "op_api" / "stale.txt"
    (tmp_path / "t" / "vendors" / VENDOR / "op_api").chmod(0o750)
    stale.write_text("old")
    assert run_pkg(run_file, "--upgrade", f"--install-path={tmp_path}/t").returncode == 0
    assert not stale.exists()
    un = subprocess.run(["bash", str(tmp_path / "t" / "vendors" / VENDOR / "scripts" / "uninstall.sh"), "--quiet"],
                        env=clean_env(), capture_output=True, text=True)
    assert un.returncode == 0 and not (tmp_path / "t" / "vendors" / VENDOR).exists()
    assert (tmp_path / "t" / "vendors").is_dir()
