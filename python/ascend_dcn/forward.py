"""Forward contract of the deformable convolution (op-semantics.md §4-§6) on CPU, streamed over tiles.

Layouts (Ascend, torch_npu):
  input     [N, Cin, H, W]                     NCHW
  offset    [N, 3*dg*KH*KW, Ho, Wo]            [dx block | dy block | mask block] (modulated=True)
            [N, 2*dg*KH*KW, Ho, Wo]            [dx block | dy block]            (modulated=False)
            channel of (block b, group g, kh, kw) = b*dg*K + g*K + kh*KW + kw, K = KH*KW
  weight    [Cout, Cin/groups, KH, KW]
  deformOut [N, Cin, Ho*KH, Wo*KW]             row oh*KH+kh, column ow*KW+kw, mask multiplied in
  out       [N, Cout, Ho, Wo]                  = conv2d(deformOut, weight, bias, stride=(KH, KW), groups)
  stride = [1, 1, sH, sW], dilation = [1, 1, dH, dW], padding = [top, bottom, left, right].

Numerics: math in float32 (float64 stays float64, for gradcheck); results are returned in the input
dtype. Sampling: true floor, per-corner validity (0 <= yc < H, 0 <= xc < W), invalid corners
contribute 0 (the image is never read there); corner weights are multiplied by the mask and
accumulated in the order (y0,x0), (y0,x1), (y1,x0), (y1,x1) (KRN-A2, op-semantics §7).

Streaming (bounded memory): one image and one band of output rows at a time. Per band the native
sampling stage (ascend_dcn._C.deform_columns, csrc/cpu_forward.cpp: one parallel region over
(deformable group, kernel point, row) items, corner positions and weights computed once per sample
point for all its channels) writes the columns [Cin*K, rows*Wo] and, when wanted, the band's
deformOut rows; the output is then one batched GEMM over the conv groups, weight
[g, Cout/g, Cin/g*K] x columns [g, Cin/g*K, rows*Wo], written straight into the output. Peak
working memory beyond the outputs: one band of columns (at most BAND_BYTES and a quarter of all
images' columns, i.e. of deformOut's size; plus a math-dtype band of deformOut rows for fp16/bf16)
and, for non-fp32 inputs, one image converted to the math dtype. Every value is computed by one
thread in a fixed order and the bands depend on the shape only, so results are deterministic run to
run and the sampled values (deformOut) do not depend on the thread count (the GEMM is torch's;
small band GEMMs run on the calling thread alone, GEMM_FLOPS_PER_THREAD, through BLAS's per-thread
setting (_blas_threads.serial_blas): no process-wide thread count is ever changed).

On NPU tensors the forward is torch_npu.npu_deformable_conv2d (DCNv1 runs it with a mask of ones,
which yields the identical deformOut); its outputs are cast back to the input dtype.
"""
from __future__ import annotations

import contextlib
from typing import Optional, Sequence, Tuple

import torch

from ._blas_threads import serial_blas

# working-set target of one band (bytes): its columns [C, K, rows*Wo] in the math dtype (plus, for a
# deformOut in fp16/bf16, a band of deformOut rows in the math dtype before the cast); bands are
# whole output rows, at least one row. Few, large bands: each band costs two parallel regions (its
# sampling and its GEMM), and on a loaded machine every region can wait a scheduler time slice.
BAND_BYTES = 16 << 20
# sample-channel values (one bilinear sample of one channel, a few ns each: ~5 ms) per sampling thread:
# smaller bands are sampled by fewer threads (one parallel step must pay for its synchronisation)
SAMPLES_PER_THREAD = 1 << 21
# GEMM floating-point operations per thread (a few ms of one core, like a sampling thread's share):
# a smaller band GEMM runs on the calling thread alone (serial_blas: BLAS's per-thread setting, never
# torch's process-wide one), for the same reason; on a loaded 2-core machine one 2-thread GEMM region
# cost up to ~20 ms
GEMM_FLOPS_PER_THREAD = 1 << 29


def math_dtype(dtype: torch.dtype) -> torch.dtype:
    """Accumulation dtype: float32 for fp32/fp16/bf16, float64 kept for float64 inputs."""
    return torch.float64 if dtype == torch.float64 else torch.float32


