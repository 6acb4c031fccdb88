#!/usr/bin/env python3
"""NPU time estimate of our kernel from the twin's per-core, per-pipe cycles, against the roofline of the ideal.

We cannot time an Ascend NPU here. The twin charges every instruction of every virtual core to its pipe
from a cost table (twin/kernel/cost_table.h; each entry's source in twin/README.md "Cost model"): vector
instructions at the official A2/A3 element/cycle rates, Mmad by the official Cube formula, L1->L0 at the
official bandwidths, and DMA / scalar / head-overhead costs from named constants marked as assumptions.
The twin exports, per core, the counters at each SyncAll (per-stage values by differences), the
constants, and the pipe terms (pipe cycles = sum of counter x constant). This script:

  per core and stage   pipe cycles from the terms; serial bound = sum over the pipes plus every transfer's
                       latency (dma_latency_cycles; no overlap; on a
                       vector core plus the serving AIC's work of the stage, which a synchronous Matmul
                       waits for), overlapped bound = the busiest pipe (perfect overlap), and the
                       timeline: the twin's per-pipe timeline (twin/kernel/pipe_timeline.h), which runs
                       the pipes asynchronously and joins them only where the kernel synchronises
                       (flags, queues, barriers, SyncAll, Matmul requests); overlapped <= timeline <= serial
  per stage            time = slowest core / f (a stage ends at its SyncAll), but at least the stage's
                       HBM bytes / HBM bandwidth and its GM bytes / L2 bandwidth (chip constants, assumptions);
                       HBM bytes = the GM bytes of all cores minus the reads the twin's L2 model serves and the
                       writes it absorbs
                       (twin/kernel/l2_model.h: TWIN_L2_BYTES = the chip's ini l2_size for the run; --no-l2: none)
  per launch           sum over the stages, for each of the three
  sensitivity          every assumed constant x0.5 and x2 (HBM and L2 bandwidth, L2 capacity included): geometric-mean
                       efficiency of the timeline (the twin computes one timeline per variant)
  lane balance         per row, the slowest vector core's timeline less the vector cores' mean, summed over the
                       stages (what idle or overloaded lanes cost)

No other constants: chip core counts and clock come from the SoC ini files (cann-conventions.md §5).
Roofline of the ideal backward: max(2 GEMMs' FLOPs at the dtype's cube peak of all AIC, minimal HBM traffic
(read the five inputs + write the four outputs once) / bandwidth). Efficiency = roofline / estimate, with
estimate = the timeline.

Usage: python scripts/perf_model.py [--scale 1] [--rows 1-12] [--dtype float32] [--chip Ascend910B2]
                                    [--save-json F] [--from-json F] [--write-doc docs/performance.md]
                                    [--twin-hazard] [--no-l2]
Needs the twin (like bench.py); ``--from-json FILE`` re-renders saved counters without the twin (with
``--chip``: for another chip; the twin's counters of Ascend910B2 and Ascend910_93 are the same, their SoC
presets differing only in the clock, which the twin does not use).
Twin time: the twin runs with its timeline on and its hazard checker off (--twin-hazard: on; the counters and
the timeline are the same either way).
"""
import argparse
import dataclasses
import json
import math
import os
import shlex
import sys
import time
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

import bench_cases  # noqa: E402

ELT = {"float32": 4, "float16": 2, "bfloat16": 2}
# GM traffic of a core (for the chip-wide HBM bound of a stage)
GM_BYTE_COUNTERS = ["gmToUbBytes", "ubToGmBytes", "cubeGmReadBytes", "cubeGmWriteBytes"]
EXTRA_COUNTERS = ["cubeMacs", "l2ReadHitBytes", "l2ReadHitBytesHalf", "l2ReadHitBytesDouble", "l2WriteHitBytes",
                  "l2WriteHitBytesHalf", "l2WriteHitBytesDouble"]
MODEL_SCALES = ("hbm_bandwidth", "l2_bandwidth", "l2_capacity")   # sensitivity factors applied here, not in the twin


@dataclass(frozen=True)
class Chip:
    name: str
    aic: int
    aiv: int
    freq_hz: float
    hbm_bytes_per_s: float
    cube_macs_per_cycle: dict      # Mmad rate by I/O dtype (Cube指令理论性能汇总.md table 1)
    l2_bytes: int = 0              # L2 capacity (ini l2_size); 0 = no L2 credit
    l2_bytes_per_s: float = 0.0    # L2 read/write bandwidth (assumption, L2_ASSUMPTION)


