"""The NPU path of ascend_dcn: the installed operator package, run through torch_npu's own machinery.

On an Ascend host (Atlas A2 ``Ascend910B*`` / Atlas A3 ``Ascend910_93*``) NPU tensors run through
the torch_npu extension of this package (``csrc/npu_extension.cpp``, ``csrc/npu_call.cpp``): phase 1
on the calling thread, the workspace from torch_npu's caching allocator, phase 2 through
``at_npu::native::OpCommand::RunOpApi`` (torch_npu's task queue, profiler and error reporting),
under a device guard. The extension also registers the PrivateUse1 kernel of the torch.library op
``ascend_dcn::deformable_conv2d_backward``. What torch_npu and CANN already do is not repeated here:
torch_npu loads CANN's runtime (so no runtime library is searched for), owns the streams and the
device; the extension is built on first use with ``torch.utils.cpp_extension.load`` against the
installed torch, torch_npu and CANN's ``$ASCEND_HOME_PATH/include`` (see :func:`build_extension`).

The extension calls exactly one operator library: ``<vendor dir>/op_api/lib/libcust_opapi.so`` of
our package, bound by path (dlopen RTLD_LOCAL + dlsym on that handle) — never by name, because
CANN's ``libopapi.so`` exports a built-in ``aclnnDeformableConv2dBackward`` of the same name.

Where the package is looked for, first match wins:

1. ``set_opp_path(path)`` — a vendor directory (``.../vendors/ascend_dcn``) or a root holding
   ``vendors/ascend_dcn`` (the ``--install-path`` given to the .run);
2. ``ASCEND_CUSTOM_OPP_PATH`` — colon-separated absolute vendor directories, front first (what
   ``bin/set_env.bash`` of an ``--install-path`` installation prepends);
3. ``$ASCEND_OPP_PATH/vendors`` (default ``$ASCEND_HOME_PATH/opp``) — vendors in the order of
   ``vendors/config.ini`` ``load_priority``, then ``vendors/ascend_dcn`` if not listed.

A directory counts as our package when it has ``op_api/lib/libcust_opapi.so`` and
``op_api/include/aclnn_deformable_conv2d_backward.h``.

Trust (the rule torch_npu's op-plugin applies to custom operator libraries): the library that
would be loaded, and the directory holding it, must be owned by the current user or root and not
writable by group or others; ``load_priority`` entries must be plain vendor names (no ``/``, not
``.``/``..``); relative ``ASCEND_CUSTOM_OPP_PATH`` entries are refused. Each refusal raises
:class:`UntrustedPathError` naming the path and the rule. The C++ loader applies the same owner and
mode rule again right before dlopen (``csrc/library_trust.h``).

Anything missing raises :class:`NpuBackendError` naming what is missing and how to fix it.
:func:`backend_info` reports what was found without raising.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import re
import stat
import sys
import threading
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Tuple

VENDOR_NAME = "ascend_dcn"
OP_TYPE = "DeformableConv2dBackward"
OPAPI_RELPATH = Path("op_api/lib/libcust_opapi.so")
ACLNN_HEADER_RELPATH = Path("op_api/include/aclnn_deformable_conv2d_backward.h")
# torch_npu.npu.get_device_name() prefixes of the supported products.
SUPPORTED_SOC_PREFIXES = {"Ascend910B": "Atlas A2 (ascend910b)", "Ascend910_93": "Atlas A3 (ascend910_93)"}
# A plain vendor name of config.ini load_priority.
VENDOR_NAME_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
EXTENSION_NAME = "ascend_dcn_npu_ext"
BUILD_DIR_ENV = "ASCEND_DCN_NPU_BUILD_DIR"
# Sources of the extension, relative to the source root that holds them (see _extension_sources).
EXTENSION_SOURCES = ("npu_extension.cpp", "npu_call.cpp", "opapi_library.cpp", "library_trust.cpp",
                     "deformable_conv2d_backward_check.cpp")

INSTALL_HINT = (
    "build and install the package on this host: `bash build.sh` in the ascend_dcn source tree, then "
    "`build_out/custom_opp_<os>_<arch>.run --install-path=<dir>` and "
    "`source <dir>/vendors/ascend_dcn/bin/set_env.bash` (or call ascend_dcn.npu.set_opp_path(<dir>)); "
    "see docs/ascend-host.md")
CANN_HINT = ("install the CANN toolkit and `source /usr/local/Ascend/ascend-toolkit/set_env.sh` "
             "(sets ASCEND_HOME_PATH and LD_LIBRARY_PATH)")


class NpuBackendError(RuntimeError):
    """The NPU backend cannot be used. ``missing`` is one of: ``torch_npu``, ``npu_device``,
    ``soc``, ``cann``, ``vendor_package``, ``untrusted``, ``extension``, ``load``; ``fix`` says
    what to do."""

    def __init__(self, missing: str, what: str, fix: str):
        self.missing = missing
        self.fix = fix
        super().__init__(f"ascend_dcn NPU backend: {what}. Fix: {fix}")


class UntrustedPathError(NpuBackendError):
    """A library location was refused by the trust rules; ``path`` and ``rule`` say which and why."""

    def __init__(self, path, rule: str, source: str = ""):
        self.path = str(path)
        self.rule = rule
        origin = f" (from {source})" if source else ""
        super().__init__("untrusted", f"refusing {self.path!r}{origin}: {rule}",
                         "install the package as the user who runs it or as root, with directories "
                         "and files not writable by group or others (the .run installer does this), "
                         "and use absolute paths")


_lock = threading.Lock()
_explicit_opp_path: Optional[Path] = None
_extension = None
_bound_opapi: Optional[str] = None
# Fast path of get_extension: the environment the package was found with, and the devices whose
# SoC has been checked. Any change of either sends the next call through the full lookup.
_ENV_KEYS = ("ASCEND_CUSTOM_OPP_PATH", "ASCEND_OPP_PATH", "ASCEND_HOME_PATH")
_loaded_env: Optional[tuple] = None
_checked_devices: set = set()


# ---------------------------------------------------------------------------------------------
# Trust rules
# ---------------------------------------------------------------------------------------------

def check_trusted_file(path, source: str = "") -> Path:
    """Returns the resolved path of a library that passes the owner/mode rule (file and its
    directory owned by the current user or root, neither group- nor other-writable); raises
    UntrustedPathError naming the path and the broken rule."""
    given = Path(path)
    if not given.is_absolute():
        raise UntrustedPathError(given, "the path must be absolute", source)
    real = given.resolve()
    for what, target in (("file", real), ("directory", real.parent)):
        try:
            st = os.stat(target)
        except OSError as exc:
            raise UntrustedPathError(given, f"cannot stat its {what} {str(target)!r}: {exc.strerror}", source)
        if st.st_uid not in (os.geteuid(), 0):
            raise UntrustedPathError(
                given, f"its {what} {str(target)!r} is owned by uid {st.st_uid}, not by the current user "
                f"(uid {os.geteuid()}) or root", source)
        if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            raise UntrustedPathError(
                given, f"its {what} {str(target)!r} is writable by group or others "
                f"(mode {stat.S_IMODE(st.st_mode):o}; g+w and o+w are not allowed)", source)
    return real


def check_vendor_name(name: str, config) -> str:
    """A load_priority entry must be a plain vendor name (a directory name under vendors/)."""
    if not VENDOR_NAME_RE.match(name) or name in (".", ".."):
        raise UntrustedPathError(
            config, f"load_priority entry {name!r} is not a plain vendor name "
            "(letters, digits, '_', '-', '.'; no '/', not '.' or '..')")
    return name


# ---------------------------------------------------------------------------------------------
# Discovery (pure functions of the environment mapping and the file system)
# ---------------------------------------------------------------------------------------------

def set_opp_path(path) -> None:
    """Use the package installed at ``path`` (vendor dir or ``--install-path`` root); None resets.

    A relative ``path`` is taken relative to the current directory at this call.
    Raises NpuBackendError('vendor_package') when ``path`` holds no ascend_dcn package."""
    global _explicit_opp_path, _loaded_env
    with _lock:
        if path is None:
            _explicit_opp_path = None
        else:
            vendor = _vendor_dir_under(Path(path).absolute())
            if vendor is None:
                raise NpuBackendError(
                    "vendor_package",
                    f"set_opp_path({str(path)!r}): neither the directory itself nor its "
                    f"vendors/{VENDOR_NAME} holds {OPAPI_RELPATH} and {ACLNN_HEADER_RELPATH}",
                    "pass the --install-path used for the .run, or its vendors/ascend_dcn directory")
            _explicit_opp_path = vendor
        _loaded_env = None


def is_vendor_package(path) -> bool:
    """True when ``path`` is an installed vendor directory containing our operator."""
    p = Path(path)
    return (p / OPAPI_RELPATH).is_file() and (p / ACLNN_HEADER_RELPATH).is_file()


def _vendor_dir_under(path: Path) -> Optional[Path]:
    for candidate in (path, path / "vendors" / VENDOR_NAME):
        if is_vendor_package(candidate):
            return candidate.resolve()
    return None


def _opp_root(env: Mapping[str, str]) -> Optional[Path]:
    if env.get("ASCEND_OPP_PATH"):
        return Path(env["ASCEND_OPP_PATH"])
    if env.get("ASCEND_HOME_PATH"):
        return Path(env["ASCEND_HOME_PATH"]) / "opp"
    return None


def read_load_priority(vendors_dir) -> List[str]:
    """Vendor names of ``<vendors_dir>/config.ini`` ``load_priority=a,b,c`` (highest first).
    Raises UntrustedPathError for an entry that is not a plain vendor name."""
    config = Path(vendors_dir) / "config.ini"
    if not config.is_file():
        return []
    for line in config.read_text(errors="replace").splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() == "load_priority":
            return [check_vendor_name(v.strip(), config) for v in value.split(",") if v.strip()]
    return []


def package_candidates(env: Optional[Mapping[str, str]] = None) -> List[Tuple[str, Path]]:
    """Every place searched, in order, as (source, directory); existence is not checked.
    Raises UntrustedPathError for a relative ASCEND_CUSTOM_OPP_PATH entry or a load_priority
    entry that is not a plain vendor name."""
    env = os.environ if env is None else env
    out: List[Tuple[str, Path]] = []
    if _explicit_opp_path is not None:
        out.append(("set_opp_path", _explicit_opp_path))
    for entry in env.get("ASCEND_CUSTOM_OPP_PATH", "").split(":"):
        entry = entry.strip()
        if not entry:
            continue
        if not Path(entry).is_absolute():
            raise UntrustedPathError(entry, "relative entries of ASCEND_CUSTOM_OPP_PATH are refused "
                                     "(they would depend on the current directory)", "ASCEND_CUSTOM_OPP_PATH")
        out.append(("ASCEND_CUSTOM_OPP_PATH", Path(entry)))
    root = _opp_root(env)
    if root is not None:
        vendors = root / "vendors"
        listed = read_load_priority(vendors)
        for name in listed:
            out.append(("ASCEND_OPP_PATH/vendors (config.ini)", vendors / name))
        if VENDOR_NAME not in listed:
            out.append(("ASCEND_OPP_PATH/vendors", vendors / VENDOR_NAME))
    return out


def find_vendor_package(env: Optional[Mapping[str, str]] = None) -> Optional[Dict[str, str]]:
    """The first installed ascend_dcn package: {'path', 'source', 'opapi', 'version'} or None.
    Its library must pass :func:`check_trusted_file` (UntrustedPathError otherwise)."""
    for source, directory in package_candidates(env):
        if is_vendor_package(directory):
            opapi = check_trusted_file(directory / OPAPI_RELPATH, source)
            version_file = directory / "version.info"
            version = version_file.read_text(errors="replace").strip() if version_file.is_file() else ""
            return {"path": str(directory), "source": source, "opapi": str(opapi), "version": version}
    return None


def resolve_opapi_path(env: Optional[Mapping[str, str]] = None) -> str:
    """The trusted, resolved libcust_opapi.so of our package; raises NpuBackendError when missing."""
    package = find_vendor_package(env)
    if package is None:
        searched = "; ".join(f"{src}: {d}" for src, d in package_candidates(env)) or \
            "nothing (ASCEND_CUSTOM_OPP_PATH, ASCEND_OPP_PATH and ASCEND_HOME_PATH are unset)"
        raise NpuBackendError(
            "vendor_package", f"the installed {VENDOR_NAME} operator package was not found (searched {searched})",
            INSTALL_HINT)
    return package["opapi"]


def check_soc_name(name: str) -> str:
    """Returns the product name for a supported SoC name; raises NpuBackendError('soc') otherwise."""
    for prefix, product in SUPPORTED_SOC_PREFIXES.items():
        if name.startswith(prefix):
            return product
    raise NpuBackendError(
        "soc", f"the NPU is {name!r}, which this package does not support",
        "run on Atlas A2 (Ascend910B*) or Atlas A3 (Ascend910_93*); other SoCs use torch_npu's "
        "own npu_deformable_conv2dbk")


def twin_libraries() -> Dict[str, Optional[str]]:
    """The CPU twin's shared libraries as ascend_dcn._backend finds them; None for one not found."""
    try:
        from . import _backend
        opapi, runtime = _backend.twin_library_paths()
        return {"libnnopbase.so": runtime[0], "libcust_opapi.so": opapi}
    except Exception:
        return {"libnnopbase.so": None, "libcust_opapi.so": None}


