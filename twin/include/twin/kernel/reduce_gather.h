// ReduceSum / WholeReduceSum / BlockReduceSum / Gather / GatherMask of the twin.
// BlockReduceSum (CANN 8.1.RC1 kernel_operator_vec_reduce_intf.h; asc-devkit docs: ReduceDataBlock,
// dav_c220 vcgadd): per repeat, 8 DataBlocks of src (srcBlkStride apart), each block's enabled elements
// summed into one value; the 8 sums of repeat r go to dst + r*dstRepStride*8 elements (the unit is one
// repeat's output: 32 B for float, 16 B for half). src 32-B aligned, dst 32-B (float) / 16-B (half)
// aligned. A block with no enabled element is not written (the chip's output there is not documented).
// Summation order (model; the chip's exact order is UNCONFIRMED): within one 256-B repeat the
// enabled elements are added as a pairwise tree over adjacent pairs; ReduceSum(count) first reduces
// each repeat, then reduces the per-repeat results the same way until one value remains. Sums are
// carried in float (half results rounded once at the end of each level).
// Gather: dst[i] = *(T*)((uint8_t*)src + srcBaseOffset + srcOffset[i]) — offsets are in BYTES.
// Gatherb (CANN 8.1.RC1 kernel_operator_vec_gather_intf.h, dav_c220 vgatherb; asc-devkit Gatherb(ISASI).md):
// per repeat i, 8 DataBlocks: the 32-B block at src0 + offset[8i + j] (bytes, 32-B aligned, inside UB) goes
// to dst + (i*dstRepStride + j*dstBlkStride) blocks (dstBlkStride 0 = 1). uint16_t/uint32_t only on A2/A3;
// src0 and dst must not be the same memory; repeatTime 0 is a NOP. Rate: 42 (u16) / 21 (u32) elem/cycle.
#pragma once
#include <vector>
#include "twin/kernel/vec_engine.h"
#include "twin/kernel/vec_ops.h" // PrefixPlan / PrefixCount (BlockReduceSum fast path)

namespace twin {
namespace kernel {

// A sum rounded to T (a level of the tree below), carried on in float.
template <typename T>
inline float RoundedSum(float a, float b)
{
    return static_cast<float>(static_cast<T>(a + b));
}
// The tree below for n == 8 (a float DataBlock), unrolled: the same three levels, the same roundings.
template <typename T>
inline T TreeSum8(const float* v)
{
    const float a0 = RoundedSum<T>(v[0], v[1]), a1 = RoundedSum<T>(v[2], v[3]);
    const float a2 = RoundedSum<T>(v[4], v[5]), a3 = RoundedSum<T>(v[6], v[7]);
    return static_cast<T>(RoundedSum<T>(a0, a1) + RoundedSum<T>(a2, a3));
}

// Pairwise (adjacent pairs) tree sum of v[0..n), in place; each level rounds to T.
template <typename T>
inline T TreeSum(float *v, size_t n) {
    if (n == 8)
        return TreeSum8<T>(v);
    if (n == 16) { // a half DataBlock: its first level, then the n == 8 tree
        float w[8];
        for (size_t i = 0; i < 8; ++i)
            w[i] = RoundedSum<T>(v[2 * i], v[2 * i + 1]);
        return TreeSum8<T>(w);
    }
    if (n == 0) return static_cast<T>(0);
    while (n > 1) {
        const size_t half = n / 2;
        for (size_t i = 0; i < half; ++i) v[i] = static_cast<float>(static_cast<T>(v[2 * i] + v[2 * i + 1]));
        if (n % 2) v[half] = v[n - 1];
        n = (n + 1) / 2;
    }
    return static_cast<T>(v[0]);
}

}  // namespace kernel
}  // namespace twin

