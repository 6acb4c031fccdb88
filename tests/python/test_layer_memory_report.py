"""scripts/memory_report.py: the fake-tensor measurement equals a real-tensor measurement and the
formula, and the memory-saving mode drops exactly deformOut's bytes on a benchmark-suite shape."""
import importlib.util
import os

import torch

_SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "memory_report.py")


def _load():
    spec = importlib.util.spec_from_file_location("memory_report", _SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cross_check_real_vs_fake_vs_formula():
    mr = _load()
    mr.cross_check(torch.float32)
    mr.cross_check(torch.bfloat16)


def test_suite_row_saving_is_deform_out():
    mr = _load()
    row = mr.SUITE[2]                     # R50-DCN c4 body, full size, fake tensors
    std = mr.measure_saved_bytes(row, torch.float32, True)
    low = mr.measure_saved_bytes(row, torch.float32, False)
    assert std - low == row.N * row.Cin * 9 * row.H * row.W * 4      # stride 1, padding 1: Ho=H, Wo=W
    assert round((std - low) / 2 ** 20, 1) == 73.8                   # landscape.md §5: 74 MiB
