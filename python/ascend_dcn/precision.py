"""The project's precision standard (CANN style: "double ten-thousandth" for fp32, "double
thousandth" for fp16/bf16), shared by scripts/verify_result.py and every test that compares an
output with the float64 golden.

Exact formula, per output tensor, with golden g (float64) and actual a (converted to float64):

    s      = mean(|g|) over the finite elements of g      (s = 1 if that mean is 0 or undefined)
    tol_i  = thr * max(|g_i|, s)  +  u_T * |g_i|
    fail_i = not (|a_i - g_i| <= tol_i)                   (finite g_i)
    fail_i = not (a_i is g_i)                             (non-finite g_i: NaN must be NaN, +-Inf equal)
    ratio  = count(fail) / numel ;   PASS  <=>  shapes equal and ratio <= thr

    thr = 1e-4 (float32), 1e-3 (float16, bfloat16)
    u_T = unit roundoff of the output dtype: 2**-24 (float32), 2**-11 (float16), 2**-8 (bfloat16)

The relative bound thr*|g_i| is the standard; the floor s (the tensor's mean magnitude) keeps
elements whose golden value is ~0 by cancellation from failing on absolute noise at the scale of the
tensor; u_T*|g_i| allows the unavoidable final rounding of the golden to the output dtype (without
it, even the exactly rounded golden fails the bfloat16 standard, whose unit roundoff 2**-8 > 1e-3).
max_rel_err reported = max_i |a_i - g_i| / max(|g_i|, s) over finite golden elements.
"""

from dataclasses import dataclass

import numpy as np
import torch

__all__ = ["PrecisionResult", "check_precision", "THRESHOLDS", "UNIT_ROUNDOFF", "dtype_name"]

THRESHOLDS = {"float32": 1e-4, "float16": 1e-3, "bfloat16": 1e-3}
UNIT_ROUNDOFF = {"float32": 2.0 ** -24, "float16": 2.0 ** -11, "bfloat16": 2.0 ** -8}


def dtype_name(dtype):
    """'float32' | 'float16' | 'bfloat16' from a torch dtype, numpy dtype or string."""
    if isinstance(dtype, torch.dtype):
        name = str(dtype).replace("torch.", "")
    else:
        name = str(np.dtype(dtype)) if not isinstance(dtype, str) else dtype
    if name not in THRESHOLDS:
        raise ValueError(f"dtype: precision standard defined for {sorted(THRESHOLDS)}; got {name}")
    return name


@dataclass
class PrecisionResult:
    passed: bool
    dtype: str
    threshold: float
    numel: int
    fail_count: int
    error_ratio: float
    max_rel_err: float
    message: str = ""

    def __bool__(self):
        return self.passed

    def summary(self, name=""):
        verdict = "PASS" if self.passed else "FAIL"
        label = f"{name}: " if name else ""
        extra = f" ({self.message})" if self.message else ""
        return (f"{label}{verdict} dtype={self.dtype} error_ratio={self.error_ratio:.3e} "
                f"(fails {self.fail_count}/{self.numel}, limit {self.threshold:g}) "
                f"max_rel_err={self.max_rel_err:.3e}{extra}")


def _as_f64(a):
    if isinstance(a, torch.Tensor):
        return a.detach().to("cpu", torch.float64).numpy()
    return np.asarray(a, dtype=np.float64)


def check_precision(actual, golden, dtype):
    """Compare ``actual`` with ``golden`` under the standard for ``dtype`` (the output dtype)."""
    name = dtype_name(dtype)
    thr, u = THRESHOLDS[name], UNIT_ROUNDOFF[name]
    a, g = _as_f64(actual), _as_f64(golden)
    if a.shape != g.shape:
        return PrecisionResult(False, name, thr, int(g.size), int(g.size), 1.0, float("inf"),
                               f"shape mismatch: expected {list(g.shape)}, got {list(a.shape)}")
    n = int(g.size)
    if n == 0:
        return PrecisionResult(True, name, thr, 0, 0, 0.0, 0.0, "empty")
    finite = np.isfinite(g)
    absg = np.abs(np.where(finite, g, 0.0))
    scale = float(absg[finite].mean()) if finite.any() else 0.0
    if not scale > 0.0:
        scale = 1.0
    denom = np.maximum(absg, scale)
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(a - np.where(finite, g, 0.0))
        ok_finite = diff <= thr * denom + u * absg           # NaN diff compares False -> fail
        same_nonfinite = (np.isnan(a) & np.isnan(g)) | (a == g)
    ok = np.where(finite, ok_finite, same_nonfinite)
    fails = int(n - np.count_nonzero(ok))
    rel = np.where(finite, diff / denom, 0.0)
    rel = np.where(np.isnan(rel), np.inf, rel)
    max_rel = float(rel.max()) if n else 0.0
    ratio = fails / n
    return PrecisionResult(ratio <= thr, name, thr, n, fails, ratio, max_rel)
