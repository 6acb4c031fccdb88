"""Drop-in parity with torch_npu, torchvision and mmcv (issue 16 points 1-5 and 8).

Each claim "this function has library X's signature" is held against X's published signature
(torch_npu's op schema, torchvision's and mmcv's Python definitions, written out below as data);
plus return values, N = 0, float64, forward-time validation and its messages, exception types,
TorchScript, the mmcv namespace and the mmengine registry.
"""
import inspect
import re
import sys
import types
import warnings

import pytest
import torch

import ascend_dcn
from ascend_dcn import errors, mmcv as dcn_mmcv, modules, ops, reference

# --------------------------------------------------------------------------------------------
# published signatures (names, order, defaults); "<req>" = no default
REQ = "<req>"
TORCH_NPU_SCHEMAS = {
    # torch_npu's registered schemas (op-plugin), verbatim
    "deformable_conv2d": "npu_deformable_conv2d(Tensor input, Tensor weight, Tensor offset, Tensor? bias, "
                         "int[2] kernel_size, int[] stride, int[] padding, int[] dilation=[1,1,1,1], "
                         "int groups=1, int deformable_groups=1, bool modulated=True) -> (Tensor, Tensor)",
    "deformable_conv2d_backward": "npu_deformable_conv2dbk(Tensor input, Tensor grad_output, Tensor offset_out, "
                                  "Tensor weight, Tensor offset, int[2] kernel_size, int[] stride, int[] padding, "
                                  "int[] dilation=[1,1,1,1], int groups=1, int deformable_groups=1, "
                                  "bool modulated=True) -> (Tensor, Tensor, Tensor, Tensor)",
}
TORCHVISION = {
    "deform_conv2d": [("input", REQ), ("offset", REQ), ("weight", REQ), ("bias", None), ("stride", (1, 1)),
                      ("padding", (0, 0)), ("dilation", (1, 1)), ("mask", None)],
    "DeformConv2d": [("in_channels", REQ), ("out_channels", REQ), ("kernel_size", REQ), ("stride", 1),
                     ("padding", 0), ("dilation", 1), ("groups", 1), ("bias", True)],
    "DeformConv2d.forward": [("input", REQ), ("offset", REQ), ("mask", None)],
}
MMCV = {
    "deform_conv2d": [("input", REQ), ("offset", REQ), ("weight", REQ), ("stride", 1), ("padding", 0),
                      ("dilation", 1), ("groups", 1), ("deform_groups", 1), ("bias", False), ("im2col_step", 32)],
    "modulated_deform_conv2d": [("input", REQ), ("offset", REQ), ("mask", REQ), ("weight", REQ), ("bias", None),
                                ("stride", 1), ("padding", 0), ("dilation", 1), ("groups", 1),
                                ("deform_groups", 1)],
    "DeformConv2d": [("in_channels", REQ), ("out_channels", REQ), ("kernel_size", REQ), ("stride", 1),
                     ("padding", 0), ("dilation", 1), ("groups", 1), ("deform_groups", 1), ("bias", False),
                     ("im2col_step", 32)],
    "ModulatedDeformConv2d": [("in_channels", REQ), ("out_channels", REQ), ("kernel_size", REQ), ("stride", 1),
                              ("padding", 0), ("dilation", 1), ("groups", 1), ("deform_groups", 1),
                              ("bias", True)],
    "DeformConv2d.forward": [("x", REQ), ("offset", REQ)],
    "ModulatedDeformConv2d.forward": [("x", REQ), ("offset", REQ), ("mask", REQ)],
    "Pack.forward": [("x", REQ)],
}


def _schema_params(schema):
    args = schema[schema.index("(") + 1:schema.index(") ->")]
    out = []
    for a in args.split(", "):
        decl, _, default = a.partition("=")
        name = decl.split()[-1]
        if not default:
            out.append((name, REQ))
        else:
            out.append((name, eval(default)))
    return out


def _params(fn, skip_self=True):
    ps = list(inspect.signature(fn).parameters.values())
    if skip_self and ps and ps[0].name == "self":
        ps = ps[1:]
    return ps


