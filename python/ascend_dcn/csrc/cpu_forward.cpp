// Sampling stage of the CPU forward (see cpu_forward.h for layouts and the sampling rule).
//
// Work items are (deformable group g, kernel point k, band row r): an item computes the corner
// positions and weights of its Wo sample points once, then fills them for every channel of group g
// (columns row (c, k) and deformOut row (c, r, kh) are contiguous / KW-strided runs). Items are split
// into `threads` contiguous ranges, one per thread; the calling thread takes the first.
#include "cpu_forward.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <thread>
#include <vector>

namespace ascend_dcn {
namespace {

constexpr int kCorners = 4;

// Corner positions (element index in the channel plane, -1 = invalid) and weights of one item.
template <typename T>
struct ItemScratch {
    std::vector<int64_t> index; // [kCorners, Wo]
    std::vector<T> weight;      // [kCorners, Wo]
};

template <typename T>
void PrepareItem(const DeformColumnsArgs<T>& a, int64_t g, int64_t k, int64_t oh, ItemScratch<T>& s)
{
    const int64_t K = a.kernelH * a.kernelW;
    const int64_t Wo = a.outW;
    const int64_t planeOff = a.outH * Wo; // elements between (block, g, k) planes
    const int64_t kh = k / a.kernelW;
    const int64_t kw = k % a.kernelW;
    const T* dx = a.offset + ((0 * a.deformGroups + g) * K + k) * planeOff + oh * Wo;
    const T* dy = a.offset + ((1 * a.deformGroups + g) * K + k) * planeOff + oh * Wo;
    const T* mask = a.modulated ? a.offset + ((2 * a.deformGroups + g) * K + k) * planeOff + oh * Wo : nullptr;
    const T baseY = static_cast<T>(oh * a.strideH - a.padTop + kh * a.dilationH);
    const T H = static_cast<T>(a.height);
    const T W = static_cast<T>(a.width);
    for (int64_t ow = 0; ow < Wo; ++ow) {
        const T baseX = static_cast<T>(ow * a.strideW - a.padLeft + kw * a.dilationW);
        const T y = baseY + dy[ow];
        const T x = baseX + dx[ow];
        const T y0 = std::floor(y);
        const T x0 = std::floor(x);
        const T ly = y - y0, lx = x - x0;
        const T hy = (y0 + T(1)) - y, hx = (x0 + T(1)) - x;
        // validity decided in T (NaN and huge coordinates are invalid, never converted)
        const bool vy[2] = {y0 >= T(0) && y0 < H, y0 >= T(-1) && y0 < H - T(1)};
        const bool vx[2] = {x0 >= T(0) && x0 < W, x0 >= T(-1) && x0 < W - T(1)};
        const T wy[2] = {hy, ly};
        const T wx[2] = {hx, lx};
        for (int corner = 0; corner < kCorners; ++corner) {
            const int cy = corner >> 1, cx = corner & 1;
            int64_t idx = -1;
            T wgt = T(0);
            if (vy[cy] && vx[cx]) {
                idx = (static_cast<int64_t>(y0) + cy) * a.width + static_cast<int64_t>(x0) + cx;
                wgt = wy[cy] * wx[cx];
                if (mask != nullptr) {
                    wgt = wgt * mask[ow];
                }
            }
            s.index[corner * Wo + ow] = idx;
            s.weight[corner * Wo + ow] = wgt;
        }
    }
}

template <typename T>
void RunItems(const DeformColumnsArgs<T>& a, int64_t first, int64_t last, ItemScratch<T>& s)
{
    const int64_t K = a.kernelH * a.kernelW;
    const int64_t rows = a.rowEnd - a.rowBegin;
    const int64_t Wo = a.outW;
    const int64_t P = rows * Wo;
    const int64_t Cg = a.channels / a.deformGroups;
    const int64_t plane = a.height * a.width;
    for (int64_t item = first; item < last; ++item) {
        const int64_t r = item % rows;
        const int64_t k = (item / rows) % K;
        const int64_t g = item / (rows * K);
        PrepareItem(a, g, k, a.rowBegin + r, s);
        const int64_t kh = k / a.kernelW;
        const int64_t kw = k % a.kernelW;
        for (int64_t c = g * Cg; c < (g + 1) * Cg; ++c) {
            const T* img = a.image + c * plane;
            T* col = a.columns != nullptr ? a.columns + (c * K + k) * P + r * Wo : nullptr;
            T* dout = a.deformOut != nullptr ?
                          a.deformOut + c * a.deformOutChannelStride + (r * a.kernelH + kh) * Wo * a.kernelW + kw :
                          nullptr;
            for (int64_t ow = 0; ow < Wo; ++ow) {
                T v = T(0);
                for (int corner = 0; corner < kCorners; ++corner) {
                    const int64_t idx = s.index[corner * Wo + ow];
                    if (idx >= 0) {
                        v = v + img[idx] * s.weight[corner * Wo + ow];
                    }
                }
                if (col != nullptr) {
                    col[ow] = v;
                }
                if (dout != nullptr) {
                    dout[ow * a.kernelW] = v;
                }
            }
        }
    }
}

template <typename T>
void Check(const DeformColumnsArgs<T>& a)
{
    if (a.image == nullptr || a.offset == nullptr || (a.columns == nullptr && a.deformOut == nullptr)) {
        throw std::invalid_argument("deform_columns: image, offset and one of columns / deform_out are required");
    }
    if (a.channels <= 0 || a.height <= 0 || a.width <= 0 || a.kernelH <= 0 || a.kernelW <= 0 || a.outH <= 0 ||
        a.outW <= 0 || a.deformGroups <= 0 || a.channels % a.deformGroups != 0) {
        throw std::invalid_argument(
            "deform_columns: sizes must be positive and channels a multiple of deformable_groups");
    }
    if (a.rowBegin < 0 || a.rowEnd > a.outH || a.rowBegin >= a.rowEnd) {
        throw std::invalid_argument("deform_columns: the band must be a non-empty range of output rows");
    }
}

} // namespace

template <typename T>
void DeformColumns(const DeformColumnsArgs<T>& a, int threads)
{
    Check(a);
    const int64_t items = a.deformGroups * a.kernelH * a.kernelW * (a.rowEnd - a.rowBegin);
    const int64_t workers = std::max<int64_t>(1, std::min<int64_t>(threads, items));
    std::vector<ItemScratch<T>> scratch(static_cast<size_t>(workers));
    for (auto& s : scratch) {
        s.index.resize(static_cast<size_t>(kCorners * a.outW));
        s.weight.resize(static_cast<size_t>(kCorners * a.outW));
    }
    auto range = [&](int64_t w) { return items * w / workers; };
    std::vector<std::thread> pool;
    pool.reserve(static_cast<size_t>(workers - 1));
    auto joinAll = [&pool] {
        for (auto& t : pool) {
            t.join();
        }
    };
    try {
        for (int64_t w = 1; w < workers; ++w) {
            pool.emplace_back([&, w] { RunItems(a, range(w), range(w + 1), scratch[static_cast<size_t>(w)]); });
        }
    } catch (...) { // no thread left running on the caller's buffers
        joinAll();
        throw;
    }
    RunItems(a, range(0), range(1), scratch[0]);
    joinAll();
}

template void DeformColumns<float>(const DeformColumnsArgs<float>&, int);
template void DeformColumns<double>(const DeformColumnsArgs<double>&, int);

} // namespace ascend_dcn
