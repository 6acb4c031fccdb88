"""Every synchronisation point of op_kernel/ is needed: dropping any one of them is reported (issue 10).

The twin knows the kernel call site of each synchronisation call (SetFlag/WaitFlag incl. the kernel's
PipeSync helper, PipeBarrier, SyncAll, the queue calls AllocTensor/FreeTensor/EnQue/DeQue,
Matmul::IterateAll/WaitIterateAll, CrossCoreSetFlag/WaitFlag) without any change to op_kernel/
(twin/kernel/sync_site.h). TWIN_SYNC_SITES lists the sites that created an ordering edge in a run;
TWIN_DROP_SYNC=<site> keeps the run executing (flags, barriers and queues behave as usual) but drops
that site's ordering edge from the hazard checker.

The test runs a small case matrix that covers the kernel's paths (fp32/fp16/bf16, modulated and
DCNv1, groups and deformable groups, kernel-point chunks (K > 64), the stage-2 window with GM fallback,
pixel chunks (stage 3's fold of one chunk followed by the next chunk's stage 0), 1, 2 and all vector
cores), collects every op_kernel/ site, then runs each site dropped on the cases that hit it, in order,
until the hazard checker reports it, and asserts that it does. Sites are discovered at run time, so the test follows
whatever kernel is on main.

Informational sites (listed, not required): the queue calls and Matmul::IterateAll. Neither can be
deleted without changing what the program computes (a queue call hands a buffer on; a Matmul request is
the GEMM itself), so "dropping" them tests nothing a source edit could do. What can be deleted is
checked: the wait for an asynchronous request (Matmul::WaitIterateAll; the twin counts completions like
the chip's event notifications, so a deleted wait makes every later wait of that core return one
request early).

Granularity: a site is "file:line" (dropping it = deleting that line from the source: every
instantiation and caller at once). A file:line that one run reaches along several call stacks is a
helper (PipeSync, the transpose class): each of its stacks ("file:line#hash") is dropped separately,
which is what deleting one helper call in the kernel does (per instantiation).
"""
import os
import subprocess
import time

import pytest

from test_kernel_common import Case, chunk_plan, make_inputs, require_twin, run_twin, set_vector_cores

# Workspace budget of the pixel-chunk case (test_chunks.py: the twin's device memory TWIN_HBM_BYTES =
# budget * 512 makes the tiling's chunks small).
HBM_PER_BUDGET = 512
LOCAL_BUDGET = 80 << 10  # f16_local_planes' budget (test_matrix_has_both_chunk_loops: image-local planes)

