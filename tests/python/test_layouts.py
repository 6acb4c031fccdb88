"""ascend_dcn.layouts: torchvision/mmcv <-> Ascend offsets, gradients and attributes (op-semantics §3)."""
import math

import numpy as np
import pytest
import torch

from ascend_dcn import layouts as L
from ascend_dcn import reference as R

f64 = torch.float64


def _tv_offsets(N=2, dg=2, K=6, Ho=3, Wo=4, seed=0):
    gen = torch.Generator().manual_seed(seed)
    return (torch.randn(N, 2 * dg * K, Ho, Wo, generator=gen, dtype=f64),
            torch.rand(N, dg * K, Ho, Wo, generator=gen, dtype=f64))


def test_channel_mapping_matches_table():
    dg, K = 2, 6
    off_tv, mask_tv = _tv_offsets(dg=dg, K=K)
    asc = L.tv_to_ascend_offset(off_tv, mask_tv)
    assert asc.shape[1] == 3 * dg * K
    for g in range(dg):
        for k in range(K):
            j = g * K + k
            torch.testing.assert_close(asc[:, j], off_tv[:, 2 * j + 1], rtol=0, atol=0)           # dx
            torch.testing.assert_close(asc[:, dg * K + j], off_tv[:, 2 * j], rtol=0, atol=0)      # dy
            torch.testing.assert_close(asc[:, 2 * dg * K + j], mask_tv[:, j], rtol=0, atol=0)     # mask


@pytest.mark.parametrize("as_numpy", [False, True])
def test_offset_round_trip_modulated(as_numpy):
    off_tv, mask_tv = _tv_offsets()
    if as_numpy:
        off_tv, mask_tv = off_tv.numpy(), mask_tv.numpy()
    asc = L.tv_to_ascend_offset(off_tv, mask_tv)
    back, mask_back = L.ascend_to_tv_offset(asc)
    assert type(back) is type(off_tv)
    np.testing.assert_array_equal(np.asarray(back), np.asarray(off_tv))
    np.testing.assert_array_equal(np.asarray(mask_back), np.asarray(mask_tv))
    # and the other direction
    again = L.tv_to_ascend_offset(back, mask_back)
    np.testing.assert_array_equal(np.asarray(again), np.asarray(asc))


def test_offset_round_trip_dcnv1():
    off_tv, _ = _tv_offsets()
    asc = L.tv_to_ascend_offset(off_tv, modulated=False)
    assert asc.shape[1] == off_tv.shape[1]
    torch.testing.assert_close(asc[:, :12], off_tv[:, 1::2], rtol=0, atol=0)
    back, mask = L.ascend_to_tv_offset(asc, modulated=False)
    assert mask is None
    torch.testing.assert_close(back, off_tv, rtol=0, atol=0)
    with pytest.raises(ValueError, match="modulated=False"):
        L.tv_to_ascend_offset(off_tv, torch.ones(2, 12, 3, 4, dtype=f64), modulated=False)


def test_missing_mask_is_ones_for_offsets_and_zeros_for_grads():
    off_tv, _ = _tv_offsets()
    asc = L.tv_to_ascend_offset(off_tv)
    assert bool((asc[:, 24:] == 1).all())
    gasc = L.tv_grad_to_ascend(off_tv)
    assert bool((gasc[:, 24:] == 0).all())


def test_grad_round_trip():
    g_tv, gm_tv = _tv_offsets(seed=1)
    for modulated in (True, False):
        gasc = L.tv_grad_to_ascend(g_tv, gm_tv if modulated else None, modulated=modulated)
        back, gm = L.ascend_grad_to_tv(gasc, modulated=modulated)
        torch.testing.assert_close(back, g_tv, rtol=0, atol=0)
        if modulated:
            torch.testing.assert_close(gm, gm_tv, rtol=0, atol=0)
        else:
            assert gm is None


def test_bad_channel_counts_are_rejected():
    with pytest.raises(ValueError, match="offset"):
        L.tv_to_ascend_offset(torch.zeros(1, 5, 2, 2))
    with pytest.raises(ValueError, match="mask"):
        L.tv_to_ascend_offset(torch.zeros(1, 4, 2, 2), torch.zeros(1, 3, 2, 2))
    with pytest.raises(ValueError, match="grad_offset"):
        L.ascend_grad_to_tv(torch.zeros(1, 4, 2, 2))


@pytest.mark.parametrize("value,pair", [(2, (2, 2)), ((1, 3), (1, 3)), ([4, 5], (4, 5)), (np.int64(3), (3, 3))])
def test_attribute_round_trip(value, pair):
    assert L.tv_stride_to_ascend(value) == [1, 1, *pair]
    assert L.tv_dilation_to_ascend(value) == [1, 1, *pair]
    assert L.tv_padding_to_ascend(value) == [pair[0], pair[0], pair[1], pair[1]]
    assert L.ascend_stride_to_tv(L.tv_stride_to_ascend(value)) == pair
    assert L.ascend_dilation_to_tv(L.tv_dilation_to_ascend(value)) == pair
    assert L.ascend_padding_to_tv(L.tv_padding_to_ascend(value)) == pair


