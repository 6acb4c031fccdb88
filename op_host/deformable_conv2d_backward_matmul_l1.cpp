// L1 plan of one stage-1 Matmul tile for the Norm scheduler (see deformable_conv2d_backward_matmul_l1.h).
#include "deformable_conv2d_backward_matmul_l1.h"

#include <algorithm>

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

} // namespace

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