# (dtype, case, vector cores; 0 = the whole chip[, workspace budget in bytes]). Small shapes: every case
# runs in 0.1-0.3 s.
MATRIX = [
    ("float32", Case("f32_mod", 1, 8, 8, 5, 5), 0),
    # K = 65 > 64: kernel-point chunks (kt 64 + 1), the order tables are rebuilt inside a tile loop
    ("float32", Case("f32_k65_chunks", 1, 8, 4, 2, 68, kh=1, kw=65, padding=(0, 0, 0, 0)), 0),
    ("float16", Case("f16_g2_dg2", 1, 8, 8, 5, 5, groups=2, dg=2), 0),
    ("bfloat16", Case("bf16_v1", 1, 8, 8, 5, 5, modulated=False), 0),
    ("float32", Case("f32_v1_dg2", 2, 8, 4, 5, 5, dg=2, modulated=False), 0),
    ("float16", Case("f16_mod", 1, 16, 8, 5, 6), 0),
    ("bfloat16", Case("bf16_g2", 1, 8, 8, 5, 5, groups=2), 0),
    # stage-2 UB window smaller than the image: corners outside it take the GM fallback path (8 deformable groups of
    # one 8-channel block: each unit computes its own fronts; fp32 with one G region shares them from 4 blocks)
    ("float32", Case("f32_window_k1", 1, 64, 8, 12, 16, kh=1, kw=1, padding=(0, 0, 0, 0), dg=8), 0),
    ("bfloat16", Case("bf16_window_k1", 1, 64, 4, 24, 24, kh=1, kw=1, padding=(0, 0, 0, 0)), 0),
    ("float16", Case("f16_window_k3", 1, 64, 4, 16, 20), 0),
    # several windows per unit (2-channel blocks, windows of 2 x 5 output pixels): a window's gwin is flushed after its last
    # tile's Back and zeroed in the next window's first Back; its xwin is loaded while the last tile runs
    ("float32", Case("f32_window_switch", 2, 12, 4, 5, 5, groups=2, dg=3), 0),
    # 64-channel blocks in windows narrower than the image: the GM atomics of corner pairs that straddle a window's
    # edge (one corner inside it) precede that window's flush of the same plane rows
    ("float16", Case("f16_window_pairs", 4, 64, 8, 6, 100), 0),
    # few vector cores: every core has work (no idle cores), several units per core
    ("float32", Case("f32_1core", 1, 8, 8, 5, 5), 1),
    ("float16", Case("f16_2cores_g2", 2, 8, 8, 5, 5, groups=2, dg=2), 2),
    # consecutive input-rearrange tiles (bf16 -> fp32 casts) on one core
    ("bfloat16", Case("bf16_1core_n2", 2, 8, 8, 5, 5), 1),
    # 6 pixel chunks (one image, 4 output rows each) x 3 pixel bands of the batch's grad_input planes on 2 cores, one
    # G region: each chunk's stage-3 fold runs on the pipe right before the next chunk's stage 0 (no SyncAll between)
    ("float16", Case("f16_chunks_bands", 2, 8, 8, 12, 10), 2, 44 << 10),
    # 2 pixel chunks (one image each) x 8 pixel bands, two G regions: chunk c+1's G GEMM runs during chunk c's
    # sampling, into the region that sampling does not read
    ("float16", Case("f16_g_ahead", 2, 8, 8, 12, 10), 2, 188 << 10),
    # image-local grad_input planes on one core (chunks of one image, several bands, two deformable groups): the fold
    # after image 0's last chunk writes its grad_input and zeroes its planes tile by tile (one tile per channel
    # block) before stage 0 of the next chunk and image 1's sampling, whose dcol tiles (8 input channels: not
    # DcolKwMajor) build their Gather tables in the runner's scratch memory the fold's last tile used; 11 output rows
    # in chunks of 6 + 5 (the shorter one's bands split evenly, DCN_CHUNK_BAND_LEN)
    ("float16", Case("f16_local_planes", 2, 8, 8, 11, 10, dg=2), 1, LOCAL_BUDGET),
    # pixel chunks of 9 pixels of one output row x 5 bands on one core: the last chunk of each row has 4 pixels, so
    # its fifth band is empty and that unit only reads its plane's zeroed-row count right before the next unit loads
    # its own (the S_MTE2 of Stage2Sample::BeginPlane)
    ("float16", Case("f16_short_bands", 2, 16, 8, 6, 13), 1, 36 << 10),
    # 8 images on 2 cores: a core runs several stage-2 units back to back, each a full tile pipeline (the
    # next unit's window load follows the previous unit's tiles)
    ("float16", Case("f16_8imgs_2cores", 8, 8, 8, 12, 10), 2),
    # 32-channel blocks (vector-bound tiles): stage 2 stores its partials in row order and stage 3 folds them
    # (FoldRows) in pieces of two sizes (112 + 32 pixels), so a core rebuilds its transpose table
    ("float16", Case("f16_row_fold", 4, 64, 8, 12, 12), 2),
]

HAZARD_RULES = ("UB hazard", "GM hazard")


def _entry(i):
    """MATRIX[i] as (dtype, case, vector cores, workspace budget; 0 = the default)."""
    dtype, case, cores, *budget = MATRIX[i]
    return dtype, case, cores, (budget[0] if budget else 0)


def test_matrix_has_both_chunk_loops():
    # the chunked cases cover one G region and two (chunk c+1's G GEMM during chunk c's sampling); the
    # budgets are derived independently of the C++ plan (test_chunks checks the two agree)
    plans = {case.name: chunk_plan(case, dtype, budget) for dtype, case, _, budget in map(_entry, range(len(MATRIX)))
             if budget}
    assert plans["f16_chunks_bands"]["num_chunks"] > 1 and plans["f16_chunks_bands"]["g_regions"] == 1
    assert plans["f16_g_ahead"]["num_chunks"] > 1 and plans["f16_g_ahead"]["g_regions"] == 2
    assert all(p["bands"] > 1 for p in plans.values())
    # the batch's accumulator planes and image-local ones (flushed and zeroed after image 0)
    assert plans["f16_chunks_bands"]["acc_imgs"] == 2 and plans["f16_g_ahead"]["acc_imgs"] == 2
    assert plans["f16_local_planes"]["acc_imgs"] == 1 and plans["f16_local_planes"]["num_chunks"] > 2


