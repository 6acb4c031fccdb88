"""The aclnn entry points on the CPU twin, through the binding (ascend_dcn._C) and ascend_dcn.ops.

* success path on the DOC-B call example (op-semantics §6.5) against ascend_dcn.reference within
  CANN's precision standard (ascend_dcn.precision), all dtypes, both modulated modes;
* non-contiguous inputs (ops layer, and the generated layer's AutoContiguous through the raw binding);
* status-code paths of the C entry: null pointers (161001), an undeclared dtype (161002), contract
  violations found by the TilingFunc, workspace missing / too small, executor single-use.
Needs the twin's libraries (ascend_dcn/twin_lib or $ASCEND_DCN_TWIN_LIB_DIR) and the kernel; the
tests skip, saying why, when the native pieces are not built.
"""

import pytest
import torch

from ascend_dcn import errors, ops, reference
from ascend_dcn.precision import check_precision

DOC_EXAMPLE = dict(N=1, Cin=6, H=2, W=4, Cout=4, kernel_size=[5, 5], stride=[1, 1, 1, 1], padding=[2, 2, 2, 2],
                   dilation=[1, 1, 1, 1], groups=2, deformable_groups=1)


@pytest.fixture(scope="module")
def twin():
    from ascend_dcn import _backend
    try:
        return _backend.get_twin_opapi()
    except _backend.BackendUnavailableError as e:
        pytest.skip(f"CPU twin not available: {e}")