def output_size(H: int, W: int, kernel_size: Sequence[int], stride: Sequence[int],
                padding: Sequence[int], dilation: Sequence[int]) -> Tuple[int, int]:
    """Ho, Wo of op-semantics §4 (Ascend 4-value stride/padding/dilation)."""
    KH, KW = kernel_size
    Ho = (H + padding[0] + padding[1] - ((KH - 1) * dilation[2] + 1)) // stride[2] + 1
    Wo = (W + padding[2] + padding[3] - ((KW - 1) * dilation[3] + 1)) // stride[3] + 1
    return Ho, Wo


def band_rows(N: int, C: int, K: int, Ho: int, Wo: int, elem_bytes: int,
              budget: Optional[int] = None) -> int:
    """Output rows per band: one band's columns (C*K*rows*Wo elements) stay within `budget` (default
    BAND_BYTES) and within a quarter of the columns of all N images (rounded up to whole rows), so
    that next to a kept deformOut (the same size as those columns) the band adds at most about a
    quarter."""
    budget = BAND_BYTES if budget is None else budget
    per_row = max(1, Wo * K * C * elem_bytes)
    return max(1, min(budget // per_row, -(-N * Ho // 4), Ho))


def _bands(Ho: int, rows: int):
    for oh0 in range(0, Ho, rows):
        yield oh0, min(Ho, oh0 + rows)


def _dtype_name(mdt: torch.dtype) -> str:
    return "float64" if mdt == torch.float64 else "float32"


def _cpu_forward(input, weight, offset, bias, kernel_size, stride, padding, dilation, groups,
                 deformable_groups, modulated, want_out: bool, want_deform_out: bool):
    N, C, H, W = input.shape
    KH, KW = kernel_size
    K = KH * KW
    Ho, Wo = offset.shape[2], offset.shape[3]
    mdt = math_dtype(input.dtype)
    Cout = weight.shape[0] if want_out else 0
    out = input.new_empty((N, Cout, Ho, Wo), dtype=mdt) if want_out else None
    deform_out = input.new_empty((N, C, Ho * KH, Wo * KW), dtype=input.dtype) if want_deform_out else None
    if N == 0 or Ho * Wo == 0:
        if out is not None and bias is not None:
            out.copy_(bias.to(mdt).view(1, Cout, 1, 1).expand_as(out))
        elif out is not None:
            out.zero_()
        return out, deform_out
    from ._backend import load_extension
    native = load_extension()
    Cg, Coutg = C // groups, Cout // groups
    # weight [Cout, Cin/g, KH, KW] -> [g, Cout/g, (Cin/g)*K]: the columns' (c, k) row order
    w = weight.to(mdt).reshape(groups, Coutg, Cg * K).contiguous() if want_out else None
    rows = band_rows(N, C, K, Ho, Wo, torch.finfo(mdt).bits // 8)
    cols_buf = input.new_empty((C * K * rows * Wo,), dtype=mdt) if want_out else None
    # deformOut in another dtype than the math one: its band is sampled in the math dtype, then cast
    cast_buf = input.new_empty((C * rows * KH * Wo * KW,), dtype=mdt) \
        if want_deform_out and input.dtype != mdt else None
    samples = C * K * rows * Wo
    threads = max(1, min(torch.get_num_threads(), samples // SAMPLES_PER_THREAD))
    fields = dict(channels=C, height=H, width=W, kernel_h=KH, kernel_w=KW, out_h=Ho, out_w=Wo,
                  stride_h=stride[2], stride_w=stride[3], pad_top=padding[0], pad_left=padding[2],
                  dilation_h=dilation[2], dilation_w=dilation[3], deformable_groups=deformable_groups,
                  modulated=bool(modulated), threads=threads)
    for n in range(N):
        image = input[n].to(mdt).contiguous()
        off = offset[n].to(mdt).contiguous()
        out_n = out[n].view(Cout, Ho * Wo) if want_out else None
        for oh0, oh1 in _bands(Ho, rows):
            P = (oh1 - oh0) * Wo
            cols = cols_buf[: C * K * P].view(C * K, P) if want_out else None
            if want_deform_out and cast_buf is None:
                d_ptr, d_stride = deform_out[n, :, oh0 * KH].data_ptr(), Ho * KH * Wo * KW
            elif want_deform_out:
                d_ptr, d_stride = cast_buf.data_ptr(), (oh1 - oh0) * KH * Wo * KW
            else:
                d_ptr, d_stride = 0, 0
            native.deform_columns(_dtype_name(mdt), image_ptr=image.data_ptr(),
                                  offset_ptr=off.data_ptr(),
                                  columns_ptr=cols.data_ptr() if want_out else 0,
                                  deform_out_ptr=d_ptr, deform_out_channel_stride=d_stride,
                                  row_begin=oh0, row_end=oh1, **fields)
            if cast_buf is not None:
                band = cast_buf[: C * (oh1 - oh0) * KH * Wo * KW].view(C, (oh1 - oh0) * KH, Wo * KW)
                deform_out[n, :, oh0 * KH:oh1 * KH].copy_(band)
            if want_out:   # [g, Cout/g, Cg*K] x [g, Cg*K, P] -> the band's columns of the output
                flops = 2 * Cout * Cg * K * P
                with serial_blas() if flops < 2 * GEMM_FLOPS_PER_THREAD else contextlib.nullcontext():
                    torch.bmm(w, cols.view(groups, Cg * K, P),
                              out=out_n.view(groups, Coutg, Ho * Wo)[:, :, oh0 * Wo:oh1 * Wo])
    if out is not None and bias is not None:
        out.add_(bias.to(mdt).view(1, Cout, 1, 1))
    return out, deform_out


def deform_sample(input: torch.Tensor, offset: torch.Tensor, kernel_size: Sequence[int],
                  stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int],
                  deformable_groups: int = 1, modulated: bool = True) -> torch.Tensor:
    """deformOut [N, Cin, Ho*KH, Wo*KW] in the input dtype (CPU; streamed over bands)."""
    return _cpu_forward(input, None, offset, None, kernel_size, stride, padding, dilation, 1,
                        deformable_groups, modulated, want_out=False, want_deform_out=True)[1]


def _npu_forward(input, weight, offset, bias, kernel_size, stride, padding, dilation, groups,
                 deformable_groups, modulated):
    import torch_npu  # noqa: F401  (only reached for NPU tensors)
    if not modulated:   # torch_npu requires modulated=True: a mask of ones gives the same deformOut
        ones = torch.ones_like(offset[:, : offset.shape[1] // 2])
        offset = torch.cat([offset, ones], dim=1)
    out, deform_out = torch_npu.npu_deformable_conv2d(
        input, weight, offset, bias, list(kernel_size), list(stride), list(padding), list(dilation),
        groups, deformable_groups, True)
    return out.to(input.dtype), deform_out.to(input.dtype)


def deformable_conv2d_forward(input: torch.Tensor, weight: torch.Tensor, offset: torch.Tensor,
                              bias: Optional[torch.Tensor], kernel_size: Sequence[int],
                              stride: Sequence[int], padding: Sequence[int],
                              dilation: Sequence[int] = (1, 1, 1, 1), groups: int = 1,
                              deformable_groups: int = 1, modulated: bool = True,
                              need_deform_out: bool = True
                              ) -> Tuple[torch.Tensor, Optional[torch.Tensor]]:
    """(out, deformOut), both in the input dtype. Arguments as torch_npu.npu_deformable_conv2d.
    need_deform_out=False (CPU): deformOut is not materialised (None is returned in its place), so
    the forward's peak memory is the output plus one band."""
    if input.device.type == "npu":
        return _npu_forward(input, weight, offset, bias, kernel_size, stride, padding, dilation,
                            groups, deformable_groups, modulated)
    out, deform_out = _cpu_forward(input, weight, offset, bias, kernel_size, stride, padding,
                                   dilation, groups, deformable_groups, modulated, want_out=True,
                                   want_deform_out=need_deform_out)
    return out.to(input.dtype), deform_out


def sample_deform_out(input: torch.Tensor, offset: torch.Tensor, kernel_size: Sequence[int],
                      stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int],
                      deformable_groups: int = 1, modulated: bool = True) -> torch.Tensor:
    """deformOut alone, in the input dtype, produced by the same code as the forward's deformOut
    (memory-saving recompute). On NPU the forward op is run with a zero weight of one output
    channel (deformOut does not depend on the weight)."""
    if input.device.type == "npu":
        weight = input.new_zeros((1, input.shape[1], kernel_size[0], kernel_size[1]))
        return _npu_forward(input, weight, offset, None, kernel_size, stride, padding, dilation,
                            1, deformable_groups, modulated)[1]
    return deform_sample(input, offset, kernel_size, stride, padding, dilation,
                         deformable_groups, modulated)
