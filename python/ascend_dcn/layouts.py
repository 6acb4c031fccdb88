"""Converters between torchvision/mmcv conventions and the Ascend layout (op-semantics §3).

Offsets (all tensors [N, C, Ho, Wo]; K = KH*KW, j = g*K + kh*KW + kw):
  torchvision/mmcv : offset [N, 2*dg*K] interleaved pairs, channel 2*j = dy, 2*j+1 = dx;
                     mask   [N, dg*K] separate (absent for DCNv1)
  Ascend           : [N, 3*dg*K] = [dx block | dy block | mask block], block channel j
                     (modulated=False: [N, 2*dg*K] = [dx | dy])
Gradients of the offsets have exactly the same layouts as the offsets, so the gradient converters
are the same permutation (with zeros instead of ones for a missing mask gradient).

Attributes: torchvision stride/padding/dilation are an int or an (H, W) pair; Ascend uses
stride [1, 1, sH, sW], padding [top, bottom, left, right], dilation [1, 1, dH, dW].

Works on torch tensors and numpy arrays (channel dimension 1).
"""

import numpy as np
import torch

__all__ = [
    "tv_to_ascend_offset", "ascend_to_tv_offset", "tv_grad_to_ascend", "ascend_grad_to_tv",
    "to_pair", "tv_stride_to_ascend", "tv_padding_to_ascend", "tv_dilation_to_ascend",
    "ascend_stride_to_tv", "ascend_padding_to_tv", "ascend_dilation_to_tv",
]


def _cat(parts):
    if isinstance(parts[0], torch.Tensor):
        return torch.cat(parts, dim=1)
    return np.concatenate(parts, axis=1)


def _ones_like(a):
    return torch.ones_like(a) if isinstance(a, torch.Tensor) else np.ones_like(a)


def _zeros_like(a):
    return torch.zeros_like(a) if isinstance(a, torch.Tensor) else np.zeros_like(a)


def _interleave(dy, dx):
    """[N, M, ...] x 2 -> [N, 2M, ...] with channel 2j = dy_j, 2j+1 = dx_j."""
    if isinstance(dy, torch.Tensor):
        return torch.stack([dy, dx], dim=2).reshape(dy.shape[0], 2 * dy.shape[1], *dy.shape[2:])
    return np.stack([dy, dx], axis=2).reshape(dy.shape[0], 2 * dy.shape[1], *dy.shape[2:])


def _check_channels(a, divisor, name):
    if a.ndim != 4 or a.shape[1] % divisor:
        raise ValueError(f"{name}: must be 4-D [N, C, Ho, Wo] with C divisible by {divisor}; "
                         f"got shape {list(a.shape)}")
    return a.shape[1] // divisor


def _tv_to_ascend(offset_tv, mask_tv, modulated, fill, name):
    dgK = _check_channels(offset_tv, 2, name)
    dy, dx = offset_tv[:, 0::2], offset_tv[:, 1::2]
    if not modulated:
        if mask_tv is not None:
            raise ValueError(f"{name}: a mask was given but modulated=False (2-block layout has no mask)")
        return _cat([dx, dy])
    if mask_tv is None:
        mask_tv = fill(dy)
    if tuple(mask_tv.shape) != tuple(dy.shape):
        raise ValueError(f"mask: expected shape {list(dy.shape)} (dg*K = {dgK} channels), "
                         f"got {list(mask_tv.shape)}")
    return _cat([dx, dy, mask_tv])


def _ascend_to_tv(offset_asc, modulated, name):
    blocks = 3 if modulated else 2
    dgK = _check_channels(offset_asc, blocks, name)
    dx, dy = offset_asc[:, :dgK], offset_asc[:, dgK:2 * dgK]
    mask = offset_asc[:, 2 * dgK:] if modulated else None
    return _interleave(dy, dx), mask


def tv_to_ascend_offset(offset_tv, mask_tv=None, modulated=True):
    """torchvision offset [N, 2*dg*K] (+ mask [N, dg*K]) -> Ascend offset.

    modulated=True: [dx | dy | mask], a missing mask becomes ones (DCNv1 via the modulated path).
    modulated=False: [dx | dy]; passing a mask is an error."""
    return _tv_to_ascend(offset_tv, mask_tv, modulated, _ones_like, "offset")


def ascend_to_tv_offset(offset_asc, modulated=True):
    """Ascend offset -> (torchvision offset [N, 2*dg*K], mask [N, dg*K] or None if not modulated)."""
    return _ascend_to_tv(offset_asc, modulated, "offset")


def tv_grad_to_ascend(grad_offset_tv, grad_mask_tv=None, modulated=True):
    """torchvision (grad_offset, grad_mask) -> Ascend gradOffset; a missing grad_mask becomes zeros."""
    return _tv_to_ascend(grad_offset_tv, grad_mask_tv, modulated, _zeros_like, "grad_offset")


def ascend_grad_to_tv(grad_offset_asc, modulated=True):
    """Ascend gradOffset -> (torchvision grad_offset [N, 2*dg*K], grad_mask [N, dg*K] or None)."""
    return _ascend_to_tv(grad_offset_asc, modulated, "grad_offset")


def to_pair(value, name):
    """int or 2-sequence of ints -> (a, b)."""
    if isinstance(value, bool):
        raise ValueError(f"{name}: must be an int or a pair of ints; got {value!r}")
    if isinstance(value, (int, np.integer)):
        return int(value), int(value)
    try:
        items = list(value)
    except TypeError:
        raise ValueError(f"{name}: must be an int or a pair of ints; got {value!r}") from None
    if len(items) != 2 or any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) for v in items):
        raise ValueError(f"{name}: must be an int or a pair of ints; got {value!r}")
    return int(items[0]), int(items[1])


def tv_stride_to_ascend(stride):
    """(sH, sW) or s -> [1, 1, sH, sW]."""
    s = to_pair(stride, "stride")
    return [1, 1, s[0], s[1]]


def tv_dilation_to_ascend(dilation):
    """(dH, dW) or d -> [1, 1, dH, dW]."""
    d = to_pair(dilation, "dilation")
    return [1, 1, d[0], d[1]]


def tv_padding_to_ascend(padding):
    """(pH, pW) or p -> [pH, pH, pW, pW] (top, bottom, left, right)."""
    p = to_pair(padding, "padding")
    return [p[0], p[0], p[1], p[1]]


def _four(value, name):
    items = [int(v) for v in value]
    if len(items) != 4:
        raise ValueError(f"{name}: must have 4 elements; got {items}")
    return items


def ascend_stride_to_tv(stride):
    """[1, 1, sH, sW] -> (sH, sW); error if the N/C entries are not 1."""
    s = _four(stride, "stride")
    if s[0] != 1 or s[1] != 1:
        raise ValueError(f"stride: N and C entries must be 1; got {s}")
    return s[2], s[3]


def ascend_dilation_to_tv(dilation):
    """[1, 1, dH, dW] -> (dH, dW); error if the N/C entries are not 1."""
    d = _four(dilation, "dilation")
    if d[0] != 1 or d[1] != 1:
        raise ValueError(f"dilation: N and C entries must be 1; got {d}")
    return d[2], d[3]


def ascend_padding_to_tv(padding):
    """[top, bottom, left, right] -> (pH, pW); error if top != bottom or left != right."""
    p = _four(padding, "padding")
    if p[0] != p[1] or p[2] != p[3]:
        raise ValueError(f"padding: asymmetric padding {p} has no torchvision (pH, pW) equivalent; "
                         "expected top == bottom and left == right")
    return p[0], p[2]