# ---------------------------------------------------------------------------------------------
# torch_npu access
# ---------------------------------------------------------------------------------------------

def _module_available(name: str) -> bool:
    """Importable without importing it (a module already in sys.modules counts)."""
    if name in sys.modules:
        return sys.modules[name] is not None
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _torch_npu():
    if not _module_available("torch_npu"):
        raise NpuBackendError(
            "torch_npu", "torch_npu is not installed",
            "install the torch_npu build matching torch and CANN (`pip install torch-npu==<torch version>`, "
            "see the Ascend/pytorch release table), then `import torch_npu`")
    try:
        return importlib.import_module("torch_npu")
    except Exception as exc:  # torch_npu raises various errors when CANN is not set up
        raise NpuBackendError(
            "torch_npu", f"`import torch_npu` failed: {exc}", CANN_HINT) from exc


def device_soc_name(device=None) -> str:
    """torch_npu.npu.get_device_name(device), e.g. 'Ascend910B2'; raises when no NPU is visible."""
    torch_npu = _torch_npu()
    if not torch_npu.npu.is_available():
        raise NpuBackendError(
            "npu_device", "torch_npu sees no NPU device",
            "check `npu-smi info`, the driver installation and ASCEND_RT_VISIBLE_DEVICES")
    return str(torch_npu.npu.get_device_name(device))


