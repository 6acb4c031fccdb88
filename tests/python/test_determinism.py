"""Bitwise determinism of the kernel on the twin: repeated runs and 2, 7 and 48 vector cores
(twin_set_platform) must give identical bytes for all four outputs.

1 vector core: the kernel is MIX AIC:AIV = 1:2 (a block = 1 cube + 2 vector cores), which cannot be
launched on a platform with a single vector core; 2 is the smallest launchable configuration and 7
exercises an odd count (3 blocks, 6 working vector cores). The 1-core platform must be refused with a
clear error instead (test_single_vector_core_is_refused_clearly)."""
import pytest
import torch

from test_kernel_common import Case, make_inputs, require_twin, run_twin, set_vector_cores

CASES = [
    Case("dg2_groups2_tails", 2, 20, 12, 7, 9, groups=2, dg=2),
    Case("v1_dg4_stride2", 2, 16, 8, 9, 8, dg=4, stride=(2, 2), modulated=False),
]
CORE_COUNTS = (2, 7, 48)


def _bits(t):
    return t.contiguous().view(torch.uint8) if t.dtype != torch.float32 else t.contiguous().view(torch.int32)


@pytest.fixture
def restore_platform():
    yield
    try:
        set_vector_cores(0)
    except Exception:  # noqa: BLE001 - twin not built: nothing to restore
        pass


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_bitwise_across_runs_and_core_counts(case, dtype, restore_platform):
    require_twin()
    inputs = make_inputs(case, dtype, seed=3)
    results = []
    for cores in CORE_COUNTS:
        set_vector_cores(cores)
        results.append((cores, run_twin(case, inputs)))
    set_vector_cores(CORE_COUNTS[-1])
    results.append(("repeat", run_twin(case, inputs)))
    base_cores, base = results[0]
    for cores, outs in results[1:]:
        for name, a, b in zip(("grad_input", "grad_weight", "grad_offset", "grad_bias"), base, outs):
            assert torch.equal(_bits(a), _bits(b)), f"{name}: {base_cores} cores vs {cores} differ bitwise"


def test_single_vector_core_is_refused_clearly(restore_platform):
    require_twin()
    from ascend_dcn.errors import AclnnError
    case = CASES[0]
    inputs = make_inputs(case, "float32")
    set_vector_cores(1)
    with pytest.raises(AclnnError):
        run_twin(case, inputs)
