"""AMP: under torch.autocast the DCN ops run in the autocast dtype end to end.

CPU autocast (bfloat16 by default, float16 on request) is tested here; on NPU the same rule is
registered for AutocastPrivateUse1 (torch_npu's autocast, typically float16). Checked: output dtype
is the autocast dtype (no silent float32), the backward operator receives autocast-dtype tensors,
parameters keep float32 gradients, and the values meet the fp16/bf16 precision standard against
the float64 reference evaluated on the autocast-rounded inputs (float32 accumulation inside).
"""
import pytest
import torch

from ascend_dcn import ops, precision, reference
from ascend_dcn.functional import deform_conv2d, deformable_conv2d
from ascend_dcn.modules import DeformConv2d, ModulatedDeformConv2dPack

ATTRS = ([3, 3], [1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1])


def _inputs(seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(1, 4, 5, 6, generator=g)
    w = torch.randn(4, 4, 3, 3, generator=g) * 0.3
    off = torch.cat([torch.rand(1, 18, 5, 6, generator=g) * 3 - 1.5 + 0.0123,
                     torch.rand(1, 9, 5, 6, generator=g)], dim=1)
    b = torch.randn(4, generator=g)
    return x, w, off, b


@pytest.fixture
def backward_dtypes(monkeypatch):
    seen = []
    real = ops.deformable_conv2d_backward

    def spy(*args, **kwargs):
        seen.append({a.dtype for a in args[:5]})
        return real(*args, **kwargs)

    monkeypatch.setattr(ops, "deformable_conv2d_backward", spy)
    return seen


@pytest.mark.parametrize("amp_dtype", [torch.bfloat16, torch.float16])
def test_autocast_end_to_end(amp_dtype, backward_dtypes):
    x, w, off, b = (t.clone().requires_grad_() for t in _inputs())
    with torch.autocast("cpu", dtype=amp_dtype):
        out, _ = deformable_conv2d(x, w, off, b, *ATTRS)
        assert out.dtype == amp_dtype
        loss = out.float().square().sum()
    loss.backward()
    assert backward_dtypes == [{amp_dtype}]
    assert all(t.grad.dtype == torch.float32 for t in (x, w, off, b))
    assert all(torch.isfinite(t.grad).all() for t in (x, w, off, b))
    # value: float64 reference on the autocast-rounded inputs, judged by the fp16/bf16 standard
    rounded = [t.detach().to(amp_dtype).double() for t in (x, w, off, b)]
    gold, _ = reference.deformable_conv2d(*rounded, *ATTRS)
    res = precision.check_precision(out.detach(), gold, amp_dtype)
    assert res.passed, res.summary("out")


def test_autocast_torchvision_function_and_modules(backward_dtypes):
    torch.manual_seed(0)
    x = torch.randn(1, 4, 5, 6, requires_grad=True)
    offset = torch.rand(1, 18, 5, 6) - 0.5 + 0.0123
    mask = torch.rand(1, 9, 5, 6)
    tv = DeformConv2d(4, 4, 3, padding=1)
    mm = ModulatedDeformConv2dPack(4, 4, 3, padding=1, save_deform_out=False)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y1 = deform_conv2d(x, offset, tv.weight, tv.bias, padding=1, mask=mask)
        y2 = tv(x, offset, mask)
        y3 = mm(y2)
        assert y1.dtype == y2.dtype == y3.dtype == torch.bfloat16
        loss = (y1.float().sum() + y3.float().sum())
    loss.backward()
    assert backward_dtypes and all(s == {torch.bfloat16} for s in backward_dtypes)
    for p in list(tv.parameters()) + list(mm.parameters()) + [x]:
        assert p.grad is not None and p.grad.dtype == torch.float32


def test_no_autocast_keeps_float32():
    x, w, off, b = _inputs(1)
    out, _ = deformable_conv2d(x, w, off, b, *ATTRS)
    assert out.dtype == torch.float32
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=False):
        assert deformable_conv2d(x, w, off, b, *ATTRS)[0].dtype == torch.float32


def test_autocast_under_torch_compile():
    torch._dynamo.reset()
    x, w, off, b = (t.clone().requires_grad_() for t in _inputs(2))

    def f(x, w, off, b):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return deformable_conv2d(x, w, off, b, *ATTRS)[0]

    out = torch.compile(f, backend="aot_eager", fullgraph=True)(x, w, off, b)
    assert out.dtype == torch.bfloat16
    out.float().sum().backward()
    assert w.grad.dtype == torch.float32 and torch.isfinite(w.grad).all()
