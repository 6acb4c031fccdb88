"""The benchmark suite (ascend_dcn.suite, the one table of it) as GoldenCase rows, full size.

Used by tests/npu only when ASCEND_DCN_NPU_FULL_SUITE=1 (the float64 CPU reference of the
largest rows takes minutes and several GiB). Every row: 3x3 kernel, padding 1, dilation 1, modulated.
"""
import re

from ascend_dcn import suite
from ascend_dcn.golden_cases import GoldenCase


def _case_id(row):
    """'r1' + label 'R50 c3 entry s2' -> 'r1_r50_c3_entry_s2'."""
    return f"{row.key}_" + re.sub(r"[^a-z0-9]+", "_", row.label.lower()).strip("_")


FULL_SUITE = {
    _case_id(r): GoldenCase(r.n, r.cin, r.cout, r.h, r.w, stride=(1, 1, r.stride, r.stride), groups=r.groups,
                            deformable_groups=r.dg, note=r.source)
    for r in suite.SUITE
}
