"""Stage 2's int16 sample keys on images too large for absolute ones (op_kernel/dcn_stage2_sample.h relKeys_).

A sample point's key (y0 + 1)*(W + 2) + x0 + 1 tells the scalar unit its corner pixels; blocks of <= 8 channels read
four keys per 64-bit scalar access as int16. Where (H + 1)*(W + 2) exceeds 32767 the int16 holds the key relative to
the tile's reference row, clamped to [-1, 32767]; either end makes the scalar unit read the point's fp32 key instead
(outside the image, or sampled beyond the rows the int16 spans). These cases have such images and 8-channel blocks,
without and with shared sampling fronts (whose records carry the int16 keys), and offsets small (every point in
range) and large (many outside the image or the int16's rows): all four gradients must meet the precision standard
against the float64 reference.
"""
import pytest

from ascend_dcn.precision import check_precision
from test_kernel_common import Case, make_inputs, require_twin, run_reference, run_twin, shared_fronts, stage2_split

INT16_KEYS = 32767  # kQuadKeyLimit: the largest key an int16 holds

# (case, dtype, the tiling shares the sampling fronts)
CASES = [
    (Case("rel_keys", 1, 16, 8, 190, 190, dg=2), "float32", False),
    (Case("rel_keys_large", 1, 16, 8, 190, 190, dg=2, offset_kind="large"), "float16", False),
    (Case("rel_keys_records", 1, 128, 16, 182, 182, stride=(2, 2)), "float16", True),
    (Case("rel_keys_records_large", 1, 128, 16, 182, 182, stride=(2, 2), offset_kind="large"), "float16", True),
]
NAMES = ("grad_input", "grad_weight", "grad_offset", "grad_bias")


@pytest.mark.parametrize("case,dtype,records", CASES, ids=[c[0].name + "-" + c[1] for c in CASES])
def test_cases_take_relative_keys(case, dtype, records):
    # the kernel's condition: 8-channel blocks and keys beyond the int16 (by the host plan's Python mirror)
    assert (case.h + 1) * (case.w + 2) > INT16_KEYS
    assert stage2_split(case, dtype)["block_c"] == 8
    assert (shared_fronts(case, dtype)[0] > 0) == records


@pytest.mark.parametrize("case,dtype,records", CASES, ids=[c[0].name + "-" + c[1] for c in CASES])
def test_relative_keys_match_reference(case, dtype, records):
    require_twin()
    inputs = make_inputs(case, dtype)
    got = run_twin(case, inputs)
    want = run_reference(case, {k: v.double() for k, v in inputs.items()})
    for name, g, r in zip(NAMES, got, want):
        res = check_precision(g, r, dtype)
        assert res.passed, f"{case.name} {dtype} {name}: {res}"
