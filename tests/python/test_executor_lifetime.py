"""Lifetimes held by the objects that need them (issue 18 point 1), on the CPU twin.

The Executor returned by ops.get_workspace_size keeps every tensor it describes alive until it has
run or is dropped: temporary inputs and outputs passed to phase 1 must survive until phase 2 writes
them (before the fix, phase 2 wrote into freed memory: ASan heap-use-after-free in the kernel's
write-out, SIGSEGV in Release, silently wrong results with temporary inputs). After phase 2, or
when an unexecuted executor is dropped, the references go.
"""
import gc
import weakref

import pytest
import torch

from ascend_dcn import ops, reference

from test_aclnn_entry import DOC_EXAMPLE, make_case


@pytest.fixture(scope="module")
def twin():
    from ascend_dcn import _backend
    try:
        return _backend.get_twin_opapi()
    except _backend.BackendUnavailableError as e:
        pytest.skip(f"CPU twin not available: {e}")


def _attr_args(attrs):
    return (attrs["kernel_size"], attrs["stride"], attrs["padding"], attrs["dilation"], attrs["groups"],
            attrs["deformable_groups"], attrs["modulated"])


def _phase1_with_temporaries(inputs, attrs):
    """Phase 1 with copies of the inputs and fresh outputs that only the executor can keep alive;
    returns (size, executor, weak references to all nine tensors, the data pointers of the outputs)."""
    x, go, d, w, off = (t.clone() for t in inputs)
    outs = (torch.empty_like(x), torch.empty_like(w), torch.empty_like(off), torch.empty(w.shape[0], dtype=go.dtype))
    refs = [weakref.ref(t) for t in (x, go, d, w, off) + outs]
    size, executor = ops.get_workspace_size(x, go, d, w, off, *_attr_args(attrs), *outs)
    return size, executor, refs


def test_executor_keeps_temporary_tensors_alive_until_it_runs(twin):
    inputs, attrs = make_case(torch.float32, True, cfg=DOC_EXAMPLE)
    size, executor, refs = _phase1_with_temporaries(inputs, attrs)
    gc.collect()
    assert all(r() is not None for r in refs), "the executor must hold the tensors it describes"
    assert executor.holds_references
    outputs = [r() for r in refs[5:]]
    # churn the allocator: without the references these blocks would be reused here
    junk = [torch.full_like(t, 7.0) for t in outputs for _ in range(4)]
    del junk
    workspace = torch.empty(int(size), dtype=torch.uint8) if size else None
    ops.execute(workspace, size, executor)
    assert not executor.holds_references
    gold = reference.deformable_conv2d_backward(*(t.double() for t in inputs), **attrs)
    fused = ops.deformable_conv2d_backward(*inputs, **attrs)
    for got, want, ref in zip(outputs, fused, gold):
        assert torch.equal(got, want), "two-phase with temporaries must equal the fused call bitwise"
        assert got.shape == ref.shape
    del outputs, got, want
    gc.collect()
    assert all(r() is None for r in refs), "after phase 2 the executor lets the tensors go"


def test_dropping_an_unexecuted_executor_releases_the_tensors(twin):
    inputs, attrs = make_case(torch.float32, True, cfg=DOC_EXAMPLE)
    _, executor, refs = _phase1_with_temporaries(inputs, attrs)
    assert all(r() is not None for r in refs)
    executor_ref = weakref.ref(executor) if hasattr(type(executor), "__weakref__") else None
    del executor
    gc.collect()
    assert all(r() is None for r in refs), "a dropped executor must not keep tensors alive"
    if executor_ref is not None:
        assert executor_ref() is None


def test_many_unexecuted_executors_do_not_accumulate_tensors(twin):
    inputs, attrs = make_case(torch.float32, True, cfg=DOC_EXAMPLE)
    refs = []
    for _ in range(50):
        _, executor, r = _phase1_with_temporaries(inputs, attrs)
        refs += r
        del executor
    gc.collect()
    assert sum(r() is not None for r in refs) == 0


def test_release_capability_is_reported(twin):
    # CANN exports aclSetAclOpExecutorRepeatable + aclDestroyAclOpExecutor and the binding uses them
    # to free executors that never run; the twin's runtime decides whether it has them.
    assert isinstance(twin.can_release_executors, bool)
