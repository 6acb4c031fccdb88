"""Thread budget of the CPU backend: the twin's virtual cores (72 on the default Ascend910B2) run on at
most torch's intra-op thread count of OS threads (or $TWIN_THREADS). Measured in a fresh interpreter
(the core-thread pool persists within a process) by counting /proc/self/task around one backward."""
import os
import subprocess
import sys

import pytest

SCRIPT = r"""
import os, sys, torch
from ascend_dcn import ops, reference
torch.set_num_threads(int(sys.argv[1]))
def tasks():
    return len(os.listdir("/proc/self/task"))
g = torch.Generator().manual_seed(3)
x = torch.randn(1, 16, 8, 8, generator=g)
w = torch.randn(16, 16, 3, 3, generator=g)
off = torch.randn(1, 27, 8, 8, generator=g)
go = torch.randn(1, 16, 8, 8, generator=g)
k, s, p, d = [3, 3], [1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1]
oo = reference.deform_sample(x, off, k, s, p, d, 1, True).to(x.dtype)
before = tasks()
ops.deformable_conv2d_backward(x, go, oo, w, off, k, s, p, d, 1, 1, True)
print(before, tasks())
"""


def _twin_or_skip():
    try:
        from ascend_dcn import _backend
        _backend.get_twin_opapi()
    except Exception as e:  # noqa: BLE001 - any failure means the backend is not built here
        pytest.skip(f"twin operator libraries unavailable ({type(e).__name__}: {e}); build with "
                    "`pip install --no-build-isolation .` or set ASCEND_DCN_TWIN_LIB_DIR")


def _thread_growth(torch_threads, twin_threads=None):
    env = dict(os.environ)
    env.pop("TWIN_THREADS", None)
    if twin_threads is not None:
        env["TWIN_THREADS"] = str(twin_threads)
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(torch_threads)], env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    before, after = (int(v) for v in out.stdout.split()[-2:])
    return after - before


def test_one_torch_thread_adds_at_most_a_handful_of_os_threads():
    _twin_or_skip()
    assert _thread_growth(1) <= 4


def test_twin_threads_env_overrides_torch():
    _twin_or_skip()
    assert _thread_growth(1, twin_threads=12) >= 12    # the budget, not torch, sets the pool size
