"""Float64 reference (oracle) of the deformable-convolution contract of op-semantics.md.

Independent of any kernel code; vectorised torch (the only Python loop is over the 4 bilinear
corners). Everything is computed in float64; results are returned in the dtype of the
corresponding input tensor.

Layouts (op-semantics §2, §4, §6):
  input       [N, Cin, H, W]                     NCHW
  weight      [Cout, Cin/groups, KH, KW]
  offset      [N, B*dg*KH*KW, Ho, Wo]             B = 3 blocks [dx | dy | mask] (modulated=True)
                                                 B = 2 blocks [dx | dy]        (modulated=False, our extension)
              channel of block b, deformable group g, kernel point k=kh*KW+kw: b*dg*K + g*K + k
  offset_out  [N, Cin, Ho*KH, Wo*KW]             deformOut: mask * bilinear(X, y, x) at row oh*KH+kh, col ow*KW+kw
  kernel_size [KH, KW]; stride, dilation [1, 1, sH, sW] (NCHW order); padding [top, bottom, left, right]

Sampling position (op-semantics §4): y = (oh*sH - top + kh*dH) + dy, x = (ow*sW - left + kw*dW) + dx.
The integer base is exact. Kernels may round y/x to float32 once when adding the offset (ours
does not: it keeps base + floor(dy) and dy - floor(dy) apart); this oracle keeps float64 everywhere
by default. ``coords_fp32=True`` (keyword of both functions) emulates that single rounding:
y = float32(float32(base) + float32(dy)), then float64.

Boundary rules: floor (true floor for negatives), per-corner validity 0 <= yc < H, 0 <= xc < W in
the forward; the backward (§5.2) additionally requires the whole-sample test -1 < y < H and
-1 < x < W before any gradient is produced. ``tv_edge=True`` replaces that test for grad_dy/grad_dx
by per-corner validity only (torchvision's one-sided derivative at y == -1 / x == -1, §5.3).
"""

import torch

__all__ = [
    "out_hw",
    "deformable_conv2d",
    "deformable_conv2d_backward",
    "normalize_attrs",
]


def _int_list(value, length, name):
    try:
        items = [int(v) for v in value]
    except TypeError:
        raise ValueError(f"{name}: must be a sequence of {length} ints; got {value!r}") from None
    if len(items) != length:
        raise ValueError(f"{name}: must have {length} elements; expected {length}, got {len(items)}")
    return items


def normalize_attrs(kernel_size, stride, padding, dilation):
    """Return the attributes as plain int lists (2, 4, 4, 4 elements), checking only their sizes
    and the N/C entries of stride/dilation. Full aclnn validation lives in ascend_dcn.validation."""
    ks = _int_list(kernel_size, 2, "kernel_size")
    st = _int_list(stride, 4, "stride")
    pd = _int_list(padding, 4, "padding")
    dl = _int_list(dilation, 4, "dilation")
    if st[0] != 1 or st[1] != 1 or min(st) < 1:
        raise ValueError(f"stride: must be [1, 1, sH >= 1, sW >= 1]; got {st}")
    if dl[0] != 1 or dl[1] != 1 or min(dl) < 1:
        raise ValueError(f"dilation: must be [1, 1, dH >= 1, dW >= 1]; got {dl}")
    if ks[0] < 1 or ks[1] < 1:
        raise ValueError(f"kernel_size: must be positive; got {ks}")
    return ks, st, pd, dl


def out_hw(H, W, kernel_size, stride, padding, dilation):
    """Output size (Ho, Wo) of op-semantics §4 (4-element stride/padding/dilation, 2-element kernel)."""
    KH, KW = int(kernel_size[0]), int(kernel_size[1])
    Ho = (H + padding[0] + padding[1] - ((KH - 1) * dilation[2] + 1)) // stride[2] + 1
    Wo = (W + padding[2] + padding[3] - ((KW - 1) * dilation[3] + 1)) // stride[3] + 1
    return Ho, Wo


