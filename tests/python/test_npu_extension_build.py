"""The torch_npu extension (csrc/npu_extension.cpp, csrc/npu_call.cpp and the loader they use)
compiles against the torch-npu wheel's C++ headers for the torch installed here, plus CANN's headers.

The wheel is fetched from PyPI with pip (``torch-npu==<torch version>``, the pairing torch_npu
releases follow) into build/npu_wheel_cache/ and only its ``torch_npu/include`` is unpacked; the
test skips, saying why, only when the wheel cannot be had. The aclnn/acl_meta.h + graph/types.h
the extension needs besides torch_npu's headers: the twin's stand-ins (always), and CANN 8.1.RC1's
include/ from the real-toolchain mirror ($ASCEND_DCN_CANN_MIRROR or the shared mirror path,
extracted into the same cache) whenever the mirror is on the machine.
``-fsyntax-only`` with -Wall -Wextra -Werror on our files (third-party headers as -isystem).
"""
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest
import torch

REPO = Path(__file__).resolve().parents[2]
CSRC = REPO / "python" / "ascend_dcn" / "csrc"
CACHE = Path(os.environ.get("ASCEND_DCN_NPU_WHEEL_CACHE", REPO / "build" / "npu_wheel_cache"))
SOURCES = ("npu_call.cpp", "npu_extension.cpp", "opapi_library.cpp", "library_trust.cpp")
CANN_INCLUDE_IN_MIRROR = "Ascend/ascend-toolkit/8.1.RC1/aarch64-linux/include"
MIRROR_CANDIDATES = [os.environ.get("ASCEND_DCN_CANN_MIRROR", ""),
                     str(REPO.parent / ".mirror" / "leideng+CANN-8.1.RC1" / "repo"),
                     "/work/.mirror/leideng+CANN-8.1.RC1/repo"]


def torch_release():
    return torch.__version__.split("+")[0]


@pytest.fixture(scope="module")
def torch_npu_include():
    version = torch_release()
    target = CACHE / f"torch_npu-{version}"
    include = target / "torch_npu" / "include"
    if (include / "torch_npu" / "csrc" / "framework" / "OpCommand.h").is_file():
        return include
    CACHE.mkdir(parents=True, exist_ok=True)
    wheels = sorted(CACHE.glob(f"torch_npu-{version}-*.whl"))
    if not wheels:
        try:
            proc = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
                                   f"torch-npu=={version}", "-d", str(CACHE)],
                                  capture_output=True, text=True, timeout=600)
        except (OSError, subprocess.TimeoutExpired) as exc:
            pytest.skip(f"the torch-npu {version} wheel could not be downloaded: {exc}")
        wheels = sorted(CACHE.glob(f"torch_npu-{version}-*.whl"))
        if proc.returncode != 0 or not wheels:
            pytest.skip(f"the torch-npu {version} wheel could not be downloaded: "
                        f"{(proc.stderr or proc.stdout).strip()[-400:]}")
    tmp = target.with_name(target.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    with zipfile.ZipFile(wheels[-1]) as z:
        for name in z.namelist():
            if name.startswith("torch_npu/include/"):
                z.extract(name, tmp)
    shutil.rmtree(target, ignore_errors=True)
    tmp.rename(target)
    assert (include / "torch_npu" / "csrc" / "framework" / "OpCommand.h").is_file(), \
        "the torch-npu wheel no longer ships torch_npu/csrc/framework/OpCommand.h"
    return include


MIRROR = next((m for m in MIRROR_CANDIDATES if m and Path(m).is_dir()), None)
HEADER_SETS = ["twin"] + (["cann81"] if MIRROR else [])


def cann81_include():
    mirror = MIRROR
    target = CACHE / "cann81"
    include = target / CANN_INCLUDE_IN_MIRROR
    if not (include / "aclnn" / "acl_meta.h").is_file():
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        archive = subprocess.run(["git", "--git-dir", mirror, "archive", "HEAD", CANN_INCLUDE_IN_MIRROR],
                                 capture_output=True, timeout=300)
        assert archive.returncode == 0, f"cannot read the CANN mirror {mirror}: {archive.stderr.decode()[-300:]}"
        tar = target / "include.tar"
        tar.write_bytes(archive.stdout)
        with tarfile.open(tar) as t:
            t.extractall(target)
        tar.unlink()
    return include


def compile_flags(npu_include, acl_include):
    torch_dir = Path(torch.__file__).parent / "include"
    std = "-std=c++20" if tuple(int(x) for x in torch_release().split(".")[:2]) >= (2, 10) else "-std=c++17"
    abi = int(torch._C._GLIBCXX_USE_CXX11_ABI)
    system = [torch_dir, torch_dir / "torch" / "csrc" / "api" / "include", Path(sysconfig.get_paths()["include"]),
              npu_include, npu_include / "third_party" / "acl" / "inc", npu_include / "third_party" / "hccl" / "inc",
              acl_include]
    flags = [std, "-fsyntax-only", "-Wall", "-Wextra", "-Werror", f"-D_GLIBCXX_USE_CXX11_ABI={abi}",
             "-DTORCH_EXTENSION_NAME=ascend_dcn_npu_ext", "-DTORCH_API_INCLUDE_EXTENSION_H",
             f"-I{CSRC}", f"-I{REPO / 'op_host'}"]
    for d in system:
        flags += ["-isystem", str(d)]
    return flags


def syntax_check(flags, source):
    cxx = os.environ.get("CXX", "g++")
    if shutil.which(cxx) is None:
        pytest.skip(f"no C++ compiler ({cxx})")
    proc = subprocess.run([cxx, *flags, str(CSRC / source)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{source} does not compile:\n{proc.stderr[-4000:]}"


@pytest.fixture(scope="module", params=HEADER_SETS)
def acl_include(request):
    return REPO / "twin" / "include" if request.param == "twin" else cann81_include()


@pytest.mark.parametrize("source", SOURCES)
def test_extension_compiles_against_torch_npu(torch_npu_include, acl_include, source):
    syntax_check(compile_flags(torch_npu_include, acl_include), source)


def test_extension_uses_torch_npu_machinery_not_op_plugin_lookup():
    """The extension runs phase 2 through OpCommand::RunOpApi and binds our library itself, never
    op-plugin's name lookup (GetOpApiFuncAddr / EXEC_NPU_CMD*), which can resolve CANN's built-in
    aclnnDeformableConv2dBackward."""
    text = "\n".join((CSRC / s).read_text() for s in ("npu_call.cpp", "npu_extension.cpp"))
    code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
    assert "OpCommand::RunOpApi(" in code
    assert "NPUGuard" in code and "getCurrentNPUStream" in code
    assert "TORCH_LIBRARY_IMPL(ascend_dcn, PrivateUse1" in code
    for forbidden in ("GetOpApiFuncAddr", "EXEC_NPU_CMD", "GET_OP_API_FUNC", "dlsym(RTLD_DEFAULT"):
        assert forbidden not in code, forbidden