def _run(dtype, case, cores, inputs=None, budget=0):
    old_hbm = os.environ.get("TWIN_HBM_BYTES")
    if budget:
        os.environ["TWIN_HBM_BYTES"] = str(budget * HBM_PER_BUDGET)
    if cores or budget:
        set_vector_cores(cores)  # also re-reads TWIN_HBM_BYTES
    try:
        return run_twin(case, inputs if inputs is not None else make_inputs(case, dtype))
    finally:
        if budget:
            if old_hbm is None:
                del os.environ["TWIN_HBM_BYTES"]
            else:
                os.environ["TWIN_HBM_BYTES"] = old_hbm
        if cores or budget:
            set_vector_cores(0)


def _with_env(name, value, fn):
    old = os.environ.get(name)
    os.environ[name] = value
    try:
        return fn()
    finally:
        if old is None:
            del os.environ[name]
        else:
            os.environ[name] = old


def _list_sites(tmp_path):
    """{key: (kind, [matrix indices], innermost kernel frame)} of every op_kernel/ site, and the number
    of call stacks per file:line in one run (> 1: a helper or a duplicated instance)."""
    sites = {}
    stacks = {}
    for i in range(len(MATRIX)):
        dtype, case, cores, budget = _entry(i)
        path = tmp_path / f"sites_{i}.txt"
        _with_env("TWIN_SYNC_SITES", str(path), lambda: _run(dtype, case, cores, budget=budget))
        assert path.exists(), f"{case.name}: the twin listed no synchronisation site (TWIN_SYNC_SITES)"
        per_line = {}
        for row in path.read_text().splitlines():
            kind, key, frame = (row.split("\t") + [""])[:3]
            if not key.startswith("op_kernel/"):
                continue  # the twin's stand-ins of CANN's library internals are not kernel sites
            sites.setdefault(key, (kind, [], frame))[1].append(i)
            line = key.split("#")[0]
            per_line[line] = per_line.get(line, 0) + 1
        for line, n in per_line.items():
            stacks[line] = max(stacks.get(line, 0), n)
    return sites, stacks


def _kernel_callers(sites, stacks):
    """{key: 'op_kernel/<file>:<line>'}: the kernel source line that calls the helper holding a site,
    from the listed frame and the library's debug info (addr2line -i); {} when unavailable."""
    by_module = {}
    for key, (_, _, frame) in sites.items():
        if stacks[key.split("#")[0]] > 1 and "+0x" in frame:
            module, offs = frame.rsplit("+", 1)
            # return addresses, innermost first; -1: inside the call instruction
            by_module.setdefault(module, []).append((key, [int(o, 16) - 1 for o in offs.split(";")]))
    callers = {}
    for module, items in by_module.items():
        addrs = [a for _, frames in items for a in frames]
        try:
            out = subprocess.run(["addr2line", "-a", "-i", "-e", module] + [hex(a) for a in addrs],
                                 capture_output=True, text=True, timeout=120, check=True).stdout
        except (OSError, subprocess.SubprocessError):
            return {}
        chains, cur = [], None
        for row in out.splitlines():
            if row.startswith("0x"):
                cur = []
                chains.append(cur)
            elif cur is not None:
                at = row.find("op_kernel/")
                cur.append(row[at:].split(" ")[0] if at >= 0 else row)
        at = 0
        for key, frames in items:
            chain = [c for ch in chains[at:at + len(frames)] for c in ch]  # inline chains, innermost frame first
            at += len(frames)
            line = key.split("#")[0]
            kernel = [c for c in chain if c.startswith("op_kernel/")]
            if line in kernel and kernel.index(line) + 1 < len(kernel):
                callers[key] = kernel[kernel.index(line) + 1]
    return callers


