"""Plain PyTorch deformable convolution (forward), differentiated by torch.autograd: the
"no custom kernel" peer of the benchmark.

Same contract as ascend_dcn.reference (op-semantics.md §4) but computed in the tensors' own dtype
(float32 in the benchmark) instead of float64: sample y = oh*sH - top + kh*dH + dy (x alike), bilinear
interpolation with per-corner validity 0 <= yc < H, 0 <= xc < W, times the mask, then the grouped
product with the weight. Autograd of this forward equals the contract's backward except on the
measure-zero set y == -1 or x == -1 exactly (op-semantics §5.3), which random offsets never hit.

Layouts: Ascend ones (offset [N, B*dg*K, Ho, Wo] = [dx | dy | mask], B = 3; 2 if not modulated).
Memory: builds [N, dg, Cin/dg, K*Ho*Wo] columns (like im2col), i.e. K times the input per image.
"""
import torch


def _corner_terms(y, x):
    y0 = torch.floor(y.detach())
    x0 = torch.floor(x.detach())
    ly, lx = y - y0, x - x0
    hy, hx = 1 - ly, 1 - lx
    y0i, x0i = y0.long(), x0.long()
    return ((y0i, x0i, hy * hx), (y0i, x0i + 1, hy * lx), (y0i + 1, x0i, ly * hx), (y0i + 1, x0i + 1, ly * lx))


def deform_conv2d(input, weight, offset, kernel_size, stride, padding, dilation, groups=1,
                  deformable_groups=1, modulated=True):
    """out [N, Cout, Ho, Wo] (no bias); differentiable w.r.t. input, weight and offset."""
    n, c, h, w = input.shape
    kh, kw = kernel_size
    sh, sw = stride[2], stride[3]
    dh, dw = dilation[2], dilation[3]
    top, left = padding[0], padding[2]
    ho, wo = offset.shape[2], offset.shape[3]
    dg = deformable_groups
    k = kh * kw
    blocks = 3 if modulated else 2
    off = offset.reshape(n, blocks, dg, kh, kw, ho, wo)
    dev, dt = input.device, input.dtype
    base_y = (torch.arange(ho, device=dev).view(1, 1, ho, 1) * sh - top
              + torch.arange(kh, device=dev).view(kh, 1, 1, 1) * dh).to(dt)
    base_x = (torch.arange(wo, device=dev).view(1, 1, 1, wo) * sw - left
              + torch.arange(kw, device=dev).view(1, kw, 1, 1) * dw).to(dt)
    y = base_y + off[:, 1]                         # [N, dg, KH, KW, Ho, Wo]
    x = base_x + off[:, 0]
    xg = input.reshape(n, dg, c // dg, h * w)
    length = k * ho * wo
    cols = None
    for cy, cx, wb in _corner_terms(y, x):
        valid = (cy >= 0) & (cy < h) & (cx >= 0) & (cx < w)
        idx = (cy.clamp(0, h - 1) * w + cx.clamp(0, w - 1)).reshape(n, dg, 1, length)
        vals = torch.gather(xg, 3, idx.expand(n, dg, c // dg, length))
        term = vals * torch.where(valid, wb, torch.zeros((), dtype=dt, device=dev)).reshape(n, dg, 1, length)
        cols = term if cols is None else cols + term
    if modulated:
        cols = cols * off[:, 2].reshape(n, dg, 1, length)
    # [N, dg, Cin/dg, K*Ho*Wo] -> [N, groups, Cin/g*K, Ho*Wo] -> grouped product with the weight
    cols = cols.reshape(n, groups, (c // groups) * k, ho * wo)
    wmat = weight.reshape(groups, weight.shape[0] // groups, (c // groups) * k)
    out = torch.einsum("gok,ngkl->ngol", wmat, cols)
    return out.reshape(n, weight.shape[0], ho, wo)


class Runner:
    """Builds the autograd graph (``prepare``, untimed) and runs the backward (``run``, timed)."""

    def __init__(self, inputs, attrs):
        self.inputs = inputs
        self.attrs = attrs
        self._out = None

    def prepare(self):
        a = self.attrs
        self.x = self.inputs["input"].detach().clone().requires_grad_(True)
        self.w = self.inputs["weight"].detach().clone().requires_grad_(True)
        self.off = self.inputs["offset"].detach().clone().requires_grad_(True)
        self._out = deform_conv2d(self.x, self.w, self.off, a["kernel_size"], a["stride"], a["padding"],
                                  a["dilation"], a["groups"], a["deformable_groups"], a["modulated"])

    def run(self):
        go = self.inputs["grad_output"]
        self._out.backward(go)
        self._out = None
        return self.x.grad, self.w.grad, self.off.grad, go.sum(dim=(0, 2, 3))
