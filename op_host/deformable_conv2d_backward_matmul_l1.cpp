// L1 plan of one stage-1 Matmul tile for the Norm scheduler (see deformable_conv2d_backward_matmul_l1.h).
#include "deformable_conv2d_backward_matmul_l1.h"

#include <algorithm>
#include <vector>

namespace dcn {
namespace {

constexpr uint64_t kBaseKAlign = 16; // TCubeTiling docs: baseK in 16 elements when A is transposed
constexpr uint64_t kL0Buffers = 2;   // dbL0A = dbL0B = 2 (ping-pong L0A / L0B)

uint64_t CeilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

struct Loads {
    uint64_t blocks = 0;
    uint64_t elems = 0;
};

// Elements of the first `blocks` K blocks (the last one the K tail).
uint64_t LeadingK(uint64_t blocks, uint64_t k, uint64_t baseK) { return std::min(blocks * baseK, k); }

// The operand reset after every group of the other axis' blocks (cache index = K block): per own block and
// group, the kept K blocks load once, the others once per group member.
Loads InnerLoads(
    uint64_t rows, uint64_t baseRows, uint64_t otherBlocks, uint64_t step, uint64_t k, uint64_t baseK, uint64_t cache)
{
    const uint64_t tk = CeilDiv(k, baseK), kept = std::min(cache, tk), keptK = LeadingK(kept, k, baseK);
    const uint64_t groups = CeilDiv(otherBlocks, step);
    Loads l;
    l.blocks = CeilDiv(rows, baseRows) * (groups * kept + (tk - kept) * otherBlocks);
    l.elems = rows * (groups * keptK + (k - keptK) * otherBlocks);
    return l;
}

// The operand reset after each group of `step` of its own blocks, over the whole other axis (cache index =
// member j of the group x kIter + K block): kept indexes load once per group, the others once per block of
// the other axis.
Loads OuterLoads(
    uint64_t cols, uint64_t baseCols, uint64_t otherBlocks, uint64_t step, uint64_t k, uint64_t baseK, uint64_t cache)
{
    const uint64_t tk = CeilDiv(k, baseK), blocks = CeilDiv(cols, baseCols);
    Loads l;
    for (uint64_t c = 0; c < blocks; ++c) {
        const uint64_t j = c % step, len = std::min(baseCols, cols - c * baseCols);
        const uint64_t kept = cache > j * tk ? std::min(cache - j * tk, tk) : 0;
        const uint64_t keptK = LeadingK(kept, k, baseK);
        l.blocks += kept + (tk - kept) * otherBlocks;
        l.elems += len * (keptK + (k - keptK) * otherBlocks);
    }
    return l;
}

// Stage1TileCycles weights (see the header): the twin cost table's pipe time per transfer, GM bandwidth per core and
// Mmad head overhead (dma_transfer_cycles, gm_read/write_cycles_per_byte, mmad_head_cycles) and the official L1->L0
// rates (CUBE table 3). The transfers' latency (dma_latency_cycles, twice per request) is left out: weighing it per
// tile measured slower (docs/performance.md "Session 25").
constexpr double kTransferCycles = 16;
constexpr double kGmBytesPerCycle = 32;
constexpr double kMmadHeadCycles = 32;
constexpr double kL0aBytesPerCycle = 256;
constexpr double kL0bBytesPerCycle = 128;
constexpr uint64_t kFractal = 16;     // Mmad m / n granule
constexpr uint64_t kL0cElemBytes = 4; // fp32 accumulation in L0C
constexpr uint64_t kC0Bytes = 32;     // C0: one 32-B block of B's inner axis
constexpr int64_t kBaseSteps[] = {256, 192, 128, 64};

// Sum over the blocks of one axis of the block length rounded up to `align` (the Cube formula's ceil_*).
uint64_t AlignedBlockSum(uint64_t total, uint64_t base, uint64_t align)
{
    const uint64_t full = total / base, tail = total % base;
    return full * CeilDiv(base, align) * align + (tail ? CeilDiv(tail, align) * align : 0);
}

// Base candidates of one axis of `len` elements: the multiples of 16 up to `len` rounded up to `align`
// (SetFixSplit) among kBaseSteps, and that bound itself when it is below 256; 16 when the bound is below 16.
std::vector<int64_t> BaseCandidates(int64_t len, int64_t align)
{
    const int64_t fractal = static_cast<int64_t>(kFractal);
    const int64_t bound = (len + align - 1) / align * align / fractal * fractal;
    if (bound < fractal) {
        return {fractal};
    }
    std::vector<int64_t> out;
    if (bound < kBaseSteps[0]) {
        out.push_back(bound); // the whole axis in one base block
    }
    for (const int64_t b : kBaseSteps) {
        if (b <= bound && (out.empty() || b != out.front())) {
            out.push_back(b);
        }
    }
    return out;
}

} // namespace

double Stage1TileCycles(int64_t m, int64_t n, int64_t k, const Stage1MatmulPlan& plan, int64_t eltBytes)
{
    if (m <= 0 || n <= 0 || k <= 0 || plan.baseM <= 0 || plan.baseN <= 0 || plan.l1.baseK <= 0) {
        return 0;
    }
    const uint64_t um = static_cast<uint64_t>(m), un = static_cast<uint64_t>(n), uk = static_cast<uint64_t>(k);
    const uint64_t bm = static_cast<uint64_t>(plan.baseM), bn = static_cast<uint64_t>(plan.baseN);
    const uint64_t bk = static_cast<uint64_t>(plan.l1.baseK), elt = static_cast<uint64_t>(eltBytes);
    const uint64_t tm = CeilDiv(um, bm), tn = CeilDiv(un, bn), tk = CeilDiv(uk, bk);
    // Cube formula (CUBE table 1): fp32 cube_k = 4, k0 = 8; 16-bit cube_k = k0 = 16
    const uint64_t cubeK = elt == 4 ? 4 : 16, k0 = elt == 4 ? 8 : 16;
    const uint64_t sm = AlignedBlockSum(um, bm, kFractal), sn = AlignedBlockSum(un, bn, kFractal);
    const uint64_t sk = AlignedBlockSum(uk, bk, k0);
    const uint64_t mmads = tm * tn * tk;
    const double mPipe =
        static_cast<double>(CeilDiv(sm * sn * sk, kFractal * kFractal * cubeK)) + kMmadHeadCycles * mmads;
    const double mte1 = static_cast<double>(CeilDiv(tn * sm * sk * elt, static_cast<uint64_t>(kL0aBytesPerCycle))) +
                        static_cast<double>(CeilDiv(tm * sk * sn * elt, static_cast<uint64_t>(kL0bBytesPerCycle)));
    const uint64_t stepM = static_cast<uint64_t>(std::max(plan.l1.stepM, 1));
    const uint64_t stepN = static_cast<uint64_t>(std::max(plan.l1.stepN, 1));
    const uint64_t cacheA = NormCachedBlocks(static_cast<uint64_t>(std::max(plan.l1.depthA1, 1)), tk, stepM);
    const uint64_t cacheB = NormCachedBlocks(static_cast<uint64_t>(std::max(plan.l1.depthB1, 1)), tk, stepN);
    Loads a, b;
    if (plan.l1.iterateOrder == 0) {
        a = InnerLoads(um, bm, tn, stepN, uk, bk, cacheA);
        b = OuterLoads(un, bn, tm, stepN, uk, bk, cacheB);
    } else {
        b = InnerLoads(un, bn, tm, stepM, uk, bk, cacheB);
        a = OuterLoads(um, bm, tn, stepM, uk, bk, cacheA);
    }
    const uint64_t loads = a.blocks + b.blocks, stores = tm * tn;
    const double mte2 = kTransferCycles * loads + static_cast<double>((a.elems + b.elems) * elt) / kGmBytesPerCycle;
    const double fix = kTransferCycles * stores + static_cast<double>(um * un * kL0cElemBytes) / kGmBytesPerCycle;
    const double pipe[4] = {mte2, mte1, mPipe, fix};
    const double units[4] = {
        static_cast<double>(std::max<uint64_t>(loads, 1)), static_cast<double>(std::max<uint64_t>(mmads, 1)),
        static_cast<double>(std::max<uint64_t>(mmads, 1)), static_cast<double>(std::max<uint64_t>(stores, 1))};
    double best = 0;
    for (int i = 0; i < 4; ++i) {
        double t = pipe[i];
        for (int j = 0; j < 4; ++j) {
            if (j != i) {
                t += pipe[j] / units[j];
            }
        }
        best = std::max(best, t);
    }
    return best;
}

bool PlanStage1Matmul(
    int64_t singleM, int64_t singleN, int64_t singleK, int64_t eltBytes, const MatmulL1Limits& limits,
    Stage1MatmulPlan& plan)
{
    if (singleM <= 0 || singleN <= 0 || singleK <= 0 || eltBytes <= 0) {
        return false;
    }
    const int64_t c0 = static_cast<int64_t>(kC0Bytes) / eltBytes;
    bool found = false;
    double best = 0;
    for (const int64_t bm : BaseCandidates(singleM, static_cast<int64_t>(kFractal))) {
        for (const int64_t bn : BaseCandidates(singleN, c0)) {
            if (static_cast<uint64_t>(bm * bn) * kL0cElemBytes > limits.l0cBytes) {
                continue;
            }
            Stage1MatmulPlan cand;
            cand.baseM = static_cast<int32_t>(bm);
            cand.baseN = static_cast<int32_t>(bn);
            if (!PlanMatmulL1(singleM, singleN, singleK, bm, bn, eltBytes, limits, cand.l1)) {
                continue;
            }
            const double cycles = Stage1TileCycles(singleM, singleN, singleK, cand, eltBytes);
            if (!found || cycles < best) {
                found = true;
                best = cycles;
                plan = cand;
            }
        }
    }
    return found;
}

uint64_t NormCachedBlocks(uint64_t depth, uint64_t kIter, uint64_t step)
{
    const bool full = depth >= kIter * step;
    if (depth > 2) {
        return full ? depth : depth - 2;
    }
    if (!full || (kIter == 1 && depth == 2)) {
        return 0;
    }
    return depth;
}

bool PlanMatmulL1(
    int64_t singleM, int64_t singleN, int64_t singleK, int64_t baseM, int64_t baseN, int64_t eltBytes,
    const MatmulL1Limits& limits, MatmulL1Plan& plan)
{
    if (singleM <= 0 || singleN <= 0 || singleK <= 0 || baseM <= 0 || baseN <= 0 || eltBytes <= 0) {
        return false;
    }
    const uint64_t m = static_cast<uint64_t>(singleM), n = static_cast<uint64_t>(singleN);
    const uint64_t k = static_cast<uint64_t>(singleK), bm = static_cast<uint64_t>(baseM);
    const uint64_t bn = static_cast<uint64_t>(baseN), elt = static_cast<uint64_t>(eltBytes);
    // baseK: the largest multiple of 16 with both L0 double buffers fitting, at most K rounded up to 16.
    const uint64_t l0Limit =
        std::min(limits.l0aBytes / (kL0Buffers * bm * elt), limits.l0bBytes / (kL0Buffers * bn * elt));
    const uint64_t bk = std::min(l0Limit / kBaseKAlign * kBaseKAlign, CeilDiv(k, kBaseKAlign) * kBaseKAlign);
    if (bk < kBaseKAlign) {
        return false;
    }
    const uint64_t tm = CeilDiv(m, bm), tn = CeilDiv(n, bn), tk = CeilDiv(k, bk);
    const uint64_t blockA = bm * bk * elt, blockB = bn * bk * elt;
    bool found = false;
    for (int32_t order = 1; order >= 0; --order) {
        // the kept operand (A for ORDER_N, B for ORDER_M) and the streamed one
        const uint64_t keptBlock = order == 1 ? blockA : blockB, streamBlock = order == 1 ? blockB : blockA;
        const uint64_t keptBlocks = order == 1 ? tm : tn;
        for (uint64_t step = 1; step <= keptBlocks; ++step) {
            for (uint64_t keptDepth = step; keptDepth <= step * tk; keptDepth += step) {
                if (keptDepth * keptBlock + streamBlock > limits.l1Bytes) {
                    break;
                }
                const uint64_t streamDepth = std::min(tk, (limits.l1Bytes - keptDepth * keptBlock) / streamBlock);
                const uint64_t keptCache = NormCachedBlocks(keptDepth, tk, step);
                const uint64_t streamCache = NormCachedBlocks(streamDepth, tk, 1);
                Loads kept, stream;
                if (order == 1) {
                    kept = OuterLoads(m, bm, tn, step, k, bk, keptCache);
                    stream = InnerLoads(n, bn, tm, step, k, bk, streamCache);
                } else {
                    kept = OuterLoads(n, bn, tm, step, k, bk, keptCache);
                    stream = InnerLoads(m, bm, tn, step, k, bk, streamCache);
                }
                const uint64_t elems = kept.elems + stream.elems, blocks = kept.blocks + stream.blocks;
                const uint64_t l1 = keptDepth * keptBlock + streamDepth * streamBlock;
                const bool better = !found || elems < plan.loadElems ||
                                    (elems == plan.loadElems &&
                                     (blocks < plan.loadBlocks || (blocks == plan.loadBlocks && l1 < plan.l1Bytes)));
                if (!better) {
                    continue;
                }
                found = true;
                plan.baseK = static_cast<int32_t>(bk);
                plan.iterateOrder = order;
                plan.stepM = static_cast<int32_t>(order == 1 ? step : 1);
                plan.stepN = static_cast<int32_t>(order == 1 ? 1 : step);
                plan.depthA1 = static_cast<int32_t>(order == 1 ? keptDepth : streamDepth);
                plan.depthB1 = static_cast<int32_t>(order == 1 ? streamDepth : keptDepth);
                plan.stepKa = plan.depthA1 / plan.stepM;
                plan.stepKb = plan.depthB1 / plan.stepN;
                plan.l1Bytes = l1;
                plan.loadElems = elems;
                plan.loadBlocks = blocks;
            }
        }
    }
    return found;
}

} // namespace dcn