def _mutations(sites, stacks, callers):
    """{name: (drop keys, kind, [matrix indices])}. A site reached along one call stack per run is
    dropped as "file:line" (= deleting that line: every instantiation). A helper's site is dropped per
    kernel line that calls the helper (all call stacks through that line at once); without debug info,
    per call stack."""
    out = {}
    for key, (kind, cases, _) in sites.items():
        line = key.split("#")[0]
        if stacks[line] == 1:
            name, drop = line, line
        elif key in callers:
            name, drop = f"{line} <- {callers[key]}", key
        else:
            name, drop = key, key
        entry = out.setdefault(name, ([], kind, []))
        if drop not in entry[0]:
            entry[0].append(drop)
        entry[2].extend(c for c in cases if c not in entry[2])
    return {k: (",".join(sorted(d)), kind, sorted(c)) for k, (d, kind, c) in sorted(out.items())}


def _drop_outcome(key, dtype, case, cores, budget, inputs):
    try:
        _with_env("TWIN_DROP_SYNC", key, lambda: _run(dtype, case, cores, inputs, budget))
    except Exception as e:  # noqa: BLE001 - the operator reports a kernel violation as an exception
        return str(e)
    return None


def _rule(message):
    for rule in HAZARD_RULES:
        at = message.find(rule)
        if at >= 0:
            end = message.find(":", at)
            return message[at:end if end > at else at + 60]
    return None




def test_every_kernel_sync_site_is_needed(tmp_path):
    require_twin()
    if os.environ.get("TWIN_HAZARD") == "0":
        pytest.skip("the hazard checker is off (TWIN_HAZARD=0); this test needs it")
    for i in range(len(MATRIX)):
        dtype, case, _, budget = _entry(i)
        assert not budget or chunk_plan(case, dtype, budget)["num_chunks"] > 1, f"{case.name}: one pixel chunk"
    t0 = time.time()
    sites, stacks = _list_sites(tmp_path)
    files = {k.split(":")[0] for k in sites}
    assert "op_kernel/deformable_conv2d_backward.cpp" in files, f"no SyncAll site found: {sorted(files)}"
    callers = _kernel_callers(sites, stacks)
    helpers = [k for k in sites if stacks[k.split("#")[0]] > 1]
    if helpers and not callers:
        pytest.skip("the kernel library has no debug info or addr2line is missing: helper call stacks "
                    "(PipeSync) cannot be mapped to kernel lines (build with cmake/twin_op.cmake's -g, "
                    "installed unstripped)")
    mutations = _mutations(sites, stacks, callers)
    inputs = {}
    unreported, other_errors, table = [], [], []
    for name, (key, kind, cases) in mutations.items():
        outcome = None
        for i in cases:  # another case may exercise the edge where it matters (e.g. the window path)
            dtype, case, cores, budget = _entry(i)
            if i not in inputs:
                inputs[i] = make_inputs(case, dtype)
            msg = _drop_outcome(key, dtype, case, cores, budget, inputs[i])
            rule = _rule(msg) if msg else None
            outcome = (case.name, rule, msg)
            if rule is not None:
                break
        _, rule, msg = outcome
        verdict = rule or ("NOT REPORTED" if msg is None else "other error: " + msg[:160])
        queue = kind.startswith("TQue::")
        request = kind.startswith("Matmul::IterateAll")
        informational = queue or request
        table.append(f"{name:66s} {kind:28s} {outcome[0]:16s} -> {verdict}"
                     f"{' (queue call: informational)' if queue and rule is None else ''}"
                     f"{' (Matmul request: informational)' if request and rule is None else ''}")
        if msg is not None and rule is None:
            other_errors.append(table[-1])
        elif rule is None and not informational:
            unreported.append(table[-1])
    report = "\n".join(table)
    print(f"\n{len(mutations)} sync-site mutations over {len(MATRIX)} cases in {time.time() - t0:.1f} s\n{report}")
    # A dropped site must not break the run in another way: the drop switch only removes ordering edges.
    assert not other_errors, "dropping a sync site raised something other than a hazard:\n" + "\n".join(other_errors)
    # Every synchronisation point is needed: one whose removal is not reported is either redundant (remove
    # it from op_kernel/) or guards a hazard the twin misses (fix the twin).
    assert not unreported, (
        f"{len(unreported)} synchronisation sites whose removal the hazard checker does not report (redundant: "
        "remove it from op_kernel/; or a hazard the twin misses: fix the twin):\n" + "\n".join(unreported))
