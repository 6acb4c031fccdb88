"""Shared setup of the Ascend-host tests (tests/npu/): the skip rule, the device and helpers.

Every module carries ``pytestmark = pytest.mark.npu`` (the marker is registered in pyproject.toml)
and calls ``require_npu()`` at import: off an Ascend host the whole module is skipped with
SKIP_REASON (+ the specific problem found by ascend_dcn.npu). On a host, require_npu builds (first
time) and loads the torch_npu extension, bound to the installed package. On a host, the installed vendor
package is located as ascend_dcn.npu documents (ASCEND_CUSTOM_OPP_PATH after sourcing
<dir>/vendors/ascend_dcn/bin/set_env.bash, or $ASCEND_OPP_PATH/vendors).
"""
import os
import sys
from pathlib import Path

import pytest

SKIP_REASON = "requires an Ascend NPU with torch_npu and the installed ascend_dcn vendor package"

try:
    import ascend_dcn  # noqa: F401
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))


def require_npu():
    """Skips the calling module unless the NPU backend loads; returns the torch device string."""
    try:
        from ascend_dcn import npu
        npu.get_extension()
    except Exception as exc:  # NpuBackendError or ImportError: either way not an Ascend host
        pytest.skip(f"{SKIP_REASON} ({exc})", allow_module_level=True)
    device_index = int(os.environ.get("ASCEND_DCN_TEST_DEVICE", "0"))
    return f"npu:{device_index}"


def full_suite_enabled():
    """ASCEND_DCN_NPU_FULL_SUITE=1 runs the full-size benchmark rows (landscape.md §5)."""
    return os.environ.get("ASCEND_DCN_NPU_FULL_SUITE", "0") == "1"


def to_device(inputs, device, dtype):
    """Golden-case inputs (float64 CPU tensors) -> device tensors of ``dtype``."""
    import torch  # noqa: F401
    return {k: v.to(device=device, dtype=dtype) for k, v in inputs.items()}
