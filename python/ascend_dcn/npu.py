"""The NPU path of ascend_dcn: find the installed operator package and CANN runtime, load them once.

On an Ascend host (Atlas A2 ``Ascend910B*`` / Atlas A3 ``Ascend910_93*``) NPU tensors are handled by
the aclnn library of the installed vendor package (``custom_opp_<os>_<arch>.run``, vendor
``ascend_dcn``), loaded through ``ascend_dcn._C.OpApi(opapi_path, runtime_paths)``:

* ``opapi_path``    = ``<vendor dir>/op_api/lib/libcust_opapi.so`` of our package;
* ``runtime_paths`` = CANN's ``libascendcl.so`` (runtime, streams) and ``libnnopbase.so`` (the aclnn
  base library; it defines ``aclCreateTensor``/``aclCreateIntArray``/``aclDestroy*`` of
  ``aclnn/acl_meta.h``), loaded RTLD_GLOBAL before the op library. CANN's ``libopapi.so`` (built-in
  operators) is only reported, never loaded here: it exports a built-in
  ``aclnnDeformableConv2dBackward`` of the same name.

Where the package is looked for, first match wins:

1. ``set_opp_path(path)`` — a vendor directory (``.../vendors/ascend_dcn``) or a root holding
   ``vendors/ascend_dcn`` (the ``--install-path`` given to the .run);
2. ``ASCEND_CUSTOM_OPP_PATH`` — colon-separated vendor directories, front first (what
   ``bin/set_env.bash`` of an ``--install-path`` installation prepends);
3. ``$ASCEND_OPP_PATH/vendors`` (default ``$ASCEND_HOME_PATH/opp``) — vendors in the order of
   ``vendors/config.ini`` ``load_priority``, then ``vendors/ascend_dcn`` if not listed.

A directory counts as our package when it has ``op_api/lib/libcust_opapi.so`` and
``op_api/include/aclnn_deformable_conv2d_backward.h`` (every custom package names its library
``libcust_opapi.so``; the header identifies the operator).

Anything missing raises :class:`NpuBackendError` naming what is missing and how to fix it.
:func:`backend_info` reports what was found without raising.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import platform
import sys
import threading
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Tuple

VENDOR_NAME = "ascend_dcn"
OP_TYPE = "DeformableConv2dBackward"
OPAPI_RELPATH = Path("op_api/lib/libcust_opapi.so")
ACLNN_HEADER_RELPATH = Path("op_api/include/aclnn_deformable_conv2d_backward.h")
# Loaded RTLD_GLOBAL in this order before libcust_opapi.so (which links against both).
RUNTIME_LIBRARIES = ("libascendcl.so", "libnnopbase.so")
# Looked for and reported only.
REPORTED_LIBRARIES = ("libopapi.so",)
# torch_npu.npu.get_device_name() prefixes of the supported products.
SUPPORTED_SOC_PREFIXES = {"Ascend910B": "Atlas A2 (ascend910b)", "Ascend910_93": "Atlas A3 (ascend910_93)"}
DEFAULT_CANN_ROOTS = ("/usr/local/Ascend/ascend-toolkit/latest", "/usr/local/Ascend/cann")

INSTALL_HINT = (
    "build and install the package on this host: `bash build.sh` in the ascend_dcn source tree, then "
    "`build_out/custom_opp_<os>_<arch>.run --install-path=<dir>` and "
    "`source <dir>/vendors/ascend_dcn/bin/set_env.bash` (or call ascend_dcn.npu.set_opp_path(<dir>)); "
    "see docs/ascend-host.md")
CANN_HINT = ("install the CANN toolkit and `source /usr/local/Ascend/ascend-toolkit/set_env.sh` "
             "(sets ASCEND_HOME_PATH and LD_LIBRARY_PATH)")


class NpuBackendError(RuntimeError):
    """The NPU backend cannot be used. ``missing`` is one of: ``torch_npu``, ``npu_device``,
    ``soc``, ``cann_runtime``, ``vendor_package``, ``extension``, ``load``; ``fix`` says what to do."""

    def __init__(self, missing: str, what: str, fix: str):
        self.missing = missing
        self.fix = fix
        super().__init__(f"ascend_dcn NPU backend: {what}. Fix: {fix}")


_lock = threading.Lock()
_explicit_opp_path: Optional[Path] = None
_opapi = None
_opapi_key: Optional[Tuple[str, Tuple[str, ...]]] = None
# Fast path of get_opapi: the environment the loaded package was found with, and the devices
# whose SoC has been checked. Any change of either sends the next call through the full lookup.
_ENV_KEYS = ("ASCEND_CUSTOM_OPP_PATH", "ASCEND_OPP_PATH", "ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME",
             "ASCEND_CANN_PACKAGE_PATH", "LD_LIBRARY_PATH")
_loaded_env: Optional[tuple] = None
_checked_devices: set = set()


# ---------------------------------------------------------------------------------------------
# Discovery (pure functions of the environment mapping and the file system)
# ---------------------------------------------------------------------------------------------

def set_opp_path(path) -> None:
    """Use the package installed at ``path`` (vendor dir or ``--install-path`` root); None resets.

    Raises NpuBackendError('vendor_package') when ``path`` holds no ascend_dcn package."""
    global _explicit_opp_path, _opapi, _opapi_key, _loaded_env
    with _lock:
        if path is None:
            _explicit_opp_path = None
        else:
            vendor = _vendor_dir_under(Path(path))
            if vendor is None:
                raise NpuBackendError(
                    "vendor_package",
                    f"set_opp_path({str(path)!r}): neither the directory itself nor its "
                    f"vendors/{VENDOR_NAME} holds {OPAPI_RELPATH} and {ACLNN_HEADER_RELPATH}",
                    "pass the --install-path used for the .run, or its vendors/ascend_dcn directory")
            _explicit_opp_path = vendor
        _opapi = None
        _opapi_key = None
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
    """Vendor names of ``<vendors_dir>/config.ini`` ``load_priority=a,b,c`` (highest first)."""
    config = Path(vendors_dir) / "config.ini"
    if not config.is_file():
        return []
    for line in config.read_text(errors="replace").splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() == "load_priority":
            return [v.strip() for v in value.split(",") if v.strip()]
    return []


def package_candidates(env: Optional[Mapping[str, str]] = None) -> List[Tuple[str, Path]]:
    """Every place searched, in order, as (source, directory); existence is not checked."""
    env = os.environ if env is None else env
    out: List[Tuple[str, Path]] = []
    if _explicit_opp_path is not None:
        out.append(("set_opp_path", _explicit_opp_path))
    for entry in env.get("ASCEND_CUSTOM_OPP_PATH", "").split(":"):
        if entry.strip():
            out.append(("ASCEND_CUSTOM_OPP_PATH", Path(entry.strip())))
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
    """The first installed ascend_dcn package: {'path', 'source', 'opapi', 'version'} or None."""
    for source, directory in package_candidates(env):
        if is_vendor_package(directory):
            version_file = directory / "version.info"
            version = version_file.read_text(errors="replace").strip() if version_file.is_file() else ""
            return {"path": str(directory), "source": source,
                    "opapi": str(directory / OPAPI_RELPATH), "version": version}
    return None


def cann_library_dirs(env: Optional[Mapping[str, str]] = None) -> List[Path]:
    """Directories searched for CANN's runtime libraries, in order (duplicates removed)."""
    env = os.environ if env is None else env
    arch = platform.machine()
    roots = [env.get(k) for k in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "ASCEND_CANN_PACKAGE_PATH")]
    roots += list(DEFAULT_CANN_ROOTS)
    dirs: List[Path] = []
    for root in roots:
        if root:
            dirs += [Path(root) / "lib64", Path(root) / f"{arch}-linux" / "lib64"]
    dirs += [Path(p) for p in env.get("LD_LIBRARY_PATH", "").split(":") if p.strip()]
    seen, unique = set(), []
    for d in dirs:
        if str(d) not in seen:
            seen.add(str(d))
            unique.append(d)
    return unique