# ---------------------------------------------------------------------------------------------
# The extension: build on first use, bind our library
# ---------------------------------------------------------------------------------------------

def _extension_source_roots() -> List[Path]:
    """Where the extension's sources are: the installed package's npu_src/ (wheel), or the
    source tree (python/ascend_dcn/csrc + op_host)."""
    here = Path(__file__).resolve().parent
    return [here / "npu_src", here / "csrc", here.parent.parent / "op_host"]


def _extension_sources() -> Tuple[List[str], List[str]]:
    """(source files, include dirs of this project) of the extension; raises when incomplete."""
    roots = [r for r in _extension_source_roots() if r.is_dir()]
    sources = []
    for name in EXTENSION_SOURCES:
        found = next((r / name for r in roots if (r / name).is_file()), None)
        if found is None:
            raise NpuBackendError(
                "extension", f"the extension source {name} is not in {', '.join(map(str, roots)) or '(none)'}",
                "reinstall the package: `pip install --no-build-isolation .` in the source tree")
        sources.append(str(found))
    return sources, [str(r) for r in roots]


def cann_include_dir(env: Optional[Mapping[str, str]] = None) -> Path:
    """CANN's include/ (aclnn/acl_meta.h, graph/types.h) of the toolkit set_env.sh selected."""
    env = os.environ if env is None else env
    home = env.get("ASCEND_HOME_PATH") or env.get("ASCEND_TOOLKIT_HOME")
    if not home or not (Path(home) / "include" / "aclnn" / "acl_meta.h").is_file():
        raise NpuBackendError("cann", f"CANN's include/aclnn/acl_meta.h not found (ASCEND_HOME_PATH={home!r})",
                              CANN_HINT)
    return Path(home) / "include"


