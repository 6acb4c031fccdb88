"""scripts/perf_model.py: the model's arithmetic on a synthetic measurement (pipe terms x constants,
per-stage slowest core, serial vs overlapped bound vs the twin's timeline, the HBM floor, sensitivity
scaling through the timeline variants, the bounds check, rendering), and, with the twin, one real
launch whose per-core per-stage cycles and timelines are read back and checked."""
import json
import math
import os
import sys

import pytest

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts")
sys.path.insert(0, SCRIPTS)

import bench_cases  # noqa: E402
import perf_model  # noqa: E402

UNIT_CHIP = perf_model.Chip("unit", aic=1, aiv=2, freq_hz=1e9, hbm_bytes_per_s=1e12,
                            cube_macs_per_cycle={"float32": 1000, "float16": 4000, "bfloat16": 4000})
TERMS = [{"pipe": "V", "counter": "vecCycles", "constant": None},
         {"pipe": "MTE2", "counter": "gmToUbCopies", "constant": "dma_transfer_cycles"},
         {"pipe": "MTE2", "counter": "gmToUbBytes", "constant": "gm_read_cycles_per_byte"},
         {"pipe": "M", "counter": "cubeCycles", "constant": None}]
CONSTANTS = {"dma_transfer_cycles": {"value": 100.0, "assumed": True, "unit": "cycles", "source": "test"},
             "gm_read_cycles_per_byte": {"value": 0.5, "assumed": True, "unit": "cycles/B", "source": "test"}}


VARIANTS = [[None, 1.0], ["dma_transfer_cycles", 0.5], ["dma_transfer_cycles", 2.0],
            ["gm_read_cycles_per_byte", 0.5], ["gm_read_cycles_per_byte", 2.0]]


def _core(aic, stages, timeline):
    """Core record from per-stage counter dicts (snapshots are the running sums) and per-stage timelines
    (one value per variant)."""
    snaps, run = [], {}
    for st in stages:
        run = {k: run.get(k, 0) + st.get(k, 0) for k in set(run) | set(st)}
        snaps.append(dict(run))
    return {"aic": aic, "snapshots": snaps[:-1], "total": snaps[-1], "timeline": timeline}


def _measurement():
    # stage 0: AIV 0 is slow on V (3000 cycles), AIV 1 on MTE2 (2 x 100 + 2000 x 0.5 = 1200 cycles) + V 1000,
    #          partly overlapped: timeline 1500 (x0.5 / x2 of the per-transfer constant: 1400 / 1700)
    # stage 1: the AIC computes 5000 cycles; AIVs idle (AIV 0 waits for it: timeline 5000)
    cores = [_core(True, [{}, {"cubeCycles": 5000}], [[0] * 5, [5000] * 5]),
             _core(False, [{"vecCycles": 3000}, {}], [[3000] * 5, [5000] * 5]),
             _core(False, [{"vecCycles": 1000, "gmToUbCopies": 2, "gmToUbBytes": 2000}, {}],
                   [[1500, 1450, 1700, 1300, 2300], [0] * 5])]
    return {"cores": cores, "terms": TERMS, "constants": CONSTANTS, "pipes": ["MTE2", "V", "M"], "variants": VARIANTS}


def test_stage_time_is_the_slowest_core_serial_and_overlapped():
    e = perf_model.estimate(_measurement(), UNIT_CHIP)
    s0, s1 = e["stages"]
    assert s0["serial"] == pytest.approx(3000e-9)        # AIV 0: 3000; AIV 1: 1000 + 1200 = 2200
    assert s0["overlap"] == pytest.approx(3000e-9)       # busiest pipe of any core
    assert s0["pipes"]["MTE2"] == pytest.approx(1200e-9) and s0["pipes"]["V"] == pytest.approx(3000e-9)
    assert s0["slow_core"] == 1
    assert s1["serial"] == pytest.approx(5000e-9) and s1["pipes"]["M"] == pytest.approx(5000e-9)
    assert e["serial"] == pytest.approx(8000e-9) and e["overlap"] == pytest.approx(8000e-9)
    assert s0["timeline"] == pytest.approx(3000e-9) and s1["timeline"] == pytest.approx(5000e-9)
    assert e["violations"] == []