def find_cann_runtime(env: Optional[Mapping[str, str]] = None) -> Dict[str, Optional[str]]:
    """Path of each of RUNTIME_LIBRARIES + REPORTED_LIBRARIES (first directory that has it) or None."""
    found: Dict[str, Optional[str]] = {}
    dirs = cann_library_dirs(env)
    for name in RUNTIME_LIBRARIES + REPORTED_LIBRARIES:
        found[name] = next((str(d / name) for d in dirs if (d / name).is_file()), None)
    return found


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
    """The CPU twin's shared libraries as ascend_dcn._backend finds them (ascend_dcn/twin_lib/ of
    the installed package, or $ASCEND_DCN_TWIN_LIB_DIR); None for a library not found."""
    try:
        from . import _backend
        opapi, runtime = _backend.twin_library_paths()
        return {"libnnopbase.so": runtime[0], "libcust_opapi.so": opapi}
    except Exception:
        return {"libnnopbase.so": None, "libcust_opapi.so": None}


def _load_extension():
    """ascend_dcn._C as ascend_dcn._backend loads it (installed, or from a CMake build directory)."""
    try:
        from . import _backend
        return _backend.load_extension()
    except Exception as exc:
        raise NpuBackendError(
            "extension", f"the compiled extension ascend_dcn._C is not available ({exc})",
            "reinstall the package: `pip install --no-build-isolation .` in the source tree") from exc


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


def current_stream_ptr(device=None) -> int:
    """The aclrtStream (as int) of torch_npu's current stream on ``device``."""
    torch_npu = _torch_npu()
    stream = torch_npu.npu.current_stream(device)
    return int(stream.npu_stream)


