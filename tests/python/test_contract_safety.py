"""Aliasing rules of the contract through the two-phase API on the CPU twin (issue 18 point 3).

In place is allowed only as grad_input = input and grad_offset = offset, each the identical tensor
(docs/contract-safety.md); any other overlap of an output with an input or another output is 161002
naming both tensors. Kernel-agnostic: results are checked against the float64 reference.
"""
import pytest
import torch

from ascend_dcn import errors, ops
from test_aclnn_entry import _outputs_like, assert_close_to_golden, golden, make_case


@pytest.fixture(scope="module")
def twin():
    from ascend_dcn import _backend
    try:
        return _backend.get_twin_opapi()
    except _backend.BackendUnavailableError as e:
        pytest.skip(f"CPU twin not available: {e}")


def _phase1(twin, inputs, attrs, outputs):
    return ops.get_workspace_size(*inputs, attrs["kernel_size"], attrs["stride"], attrs["padding"],
                                  attrs["dilation"], attrs["groups"], attrs["deformable_groups"],
                                  attrs["modulated"], *outputs, opapi=twin)


def _run(twin, inputs, attrs, outputs):
    size, executor = _phase1(twin, inputs, attrs, outputs)
    ops.execute(torch.empty(size, dtype=torch.uint8), size, executor, opapi=twin)


def test_in_place_grad_input_and_grad_offset_are_correct(twin):
    inputs, attrs = make_case(seed=5)
    gold = golden(inputs, attrs)
    x, go, d, w, off = (t.clone() for t in inputs)
    outputs = (x, torch.empty_like(w), off, torch.empty(w.shape[0], dtype=go.dtype))  # grad_input=x, grad_offset=off
    _run(twin, (x, go, d, w, off), attrs, outputs)
    assert_close_to_golden(outputs, gold, torch.float32)


@pytest.mark.parametrize("case", ["grad_weight_is_grad_input", "grad_offset_overlaps_grad_input_tail"])
def test_overlapping_outputs_are_refused(twin, case):
    inputs, attrs = make_case()
    gi, gw, goff, gb = _outputs_like(inputs)
    if case == "grad_weight_is_grad_input":
        buf = torch.empty(max(gi.numel(), gw.numel()))
        gi, gw = buf[:gi.numel()].view(gi.shape), buf[:gw.numel()].view(gw.shape)
    else:
        buf = torch.empty(gi.numel() + goff.numel() - 1)
        gi, goff = buf[:gi.numel()].view(gi.shape), buf[gi.numel() - 1:].view(goff.shape)
    with pytest.raises(errors.AclnnParamInvalidError) as e:
        _phase1(twin, inputs, attrs, (gi, gw, goff, gb))
    msg = str(e.value)
    second = "grad_weight" if case == "grad_weight_is_grad_input" else "grad_offset"
    assert "grad_input" in msg and second in msg and "overlap" in msg, msg


@pytest.mark.parametrize("output,input_name", [("grad_weight", "weight"), ("grad_input", "offset_out"),
                                               ("grad_offset", "input")])
def test_output_aliasing_an_input_outside_the_allowed_pairs_is_refused(twin, output, input_name):
    inputs, attrs = make_case()
    names = ("input", "grad_output", "offset_out", "weight", "offset")
    outs = dict(zip(("grad_input", "grad_weight", "grad_offset", "grad_bias"), _outputs_like(inputs)))
    src = inputs[names.index(input_name)]
    n = outs[output].numel()
    buf = torch.empty(src.numel() + n)
    buf[:src.numel()] = src.reshape(-1)
    aliased_in = buf[:src.numel()].view(src.shape)
    outs[output] = buf[src.numel() // 2:src.numel() // 2 + n].view(outs[output].shape)  # partial overlap
    ins = list(inputs)
    ins[names.index(input_name)] = aliased_in
    with pytest.raises(errors.AclnnParamInvalidError) as e:
        _phase1(twin, ins, attrs, tuple(outs.values()))
    msg = str(e.value)
    assert f"output '{output}' overlaps input '{input_name}'" in msg, msg


# Size rules (issue 18 point 2). Phase 1 never reads tensor data, so these describe tensors through raw
# specs (address, shape, strides, dtype, format) far larger than this machine's memory. Inputs share one
# address (inputs may alias each other); each output gets its own range, so the aliasing rule holds.
BASE = 1 << 20
ELT = {"float32": 4, "float16": 2}


def _spec(addr, shape, dtype, fmt="NCHW"):
    strides, s = [], 1
    for d in reversed(shape):
        strides.insert(0, s)
        s *= d
    return (addr, list(shape), strides, dtype, fmt)


def _huge_call(n, cin, cout, groups, h=4, w=4, k=3, dtype="float32"):
    pad = (k - 1) // 2  # stride 1, dilation 1: Ho = H, Wo = W
    in_shapes = [[n, cin, h, w], [n, cout, h, w], [n, cin, h * k, w * k], [cout, cin // groups, k, k],
                 [n, 3 * k * k, h, w]]
    out_shapes = [[n, cin, h, w], [cout, cin // groups, k, k], [n, 3 * k * k, h, w], [cout]]
    inputs = [_spec(BASE, s, dtype) for s in in_shapes]
    addr = BASE + max(_numel(s) for s in in_shapes) * ELT[dtype] + BASE
    outputs = []
    for i, s in enumerate(out_shapes):
        outputs.append(_spec(min(addr, 2**63), s, dtype, "ND" if i == 3 else "NCHW"))  # (capped: check-only use)
        addr += _numel(s) * ELT[dtype] + BASE
    attrs = [[k, k], [1, 1, 1, 1], [pad] * 4, [1, 1, 1, 1], groups, 1, True]
    return inputs, attrs, outputs


def _numel(shape):
    p = 1
    for d in shape:
        p *= d
    return p


def test_tensor_whose_byte_size_overflows_int64_is_refused_naming_it():
    from ascend_dcn import _backend
    try:
        ext = _backend.load_extension()
    except _backend.BackendUnavailableError as e:
        pytest.skip(f"ascend_dcn._C not built: {e}")
    # input [2^50, 65536, 1, 1]: 2^66 elements, while every attribute and shape rule holds.
    inputs, attrs, outputs = _huge_call(2**50, 65536, 2, 2, h=1, w=1, k=1)
    status, argument, message = ext.check_backward_args(inputs, attrs, outputs)
    assert (status, argument) == (errors.ACLNN_ERR_PARAM_INVALID, "input"), message
    assert "must fit in int64" in message


@pytest.mark.parametrize("cin,k,dtype", [(2**30, 3, "float32"), (2**56, 1, "float16")],
                         ids=["workspace-past-device-memory", "workspace-past-2^64"])
def test_huge_workspace_fails_the_tiling(twin, cin, k, dtype):
    # groups = Cin = Cout: every tensor fits int64 and the contract holds, but the workspace is more than
    # the 64 GiB of Ascend910B2 (2^30), or more than 2^64 bytes (2^56: the sum used to wrap to a small,
    # wrong size and phase 1 succeeded).
    from ascend_dcn import _backend
    call = _huge_call(1, cin, cin, cin, k=k, dtype=dtype)
    last = call[2][-1]
    assert last[0] + _numel(last[1]) * ELT[dtype] < 2**63  # distinct, uncapped output ranges
    with pytest.raises(Exception) as e:
        twin.get_workspace_size(*call, precheck=True)
    err = _backend.translate_error(e.value) if _backend.is_call_error(e.value) else e.value
    assert isinstance(err, errors.AclnnError) and err.status == 561002, repr(e.value)