def test_vector_core_serial_includes_its_aic_and_the_timeline_is_the_estimate():
    m = _measurement()
    m["cores"][1] = _core(False, [{"vecCycles": 100}, {"vecCycles": 2000}], [[100] * 5, [6000] * 5])
    e = perf_model.estimate(m, UNIT_CHIP)
    s0, s1 = e["stages"]
    assert s0["timeline"] == pytest.approx(1500e-9) and s0["slow_core"] == 2
    # stage 1, AIV 0: its V 2000 + the AIC's 5000 without overlap = 7000; it took 6000
    assert s1["serial"] == pytest.approx(7000e-9) and s1["timeline"] == pytest.approx(6000e-9)
    assert s1["overlap"] == pytest.approx(5000e-9)
    assert e["timeline"] == pytest.approx(7500e-9)
    assert perf_model.serving_aic(m) == [None, 0, 0]


def test_serial_bound_exposes_every_transfer_latency():
    # with the twin's dma_latency_cycles among the constants, the serial bound adds a latency per transfer call
    # (AIV 1 with 3 loads: V 1000 + MTE2 3 x 100 + 2000 x 0.5 + 3 x 400 = 3500 > AIV 0's 3000)
    m = _measurement()
    m["constants"] = dict(CONSTANTS, dma_latency_cycles={"value": 400.0, "assumed": True, "unit": "cycles",
                                                         "source": "test"})
    assert perf_model.latency_cycles({"gmToUbCopies": 2, "ubToGmCopies": 1, "cubeGmWriteTransfers": 1},
                                     m["constants"]) == pytest.approx(1600.0)
    assert perf_model.latency_cycles({"gmToUbCopies": 2}, CONSTANTS) == 0.0   # counters of an older twin
    m["cores"][2] = _core(False, [{"vecCycles": 1000, "gmToUbCopies": 3, "gmToUbBytes": 2000}, {}],
                          [[1500, 1450, 1700, 1300, 2300], [0] * 5])
    e = perf_model.estimate(m, UNIT_CHIP)
    assert e["stages"][0]["serial"] == pytest.approx(3500e-9)
    assert perf_model.estimate(m, UNIT_CHIP, {"dma_latency_cycles": 0.5})["stages"][0]["serial"] == \
        pytest.approx(3000e-9)                                   # AIV 0's 3000 > 2300 + 600


def test_bounds_check_reports_a_timeline_outside_the_brackets():
    m = _measurement()
    m["cores"][2]["timeline"][0][0] = 2300            # above AIV 1's serial 2200
    m["cores"][1]["timeline"][1][0] = 4000            # below the AIC's 5000 that AIV 0 waits for: fine (serial 5000)
    m["cores"][0]["timeline"][1][0] = 4000            # the AIC's busiest pipe is 5000
    v = perf_model.estimate(m, UNIT_CHIP)["violations"]
    assert sorted((x["core"], x["stage"]) for x in v) == [(0, 1), (2, 0)]


def test_sensitivity_picks_the_twin_variant():
    m = _measurement()
    assert perf_model.variant_index(m, {"gm_read_cycles_per_byte": 2.0}) == 4
    assert perf_model.variant_index(m, {"hbm_bandwidth": 2.0}) == 0
    assert perf_model.variant_index(m, {"dma_transfer_cycles": 2.0, "gm_read_cycles_per_byte": 2.0}) is None
    e = perf_model.estimate(m, UNIT_CHIP, {"gm_read_cycles_per_byte": 2.0})
    # AIV 1's timeline in that variant: 2300 (its serial: 1000 + 200 + 2000 = 3200); AIV 0: 3000
    assert e["stages"][0]["timeline"] == pytest.approx(3000e-9)
    e = perf_model.estimate(m, UNIT_CHIP, {"dma_transfer_cycles": 2.0})
    assert e["stages"][0]["timeline"] == pytest.approx(3000e-9)
    m["cores"][1]["timeline"][0] = [1000] * 5
    e = perf_model.estimate(m, UNIT_CHIP, {"gm_read_cycles_per_byte": 2.0})
    assert e["stages"][0]["timeline"] == pytest.approx(2300e-9)
    assert e["violations"] == [{"core": 1, "stage": 0, "overlap": 3000, "timeline": 1000, "serial": 3000}]