_CUBE = {"float32": 16 * 16 * 4, "float16": 16 * 16 * 16, "bfloat16": 16 * 16 * 16}
# AIC/AIV counts and cube_freq: RUNTIME Ascend<SoC>.ini (cann-conventions.md §5). HBM: assumption (below).
# L2: ini l2_size (SoCInfo); the bandwidth an assumption (L2_ASSUMPTION).
_MIB = 1 << 20
CHIPS = {
    "Ascend910B1": Chip("Ascend910B1", 24, 48, 1.85e9, 1.6e12, _CUBE, 192 * _MIB, 7e12),
    "Ascend910B2": Chip("Ascend910B2", 24, 48, 1.8e9, 1.6e12, _CUBE, 192 * _MIB, 7e12),
    "Ascend910B3": Chip("Ascend910B3", 20, 40, 1.8e9, 1.6e12, _CUBE, 192 * _MIB, 7e12),
    "Ascend910B4": Chip("Ascend910B4", 20, 40, 1.5e9, 0.8e12, _CUBE, 96 * _MIB, 7e12),
    # A3: Ascend910_93 is the twin's alias of Ascend910_9392 (platform.cpp)
    "Ascend910_93": Chip("Ascend910_93", 24, 48, 1.85e9, 1.6e12, _CUBE, 192 * _MIB, 7e12),
}
HBM_ASSUMPTION = ("hbm_bandwidth", "chip HBM bytes/s (910B1/B2/B3/910_93 1.6e12, 910B4 0.8e12)",
                  "assumption: the figure the asc-devkit guide assumes for GM (算子实践参考/SIMD算子性能优化/内存访问/"
                  "L2-Cache切分.md: \"GM的带宽约为1.6TB/s\", an example, not a datasheet; cann-conventions.md §5)")
L2_ASSUMPTION = ("l2_bandwidth", "L2 read/write bytes/s of the chip (7e12)",
                 "assumption: the example figure of the same guide page (\"L2 Cache读写混合带宽约为7TB/s\", with 192 MB of L2)")
L2_CAPACITY_NOTE = ("l2_capacity", "L2 bytes the twin's hit rule may use (ini l2_size: 201326592 on 910B1-B3 and 910_93)",
                    "sourced size; the hit rule (twin/kernel/l2_model.h) is an assumption: x0.5 / x2 = the rule at half / "
                    "twice the capacity")
# the twin's hit counters (reads served, writes absorbed) per l2_capacity factor
L2_HIT_COUNTERS = {1.0: ("l2ReadHitBytes", "l2WriteHitBytes"), 0.5: ("l2ReadHitBytesHalf", "l2WriteHitBytesHalf"),
                   2.0: ("l2ReadHitBytesDouble", "l2WriteHitBytesDouble")}
CLOCK_NOTE = "vector, scalar and MTE pipes run at cube_freq (UNCONFIRMED); scalar control flow and address arithmetic are not counted"


def doc_markers(chip, dtype):
    """Begin/end lines of the generated block of one chip and dtype in the markdown file (--write-doc)."""
    return (f"<!-- perf-model {chip} {dtype}:begin (generated by scripts/perf_model.py --write-doc) -->",
            f"<!-- perf-model {chip} {dtype}:end -->")


# ---- the model (pure functions of the saved measurement) -------------------------------------

def pipe_cycles(counters, terms, constants, scale=None):
    """Cycles per pipe of one core in one stage: sum of counter x constant over the pipe's terms."""
    scale = scale or {}
    out = {}
    for t in terms:
        k = 1.0 if t["constant"] is None else constants[t["constant"]]["value"] * scale.get(t["constant"], 1.0)
        out[t["pipe"]] = out.get(t["pipe"], 0.0) + counters.get(t["counter"], 0) * k
    return out


# Transfer calls: each one's data lands dma_latency_cycles after its pipe time (the twin's timeline); with no
# overlap at all (the serial bound) every one of those latencies is exposed.
TRANSFER_COUNTERS = ("gmToUbCopies", "ubToGmCopies", "cubeGmReadTransfers", "cubeGmWriteTransfers")


def latency_cycles(counters, constants, scale=None):
    """Transfer calls x dma_latency_cycles (0 for counters measured before the twin had the constant)."""
    if "dma_latency_cycles" not in constants:
        return 0.0
    k = constants["dma_latency_cycles"]["value"] * (scale or {}).get("dma_latency_cycles", 1.0)
    return k * sum(counters.get(c, 0) for c in TRANSFER_COUNTERS)


def stage_deltas(core):
    """Per-stage counters of one core from its SyncAll snapshots: [snap0, snap1 - snap0, ..., total - last]."""
    prev, out = {}, []
    for snap in core["snapshots"] + [core["total"]]:
        out.append({k: v - prev.get(k, 0) for k, v in snap.items()})
        prev = snap
    return out