namespace AscendC {

template <typename T, bool isSetMask = true>
__aicore__ inline void ReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer, const int32_t count) {
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value, "ReduceSum: Atlas A2 supports half and float");
    const char *api = "ReduceSum";
    auto &c = twin::kernel::Core(api);
    if (twin::kernel::CountNop(api, c, count)) return;
    twin::kernel::CountOperand(api, c, src, count, "src", true);
    twin::kernel::CountOperand(api, c, dst, 1, "dst", false);
    if (sharedTmpBuffer.TwinAddr() == nullptr) twin::kernel::Violation(api, "sharedTmpBuffer is not allocated");
    twin::kernel::CheckUbAligned(api, c, sharedTmpBuffer.TwinAddr(), "sharedTmpBuffer");
    const int32_t per = 256 / sizeof(T);
    static thread_local std::vector<float> partial;
    partial.clear();
    float chunk[128];
    for (int32_t r = 0; r * per < count; ++r) {
        size_t n = 0;
        for (int32_t i = r * per; i < count && i < (r + 1) * per; ++i) chunk[n++] = static_cast<float>(src.TwinAddr()[i]);
        partial.push_back(static_cast<float>(twin::kernel::TreeSum<T>(chunk, n)));
    }
    dst.TwinAddr()[0] = twin::kernel::TreeSum<T>(partial.data(), partial.size());
    twin::kernel::CountDone(c, dst, 1);
    c.counters.vecElemOps += count;
    twin::kernel::ChargeVector(c, api, sizeof(T), static_cast<uint64_t>(count));   // software-emulated: unlisted
}

namespace twin_detail {
template <typename T>
inline void WholeReduceSumImpl(const LocalTensor<T> &dst, const LocalTensor<T> &src, const twin::kernel::MaskPlan &m, int64_t repeat,
                               int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride) {
    const char *api = "WholeReduceSum";
    auto &c = twin::kernel::Core(api);
    const uint32_t per = 256 / sizeof(T);
    twin::kernel::VecOperand ops[1] = {{reinterpret_cast<uint8_t *>(src.TwinAddr()), sizeof(T), static_cast<uint32_t>(srcBlkStride),
                                        static_cast<uint32_t>(srcRepStride), src.TwinCapacity(), "src"}};
    const uint64_t R = twin::kernel::PrepareMasked(api, c, m, repeat, ops, 1, per);
    if (R == 0) return;
    twin::kernel::CheckUbAligned(api, c, dst.TwinAddr(), "dst");
    twin::kernel::CheckLocalRange(api, c, dst, (R - 1) * static_cast<uint64_t>(dstRepStride) + 1, "dst");
    // Element offsets of one repeat, computed once; per element only a shadow-byte test (the full
    // memchr check runs only to report an unwritten element).
    uint32_t off[256];
    const uint32_t planned = m.counter ? per : m.n;
    for (uint32_t i = 0; i < planned; ++i) off[i] = static_cast<uint32_t>(twin::kernel::ElemOffset(ops[0], 0, m.counter ? i : m.idx[i]));
    const uint64_t repElems = static_cast<uint64_t>(ops[0].repStride) * (32 / sizeof(T));
    float vals[256];
    for (uint64_t r = 0; r < R; ++r) {
        uint32_t nv = planned;
        if (m.counter) {
            const uint64_t left = m.counterTotal - r * per;
            if (left < per) nv = static_cast<uint32_t>(left);
        }
        const T *sr = src.TwinAddr() + r * repElems;
        for (uint32_t i = 0; i < nv; ++i) {
            const T *p = sr + off[i];
            if (!twin::kernel::ShadowWritten(c, p)) twin::kernel::UbCheckRead(api, c, p, sizeof(T));
            vals[i] = static_cast<float>(*p);
        }
        c.counters.vecElemOps += nv;
        T *d = dst.TwinAddr() + r * dstRepStride;
        *d = twin::kernel::TreeSum<T>(vals, nv);
        twin::kernel::ShadowWriteElem(c, d);
    }
}
}  // namespace twin_detail