def test_serial_and_overlap_differ_when_one_core_uses_two_pipes():
    m = _measurement()
    m["cores"][1] = _core(False, [{"vecCycles": 100}, {}], [[100] * 5, [5000] * 5])   # now AIV 1 is the slowest: 1000 V + 1200 MTE2
    e = perf_model.estimate(m, UNIT_CHIP)
    assert e["stages"][0]["serial"] == pytest.approx(2200e-9)
    assert e["stages"][0]["overlap"] == pytest.approx(1200e-9)


def test_hbm_floor_and_sensitivity_scaling():
    m = _measurement()
    slow_hbm = perf_model.Chip("slow", 1, 2, 1e9, 2000 / 10e-6, UNIT_CHIP.cube_macs_per_cycle)  # 2000 B take 10 us
    e = perf_model.estimate(m, slow_hbm)
    assert e["stages"][0]["hbm"] == pytest.approx(10e-6) and e["stages"][0]["serial"] == pytest.approx(10e-6)
    # x2 on the per-transfer constant: AIV 1's MTE2 = 2 x 200 + 1000 = 1400 cycles (still below AIV 0's 3000)
    e2 = perf_model.estimate(m, UNIT_CHIP, {"dma_transfer_cycles": 2.0, "gm_read_cycles_per_byte": 2.0})
    assert e2["stages"][0]["pipes"]["MTE2"] == pytest.approx(2 * 200e-9 + 2000e-9)
    assert e2["stages"][0]["serial"] == pytest.approx(1000e-9 + 2400e-9)
    # hbm_bandwidth x2 halves the bandwidth
    assert perf_model.estimate(m, slow_hbm, {"hbm_bandwidth": 2.0})["stages"][0]["hbm"] == pytest.approx(20e-6)


def test_l2_read_hits_leave_the_hbm_bound_and_gm_bytes_meet_the_l2_bound():
    m = _measurement()
    m["cores"][2]["total"].update(l2ReadHitBytes=1500, l2ReadHitBytesHalf=500, l2ReadHitBytesDouble=2000)
    m["cores"][2]["snapshots"][0].update(l2ReadHitBytes=1500, l2ReadHitBytesHalf=500, l2ReadHitBytesDouble=2000)
    chip = perf_model.Chip("l2", 1, 2, 1e9, 2000 / 10e-6, UNIT_CHIP.cube_macs_per_cycle, l2_bytes=1 << 20,
                           l2_bytes_per_s=2000 / 4e-6)
    # no L2 measurement: every byte is HBM traffic
    assert perf_model.estimate(m, chip)["stages"][0]["hbm"] == pytest.approx(10e-6)
    m["l2_bytes"] = 1 << 20
    s0 = perf_model.estimate(m, chip)["stages"][0]
    assert s0["hbm"] == pytest.approx(2.5e-6) and s0["l2"] == pytest.approx(4e-6)   # 500 B of HBM, 2000 B of L2
    assert s0["timeline"] == pytest.approx(4e-6) and s0["l2_hit_bytes"] == 1500 and s0["gm_bytes"] == 2000
    # sensitivity: the twin's hits at half / twice the capacity, the L2 bandwidth divided
    assert perf_model.estimate(m, chip, {"l2_capacity": 0.5})["stages"][0]["hbm"] == pytest.approx(7.5e-6)
    assert perf_model.estimate(m, chip, {"l2_capacity": 2.0})["stages"][0]["hbm"] == pytest.approx(0.0)
    assert perf_model.estimate(m, chip, {"l2_bandwidth": 2.0})["stages"][0]["l2"] == pytest.approx(8e-6)
    assert perf_model.variant_index(m, {"l2_capacity": 2.0}) == 0
    # hits measured for another capacity are refused; a chip without L2 credit ignores them
    with pytest.raises(ValueError, match="re-run the twin"):
        perf_model.estimate(m, perf_model.dataclasses.replace(chip, l2_bytes=1 << 19))
    assert perf_model.estimate(m, perf_model.dataclasses.replace(chip, l2_bytes=0))["stages"][0]["hbm"] == pytest.approx(10e-6)


