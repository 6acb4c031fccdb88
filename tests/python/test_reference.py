"""Proof that ascend_dcn.reference implements the contract: gradcheck of the differentiable forward,
analytic backward == autograd VJP, and hand cases (plain convolution, shifted grid, outside samples,
the y == -1 / x == -1 edge)."""
import pytest
import torch
import torch.nn.functional as F

from ascend_dcn import reference as R

f64 = torch.float64

# (N, Cin, H, W, Cout, kernel_size, stride, padding, dilation, groups, dg)
CONFIGS = {
    "basic3x3": (1, 2, 4, 5, 2, [3, 3], [1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], 1, 1),
    "groups2_dg2_asym": (2, 4, 4, 5, 4, [3, 2], [1, 1, 2, 1], [1, 0, 1, 2], [1, 1, 1, 2], 2, 2),
    "dg4_stride_dil": (1, 4, 6, 5, 2, [2, 3], [1, 1, 1, 2], [0, 2, 2, 0], [1, 1, 2, 1], 1, 4),
    "groups4_dg2": (1, 4, 4, 4, 8, [2, 2], [1, 1, 2, 2], [1, 1, 0, 0], [1, 1, 1, 1], 4, 2),
}


def fractional_offsets(N, dg, K, Ho, Wo, modulated, gen, spread=2):
    """dx, dy = integer in [-spread, spread) + fraction in [0.15, 0.85]: never near an integer, so the
    sampling position never sits on a kink of the bilinear interpolation."""
    shape = (N, 2 * dg * K, Ho, Wo)
    ints = torch.randint(-spread, spread, shape, generator=gen).to(f64)
    frac = 0.15 + 0.7 * torch.rand(shape, generator=gen, dtype=f64)
    blocks = [ints + frac]
    if modulated:
        blocks.append(torch.rand((N, dg * K, Ho, Wo), generator=gen, dtype=f64) * 0.9 + 0.05)
    return torch.cat(blocks, dim=1)


