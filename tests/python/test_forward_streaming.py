"""The streaming CPU forward (ascend_dcn.forward): results do not depend on the band size, they match
the float64 reference under the precision standard, and the memory-saving mode really keeps the
forward's peak memory at the output plus one band (measured in a fresh process)."""
import json
import os
import subprocess
import sys
import textwrap
import threading

import pytest
import torch

from ascend_dcn import _blas_threads, forward, precision, reference

# (N, Cin, Cout, H, W, kernel, stride, padding, dilation, groups, dg, modulated)
CASES = {
    "plain": (2, 8, 6, 9, 11, (3, 3), [1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], 1, 1, True),
    "g2_dg4_s2": (2, 8, 4, 10, 9, (3, 3), [1, 1, 2, 2], [1, 1, 1, 1], [1, 1, 1, 1], 2, 4, True),
    "v1_asym_dil": (1, 6, 6, 8, 10, (3, 2), [1, 1, 1, 2], [2, 0, 1, 1], [1, 1, 2, 1], 3, 2, False),
    "1x1": (3, 4, 5, 5, 4, (1, 1), [1, 1, 1, 1], [0, 0, 0, 0], [1, 1, 1, 1], 1, 1, True),
}


def _make(case, dtype=torch.float32, seed=0):
    N, C, Co, H, W, ks, st, pd, dl, groups, dg, modulated = case
    g = torch.Generator().manual_seed(seed)
    Ho, Wo = forward.output_size(H, W, ks, st, pd, dl)
    K = ks[0] * ks[1]
    x = torch.randn(N, C, H, W, generator=g)
    w = torch.randn(Co, C // groups, *ks, generator=g)
    b = torch.randn(Co, generator=g)
    off = torch.randn(N, 2 * dg * K, Ho, Wo, generator=g) * 3     # many samples fall outside
    if modulated:
        off = torch.cat([off, torch.rand(N, dg * K, Ho, Wo, generator=g) * 2 - 0.5], dim=1)
    args = (x.to(dtype), w.to(dtype), off.to(dtype), b.to(dtype), list(ks), st, pd, dl, groups, dg,
            modulated)
    return args


@pytest.mark.parametrize("name", sorted(CASES))
def test_band_size_does_not_change_results(name, monkeypatch):
    args = _make(CASES[name])
    out_big, d_big = forward.deformable_conv2d_forward(*args)
    monkeypatch.setattr(forward, "BAND_BYTES", 1)        # one output row per band
    assert forward.band_rows(2, 8, 9, 9, 11, 4) == 1
    out_row, d_row = forward.deformable_conv2d_forward(*args)
    assert torch.equal(d_big, d_row)                    # sampling is elementwise: bitwise equal
    torch.testing.assert_close(out_big, out_row, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_forward_matches_reference(name, dtype, monkeypatch):
    monkeypatch.setattr(forward, "BAND_BYTES", 3000)    # several bands and a remainder band
    args = _make(CASES[name], dtype)
    out, d = forward.deformable_conv2d_forward(*args)
    ref_out, ref_d = reference.deformable_conv2d(*[a.double() if torch.is_tensor(a) else a for a in args])
    assert out.dtype == dtype and d.dtype == dtype
    for got, want in ((out, ref_out), (d, ref_d)):
        r = precision.check_precision(got, want, precision.dtype_name(dtype))
        assert r.passed, r


@pytest.mark.parametrize("name", sorted(CASES))
def test_thread_count_does_not_change_results(name, monkeypatch):
    monkeypatch.setattr(forward, "SAMPLES_PER_THREAD", 1)   # small test bands: still every thread
    args = _make(CASES[name])
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        out1, d1 = forward.deformable_conv2d_forward(*args)
        torch.set_num_threads(3)                       # more workers than cores: uneven item ranges
        out3, d3 = forward.deformable_conv2d_forward(*args)
        out3b, d3b = forward.deformable_conv2d_forward(*args)
        assert torch.get_num_threads() == 3            # never changed by the forward
    finally:
        torch.set_num_threads(before)
    assert torch.equal(d1, d3)                          # each sample is one thread's, in a fixed order
    assert torch.equal(out3, out3b) and torch.equal(d3, d3b)
    torch.testing.assert_close(out1, out3, rtol=1e-5, atol=1e-5)   # the GEMM is torch's


@pytest.mark.parametrize("small_gemms", [True, False])
def test_forward_never_changes_the_process_wide_thread_count(small_gemms, monkeypatch):
    # torch.set_num_threads is process-wide: another thread of the user's process would see it change
    # while the forward runs. Small band GEMMs must run serially through a per-thread setting instead.
    before = torch.get_num_threads()
    torch.set_num_threads(2)           # a count the forward's old GEMM guard would have lowered to 1
    calls = []
    try:
        monkeypatch.setattr(torch, "set_num_threads", lambda n: calls.append(n))
        if not small_gemms:
            monkeypatch.setattr(forward, "GEMM_FLOPS_PER_THREAD", 0)
        for name in sorted(CASES):
            for dtype in (torch.float32, torch.float64):
                forward.deformable_conv2d_forward(*_make(CASES[name], dtype))
        assert calls == [] and torch.get_num_threads() == 2
    finally:
        monkeypatch.undo()
        torch.set_num_threads(before)


@pytest.mark.skipif(not _blas_threads.has_thread_local_blas(),
                    reason="torch's BLAS here has no per-thread thread count (not MKL): serial_blas is a no-op")
def test_serial_blas_is_local_to_the_calling_thread():
    import ctypes
    lib = ctypes.CDLL(os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cpu.so"))
    mkl_max = lib.MKL_Get_Max_Threads           # honours the calling thread's per-thread setting
    mkl_max.restype = ctypes.c_int
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        outside = mkl_max()
        seen = []
        with _blas_threads.serial_blas():
            inside = mkl_max()
            t = threading.Thread(target=lambda: seen.append((mkl_max(), torch.get_num_threads())))
            t.start()
            t.join()
            assert torch.get_num_threads() == 2
        assert (outside, inside, mkl_max()) == (2, 1, 2)     # serial inside, restored after
        assert seen == [(2, 2)]                               # another thread: unaffected
    finally:
        torch.set_num_threads(before)


def test_float64_stays_float64():
    args = _make(CASES["g2_dg4_s2"], torch.float64)
    out, d = forward.deformable_conv2d_forward(*args)
    ref_out, ref_d = reference.deformable_conv2d(*args)
    assert out.dtype == torch.float64
    torch.testing.assert_close(out, ref_out, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(d, ref_d, rtol=1e-12, atol=1e-12)


def test_no_deform_out_mode_gives_the_same_output():
    args = _make(CASES["g2_dg4_s2"])
    out, _ = forward.deformable_conv2d_forward(*args)
    out2, d2 = forward.deformable_conv2d_forward(*args, need_deform_out=False)
    assert d2 is None and torch.equal(out, out2)


def test_invalid_corners_never_read_the_image():
    # an image full of inf: every sample lies outside it, so every corner is invalid and deformOut is 0
    x = torch.full((1, 2, 4, 4), float("inf"))
    w = torch.ones(3, 2, 3, 3)
    off = torch.full((1, 27, 4, 4), 100.0)
    off[:, 18:] = 1.0
    out, d = forward.deformable_conv2d_forward(x, w, off, None, [3, 3], [1, 1, 1, 1], [1, 1, 1, 1],
                                               [1, 1, 1, 1], 1, 1, True)
    assert torch.equal(d, torch.zeros_like(d)) and torch.equal(out, torch.zeros_like(out))
    assert not torch.signbit(d).any()                   # +0, not -0


PEAK_SCRIPT = textwrap.dedent("""
    import json, sys, torch
    from ascend_dcn import forward
    torch.set_num_threads(1)
    forward.BAND_BYTES = 1 << 20
    def kib(key):
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    N, C, Co, H, W = 2, 128, 64, 48, 48
    g = torch.Generator().manual_seed(0)
    x = torch.randn(N, C, H, W, generator=g); w = torch.randn(Co, C, 3, 3, generator=g)
    off = torch.randn(N, 27, H, W, generator=g); off[:, 18:] = 0.5
    args = (x, w, off, None, [3, 3], [1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], 1, 1, True)
    for _ in range(2):   # warm-up: lets malloc settle its thresholds and arenas first
        forward.deformable_conv2d_forward(*args, need_deform_out=False)
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    base = kib("VmRSS")
    out, _ = forward.deformable_conv2d_forward(*args, need_deform_out=sys.argv[1] == "1")
    print(json.dumps({"peak_kib": kib("VmHWM") - base}))
""")


def _peak_kib(need_deform_out):
    res = subprocess.run([sys.executable, "-c", PEAK_SCRIPT, "1" if need_deform_out else "0"],
                         capture_output=True, text=True, timeout=300)
    if res.returncode != 0 and "clear_refs" in res.stderr:
        pytest.skip("this kernel does not allow resetting the peak RSS (/proc/self/clear_refs)")
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout.strip().splitlines()[-1])["peak_kib"]


@pytest.mark.skipif(not os.path.exists("/proc/self/clear_refs"), reason="needs Linux /proc")
def test_peak_memory_is_bounded_by_one_band():
    deform_out_kib = 2 * 128 * 9 * 48 * 48 * 4 / 1024           # 20.25 MiB; bands of 1 MiB
    lean = _peak_kib(False)
    full = _peak_kib(True)
    # without deformOut the forward holds the output (1.1 MiB) and one band of columns (1 MiB):
    # well under deformOut ...
    assert lean < 0.4 * deform_out_kib, (lean, deform_out_kib)
    # ... and with it, deformOut plus about the same: never the 4-corner intermediates of the
    # whole tensor (the previous vectorised forward peaked at several times deformOut)
    assert 0.9 * deform_out_kib < full < deform_out_kib + lean + 4096, (full, lean, deform_out_kib)