def test_l2_write_hits_count_like_read_hits():
    m = _measurement()
    m["l2_bytes"] = 1 << 20
    m["cores"][2]["total"].update(l2ReadHitBytes=500, l2WriteHitBytes=1000, l2WriteHitBytesHalf=0)
    m["cores"][2]["snapshots"][0].update(l2ReadHitBytes=500, l2WriteHitBytes=1000, l2WriteHitBytesHalf=0)
    chip = perf_model.Chip("l2", 1, 2, 1e9, 2000 / 10e-6, UNIT_CHIP.cube_macs_per_cycle, l2_bytes=1 << 20,
                           l2_bytes_per_s=1e15)
    assert perf_model.estimate(m, chip)["stages"][0]["hbm"] == pytest.approx(2.5e-6)   # 2000 - 500 - 1000 B
    assert perf_model.estimate(m, chip, {"l2_capacity": 0.5})["stages"][0]["hbm"] == pytest.approx(10e-6)


def test_counters_of_another_l2_size_are_refused_with_a_clear_error(tmp_path, capsys):
    m = dict(_measurement(), macs_check=1.0, l2_bytes=201326592)
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"scale": 64, "dtype": "float32", "rows": {"10": m}}))
    with pytest.raises(SystemExit) as e:
        perf_model.main(["--from-json", str(path), "--chip", "Ascend910B4"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "row 10" in err and "re-run the twin with --chip Ascend910B4" in err and "--no-l2" in err
    assert perf_model.main(["--from-json", str(path), "--chip", "Ascend910B4", "--no-l2"]) == 0


def test_chip_l2_sizes_are_the_ini_values():
    assert all(perf_model.CHIPS[c].l2_bytes == 201326592 for c in ("Ascend910B1", "Ascend910B2", "Ascend910B3", "Ascend910_93"))
    assert perf_model.CHIPS["Ascend910B4"].l2_bytes == 100663296


def test_render_ends_with_the_geomean_line_and_writes_the_doc(tmp_path):
    case = bench_cases.suite_case(10, 64)
    m = dict(_measurement(), macs_check=1.0)
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"scale": 64, "dtype": "float32", "rows": {"10": m}}))
    doc = tmp_path / "perf.md"
    doc.write_text("# Perf\n\nintro\n")
    for _ in range(2):
        assert perf_model.main(["--from-json", str(path), "--rows", "10", "--write-doc", str(doc)]) == 0
    text = doc.read_text()
    assert text.startswith("# Perf\n\nintro\n") and text.count(perf_model.doc_markers("Ascend910B2", "float32")[0]) == 1
    assert "r10 EDVR L3 dg8" in text and "| dma_transfer_cycles | x0.5" not in text
    body = text.split(perf_model.doc_markers("Ascend910B2", "float32")[0])[1]
    last = [line for line in body.splitlines() if line.strip()][-2]
    r = perf_model.roofline(case, "float32", perf_model.CHIPS["Ascend910B2"])["time"]
    want = r / perf_model.estimate(m, perf_model.CHIPS["Ascend910B2"])["timeline"]
    assert last == f"Geometric-mean efficiency (roofline / estimate) over 1 shapes: {want:.1%}"
    assert "| dma_transfer_cycles |" in text and "| hbm_bandwidth |" in text   # constants and sensitivity rows


def test_a3_is_a_chip():
    a3 = perf_model.CHIPS["Ascend910_93"]
    assert (a3.aic, a3.aiv, a3.freq_hz) == (24, 48, 1.85e9)


def _twin_or_skip():
    try:
        from ascend_dcn import _backend
        _backend.get_twin_opapi()
    except Exception as e:  # noqa: BLE001 - any failure means the backend is not built here
        pytest.skip(f"twin operator libraries unavailable ({type(e).__name__}: {e}); build with "
                    "`pip install --no-build-isolation .` or set ASCEND_DCN_TWIN_LIB_DIR")