template <typename T, bool isSetMask = true>
__aicore__ inline void WholeReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t mask, twin::kernel::RepeatTimes repeatTime,
                                      const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride) {
    auto &c = twin::kernel::Core("WholeReduceSum");
    if (isSetMask && mask <= 0) return;
    auto m = twin::kernel::PlanContinuousMask("WholeReduceSum", c, isSetMask, static_cast<uint64_t>(mask), 256 / sizeof(T));
    twin_detail::WholeReduceSumImpl(dst, src, m, repeatTime.v, dstRepStride, srcBlkStride, srcRepStride);
}
template <typename T, bool isSetMask = true>
__aicore__ inline void WholeReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[], twin::kernel::RepeatTimes repeatTime,
                                      const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride) {
    auto &c = twin::kernel::Core("WholeReduceSum");
    auto m = twin::kernel::PlanBitMask("WholeReduceSum", c, isSetMask, mask, 256 / sizeof(T));
    twin_detail::WholeReduceSumImpl(dst, src, m, repeatTime.v, dstRepStride, srcBlkStride, srcRepStride);
}

namespace twin_detail {
template <typename T>
inline void BlockReduceSumImpl(
    const LocalTensor<T>& dst, const LocalTensor<T>& src, const twin::kernel::MaskPlan& m, int64_t repeat,
    int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride)
{
    static_assert(
        std::is_same<T, half>::value || std::is_same<T, float>::value,
        "BlockReduceSum: src and dst both half or float");
    const char* api = "BlockReduceSum";
    auto& c = twin::kernel::Core(api);
    if (dstRepStride < 0 || dstRepStride > 65535 || srcBlkStride < 0 || srcBlkStride > 65535 || srcRepStride < 0 ||
        srcRepStride > 65535)
        twin::kernel::Violation(api, "dstRepStride, srcBlkStride and srcRepStride must be in [0, 65535]");
    const uint32_t per = 256 / sizeof(T), perBlk = 32 / sizeof(T);
    twin::kernel::VecOperand ops[1] = {
        {reinterpret_cast<uint8_t*>(src.TwinAddr()), sizeof(T), static_cast<uint32_t>(srcBlkStride),
         static_cast<uint32_t>(srcRepStride), src.TwinCapacity(), "src"}};
    const uint64_t R = twin::kernel::PrepareMasked(api, c, m, repeat, ops, 1, per);
    if (R == 0)
        return;
    const size_t dstOff = static_cast<size_t>(reinterpret_cast<const uint8_t*>(dst.TwinAddr()) - c.ubBase);
    const size_t dstAlign = sizeof(T) == 4 ? 32 : 16;
    if (dstOff % dstAlign != 0)
        twin::kernel::Violation(
            api, "dst UB address must be " + std::to_string(dstAlign) + "-byte aligned; got offset " +
                     std::to_string(dstOff));
    twin::kernel::CheckLocalRange(api, c, dst, (R - 1) * static_cast<uint64_t>(dstRepStride) * 8 + 8, "dst");
    float sums[8][32];
    uint32_t cnt[8];
    if (twin::kernel::PrefixPlan(m)) {
        // Prefix plans (continuous mask, counter mode): the enabled elements of block b are its first
        // ones, contiguous in UB; the shadow is checked once per block (as BinaryMasked does; the reads
        // come before this instruction's writes). Same elements, same order, same sums as below.
        // With the hazard checker off and every source block already written (PrefixBlocksWritten),
        // the per-block checks would all pass: the loop runs without them.
        const bool checked = c.hz != nullptr || !twin::kernel::PrefixBlocksWritten(
                                                    c, twin::kernel::PrefixBlocks(c, m, R, per, perBlk, ops[0]));
        for (uint64_t r = 0; r < R; ++r) {
            const uint32_t enabled = twin::kernel::PrefixCount(m, r, per);
            const T* sr = src.TwinAddr() + r * ops[0].repStride * perBlk;
            const uint32_t blocks = (enabled + perBlk - 1) / perBlk;
            for (uint32_t b = 0; b < blocks; ++b) {
                const T* p = sr + static_cast<uint64_t>(b) * ops[0].blkStride * perBlk;
                if (checked && !twin::kernel::ShadowWritten(c, p))
                    twin::kernel::UbCheckRead(api, c, p, sizeof(T));
                cnt[b] = std::min(perBlk, enabled - b * perBlk);
                for (uint32_t k = 0; k < cnt[b]; ++k)
                    sums[b][k] = static_cast<float>(p[k]);
            }
            c.counters.vecElemOps += enabled;
            T* d = dst.TwinAddr() + r * static_cast<uint64_t>(dstRepStride) * 8;
            for (uint32_t b = 0; b < blocks; ++b) {
                d[b] = twin::kernel::TreeSum<T>(sums[b], cnt[b]);
                twin::kernel::ShadowWriteElem(c, d + b);
            }
        }
        return;
    }
    for (uint64_t r = 0; r < R; ++r) {
        for (uint32_t b = 0; b < 8; ++b)
            cnt[b] = 0;
        const uint32_t enabled =
            m.counter ? static_cast<uint32_t>(std::min<uint64_t>(per, m.counterTotal - r * per)) : m.n;
        for (uint32_t i = 0; i < enabled; ++i) {
            const uint32_t e = m.counter ? i : m.idx[i];
            const T* p = src.TwinAddr() + r * ops[0].repStride * perBlk + twin::kernel::ElemOffset(ops[0], 0, e);
            if (!twin::kernel::ShadowWritten(c, p))
                twin::kernel::UbCheckRead(api, c, p, sizeof(T));
            sums[e / perBlk][cnt[e / perBlk]++] = static_cast<float>(*p);
        }
        c.counters.vecElemOps += enabled;
        T* d = dst.TwinAddr() + r * static_cast<uint64_t>(dstRepStride) * 8;
        for (uint32_t b = 0; b < 8; ++b) {
            if (cnt[b] == 0)
                continue;
            d[b] = twin::kernel::TreeSum<T>(sums[b], cnt[b]);
            twin::kernel::ShadowWriteElem(c, d + b);
        }
    }
}
} // namespace twin_detail

