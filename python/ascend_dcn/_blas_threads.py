"""Run a BLAS call on the calling thread only, without touching any process-wide setting.

torch.set_num_threads is process-wide: changing it around a GEMM would change the thread count seen
by every other thread of the user's process. MKL (the BLAS of torch's x86 wheels, linked into
libtorch_cpu) has a per-thread setting, MKL_Set_Num_Threads_Local (C interface, by value; 0 = use
the global setting), which overrides the global one for the calling thread only. `serial_blas()`
sets it to 1 for the block and restores the previous per-thread value afterwards.

Where torch's BLAS is not MKL (e.g. OpenBLAS on aarch64) or the symbol is not exported, there is no
per-thread control: the block runs unchanged, with torch's own thread count (never a global change).
"""
from __future__ import annotations

import contextlib
import ctypes
import os
from typing import Optional

import torch

_UNSET = object()
_set_local = _UNSET   # the resolved MKL_Set_Num_Threads_Local, or None when unavailable


def _mkl_set_local() -> Optional[ctypes._CFuncPtr]:
    """MKL_Set_Num_Threads_Local of torch's own MKL, or None (not MKL / not exported)."""
    global _set_local
    if _set_local is _UNSET:
        _set_local = None
        if torch.backends.mkl.is_available():
            path = os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cpu.so")
            try:
                fn = getattr(ctypes.CDLL(path), "MKL_Set_Num_Threads_Local")
            except (OSError, AttributeError):
                fn = None
            if fn is not None:
                fn.restype = ctypes.c_int
                fn.argtypes = [ctypes.c_int]
                _set_local = fn
    return _set_local


def has_thread_local_blas() -> bool:
    """True when serial_blas() can make torch's BLAS calls single-threaded for the calling thread."""
    return _mkl_set_local() is not None


@contextlib.contextmanager
def serial_blas():
    """BLAS calls made by this thread inside the block use one thread (MKL's per-thread setting);
    no other thread and no process-wide setting is affected. A no-op without per-thread control."""
    fn = _mkl_set_local()
    if fn is None:
        yield
        return
    previous = fn(1)
    try:
        yield
    finally:
        fn(previous)
