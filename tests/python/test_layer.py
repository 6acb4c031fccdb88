"""Whole-layer tests of ascend_dcn.deformable_conv2d / deform_conv2d (forward + backward).

Golden = the float64 reference (ascend_dcn.reference) differentiated by torch autograd — the true
gradient of the forward contract, independent of the analytic backward. The layer's backward is
this project's operator (ascend_dcn.ops); comparisons use the project precision standard
(ascend_dcn.precision: fp32 double ten-thousandth, fp16/bf16 double thousandth). Offsets are
random non-integers, so no sample lies on a bilinear kink (where fp32 vs float64 coordinates
could pick different cells) or exactly at y/x == -1 (the Ascend/torchvision difference).
"""
import pytest
import torch

from ascend_dcn import autograd as dcn_autograd
from ascend_dcn import errors, layouts, precision, reference
from ascend_dcn.forward import output_size
from ascend_dcn.functional import deform_conv2d, deformable_conv2d

# (N, Cin, Cout, H, W, kernel, stride, padding, dilation, groups, dg)
ASCEND_CASES = {
    "g2_dg2_asym": (2, 4, 6, 6, 7, (3, 2), [1, 1, 2, 1], [1, 0, 1, 2], [1, 1, 1, 2], 2, 2),
    "plain3x3": (1, 3, 4, 5, 5, (3, 3), [1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], 1, 1),
}