def test_twin_launch_has_per_stage_cycles_and_sourced_costs():
    _twin_or_skip()
    case = bench_cases.suite_case(10, 64)
    before = {k: os.environ.get(k) for k in ("TWIN_TIMELINE", "TWIN_HAZARD")}
    m = perf_model.measure(case, "float32", l2_bytes=perf_model.CHIPS["Ascend910B2"].l2_bytes)
    assert {k: os.environ.get(k) for k in before} == before   # the switches are set for its launch only
    assert m["macs_check"] == pytest.approx(1.0)           # twin cube MACs = 2 products' MACs exactly
    assert set(m["pipes"]) >= {"MTE2", "MTE3", "V", "S", "M", "MTE1", "FIX"}
    assert all(k["source"] for k in m["constants"].values())
    aiv = [c for c in m["cores"] if not c["aic"]]
    aic = [c for c in m["cores"] if c["aic"]]
    assert aiv and aic and len(aiv[0]["snapshots"]) >= 2   # the kernel's stages are separated by SyncAll
    assert sum(c["total"]["vecCycles"] for c in aiv) > 0 and sum(c["total"]["cubeCycles"] for c in aic) > 0
    # the cube work lands in the Matmul stage of the serving AIC (not stage 0)
    assert all(c["snapshots"][0]["cubeCycles"] == 0 for c in aic)
    e = perf_model.estimate(m, perf_model.CHIPS["Ascend910B2"])
    r = perf_model.roofline(case, "float32", perf_model.CHIPS["Ascend910B2"])
    assert len(e["stages"]) == len(aiv[0]["snapshots"]) + 1
    # the L2 model ran at the chip's capacity: some reads hit (G is written by the cube and read by the sampling),
    # never more than the stage's GM bytes, fewer at half the capacity
    assert m["l2_bytes"] == perf_model.CHIPS["Ascend910B2"].l2_bytes and "TWIN_L2_BYTES" not in os.environ
    assert 0 < sum(st["l2_hit_bytes"] for st in e["stages"])
    assert all(st["l2_hit_bytes"] <= st["gm_bytes"] for st in e["stages"])
    half = perf_model.estimate(m, perf_model.CHIPS["Ascend910B2"], {"l2_capacity": 0.5})
    assert sum(st["l2_hit_bytes"] for st in half["stages"]) <= sum(st["l2_hit_bytes"] for st in e["stages"])
    assert 0 < r["time"] <= e["overlap"] <= e["serial"] and math.isfinite(e["serial"])
    # the timeline: one value per stage and variant on every core, inside the brackets everywhere
    assert all(len(c["timeline"]) == len(c["snapshots"]) + 1 for c in m["cores"])
    assert all(len(row) == len(m["variants"]) for c in m["cores"] for row in c["timeline"])
    assert e["violations"] == []
    assert e["overlap"] <= e["timeline"] <= e["serial"]
    # the twin's per-pipe busy cycles are the pipe terms of the counters (AIV cores: their own code)
    for c in aiv:
        for s, deltas in enumerate(perf_model.stage_deltas(c)):
            want = perf_model.pipe_cycles(deltas, m["terms"], m["constants"])
            for p, v in c["busy"][s].items():
                assert v == pytest.approx(want.get(p, 0.0), rel=1e-9, abs=1e-6)
    # every scaled variant moves the estimate the right way (or not at all)
    for i, (const, f) in enumerate(m["variants"][1:], start=1):
        t = perf_model.estimate(m, perf_model.CHIPS["Ascend910B2"], {const: f})["timeline"]
        assert (t <= e["timeline"] * (1 + 1e-9)) if f < 1 else (t >= e["timeline"] * (1 - 1e-9))


