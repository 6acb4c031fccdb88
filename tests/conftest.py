"""Root pytest setup: the ``npu`` marker (registered in pyproject.toml).

A test marked ``@pytest.mark.npu`` runs only where the NPU backend loads (an Ascend host with
torch_npu, CANN and the installed vendor package, see ascend_dcn.npu); elsewhere it is skipped
with the reason "requires an Ascend NPU ..." and what ascend_dcn.npu found missing. The check runs
once per session, and only when a collected test carries the marker.
"""
import pytest

NPU_SKIP_REASON = "requires an Ascend NPU with torch_npu and the installed ascend_dcn vendor package"
_npu_problem = []


def npu_unavailable_reason():
    """None when the NPU backend loads; else the skip reason (cached for the session)."""
    if not _npu_problem:
        try:
            from ascend_dcn import npu
            (npu.get_extension if hasattr(npu, "get_extension") else npu.get_opapi)()
            _npu_problem.append(None)
        except Exception as exc:  # noqa: BLE001 - any failure means: not an Ascend host
            _npu_problem.append(f"{NPU_SKIP_REASON} ({type(exc).__name__}: {exc})")
    return _npu_problem[0]


def pytest_collection_modifyitems(config, items):
    marked = [item for item in items if item.get_closest_marker("npu") is not None]
    if not marked:
        return
    reason = npu_unavailable_reason()
    if reason is not None:
        for item in marked:
            item.add_marker(pytest.mark.skip(reason=reason))
