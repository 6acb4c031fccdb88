"""A short Python operator run for the ThreadSanitizer CI step (scripts/test_all.sh).

Runs one DeformableConv2dBackward through ascend_dcn.ops on the CPU twin and checks it against the
float64 reference. The CI step runs it with ASCEND_DCN_TWIN_LIB_DIR=<build-tsan> (the TSan-built
libcust_opapi.so + libnnopbase.so), libtsan preloaded and TWIN_THREADS=4, so the virtual cores run
on several pool threads and TSan watches the whole operator path behind the Python binding (aclnn
layer, tiling, kernel stages, scheduler). Exits non-zero if the libraries are not the ones named by
ASCEND_DCN_TWIN_LIB_DIR, if the gradients miss the precision standard, or (halt_on_error) on a race.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

from ascend_dcn import _backend  # noqa: E402
from ascend_dcn.precision import check_precision  # noqa: E402
from test_kernel_common import Case, make_inputs, run_reference, run_twin  # noqa: E402


def main():
    lib_dir = os.path.realpath(os.environ[_backend.TWIN_LIB_DIR_ENV])
    opapi, runtime = _backend.twin_library_paths()
    for path in [opapi, *runtime]:
        if not os.path.realpath(path).startswith(lib_dir + os.sep):
            sys.exit(f"twin library {path} is not from {lib_dir}")
    # groups 2, deformable groups 2, several output pixel bands: many cores with work each.
    case = Case("tsan_python_run", 2, 16, 8, 6, 7, groups=2, dg=2)
    inputs = make_inputs(case, "float32")
    got = run_twin(case, inputs)
    want = run_reference(case, inputs)
    failures = []
    for name, g, w in zip(("grad_input", "grad_weight", "grad_offset", "grad_bias"), got, want):
        r = check_precision(g, w, "float32")
        if not r.passed:
            failures.append(r.summary(name))
    if failures:
        sys.exit("\n".join(failures))
    print(f"tsan python operator run: PASS ({opapi})")


if __name__ == "__main__":
    main()