def build_extension(verbose: bool = False):
    """Compiles (once; torch caches by source hash) and imports the torch_npu extension.

    torch.utils.cpp_extension.load with torch_npu's include/ and lib/ (what torch_npu's
    NpuExtension adds), CANN's include/, linking libtorch_npu. Build directory:
    $ASCEND_DCN_NPU_BUILD_DIR, else torch's default extension cache."""
    torch_npu = _torch_npu()
    from torch.utils import cpp_extension
    sources, project_includes = _extension_sources()
    npu_root = Path(torch_npu.__file__).resolve().parent
    includes = project_includes + [str(npu_root / "include"), str(npu_root / "include" / "third_party" / "acl" / "inc"),
                                   str(npu_root / "include" / "third_party" / "hccl" / "inc"), str(cann_include_dir())]
    build_dir = os.environ.get(BUILD_DIR_ENV)
    if build_dir:
        os.makedirs(build_dir, exist_ok=True)
    try:
        return cpp_extension.load(
            name=EXTENSION_NAME, sources=sources, extra_include_paths=includes,
            extra_cflags=["-O2"],
            extra_ldflags=[f"-L{npu_root / 'lib'}", "-ltorch_npu", f"-Wl,-rpath,{npu_root / 'lib'}"],
            build_directory=build_dir, verbose=verbose, is_python_module=True)
    except Exception as exc:
        raise NpuBackendError(
            "extension", f"building the torch_npu extension {EXTENSION_NAME} failed: {exc}",
            "check that a C++17 compiler is installed and that torch, torch_npu and CANN match "
            "(docs/ascend-host.md lists the checked combinations); run "
            "ascend_dcn.npu.build_extension(verbose=True) to see the compiler output") from exc


