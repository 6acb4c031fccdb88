"""nn.Modules: torchvision/mmcv constructor, parameter names, state_dict round trips, equivalence.

torchvision and mmcv are not installed here; expected state_dict keys come from their documented
parameter names (torchvision.ops.DeformConv2d: weight, bias; mmcv DeformConv2dPack /
ModulatedDeformConv2dPack: weight, [bias], conv_offset.weight, conv_offset.bias). The
"torchvision state_dict gives the same outputs and gradients" check runs against torchvision when
importable, and always against a torchvision-semantics golden: the float64 reference with the
torchvision layout conversion and tv_edge=True (torchvision's one-sided offset derivative at
y/x == -1, op-semantics §5.3).
"""
import math

import pytest
import torch
import torch.nn.functional as F

from ascend_dcn import layouts, precision, reference
from ascend_dcn.modules import DeformConv2d, DeformConv2dPack, ModulatedDeformConv2dPack


def _assert_precise(actual, golden, name, dtype=torch.float32):
    res = precision.check_precision(actual, golden, dtype)
    assert res.passed, res.summary(name)


def _torchvision_state_dict(Cin, Cout, K, groups, bias, seed=0):
    """A state_dict as torchvision.ops.DeformConv2d(Cin, Cout, K, groups=groups, bias=bias) saves it."""
    g = torch.Generator().manual_seed(seed)
    sd = {"weight": torch.randn(Cout, Cin // groups, K, K, generator=g) * 0.3}
    if bias:
        sd["bias"] = torch.randn(Cout, generator=g)
    return sd


def _tv_golden(x, offset, mask, weight, bias, stride, pad, go):
    """torchvision semantics in float64: forward output and (input, offset, mask, weight, bias) grads."""
    K = weight.shape[2]
    dg = offset.shape[1] // (2 * K * K)
    groups = x.shape[1] // weight.shape[1]
    modulated = mask is not None
    asc = layouts.tv_to_ascend_offset(offset.double(), None if mask is None else mask.double(),
                                      modulated=modulated)
    attrs = ([K, K], [1, 1, stride, stride], [pad] * 4, [1, 1, 1, 1], groups, dg, modulated)
    out, d = reference.deformable_conv2d(x.double(), weight.double(), asc,
                                         None if bias is None else bias.double(), *attrs)
    gi, gw, goff, gb = reference.deformable_conv2d_backward(x.double(), go.double(), d, weight.double(),
                                                            asc, *attrs, tv_edge=True)
    g_offset, g_mask = layouts.ascend_grad_to_tv(goff, modulated=modulated)
    return out, gi, g_offset, g_mask, gw, gb


def _run_module(module, x, offset, mask, go):
    x = x.clone().requires_grad_()
    offset = offset.clone().requires_grad_()
    mask = None if mask is None else mask.clone().requires_grad_()
    out = module(x, offset, mask)
    out.backward(go)
    return out.detach(), x.grad, offset.grad, None if mask is None else mask.grad


def test_deform_conv2d_constructor_parameters_and_keys():
    m = DeformConv2d(4, 6, 3, stride=2, padding=1, dilation=1, groups=2, bias=True)
    assert set(m.state_dict()) == {"weight", "bias"}
    assert m.weight.shape == (6, 2, 3, 3) and m.bias.shape == (6,)
    assert (m.kernel_size, m.stride, m.padding, m.dilation, m.groups) == ((3, 3), (2, 2), (1, 1), (1, 1), 2)
    assert [n for n, _ in m.named_parameters()] == ["weight", "bias"]
    nb = DeformConv2d(4, 6, (3, 2), bias=False)
    assert set(nb.state_dict()) == {"weight"} and nb.bias is None
    assert nb.weight.shape == (6, 4, 3, 2)
    with pytest.raises(ValueError, match="in_channels"):
        DeformConv2d(5, 6, 3, groups=2)
    with pytest.raises(ValueError, match="out_channels"):
        DeformConv2d(4, 5, 3, groups=2)


def test_deform_conv2d_reset_parameters_like_torchvision():
    torch.manual_seed(0)
    m = DeformConv2d(8, 16, 3, bias=True)
    fan_in = 8 * 9
    bound = 1 / math.sqrt(fan_in)     # kaiming_uniform_(a=sqrt(5)) gives the same bound for weight
    assert m.weight.abs().max() <= bound + 1e-7 and m.bias.abs().max() <= bound + 1e-7
    assert m.weight.abs().max() > 0.8 * bound and m.weight.std() > 0.4 * bound


def test_state_dict_round_trip_between_instances():
    a = DeformConv2d(4, 4, 3, padding=1)
    b = DeformConv2d(4, 4, 3, padding=1)
    b.load_state_dict(a.state_dict())
    assert all(torch.equal(a.state_dict()[k], b.state_dict()[k]) for k in a.state_dict())
    with pytest.raises(RuntimeError, match="conv_offset"):
        DeformConv2d(4, 4, 3).load_state_dict({**a.state_dict(), "conv_offset.weight": torch.zeros(1)})


@pytest.mark.parametrize("with_mask", [True, False])
def test_torchvision_state_dict_gives_torchvision_outputs_and_gradients(with_mask):
    """Loaded with a torchvision state_dict, DeformConv2d matches torchvision semantics (random
    non-integer offsets: no sample exactly at y/x == -1)."""
    Cin, Cout, K, groups, N, H, W = 4, 6, 3, 2, 2, 6, 5
    m = DeformConv2d(Cin, Cout, K, stride=1, padding=1, groups=groups)
    m.load_state_dict(_torchvision_state_dict(Cin, Cout, K, groups, True))
    g = torch.Generator().manual_seed(1)
    dg = 2
    x = torch.randn(N, Cin, H, W, generator=g)
    offset = torch.rand(N, 2 * dg * K * K, H, W, generator=g) * 3 - 1.5 + 0.0117
    mask = torch.rand(N, dg * K * K, H, W, generator=g) if with_mask else None
    go = torch.randn(N, Cout, H, W, generator=g)
    out, gx, goff, gmask = _run_module(m, x, offset, mask, go)
    gold = _tv_golden(x, offset, mask, m.weight.detach(), m.bias.detach(), 1, 1, go)
    _assert_precise(out, gold[0], "out")
    _assert_precise(gx, gold[1], "grad_input")
    _assert_precise(goff, gold[2], "grad_offset")
    if with_mask:
        _assert_precise(gmask, gold[3], "grad_mask")
    _assert_precise(m.weight.grad, gold[4], "grad_weight")
    _assert_precise(m.bias.grad, gold[5], "grad_bias")


def test_zero_offsets_padding1_differs_from_torchvision_only_at_minus_one():
    """Zero offsets + padding 1 put samples exactly at y == -1 / x == -1: there the Ascend contract
    gives grad_offset 0 while torchvision gives a one-sided derivative (op-semantics §5.3). Every
    other gradient entry and the output are identical to torchvision's."""
    Cin, Cout, K, N, H, W = 3, 4, 3, 1, 5, 6
    m = DeformConv2d(Cin, Cout, K, padding=1)
    m.load_state_dict(_torchvision_state_dict(Cin, Cout, K, 1, True, seed=2))
    g = torch.Generator().manual_seed(2)
    x = torch.randn(N, Cin, H, W, generator=g)
    offset = torch.zeros(N, 2 * K * K, H, W)
    mask = torch.rand(N, K * K, H, W, generator=g)
    go = torch.randn(N, Cout, H, W, generator=g)
    out, gx, goff, gmask = _run_module(m, x, offset, mask, go)
    gold = _tv_golden(x, offset, mask, m.weight.detach(), m.bias.detach(), 1, 1, go)
    _assert_precise(out, gold[0], "out")
    _assert_precise(gx, gold[1], "grad_input")
    _assert_precise(gmask, gold[3], "grad_mask")
    _assert_precise(m.weight.grad, gold[4], "grad_weight")
    # sampling rows/columns exactly at -1: kh == 0 at oh == 0 (dy channel), kw == 0 at ow == 0 (dx)
    edge = torch.zeros(N, 2 * K * K, H, W, dtype=torch.bool)
    for kh in range(K):
        for kw in range(K):
            j = kh * K + kw
            if kh == 0:
                edge[:, 2 * j:2 * j + 2, 0, :] = True
            if kw == 0:
                edge[:, 2 * j:2 * j + 2, :, 0] = True
    assert torch.all(goff[edge] == 0)
    assert gold[2][edge].abs().max() > 1e-3           # torchvision's value there is non-zero
    _assert_precise(goff[~edge], gold[2][~edge], "grad_offset off the -1 edge")


def test_against_torchvision_if_installed():
    tv = pytest.importorskip("torchvision.ops", reason="torchvision is not installed in this environment")
    Cin, Cout, K, N, H, W = 4, 4, 3, 1, 5, 5
    ref = tv.DeformConv2d(Cin, Cout, K, padding=1)
    m = DeformConv2d(Cin, Cout, K, padding=1)
    m.load_state_dict(ref.state_dict())
    g = torch.Generator().manual_seed(4)
    x = torch.randn(N, Cin, H, W, generator=g)
    offset = torch.rand(N, 2 * K * K, H, W, generator=g) * 3 - 1.5 + 0.0117
    mask = torch.rand(N, K * K, H, W, generator=g)
    go = torch.randn(N, Cout, H, W, generator=g)
    ours = _run_module(m, x, offset, mask, go)
    theirs = _run_module(ref, x, offset, mask, go)
    for name, a, b in zip(("out", "grad_input", "grad_offset", "grad_mask"), ours, theirs):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-4, msg=name)
    torch.testing.assert_close(m.weight.grad, ref.weight.grad, rtol=1e-4, atol=1e-4)


MMCV_KEYS = {
    "DeformConv2dPack": {"weight", "conv_offset.weight", "conv_offset.bias"},
    "ModulatedDeformConv2dPack": {"weight", "bias", "conv_offset.weight", "conv_offset.bias"},
}


@pytest.mark.parametrize("cls", [DeformConv2dPack, ModulatedDeformConv2dPack])
def test_mmcv_pack_keys_shapes_and_zero_init(cls):
    m = cls(4, 8, 3, stride=1, padding=1, deform_groups=2)
    assert set(m.state_dict()) == MMCV_KEYS[cls.__name__]
    blocks = 3 if cls is ModulatedDeformConv2dPack else 2
    assert m.conv_offset.weight.shape == (2 * blocks * 9, 4, 3, 3)
    assert m.conv_offset.bias.shape == (2 * blocks * 9,)
    assert torch.count_nonzero(m.conv_offset.weight) == 0 and torch.count_nonzero(m.conv_offset.bias) == 0
    assert m.deform_groups == 2
    # round trip into a fresh instance
    fresh = cls(4, 8, 3, padding=1, deform_groups=2)
    sd = {k: torch.randn_like(v) for k, v in m.state_dict().items()}
    fresh.load_state_dict(sd)
    assert all(torch.equal(fresh.state_dict()[k], sd[k]) for k in sd)


def test_mmcv_pack_with_zero_offsets_is_a_plain_convolution():
    """conv_offset initialized to zero: DCNv1 pack == conv2d; DCNv2 pack == conv2d with mask 0.5."""
    g = torch.Generator().manual_seed(5)
    x = torch.randn(2, 4, 6, 5, generator=g)
    v1 = DeformConv2dPack(4, 6, 3, stride=1, padding=1, groups=2)
    _assert_precise(v1(x).detach(), F.conv2d(x.double(), v1.weight.double(), padding=1, groups=2), "dcnv1")
    v2 = ModulatedDeformConv2dPack(4, 6, 3, stride=2, padding=1)
    with torch.no_grad():
        v2.bias.normal_()
    expected = F.conv2d(x.double(), v2.weight.double() * 0.5, v2.bias.double(), stride=2, padding=1)
    _assert_precise(v2(x).detach(), expected, "dcnv2")


def test_mmcv_modulated_pack_matches_reference_with_sigmoid_mask():
    g = torch.Generator().manual_seed(6)
    m = ModulatedDeformConv2dPack(4, 4, 3, padding=1, deform_groups=2)
    with torch.no_grad():
        m.conv_offset.weight.normal_(0, 0.3, generator=g)
        m.conv_offset.bias.normal_(0, 0.3, generator=g)
    x = torch.randn(1, 4, 5, 5, generator=g, requires_grad=True)
    out = m(x)
    raw = m.conv_offset(x).detach().double()
    o1, o2, logits = torch.chunk(raw, 3, dim=1)
    asc = layouts.tv_to_ascend_offset(torch.cat([o1, o2], 1), torch.sigmoid(logits))
    gold, _ = reference.deformable_conv2d(x.detach().double(), m.weight.detach().double(), asc,
                                          m.bias.detach().double(), [3, 3], [1, 1, 1, 1], [1, 1, 1, 1],
                                          [1, 1, 1, 1], 1, 2, True)
    _assert_precise(out.detach(), gold, "out")
    out.sum().backward()
    assert m.conv_offset.weight.grad is not None and m.conv_offset.weight.grad.abs().sum() > 0
    assert x.grad is not None and torch.isfinite(x.grad).all()


def test_asymmetric_padding_module():
    """padding as (top, bottom, left, right); the pack's offset conv pads identically."""
    g = torch.Generator().manual_seed(8)
    m = DeformConv2d(3, 4, 3, padding=(0, 1, 1, 2))
    assert m.padding == (0, 1, 1, 2)
    x = torch.randn(1, 3, 5, 6, generator=g)
    Ho, Wo = 5 + 1 - 2, 6 + 3 - 2
    offset = torch.rand(1, 18, Ho, Wo, generator=g) - 0.5
    out = m(x, offset)
    assert out.shape == (1, 4, Ho, Wo)
    asc = layouts.tv_to_ascend_offset(offset.double(), None, modulated=False)
    gold, _ = reference.deformable_conv2d(x.double(), m.weight.detach().double(), asc, m.bias.detach().double(),
                                          [3, 3], [1, 1, 1, 1], [0, 1, 1, 2], [1, 1, 1, 1], 1, 1, False)
    _assert_precise(out.detach(), gold, "out")
    pack = DeformConv2dPack(3, 4, 3, padding=(0, 1, 1, 2))
    y = pack(x)
    assert y.shape == (1, 4, Ho, Wo)
    expected = F.conv2d(F.pad(x, (1, 2, 0, 1)).double(), pack.weight.double())
    _assert_precise(y.detach(), expected, "pack asymmetric")


def test_save_deform_out_option_on_modules():
    m = ModulatedDeformConv2dPack(4, 4, 3, padding=1, save_deform_out=False)
    assert "save_deform_out=False" in repr(m)
    x = torch.randn(1, 4, 5, 5, requires_grad=True)
    m(x).sum().backward()
    assert x.grad is not None