def serving_aic(measured):
    """Index of the AIC serving each core (None for AIC cores and for launches without AIC)."""
    cores = measured["cores"]
    aic = [i for i, c in enumerate(cores) if c["aic"]]
    aiv = [i for i, c in enumerate(cores) if not c["aic"]]
    out = [None] * len(cores)
    if aic and aiv:
        ratio = max(1, len(aiv) // len(aic))
        for j, i in enumerate(aiv):
            out[i] = aic[min(j // ratio, len(aic) - 1)]
    return out


def variant_index(measured, scale):
    """The twin's timeline variant for a sensitivity scaling (one twin constant x0.5 or x2; hbm_bandwidth and
    no scaling: variant 0). None when the twin computed no such variant (several constants at once)."""
    twin_scaled = {k: f for k, f in (scale or {}).items() if f != 1.0 and k not in MODEL_SCALES}
    if not twin_scaled:
        return 0
    if len(twin_scaled) > 1:
        return None
    (name, factor), = twin_scaled.items()
    for i, (const, f) in enumerate(measured.get("variants", [])):
        if const == name and f == factor:
            return i
    return None


BOUND_TOLERANCE = 1e-6   # relative: the twin sums in double precision in a different order


def estimate(measured, chip, scale=None):
    """Per-stage and total times (seconds) of one launch. measured: {'cores', 'terms', 'constants',
    'timeline' per core}. Also lists the (core, stage) pairs violating overlapped <= timeline <= serial."""
    scale = scale or {}
    terms, constants = measured["terms"], measured["constants"]
    f = chip.freq_hz
    hbm = chip.hbm_bytes_per_s / scale.get("hbm_bandwidth", 1.0)
    l2_rate = chip.l2_bytes_per_s / scale.get("l2_bandwidth", 1.0)
    hit_counters = L2_HIT_COUNTERS[scale.get("l2_capacity", 1.0)] if l2_credit(measured, chip) else ()
    per_core = [stage_deltas(c) for c in measured["cores"]]
    n_stages = max(len(s) for s in per_core)
    pipes = measured["pipes"]
    partner = serving_aic(measured)
    var = variant_index(measured, scale)
    stages, violations = [], []
    for s in range(n_stages):
        serial = overlap = timeline = slow_val = 0.0
        slow_core, tl_missing = None, False
        pipe_max = {p: 0.0 for p in pipes}
        gm_bytes = hit_bytes = 0
        cyc = [pipe_cycles(d[s], terms, constants, scale) if s < len(d) else {} for d in per_core]
        for ci, deltas in enumerate(per_core):
            if s >= len(deltas):
                continue
            for p, v in cyc[ci].items():
                pipe_max[p] = max(pipe_max.get(p, 0.0), v)
            pc = partner[ci]
            core_serial = sum(cyc[ci].values()) + latency_cycles(deltas[s], constants, scale)
            if pc is not None:
                core_serial += sum(cyc[pc].values())
                core_serial += latency_cycles(per_core[pc][s], constants, scale) if s < len(per_core[pc]) else 0.0
            core_over = max(cyc[ci].values(), default=0.0)
            tl = measured["cores"][ci].get("timeline")
            core_tl = (tl[s][var] if tl is not None and var is not None and s < len(tl) else float("nan"))
            if tl is not None and var is not None:
                if not (core_over <= core_tl * (1 + BOUND_TOLERANCE) + 1e-6 and core_tl <= core_serial * (1 + BOUND_TOLERANCE) + 1e-6):
                    violations.append({"core": ci, "stage": s, "overlap": core_over, "timeline": core_tl, "serial": core_serial})
            serial = max(serial, core_serial)
            if math.isnan(core_tl):
                tl_missing = True
            else:
                timeline = max(timeline, core_tl)
            key_val = core_serial if math.isnan(core_tl) else core_tl
            if slow_core is None or key_val > slow_val:
                slow_core, slow_val = ci, key_val
            overlap = max(overlap, core_over)
            gm_bytes += sum(deltas[s].get(k, 0) for k in GM_BYTE_COUNTERS)
            hit_bytes += sum(deltas[s].get(k, 0) for k in hit_counters)
        t_hbm = (gm_bytes - hit_bytes) / hbm
        t_l2 = gm_bytes / l2_rate if l2_rate > 0 else 0.0
        t_mem = max(t_hbm, t_l2)
        if tl_missing:
            timeline = float("nan")
        stages.append({"serial": max(serial / f, t_mem), "overlap": max(overlap / f, t_mem), "timeline": max(timeline / f, t_mem),
                       "hbm": t_hbm, "l2": t_l2, "gm_bytes": gm_bytes, "l2_hit_bytes": hit_bytes,
                       "pipes": {p: v / f for p, v in pipe_max.items()}, "slow_core": slow_core})
    return {"stages": stages, "serial": sum(x["serial"] for x in stages), "overlap": sum(x["overlap"] for x in stages),
            "timeline": sum(x["timeline"] for x in stages), "violations": violations}


def lane_surplus(measured, chip):
    """Vector-lane balance of one launch from the twin's per-core timelines (variant 0): per stage, the slowest vector
    core's timeline less the mean over the vector cores (a core that waits for its AIC or sits idle counts as it
    is). Returns (seconds summed over the stages, the stage with the largest surplus, that surplus in seconds)."""
    total, worst, worst_s = 0.0, None, 0.0
    aiv = [c["timeline"] for c in measured["cores"] if not c["aic"] and c.get("timeline")]
    n_stages = max((len(tl) for tl in aiv), default=0)
    for s in range(n_stages):
        vals = [tl[s][0] if s < len(tl) else 0.0 for tl in aiv]
        surplus = (max(vals) - sum(vals) / len(vals)) / chip.freq_hz
        total += surplus
        if worst is None or surplus > worst_s:
            worst, worst_s = s, surplus
    return total, worst, worst_s


def l2_credit(measured, chip):
    """True when the measurement's L2 hits apply to the chip: the twin ran its L2 model at the chip's capacity.
    A measurement at another capacity is refused (re-run the twin for that chip); none (--no-l2, older JSON): False."""
    cap = measured.get("l2_bytes", 0)
    if not cap or not chip.l2_bytes:
        return False
    if cap != chip.l2_bytes:
        raise ValueError(f"the counters' L2 hits were measured for an L2 of {cap} bytes, {chip.name} has {chip.l2_bytes}: "
                         "re-run the twin with --chip " + chip.name)
    return True


def roofline(case, dtype, chip):
    flops = bench_cases.gemm_flops(case)
    t_cube = flops / (2 * chip.aic * chip.cube_macs_per_cycle[dtype] * chip.freq_hz)
    rd, wr = bench_cases.input_bytes(case, ELT[dtype])
    t_mem = (rd + wr) / chip.hbm_bytes_per_s
    return {"flops": flops, "bytes": rd + wr, "cube": t_cube, "memory": t_mem, "time": max(t_cube, t_mem)}


# The scatter's issue floor. A2/A3 have no vector scatter (asc-devkit: Scatter is not supported on A2/A3), so
# every sample point adds its four corners into grad_input's accumulator with at least one vector instruction per
# channel block of <= SCATTER_ADD_LANES channels (one Add repeat is 256 B = 64 fp32 lanes and covers a corner pair,
# 2 pixels x the block; the accumulator is fp32 for every I/O dtype), and a block lies within one group and one
# deformable group (gcd of Cin/groups and Cin/dg channels). Each instruction costs the scalar unit
# scalar_issue_cycles to issue, spread over all AIV at best. The floor counts every point as inside the image.
SCATTER_ADD_LANES = 32


def scatter_issue_floor(case, chip, issue_cycles):
    """(adds, seconds): the fewest scatter Adds of the backward and their scalar issue time on all AIV."""
    seg = math.gcd(case.cin // case.groups, case.cin // case.dg)
    ho, wo = case.out_hw
    adds = case.n * ho * wo * case.k * (case.cin // seg) * math.ceil(seg / SCATTER_ADD_LANES)
    return adds, adds * issue_cycles / (chip.aiv * chip.freq_hz)


def geomean(values):
    return math.exp(sum(math.log(x) for x in values) / len(values))


def efficiency(results, chip, dtype, scale=None, key="timeline"):
    ok = [(case, m) for _, case, m in results if "error" not in m]
    if not ok:
        return float("nan")
    hbm_scale = (scale or {}).get("hbm_bandwidth", 1.0)
    scaled = dataclasses.replace(chip, hbm_bytes_per_s=chip.hbm_bytes_per_s / hbm_scale)
    return geomean([roofline(case, dtype, scaled)["time"] / estimate(m, chip, scale)[key] for case, m in ok])


def core_names(measured):
    names, n_aic = [], 0
    for c in measured["cores"]:
        if c["aic"]:
            names.append(f"AIC {n_aic}")
            n_aic += 1
        else:
            names.append(f"AIV {len(names) - n_aic}")
    return names


# ---- reading the twin ------------------------------------------------------------------------

def _twin_lib():
    import ctypes
    from ascend_dcn import _backend
    _, runtime = _backend.twin_library_paths()
    lib = ctypes.CDLL(runtime[0])
    u32, u64, cp, dbl, i32 = ctypes.c_uint32, ctypes.c_uint64, ctypes.c_char_p, ctypes.c_double, ctypes.c_int
    lib.twinLastLaunchCores.restype = u32
    lib.twinLastLaunchCoreIsAic.restype = i32
    lib.twinLastLaunchCoreIsAic.argtypes = [u32]
    lib.twinLastLaunchCoreCounter.restype = i32
    lib.twinLastLaunchCoreCounter.argtypes = [u32, cp, ctypes.POINTER(u64)]
    lib.twinLastLaunchCoreSyncAllCount.restype = i32
    lib.twinLastLaunchCoreSyncAllCount.argtypes = [u32]
    lib.twinLastLaunchCoreSyncAllCounter.restype = i32
    lib.twinLastLaunchCoreSyncAllCounter.argtypes = [u32, u32, cp, ctypes.POINTER(u64)]
    lib.twinCostConstant.restype = i32
    lib.twinCostConstant.argtypes = [u32, ctypes.POINTER(cp), ctypes.POINTER(dbl), ctypes.POINTER(i32), ctypes.POINTER(cp),
                                     ctypes.POINTER(cp)]
    lib.twinCostPipeTerm.restype = i32
    lib.twinCostPipeTerm.argtypes = [u32, ctypes.POINTER(cp), ctypes.POINTER(cp), ctypes.POINTER(cp)]
    lib.twinCostVariant.restype = i32
    lib.twinCostVariant.argtypes = [u32, ctypes.POINTER(cp), ctypes.POINTER(dbl)]
    lib.twinLastLaunchCoreTimelineStages.restype = i32
    lib.twinLastLaunchCoreTimelineStages.argtypes = [u32]
    lib.twinLastLaunchCoreTimeline.restype = i32
    lib.twinLastLaunchCoreTimeline.argtypes = [u32, u32, u32, ctypes.POINTER(dbl)]
    lib.twinLastLaunchCoreTimelineBusy.restype = i32
    lib.twinLastLaunchCoreTimelineBusy.argtypes = [u32, u32, cp, ctypes.POINTER(dbl)]
    return lib


def twin_variants(lib):
    """The twin's timeline variants: [(constant or None, factor)], variant 0 = the defaults."""
    import ctypes
    out, i = [], 0
    while True:
        name, factor = ctypes.c_char_p(), ctypes.c_double()
        if lib.twinCostVariant(i, ctypes.byref(name), ctypes.byref(factor)) != 0:
            break
        out.append((name.value.decode() if name.value else None, factor.value))
        i += 1
    if not out:
        raise RuntimeError("this twin build exports no timeline (twinCostVariant)")
    return out


def twin_timeline(lib, core, n_variants, pipes):
    """Per stage of one core: the timeline cycles per variant and the busy cycles per pipe (variant 0)."""
    import ctypes
    timeline, busy = [], []
    for s in range(max(lib.twinLastLaunchCoreTimelineStages(core), 0)):
        row = []
        for v in range(n_variants):
            x = ctypes.c_double()
            if lib.twinLastLaunchCoreTimeline(core, s, v, ctypes.byref(x)) != 0:
                raise RuntimeError(f"twin timeline: core {core} stage {s} variant {v} missing")
            row.append(x.value)
        timeline.append(row)
        b = {}
        for p in pipes:
            x = ctypes.c_double()
            if lib.twinLastLaunchCoreTimelineBusy(core, s, p.encode(), ctypes.byref(x)) == 0:
                b[p] = x.value
        busy.append(b)
    return timeline, busy


def twin_cost_model(lib):
    """The twin's cost constants and pipe terms (twinCostConstant / twinCostPipeTerm)."""
    import ctypes
    constants, terms, pipes = {}, [], []
    i = 0
    while True:
        name, unit, source = ctypes.c_char_p(), ctypes.c_char_p(), ctypes.c_char_p()
        value, assumed = ctypes.c_double(), ctypes.c_int()
        if lib.twinCostConstant(i, ctypes.byref(name), ctypes.byref(value), ctypes.byref(assumed), ctypes.byref(unit),
                                ctypes.byref(source)) != 0:
            break
        constants[name.value.decode()] = {"value": value.value, "assumed": bool(assumed.value),
                                          "unit": unit.value.decode(), "source": source.value.decode()}
        i += 1
    i = 0
    while True:
        pipe, counter, constant = ctypes.c_char_p(), ctypes.c_char_p(), ctypes.c_char_p()
        if lib.twinCostPipeTerm(i, ctypes.byref(pipe), ctypes.byref(counter), ctypes.byref(constant)) != 0:
            break
        terms.append({"pipe": pipe.value.decode(), "counter": counter.value.decode(),
                      "constant": constant.value.decode() if constant.value else None})
        if pipe.value.decode() not in pipes:
            pipes.append(pipe.value.decode())
        i += 1
    if not constants or not terms:
        raise RuntimeError("this twin build exports no cost model (twinCostConstant / twinCostPipeTerm)")
    return constants, terms, pipes


def twin_measurement():
    """Per-core totals and SyncAll snapshots of the counters the model needs, for the last launch."""
    import ctypes
    lib = _twin_lib()
    constants, terms, pipes = twin_cost_model(lib)
    variants = twin_variants(lib)
    names = sorted({t["counter"] for t in terms} | set(GM_BYTE_COUNTERS) | set(EXTRA_COUNTERS))
    cores = []
    for core in range(lib.twinLastLaunchCores()):
        def read(idx=None, core=core):
            out = {}
            for n in names:
                v = ctypes.c_uint64(0)
                rc = (lib.twinLastLaunchCoreCounter(core, n.encode(), ctypes.byref(v)) if idx is None else
                      lib.twinLastLaunchCoreSyncAllCounter(core, idx, n.encode(), ctypes.byref(v)))
                if rc != 0:
                    raise RuntimeError(f"twin counter {n!r} unknown to this twin build")
                out[n] = int(v.value)
            return out
        snaps = [read(k) for k in range(lib.twinLastLaunchCoreSyncAllCount(core))]
        timeline, busy = twin_timeline(lib, core, len(variants), pipes)
        if not timeline:
            raise RuntimeError(f"twin core {core}: no timeline recorded (the launch ran without TWIN_TIMELINE=1)")
        # a core whose timeline has fewer stages (an AIC that served nothing) took no time in the others
        timeline += [[0.0] * len(variants)] * (len(snaps) + 1 - len(timeline))
        cores.append({"aic": lib.twinLastLaunchCoreIsAic(core) == 1, "snapshots": snaps, "total": read(),
                      "timeline": timeline, "busy": busy})
    return {"cores": cores, "constants": constants, "terms": terms, "pipes": pipes, "variants": variants}


def measure(case, dtype, hazard=False, l2_bytes=0):
    """Runs the operator once on the twin; returns the measurement (+ 'macs_check' = cubeMacs / formula).
    The twin records its per-pipe timeline only when asked: TWIN_TIMELINE=1 for this launch. Its hazard checker
    (a correctness instrument that changes no counter) is off for it unless `hazard` (TWIN_HAZARD=0, as
    twin/README.md prescribes for measurements; it roughly doubles the twin's time). Both are read by the twin
    at every launch and restored afterwards."""
    from ascend_dcn import ops
    inputs = bench_cases.make_inputs(case, dtype)
    a = case.attrs
    env = {"TWIN_TIMELINE": "1", "TWIN_L2_BYTES": str(l2_bytes)}
    if not hazard:
        env["TWIN_HAZARD"] = "0"
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        ops.deformable_conv2d_backward(inputs["input"], inputs["grad_output"], inputs["offset_out"], inputs["weight"],
                                       inputs["offset"], a["kernel_size"], a["stride"], a["padding"], a["dilation"],
                                       a["groups"], a["deformable_groups"], a["modulated"])
    finally:
        for k, v in saved.items():
            if v is None:
                del os.environ[k]
            else:
                os.environ[k] = v
    m = twin_measurement()
    m["l2_bytes"] = l2_bytes
    macs = sum(c["total"]["cubeMacs"] for c in m["cores"])
    m["macs_check"] = macs / (bench_cases.gemm_flops(case) / 2)
    return m


# ---- rendering -------------------------------------------------------------------------------

def us(seconds):
    return f"{seconds * 1e6:,.1f}"


def render(results, args, command, chip):
    ok = [(i, case, m) for i, case, m in results if "error" not in m]
    any_m = ok[0][2] if ok else None
    pipes = any_m["pipes"] if any_m else []
    lines = [f"Command: `{command}`", "",
             f"Chip: {chip.name} ({chip.aic} AIC + {chip.aiv} AIV at {chip.freq_hz / 1e9:.2f} GHz, cube "
             f"{chip.cube_macs_per_cycle[args.dtype]} MAC/cycle for {args.dtype}, HBM {chip.hbm_bytes_per_s / 1e12:.1f} TB/s "
             f"(assumption), L2 " + (f"{chip.l2_bytes / _MIB:.0f} MiB at {chip.l2_bytes_per_s / 1e12:.1f} TB/s (assumption; "
                                     "hits by the twin's L2 model)" if chip.l2_bytes else "not credited (--no-l2)") +
             f"). Shapes: landscape.md §5 at scale 1/{args.scale}; dtype {args.dtype}. Clock: {CLOCK_NOTE}.", ""]
    if any_m:
        lines += ["Cost constants (from the twin's cost table; official rates for vector/cube instructions are in "
                  "twin/README.md \"Cost model\"):", "",
                  "| constant | value | unit | status | source |", "|---|---|---|---|---|"]
        for name, k in any_m["constants"].items():
            lines.append(f"| {name} | {k['value']:.6g} | {k['unit']} | {'assumed' if k['assumed'] else 'sourced'} | {k['source']} |")
        lines.append(f"| {HBM_ASSUMPTION[0]} | {chip.hbm_bytes_per_s:.3g} | {HBM_ASSUMPTION[1]} | assumed | {HBM_ASSUMPTION[2]} |")
        if chip.l2_bytes:
            lines.append(f"| {L2_ASSUMPTION[0]} | {chip.l2_bytes_per_s:.3g} | {L2_ASSUMPTION[1]} | assumed | {L2_ASSUMPTION[2]} |")
            lines.append(f"| {L2_CAPACITY_NOTE[0]} | {chip.l2_bytes} | {L2_CAPACITY_NOTE[1]} | assumed (rule) | {L2_CAPACITY_NOTE[2]} |")
        lines += ["", "Pipe terms: " + "; ".join(
            f"{p} = " + " + ".join(t["counter"] + (f" x {t['constant']}" if t["constant"] else "")
                                   for t in any_m["terms"] if t["pipe"] == p) for p in pipes) + ".", ""]
    # per-stage, per-pipe breakdown of every row
    lines += ["Per stage (a stage ends at a SyncAll): time of the slowest core by the per-pipe timeline, serial "
              "(pipes one after another; a vector core also waits for all of its AIC's work) and overlapped (busiest "
              "pipe), each at least the stage's HBM bytes / HBM (GM bytes less the L2 model's hits: reads served, writes absorbed) and its GM "
              "bytes / L2; L2 hits: share of the stage's GM bytes; per pipe: the busiest core's time on that pipe (µs).", "",
              "| row | stage | timeline µs | serial µs | overlap µs | HBM µs | L2 hits | " + " | ".join(pipes) + " | slowest core |",
              "|" + "---|" * (8 + len(pipes))]
    for idx, case, m in ok:
        e = estimate(m, chip)
        names = core_names(m)
        for s, st in enumerate(e["stages"]):
            slow = names[st["slow_core"]] if st["slow_core"] is not None else "-"
            hits = f"{st['l2_hit_bytes'] / st['gm_bytes']:.0%}" if st["gm_bytes"] else "-"
            lines.append(f"| {idx} | {s} | {us(st['timeline'])} | {us(st['serial'])} | {us(st['overlap'])} | {us(st['hbm'])} | {hits} | "
                         + " | ".join(us(st["pipes"].get(p, 0.0)) for p in pipes) + f" | {slow} |")
    # sensitivity
    if ok:
        assumed = [n for n, k in any_m["constants"].items() if k["assumed"]] + ["hbm_bandwidth"]
        if chip.l2_bytes:
            assumed += ["l2_bandwidth"] + (["l2_capacity"] if any(l2_credit(m, chip) for _, _, m in ok) else [])
        base = efficiency(results, chip, args.dtype)
        lines += ["", "Sensitivity: geometric-mean efficiency (roofline / timeline estimate) with one assumed constant "
                  "scaled (the twin computes a timeline per scaled constant; hbm_bandwidth, l2_bandwidth: the bandwidth is "
                  "divided by the factor, i.e. x2 = half the bandwidth; l2_capacity: the twin's hits at half / twice the "
                  "L2).", "",
                  "| constant | x0.5 | x1 | x2 |", "|---|---|---|---|"]
        for n in assumed:
            lo = efficiency(results, chip, args.dtype, {n: 0.5})
            hi = efficiency(results, chip, args.dtype, {n: 2.0})
            lines.append(f"| {n} | {lo:.1%} | {base:.1%} | {hi:.1%} |")
    # the scatter's issue floor per row (a ceiling of this design under the model's issue cost)
    issue = any_m["constants"].get("scalar_issue_cycles") if any_m else None
    if issue:
        lines += ["", "Scatter issue floor (a ceiling of the design, not an estimate): no vector scatter on A2/A3, so each "
                  f"sample point takes >= 1 vector Add per channel block of <= {SCATTER_ADD_LANES} channels within one group "
                  f"and one deformable group, each issued by the scalar unit in scalar_issue_cycles ({issue['value']:.6g}, "
                  "assumed: the floor scales with it), over all AIV; ceiling = roofline / max(roofline, floor).", "",
                  "| row | Adds (M) | floor µs | roofline µs | ceiling |", "|---|---|---|---|---|"]
        ceilings = []
        for idx, case, m in ok:
            adds, floor_s = scatter_issue_floor(case, chip, issue["value"])
            r = roofline(case, args.dtype, chip)["time"]
            ceilings.append(r / max(r, floor_s))
            lines.append(f"| {idx} {case.name} | {adds / 1e6:.2f} | {us(floor_s)} | {us(r)} | {ceilings[-1]:.1%} |")
        lines += ["", f"Geometric-mean ceiling over {len(ok)} shapes: {geomean(ceilings):.1%}."]
    # how far the slowest vector lane runs ahead of the mean, per row (the twin's per-core timelines)
    if ok and all(c.get("timeline") for _, _, m in ok for c in m["cores"] if not c["aic"]):
        lines += ["", "Vector-lane balance: per stage, the slowest vector core's timeline less the mean over the vector "
                  "cores (cores waiting for their AIC or idle count as they are), summed over the stages; the stage "
                  "with the largest surplus.", "",
                  "| row | surplus µs | of the estimate | largest in stage | its surplus µs |", "|---|---|---|---|---|"]
        for idx, case, m in ok:
            total, worst, worst_s = lane_surplus(m, chip)
            est = estimate(m, chip)["timeline"]
            lines.append(f"| {idx} {case.name} | {us(total)} | {total / est:.1%} | {worst} | {us(worst_s)} |")
    # per-row summary
    lines += ["", "| row | shape | est. µs (timeline) | serial µs | overlap µs | roofline µs | efficiency | slowest stage | "
              "its busiest pipe | stage timeline µs | cubeMacs/formula |", "|" + "---|" * 11]
    violations = []
    for idx, case, m in results:
        if "error" in m:
            lines.append(f"| {idx} {case.name} | {case.shape_text()} | error: {m['error'][:200]} |" + " |" * 8)
            continue
        e = estimate(m, chip)
        r = roofline(case, args.dtype, chip)
        violations += [dict(v, row=idx) for v in e["violations"]]
        worst = max(range(len(e["stages"])), key=lambda s: e["stages"][s]["timeline"])
        st = e["stages"][worst]
        busiest = max(st["pipes"], key=st["pipes"].get) if st["pipes"] else "-"
        if max(st["hbm"], st["l2"]) >= st["overlap"]:
            busiest = "HBM" if st["hbm"] >= st["l2"] else "L2"
        lines.append(f"| {idx} {case.name} | {case.shape_text()} | {us(e['timeline'])} | {us(e['serial'])} | {us(e['overlap'])} | "
                     f"{us(r['time'])} | {r['time'] / e['timeline']:.1%} | {worst} | {busiest} | "
                     + " / ".join(us(x["timeline"]) for x in e["stages"]) + f" | {m.get('macs_check', float('nan')):.3f} |")
    if ok:
        check = ("holds on every core and stage" if not violations else
                 f"VIOLATED on {len(violations)} core-stages, first: row {violations[0]['row']} core {violations[0]['core']} "
                 f"stage {violations[0]['stage']} (overlap {violations[0]['overlap']:.0f}, timeline {violations[0]['timeline']:.0f}, "
                 f"serial {violations[0]['serial']:.0f} cycles)")
        lines += ["", f"Bounds check (busiest pipe <= timeline <= serial, per core and stage): {check}.",
                  f"Geometric-mean efficiency of the serial bound (roofline / serial) over {len(ok)} shapes: "
                  f"{efficiency(results, chip, args.dtype, key='serial'):.1%}.",
                  f"Geometric-mean efficiency of the overlapped bound (roofline / bound) over {len(ok)} shapes: "
                  f"{efficiency(results, chip, args.dtype, key='overlap'):.1%}.",
                  f"Geometric-mean efficiency (roofline / estimate) over {len(ok)} shapes: {efficiency(results, chip, args.dtype):.1%}"]
    return "\n".join(lines) + "\n"


def write_doc(path, table, chip, dtype):
    begin, end = doc_markers(chip, dtype)
    text = open(path).read() if os.path.exists(path) else ""
    block = f"{begin}\n{table}{end}"
    if begin in text and end in text:
        text = text[:text.index(begin)] + block + text[text.index(end) + len(end):]
    else:
        text = text + ("\n" if text and not text.endswith("\n") else "") + block + "\n"
    with open(path, "w") as f:
        f.write(text)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=int, default=1, help="shapes with 1/scale of the pixels (1 = real layers)")
    ap.add_argument("--rows", default="", help="suite rows, e.g. '1,3,5-7' (default: all 12)")
    ap.add_argument("--dtype", default="float32", choices=sorted(ELT))
    ap.add_argument("--chip", default="Ascend910B2", choices=sorted(CHIPS))
    ap.add_argument("--save-json", default="", help="write the measured counters to this file")
    ap.add_argument("--from-json", default="", help="render counters saved by --save-json (no twin run)")
    ap.add_argument("--write-doc", default="", help="also replace the generated block of this markdown file")
    ap.add_argument("--twin-hazard", action="store_true",
                    help="keep the twin's hazard checker on (same numbers, about twice the twin time)")
    ap.add_argument("--no-l2", action="store_true",
                    help="no L2 credit: every GM byte is HBM traffic (the model before the twin's L2 model)")
    args = ap.parse_args(argv)
    try:
        rows = bench_cases.parse_rows(args.rows)
        if args.scale < 1:
            raise ValueError(f"scale: must be >= 1; got {args.scale}")
    except ValueError as e:
        ap.error(str(e))
    chip = CHIPS[args.chip]
    if args.no_l2:
        chip = dataclasses.replace(chip, l2_bytes=0)
    saved = {}
    if args.from_json:
        with open(args.from_json) as f:
            saved = json.load(f)
        args.scale, args.dtype = saved["scale"], saved["dtype"]
    else:
        # the twin models the chosen SoC (core counts) for the tiling and the launch
        from ascend_dcn import _backend
        _backend.twin_set_platform(args.chip, 0)
    results = []
    for idx in rows:
        case = bench_cases.suite_case(idx, args.scale)
        if args.from_json:
            m = saved["rows"].get(str(idx))
            if m is None:
                continue
        else:
            t0 = time.time()
            try:
                m = measure(case, args.dtype, hazard=args.twin_hazard, l2_bytes=chip.l2_bytes)
            except Exception as e:  # noqa: BLE001 - reported in the table, the other rows go on
                m = {"error": f"{type(e).__name__}: {e}"}
            print(f"row {idx} {case.shape_text()}: twin {time.time() - t0:.1f} s", file=sys.stderr, flush=True)
        if "error" not in m:
            try:
                l2_credit(m, chip)
            except ValueError as e:
                ap.error(f"row {idx}: {e} (or render without the L2 credit: --no-l2)")
        results.append((idx, case, m))
    command = "python scripts/perf_model.py " + " ".join(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
    if args.save_json:
        with open(args.save_json, "w") as f:
            json.dump({"scale": args.scale, "dtype": args.dtype, "command": command,
                       "rows": {str(i): m for i, _, m in results}}, f)
    if args.from_json and saved.get("command"):
        command = f"{saved['command']}` (twin counters), rendered by `{command}"
    table = render(results, args, command, chip)
    print(table)
    if args.write_doc:
        write_doc(args.write_doc, table, chip.name, args.dtype)
    return 0 if all("error" not in m for _, _, m in results) else 1


if __name__ == "__main__":
    sys.exit(main())