def make_args(cfg, modulated, seed=0):
    N, C, H, W, Co, ks, st, pd, dl, g, dg = cfg
    gen = torch.Generator().manual_seed(seed)
    Ho, Wo = R.out_hw(H, W, ks, st, pd, dl)
    x = torch.randn(N, C, H, W, generator=gen, dtype=f64)
    w = torch.randn(Co, C // g, *ks, generator=gen, dtype=f64)
    off = fractional_offsets(N, dg, ks[0] * ks[1], Ho, Wo, modulated, gen)
    b = torch.randn(Co, generator=gen, dtype=f64)
    return x, w, off, b, (ks, st, pd, dl, g, dg, modulated)


@pytest.mark.parametrize("modulated", [True, False], ids=["dcnv2", "dcnv1"])
@pytest.mark.parametrize("name", list(CONFIGS))
def test_gradcheck_forward(name, modulated):
    x, w, off, b, attrs = make_args(CONFIGS[name], modulated)
    ks, st, pd, dl, g, dg, mod = attrs
    tensors = [t.clone().requires_grad_(True) for t in (x, w, off, b)]

    def fn(x_, w_, off_, b_):
        return R.deformable_conv2d(x_, w_, off_, b_, ks, st, pd, dl, g, dg, mod)

    assert torch.autograd.gradcheck(fn, tensors, eps=1e-6, atol=1e-7, rtol=1e-5)


@pytest.mark.parametrize("modulated", [True, False], ids=["dcnv2", "dcnv1"])
@pytest.mark.parametrize("name", list(CONFIGS))
def test_analytic_backward_equals_autograd(name, modulated):
    x, w, off, b, attrs = make_args(CONFIGS[name], modulated, seed=1)
    ks, st, pd, dl, g, dg, mod = attrs
    leaves = [t.clone().requires_grad_(True) for t in (x, w, off, b)]
    out, D = R.deformable_conv2d(*leaves, ks, st, pd, dl, g, dg, mod)
    go = torch.randn(out.shape, generator=torch.Generator().manual_seed(7), dtype=f64)
    expected = torch.autograd.grad(out, leaves, go)
    for tv_edge in (False, True):   # identical away from integer coordinates
        got = R.deformable_conv2d_backward(x, go, D.detach(), w, off, ks, st, pd, dl, g, dg, mod,
                                           tv_edge=tv_edge)
        for name_, a, e in zip(("grad_input", "grad_weight", "grad_offset", "grad_bias"), got, expected):
            assert a.shape == e.shape, name_
            torch.testing.assert_close(a, e, rtol=1e-10, atol=1e-10, msg=name_)
    if not mod:
        assert got[2].shape[1] == 2 * dg * ks[0] * ks[1]


def test_grad_weight_uses_offset_out_as_given():
    x, w, off, b, (ks, st, pd, dl, g, dg, mod) = make_args(CONFIGS["basic3x3"], True)
    _, D = R.deformable_conv2d(x, w, off, b, ks, st, pd, dl, g, dg, mod)
    go = torch.randn(1, 2, 4, 5, dtype=f64)
    gw1 = R.deformable_conv2d_backward(x, go, D, w, off, ks, st, pd, dl, g, dg, mod)[1]
    gi2, gw2 = R.deformable_conv2d_backward(x, go, 2 * D, w, off, ks, st, pd, dl, g, dg, mod)[:2]
    torch.testing.assert_close(gw2, 2 * gw1)
    # grad_input does not depend on offset_out
    gi1 = R.deformable_conv2d_backward(x, go, D, w, off, ks, st, pd, dl, g, dg, mod)[0]
    torch.testing.assert_close(gi1, gi2)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_dtype_in_dtype_out(dtype):
    x, w, off, b, (ks, st, pd, dl, g, dg, mod) = make_args(CONFIGS["basic3x3"], True)
    args = [t.to(dtype) for t in (x, w, off, b)]
    out, D = R.deformable_conv2d(*args, ks, st, pd, dl, g, dg, mod)
    assert out.dtype == dtype and D.dtype == dtype
    out64, _ = R.deformable_conv2d(*[t.to(f64) for t in args], ks, st, pd, dl, g, dg, mod)
    torch.testing.assert_close(out, out64.to(dtype), rtol=0, atol=0)   # computed in float64, one rounding
    grads = R.deformable_conv2d_backward(args[0], out, D, args[1], args[2], ks, st, pd, dl, g, dg, mod)
    assert all(t.dtype == dtype for t in grads)


def test_out_hw_formula():
    # (H + top + bottom - ((KH-1)*dH + 1)) // sH + 1
    assert R.out_hw(7, 9, [3, 2], [1, 1, 2, 3], [1, 0, 2, 1], [1, 1, 2, 1]) == ((7 + 1 - 5) // 2 + 1, (9 + 3 - 2) // 3 + 1)
    assert R.out_hw(2, 4, [5, 5], [1, 1, 1, 1], [2, 2, 2, 2], [1, 1, 1, 1]) == (2, 4)


# ------------------------------------------------------------------------------------------- hand cases

def _zero_offsets(N, dg, K, Ho, Wo, modulated, mask_value=1.0):
    blocks = [torch.zeros(N, 2 * dg * K, Ho, Wo, dtype=f64)]
    if modulated:
        blocks.append(torch.full((N, dg * K, Ho, Wo), mask_value, dtype=f64))
    return torch.cat(blocks, 1)


@pytest.mark.parametrize("ks,st,pd,dl,g", [
    ([1, 1], [1, 1, 1, 1], [0, 0, 0, 0], [1, 1, 1, 1], 1),
    ([1, 1], [1, 1, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], 2),
    ([3, 3], [1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], 1),
    ([3, 2], [1, 1, 2, 1], [1, 0, 2, 1], [1, 1, 1, 2], 2),
])
@pytest.mark.parametrize("modulated", [True, False])
def test_zero_offsets_is_plain_convolution(ks, st, pd, dl, g, modulated):
    gen = torch.Generator().manual_seed(3)
    x = torch.randn(2, 4, 5, 6, generator=gen, dtype=f64)
    w = torch.randn(4, 4 // g, *ks, generator=gen, dtype=f64)
    b = torch.randn(4, generator=gen, dtype=f64)
    Ho, Wo = R.out_hw(5, 6, ks, st, pd, dl)
    off = _zero_offsets(2, 2, ks[0] * ks[1], Ho, Wo, modulated)
    out, D = R.deformable_conv2d(x, w, off, b, ks, st, pd, dl, g, 2, modulated)
    xp = F.pad(x, (pd[2], pd[3], pd[0], pd[1]))
    expected = F.conv2d(xp, w, b, stride=(st[2], st[3]), dilation=(dl[2], dl[3]), groups=g)
    torch.testing.assert_close(out, expected, rtol=1e-12, atol=1e-12)
    # backward: grad_input/weight/bias of the plain convolution
    go = torch.randn(expected.shape, generator=gen, dtype=f64)
    xl, wl, bl = (t.clone().requires_grad_(True) for t in (x, w, b))
    ref = F.conv2d(F.pad(xl, (pd[2], pd[3], pd[0], pd[1])), wl, bl, stride=(st[2], st[3]),
                   dilation=(dl[2], dl[3]), groups=g)
    e_gi, e_gw, e_gb = torch.autograd.grad(ref, (xl, wl, bl), go)
    gi, gw, _, gb = R.deformable_conv2d_backward(x, go, D, w, off, ks, st, pd, dl, g, 2, modulated)
    for a, e in ((gi, e_gi), (gw, e_gw), (gb, e_gb)):
        torch.testing.assert_close(a, e, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dy,dx", [(1, 0), (0, -2), (-1, 2), (2, 1)])
def test_integer_offsets_shift_the_grid(dy, dx):
    gen = torch.Generator().manual_seed(4)
    H, W = 5, 6
    x = torch.randn(1, 3, H, W, generator=gen, dtype=f64)
    off = torch.zeros(1, 3, H, W, dtype=f64)           # 1x1 kernel, dg 1: channels dx, dy, mask
    off[:, 0], off[:, 1], off[:, 2] = dx, dy, 0.5
    _, D = R.deformable_conv2d(x, torch.ones(1, 3, 1, 1, dtype=f64), off, None, [1, 1], [1, 1, 1, 1],
                               [0, 0, 0, 0], [1, 1, 1, 1])
    expected = torch.zeros_like(x)                       # expected[y, x] = 0.5 * X[y+dy, x+dx] (0 outside)
    ys, xs = slice(max(0, -dy), min(H, H - dy)), slice(max(0, -dx), min(W, W - dx))
    ys_src, xs_src = slice(ys.start + dy, ys.stop + dy), slice(xs.start + dx, xs.stop + dx)
    expected[:, :, ys, xs] = 0.5 * x[:, :, ys_src, xs_src]
    torch.testing.assert_close(D, expected, rtol=0, atol=0)
    if dy >= 0 and dx >= 0:  # also the torch.roll formulation on the fully-inside region
        rolled = 0.5 * torch.roll(x, shifts=(-dy, -dx), dims=(2, 3))
        torch.testing.assert_close(D[:, :, :H - dy, :W - dx], rolled[:, :, :H - dy, :W - dx])


@pytest.mark.parametrize("target_y", [4.0, 4.5, -1.0, -1.5, 100.0, -100.0])
def test_samples_entirely_outside_give_zero(target_y):
    # dy chosen so that every sample of the 1x1 kernel sits at y = target_y, outside (-1, H) for H = 4
    gen = torch.Generator().manual_seed(5)
    H = W = 4
    x = torch.randn(1, 2, H, W, generator=gen, dtype=f64)
    w = torch.randn(3, 2, 1, 1, generator=gen, dtype=f64)
    b = torch.randn(3, generator=gen, dtype=f64)
    off = torch.zeros(1, 3, H, W, dtype=f64)
    off[:, 0] = torch.rand(1, H, W, generator=gen, dtype=f64)  # any dx
    ybase = torch.arange(H, dtype=f64).view(1, H, 1)
    off[:, 1] = target_y - ybase
    off[:, 2] = 0.7
    y = ybase + off[:, 1]
    assert bool(((y >= H) | (y <= -1)).all())
    out, D = R.deformable_conv2d(x, w, off, b, [1, 1], [1, 1, 1, 1], [0, 0, 0, 0], [1, 1, 1, 1])
    assert torch.count_nonzero(D) == 0
    torch.testing.assert_close(out, b.view(1, 3, 1, 1).expand_as(out))
    go = torch.randn(out.shape, generator=gen, dtype=f64)
    gi, gw, goff, gb = R.deformable_conv2d_backward(x, go, D, w, off, [1, 1], [1, 1, 1, 1], [0, 0, 0, 0],
                                                     [1, 1, 1, 1], 1, 1, True)
    assert torch.count_nonzero(gi) == 0 and torch.count_nonzero(goff) == 0 and torch.count_nonzero(gw) == 0
    torch.testing.assert_close(gb, go.sum(dim=(0, 2, 3)))


def _edge_setup():
    """1x1 kernel, padding 1 on every side, zero offsets: y == -1 on row oh = 0, x == -1 on ow = 0."""
    gen = torch.Generator().manual_seed(6)
    H, W = 3, 4
    x = torch.randn(1, 2, H, W, generator=gen, dtype=f64)
    w = torch.randn(2, 2, 1, 1, generator=gen, dtype=f64)
    pad = [1, 1, 1, 1]
    Ho, Wo = R.out_hw(H, W, [1, 1], [1, 1, 1, 1], pad, [1, 1, 1, 1])
    off = torch.zeros(1, 3, Ho, Wo, dtype=f64)
    off[:, 2] = 0.8
    out, D = R.deformable_conv2d(x, w, off, None, [1, 1], [1, 1, 1, 1], pad, [1, 1, 1, 1])
    go = torch.randn(out.shape, generator=gen, dtype=f64)
    args = (x, go, D, w, off, [1, 1], [1, 1, 1, 1], pad, [1, 1, 1, 1], 1, 1, True)
    G = torch.einsum("nohw,oc->nchw", go, w[:, :, 0, 0])        # dL/dD for a 1x1 kernel
    return x, off, out, go, args, G, H, W


def test_edge_minus_one_ascend_gives_zero_offset_grad():
    x, off, out, go, args, G, H, W = _edge_setup()
    gi, _, goff, _ = R.deformable_conv2d_backward(*args)
    gdx, gdy, gm = goff[0, 0], goff[0, 1], goff[0, 2]
    # row oh = 0 has y == -1, column ow = 0 has x == -1: all offset grads are 0 there (whole-sample test)
    for blk in (gdx, gdy, gm):
        assert torch.count_nonzero(blk[0, :]) == 0 and torch.count_nonzero(blk[:, 0]) == 0
    # interior samples (exact pixel hits) are non-zero: grad_mask = sum_c G * X
    torch.testing.assert_close(gm[1:H + 1, 1:W + 1], (G[0, :, 1:H + 1, 1:W + 1] * x[0]).sum(0))
    assert torch.count_nonzero(gdy[1:H + 1, 1:W + 1]) > 0


def test_edge_minus_one_torchvision_convention():
    x, off, out, go, args, G, H, W = _edge_setup()
    asc = R.deformable_conv2d_backward(*args)
    tv = R.deformable_conv2d_backward(*args, tv_edge=True)
    torch.testing.assert_close(tv[0], asc[0], rtol=0, atol=0)             # grad_input identical
    torch.testing.assert_close(tv[2][:, 2], asc[2][:, 2], rtol=0, atol=0)  # grad_mask identical
    # y == -1 (row 0), interior x = ow - 1: one-sided derivative mask * sum_c G * X[0, x]
    gdy_tv = tv[2][0, 1]
    expected = 0.8 * (G[0, :, 0, 1:W + 1] * x[0, :, 0, :]).sum(0)
    torch.testing.assert_close(gdy_tv[0, 1:W + 1], expected)
    assert torch.count_nonzero(expected) > 0
    gdx_tv = tv[2][0, 0]                                                   # x == -1 (col 0), interior y
    torch.testing.assert_close(gdx_tv[1:H + 1, 0], 0.8 * (G[0, :, 1:H + 1, 0] * x[0, :, :, 0]).sum(0))
    # the torchvision convention is the right-derivative that autograd of the forward computes
    xl, offl = x.clone().requires_grad_(True), off.clone().requires_grad_(True)
    o, _ = R.deformable_conv2d(xl, args[3], offl, None, *args[5:9])
    e_gi, e_goff = torch.autograd.grad(o, (xl, offl), go)
    torch.testing.assert_close(tv[2], e_goff)
    torch.testing.assert_close(tv[0], e_gi)


def test_torchvision_comparison():
    tv_ops = pytest.importorskip("torchvision.ops", reason="torchvision is not installed in this environment")
    from ascend_dcn import layouts
    gen = torch.Generator().manual_seed(8)
    x = torch.randn(1, 4, 5, 6, generator=gen, dtype=f64)
    w = torch.randn(4, 2, 3, 3, generator=gen, dtype=f64)
    Ho, Wo = R.out_hw(5, 6, [3, 3], [1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1])
    off = fractional_offsets(1, 2, 9, Ho, Wo, True, gen)
    off_tv, mask_tv = layouts.ascend_to_tv_offset(off)
    expected = tv_ops.deform_conv2d(x, off_tv, w, None, stride=1, padding=1, dilation=1, mask=mask_tv)
    out, _ = R.deformable_conv2d(x, w, off, None, [3, 3], [1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], 2, 2)
    torch.testing.assert_close(out, expected)


def test_reference_rejects_inconsistent_shapes():
    x, w, off, b, (ks, st, pd, dl, g, dg, mod) = make_args(CONFIGS["basic3x3"], True)
    with pytest.raises(ValueError, match="offset"):
        R.deformable_conv2d(x, w, off[:, :-1], b, ks, st, pd, dl, g, dg, mod)
    with pytest.raises(ValueError, match="offset"):
        R.deformable_conv2d(x, w, off, b, ks, st, pd, dl, g, dg, False)   # 3 blocks given, 2 expected
    with pytest.raises(ValueError, match="stride"):
        R.deformable_conv2d(x, w, off, b, ks, [2, 1, 1, 1], pd, dl, g, dg, mod)


def test_coords_fp32_emulates_single_rounding():
    # y = r - 1e-9: float64 keeps the fraction (floor = r - 1); float32 rounds r - 1e-9 to exactly r for
    # r >= 1 (one rounding), so the sample hits row r and the y-derivative switches to the next interval
    x = (torch.arange(20, dtype=f64) ** 2).reshape(1, 1, 4, 5)
    off = torch.zeros(1, 3, 4, 5, dtype=f64)
    off[:, 1] = -1e-9
    off[:, 2] = 1.0
    attrs = ([1, 1], [1, 1, 1, 1], [0, 0, 0, 0], [1, 1, 1, 1])
    w = torch.ones(1, 1, 1, 1, dtype=f64)
    _, d64 = R.deformable_conv2d(x, w, off, None, *attrs)
    _, d32 = R.deformable_conv2d(x, w, off, None, *attrs, coords_fp32=True)
    torch.testing.assert_close(d32[:, :, 1:], x[:, :, 1:], rtol=0, atol=0)
    assert not torch.equal(d64[:, :, 1:], x[:, :, 1:])
    go = torch.ones(1, 1, 4, 5, dtype=f64)
    g64 = R.deformable_conv2d_backward(x, go, d64, w, off, *attrs)[2][0, 1]
    g32 = R.deformable_conv2d_backward(x, go, d32, w, off, *attrs, coords_fp32=True)[2][0, 1]
    X = x[0, 0]
    torch.testing.assert_close(g32[1:3], X[2:4] - X[1:3])      # forward difference from row r
    torch.testing.assert_close(g64[1:3], X[1:3] - X[0:2])      # backward difference (floor = r - 1)


def test_dcnv1_equals_modulated_with_unit_mask():
    x, w, off2, b, (ks, st, pd, dl, g, dg, _) = make_args(CONFIGS["groups2_dg2_asym"], False, seed=9)
    off3 = torch.cat([off2, torch.ones_like(off2[:, : off2.shape[1] // 2])], dim=1)
    out2, D2 = R.deformable_conv2d(x, w, off2, b, ks, st, pd, dl, g, dg, False)
    out3, D3 = R.deformable_conv2d(x, w, off3, b, ks, st, pd, dl, g, dg, True)
    torch.testing.assert_close(out2, out3, rtol=0, atol=0)
    torch.testing.assert_close(D2, D3, rtol=0, atol=0)
    go = torch.randn(out2.shape, generator=torch.Generator().manual_seed(1), dtype=f64)
    g2 = R.deformable_conv2d_backward(x, go, D2, w, off2, ks, st, pd, dl, g, dg, False)
    g3 = R.deformable_conv2d_backward(x, go, D3, w, off3, ks, st, pd, dl, g, dg, True)
    for a, e in zip(g2[:2] + g2[3:], g3[:2] + g3[3:]):
        torch.testing.assert_close(a, e, rtol=0, atol=0)
    torch.testing.assert_close(g2[2], g3[2][:, : off2.shape[1]], rtol=0, atol=0)   # [dx | dy] blocks
