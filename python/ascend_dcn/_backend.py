"""Where the native pieces come from: the ``_C`` extension and the CPU twin's libraries.

* ``load_extension()`` imports ``ascend_dcn._C``; in a development tree where the extension was
  built by CMake instead of ``pip install``, it loads ``_C*.so`` from ``$ASCEND_DCN_EXT_DIR`` or
  ``$ASCEND_DCN_TWIN_LIB_DIR`` (either the directory itself or its ``ascend_dcn_ext/``).
* ``twin_library_paths()`` finds ``libcust_opapi.so`` + ``libnnopbase.so`` of the twin:
  ``$ASCEND_DCN_TWIN_LIB_DIR`` if set, else ``<package>/twin_lib/`` (wheel).
  Development: ``ASCEND_DCN_TWIN_LIB_DIR=<cmake build dir>`` (configured with
  ``-DASCEND_DCN_TWIN=ON -DASCEND_DCN_PYTHON=ON``) is enough for all three pieces.
* ``get_twin_opapi()`` creates one ``_C.OpApi`` for the twin (runtime = libnnopbase, loaded
  RTLD_GLOBAL first) and caches it for the process.
* ``translate_error(exc)`` turns ``_C.AclnnCallError`` into the package's ``AclnnError`` classes
  (``.status``, ``.argument``, ``.rule``), parsing ``<argument>: <rule>; expected <x>, got <y>``
  when the C side reported a contract violation.
"""

import glob
import importlib
import importlib.util
import os
import re
import sys
import threading

from .errors import AclnnError, error_for_status

__all__ = ["BackendUnavailableError", "load_extension", "twin_library_paths", "get_twin_opapi",
           "twin_set_platform", "twin_apply_thread_budget", "translate_error", "TWIN_LIB_DIR_ENV", "EXT_DIR_ENV"]

TWIN_LIB_DIR_ENV = "ASCEND_DCN_TWIN_LIB_DIR"
EXT_DIR_ENV = "ASCEND_DCN_EXT_DIR"
OPAPI_LIB = "libcust_opapi.so"
RUNTIME_LIB = "libnnopbase.so"

_lock = threading.Lock()
_twin_opapi = None


class BackendUnavailableError(RuntimeError):
    """A native component (extension, twin libraries, NPU runtime) is missing; the message says how to fix it."""


def _package_dir():
    return os.path.dirname(os.path.abspath(__file__))


def load_extension():
    """Return the ``ascend_dcn._C`` module (installed, or built in a CMake build directory)."""
    if "ascend_dcn._C" in sys.modules:
        return sys.modules["ascend_dcn._C"]
    try:
        return importlib.import_module("ascend_dcn._C")
    except ImportError as first_error:
        searched = []
        for env in (EXT_DIR_ENV, TWIN_LIB_DIR_ENV):
            d = os.environ.get(env)
            if not d:
                continue
            searched.append(f"${env}={d}")
            found = sorted(glob.glob(os.path.join(d, "_C*.so"))) + \
                sorted(glob.glob(os.path.join(d, "ascend_dcn_ext", "_C*.so")))
            for path in found:
                spec = importlib.util.spec_from_file_location("ascend_dcn._C", path)
                module = importlib.util.module_from_spec(spec)
                sys.modules["ascend_dcn._C"] = module
                try:
                    spec.loader.exec_module(module)
                except Exception:
                    del sys.modules["ascend_dcn._C"]
                    raise
                return module
        where = ", ".join(searched) if searched else f"${EXT_DIR_ENV} / ${TWIN_LIB_DIR_ENV} not set"
        raise BackendUnavailableError(
            "the native extension ascend_dcn._C is not available "
            f"({first_error}; searched {where}). Install the package with "
            "`pip install --no-build-isolation .`, or build with "
            "`cmake -S . -B build -G Ninja -DASCEND_DCN_TWIN=ON -DASCEND_DCN_PYTHON=ON && cmake --build build` "
            f"and set {EXT_DIR_ENV}=build/ascend_dcn_ext") from first_error


def _first_file(paths):
    return next((p for p in paths if os.path.isfile(p)), None)


def _installed_twin_lib_dirs():
    """``twin_lib/`` beside the Python sources (wheel install) and beside the ``_C`` extension. In an
    editable install (``pip install -e .``) the sources stay in the checkout while scikit-build-core
    installs ``_C`` and ``twin_lib/`` into site-packages: the extension's directory finds them."""
    dirs = [os.path.join(_package_dir(), "twin_lib")]
    try:
        spec = importlib.util.find_spec("ascend_dcn._C")
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.origin:
        ext_dir = os.path.join(os.path.dirname(os.path.abspath(spec.origin)), "twin_lib")
        if ext_dir not in dirs:
            dirs.append(ext_dir)
    return dirs