@pytest.mark.parametrize("bad", [True, (1, 2, 3), "12", 1.5, (1, 2.0)])
def test_attribute_pair_rejects_bad_values(bad):
    with pytest.raises(ValueError):
        L.tv_stride_to_ascend(bad)


def test_ascend_attribute_errors():
    with pytest.raises(ValueError, match="asymmetric"):
        L.ascend_padding_to_tv([1, 0, 1, 1])
    with pytest.raises(ValueError, match="asymmetric"):
        L.ascend_padding_to_tv([1, 1, 2, 1])
    with pytest.raises(ValueError, match="N and C"):
        L.ascend_stride_to_tv([2, 1, 1, 1])
    with pytest.raises(ValueError, match="N and C"):
        L.ascend_dilation_to_tv([1, 2, 1, 1])
    with pytest.raises(ValueError, match="4 elements"):
        L.ascend_stride_to_tv([1, 1])


def _tv_bilinear(img, h, w):
    """torchvision CPU semantics: 0 outside (-1, H) x (-1, W), per-corner zero padding."""
    H, W = img.shape
    if h <= -1 or h >= H or w <= -1 or w >= W:
        return 0.0
    h0, w0 = math.floor(h), math.floor(w)
    lh, lw = h - h0, w - w0
    val = 0.0
    for yc, xc, wt in ((h0, w0, (1 - lh) * (1 - lw)), (h0, w0 + 1, (1 - lh) * lw),
                       (h0 + 1, w0, lh * (1 - lw)), (h0 + 1, w0 + 1, lh * lw)):
        if 0 <= yc < H and 0 <= xc < W:
            val += wt * float(img[yc, xc])
    return val


def _naive_tv_deform_conv(x, w, off_tv, mask_tv, stride, padding, dilation, groups, dg):
    N, C, H, W = x.shape
    Co, Cpg, KH, KW = w.shape
    Ho, Wo = off_tv.shape[2:]
    K = KH * KW
    out = torch.zeros(N, Co, Ho, Wo, dtype=f64)
    for n in range(N):
        for oc in range(Co):
            gconv = oc // (Co // groups)
            for oh in range(Ho):
                for ow in range(Wo):
                    acc = 0.0
                    for cl in range(Cpg):
                        c = gconv * Cpg + cl
                        g = c // (C // dg)
                        for kh in range(KH):
                            for kw in range(KW):
                                j = g * K + kh * KW + kw
                                h = oh * stride[0] - padding[0] + kh * dilation[0] + float(off_tv[n, 2 * j, oh, ow])
                                ww = ow * stride[1] - padding[1] + kw * dilation[1] + float(off_tv[n, 2 * j + 1, oh, ow])
                                m = float(mask_tv[n, j, oh, ow]) if mask_tv is not None else 1.0
                                acc += float(w[oc, cl, kh, kw]) * m * _tv_bilinear(x[n, c], h, ww)
                    out[n, oc, oh, ow] = acc
    return out


@pytest.mark.parametrize("modulated", [True, False])
def test_reference_with_converted_offsets_matches_naive_torchvision_loop(modulated):
    gen = torch.Generator().manual_seed(2)
    stride, padding, dilation, groups, dg = (1, 2), (1, 1), (2, 1), 2, 2
    x = torch.randn(1, 4, 5, 5, generator=gen, dtype=f64)
    w = torch.randn(2, 2, 2, 3, generator=gen, dtype=f64)
    st, pd, dl = L.tv_stride_to_ascend(stride), L.tv_padding_to_ascend(padding), L.tv_dilation_to_ascend(dilation)
    Ho, Wo = R.out_hw(5, 5, [2, 3], st, pd, dl)
    off_tv = (torch.rand(1, 2 * dg * 6, Ho, Wo, generator=gen, dtype=f64) - 0.5) * 5
    mask_tv = torch.rand(1, dg * 6, Ho, Wo, generator=gen, dtype=f64) if modulated else None
    expected = _naive_tv_deform_conv(x, w, off_tv, mask_tv, stride, padding, dilation, groups, dg)
    off_asc = L.tv_to_ascend_offset(off_tv, mask_tv, modulated=modulated)
    out, _ = R.deformable_conv2d(x, w, off_asc, None, [2, 3], st, pd, dl, groups, dg, modulated)
    torch.testing.assert_close(out, expected, rtol=1e-12, atol=1e-12)