def _make(case, modulated, dtype=torch.float32, seed=0):
    N, C, Co, H, W, ks, st, pd, dl, groups, dg = case
    g = torch.Generator().manual_seed(seed)
    Ho, Wo = output_size(H, W, ks, st, pd, dl)
    K = ks[0] * ks[1]
    x = torch.randn(N, C, H, W, generator=g)
    w = torch.randn(Co, C // groups, *ks, generator=g) * 0.5
    b = torch.randn(Co, generator=g)
    off = torch.rand(N, 2 * dg * K, Ho, Wo, generator=g) * 5 - 2.5 + 0.0137
    if modulated:
        off = torch.cat([off, torch.rand(N, dg * K, Ho, Wo, generator=g)], dim=1)
    go = torch.randn(N, Co, Ho, Wo, generator=g)
    tensors = [t.to(dtype) for t in (x, w, off, b, go)]
    return tensors, dict(kernel_size=list(ks), stride=st, padding=pd, dilation=dl, groups=groups,
                         deformable_groups=dg, modulated=modulated)


def _golden_grads(x, w, off, b, go, attrs):
    leaves = [t.detach().to(torch.float64).requires_grad_() for t in (x, w, off, b)]
    out, _ = reference.deformable_conv2d(*leaves, attrs["kernel_size"], attrs["stride"], attrs["padding"],
                                         attrs["dilation"], attrs["groups"], attrs["deformable_groups"],
                                         attrs["modulated"])
    out.backward(go.to(torch.float64))
    return out.detach(), [t.grad for t in leaves]


def _layer_grads(x, w, off, b, go, attrs, save_deform_out=True):
    leaves = [t.detach().clone().requires_grad_() for t in (x, w, off, b)]
    out, _ = deformable_conv2d(*leaves, **attrs, save_deform_out=save_deform_out)
    out.backward(go)
    return out.detach(), [t.grad for t in leaves]


def _assert_precise(actual, golden, dtype, name):
    res = precision.check_precision(actual, golden, dtype)
    assert res.passed, res.summary(name)


@pytest.mark.parametrize("case", sorted(ASCEND_CASES))
@pytest.mark.parametrize("modulated", [True, False])
def test_ascend_layout_gradients_match_reference_fp32(case, modulated):
    (x, w, off, b, go), attrs = _make(ASCEND_CASES[case], modulated)
    out, grads = _layer_grads(x, w, off, b, go, attrs)
    gold_out, gold_grads = _golden_grads(x, w, off, b, go, attrs)
    _assert_precise(out, gold_out, torch.float32, "out")
    for name, a, g in zip(("grad_input", "grad_weight", "grad_offset", "grad_bias"), grads, gold_grads):
        assert a.dtype == torch.float32 and a.shape == g.shape, name
        _assert_precise(a, g, torch.float32, name)


def test_forward_deform_out_matches_reference():
    (x, w, off, b, _), attrs = _make(ASCEND_CASES["g2_dg2_asym"], True)
    out, deform_out = torch.ops.ascend_dcn.deformable_conv2d(
        x, w, off, b, attrs["kernel_size"], attrs["stride"], attrs["padding"], attrs["dilation"],
        attrs["groups"], attrs["deformable_groups"], True, True)
    gold_out, gold_d = reference.deformable_conv2d(*(t.double() for t in (x, w, off, b)),
                                                   attrs["kernel_size"], attrs["stride"], attrs["padding"],
                                                   attrs["dilation"], attrs["groups"],
                                                   attrs["deformable_groups"], True)
    Ho, Wo = output_size(6, 7, attrs["kernel_size"], attrs["stride"], attrs["padding"], attrs["dilation"])
    assert (Ho, Wo) == (3, 8) and deform_out.shape == (2, 4, Ho * 3, Wo * 2)
    _assert_precise(deform_out, gold_d, torch.float32, "deformOut")
    _assert_precise(out, gold_out, torch.float32, "out")
    assert not deform_out.requires_grad


@pytest.mark.parametrize("with_mask", [True, False])
def test_torchvision_layout_gradients_match_reference(with_mask):
    """deform_conv2d (torchvision signature): offset/mask gradients come back in tv layout."""
    N, C, Co, H, W, K, dg = 2, 4, 4, 5, 6, 3, 2
    g = torch.Generator().manual_seed(3)
    x = torch.randn(N, C, H, W, generator=g)
    w = torch.randn(Co, C, K, K, generator=g) * 0.5
    b = torch.randn(Co, generator=g)
    off = torch.rand(N, 2 * dg * K * K, H, W, generator=g) * 4 - 2 + 0.0113
    mask = torch.rand(N, dg * K * K, H, W, generator=g) if with_mask else None
    go = torch.randn(N, Co, H, W, generator=g)

    leaves = [t.clone().requires_grad_() for t in (x, off, w, b)]
    m = mask.clone().requires_grad_() if with_mask else None
    out = deform_conv2d(leaves[0], leaves[1], leaves[2], leaves[3], stride=1, padding=1, dilation=1, mask=m)
    out.backward(go)

    gl = [t.double().requires_grad_() for t in (x, off, w, b)]
    gm = mask.double().requires_grad_() if with_mask else None
    asc = layouts.tv_to_ascend_offset(gl[1], gm, modulated=with_mask)
    gold, _ = reference.deformable_conv2d(gl[0], gl[2], asc, gl[3], [K, K], [1, 1, 1, 1], [1, 1, 1, 1],
                                          [1, 1, 1, 1], 1, dg, with_mask)
    gold.backward(go.double())
    _assert_precise(out.detach(), gold.detach(), torch.float32, "out")
    for name, a, t in zip(("input", "offset", "weight", "bias"), leaves, gl):
        _assert_precise(a.grad, t.grad, torch.float32, f"grad_{name}")
    if with_mask:
        _assert_precise(m.grad, gm.grad, torch.float32, "grad_mask")


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_layer_stays_in_dtype(dtype):
    """fp16/bf16 I/O: the saved deformOut is rounded to the dtype and the operator uses it as
    given (op-semantics §6.3), so the golden backward consumes the rounded deformOut too."""
    (x, w, off, b, go), attrs = _make(ASCEND_CASES["plain3x3"], True, dtype=dtype, seed=1)
    out, grads = _layer_grads(x, w, off, b, go, attrs)
    assert out.dtype == dtype and all(gr.dtype == dtype for gr in grads)
    args = [attrs[k] for k in ("kernel_size", "stride", "padding", "dilation", "groups",
                               "deformable_groups", "modulated")]
    gold_out, gold_d = reference.deformable_conv2d(*(t.double() for t in (x, w, off, b)), *args)
    gold_grads = reference.deformable_conv2d_backward(
        x.double(), go.double(), gold_d.to(dtype).double(), w.double(), off.double(), *args)
    _assert_precise(out, gold_out, dtype, "out")
    for name, a, gd in zip(("grad_input", "grad_weight", "grad_offset", "grad_bias"), grads, gold_grads):
        _assert_precise(a, gd, dtype, name)


def test_memory_saving_mode_gives_identical_gradients():
    (x, w, off, b, go), attrs = _make(ASCEND_CASES["g2_dg2_asym"], True, seed=5)
    out1, g1 = _layer_grads(x, w, off, b, go, attrs, save_deform_out=True)
    out2, g2 = _layer_grads(x, w, off, b, go, attrs, save_deform_out=False)
    assert torch.equal(out1, out2)
    for a, c in zip(g1, g2):
        assert torch.equal(a, c)     # recompute uses the same sampling code: bitwise equal


def test_memory_saving_mode_saves_no_deform_out():
    (x, w, off, b, _), attrs = _make(ASCEND_CASES["g2_dg2_asym"], True)
    N, C = x.shape[:2]
    Ho, Wo = off.shape[2:]
    deform_numel = N * C * Ho * 3 * Wo * 2
    saved = {}
    for mode in (True, False):
        shapes = []
        leaves = [t.clone().requires_grad_() for t in (x, w, off, b)]
        with torch.autograd.graph.saved_tensors_hooks(lambda t: shapes.append(t.numel()) or t, lambda t: t):
            deformable_conv2d(*leaves, **attrs, save_deform_out=mode)
        saved[mode] = shapes
    assert deform_numel in saved[True]
    assert deform_numel not in saved[False]
    assert sum(saved[True]) - sum(saved[False]) == deform_numel


def test_backward_allocates_no_deform_out_gradient():
    """deformOut is non-differentiable: autograd must not materialise a zero "gradient" of its size
    (N*Cin*KH*KW*Ho*Wo elements, the largest tensor of the layer) for the backward. Every tensor made
    during the backward is logged by a dispatch mode: only the operator's outputs (and the incoming
    gradient) may appear."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class Log(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.made = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            result = func(*args, **(kwargs or {}))
            for t in result if isinstance(result, (tuple, list)) else [result]:
                if isinstance(t, torch.Tensor):
                    self.made.append((str(func), tuple(t.shape)))
            return result

    (x, w, off, b, go), attrs = _make(ASCEND_CASES["g2_dg2_asym"], True)
    leaves = [t.clone().requires_grad_() for t in (x, w, off, b)]
    out, deform_out = deformable_conv2d(*leaves, **attrs)
    with Log() as log:
        out.backward(go)
    assert tuple(deform_out.shape) not in [shape for _, shape in log.made], log.made
    assert {func for func, _ in log.made} <= {"ascend_dcn.deformable_conv2d_backward.default", "aten.detach.default",
                                              "aten._to_copy.default"}, log.made


def test_undefined_output_gradient_is_zero():
    """With grads not materialised, an undefined gradient of out reaches the backward as None: it is
    taken as zero (same gradients, bitwise, as an explicit zero gradient)."""
    import types
    (x, w, off, _, go), attrs = _make(ASCEND_CASES["plain3x3"], True)
    out, deform_out = deformable_conv2d(x, w, off, None, **attrs)
    ctx = types.SimpleNamespace(
        attrs=(attrs["kernel_size"], attrs["stride"], attrs["padding"], attrs["dilation"], attrs["groups"],
               attrs["deformable_groups"], attrs["modulated"]),
        has_bias=False, bias_dtype=None, save_deform_out=True, saved_tensors=(x, w, off, deform_out))
    from_none = dcn_autograd._backward(ctx, None, None)
    from_zero = dcn_autograd._backward(ctx, torch.zeros_like(out), None)
    for a, c in zip(from_none[:3], from_zero[:3]):
        assert torch.equal(a, c)
    assert not any(a.any() for a in from_none[:3])


def test_gradcheck_float64_with_reference_backend():
    """gradcheck of the autograd plumbing (forward op + registered backward + layout conversion)
    in float64. The operator accepts fp32/fp16/bf16 only, so the documented internal switch routes
    the backward op to the float64 oracle; the fp32 operator path is compared above."""
    g = torch.Generator().manual_seed(7)
    f64 = dict(generator=g, dtype=torch.float64)
    x = torch.randn(1, 2, 4, 4, **f64).requires_grad_()
    b = torch.randn(2, **f64).requires_grad_()
    # torchvision signature, groups 1, dg 2, padding (1, 0), stride (1, 2): output 5 x 2
    w = torch.randn(2, 2, 2, 2, **f64).requires_grad_()
    off = (torch.rand(1, 2 * 2 * 4, 5, 2, **f64) * 2 - 1 + 0.13).requires_grad_()
    mask = torch.rand(1, 2 * 4, 5, 2, **f64).requires_grad_()
    # torch_npu signature, DCNv1, groups 2, dg 2, asymmetric padding [0, 1, 1, 0]: output 4 x 4
    w2 = torch.randn(2, 1, 2, 2, **f64).requires_grad_()
    off2 = (torch.rand(1, 2 * 2 * 4, 4, 4, **f64) * 2 - 1 + 0.13).requires_grad_()
    with dcn_autograd.backward_backend("reference"):
        assert torch.autograd.gradcheck(
            lambda *a: deform_conv2d(a[0], a[1], a[2], a[3], padding=(1, 0), stride=(1, 2), mask=a[4]),
            (x, off, w, b, mask), eps=1e-6, atol=1e-5)
        assert torch.autograd.gradcheck(
            lambda *a: deformable_conv2d(*a, [2, 2], [1, 1, 1, 1], [0, 1, 1, 0], groups=2,
                                         deformable_groups=2, modulated=False, save_deform_out=False)[0],
            (x, w2, off2, b), eps=1e-6, atol=1e-5)


def test_backend_switch_is_restored_and_validated():
    assert dcn_autograd.library.get_backward_backend() == "operator"
    with dcn_autograd.backward_backend("reference"):
        assert dcn_autograd.library.get_backward_backend() == "reference"
    assert dcn_autograd.library.get_backward_backend() == "operator"
    with pytest.raises(ValueError, match="backend"):
        with dcn_autograd.backward_backend("cuda"):
            pass


def test_float64_runs_in_float64_but_the_operator_rejects_it():
    """The layer computes float64 in float64 on CPU (its backward is the float64 oracle); the
    operator itself (ascend_dcn.ops) keeps the contract: fp32/fp16/bf16 only."""
    from ascend_dcn import ops
    x = torch.randn(1, 2, 4, 4, dtype=torch.float64)
    w = torch.randn(2, 2, 3, 3, dtype=torch.float64)
    off = torch.zeros(1, 27, 4, 4, dtype=torch.float64)
    out, deform_out = deformable_conv2d(x, w, off, None, [3, 3], [1, 1, 1, 1], [1, 1, 1, 1])
    assert out.dtype == deform_out.dtype == torch.float64
    with pytest.raises(errors.AclnnError, match="dtype"):
        ops.deformable_conv2d_backward(x, torch.zeros_like(out), deform_out, w, off, [3, 3], [1, 1, 1, 1],
                                       [1, 1, 1, 1])


def test_bad_arguments_give_named_errors():
    x = torch.randn(1, 4, 5, 5)
    w = torch.randn(4, 4, 3, 3)
    off = torch.zeros(1, 27, 5, 5)
    with pytest.raises(errors.AclnnError) as e:
        deformable_conv2d(x, w, off[:, :20], None, [3, 3], [1, 1, 1, 1], [1, 1, 1, 1])
    assert e.value.argument == "offset"
    with pytest.raises(errors.AclnnError) as e:
        deformable_conv2d(x, w, off, None, [3, 3], [1, 1, 1], [1, 1, 1, 1])
    assert e.value.argument == "stride"
    with pytest.raises(ValueError, match="offset"):
        deform_conv2d(x, torch.zeros(1, 17, 5, 5), w, padding=1)
    with pytest.raises(ValueError, match="weight"):
        deform_conv2d(x, torch.zeros(1, 18, 5, 5), torch.randn(4, 3, 3, 3), padding=1)
    with pytest.raises(ValueError, match="mask"):
        deform_conv2d(x, torch.zeros(1, 18, 5, 5), w, padding=1, mask=torch.ones(1, 4, 5, 5))


def test_backward_uses_the_operator(monkeypatch):
    """The registered backward calls ascend_dcn.ops.deformable_conv2d_backward (not the reference)."""
    from ascend_dcn import ops
    calls = []
    real = ops.deformable_conv2d_backward

    def spy(*args, **kwargs):
        calls.append(args[0].dtype)
        return real(*args, **kwargs)

    monkeypatch.setattr(ops, "deformable_conv2d_backward", spy)
    (x, w, off, b, go), attrs = _make(ASCEND_CASES["plain3x3"], True)
    _layer_grads(x, w, off, b, go, attrs)
    assert calls == [torch.float32]


def test_non_contiguous_inputs_and_partial_requires_grad():
    """channels_last input / non-contiguous offset give the same result as contiguous ones, and
    gradients are produced only for the tensors that require them."""
    (x, w, off, b, go), attrs = _make(ASCEND_CASES["plain3x3"], True, seed=9)
    out_ref, grads_ref = _layer_grads(x, w, off, b, go, attrs)
    x_cl = x.to(memory_format=torch.channels_last).requires_grad_()
    off_nc = off.transpose(2, 3).contiguous().transpose(2, 3)          # same values, other strides
    assert not off_nc.is_contiguous()
    w_leaf = w.clone().requires_grad_()
    out, _ = deformable_conv2d(x_cl, w_leaf, off_nc, b, **attrs)
    out.backward(go)
    assert torch.equal(out.detach(), out_ref)
    assert torch.equal(x_cl.grad, grads_ref[0]) and torch.equal(w_leaf.grad, grads_ref[1])
    assert off_nc.grad is None and b.grad is None


def test_double_backward_is_a_clear_error():
    (x, w, off, b, go), attrs = _make(ASCEND_CASES["plain3x3"], True, seed=10)
    x = x.requires_grad_()
    out, _ = deformable_conv2d(x, w.requires_grad_(), off, b, **attrs)
    (gx,) = torch.autograd.grad((out * go).sum(), x, create_graph=True)
    with pytest.raises(RuntimeError, match="double backward"):
        gx.sum().backward()