// Signatures of CANN 8.1.RC1 (repeat before mask; asc-devkit's ReduceDataBlock has mask first).
template <typename T, bool isSetMask = true>
__aicore__ inline void BlockReduceSum(
    const LocalTensor<T>& dst, const LocalTensor<T>& src, twin::kernel::RepeatTimes repeat, const int32_t mask,
    const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride)
{
    auto& c = twin::kernel::Core("BlockReduceSum");
    if (isSetMask && mask <= 0)
        return;
    auto m =
        twin::kernel::PlanContinuousMask("BlockReduceSum", c, isSetMask, static_cast<uint64_t>(mask), 256 / sizeof(T));
    twin_detail::BlockReduceSumImpl(dst, src, m, repeat.v, dstRepStride, srcBlkStride, srcRepStride);
}
template <typename T, bool isSetMask = true>
__aicore__ inline void BlockReduceSum(
    const LocalTensor<T>& dst, const LocalTensor<T>& src, twin::kernel::RepeatTimes repeat, const uint64_t mask[],
    const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride)
{
    auto& c = twin::kernel::Core("BlockReduceSum");
    auto m = twin::kernel::PlanBitMask("BlockReduceSum", c, isSetMask, mask, 256 / sizeof(T));
    twin_detail::BlockReduceSumImpl(dst, src, m, repeat.v, dstRepStride, srcBlkStride, srcRepStride);
}