def test_a_launch_without_the_timeline_is_refused():
    """The twin records the timeline only when asked (TWIN_TIMELINE=1, which measure sets); reading a launch
    that ran without it must fail, not give zero times."""
    _twin_or_skip()
    from ascend_dcn import ops
    case = bench_cases.suite_case(10, 64)
    inputs = bench_cases.make_inputs(case, "float32")
    a = case.attrs
    saved = os.environ.pop("TWIN_TIMELINE", None)
    try:
        ops.deformable_conv2d_backward(inputs["input"], inputs["grad_output"], inputs["offset_out"], inputs["weight"],
                                       inputs["offset"], a["kernel_size"], a["stride"], a["padding"], a["dilation"],
                                       a["groups"], a["deformable_groups"], a["modulated"])
    finally:
        if saved is not None:
            os.environ["TWIN_TIMELINE"] = saved
    with pytest.raises(RuntimeError, match="no timeline recorded"):
        perf_model.twin_measurement()


def test_scatter_issue_floor_counts_one_add_per_point_and_block():
    chip = perf_model.CHIPS["Ascend910B2"]
    for row, per_point in ((9, 8), (6, 32), (4, 16)):   # 8-channel dg blocks; 16-channel groups; 512 channels / 32
        case = bench_cases.suite_case(row, 64)
        ho, wo = case.out_hw
        adds, seconds = perf_model.scatter_issue_floor(case, chip, 8.0)
        assert adds == case.n * ho * wo * 9 * per_point, row
        assert seconds == pytest.approx(adds * 8.0 / (48 * 1.8e9))
    # a segment of 40 channels (gcd of 40 and 80) takes two Adds per point: 32 + 8 channels
    case = bench_cases.Case("odd", 1, 80, 16, 8, 8, groups=2, dg=1)
    assert perf_model.scatter_issue_floor(case, chip, 1.0)[0] == 64 * 9 * 2 * 2


def test_render_shows_the_scatter_ceiling_when_the_issue_cost_is_known(tmp_path):
    m = _measurement()
    m["constants"] = dict(CONSTANTS, scalar_issue_cycles={"value": 8.0, "assumed": True, "unit": "cycles", "source": "t"})
    m["macs_check"] = 1.0
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"scale": 64, "dtype": "float16", "rows": {"9": m}}))
    out = tmp_path / "out.md"
    assert perf_model.main(["--from-json", str(path), "--rows", "9", "--write-doc", str(out)]) == 0
    text = out.read_text()
    case = bench_cases.suite_case(9, 64)
    chip = perf_model.CHIPS["Ascend910B2"]
    _, floor_s = perf_model.scatter_issue_floor(case, chip, 8.0)
    r = perf_model.roofline(case, "float16", chip)["time"]
    assert f"Geometric-mean ceiling over 1 shapes: {r / max(r, floor_s):.1%}." in text
    assert [line for line in text.splitlines() if line.strip()][-2].startswith("Geometric-mean efficiency (roofline")


def test_lane_surplus_is_the_slowest_vector_core_less_the_mean_per_stage(tmp_path):
    # stage 0: AIV timelines 3000 and 1500 (mean 2250): 750 cycles; stage 1: 5000 and 0 (mean 2500): 2500 cycles
    m = _measurement()
    total, worst, worst_s = perf_model.lane_surplus(m, UNIT_CHIP)
    assert total == pytest.approx(3250e-9) and worst == 1 and worst_s == pytest.approx(2500e-9)
    # balanced lanes: no surplus
    m["cores"][2]["timeline"] = [list(t) for t in m["cores"][1]["timeline"]]
    assert perf_model.lane_surplus(m, UNIT_CHIP)[0] == pytest.approx(0.0)
    # the rendered table carries the row's surplus and its share of the estimate
    m = dict(_measurement(), macs_check=1.0)
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"scale": 64, "dtype": "float32", "rows": {"10": m}}))
    out = tmp_path / "out.md"
    assert perf_model.main(["--from-json", str(path), "--rows", "10", "--write-doc", str(out)]) == 0
    chip = perf_model.CHIPS["Ascend910B2"]
    total, worst, worst_s = perf_model.lane_surplus(m, chip)
    est = perf_model.estimate(m, chip)["timeline"]
    row = f"| 10 r10 EDVR L3 dg8 | {perf_model.us(total)} | {total / est:.1%} | {worst} | {perf_model.us(worst_s)} |"
    assert row in out.read_text()
