"""Smoke tests of the benchmark tools (scripts/bench*.py): suite scaling, the plain-PyTorch peer
against the float64 reference, and (when the twin is built) one tiny bench run. The performance
model (scripts/perf_model.py) is tested in test_perf_model.py.
Kept small: the whole file runs in well under 30 s on 2 cores; the real benchmark is never run here."""

import pytest
import torch


import bench  # noqa: E402
import bench_cases  # noqa: E402
import bench_torch_dcn  # noqa: E402
from ascend_dcn import reference  # noqa: E402


def _twin_or_skip():
    try:
        from ascend_dcn import _backend
        _backend.get_twin_opapi()
    except Exception as e:  # noqa: BLE001 - any failure means the backend is not built here
        pytest.skip(f"twin operator libraries unavailable ({type(e).__name__}: {e}); build with "
                    "`pip install --no-build-isolation .` or set ASCEND_DCN_TWIN_LIB_DIR")


# ---- suite and scaling

def test_scale_one_is_the_suite_table():
    from ascend_dcn import suite
    c = bench_cases.suite_case(1, 1)
    assert (c.n, c.cin, c.cout, c.h, c.w, c.stride) == (2, 128, 128, 200, 336, (2, 2))
    assert c.out_hw == (100, 168)  # row 1's output size
    assert len(bench_cases.SUITE) == len(suite.SUITE) == 12
    for i, r in enumerate(suite.SUITE, 1):     # one table: the scaled cases come from ascend_dcn.suite
        c = bench_cases.suite_case(i, 1)
        assert (c.n, c.cin, c.cout, c.h, c.w, c.stride[0], c.groups, c.dg) == \
            (r.n, r.cin, r.cout, r.h, r.w, r.stride, r.groups, r.dg)
    assert bench_cases.suite_case(6, 1).groups == 32 and bench_cases.suite_case(11, 1).dg == 16


@pytest.mark.parametrize("row", range(1, 13))
@pytest.mark.parametrize("scale", [4, 16, 64])
def test_scaling_divides_pixels_and_keeps_channels(row, scale):
    full, small = bench_cases.suite_case(row, 1), bench_cases.suite_case(row, scale)
    assert (small.cin, small.cout, small.groups, small.dg, small.stride) == \
        (full.cin, full.cout, full.groups, full.dg, full.stride)
    ratio = (full.n * full.h * full.w) / (small.n * small.h * small.w)
    floor_hit = small.h == bench_cases.MIN_HW or small.w == bench_cases.MIN_HW
    assert ratio <= scale * 1.2 and (ratio >= scale / 1.2 or floor_hit)
    assert small.n >= 1 and min(small.h, small.w) >= min(bench_cases.MIN_HW, full.h)


def test_bad_rows_and_scale_are_named():
    assert bench_cases.parse_rows("1,3,5-7") == [1, 3, 5, 6, 7]
    with pytest.raises(ValueError, match="rows"):
        bench_cases.parse_rows("0")
    with pytest.raises(ValueError, match="rows"):
        bench_cases.parse_rows("a")
    with pytest.raises(ValueError, match="scale"):
        bench_cases.suite_case(1, 0)
    with pytest.raises(SystemExit):
        bench.parse_args(["--sides", "torch"])  # ours or ours-lean is required