template <typename T>
__aicore__ inline void Gather(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint32_t> &srcOffset,
                              const uint32_t srcBaseOffset, const uint32_t count) {
    static_assert(std::is_same<T, int16_t>::value || std::is_same<T, uint16_t>::value || std::is_same<T, half>::value ||
                      std::is_same<T, bfloat16_t>::value || std::is_same<T, int32_t>::value || std::is_same<T, uint32_t>::value ||
                      std::is_same<T, float>::value,
                  "Gather: data type not supported on Atlas A2; accepted: int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float");
    const char *api = "Gather";
    auto &c = twin::kernel::Core(api);
    if (twin::kernel::CountNop(api, c, count)) return;
    twin::kernel::CountOperand(api, c, srcOffset, count, "srcOffset", true);
    twin::kernel::CountOperand(api, c, dst, count, "dst", false);
    twin::kernel::CheckUbAligned(api, c, src.TwinAddr(), "src");
    if (src.TwinAddr() == dst.TwinAddr()) twin::kernel::Violation(api, "src and dst must not be the same tensor");
    const uint64_t srcBytes = uint64_t(src.TwinCapacity()) * sizeof(T);
    twin::kernel::CheckUbAddress(api, c, src.TwinAddr(), srcBytes);
    const uint8_t *sb = reinterpret_cast<const uint8_t *>(src.TwinAddr());
    const uint32_t *off = srcOffset.TwinAddr();
    T *d = dst.TwinAddr();
    // Hazard checker off: the elements that pass every check are copied by a loop that reads the
    // shadow pointers once (its stores could alias the core's state for the compiler); the first that
    // does not, and all after it, go through the checked loop below (same order, same reports).
    const uint8_t *ub = c.ubBase, *shadow = c.shadow;
    const uint32_t unchecked = c.hz == nullptr ? count : 0;
    uint32_t first = 0;
    for (; first < unchecked; ++first) {
        const uint64_t byteOff = uint64_t(srcBaseOffset) + off[first];
        if (byteOff % sizeof(T) != 0 || byteOff + sizeof(T) > srcBytes ||
            shadow[static_cast<size_t>(sb + byteOff - ub) >> 5] == 0)
            break;
        T v;
        std::memcpy(&v, sb + byteOff, sizeof(T));
        d[first] = v;
    }
    for (uint32_t i = first; i < count; ++i) {
        const uint64_t byteOff = uint64_t(srcBaseOffset) + off[i];
        if (byteOff % sizeof(T) != 0)
            twin::kernel::Violation(api, "srcBaseOffset + srcOffset[" + std::to_string(i) + "] = " + std::to_string(byteOff) +
                                         " bytes is not a multiple of sizeof(T) (offsets are in bytes)");
        if (byteOff + sizeof(T) > srcBytes)
            twin::kernel::Violation(api, "srcBaseOffset + srcOffset[" + std::to_string(i) + "] = " + std::to_string(byteOff) +
                                         " bytes is outside src (" + std::to_string(srcBytes) + " bytes; offsets are in bytes)");
        // an aligned element lies in one 32-B block: one shadow byte decides
        if (!twin::kernel::ShadowWritten(c, sb + byteOff)) twin::kernel::UbCheckRead(api, c, sb + byteOff, sizeof(T));
        std::memcpy(d + i, sb + byteOff, sizeof(T));
    }
    twin::kernel::CountDone(c, dst, count);
}

struct GatherRepeatParams {
    __aicore__ GatherRepeatParams() {}
    __aicore__ GatherRepeatParams(const uint8_t dstBlkStrideIn, const uint8_t dstRepStrideIn)
    {
        dstBlkStride = dstBlkStrideIn;
        dstRepStride = dstRepStrideIn;
    }
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint16_t dstRepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src0BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src1BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src0RepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src1RepStride = DEFAULT_REPEAT_STRIDE;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
};

