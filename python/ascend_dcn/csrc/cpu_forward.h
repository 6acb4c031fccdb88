// CPU forward of the deformable convolution, sampling stage: the deformable columns of one image and
// one band of output rows (the GEMM with the weight stays in torch, ascend_dcn/forward.py).
//
// Layouts (all contiguous, element type T = float or double, the math dtype):
//   image      [C, H, W]                        one image of the input
//   offset     [blocks, dg, K, Ho, Wo]          one image's offsets: blocks = 3 (dx | dy | mask) when
//                                               modulated, else 2; K = KH*KW, k = kh*KW + kw
//   columns    [C, K, P], P = rows*Wo           sample of (channel c, kernel point k, pixel p), mask
//                                               multiplied in; rows = oh1 - oh0 (may be null)
//   deformOut  element (c, r, kh, ow, kw) of the band at
//              deform_out[c*deform_out_cstride + ((r*KH + kh)*Wo + ow)*KW + kw]          (may be null)
// Sampling (op-semantics §7, as the backward): y = oh*sH - padTop + kh*dH + dy (computed in T), true
// floor, corners valid iff 0 <= yc < H and 0 <= xc < W; invalid corners contribute nothing (the
// image is never read there); value = sum over the valid corners in the order (y0,x0), (y0,x1),
// (y1,x0), (y1,x1) of v * (wy*wx [* mask]), starting from +0.
// Determinism: every output element is computed by one thread in a fixed order, so results do not
// depend on the thread count or the band size.
#ifndef ASCEND_DCN_CPU_FORWARD_H
#define ASCEND_DCN_CPU_FORWARD_H

#include <cstdint>

namespace ascend_dcn {

template <typename T>
struct DeformColumnsArgs {
    const T* image = nullptr;
    const T* offset = nullptr;
    int64_t channels = 0, height = 0, width = 0;
    int64_t kernelH = 0, kernelW = 0;
    int64_t outH = 0, outW = 0;
    int64_t strideH = 1, strideW = 1, padTop = 0, padLeft = 0, dilationH = 1, dilationW = 1;
    int64_t deformGroups = 1;
    bool modulated = true;
    int64_t rowBegin = 0, rowEnd = 0; // output rows oh0 .. oh1-1 of the band
    T* columns = nullptr;
    T* deformOut = nullptr;
    int64_t deformOutChannelStride = 0;
};

// Fills the columns and/or deformOut of the band with up to `threads` threads (one parallel region).
// Throws std::invalid_argument on inconsistent arguments.
template <typename T>
void DeformColumns(const DeformColumnsArgs<T>& args, int threads);

} // namespace ascend_dcn

#endif // ASCEND_DCN_CPU_FORWARD_H