def _assert_prefix(fn, expected, extra_ok=("save_deform_out",)):
    """fn's leading parameters are exactly `expected` (names, order, kind, defaults); any further
    parameter is one of our documented extensions and has a default."""
    ps = _params(fn)
    assert [p.name for p in ps[:len(expected)]] == [n for n, _ in expected], fn
    for p, (name, default) in zip(ps, expected):
        assert p.kind in (p.POSITIONAL_OR_KEYWORD, p.POSITIONAL_ONLY), (fn, name)
        if default is REQ:
            assert p.default is inspect.Parameter.empty, (fn, name)
        else:
            got = p.default
            assert got is not inspect.Parameter.empty and (
                got == default or (isinstance(got, (list, tuple)) and list(got) == list(default))), (fn, name, got)
    for p in ps[len(expected):]:
        assert p.name in extra_ok + ("deformable_groups",) and p.default is not inspect.Parameter.empty, (fn, p)


def test_torch_npu_signatures_match_its_schema():
    _assert_prefix(ascend_dcn.deformable_conv2d, _schema_params(TORCH_NPU_SCHEMAS["deformable_conv2d"]))
    _assert_prefix(ascend_dcn.deformable_conv2d_backward,
                   _schema_params(TORCH_NPU_SCHEMAS["deformable_conv2d_backward"]))


def test_torchvision_signatures_match():
    _assert_prefix(ascend_dcn.deform_conv2d, TORCHVISION["deform_conv2d"])
    _assert_prefix(ascend_dcn.DeformConv2d.__init__, TORCHVISION["DeformConv2d"])
    _assert_prefix(ascend_dcn.DeformConv2d.forward, TORCHVISION["DeformConv2d.forward"])


def test_mmcv_signatures_match():
    _assert_prefix(dcn_mmcv.deform_conv2d, MMCV["deform_conv2d"])
    _assert_prefix(dcn_mmcv.modulated_deform_conv2d, MMCV["modulated_deform_conv2d"])
    # mmcv's __init__ is wrapped by deprecated_api_warning; ours forwards to _setup likewise
    _assert_prefix(dcn_mmcv.DeformConv2d._setup, MMCV["DeformConv2d"])
    _assert_prefix(dcn_mmcv.ModulatedDeformConv2d._setup, MMCV["ModulatedDeformConv2d"])
    _assert_prefix(dcn_mmcv.DeformConv2d.forward, MMCV["DeformConv2d.forward"])
    _assert_prefix(dcn_mmcv.ModulatedDeformConv2d.forward, MMCV["ModulatedDeformConv2d.forward"])
    _assert_prefix(dcn_mmcv.DeformConv2dPack.forward, MMCV["Pack.forward"])
    _assert_prefix(dcn_mmcv.ModulatedDeformConv2dPack.forward, MMCV["Pack.forward"])
    assert issubclass(dcn_mmcv.DeformConv2dPack, dcn_mmcv.DeformConv2d)
    assert issubclass(dcn_mmcv.ModulatedDeformConv2dPack, dcn_mmcv.ModulatedDeformConv2d)
    # the top-level Pack modules take mmcv's constructor arguments too (plus our extensions)
    _assert_prefix(ascend_dcn.DeformConv2dPack.__init__, MMCV["DeformConv2d"])
    _assert_prefix(ascend_dcn.ModulatedDeformConv2dPack.__init__, MMCV["ModulatedDeformConv2d"])


def test_top_level_names_stay_torchvisions():
    assert ascend_dcn.deform_conv2d is ascend_dcn.functional.deform_conv2d
    assert ascend_dcn.DeformConv2d is modules.DeformConv2d
    assert ascend_dcn.mmcv.deform_conv2d is not ascend_dcn.deform_conv2d