template <typename T>
__aicore__ inline void Gatherb(
    const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<uint32_t>& offset,
    const uint8_t repeatTime, const GatherRepeatParams& p)
{
    static_assert(
        std::is_same<T, uint16_t>::value || std::is_same<T, uint32_t>::value,
        "Gatherb: data type not supported on Atlas A2/A3; accepted: uint16_t, uint32_t");
    const char* api = "Gatherb";
    auto& c = twin::kernel::Core(api);
    if (twin::kernel::CountNop(api, c, repeatTime))
        return;
    const uint32_t blocks = 8u * repeatTime;
    twin::kernel::CountOperand(api, c, offset, blocks, "offset", true);
    twin::kernel::CheckUbAligned(api, c, dst.TwinAddr(), "dst");
    twin::kernel::CheckUbAligned(api, c, src0.TwinAddr(), "src0");
    const uint64_t blk = p.dstBlkStride == 0 ? 1 : p.dstBlkStride;
    const uint64_t dstSpan = (uint64_t(repeatTime - 1) * p.dstRepStride + 7 * blk + 1) * 32;
    if (dstSpan > uint64_t(dst.TwinCapacity()) * sizeof(T))
        twin::kernel::Violation(
            api, "dst blocks reach " + std::to_string(dstSpan) + " bytes past dst, beyond its " +
                     std::to_string(uint64_t(dst.TwinCapacity()) * sizeof(T)) + "-byte buffer");
    const uint8_t* sb = reinterpret_cast<const uint8_t*>(src0.TwinAddr());
    uint8_t* db = reinterpret_cast<uint8_t*>(dst.TwinAddr());
    const uint32_t* off = offset.TwinAddr();
    for (uint32_t i = 0; i < repeatTime; ++i) {
        for (uint32_t j = 0; j < 8; ++j) {
            const uint32_t o = off[8 * i + j];
            if (o % 32 != 0)
                twin::kernel::Violation(
                    api, "offset[" + std::to_string(8 * i + j) + "] = " + std::to_string(o) +
                             " bytes: src0 + offset must be 32-byte aligned (offsets are in bytes)");
            twin::kernel::CheckUbAddress(api, c, sb + o, 32);
            if (sb + o < db + dstSpan && db < sb + o + 32)
                twin::kernel::Violation(
                    api, "src0 and dst must not share memory: offset[" + std::to_string(8 * i + j) +
                             "] reads a block inside the dst range");
            twin::kernel::UbCheckReadBlock(api, c, sb + o); // o % 32 == 0: one block
            uint8_t* d = db + (uint64_t(i) * p.dstRepStride + j * blk) * 32;
            std::memcpy(d, sb + o, 32);
            twin::kernel::UbMarkWrittenBlock(c, d);
        }
    }
    c.counters.vecElemOps += uint64_t(blocks) * (32 / sizeof(T));
    c.counters.vecInstrs += repeatTime;
    twin::kernel::ChargeVector(c, api, sizeof(T), uint64_t(blocks) * (32 / sizeof(T)));
}

struct GatherMaskParams {
    __aicore__ GatherMaskParams() {}
    __aicore__ GatherMaskParams(const uint8_t src0BlockStrideIn, const uint16_t repeatTimesIn, const uint16_t src0RepeatStrideIn, const uint8_t src1RepeatStrideIn)
        : src0BlockStride(src0BlockStrideIn), repeatTimes(repeatTimesIn), src0RepeatStride(src0RepeatStrideIn), src1RepeatStride(src1RepeatStrideIn) {}
    uint8_t src0BlockStride = DEFAULT_BLK_STRIDE;
    uint16_t repeatTimes = 0;
    uint16_t src0RepeatStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src1RepeatStride = DEFAULT_REPEAT_STRIDE;
};
enum class GatherMaskMode : uint8_t { VERSION_V1 = 0, VERSION_V2 = 1 };
constexpr GatherMaskMode defaultGatherMaskMode = GatherMaskMode::VERSION_V1;