def _environment_key() -> tuple:
    return (str(_explicit_opp_path),) + tuple(os.environ.get(k, "") for k in _ENV_KEYS)


def get_extension(device=None):
    """The torch_npu extension, built/imported once and bound to the installed package's library.

    Checks, in order: torch_npu, a visible NPU, a supported SoC, our installed (trusted) package,
    the extension; raises NpuBackendError at the first problem. Later calls with an unchanged
    environment (and an already checked device) return it without touching the file system."""
    global _extension, _bound_opapi, _loaded_env
    device_key = str(device)
    env_key = _environment_key()
    if _extension is not None and _loaded_env == env_key and device_key in _checked_devices:
        return _extension
    check_soc_name(device_soc_name(device))
    opapi_path = resolve_opapi_path()
    with _lock:
        _checked_devices.add(device_key)
        if _extension is None:
            _extension = build_extension()
        if _bound_opapi != opapi_path:
            try:
                _extension.bind_library(opapi_path)
            except Exception as exc:
                raise NpuBackendError(
                    "load", f"loading {opapi_path} failed: {exc}",
                    "make sure the package was built for this CANN version and architecture "
                    "(rebuild with `bash build.sh` and reinstall), and that CANN's set_env.sh was sourced") from exc
            _bound_opapi = opapi_path
        _loaded_env = env_key
        return _extension


def loaded_extension():
    """The extension module once get_extension() has loaded it, else None."""
    return _extension


def is_npu_executor(executor) -> bool:
    """True for an executor made by the NPU extension (only possible once it is loaded)."""
    ext = _extension
    return ext is not None and isinstance(executor, ext.NpuExecutor)


def backend_info(env: Optional[Mapping[str, str]] = None) -> dict:
    """What the NPU and twin backends would use, without raising. ``selected_backend`` is 'npu' when
    NPU tensors can run on the installed package, else 'twin' when the CPU twin is available (CPU
    tensors always use the twin), else 'none'. Keys: selected_backend, torch_npu, npu_device, soc,
    soc_supported, cann_include, vendor_package {...}|None, package_search [[source, dir]...],
    explicit_opp_path, twin_libraries {lib: path|None}, extension_sources, bound_library, problems."""
    env = os.environ if env is None else env
    problems: List[str] = []
    info: dict = {
        "torch_npu": None, "npu_device": False, "soc": None, "soc_supported": False, "cann_include": None,
        "vendor_package": None, "package_search": [],
        "explicit_opp_path": str(_explicit_opp_path) if _explicit_opp_path else None,
        "twin_libraries": twin_libraries(), "extension_sources": False, "bound_library": _bound_opapi,
    }
    try:
        info["package_search"] = [[src, str(d)] for src, d in package_candidates(env)]
        info["vendor_package"] = find_vendor_package(env)
        if info["vendor_package"] is None:
            problems.append(f"installed {VENDOR_NAME} package not found. Fix: {INSTALL_HINT}")
    except NpuBackendError as exc:
        problems.append(str(exc))
    try:
        info["cann_include"] = str(cann_include_dir(env))
    except NpuBackendError as exc:
        problems.append(str(exc))
    try:
        _extension_sources()
        info["extension_sources"] = True
    except NpuBackendError as exc:
        problems.append(str(exc))
    try:
        torch_npu = _torch_npu()
        info["torch_npu"] = getattr(torch_npu, "__version__", "unknown")
        soc = device_soc_name()
        info["npu_device"] = True
        info["soc"] = soc
        check_soc_name(soc)
        info["soc_supported"] = True
    except NpuBackendError as exc:
        problems.append(str(exc))
    npu_ready = (info["soc_supported"] and info["vendor_package"] is not None and info["cann_include"] is not None
                 and info["extension_sources"])
    twin_ready = all(info["twin_libraries"].values())
    info["selected_backend"] = "npu" if npu_ready else ("twin" if twin_ready else "none")
    info["problems"] = problems
    return info
