"""The benchmark suite: twelve realistic deformable-convolution layers, defined here once.

Every tool that needs the suite takes it from this table: scripts/bench_cases.py (CPU benchmark and
NPU performance model, scaled down with ``--scale``), scripts/memory_report.py (full size), the NPU
tests' full-size rows. All rows: 3x3 kernel, padding 1, dilation 1, modulated (DCNv2), float32.

Columns: key, label, N, Cin, Cout, H, W, stride, groups, deformable groups, where the layer comes from.
Plain data (no torch import), so that it can also be loaded by file path from an environment where
the package is not installed (the torchvision benchmark venv).
"""
from typing import NamedTuple


class SuiteRow(NamedTuple):
    key: str
    label: str
    n: int
    cin: int
    cout: int
    h: int
    w: int
    stride: int
    groups: int
    dg: int
    source: str


SUITE = (
    SuiteRow("r1", "R50 c3 entry s2", 2, 128, 128, 200, 336, 2, 1, 1, "mmdet R50-DCN, stage-3 entry (stride 2)"),
    SuiteRow("r2", "R50 c3 body", 2, 128, 128, 100, 168, 1, 1, 1, "mmdet R50-DCN, stage-3 body"),
    SuiteRow("r3", "R50 c4 body", 2, 256, 256, 50, 84, 1, 1, 1, "mmdet R50-DCN, stage-4 body"),
    SuiteRow("r4", "R50 c5 body", 2, 512, 512, 25, 42, 1, 1, 1, "mmdet R50-DCN, stage-5 body"),
    SuiteRow("r5", "R50 c4 dg4", 2, 256, 256, 50, 84, 1, 1, 4, "R50 modulated DCN, deform_groups=4"),
    SuiteRow("r6", "X101 c4 g32", 2, 512, 512, 50, 84, 1, 32, 1, "ResNeXt-101 32x4d, stage 4 (groups=32)"),
    SuiteRow("r7", "CenterNet up1", 32, 512, 256, 16, 16, 1, 1, 1, "CenterNet R18-DCN, up-path #1"),
    SuiteRow("r8", "CenterNet up3", 32, 128, 64, 64, 64, 1, 1, 1, "CenterNet R18-DCN, up-path #3"),
    SuiteRow("r9", "EDVR L1 dg8", 8, 64, 64, 64, 64, 1, 1, 8, "EDVR PCD alignment, level 1"),
    SuiteRow("r10", "EDVR L3 dg8", 8, 64, 64, 16, 16, 1, 1, 8, "EDVR PCD alignment, level 3"),
    SuiteRow("r11", "BasicVSR++ dg16", 8, 128, 64, 64, 64, 1, 1, 16, "BasicVSR++ second-order alignment"),
    SuiteRow("r12", "PP-YOLO c5", 8, 512, 512, 19, 19, 1, 1, 1, "PP-YOLO R50vd-DCN, stage 5"),
)


def row(index: int) -> SuiteRow:
    """Row ``index`` (1-based, as in every table of the project)."""
    if not 1 <= index <= len(SUITE):
        raise ValueError(f"row: must be in 1..{len(SUITE)}; got {index}")
    return SUITE[index - 1]