# --------------------------------------------------------------------------------------------
# point 1: torch_npu's return value
def test_deformable_conv2d_returns_output_and_offset_out():
    g = torch.Generator().manual_seed(1)
    x = torch.randn(2, 4, 6, 5, generator=g)
    w = torch.randn(8, 4, 3, 3, generator=g)
    off = torch.randn(2, 27, 6, 5, generator=g)
    result = ascend_dcn.deformable_conv2d(x, w, off, None, [3, 3], [1, 1, 1, 1], [1, 1, 1, 1])
    assert isinstance(result, tuple) and len(result) == 2
    output, offset_out = result              # with N = 2 a bare tensor would have split the batch
    assert output.shape == (2, 8, 6, 5) and offset_out.shape == (2, 4, 18, 15)
    assert offset_out.dtype == x.dtype and not offset_out.requires_grad
    ref_out, ref_d = reference.deformable_conv2d(x.double(), w.double(), off.double(), None, [3, 3],
                                                 [1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1])
    torch.testing.assert_close(output.double(), ref_out, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(offset_out.double(), ref_d, rtol=1e-5, atol=1e-5)


# --------------------------------------------------------------------------------------------
# point 2: N = 0 and float64
def _tv_args(N, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.rand(N, 6, 5, 4, generator=g, dtype=dtype)
    off = torch.randn(N, 3 * 2 * 6, 2, 3, generator=g, dtype=dtype) * 0.7
    mask = torch.rand(N, 3 * 6, 2, 3, generator=g, dtype=dtype)
    w = torch.randn(2, 3, 3, 2, generator=g, dtype=dtype)
    b = torch.randn(2, generator=g, dtype=dtype)
    return x, off, mask, w, b


TV_ATTRS = dict(stride=(2, 1), padding=(1, 0), dilation=(2, 1))


def _layers():
    """(name, module, input shape) of every layer, with an input of N = 0 and C = 4."""
    return [
        ("DeformConv2d", ascend_dcn.DeformConv2d(4, 6, 3, padding=1)),
        ("DeformConv2dPack", ascend_dcn.DeformConv2dPack(4, 6, 3, padding=1, bias=True)),
        ("ModulatedDeformConv2dPack", ascend_dcn.ModulatedDeformConv2dPack(4, 6, 3, padding=1)),
        ("mmcv.DeformConv2d", dcn_mmcv.DeformConv2d(4, 6, 3, padding=1)),
        ("mmcv.DeformConv2dPack", dcn_mmcv.DeformConv2dPack(4, 6, 3, padding=1)),
        ("mmcv.ModulatedDeformConv2d", dcn_mmcv.ModulatedDeformConv2d(4, 6, 3, padding=1)),
        ("mmcv.ModulatedDeformConv2dPack", dcn_mmcv.ModulatedDeformConv2dPack(4, 6, 3, padding=1)),
    ]


def _call(name, layer, x):
    N, _, H, W = x.shape
    offset = torch.zeros(N, 18, H, W, dtype=x.dtype, requires_grad=True)
    if name in ("DeformConv2d", "mmcv.DeformConv2d"):
        return layer(x, offset)
    if name == "mmcv.ModulatedDeformConv2d":
        return layer(x, offset, torch.ones(N, 9, H, W, dtype=x.dtype))
    return layer(x)


@pytest.fixture
def operator_forbidden(monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("the operator must not run for an empty batch")
    monkeypatch.setattr(ops, "deformable_conv2d_backward", forbidden)
    monkeypatch.setattr(ascend_dcn.forward, "deformable_conv2d_forward", forbidden)
    monkeypatch.setattr(ascend_dcn.forward, "sample_deform_out", forbidden)


@pytest.mark.parametrize("index", range(7))
def test_empty_batch_through_every_layer(index, operator_forbidden):
    name, layer = _layers()[index]
    x = torch.rand(0, 4, 5, 5, requires_grad=True)
    y = _call(name, layer, x)
    assert y.shape == (0, 6, 5, 5)
    y.sum().backward()
    for pname, p in layer.named_parameters():
        assert p.grad is not None and torch.count_nonzero(p.grad) == 0, (name, pname)
    assert x.grad.shape == x.shape


@pytest.mark.parametrize("save_deform_out", [True, False])
def test_empty_batch_through_every_function(operator_forbidden, save_deform_out):
    x, off, mask, w, b = (t.requires_grad_() for t in _tv_args(0))
    out = ascend_dcn.deform_conv2d(x, off, w, b, mask=mask, save_deform_out=save_deform_out, **TV_ATTRS)
    assert out.shape == (0, 2, 2, 3)
    out.sum().backward()
    assert torch.count_nonzero(w.grad) == 0 and torch.count_nonzero(b.grad) == 0
    xa = torch.rand(0, 4, 5, 5, requires_grad=True)
    wa = torch.randn(3, 4, 3, 3, requires_grad=True)
    out, offset_out = ascend_dcn.deformable_conv2d(xa, wa, torch.zeros(0, 27, 5, 5), None, [3, 3], [1, 1, 1, 1],
                                                   [1, 1, 1, 1], save_deform_out=save_deform_out)
    assert out.shape == (0, 3, 5, 5) and offset_out.shape == (0, 4, 15, 15)
    out.sum().backward()
    assert torch.count_nonzero(wa.grad) == 0
    assert dcn_mmcv.deform_conv2d(xa, torch.zeros(0, 18, 5, 5), wa, 1, 1).shape == (0, 3, 5, 5)
    assert dcn_mmcv.modulated_deform_conv2d(xa, torch.zeros(0, 18, 5, 5), torch.ones(0, 9, 5, 5), wa, None,
                                            1, 1).shape == (0, 3, 5, 5)


def test_gradcheck_float64_through_the_functions():
    x, off, mask, w, b = (t.requires_grad_() for t in _tv_args(2, torch.float64, seed=3))
    assert torch.autograd.gradcheck(
        lambda x_, o_, m_, w_, b_: ascend_dcn.deform_conv2d(x_, o_, w_, b_, mask=m_, **TV_ATTRS),
        (x, off, mask, w, b), nondet_tol=1e-5, fast_mode=True)
    assert torch.autograd.gradcheck(
        lambda x_, o_, w_, b_: ascend_dcn.deform_conv2d(x_, o_, w_, b_, **TV_ATTRS),
        (x, off, w, b), nondet_tol=1e-5, fast_mode=True)
    off_asc = (torch.rand(1, 27, 4, 4, dtype=torch.float64) * 2 - 1 + 0.13).requires_grad_()
    assert torch.autograd.gradcheck(
        lambda x_, w_, o_: ascend_dcn.deformable_conv2d(x_, w_, o_, None, [3, 3], [1, 1, 1, 1], [1, 1, 1, 1])[0],
        (torch.rand(1, 2, 4, 4, dtype=torch.float64, requires_grad=True),
         torch.randn(3, 2, 3, 3, dtype=torch.float64, requires_grad=True), off_asc),
        nondet_tol=1e-5, fast_mode=True)


@pytest.mark.parametrize("index", range(7))
def test_float64_layers_compute_in_float64(index):
    name, layer = _layers()[index]
    layer = layer.double()
    x = torch.rand(2, 4, 5, 5, dtype=torch.float64, requires_grad=True)
    y = _call(name, layer, x)
    assert y.dtype == torch.float64
    y.square().sum().backward()
    assert x.grad.dtype == torch.float64
    assert all(p.grad.dtype == torch.float64 for p in layer.parameters())


def test_float64_off_cpu_is_a_clear_error():
    """float64 is a CPU-only feature: on any other device (meta stands in for an NPU here) the
    forward refuses it, saying what to do."""
    x = torch.empty(1, 2, 4, 4, dtype=torch.float64, device="meta")
    w = torch.empty(2, 2, 3, 3, dtype=torch.float64, device="meta")
    off = torch.empty(1, 27, 4, 4, dtype=torch.float64, device="meta")
    with pytest.raises(errors.AclnnParamInvalidError, match="float64 is supported on CPU only"):
        ascend_dcn.deformable_conv2d(x, w, off, None, [3, 3], [1, 1, 1, 1], [1, 1, 1, 1])


# --------------------------------------------------------------------------------------------
# point 3: validation at the forward, with the user's names
def test_negative_padding_fails_at_the_forward(monkeypatch):
    monkeypatch.setattr(ascend_dcn.forward, "deformable_conv2d_forward",
                        lambda *a, **k: pytest.fail("the forward ran on invalid arguments"))
    x, off, mask, w, b = _tv_args(1)
    with pytest.raises(RuntimeError, match=r"^padding: every element must be >= 0"):
        ascend_dcn.deform_conv2d(x, off, w, b, stride=(2, 1), padding=-1, dilation=(2, 1))
    with pytest.raises(RuntimeError, match=r"^padding: every element must be >= 0"):
        ascend_dcn.DeformConv2d(6, 2, (3, 2), padding=-1, groups=2)(x, off)
    with pytest.raises(RuntimeError, match=r"^padding: every element must be >= 0"):
        ascend_dcn.deformable_conv2d(x, w, torch.zeros(1, 54, 3, 3), None, [3, 2], [1, 1, 2, 1],
                                     [-1, 1, 0, 0], [1, 1, 2, 1], 2, 3)


def test_wrong_offset_shape_reports_shapes_from_the_users_arguments():
    x, off, mask, w, b = _tv_args(1)
    with pytest.raises(RuntimeError) as e:
        ascend_dcn.deform_conv2d(x, off[:, :, :, :2], w, b, mask=mask, **TV_ATTRS)
    assert e.value.argument == "offset" and "[1, 36, 2, 3]" in str(e.value) and "[1, 36, 2, 2]" in str(e.value)


def test_messages_use_the_users_argument_names():
    x = torch.randn(1, 4, 5, 5)
    w = torch.randn(4, 4, 3, 3)
    with pytest.raises(errors.AclnnError) as e:
        ascend_dcn.deformable_conv2d(x.double().int(), w, torch.zeros(1, 27, 5, 5), None, [3, 3],
                                     [1, 1, 1, 1], [1, 1, 1, 1])
    assert e.value.argument == "input"
    with pytest.raises(errors.AclnnError) as e:
        ascend_dcn.deformable_conv2d(x, w, torch.zeros(1, 27, 5, 5), None, [3, 3], [1, 1, 1, 1], [1, 1, 1, 1],
                                     deformable_groups=3)
    assert e.value.argument == "deformable_groups" and "deformableGroups" not in str(e.value)
    with pytest.raises(errors.AclnnError) as e:
        ascend_dcn.deformable_conv2d(x, w, torch.zeros(1, 27, 5, 5), None, [0, 3], [1, 1, 1, 1], [1, 1, 1, 1])
    assert e.value.argument == "kernel_size"


def test_three_element_padding_message_names_every_accepted_form():
    x, off, mask, w, b = _tv_args(1)
    with pytest.raises(RuntimeError) as e:
        ascend_dcn.deform_conv2d(x, off, w, b, stride=(2, 1), padding=(1, 0, 0), dilation=(2, 1))
    assert "4-tuple (top, bottom, left, right)" in str(e.value) and "pair" in str(e.value)


def test_zero_input_channels_message():
    with pytest.raises(RuntimeError) as e:
        ascend_dcn.deform_conv2d(torch.rand(1, 0, 5, 5), torch.zeros(1, 18, 5, 5), torch.rand(2, 0, 3, 3),
                                 padding=1)
    msg = str(e.value)
    assert e.value.argument == "input" and "empty" in msg and "multiple of weight.shape[1] (0)" not in msg


# --------------------------------------------------------------------------------------------
# errors: RuntimeError where torchvision / torch_npu raise it; names and status codes kept
def test_errors_are_runtime_errors_with_names_and_status():
    assert issubclass(errors.AclnnError, RuntimeError)
    assert issubclass(errors.AclnnParamInvalidError, ValueError)
    assert issubclass(errors.AclnnNullptrError, TypeError)
    x, off, mask, w, b = _tv_args(1)
    with pytest.raises(RuntimeError, match="the shape of the offset") as e:
        ascend_dcn.DeformConv2d(6, 2, (3, 2), groups=2, **TV_ATTRS)(x, off[:, :2])
    assert type(e.value).__name__ == "AclnnParamInvalidError" and e.value.status == 161002
    with pytest.raises(RuntimeError, match=r"mask.shape\[1\] is not valid"):
        ascend_dcn.deform_conv2d(x, off, w, b, mask=mask[:, :2], **TV_ATTRS)


def test_mmcv_namespace_fails_as_mmcv_does():
    with pytest.raises(AssertionError):
        dcn_mmcv.DeformConv2d(1, 1, 2, bias=True)
    with pytest.raises(AssertionError):
        dcn_mmcv.DeformConv2d(3, 2, 3, groups=2)
    with pytest.raises(AssertionError):
        dcn_mmcv.DeformConv2d(3, 4, 3, groups=3)
    assert not hasattr(dcn_mmcv.DeformConv2d(1, 1, 2), "bias")
    x = torch.rand(10, 1, 3, 3)
    with pytest.raises(AssertionError, match="batch size must be divisible by im2col_step"):
        dcn_mmcv.DeformConv2dPack(1, 1, 2, im2col_step=3)(x)
    dcn_mmcv.DeformConv2dPack(1, 1, 2, im2col_step=2)(x)
    with pytest.raises(ValueError, match="Expected 4D tensor as input"):
        dcn_mmcv.deform_conv2d(torch.rand(1, 3, 3), torch.zeros(1, 8, 2, 2), torch.rand(1, 1, 2, 2))
    with pytest.raises(AssertionError, match="Only support bias is False"):
        dcn_mmcv.deform_conv2d(x, torch.zeros(10, 8, 2, 2), torch.rand(1, 1, 2, 2), 1, 0, 1, 1, 1, True)
    with pytest.raises(ValueError, match="convolution input is too small"):
        dcn_mmcv.deform_conv2d(x, torch.zeros(10, 8, 2, 2), torch.rand(1, 1, 5, 5))
    with pytest.raises(RuntimeError):
        dcn_mmcv.modulated_deform_conv2d(x, torch.zeros(10, 8, 2, 2), torch.ones(10, 4, 2, 2),
                                         torch.rand(1, 1, 2, 2), None, 1, 0, 1, 1, 2)


def test_mmcv_positional_order_is_mmcvs():
    """mmcv's deform_conv2d(input, offset, weight, stride, padding, ...): a positional call binds
    as in mmcv (torchvision's order would take stride for bias)."""
    g = torch.Generator().manual_seed(5)
    x = torch.rand(2, 4, 7, 7, generator=g)
    off = torch.randn(2, 2 * 2 * 9, 4, 4, generator=g) * 0.5
    w = torch.randn(4, 2, 3, 3, generator=g)
    got = dcn_mmcv.deform_conv2d(x, off, w, 2, 1, 1, 2, 2)
    want = ascend_dcn.deform_conv2d(x, off, w, None, stride=2, padding=1, dilation=1)
    torch.testing.assert_close(got, want)
    mask = torch.rand(2, 18, 4, 4, generator=g)
    b = torch.randn(4, generator=g)
    got = dcn_mmcv.modulated_deform_conv2d(x, off, mask, w, b, 2, 1, 1, 2, 2)
    torch.testing.assert_close(got, ascend_dcn.deform_conv2d(x, off, w, b, stride=2, padding=1, mask=mask))


def test_deformable_groups_keyword():
    m = ascend_dcn.ModulatedDeformConv2dPack(4, 4, 3, padding=1, deformable_groups=2)
    assert m.deform_groups == 2 and m.conv_offset.out_channels == 2 * 3 * 9
    assert ascend_dcn.DeformConv2dPack(4, 4, 3, deformable_groups=2, im2col_step=4).deform_groups == 2
    with pytest.warns(DeprecationWarning, match="deformable_groups"):
        mm = dcn_mmcv.ModulatedDeformConv2dPack(4, 4, 3, padding=1, deformable_groups=2)
    assert mm.deform_groups == 2
    with pytest.warns(DeprecationWarning):
        assert dcn_mmcv.DeformConv2dPack(4, 4, 3, deformable_groups=2).conv_offset.out_channels == 36
    with pytest.raises(AssertionError):
        dcn_mmcv.DeformConv2d(4, 4, 3, deform_groups=2, deformable_groups=2)


@pytest.mark.parametrize("cls", [dcn_mmcv.DeformConv2dPack, dcn_mmcv.ModulatedDeformConv2dPack])
def test_mmcv_pack_renames_pre_version_2_offset_keys(cls):
    """mmcv's Pack modules rename '<name>_offset.*' (state_dict version < 2) to 'conv_offset.*'."""
    m = cls(2, 2, 3, padding=1)
    sd = {"dcn_offset.weight": torch.zeros_like(m.conv_offset.weight), "dcn_offset.bias": torch.zeros(1)}
    m._load_from_state_dict(sd, "dcn.", {}, False, [], [], [])
    assert set(sd) == {"dcn.conv_offset.weight", "dcn.conv_offset.bias"}
    sd = {"dcn_offset.weight": torch.zeros_like(m.conv_offset.weight)}
    m._load_from_state_dict(sd, "dcn.", {"version": 2}, False, [], [], [])
    assert set(sd) == {"dcn_offset.weight"}


# --------------------------------------------------------------------------------------------
# TorchScript
def test_torchscript_functions_and_modules():
    x, off, mask, w, b = _tv_args(2)
    scripted = torch.jit.script(ascend_dcn.deform_conv2d)
    torch.testing.assert_close(scripted(x, off, w, b, (2, 1), (1, 0), (2, 1), mask),
                               ascend_dcn.deform_conv2d(x, off, w, b, mask=mask, **TV_ATTRS))
    s_npu = torch.jit.script(ascend_dcn.deformable_conv2d)
    xa, wa, oa = torch.rand(1, 2, 4, 4), torch.randn(3, 2, 3, 3), torch.rand(1, 27, 4, 4)
    torch.testing.assert_close(s_npu(xa, wa, oa, None, [3, 3], [1, 1, 1, 1], [1, 1, 1, 1])[0],
                               ascend_dcn.deformable_conv2d(xa, wa, oa, None, [3, 3], [1, 1, 1, 1],
                                                            [1, 1, 1, 1])[0])
    for layer, args in ((ascend_dcn.DeformConv2d(6, 2, (3, 2), groups=2, **TV_ATTRS), (x, off, mask)),
                        (ascend_dcn.DeformConv2dPack(6, 4, 3, padding=(1, 0, 1, 1)), (x,)),
                        (ascend_dcn.ModulatedDeformConv2dPack(6, 4, 3, padding=1), (x,))):
        sm = torch.jit.script(layer)
        torch.testing.assert_close(sm(*args), layer(*args))


# --------------------------------------------------------------------------------------------
# mmengine registry
def test_registers_dcn_names_in_an_mmengine_style_registry():
    class Registry:
        def __init__(self):
            self.modules = {"DCN": object}          # e.g. mmcv's own, already there

        def get(self, name):
            return self.modules.get(name)

        def register_module(self, name=None, force=False, module=None):
            assert force or name not in self.modules
            self.modules[name] = module

    reg = Registry()
    assert dcn_mmcv.register_modules(reg) == ["DCNv2"]
    assert reg.modules["DCNv2"] is dcn_mmcv.ModulatedDeformConv2dPack and reg.modules["DCN"] is object
    assert dcn_mmcv.register_modules(reg, force=True) == ["DCN", "DCNv2"]
    assert reg.modules["DCN"] is dcn_mmcv.DeformConv2dPack


def test_registration_uses_mmengine_models_when_installed(monkeypatch):
    registered = {}

    class Models:
        def get(self, name):
            return registered.get(name)

        def register_module(self, name=None, force=False, module=None):
            registered[name] = module

    fake = types.ModuleType("mmengine.registry")
    fake.MODELS = Models()
    monkeypatch.setitem(sys.modules, "mmengine", types.ModuleType("mmengine"))
    monkeypatch.setitem(sys.modules, "mmengine.registry", fake)
    assert dcn_mmcv.register_modules() == ["DCN", "DCNv2"]
    assert registered == {"DCN": dcn_mmcv.DeformConv2dPack, "DCNv2": dcn_mmcv.ModulatedDeformConv2dPack}


# --------------------------------------------------------------------------------------------
# point 5: the border convention, documented on every layer and confined to samples at -1
def test_every_layer_documents_the_border_convention():
    for obj in (ascend_dcn.DeformConv2d, ascend_dcn.DeformConv2dPack, ascend_dcn.ModulatedDeformConv2dPack,
                ascend_dcn.deform_conv2d, ascend_dcn.functional, dcn_mmcv):
        doc = re.sub(r"\s+", " ", obj.__doc__)
        assert "y = -1 or x = -1" in doc and "torchvision" in doc, obj


@pytest.mark.parametrize("modulated", [True, False])
def test_border_difference_from_torchvision_is_confined_to_samples_at_minus_one(modulated):
    """The layer's gradients (fp32, the operator) against the float64 reference in torchvision's
    convention (tv_edge=True): equal everywhere except grad_dy/grad_dx of samples exactly at
    y == -1 or x == -1, where ours are 0 and torchvision's are not (all of them, here)."""
    g = torch.Generator().manual_seed(11)
    N, C, H, W, K = 1, 2, 5, 6, 3
    blocks = 3 if modulated else 2
    x = torch.rand(N, C, H, W, generator=g) + 0.5
    w = torch.rand(2, C, K, K, generator=g) + 0.5
    off = (torch.rand(N, blocks * K * K, H, W, generator=g) * 1.6 - 0.8)
    zero = ((torch.arange(H).view(H, 1) + torch.arange(W)) % 2 == 0).view(1, 1, H, W)  # integer samples
    off[:, :2 * K * K] = torch.where(zero, torch.zeros(()), off[:, :2 * K * K])
    if modulated:
        off[:, 2 * K * K:] = torch.rand(N, K * K, H, W, generator=g) + 0.5
    go = torch.rand(N, 2, H, W, generator=g) + 0.5
    attrs = ([K, K], [1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], 1, 1, modulated)
    leaves = [t.clone().requires_grad_() for t in (x, w, off)]
    out, _ = ascend_dcn.deformable_conv2d(*leaves, None, *attrs[:4], groups=1, deformable_groups=1,
                                          modulated=modulated)
    out.backward(go)
    ours = leaves[2].grad.double()
    _, d = reference.deformable_conv2d(x.double(), w.double(), off.double(), None, *attrs)
    tv = reference.deformable_conv2d_backward(x.double(), go.double(), d, w.double(), off.double(), *attrs,
                                              tv_edge=True)[2]
    # sample positions y, x of every (kernel point, output pixel)
    oh = torch.arange(H).view(1, 1, H, 1)
    ow = torch.arange(W).view(1, 1, 1, W)
    kh = torch.arange(K).repeat_interleave(K).view(1, K * K, 1, 1)
    kw = torch.arange(K).repeat(K).view(1, K * K, 1, 1)
    y = (oh - 1 + kh).double() + off[:, K * K:2 * K * K].double()
    xs = (ow - 1 + kw).double() + off[:, :K * K].double()
    # torchvision's one-sided derivative is non-zero for grad_dy at y == -1 and grad_dx at x == -1
    # (the other component has a zero bilinear weight there in both conventions)
    edge_dy, edge_dx = (y == -1), (xs == -1)
    assert edge_dy.sum() > 5 and edge_dx.sum() > 5
    edge = torch.cat([edge_dx, edge_dy] + ([torch.zeros_like(edge_dy)] if modulated else []), dim=1)
    torch.testing.assert_close(ours[~edge], tv[~edge], rtol=1e-4, atol=1e-4)
    assert torch.count_nonzero(ours[edge]) == 0
    assert torch.count_nonzero(tv[edge]) > 0.3 * edge.sum()


# --------------------------------------------------------------------------------------------
# point 3: a malformed TWIN_AIV_CORES is an error, not silently ignored (twin platform code)
@pytest.mark.parametrize("value,ok", [("abc", False), ("0", False), ("4x", False), ("4", True)])
def test_malformed_twin_aiv_cores_is_reported(value, ok):
    import os
    import subprocess
    code = ("import torch, ascend_dcn as D\n"
            "x = torch.rand(1, 2, 4, 4, requires_grad=True)\n"
            "off = torch.rand(1, 27, 4, 4)\n"
            "out, _ = D.deformable_conv2d(x, torch.rand(2, 2, 3, 3), off, None, [3, 3], [1, 1, 1, 1], [1, 1, 1, 1])\n"
            "out.sum().backward()\n"
            "print('grad', float(x.grad.abs().sum()) > 0)\n")
    proc = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, TWIN_AIV_CORES=value),
                          capture_output=True, text=True, timeout=300)
    if ok:
        assert proc.returncode == 0 and "grad True" in proc.stdout, proc.stderr
    else:
        assert proc.returncode != 0
        assert f"TWIN_AIV_CORES: must be a positive decimal number of vector cores (or unset); got '{value}'" \
            in proc.stderr, proc.stderr[-2000:]
