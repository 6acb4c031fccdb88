// Naive host reference of the DeformableConv2dBackward contract — see naive_reference.h.
#include "naive_reference.h"

#include <cmath>

namespace example {
namespace {

struct Corner {
    int dy, dx;
};
const Corner kCorners[4] = {{0, 0}, {0, 1}, {1, 0}, {1, 1}};

// Bilinear weight of a corner and its derivatives w.r.t. y and x.
void CornerFactors(int corner, double ly, double lx, double &w, double &dwy, double &dwx)
{
    const double hy = 1.0 - ly, hx = 1.0 - lx;
    switch (corner) {
        case 0: w = hy * hx; dwy = -hx; dwx = -hy; break;
        case 1: w = hy * lx; dwy = -lx; dwx = hy; break;
        case 2: w = ly * hx; dwy = hx; dwx = -ly; break;
        default: w = ly * lx; dwy = lx; dwx = ly; break;
    }
}

struct Sample {
    double y, x, mask;
};

Sample SampleAt(const Problem &p, const std::vector<float> &offset, int64_t n, int64_t g, int64_t kh, int64_t kw,
                int64_t oh, int64_t ow)
{
    const int64_t K = p.kh * p.kw, k = kh * p.kw + kw, Ho = p.OutH(), Wo = p.OutW();
    auto at = [&](int64_t block) { return offset[((n * 3 * p.deformableGroups * K + block * p.deformableGroups * K +
                                                   g * K + k) * Ho + oh) * Wo + ow]; };
    const int64_t baseY = oh * p.stride[2] - p.padding[0] + kh * p.dilation[2];
    const int64_t baseX = ow * p.stride[3] - p.padding[2] + kw * p.dilation[3];
    Sample s;
    s.x = static_cast<double>(static_cast<float>(baseX) + at(0));  // one float32 rounding
    s.y = static_cast<double>(static_cast<float>(baseY) + at(1));
    s.mask = at(2);
    return s;
}

}  // namespace

int64_t Problem::OutH() const { return (h + padding[0] + padding[1] - ((kh - 1) * dilation[2] + 1)) / stride[2] + 1; }
int64_t Problem::OutW() const { return (w + padding[2] + padding[3] - ((kw - 1) * dilation[3] + 1)) / stride[3] + 1; }

std::vector<double> DeformSample(const Problem &p, const std::vector<float> &input, const std::vector<float> &offset)
{
    const int64_t Ho = p.OutH(), Wo = p.OutW(), cpg = p.cin / p.deformableGroups;
    std::vector<double> d(p.n * p.cin * Ho * p.kh * Wo * p.kw, 0.0);
    for (int64_t n = 0; n < p.n; ++n)
        for (int64_t c = 0; c < p.cin; ++c)
            for (int64_t oh = 0; oh < Ho; ++oh)
                for (int64_t ow = 0; ow < Wo; ++ow)
                    for (int64_t kh = 0; kh < p.kh; ++kh)
                        for (int64_t kw = 0; kw < p.kw; ++kw) {
                            const Sample s = SampleAt(p, offset, n, c / cpg, kh, kw, oh, ow);
                            const double y0 = std::floor(s.y), x0 = std::floor(s.x);
                            double v = 0.0;
                            for (int corner = 0; corner < 4; ++corner) {
                                const int64_t cy = static_cast<int64_t>(y0) + kCorners[corner].dy;
                                const int64_t cx = static_cast<int64_t>(x0) + kCorners[corner].dx;
                                if (cy < 0 || cy >= p.h || cx < 0 || cx >= p.w) continue;
                                double w, dwy, dwx;
                                CornerFactors(corner, s.y - y0, s.x - x0, w, dwy, dwx);
                                v += w * input[((n * p.cin + c) * p.h + cy) * p.w + cx];
                            }
                            d[((n * p.cin + c) * Ho * p.kh + oh * p.kh + kh) * Wo * p.kw + ow * p.kw + kw] = s.mask * v;
                        }
    return d;
}

Gradients Backward(const Problem &p, const std::vector<float> &input, const std::vector<float> &gradOutput,
                   const std::vector<float> &offsetOut, const std::vector<float> &weight,
                   const std::vector<float> &offset)
{
    const int64_t Ho = p.OutH(), Wo = p.OutW(), K = p.kh * p.kw;
    const int64_t cg = p.cin / p.groups, og = p.cout / p.groups, cpd = p.cin / p.deformableGroups;
    const int64_t rowLen = Wo * p.kw;
    Gradients r;
    r.gradBias.assign(p.cout, 0.0);
    r.gradWeight.assign(p.cout * cg * K, 0.0);
    r.gradInput.assign(p.n * p.cin * p.h * p.w, 0.0);
    r.gradOffset.assign(p.n * 3 * p.deformableGroups * K * Ho * Wo, 0.0);
    auto go = [&](int64_t n, int64_t oc, int64_t oh, int64_t ow) {
        return static_cast<double>(gradOutput[((n * p.cout + oc) * Ho + oh) * Wo + ow]);
    };
    // Step 1: conv backprop with stride (KH, KW) over offsetOut (used as given).
    for (int64_t n = 0; n < p.n; ++n)
        for (int64_t oc = 0; oc < p.cout; ++oc)
            for (int64_t oh = 0; oh < Ho; ++oh)
                for (int64_t ow = 0; ow < Wo; ++ow) {
                    const double g = go(n, oc, oh, ow);
                    r.gradBias[oc] += g;
                    const int64_t grp = oc / og;
                    for (int64_t cl = 0; cl < cg; ++cl)
                        for (int64_t kh = 0; kh < p.kh; ++kh)
                            for (int64_t kw = 0; kw < p.kw; ++kw) {
                                const int64_t c = grp * cg + cl;
                                const double d = offsetOut[((n * p.cin + c) * Ho * p.kh + oh * p.kh + kh) * rowLen +
                                                           ow * p.kw + kw];
                                r.gradWeight[(oc * cg + cl) * K + kh * p.kw + kw] += g * d;
                            }
                }
    // Step 2: gradient w.r.t. the sampled values, then the bilinear sampler's gradients.
    for (int64_t n = 0; n < p.n; ++n)
        for (int64_t c = 0; c < p.cin; ++c)
            for (int64_t oh = 0; oh < Ho; ++oh)
                for (int64_t ow = 0; ow < Wo; ++ow)
                    for (int64_t kh = 0; kh < p.kh; ++kh)
                        for (int64_t kw = 0; kw < p.kw; ++kw) {
                            const int64_t grp = c / cg, cl = c - grp * cg;
                            double gcol = 0.0;
                            for (int64_t oc = grp * og; oc < (grp + 1) * og; ++oc) {
                                gcol += go(n, oc, oh, ow) * weight[(oc * cg + cl) * K + kh * p.kw + kw];
                            }
                            const int64_t dgi = c / cpd;
                            const Sample s = SampleAt(p, offset, n, dgi, kh, kw, oh, ow);
                            if (!(s.y > -1.0 && s.y < p.h && s.x > -1.0 && s.x < p.w)) continue;
                            const double y0 = std::floor(s.y), x0 = std::floor(s.x);
                            double gy = 0.0, gx = 0.0, gm = 0.0;
                            for (int corner = 0; corner < 4; ++corner) {
                                const int64_t cy = static_cast<int64_t>(y0) + kCorners[corner].dy;
                                const int64_t cx = static_cast<int64_t>(x0) + kCorners[corner].dx;
                                if (cy < 0 || cy >= p.h || cx < 0 || cx >= p.w) continue;
                                double w, dwy, dwx;
                                CornerFactors(corner, s.y - y0, s.x - x0, w, dwy, dwx);
                                const double v = input[((n * p.cin + c) * p.h + cy) * p.w + cx];
                                r.gradInput[((n * p.cin + c) * p.h + cy) * p.w + cx] += s.mask * w * gcol;
                                gy += s.mask * dwy * v * gcol;
                                gx += s.mask * dwx * v * gcol;
                                gm += w * v * gcol;
                            }
                            const int64_t k = kh * p.kw + kw, dgK = p.deformableGroups * K;
                            auto slot = [&](int64_t block) {
                                return ((n * 3 * dgK + block * dgK + dgi * K + k) * Ho + oh) * Wo + ow;
                            };
                            r.gradOffset[slot(0)] += gx;
                            r.gradOffset[slot(1)] += gy;
                            r.gradOffset[slot(2)] += gm;
                        }
    return r;
}

}  // namespace example