namespace twin_detail {
// Normal mode (reduceMode=false): each repeat reads 256 B of src0 and keeps the elements whose pattern
// bit is set, writing them densely to dst; rsvdCnt = number kept.
template <typename T, typename Bit>
inline void GatherMaskImpl(const LocalTensor<T> &dst, const LocalTensor<T> &src0, bool reduceMode, const GatherMaskParams &p,
                           uint64_t &rsvdCnt, Bit bit) {
    const char *api = "GatherMask";
    auto &c = twin::kernel::Core(api);
    twin::kernel::RequireAiv(api, c);
    if (reduceMode) twin::kernel::Violation(api, "reduceMode=true (counter mode) is not modelled by the twin");
    twin::kernel::CheckRepeat(api, p.repeatTimes);
    twin::kernel::CheckUbAligned(api, c, dst.TwinAddr(), "dst");
    twin::kernel::CheckUbAligned(api, c, src0.TwinAddr(), "src0");
    const uint32_t per = 256 / sizeof(T);
    twin::kernel::VecOperand op{reinterpret_cast<uint8_t *>(src0.TwinAddr()), sizeof(T), p.src0BlockStride, p.src0RepeatStride, src0.TwinCapacity(), "src0"};
    twin::kernel::CheckUbAddress(api, c, src0.TwinAddr(), uint64_t(src0.TwinCapacity()) * sizeof(T));
    twin::kernel::CheckUbAddress(api, c, dst.TwinAddr(), uint64_t(dst.TwinCapacity()) * sizeof(T));
    uint64_t kept = 0;
    for (uint32_t r = 0; r < p.repeatTimes; ++r) {
        for (uint32_t e = 0; e < per; ++e) {
            if (!bit(r, e)) continue;
            const uint64_t off = twin::kernel::ElemOffset(op, r, e);
            if (off >= src0.TwinCapacity()) twin::kernel::Violation(api, "src0 access beyond its buffer");
            if (kept >= dst.TwinCapacity()) twin::kernel::Violation(api, "dst overflow: more elements kept than dst holds");
            twin::kernel::UbCheckRead(api, c, src0.TwinAddr() + off, sizeof(T));
            dst.TwinAddr()[kept++] = src0.TwinAddr()[off];
        }
    }
    twin::kernel::UbMarkWritten(c, dst.TwinAddr(), kept * sizeof(T));
    c.counters.vecElemOps += uint64_t(p.repeatTimes) * per;
    c.counters.vecInstrs += p.repeatTimes;
    twin::kernel::ChargeVector(c, api, sizeof(T), uint64_t(p.repeatTimes) * per);
    rsvdCnt = kept;
}
}  // namespace twin_detail

template <typename T, typename U, GatherMaskMode mode = defaultGatherMaskMode>
__aicore__ inline void GatherMask(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<U> &src1Pattern, const bool reduceMode,
                                  const uint32_t mask, const GatherMaskParams &p, uint64_t &rsvdCnt) {
    (void)mask;
    auto &c = twin::kernel::Core("GatherMask");
    const uint32_t per = 256 / sizeof(T);
    const uint8_t *bits = reinterpret_cast<const uint8_t *>(src1Pattern.TwinAddr());
    const uint64_t needBytes = (uint64_t(p.repeatTimes ? p.repeatTimes - 1 : 0) * p.src1RepeatStride * 32) + per / 8;
    twin::kernel::CheckLocalRange("GatherMask", c, src1Pattern, (needBytes + sizeof(U) - 1) / sizeof(U), "src1Pattern");
    twin::kernel::UbCheckRead("GatherMask", c, bits, needBytes);
    twin_detail::GatherMaskImpl(dst, src0, reduceMode, p, rsvdCnt, [&](uint32_t r, uint32_t e) {
        const uint8_t *rb = bits + uint64_t(r) * p.src1RepeatStride * 32;
        return ((rb[e / 8] >> (e % 8)) & 1) != 0;
    });
}

// Built-in patterns: 1 even elements, 2 odd, 3..6 element (i % 4 == pattern-3), 7 all.
template <typename T, GatherMaskMode mode = defaultGatherMaskMode>
__aicore__ inline void GatherMask(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const uint8_t src1Pattern, const bool reduceMode,
                                  const uint32_t mask, const GatherMaskParams &p, uint64_t &rsvdCnt) {
    (void)mask;
    if (src1Pattern < 1 || src1Pattern > 7)
        twin::kernel::Violation("GatherMask", "built-in src1Pattern must be in [1, 7]; got " + std::to_string(src1Pattern));
    twin_detail::GatherMaskImpl(dst, src0, reduceMode, p, rsvdCnt, [src1Pattern](uint32_t, uint32_t e) {
        switch (src1Pattern) {
        case 1: return e % 2 == 0;
        case 2: return e % 2 == 1;
        case 7: return true;
        default: return e % 4 == static_cast<uint32_t>(src1Pattern - 3);
        }
    });
}

}  // namespace AscendC
