// Shared machinery of the twin's vector instructions.
// Count form: `count` contiguous elements from 32-B aligned operands (count <= 0 is a NOP).
// Mask/repeat form (ASC-API SIMD计算说明/高维切分, 掩码): one repeat = 256 B = 8 DataBlocks; the
// elements of a repeat are 256/max(sizeof operand) wide; element e of an operand lives in block
// e / (32/sizeof) at blkStride*block + repStride*repeat DataBlocks from its base. repeatTime must be
// <= 255 (0 = NOP). Continuous mask in [1, elementsPerRepeat] (0 = NOP); bit mask mask[0] low 64
// elements, mask[1] high (must be 0 for 32-bit types). isSetMask=false uses the mask register
// (SetVectorMask); in counter mode (SetMaskCount) the register holds the element count and
// repeatTime is ignored.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include "twin/kernel/api_tally.h"
#include "twin/kernel/cost_table.h"
#include "twin/kernel/data_copy.h"

namespace AscendC {

struct BinaryRepeatParams {
    __aicore__ BinaryRepeatParams() {}
    __aicore__ BinaryRepeatParams(const uint8_t dstBlkStrideIn, const uint8_t src0BlkStrideIn, const uint8_t src1BlkStrideIn,
                                  const uint8_t dstRepStrideIn, const uint8_t src0RepStrideIn, const uint8_t src1RepStrideIn)
        : dstBlkStride(dstBlkStrideIn), src0BlkStride(src0BlkStrideIn), src1BlkStride(src1BlkStrideIn),
          dstRepStride(dstRepStrideIn), src0RepStride(src0RepStrideIn), src1RepStride(src1RepStrideIn) {}
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint8_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src0BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src1BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t dstRepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src0RepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src1RepStride = DEFAULT_REPEAT_STRIDE;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
};

struct UnaryRepeatParams {
    __aicore__ UnaryRepeatParams() {}
    __aicore__ UnaryRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn, const uint8_t dstRepStrideIn, const uint8_t srcRepStrideIn)
        : dstBlkStride(dstBlkStrideIn), srcBlkStride(srcBlkStrideIn), dstRepStride(dstRepStrideIn), srcRepStride(srcRepStrideIn) {}
    __aicore__ UnaryRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn, const uint8_t dstRepStrideIn, const uint8_t srcRepStrideIn, const bool halfBlockIn)
        : dstBlkStride(dstBlkStrideIn), srcBlkStride(srcBlkStrideIn), dstRepStride(dstRepStrideIn), srcRepStride(srcRepStrideIn), halfBlock(halfBlockIn) {}
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint16_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint16_t srcBlkStride = DEFAULT_BLK_STRIDE;
    uint8_t dstRepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t srcRepStride = DEFAULT_REPEAT_STRIDE;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
    bool halfBlock = false;
};

// Mask register (ASC-API 掩码操作: SetVectorMask / ResetMask / SetMaskCount / SetMaskNorm).
template <typename T, MaskMode mode = MaskMode::NORMAL>
__aicore__ static inline void SetVectorMask(const uint64_t maskHigh, const uint64_t maskLow) {
    auto &c = twin::kernel::Core("SetVectorMask");
    c.maskHigh = maskHigh;
    c.maskLow = maskLow;
    (void)mode;
}
template <typename T, MaskMode mode = MaskMode::NORMAL>
__aicore__ static inline void SetVectorMask(int32_t len) {
    auto &c = twin::kernel::Core("SetVectorMask");
    if (mode == MaskMode::COUNTER || c.maskCounterMode) { c.maskHigh = 0; c.maskLow = static_cast<uint64_t>(len); return; }
    const int32_t per = 256 / static_cast<int32_t>(sizeof(T));
    if (len < 0 || len > per) twin::kernel::Violation("SetVectorMask", "len must be in [0, " + std::to_string(per) + "] in normal mask mode; got " + std::to_string(len));
    c.maskLow = len >= 64 ? ~0ull : ((1ull << len) - 1);
    c.maskHigh = len > 64 ? (len >= 128 ? ~0ull : ((1ull << (len - 64)) - 1)) : 0;
}
__aicore__ inline void ResetMask() { auto &c = twin::kernel::Core("ResetMask"); c.maskHigh = ~0ull; c.maskLow = ~0ull; }
__aicore__ inline void SetMaskCount() { twin::kernel::Core("SetMaskCount").maskCounterMode = true; }
__aicore__ inline void SetMaskNorm() { twin::kernel::Core("SetMaskNorm").maskCounterMode = false; }

}  // namespace AscendC