def _check_layout(inp, weight, offset, ks, groups, dg, modulated):
    if inp.dim() != 4 or weight.dim() != 4 or offset.dim() != 4:
        raise ValueError("input, weight and offset must be 4-D NCHW tensors; got "
                         f"{tuple(inp.shape)}, {tuple(weight.shape)}, {tuple(offset.shape)}")
    N, C = inp.shape[0], inp.shape[1]
    Cout = weight.shape[0]
    if groups < 1 or dg < 1 or C % groups or Cout % groups or C % dg:
        raise ValueError(f"groups/deformable_groups: Cin={C}, Cout={Cout} must be divisible by "
                         f"groups={groups}; Cin by deformable_groups={dg}")
    if tuple(weight.shape[1:]) != (C // groups, ks[0], ks[1]):
        raise ValueError(f"weight: expected shape [{Cout}, {C // groups}, {ks[0]}, {ks[1]}], "
                         f"got {list(weight.shape)}")
    blocks = 3 if modulated else 2
    if offset.shape[0] != N or offset.shape[1] != blocks * dg * ks[0] * ks[1]:
        raise ValueError(f"offset: expected [{N}, {blocks * dg * ks[0] * ks[1]}, Ho, Wo], "
                         f"got {list(offset.shape)}")


def _sample_coords(offset, ks, st, pd, dl, dg, modulated, coords_fp32=False):
    """(y, x, mask), each float64 [N, dg, KH, KW, Ho, Wo]."""
    N, _, Ho, Wo = offset.shape
    KH, KW = ks
    blocks = 3 if modulated else 2
    off = offset.reshape(N, blocks, dg, KH, KW, Ho, Wo)
    dx, dy = off[:, 0], off[:, 1]
    mask = off[:, 2] if modulated else torch.ones_like(dx)
    dev = offset.device
    oh = torch.arange(Ho, device=dev, dtype=torch.int64).view(1, 1, Ho, 1)
    ow = torch.arange(Wo, device=dev, dtype=torch.int64).view(1, 1, 1, Wo)
    kh = torch.arange(KH, device=dev, dtype=torch.int64).view(KH, 1, 1, 1)
    kw = torch.arange(KW, device=dev, dtype=torch.int64).view(1, KW, 1, 1)
    base_y = (oh * st[2] - pd[0] + kh * dl[2]).to(torch.float64)   # exact integers
    base_x = (ow * st[3] - pd[2] + kw * dl[3]).to(torch.float64)
    if coords_fp32:
        f32 = torch.float32
        return ((base_y.to(f32) + dy.to(f32)).to(torch.float64),
                (base_x.to(f32) + dx.to(f32)).to(torch.float64), mask)
    return base_y + dy, base_x + dx, mask


def _corners(y, x):
    """Yield per corner: (cy, cx) int64 indices, bilinear weight, d(weight)/dy, d(weight)/dx.

    The floor is taken on detached values; ly = y - floor(y) keeps the autograd path to y."""
    y0 = torch.floor(y.detach())
    x0 = torch.floor(x.detach())
    ly, lx = y - y0, x - x0
    hy, hx = 1 - ly, 1 - lx
    y0i, x0i = y0.to(torch.int64), x0.to(torch.int64)
    yield y0i, x0i, hy * hx, -hx, -hy
    yield y0i, x0i + 1, hy * lx, -lx, hy
    yield y0i + 1, x0i, ly * hx, hx, -ly
    yield y0i + 1, x0i + 1, ly * lx, lx, ly


def _gather_corner(Xg, cy, cx, valid, H, W):
    """Values X[n, g, c, cy, cx] as [N, dg, Cg, L] (L = KH*KW*Ho*Wo); 0 where not valid."""
    N, dg, Cg, _ = Xg.shape
    idx = (cy.clamp(0, H - 1) * W + cx.clamp(0, W - 1)).reshape(N, dg, 1, -1)
    vals = torch.gather(Xg, 3, idx.expand(N, dg, Cg, idx.shape[-1]))
    return torch.where(valid.reshape(N, dg, 1, -1), vals, torch.zeros((), dtype=Xg.dtype, device=Xg.device))


def _valid(cy, cx, H, W):
    return (cy >= 0) & (cy < H) & (cx >= 0) & (cx < W)


def deform_sample(input, offset, kernel_size, stride, padding, dilation, deformable_groups=1,
                  modulated=True, coords_fp32=False):
    """deformOut [N, Cin, Ho*KH, Wo*KW] in float64 (differentiable w.r.t. input and offset)."""
    ks, st, pd, dl = normalize_attrs(kernel_size, stride, padding, dilation)
    X = input.to(torch.float64)
    off = offset.to(torch.float64)
    N, C, H, W = X.shape
    dg = int(deformable_groups)
    Cg = C // dg
    KH, KW = ks
    y, x, mask = _sample_coords(off, ks, st, pd, dl, dg, modulated, coords_fp32)
    Ho, Wo = y.shape[-2:]
    Xg = X.reshape(N, dg, Cg, H * W)
    val = torch.zeros((N, dg, Cg, KH * KW * Ho * Wo), dtype=torch.float64, device=X.device)
    for cy, cx, wb, _, _ in _corners(y, x):
        ok = _valid(cy, cx, H, W)
        v = _gather_corner(Xg, cy, cx, ok, H, W)
        wgt = torch.where(ok, wb, torch.zeros((), dtype=torch.float64, device=X.device))
        val = val + wgt.reshape(N, dg, 1, -1) * v
    val = val * mask.reshape(N, dg, 1, -1)
    # [N, dg, Cg, KH, KW, Ho, Wo] -> [N, C, Ho, KH, Wo, KW]
    val = val.reshape(N, C, KH, KW, Ho, Wo).permute(0, 1, 4, 2, 5, 3)
    return val.reshape(N, C, Ho * KH, Wo * KW)


def _conv_stride_k(D, weight, bias, ks, groups):
    """conv2d(D, weight, bias, stride=kernel_size, padding 0, dilation 1, groups) via einsum."""
    N, C = D.shape[:2]
    KH, KW = ks
    Ho, Wo = D.shape[2] // KH, D.shape[3] // KW
    Cout = weight.shape[0]
    cols = D.reshape(N, groups, C // groups, Ho, KH, Wo, KW)
    w = weight.reshape(groups, Cout // groups, C // groups, KH, KW)
    out = torch.einsum("ngchpwq,gocpq->ngohw", cols, w).reshape(N, Cout, Ho, Wo)
    if bias is not None:
        out = out + bias.reshape(1, Cout, 1, 1)
    return out


def deformable_conv2d(input, weight, offset, bias, kernel_size, stride, padding, dilation,
                      groups=1, deformable_groups=1, modulated=True, *, coords_fp32=False):
    """Forward of torch_npu.npu_deformable_conv2d -> (out [N,Cout,Ho,Wo], offset_out [N,Cin,Ho*KH,Wo*KW]).

    Computed in float64 with differentiable torch ops (usable with torch.autograd.gradcheck); the
    outputs are cast to input.dtype. Ho, Wo are taken from offset.shape[2:], which must equal
    out_hw(...)."""
    ks, st, pd, dl = normalize_attrs(kernel_size, stride, padding, dilation)
    groups, dg = int(groups), int(deformable_groups)
    _check_layout(input, weight, offset, ks, groups, dg, bool(modulated))
    Ho, Wo = out_hw(input.shape[2], input.shape[3], ks, st, pd, dl)
    if tuple(offset.shape[2:]) != (Ho, Wo):
        raise ValueError(f"offset: spatial size must be the output size ({Ho}, {Wo}); "
                         f"got {tuple(offset.shape[2:])}")
    D = deform_sample(input, offset, ks, st, pd, dl, dg, bool(modulated), coords_fp32)
    b = None if bias is None else bias.to(torch.float64)
    out = _conv_stride_k(D, weight.to(torch.float64), b, ks, groups)
    return out.to(input.dtype), D.to(input.dtype)


def deformable_conv2d_backward(input, grad_output, offset_out, weight, offset, kernel_size, stride,
                               padding, dilation, groups=1, deformable_groups=1, modulated=True, *,
                               tv_edge=False, coords_fp32=False):
    """Analytic backward of torch_npu.npu_deformable_conv2dbk (op-semantics §5.2, §6.3).

    Returns (grad_input, grad_weight, grad_offset, grad_bias), each in the dtype of input, weight,
    offset and grad_output respectively. grad_weight uses ``offset_out`` as given (not recomputed).
    grad_offset has the layout of ``offset`` ([dx | dy | mask], or [dx | dy] if not modulated).
    ``tv_edge=True``: grad_dy/grad_dx follow torchvision's one-sided derivative at y == -1 / x == -1
    (per-corner validity only); grad_input and grad_mask are unaffected by the flag."""
    ks, st, pd, dl = normalize_attrs(kernel_size, stride, padding, dilation)
    groups, dg, modulated = int(groups), int(deformable_groups), bool(modulated)
    _check_layout(input, weight, offset, ks, groups, dg, modulated)
    f64 = torch.float64
    X = input.detach().to(f64)
    GO = grad_output.detach().to(f64)
    D = offset_out.detach().to(f64)
    Wt = weight.detach().to(f64)
    off = offset.detach().to(f64)
    N, C, H, W = X.shape
    Cout = Wt.shape[0]
    KH, KW = ks
    Ho, Wo = out_hw(H, W, ks, st, pd, dl)
    if tuple(off.shape[2:]) != (Ho, Wo) or tuple(GO.shape) != (N, Cout, Ho, Wo) \
            or tuple(D.shape) != (N, C, Ho * KH, Wo * KW):
        raise ValueError(f"offset/grad_output/offset_out: shapes inconsistent with output size ({Ho}, {Wo}): "
                         f"{list(off.shape)}, {list(GO.shape)}, {list(D.shape)}")
    Cg, Cgc = C // dg, C // groups
    L = KH * KW * Ho * Wo

    # Step 1: conv backprop with stride = kernel_size (§6.3).
    go = GO.reshape(N, groups, Cout // groups, Ho, Wo)
    w = Wt.reshape(groups, Cout // groups, Cgc, KH, KW)
    cols = D.reshape(N, groups, Cgc, Ho, KH, Wo, KW)
    grad_bias = GO.sum(dim=(0, 2, 3))
    grad_weight = torch.einsum("ngohw,ngchpwq->gocpq", go, cols).reshape(Wt.shape)
    G = torch.einsum("ngohw,gocpq->ngchpwq", go, w)                      # dL/dD
    G = G.reshape(N, C, Ho, KH, Wo, KW).permute(0, 1, 3, 5, 2, 4)         # [N, C, KH, KW, Ho, Wo]
    G = G.reshape(N, dg, Cg, L)

    # Step 2: DeformableOffsetsGrad (§5.2).
    y, x, m = _sample_coords(off, ks, st, pd, dl, dg, modulated, coords_fp32)
    inside = (y > -1) & (y < H) & (x > -1) & (x < W)                    # whole-sample test
    Xg = X.reshape(N, dg, Cg, H * W)
    mf = m.reshape(N, dg, L)
    zero = torch.zeros((), dtype=f64, device=X.device)
    grad_x = torch.zeros((N, dg, Cg, H * W), dtype=f64, device=X.device)
    gy = torch.zeros((N, dg, L), dtype=f64, device=X.device)
    gx = torch.zeros_like(gy)
    gm = torch.zeros_like(gy)
    for cy, cx, wb, wdy, wdx in _corners(y, x):
        valid = _valid(cy, cx, H, W)
        ok = valid & inside
        okd = valid if tv_edge else ok
        okf, okdf = ok.reshape(N, dg, L), okd.reshape(N, dg, L)
        v = _gather_corner(Xg, cy, cx, valid, H, W)                       # 0 on invalid corners
        s = (G * v).sum(dim=2)                                            # sum_c G*X  [N, dg, L]
        gm = gm + torch.where(okf, wb.reshape(N, dg, L) * s, zero)
        gy = gy + torch.where(okdf, mf * wdy.reshape(N, dg, L) * s, zero)
        gx = gx + torch.where(okdf, mf * wdx.reshape(N, dg, L) * s, zero)
        contrib = torch.where(okf, mf * wb.reshape(N, dg, L), zero).reshape(N, dg, 1, L) * G
        idx = (cy.clamp(0, H - 1) * W + cx.clamp(0, W - 1)).reshape(N, dg, 1, L).expand(N, dg, Cg, L)
        grad_x.scatter_add_(3, idx, contrib)
    blocks = [gx, gy, gm] if modulated else [gx, gy]
    grad_offset = torch.stack(blocks, dim=1).reshape(off.shape)
    return (grad_x.reshape(N, C, H, W).to(input.dtype), grad_weight.to(weight.dtype),
            grad_offset.to(offset.dtype), grad_bias.to(grad_output.dtype))
