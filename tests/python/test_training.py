"""A tiny training loop on CPU: a DCNv2 block (mmcv-style pack, memory-saving mode) learns to
reproduce the output of a fixed random teacher; the loss must fall well below its start.
Every backward step runs this project's operator."""
import torch

from ascend_dcn.modules import DeformConv2d, ModulatedDeformConv2dPack


def test_training_loss_decreases():
    torch.manual_seed(0)
    student = torch.nn.Sequential(
        ModulatedDeformConv2dPack(3, 8, 3, padding=1, deform_groups=1, save_deform_out=False),
        torch.nn.ReLU(),
        torch.nn.Conv2d(8, 2, 1))
    teacher = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.Tanh(), torch.nn.Conv2d(8, 2, 1))
    for p in teacher.parameters():
        p.requires_grad_(False)
    x = torch.randn(4, 3, 8, 8)
    target = teacher(x)
    opt = torch.optim.Adam(student.parameters(), lr=2e-2)
    losses = []
    for _ in range(30):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(student(x), target)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert all(torch.isfinite(torch.tensor(losses)))
    assert losses[-1] < 0.3 * losses[0], losses
    # the offset branch received gradients and moved away from its zero initialization
    assert student[0].conv_offset.weight.abs().sum() > 0


def test_training_offsets_learn_a_shift():
    """DeformConv2d with learnable offsets (torchvision layout) learns a half-pixel shift of a fixed
    kernel: only the offset is trained, so the loss can only fall through grad_offset."""
    torch.manual_seed(1)
    layer = DeformConv2d(2, 2, 3, padding=1, bias=False)
    x = torch.randn(2, 2, 9, 9)
    shifted = torch.zeros(2, 18, 9, 9)
    shifted[:, 1::2] = 0.5                          # dx = +0.5 for every kernel point
    with torch.no_grad():
        target = layer(x, shifted)
    layer.weight.requires_grad_(False)
    offset = torch.zeros(1, 18, 1, 1, requires_grad=True)
    opt = torch.optim.Adam([offset], lr=5e-2)
    losses = []
    for _ in range(25):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(layer(x, offset.expand(2, 18, 9, 9) + 0.01), target)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.2 * losses[0], losses