def test_io_bytes_and_flops_formulas():
    c = bench_cases.Case("t", 2, 8, 6, 5, 7, groups=2, dg=1)
    ho, wo = c.out_hw
    inp = bench_cases.make_inputs(c, "float32")
    rd, wr = bench_cases.input_bytes(c, 4)
    assert rd == 4 * sum(t.numel() for t in inp.values())
    assert wr == 4 * (inp["input"].numel() + inp["weight"].numel() + inp["offset"].numel() + c.cout)
    # each product: Cout outputs x (Cin/g * K) MACs per output pixel, 2 FLOPs per MAC
    assert bench_cases.gemm_flops(c) == 2 * (2 * c.n * ho * wo * c.cout * (c.cin // c.groups) * c.k)


# ---- the plain PyTorch peer computes the contract's gradients

@pytest.mark.parametrize("groups,dg,modulated", [(1, 1, True), (2, 2, True), (1, 2, False)])
def test_plain_torch_peer_matches_reference(groups, dg, modulated):
    c = bench_cases.Case("t", 2, 4, 6, 6, 5, stride=(2, 1), padding=(1, 0, 2, 1), groups=groups, dg=dg,
                         modulated=modulated)
    inp = bench_cases.make_inputs(c, "float64", seed=3)
    runner = bench_torch_dcn.Runner(inp, c.attrs)
    runner.prepare()
    ours = runner.run()
    a = c.attrs
    ref = reference.deformable_conv2d_backward(inp["input"], inp["grad_output"], inp["offset_out"], inp["weight"],
                                               inp["offset"], a["kernel_size"], a["stride"], a["padding"],
                                               a["dilation"], groups, dg, modulated)
    for got, want in zip(ours, ref):
        torch.testing.assert_close(got, want, rtol=1e-9, atol=1e-9)


# ---- with the twin: one tiny bench run and one counter read

def test_render_ratios_and_spreads_from_unrounded_medians():
    """Ratios are computed from the measured medians (not from the rounded table cells), and every
    time cell shows median (min–max): checked on synthetic results, so no timing noise enters."""
    import argparse
    case = bench_cases.suite_case(10, 64)
    res = {"ours": {"time": {p: (1.0, 2.04, 9.0) for p in bench.PHASES}, "fwd_mib": 3.0, "step_mib": 6.0,
                    "err": 1e-6, "pass": True},
           "ours-lean": {"time": {p: (1.0, 1.02, 3.0) for p in bench.PHASES}, "fwd_mib": 1.0, "step_mib": 5.0,
                         "err": 1e-6, "pass": True},
           "torch": {"time": {p: (2.0, 3.0, 4.0) for p in bench.PHASES}, "fwd_mib": 2.0, "step_mib": 4.0,
                     "err": 2e-6, "pass": True}}
    args = argparse.Namespace(scale=64, dtype="float32", repeats=5, twin_aiv=0, twin_hazard=False)
    text = bench.render([(10, case, res)], ["ours", "ours-lean", "torch"], args, "cmd", "facts", {})
    assert "twin hazard checker off (TWIN_HAZARD=0)" in text
    fwd = text.split("**Forward time**")[1].split("**Backward time**")[0]
    row = [line for line in fwd.splitlines() if line.startswith("| 10 r10")][0]
    cells = [x.strip() for x in row.strip("|").split("|")]
    assert cells[2:5] == ["2.0 (1.0–9.0)", "1.0 (1.0–3.0)", "3.0 (2.0–4.0)"]
    assert cells[5:7] == ["0.68", "0.34"]                         # 2.04 / 3.0, 1.02 / 3.0
    mem = [line for line in text.split("**Peak memory growth**")[1].splitlines() if line.startswith("| 10 |")][0]
    assert "1.50 / 1.50" in mem and "0.50 / 1.25" in mem         # ours/torch, ours-lean/torch


def test_bench_harness_one_tiny_shape(tmp_path, capsys):
    """One real run: every phase and side is measured, the gradients pass the fp32 standard, the
    doc block is written. No timing value is asserted (the machine is shared)."""
    _twin_or_skip()
    doc = tmp_path / "performance.md"
    rc = bench.main(["--scale", "64", "--rows", "10", "--repeats", "2", "--sides", "ours,ours-lean",
                     "--write-doc", str(doc)])
    out = capsys.readouterr().out
    assert rc == 0, out
    for title in ("**Forward time**", "**Backward time**", "**Training step time"):
        block = out.split(title)[1]
        row = [line for line in block.splitlines() if line.startswith("| 10 r10")][0]
        cells = [x.strip() for x in row.strip("|").split("|")]
        for cell in cells[2:4]:
            med, lo, hi = (float(v) for v in cell.replace("(", " ").replace(")", " ").replace("–", " ").split())
            assert 0 < lo <= med <= hi
    err_row = [line for line in out.splitlines() if line.startswith("| 10 |") and "e-" in line]
    assert err_row and err_row[0].count("PASS") == 2, out     # both modes meet the fp32 standard
    assert bench.DOC_BEGIN in doc.read_text()
