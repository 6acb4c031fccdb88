"""torch.library registration: opcheck of every ascend_dcn op, and torch.compile forward+backward.

torch.compile uses backend="aot_eager": it traces the custom ops through their fake kernels and
the registered autograd formula (AOTAutograd) without needing a C++ compiler at test time.
(The default inductor backend also works with these ops here, but its first compile of this tiny
layer took ~24 s on the 2-core CI machine, so CI uses aot_eager.)
"""
import pytest
import torch

import ascend_dcn.functional as dcn_functional
from ascend_dcn import library
from ascend_dcn.modules import DeformConv2d, ModulatedDeformConv2dPack

ATTRS = ([3, 3], [1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1])


def _inputs(seed=0, requires_grad=True):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(1, 4, 5, 5, generator=g)
    w = torch.randn(4, 2, 3, 3, generator=g)
    off = torch.rand(1, 2 * 3 * 9, 5, 5, generator=g) * 3 - 1.5 + 0.0123
    b = torch.randn(4, generator=g)
    return [t.requires_grad_(requires_grad) for t in (x, w, off, b)]


@pytest.mark.parametrize("save_deform_out", [True, False])
def test_opcheck_deformable_conv2d(save_deform_out):
    x, w, off, b = _inputs()
    torch.library.opcheck(library.deformable_conv2d, (x, w, off, b, *ATTRS, 2, 2, True, save_deform_out))


def test_opcheck_deformable_conv2d_without_bias_dcnv1():
    x, w, off, _ = _inputs(1)
    off = off[:, : 2 * 2 * 9].detach().clone().requires_grad_()
    torch.library.opcheck(library.deformable_conv2d, (x, w, off, None, *ATTRS, 2, 2, False, True))


def test_opcheck_deformable_sample():
    x, _, off, _ = _inputs(2, requires_grad=False)
    torch.library.opcheck(library.deformable_sample, (x, off, *ATTRS, 2, True))


def test_opcheck_deformable_conv2d_backward():
    x, w, off, _ = _inputs(3, requires_grad=False)
    d = library.deformable_sample(x, off, *ATTRS, 2, True)
    go = torch.randn(1, 4, 5, 5)
    torch.library.opcheck(library.deformable_conv2d_backward, (x, go, d, w, off, *ATTRS, 2, 2, True))


def test_fake_kernel_shapes_and_validation():
    from torch._subclasses.fake_tensor import FakeTensorMode
    from ascend_dcn import errors
    with FakeTensorMode():
        x = torch.empty(2, 4, 7, 6)
        w = torch.empty(8, 2, 3, 2)
        off = torch.empty(2, 3 * 2 * 6, 3, 6)   # Ho = (7+1-3)//2+1 = 3, Wo = (6+1-2)+1 = 6
        out, d = torch.ops.ascend_dcn.deformable_conv2d(x, w, off, None, [3, 2], [1, 1, 2, 1],
                                                        [1, 0, 0, 1], [1, 1, 1, 1], 2, 2, True, True)
        assert out.shape == (2, 8, 3, 6) and d.shape == (2, 4, 9, 12)
        # memory-saving mode: deformOut is not materialised (an empty placeholder is returned)
        out, d = torch.ops.ascend_dcn.deformable_conv2d(x, w, off, None, [3, 2], [1, 1, 2, 1],
                                                        [1, 0, 0, 1], [1, 1, 1, 1], 2, 2, True, False)
        assert out.shape == (2, 8, 3, 6) and d.shape == (0,)
        with pytest.raises(errors.AclnnError, match="offset"):
            torch.ops.ascend_dcn.deformable_conv2d(x, w, off[:, :30], None, [3, 2], [1, 1, 2, 1],
                                                   [1, 0, 0, 1], [1, 1, 1, 1], 2, 2, True, False)


@pytest.mark.parametrize("save_deform_out", [True, False])
def test_compile_forward_backward_matches_eager(save_deform_out):
    torch._dynamo.reset()

    def layer(x, w, off, b):
        return dcn_functional.deformable_conv2d(x, w, off, b, *ATTRS, groups=2, deformable_groups=2,
                                                save_deform_out=save_deform_out)[0].square().sum()

    compiled = torch.compile(layer, backend="aot_eager", fullgraph=True)
    eager_in = _inputs(4)
    comp_in = [t.detach().clone().requires_grad_() for t in eager_in]
    loss_e = layer(*eager_in)
    loss_e.backward()
    loss_c = compiled(*comp_in)
    loss_c.backward()
    torch.testing.assert_close(loss_c, loss_e, rtol=1e-5, atol=1e-5)
    for a, c in zip(eager_in, comp_in):
        torch.testing.assert_close(c.grad, a.grad, rtol=1e-5, atol=1e-5)


def test_compile_modules_fullgraph():
    torch._dynamo.reset()
    torch.manual_seed(0)
    model = torch.nn.ModuleDict({"tv": DeformConv2d(4, 4, 3, padding=1),
                                 "mm": ModulatedDeformConv2dPack(4, 4, 3, padding=1)})
    with torch.no_grad():
        model["mm"].conv_offset.weight.normal_(0, 0.1)

    def run(x, offset):
        return model["mm"](model["tv"](x, offset)).sum()

    x = torch.randn(1, 4, 5, 5, requires_grad=True)
    offset = torch.rand(1, 18, 5, 5) - 0.5 + 0.0123
    compiled = torch.compile(run, backend="aot_eager", fullgraph=True)
    loss = compiled(x, offset)
    loss.backward()
    grads_c = [p.grad.clone() for p in model.parameters()] + [x.grad.clone()]
    model.zero_grad()
    x.grad = None
    run(x, offset).backward()
    grads_e = [p.grad for p in model.parameters()] + [x.grad]
    for c, e in zip(grads_c, grads_e):
        torch.testing.assert_close(c, e, rtol=1e-5, atol=1e-5)