def make_case(dtype=torch.float32, modulated=True, seed=0, cfg=DOC_EXAMPLE):
    """Inputs in ``dtype`` (offsetOut = the reference forward's deformOut) + float64 copies of them."""
    g = torch.Generator().manual_seed(seed)
    ks, st, pd, dl = cfg["kernel_size"], cfg["stride"], cfg["padding"], cfg["dilation"]
    Ho, Wo = reference.out_hw(cfg["H"], cfg["W"], ks, st, pd, dl)
    K = ks[0] * ks[1]
    blocks = 3 if modulated else 2
    x = torch.randn(cfg["N"], cfg["Cin"], cfg["H"], cfg["W"], generator=g, dtype=torch.float64)
    w = torch.randn(cfg["Cout"], cfg["Cin"] // cfg["groups"], ks[0], ks[1], generator=g, dtype=torch.float64)
    off = torch.randn(cfg["N"], blocks * cfg["deformable_groups"] * K, Ho, Wo, generator=g, dtype=torch.float64)
    if modulated:  # keep masks positive-ish like real models
        off[:, 2 * cfg["deformable_groups"] * K:] = torch.rand(
            cfg["N"], cfg["deformable_groups"] * K, Ho, Wo, generator=g, dtype=torch.float64)
    go = torch.randn(cfg["N"], cfg["Cout"], Ho, Wo, generator=g, dtype=torch.float64)
    x, w, off, go = (t.to(dtype) for t in (x, w, off, go))
    attrs = dict(kernel_size=ks, stride=st, padding=pd, dilation=dl, groups=cfg["groups"],
                 deformable_groups=cfg["deformable_groups"], modulated=modulated)
    _, d = reference.deformable_conv2d(x.double(), w.double(), off.double(), None, **attrs)
    d = d.to(dtype)
    return (x, go, d, w, off), attrs


def golden(inputs, attrs):
    return reference.deformable_conv2d_backward(*(t.double() for t in inputs), **attrs)


def assert_close_to_golden(outputs, gold, dtype):
    names = ("grad_input", "grad_weight", "grad_offset", "grad_bias")
    for name, out, ref in zip(names, outputs, gold):
        assert out.dtype == dtype, name
        assert out.shape == ref.shape, name
        result = check_precision(out, ref, dtype)
        assert result.passed, result.summary(name)


@pytest.mark.parametrize("modulated", [True, False], ids=["modulated", "dcnv1"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=str)
def test_doc_example_matches_reference(twin, dtype, modulated):
    inputs, attrs = make_case(dtype, modulated)
    outputs = ops.deformable_conv2d_backward(*inputs, **attrs)
    assert_close_to_golden(outputs, golden(inputs, attrs), dtype)


def _outputs_like(inputs):
    x, go, _, w, off = inputs
    return (torch.empty_like(x), torch.empty_like(w), torch.empty_like(off),
            torch.empty(w.shape[0], dtype=go.dtype))


def _two_phase(twin, inputs, attrs, outputs, precheck=True, workspace_delta=0):
    size, executor = ops.get_workspace_size(*inputs, attrs["kernel_size"], attrs["stride"], attrs["padding"],
                                            attrs["dilation"], attrs["groups"], attrs["deformable_groups"],
                                            attrs["modulated"], *outputs, opapi=twin, precheck=precheck)
    workspace = torch.empty(max(size + workspace_delta, 0), dtype=torch.uint8)
    ops.execute(workspace, size + workspace_delta, executor, opapi=twin)
    return size


def test_two_phase_raw_entry_matches_reference(twin):
    inputs, attrs = make_case()
    outputs = _outputs_like(inputs)
    size = _two_phase(twin, inputs, attrs, outputs, precheck=False)
    assert size >= 0
    assert_close_to_golden(outputs, golden(inputs, attrs), torch.float32)


def test_non_contiguous_inputs_through_ops(twin):
    inputs, attrs = make_case(seed=3)
    contiguous = ops.deformable_conv2d_backward(*inputs, **attrs)
    # Same values, non-contiguous layouts (channels-last views, a transposed-back copy).
    strided = [t.to(memory_format=torch.channels_last) for t in inputs]
    strided[3] = inputs[3].transpose(2, 3).contiguous().transpose(2, 3)
    assert not any(t.is_contiguous() for t in strided)
    result = ops.deformable_conv2d_backward(*strided, **attrs)
    for a, b in zip(contiguous, result):
        assert torch.equal(a, b)


def test_non_contiguous_inputs_through_generated_layer(twin):
    """AutoContiguous: strided aclTensors handed straight to the C entry give the same result."""
    inputs, attrs = make_case(seed=4)
    ref_out = _outputs_like(inputs)
    _two_phase(twin, inputs, attrs, ref_out)
    strided = [t.to(memory_format=torch.channels_last) for t in inputs]
    out = _outputs_like(inputs)
    _two_phase(twin, strided, attrs, out, precheck=False)
    for a, b in zip(ref_out, out):
        assert torch.equal(a, b)


def test_null_tensor_is_161001_from_the_c_entry(twin):
    inputs, attrs = make_case()
    outputs = list(_outputs_like(inputs))
    for i in range(5):
        broken = list(inputs)
        broken[i] = None
        with pytest.raises(errors.AclnnNullptrError) as info:
            _two_phase(twin, broken, attrs, outputs, precheck=False)
        assert info.value.status == 161001


def test_null_int_array_is_161001_from_the_c_entry(twin):
    inputs, attrs = make_case()
    attrs = dict(attrs, stride=None)  # (dilation is OPTIONAL in the OpDef: null means its default)
    with pytest.raises(errors.AclnnNullptrError):
        _two_phase(twin, inputs, attrs, _outputs_like(inputs), precheck=False)


def test_undeclared_dtype_is_161002_from_the_c_entry(twin):
    inputs, attrs = make_case()
    inputs = [t.double() for t in inputs]
    outputs = [t.double() for t in _outputs_like(inputs)]
    with pytest.raises(errors.AclnnParamInvalidError) as info:
        _two_phase(twin, inputs, attrs, outputs, precheck=False)
    assert info.value.status == 161002


def test_contract_violation_with_precheck_names_the_argument(twin):
    inputs, attrs = make_case()
    with pytest.raises(errors.AclnnParamInvalidError) as info:
        _two_phase(twin, inputs, dict(attrs, groups=4), _outputs_like(inputs))
    assert (info.value.status, info.value.argument) == (161002, "groups")
    assert str(info.value).startswith("groups: ")


def test_contract_violation_in_tiling_is_rejected_by_the_c_entry(twin):
    """Without the binding's precheck the TilingFunc's own validation must still refuse the call."""
    inputs, attrs = make_case()
    with pytest.raises(errors.AclnnError) as info:
        _two_phase(twin, inputs, dict(attrs, groups=4), _outputs_like(inputs), precheck=False)
    assert info.value.status == 561002  # ACLNN_ERR_INNER_TILING_ERROR (docs/optype-collision.md)


def test_executor_is_single_use(twin):
    inputs, attrs = make_case()
    outputs = _outputs_like(inputs)
    size, executor = ops.get_workspace_size(*inputs, attrs["kernel_size"], attrs["stride"], attrs["padding"],
                                            attrs["dilation"], attrs["groups"], attrs["deformable_groups"],
                                            attrs["modulated"], *outputs, opapi=twin)
    workspace = torch.empty(size, dtype=torch.uint8)
    assert not executor.used
    try:
        ops.execute(workspace, size, executor, opapi=twin)
    except errors.AclnnError:
        pass  # whether the kernel succeeds is tested elsewhere; the executor is consumed either way
    assert executor.used
    with pytest.raises(ValueError, match="single-use"):
        ops.execute(workspace, size, executor, opapi=twin)


def test_workspace_too_small_is_an_error(twin):
    inputs, attrs = make_case()
    outputs = _outputs_like(inputs)
    size, executor = ops.get_workspace_size(*inputs, attrs["kernel_size"], attrs["stride"], attrs["padding"],
                                            attrs["dilation"], attrs["groups"], attrs["deformable_groups"],
                                            attrs["modulated"], *outputs, opapi=twin)
    if size == 0:
        pytest.skip("the operator needs no workspace for this shape")
    workspace = torch.empty(size - 1, dtype=torch.uint8)
    with pytest.raises(errors.AclnnParamInvalidError) as info:
        ops.execute(workspace, size - 1, executor, opapi=twin)
    assert info.value.status == 161002 and "workspaceSize" in str(info.value)


def test_workspace_missing_is_an_error(twin):
    inputs, attrs = make_case()
    outputs = _outputs_like(inputs)
    size, executor = ops.get_workspace_size(*inputs, attrs["kernel_size"], attrs["stride"], attrs["padding"],
                                            attrs["dilation"], attrs["groups"], attrs["deformable_groups"],
                                            attrs["modulated"], *outputs, opapi=twin)
    if size == 0:
        pytest.skip("the operator needs no workspace for this shape")
    with pytest.raises(errors.AclnnNullptrError) as info:
        ops.execute(None, size, executor, opapi=twin)
    assert info.value.status == 161001 and "workspace is null" in str(info.value)


def test_ops_validates_before_calling_native_code():
    """The Python contract check runs first: no native library is needed to get the exception."""
    inputs, attrs = make_case()
    with pytest.raises(errors.AclnnParamInvalidError) as info:
        ops.deformable_conv2d_backward(*inputs, **dict(attrs, deformable_groups=4))
    assert info.value.argument == "deformableGroups"
    with pytest.raises(errors.AclnnNullptrError):
        ops.deformable_conv2d_backward(inputs[0], None, *inputs[2:], **attrs)


def test_ops_rejects_unsupported_device():
    inputs, attrs = make_case()
    meta = [t.to("meta") for t in inputs]
    with pytest.raises(RuntimeError, match="not supported"):
        ops.deformable_conv2d_backward(*meta, **attrs)


def test_non_contiguous_output_is_a_clear_error_not_a_wrong_answer(twin):
    inputs, attrs = make_case()
    outputs = list(_outputs_like(inputs))
    outputs[0] = outputs[0].to(memory_format=torch.channels_last)
    with pytest.raises(errors.AclnnParamInvalidError) as info:
        _two_phase(twin, inputs, attrs, outputs, precheck=False)
    assert info.value.status == 161002 and "non-contiguous" in str(info.value)


def test_twin_platform_switch_keeps_results_bitwise(twin):
    """twin_set_platform (module and OpApi forms) changes the core count the kernel is given; the
    result must not change (determinism across core counts is tested in depth by the kernel tests)."""
    from ascend_dcn import _backend
    inputs, attrs = make_case(seed=7)
    try:
        _backend.twin_set_platform("Ascend910B2", 2)
        two_cores = ops.deformable_conv2d_backward(*inputs, **attrs)
        _backend.load_extension().twin_set_platform("Ascend910B2", 6)
        six_cores = ops.deformable_conv2d_backward(*inputs, **attrs)
    finally:
        twin.twin_set_platform("Ascend910B2", 0)
    for a, b in zip(two_cores, six_cores):
        assert torch.equal(a, b)


def test_workspace_tensor_smaller_than_claimed_size_is_refused_before_the_c_api(twin):
    inputs, attrs = make_case()
    outputs = _outputs_like(inputs)
    size, executor = ops.get_workspace_size(*inputs, attrs["kernel_size"], attrs["stride"], attrs["padding"],
                                            attrs["dilation"], attrs["groups"], attrs["deformable_groups"],
                                            attrs["modulated"], *outputs, opapi=twin)
    with pytest.raises(errors.AclnnParamInvalidError) as info:
        ops.execute(torch.empty(max(size // 2, 1), dtype=torch.uint8), size, executor, opapi=twin)
    assert info.value.argument == "workspace"
    assert not executor.used  # refused before the executor was consumed