namespace twin {
namespace kernel {

// The cost-table entry of (api, elemBytes), looked up once per core and key (CoreContext::rateCache;
// a Fibonacci hash of the name pointer, as every call site passes a string literal).
inline const cost::VecRate* CoreRate(CoreContext& c, const char* api, uint32_t elemBytes)
{
    const uint64_t h = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(api)) * 0x9E3779B97F4A7C15ull;
    CoreContext::RateSlot& s = c.rateCache[((h >> 58) ^ elemBytes) % CoreContext::kRateSlots];
    if (s.api != api || s.elemBytes != elemBytes) {
        s.api = api;
        s.elemBytes = elemBytes;
        s.rate = cost::FindVectorRate(api, elemBytes);
    }
    return s.rate;
}

// PIPE_V cost of one instruction (twin/kernel/cost_table.h): `elems` elements of `elemBytes` issued;
// the same as cost::VectorCost(api, elemBytes, elems).
inline void ChargeVector(CoreContext &c, const char *api, uint32_t elemBytes, uint64_t elems) {
    const cost::VecCost v = cost::VectorCostFor(CoreRate(c, api, elemBytes), elemBytes, elems);
    if (ApiTallyOn())
        ApiTallyAdd(c.counters.syncAllCount, api, v.cycles);
    c.counters.vecCycles += v.cycles;
    c.counters.vecUnlistedRepeats += v.unlistedRepeats;
    ++c.counters.vecIssued;
}

// Any integer accepted so that an out-of-range repeatTime is reported instead of wrapping.
struct RepeatTimes {
    int64_t v;
    template <typename I, typename = std::enable_if_t<std::is_integral<I>::value>>
    RepeatTimes(I x) : v(static_cast<int64_t>(x)) {}  // NOLINT
};

// Enabled element indices of one repeat (or the total in counter mode).
struct MaskPlan {
    uint8_t idx[256];
    uint32_t n = 0;
    bool counter = false;
    uint64_t counterTotal = 0;
};

inline void CheckRepeat(const char *api, int64_t repeat) {
    if (repeat < 0 || repeat > AscendC::MAX_REPEAT_TIMES)
        Violation(api, "repeatTime must be in [0, 255]; got " + std::to_string(repeat));
}

inline MaskPlan PlanContinuousMask(const char *api, CoreContext &c, bool isSetMask, uint64_t mask, uint32_t perRepeat) {
    MaskPlan m;
    if (!isSetMask) {
        if (c.maskCounterMode) { m.counter = true; m.counterTotal = c.maskLow; return m; }
        for (uint32_t e = 0; e < perRepeat; ++e)
            if (e < 64 ? ((c.maskLow >> e) & 1) : ((c.maskHigh >> (e - 64)) & 1)) m.idx[m.n++] = static_cast<uint8_t>(e);
        return m;
    }
    if (mask > perRepeat)
        Violation(api, "continuous mask must be in [1, " + std::to_string(perRepeat) + "] for this data type; got " + std::to_string(mask));
    for (uint32_t e = 0; e < mask; ++e) m.idx[m.n++] = static_cast<uint8_t>(e);
    return m;
}

inline MaskPlan PlanBitMask(const char *api, CoreContext &c, bool isSetMask, const uint64_t mask[], uint32_t perRepeat) {
    if (!isSetMask) return PlanContinuousMask(api, c, false, 0, perRepeat);
    MaskPlan m;
    if (perRepeat <= 64 && mask[1] != 0)
        Violation(api, "mask[1] must be 0 for 32-bit data types (only 64 elements per repeat)");
    for (uint32_t e = 0; e < perRepeat; ++e)
        if (e < 64 ? ((mask[0] >> e) & 1) : ((mask[1] >> (e - 64)) & 1)) m.idx[m.n++] = static_cast<uint8_t>(e);
    return m;
}

// One operand of a mask-form instruction.
struct VecOperand {
    uint8_t *base;
    uint32_t elemSize;    // sizeof an element type: 1, 2, 4 or 8
    uint32_t blkStride;   // in DataBlocks
    uint32_t repStride;   // in DataBlocks
    uint64_t capElems;
    const char *name;
};

// log2 of the elements per 32-B DataBlock (32 / elemSize, a power of two): shifts and masks
// instead of divisions on the per-instruction path.
inline uint32_t PerBlkShift(const VecOperand& o) { return 5u - static_cast<uint32_t>(__builtin_ctz(o.elemSize)); }

inline uint64_t ElemOffset(const VecOperand &o, uint64_t r, uint32_t e) {
    const uint32_t shift = PerBlkShift(o), perBlk = 1u << shift;
    return r * o.repStride * perBlk + uint64_t(e >> shift) * o.blkStride * perBlk + (e & (perBlk - 1));
}

// Highest ElemOffset over the elements 0..lastE of repeat r. With blkStride >= 1 the offset grows
// with e (a block step adds blkStride*perBlk - (perBlk-1) >= 1), so element lastE is the highest;
// with blkStride 0 every block maps onto the repeat's first block, whose highest element reached is
// min(lastE, perBlk-1). Equal to the maximum of the element-wise loop, without its divisions.
inline uint64_t MaxElemOffset(const VecOperand& o, uint64_t r, uint32_t lastE)
{
    if (o.blkStride != 0)
        return ElemOffset(o, r, lastE);
    const uint32_t perBlk = 1u << PerBlkShift(o);
    return r * o.repStride * perBlk + std::min(lastE, perBlk - 1);
}

// Validates operands (alignment, bounds) for `repeat` repeats of plan `m`, returns repeats to run.
inline uint64_t PrepareMasked(const char *api, CoreContext &c, const MaskPlan &m, int64_t repeat, VecOperand *ops, int nOps,
                              uint32_t perRepeat) {
    RequireAiv(api, c);
    uint64_t R;
    uint32_t lastE;        // highest enabled element of the last repeat
    uint32_t fullLastE;    // highest enabled element of the other repeats
    if (m.counter) {
        if (m.counterTotal == 0) return 0;
        R = (m.counterTotal + perRepeat - 1) / perRepeat;
        lastE = static_cast<uint32_t>((m.counterTotal - 1) % perRepeat);
        fullLastE = perRepeat - 1;
    } else {
        CheckRepeat(api, repeat);
        if (repeat == 0 || m.n == 0) return 0;
        R = static_cast<uint64_t>(repeat);
        lastE = fullLastE = m.idx[m.n - 1];
    }
    for (int i = 0; i < nOps; ++i) {
        CheckUbAligned(api, c, ops[i].base, ops[i].name);
        uint64_t maxOff = MaxElemOffset(ops[i], R - 1, lastE);
        if (R >= 2)
            maxOff = std::max(maxOff, MaxElemOffset(ops[i], R - 2, fullLastE));
        if (maxOff + 1 > ops[i].capElems)
            Violation(api, std::string(ops[i].name) + " operand: repeat/stride pattern reaches element " + std::to_string(maxOff) +
                               " but the LocalTensor's buffer holds " + std::to_string(ops[i].capElems));
        CheckUbAddress(api, c, ops[i].base, (maxOff + 1) * ops[i].elemSize);
    }
    c.counters.vecInstrs += R;
    ChargeVector(c, api, 256 / perRepeat, R * perRepeat);
    return R;
}

// Iterates (repeat, element) pairs enabled by the plan; fn(r, e).
template <typename Fn>
inline void ForEachMasked(const MaskPlan &m, uint64_t R, uint32_t perRepeat, Fn fn) {
    if (m.counter) {
        for (uint64_t k = 0; k < m.counterTotal; ++k) fn(k / perRepeat, static_cast<uint32_t>(k % perRepeat));
        return;
    }
    for (uint64_t r = 0; r < R; ++r)
        for (uint32_t i = 0; i < m.n; ++i) fn(r, m.idx[i]);
}

inline void ShadowReadElem(const char *api, const CoreContext &c, const void *p, size_t size) { UbCheckRead(api, c, p, size); }
// Fast test for an element inside one 32-B block (the caller runs UbCheckRead to report it if not).
inline bool ShadowWritten(const CoreContext &c, const void *p) {
    if (c.hz != nullptr) HzUbAccess(c, p, 1, false);
    return c.shadow[static_cast<size_t>(static_cast<const uint8_t *>(p) - c.ubBase) >> 5] != 0;
}
inline void ShadowWriteElem(CoreContext &c, const void *p) {
    if (c.hz != nullptr) HzUbAccess(c, p, 1, true);
    c.shadow[static_cast<size_t>(static_cast<const uint8_t *>(p) - c.ubBase) / 32] = 1;
}

// Count-form operand validation: aligned, inside its buffer; reads must be initialised.
template <typename T>
inline void CountOperand(const char *api, CoreContext &c, const AscendC::LocalTensor<T> &t, uint64_t count, const char *name, bool read) {
    CheckUbAligned(api, c, t.TwinAddr(), name);
    CheckLocalRange(api, c, t, count, name);
    if (read) UbCheckRead(api, c, t.TwinAddr(), count * sizeof(T));
}

// 通用地址重叠约束: a source and the destination may share memory only if they overlap 100 %
// (same start); a partial overlap makes iterations overwrite sources of later iterations.
inline void CheckOverlap(const char *api, const void *dst, size_t dstBytes, const void *src, size_t srcBytes, const char *srcName) {
    const uint8_t *d = static_cast<const uint8_t *>(dst), *s = static_cast<const uint8_t *>(src);
    if (d == s) return;
    if (d < s + srcBytes && s < d + dstBytes)
        Violation(api, std::string("dst and ") + srcName + " partially overlap (in-place use requires 100% overlap: same start address)");
}

inline bool CountNop(const char *api, CoreContext &c, int64_t count) {
    RequireAiv(api, c);
    if (count < 0) Violation(api, "count must be >= 0; got " + std::to_string(count));
    c.costApi = api;   // the instruction's CountDone charges its cost under this name
    return count == 0;
}

template <typename T>
inline void CountDone(CoreContext &c, const AscendC::LocalTensor<T> &dst, uint64_t count, uint64_t bytesPerElem = sizeof(T)) {
    UbMarkWritten(c, dst.TwinAddr(), count * sizeof(T));
    c.counters.vecElemOps += count;
    c.counters.vecInstrs += (count * bytesPerElem + 255) / 256;
    ChargeVector(c, c.costApi, static_cast<uint32_t>(bytesPerElem), count);
}

}  // namespace kernel
}  // namespace twin
