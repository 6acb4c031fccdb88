"""Fork safety of the CPU backend: a process that ran a backward on the twin (its persistent core
threads exist) forks a child with multiprocessing's "fork" start method; the child's backward must
finish and match the parent's bitwise. A timeout guard kills a hung child so this test can never hang CI."""
import multiprocessing as mp
import queue as queue_mod

import pytest
import torch

from ascend_dcn import ops, reference

CHILD_TIMEOUT_S = 120


def _twin_or_skip():
    try:
        from ascend_dcn import _backend
        _backend.get_twin_opapi()
    except Exception as e:  # noqa: BLE001 - any failure means the backend is not built here
        pytest.skip(f"twin operator libraries unavailable ({type(e).__name__}: {e}); build with "
                    "`pip install --no-build-isolation .` or set ASCEND_DCN_TWIN_LIB_DIR")


def _backward():
    g = torch.Generator().manual_seed(7)
    n, cin, cout, h, w, k = 1, 8, 8, 6, 6, 3
    x = torch.randn(n, cin, h, w, generator=g)
    weight = torch.randn(cout, cin, k, k, generator=g)
    offset = torch.randn(n, 3 * k * k, h, w, generator=g) * 0.5
    grad_out = torch.randn(n, cout, h, w, generator=g)
    attrs = dict(kernel_size=[k, k], stride=[1, 1, 1, 1], padding=[1, 1, 1, 1], dilation=[1, 1, 1, 1])
    offset_out = reference.deform_sample(x, offset, attrs["kernel_size"], attrs["stride"], attrs["padding"],
                                         attrs["dilation"], 1, True).to(x.dtype)
    return ops.deformable_conv2d_backward(x, grad_out, offset_out, weight, offset, attrs["kernel_size"], attrs["stride"],
                                          attrs["padding"], attrs["dilation"], 1, 1, True)


def _child(queue):
    try:
        queue.put(("ok", [t.tolist() for t in _backward()]))   # plain lists: no tensor sharing across processes
    except Exception as e:  # noqa: BLE001 - reported to the parent
        queue.put(("error", f"{type(e).__name__}: {e}"))


def test_child_forked_after_twin_use_runs_a_backward():
    _twin_or_skip()
    want = _backward()                      # the twin's core threads now exist in this process
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_child, args=(queue,))
    child.start()
    try:
        status, got = queue.get(timeout=CHILD_TIMEOUT_S)
    except queue_mod.Empty:
        status, got = "timeout (hung or died)", None
    child.join(timeout=10)
    if child.is_alive():
        child.kill()
        child.join()
    assert status == "ok", f"forked child: {status} {got if got is not None else ''}"
    for a, b in zip(want, got):
        assert torch.equal(a, torch.tensor(b, dtype=a.dtype))
    assert all(torch.equal(a, b) for a, b in zip(want, _backward()))   # the parent still works