def twin_library_paths():
    """Return ``(opapi_path, [runtime_path])`` of the CPU twin's libraries.

    ``$ASCEND_DCN_TWIN_LIB_DIR`` may be a directory holding both libraries (an install) or a CMake
    build directory (``dcn_opapi/libcust_opapi.so`` and ``twin/libnnopbase.so`` under it)."""
    env_dir = os.environ.get(TWIN_LIB_DIR_ENV)
    candidates = [env_dir] if env_dir else _installed_twin_lib_dirs()
    for d in candidates:
        opapi = _first_file([os.path.join(d, OPAPI_LIB), os.path.join(d, "dcn_opapi", OPAPI_LIB)])
        runtime = _first_file([os.path.join(d, RUNTIME_LIB), os.path.join(d, "twin", RUNTIME_LIB)] +
                              sorted(glob.glob(os.path.join(d, "**", RUNTIME_LIB), recursive=True)))
        if opapi and runtime:
            return opapi, [runtime]
    source = f"${TWIN_LIB_DIR_ENV}={env_dir}" if env_dir else " or ".join(candidates)
    raise BackendUnavailableError(
        f"the CPU twin's {OPAPI_LIB} and {RUNTIME_LIB} were not found in {source}. Install the package "
        "with `pip install .` or `pip install -e .` (puts them in ascend_dcn/twin_lib/), or point "
        f"{TWIN_LIB_DIR_ENV} at the directory of a twin build that contains both libraries")


def select_twin_blas():
    """Point the twin's Matmul stand-in at a real BLAS (``TWIN_BLAS_LIB``), unless already set.

    The twin computes every cube tile with one single-threaded ``sgemm`` call of the tile's shape
    (tiles are fixed by the problem shape, so results never depend on the core count). Preferred:
    scipy-openblas32's own library (installed by scripts/setup_env.sh, so numpy's BLAS threading is
    untouched); fallback: numpy's bundled OpenBLAS; none found -> the twin's fixed-order C++ GEMM.
    Set ``TWIN_BLAS_LIB=`` (empty) to force the C++ GEMM."""
    if "TWIN_BLAS_LIB" in os.environ:
        return os.environ["TWIN_BLAS_LIB"] or None
    found = None
    try:
        import scipy_openblas32
        found = _first_file(sorted(glob.glob(os.path.join(scipy_openblas32.get_lib_dir(), "libscipy_openblas*.so*"))))
    except ImportError:
        pass
    if found is None:
        spec = importlib.util.find_spec("numpy")
        if spec is not None and spec.origin:
            libs = os.path.join(os.path.dirname(os.path.dirname(spec.origin)), "numpy.libs")
            found = _first_file(sorted(glob.glob(os.path.join(libs, "libscipy_openblas*.so*"))))
    if found is not None:
        os.environ["TWIN_BLAS_LIB"] = found
    return found


def get_twin_opapi():
    """The process-wide ``_C.OpApi`` bound to the CPU twin (created on first use)."""
    global _twin_opapi
    with _lock:
        if _twin_opapi is None:
            select_twin_blas()
            ext = load_extension()
            opapi, runtime = twin_library_paths()
            _twin_opapi = ext.OpApi(opapi, runtime)
        return _twin_opapi


_twin_threads_applied = None


def twin_apply_thread_budget():
    """Run the twin's virtual cores on at most ``$TWIN_THREADS`` OS threads, else on torch's intra-op
    thread count (``torch.set_num_threads``); applied before each CPU launch, re-sent only on change."""
    global _twin_threads_applied
    env = os.environ.get("TWIN_THREADS", "").strip()
    import torch
    threads = int(env) if env.isdigit() and int(env) > 0 else max(1, torch.get_num_threads())
    if threads == _twin_threads_applied:
        return threads
    import ctypes
    _, runtime = twin_library_paths()
    fn = getattr(ctypes.CDLL(runtime[0]), "twinSetThreads", None)
    if fn is not None:   # older twin runtimes have no thread budget
        fn.argtypes = [ctypes.c_uint32]
        fn(threads)
    _twin_threads_applied = threads
    return threads


def twin_set_platform(soc="Ascend910B2", aiv_cores=0):
    """Select the twin's SoC preset and optional vector-core count (0 = the preset's)."""
    get_twin_opapi().twin_set_platform(soc, int(aiv_cores))


_MESSAGE_RE = re.compile(r"^(?P<argument>[A-Za-z]+): (?P<rule>.*); expected (?P<expected>.*), got (?P<actual>.*)$",
                         re.S)


def translate_error(exc):
    """Convert an ``_C.AclnnCallError`` into an ``AclnnError`` subclass (returned, not raised)."""
    status = int(getattr(exc, "status", 0))
    message = str(getattr(exc, "message", "") or "")
    argument = str(getattr(exc, "argument", "") or "")
    match = None
    for line in message.splitlines() or [message]:
        match = _MESSAGE_RE.match(line.strip())
        if match:
            break
    if match:
        err = error_for_status(status, argument or match["argument"], match["rule"], match["expected"],
                               match["actual"])
    else:
        api = str(getattr(exc, "api", "aclnn"))
        err = error_for_status(status, argument or api, message or "call failed", "status 0", f"status {status}")
    err.api = getattr(exc, "api", None)
    err.native_message = message
    return err


def is_call_error(exc):
    ext = sys.modules.get("ascend_dcn._C")
    return ext is not None and isinstance(exc, getattr(ext, "AclnnCallError", ())) and \
        not isinstance(exc, AclnnError)