def device_soc_name(device=None) -> str:
    """torch_npu.npu.get_device_name(device), e.g. 'Ascend910B2'; raises when no NPU is visible."""
    torch_npu = _torch_npu()
    if not torch_npu.npu.is_available():
        raise NpuBackendError(
            "npu_device", "torch_npu sees no NPU device",
            "check `npu-smi info`, the driver installation and ASCEND_RT_VISIBLE_DEVICES")
    return str(torch_npu.npu.get_device_name(device))


# ---------------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------------

def resolve_library_paths(env: Optional[Mapping[str, str]] = None) -> Tuple[str, List[str]]:
    """(opapi_path, runtime_paths) for ascend_dcn._C.OpApi; raises NpuBackendError when missing."""
    runtime = find_cann_runtime(env)
    missing = [name for name in RUNTIME_LIBRARIES if runtime[name] is None]
    if missing:
        searched = ", ".join(str(d) for d in cann_library_dirs(env)) or "(no directory)"
        raise NpuBackendError(
            "cann_runtime", f"CANN runtime libraries {', '.join(missing)} not found (searched: {searched})",
            CANN_HINT)
    package = find_vendor_package(env)
    if package is None:
        searched = "; ".join(f"{src}: {d}" for src, d in package_candidates(env)) or \
            "nothing (ASCEND_CUSTOM_OPP_PATH, ASCEND_OPP_PATH and ASCEND_HOME_PATH are unset)"
        raise NpuBackendError(
            "vendor_package", f"the installed {VENDOR_NAME} operator package was not found (searched {searched})",
            INSTALL_HINT)
    return package["opapi"], [runtime[name] for name in RUNTIME_LIBRARIES]


def _environment_key() -> tuple:
    return (str(_explicit_opp_path),) + tuple(os.environ.get(k, "") for k in _ENV_KEYS)


def get_opapi(device=None):
    """The loaded ``ascend_dcn._C.OpApi`` of the installed package (loaded once per process).

    Checks, in order: torch_npu, a visible NPU, a supported SoC, CANN's runtime libraries, our
    installed package, the compiled extension; raises NpuBackendError at the first problem.
    Later calls with an unchanged environment (and an already checked device) return the loaded
    library without touching the file system."""
    global _opapi, _opapi_key, _loaded_env
    device_key = str(device)
    env_key = _environment_key()
    if _opapi is not None and _loaded_env == env_key and device_key in _checked_devices:
        return _opapi
    check_soc_name(device_soc_name(device))
    opapi_path, runtime_paths = resolve_library_paths()
    key = (opapi_path, tuple(runtime_paths))
    with _lock:
        _checked_devices.add(device_key)
        if _opapi is not None and _opapi_key == key:
            _loaded_env = env_key
            return _opapi
        extension = _load_extension()
        try:
            _opapi = extension.OpApi(opapi_path, runtime_paths)
        except Exception as exc:
            raise NpuBackendError(
                "load", f"loading {opapi_path} with {runtime_paths} failed: {exc}",
                "make sure the package was built for this CANN version and architecture "
                "(rebuild with `bash build.sh` and reinstall), and that CANN's set_env.sh was sourced") from exc
        _opapi_key = key
        _loaded_env = env_key
        return _opapi


def backend_info(env: Optional[Mapping[str, str]] = None) -> dict:
    """What the NPU and twin backends would use, without raising. ``selected_backend`` is 'npu' when
    NPU tensors can run on the installed package, else 'twin' when the CPU twin is available (CPU
    tensors always use the twin), else 'none'. Keys: selected_backend, torch_npu, npu_device, soc, soc_supported,
    cann_runtime {lib: path|None}, vendor_package {...}|None, package_search [[source, dir]...],
    explicit_opp_path, twin_libraries {lib: path|None}, extension_importable, problems [str]."""
    env = os.environ if env is None else env
    problems: List[str] = []
    info: dict = {
        "torch_npu": None, "npu_device": False, "soc": None, "soc_supported": False,
        "cann_runtime": find_cann_runtime(env),
        "vendor_package": find_vendor_package(env),
        "package_search": [[src, str(d)] for src, d in package_candidates(env)],
        "explicit_opp_path": str(_explicit_opp_path) if _explicit_opp_path else None,
        "twin_libraries": twin_libraries(),
    }
    try:
        _load_extension()
        info["extension_importable"] = True
    except NpuBackendError as exc:
        info["extension_importable"] = False
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
    for name in RUNTIME_LIBRARIES:
        if info["cann_runtime"][name] is None:
            problems.append(f"CANN runtime library {name} not found. Fix: {CANN_HINT}")
    if info["vendor_package"] is None:
        problems.append(f"installed {VENDOR_NAME} package not found. Fix: {INSTALL_HINT}")
    npu_ready = (info["soc_supported"] and info["vendor_package"] is not None
                 and all(info["cann_runtime"][n] for n in RUNTIME_LIBRARIES) and info["extension_importable"])
    twin_ready = info["extension_importable"] and all(info["twin_libraries"].values())
    info["selected_backend"] = "npu" if npu_ready else ("twin" if twin_ready else "none")
    info["problems"] = problems
    return info
