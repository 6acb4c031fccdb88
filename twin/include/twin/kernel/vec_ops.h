// Element-wise vector instructions of the twin: binary (Add Sub Mul Div Max Min), tensor-scalar
// (Adds Muls Maxs Mins), unary (Abs Relu Exp Ln Sqrt Rsqrt Reciprocal), Duplicate, Axpy, Copy.
// Count forms and mask/repeat forms (see vec_engine.h for the addressing rules). Arithmetic on
// half/bfloat16_t is computed in float and rounded once (RNE) per instruction.
#pragma once
#include <cmath>
#include <cstring>
#include "twin/kernel/vec_engine.h"

namespace AscendC {

struct CopyRepeatParams {
    __aicore__ CopyRepeatParams() {}
    __aicore__ CopyRepeatParams(const uint16_t dstStrideIn, const uint16_t srcStrideIn, uint16_t dstRepeatSizeIn, uint16_t srcRepeatSizeIn)
        : dstStride(dstStrideIn), srcStride(srcStrideIn), dstRepeatSize(dstRepeatSizeIn), srcRepeatSize(srcRepeatSizeIn) {}
    uint16_t dstStride = DEFAULT_BLK_STRIDE;
    uint16_t srcStride = DEFAULT_BLK_STRIDE;
    uint16_t dstRepeatSize = DEFAULT_REPEAT_STRIDE;
    uint16_t srcRepeatSize = DEFAULT_REPEAT_STRIDE;
};

}  // namespace AscendC

namespace twin {
namespace kernel {

template <typename T, typename F>
inline void BinaryCount(const char *api, const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &src0,
                        const AscendC::LocalTensor<T> &src1, int64_t count, F f) {
    auto &c = Core(api);
    if (CountNop(api, c, count)) return;
    CountOperand(api, c, src0, count, "src0", true);
    CountOperand(api, c, src1, count, "src1", true);
    CountOperand(api, c, dst, count, "dst", false);
    CheckOverlap(api, dst.TwinAddr(), count * sizeof(T), src0.TwinAddr(), count * sizeof(T), "src0");
    CheckOverlap(api, dst.TwinAddr(), count * sizeof(T), src1.TwinAddr(), count * sizeof(T), "src1");
    T *d = dst.TwinAddr();
    const T *a = src0.TwinAddr(), *b = src1.TwinAddr();
    for (int64_t i = 0; i < count; ++i) d[i] = static_cast<T>(f(a[i], b[i]));
    CountDone(c, dst, count);
}

// Enabled elements of one repeat with their element offsets inside repeat 0 of each operand.
struct MaskedLayout {
    uint32_t n = 0;            // enabled elements per full repeat
    uint32_t off[3][256];      // per operand
};

inline void BuildLayout(MaskedLayout &L, const MaskPlan &m, uint32_t per, const VecOperand *ops, int nOps) {
    L.n = m.counter ? per : m.n;
    for (uint32_t i = 0; i < L.n; ++i) {
        const uint32_t e = m.counter ? i : m.idx[i];
        for (int k = 0; k < nOps; ++k) L.off[k][i] = static_cast<uint32_t>(ElemOffset(ops[k], 0, e));
    }
}

// Elements enabled in repeat r (counter mode: the last repeat may be partial).
inline uint32_t CountInRepeat(const MaskPlan &m, const MaskedLayout &L, uint64_t r, uint32_t per) {
    if (!m.counter) return L.n;
    const uint64_t left = m.counterTotal - r * per;
    return left < per ? static_cast<uint32_t>(left) : per;
}

// Prefix plans (a continuous mask, or counter mode): the enabled elements of a repeat are 0..cnt-1,
// so inside each 32-B block of every operand they are contiguous. The fast paths below check the
// shadow once per block (the element-wise check could only differ after a write to the same block,
// which turns the byte to "written") and run a tight loop over the block, in the same element order.
inline bool PrefixPlan(const MaskPlan &m) { return m.counter || (m.n > 0 && m.idx[m.n - 1] == m.n - 1); }
inline uint32_t PrefixCount(const MaskPlan &m, uint64_t r, uint32_t per) {
    if (!m.counter) return m.n;
    const uint64_t left = m.counterTotal - r * per;
    return left < per ? static_cast<uint32_t>(left) : per;
}

// Shadow blocks of a prefix plan on one operand (hazard checker off). The block of element e of repeat
// r has shadow index base/32 + r*repStride + (e/perBlk)*blkStride (base is 32-B aligned and inside UB:
// PrepareMasked checked it). Every repeat but the last has `blocks` blocks, the last `lastBlocks`
// (counter mode); with blkStride 1 a repeat's blocks are one run, and with repStride == blocks too the
// whole instruction's blocks are one run.
struct PrefixBlocks {
    size_t first; // shadow index of block 0 of repeat 0
    uint64_t R;
    uint32_t blocks, lastBlocks, blkStride, repStride;
    PrefixBlocks(
        const CoreContext& c, const MaskPlan& m, uint64_t repeats, uint32_t per, uint32_t perBlk, const VecOperand& o)
        : first(static_cast<size_t>(o.base - c.ubBase) >> 5), R(repeats), blkStride(o.blkStride), repStride(o.repStride)
    {
        const uint32_t shift = static_cast<uint32_t>(__builtin_ctz(perBlk)); // perBlk: 32 / sizeof(T)
        blocks = (PrefixCount(m, 0, per) + perBlk - 1) >> shift;
        lastBlocks = (PrefixCount(m, R - 1, per) + perBlk - 1) >> shift;
    }
    bool OneRun() const { return blkStride == 1 && (R == 1 || repStride == blocks); }
    uint64_t RunLength() const { return (R - 1) * blocks + lastBlocks; }
};

// True if every shadow byte of n from s is nonzero (written).
inline bool ShadowRunWritten(const uint8_t* s, uint64_t n)
{
    if (n > 8)
        return std::memchr(s, 0, n) == nullptr;
    for (uint64_t i = 0; i < n; ++i)
        if (s[i] == 0)
            return false;
    return true;
}

// True if every block the operand's enabled elements read is already written. The shadow only turns
// "written" while an instruction runs, so then every per-block check of the element loop would pass
// and the loop may run without them; if not, the caller runs the checked loop, which reports exactly
// as before.
inline bool PrefixBlocksWritten(const CoreContext& c, const PrefixBlocks& pb)
{
    const uint8_t* sh = c.shadow + pb.first;
    if (pb.OneRun())
        return ShadowRunWritten(sh, pb.RunLength());
    const uint64_t R = pb.R, repStride = pb.repStride, blkStride = pb.blkStride;
    // Every shadow byte from the first block to the last one touched written: so is every touched
    // block (a superset; one memchr instead of a strided loop). Else the exact test decides.
    const uint64_t lastRel = std::max(
        R >= 2 ? (R - 2) * repStride + (pb.blocks - 1) * blkStride : 0,
        (R - 1) * repStride + (pb.lastBlocks - 1) * blkStride);
    if (ShadowRunWritten(sh, lastRel + 1))
        return true;
    for (uint64_t r = 0; r < R; ++r) {
        const uint32_t blocks = r + 1 == R ? pb.lastBlocks : pb.blocks;
        const uint8_t* s = sh + r * repStride;
        for (uint32_t b = 0; b < blocks; ++b)
            if (s[b * blkStride] == 0)
                return false;
    }
    return true;
}
// Marks the blocks of the operand's enabled elements written (the instruction's destination). The
// geometry is read into locals first: the byte stores could alias it for the compiler.
inline void PrefixMarkWritten(CoreContext& c, const PrefixBlocks& pb)
{
    uint8_t* sh = c.shadow + pb.first;
    if (pb.OneRun()) {
        std::memset(sh, 1, pb.RunLength());
        return;
    }
    const uint64_t R = pb.R, repStride = pb.repStride, blkStride = pb.blkStride;
    const uint32_t blocks = pb.blocks, lastBlocks = pb.lastBlocks;
    for (uint64_t r = 0; r < R; ++r) {
        const uint32_t n = r + 1 == R ? lastBlocks : blocks;
        uint8_t* s = sh + r * repStride;
        for (uint32_t b = 0; b < n; ++b)
            s[b * blkStride] = 1;
    }
}

template <typename T, typename F>
inline void BinaryMasked(const char *api, bool isSetMask, const MaskPlan &m, int64_t repeat, const AscendC::LocalTensor<T> &dst,
                         const AscendC::LocalTensor<T> &src0, const AscendC::LocalTensor<T> &src1,
                         const AscendC::BinaryRepeatParams &p, F f) {
    (void)isSetMask;
    auto &c = Core(api);
    const uint32_t per = 256 / sizeof(T), perBlk = 32 / sizeof(T);
    VecOperand ops[3] = {{reinterpret_cast<uint8_t *>(dst.TwinAddr()), sizeof(T), p.dstBlkStride, p.dstRepStride, dst.TwinCapacity(), "dst"},
                         {reinterpret_cast<uint8_t *>(src0.TwinAddr()), sizeof(T), p.src0BlkStride, p.src0RepStride, src0.TwinCapacity(), "src0"},
                         {reinterpret_cast<uint8_t *>(src1.TwinAddr()), sizeof(T), p.src1BlkStride, p.src1RepStride, src1.TwinCapacity(), "src1"}};
    const uint64_t R = PrepareMasked(api, c, m, repeat, ops, 3, per);
    if (R == 0) return;
    T *d = dst.TwinAddr();
    const T *a = src0.TwinAddr(), *b = src1.TwinAddr();
    uint64_t n = 0;
    if (PrefixPlan(m) && c.hz == nullptr && PrefixBlocksWritten(c, PrefixBlocks(c, m, R, per, perBlk, ops[1])) &&
        PrefixBlocksWritten(c, PrefixBlocks(c, m, R, per, perBlk, ops[2]))) {
        // Sources initialised: the same element loop as below without its per-block checks.
        const bool dense = p.dstBlkStride == 1 && p.src0BlkStride == 1 && p.src1BlkStride == 1;
        for (uint64_t r = 0; r < R; ++r) {
            const uint32_t cnt = PrefixCount(m, r, per);
            T* dr = d + r * p.dstRepStride * perBlk;
            const T *ar = a + r * p.src0RepStride * perBlk, *br = b + r * p.src1RepStride * perBlk;
            if (dense) { // the repeat's blocks are adjacent in every operand: one run, same order
                for (uint32_t k = 0; k < cnt; ++k)
                    dr[k] = static_cast<T>(f(ar[k], br[k]));
            } else {
                for (uint32_t e0 = 0, blk = 0; e0 < cnt; e0 += perBlk, ++blk) {
                    const uint32_t len = std::min(perBlk, cnt - e0);
                    T* pd = dr + blk * p.dstBlkStride * perBlk;
                    const T *pa = ar + blk * p.src0BlkStride * perBlk, *pb = br + blk * p.src1BlkStride * perBlk;
                    for (uint32_t k = 0; k < len; ++k)
                        pd[k] = static_cast<T>(f(pa[k], pb[k]));
                }
            }
            n += cnt;
        }
        PrefixMarkWritten(c, PrefixBlocks(c, m, R, per, perBlk, ops[0]));
        c.counters.vecElemOps += n;
        return;
    }
    if (PrefixPlan(m)) {
        for (uint64_t r = 0; r < R; ++r) {
            const uint32_t cnt = PrefixCount(m, r, per);
            T *dr = d + r * p.dstRepStride * perBlk;
            const T *ar = a + r * p.src0RepStride * perBlk, *br = b + r * p.src1RepStride * perBlk;
            for (uint32_t e0 = 0, blk = 0; e0 < cnt; e0 += perBlk, ++blk) {
                const uint32_t len = std::min(perBlk, cnt - e0);
                T *pd = dr + blk * p.dstBlkStride * perBlk;
                const T *pa = ar + blk * p.src0BlkStride * perBlk, *pb = br + blk * p.src1BlkStride * perBlk;
                if (!ShadowWritten(c, pa)) UbCheckRead(api, c, pa, sizeof(T));
                if (!ShadowWritten(c, pb)) UbCheckRead(api, c, pb, sizeof(T));
                for (uint32_t k = 0; k < len; ++k) pd[k] = static_cast<T>(f(pa[k], pb[k]));
                ShadowWriteElem(c, pd);
            }
            n += cnt;
        }
        c.counters.vecElemOps += n;
        return;
    }
    static thread_local MaskedLayout L;
    BuildLayout(L, m, per, ops, 3);
    for (uint64_t r = 0; r < R; ++r) {
        const uint32_t cnt = CountInRepeat(m, L, r, per);
        T *dr = d + r * p.dstRepStride * perBlk;
        const T *ar = a + r * p.src0RepStride * perBlk, *br = b + r * p.src1RepStride * perBlk;
        for (uint32_t i = 0; i < cnt; ++i) {
            const T *pa = ar + L.off[1][i], *pb = br + L.off[2][i];
            if (!ShadowWritten(c, pa)) UbCheckRead(api, c, pa, sizeof(T));
            if (!ShadowWritten(c, pb)) UbCheckRead(api, c, pb, sizeof(T));
            T *pd = dr + L.off[0][i];
            *pd = static_cast<T>(f(*pa, *pb));
            ShadowWriteElem(c, pd);
        }
        n += cnt;
    }
    c.counters.vecElemOps += n;
}

template <typename T, typename F>
inline void UnaryCount(const char *api, const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &src, int64_t count, F f) {
    auto &c = Core(api);
    if (CountNop(api, c, count)) return;
    CountOperand(api, c, src, count, "src", true);
    CountOperand(api, c, dst, count, "dst", false);
    CheckOverlap(api, dst.TwinAddr(), count * sizeof(T), src.TwinAddr(), count * sizeof(T), "src");
    T *d = dst.TwinAddr();
    const T *s = src.TwinAddr();
    for (int64_t i = 0; i < count; ++i) d[i] = static_cast<T>(f(s[i]));
    CountDone(c, dst, count);
}

template <typename T, typename F>
inline void UnaryMasked(const char *api, const MaskPlan &m, int64_t repeat, const AscendC::LocalTensor<T> &dst,
                        const AscendC::LocalTensor<T> &src, const AscendC::UnaryRepeatParams &p, F f) {
    auto &c = Core(api);
    const uint32_t per = 256 / sizeof(T), perBlk = 32 / sizeof(T);
    VecOperand ops[2] = {{reinterpret_cast<uint8_t *>(dst.TwinAddr()), sizeof(T), p.dstBlkStride, p.dstRepStride, dst.TwinCapacity(), "dst"},
                         {reinterpret_cast<uint8_t *>(src.TwinAddr()), sizeof(T), p.srcBlkStride, p.srcRepStride, src.TwinCapacity(), "src"}};
    const uint64_t R = PrepareMasked(api, c, m, repeat, ops, 2, per);
    if (R == 0) return;
    T *d = dst.TwinAddr();
    const T *s = src.TwinAddr();
    uint64_t n = 0;
    if (PrefixPlan(m) && c.hz == nullptr && PrefixBlocksWritten(c, PrefixBlocks(c, m, R, per, perBlk, ops[1]))) {
        // Source initialised: the same element loop as below without its per-block checks.
        const bool dense = p.dstBlkStride == 1 && p.srcBlkStride == 1;
        for (uint64_t r = 0; r < R; ++r) {
            const uint32_t cnt = PrefixCount(m, r, per);
            T* dr = d + r * p.dstRepStride * perBlk;
            const T* sr = s + r * p.srcRepStride * perBlk;
            if (dense) { // the repeat's blocks are adjacent in both operands: one run, same order
                for (uint32_t k = 0; k < cnt; ++k)
                    dr[k] = static_cast<T>(f(sr[k]));
            } else {
                for (uint32_t e0 = 0, blk = 0; e0 < cnt; e0 += perBlk, ++blk) {
                    const uint32_t len = std::min(perBlk, cnt - e0);
                    T* pd = dr + blk * p.dstBlkStride * perBlk;
                    const T* ps = sr + blk * p.srcBlkStride * perBlk;
                    for (uint32_t k = 0; k < len; ++k)
                        pd[k] = static_cast<T>(f(ps[k]));
                }
            }
            n += cnt;
        }
        PrefixMarkWritten(c, PrefixBlocks(c, m, R, per, perBlk, ops[0]));
        c.counters.vecElemOps += n;
        return;
    }
    if (PrefixPlan(m)) {
        for (uint64_t r = 0; r < R; ++r) {
            const uint32_t cnt = PrefixCount(m, r, per);
            T *dr = d + r * p.dstRepStride * perBlk;
            const T *sr = s + r * p.srcRepStride * perBlk;
            for (uint32_t e0 = 0, blk = 0; e0 < cnt; e0 += perBlk, ++blk) {
                const uint32_t len = std::min(perBlk, cnt - e0);
                T *pd = dr + blk * p.dstBlkStride * perBlk;
                const T *ps = sr + blk * p.srcBlkStride * perBlk;
                if (!ShadowWritten(c, ps)) UbCheckRead(api, c, ps, sizeof(T));
                for (uint32_t k = 0; k < len; ++k) pd[k] = static_cast<T>(f(ps[k]));
                ShadowWriteElem(c, pd);
            }
            n += cnt;
        }
        c.counters.vecElemOps += n;
        return;
    }
    static thread_local MaskedLayout L;
    BuildLayout(L, m, per, ops, 2);
    for (uint64_t r = 0; r < R; ++r) {
        const uint32_t cnt = CountInRepeat(m, L, r, per);
        T *dr = d + r * p.dstRepStride * perBlk;
        const T *sr = s + r * p.srcRepStride * perBlk;
        for (uint32_t i = 0; i < cnt; ++i) {
            const T *ps = sr + L.off[1][i];
            if (!ShadowWritten(c, ps)) UbCheckRead(api, c, ps, sizeof(T));
            T *pd = dr + L.off[0][i];
            *pd = static_cast<T>(f(*ps));
            ShadowWriteElem(c, pd);
        }
        n += cnt;
    }
    c.counters.vecElemOps += n;
}

template <typename T> inline float F32(T v) { return static_cast<float>(v); }
// Data-type support lists of the Atlas A2 vector instructions (API reference, "数据类型" sections).
template <typename T, typename... Ts> constexpr bool OneOf = (std::is_same<T, Ts>::value || ...);
template <typename T> constexpr bool kA2Arith = OneOf<T, int16_t, half, int32_t, float>;   // Add Sub Mul Max Min Adds Muls Maxs Mins
template <typename T> constexpr bool kA2Float = OneOf<T, half, float>;                     // Div Abs Exp Ln Sqrt Rsqrt Reciprocal
template <typename T> constexpr bool kA2Relu = OneOf<T, half, int32_t, float>;
template <typename T> constexpr bool kA2Move = OneOf<T, int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float>;   // Duplicate Gather Copy
template <typename T>
constexpr bool kA2Logic = OneOf<T, int16_t, uint16_t>; // And (And.md)
// The same lists as text, for the static_assert messages ("accepted: ...").
#define TWIN_kA2Arith_TEXT "int16_t, half, int32_t, float"
#define TWIN_kA2Float_TEXT "half, float"
#define TWIN_kA2Relu_TEXT "half, int32_t, float"
#define TWIN_kA2Move_TEXT "int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float"
#define TWIN_kA2Logic_TEXT "int16_t, uint16_t"
// Arithmetic domain of an element type: exact integers, float for floating types.
template <typename T> using ArithT = std::conditional_t<std::is_integral<T>::value, int64_t, float>;
template <typename T> inline ArithT<T> AV(T v) { return static_cast<ArithT<T>>(v); }
template <typename T> inline ArithT<T> AbsValue(T v) {
    if constexpr (std::is_integral<T>::value) return AV(v) < 0 ? -AV(v) : AV(v);
    else return std::fabs(AV(v));   // clears the sign of -0.0 and NaN like a sign-bit clear
}

}  // namespace kernel
}  // namespace twin

// Declares the count form and both mask forms of a binary instruction.
#define TWIN_BINARY_OP(NAME, EXPR, TYPES)                                                                                      \
    template <typename T>                                                                                               \
    __aicore__ inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,     \
                                const int32_t &count) {                                                                 \
        static_assert(twin::kernel::TYPES<T>, #NAME ": data type not supported on Atlas A2; accepted: " TWIN_##TYPES##_TEXT); \
        twin::kernel::BinaryCount<T>(#NAME, dst, src0, src1, count, [](T a, T b) { return EXPR; });                     \
    }                                                                                                                   \
    template <typename T, bool isSetMask = true>                                                                        \
    __aicore__ inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,     \
                                uint64_t mask, twin::kernel::RepeatTimes repeatTime, const BinaryRepeatParams &p) {     \
        static_assert(twin::kernel::TYPES<T>, #NAME ": data type not supported on Atlas A2; accepted: " TWIN_##TYPES##_TEXT); \
        auto &c = twin::kernel::Core(#NAME);                                                                            \
        auto m = twin::kernel::PlanContinuousMask(#NAME, c, isSetMask, mask, 256 / sizeof(T));                          \
        twin::kernel::BinaryMasked<T>(#NAME, isSetMask, m, repeatTime.v, dst, src0, src1, p, [](T a, T b) { return EXPR; }); \
    }                                                                                                                   \
    template <typename T, bool isSetMask = true>                                                                        \
    __aicore__ inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,     \
                                uint64_t mask[], twin::kernel::RepeatTimes repeatTime, const BinaryRepeatParams &p) {   \
        static_assert(twin::kernel::TYPES<T>, #NAME ": data type not supported on Atlas A2; accepted: " TWIN_##TYPES##_TEXT); \
        auto &c = twin::kernel::Core(#NAME);                                                                            \
        auto m = twin::kernel::PlanBitMask(#NAME, c, isSetMask, mask, 256 / sizeof(T));                                 \
        twin::kernel::BinaryMasked<T>(#NAME, isSetMask, m, repeatTime.v, dst, src0, src1, p, [](T a, T b) { return EXPR; }); \
    }

// Tensor-scalar instruction: count form + mask forms (UnaryRepeatParams).
#define TWIN_SCALAR_OP(NAME, EXPR, TYPES)                                                                                      \
    template <typename T, bool isSetMask = true>                                                                        \
    __aicore__ inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue,            \
                                const int32_t &count) {                                                                 \
        static_assert(twin::kernel::TYPES<T>, #NAME ": data type not supported on Atlas A2; accepted: " TWIN_##TYPES##_TEXT); \
        const T s = scalarValue;                                                                                        \
        twin::kernel::UnaryCount<T>(#NAME, dst, src, count, [s](T a) { return EXPR; });                                 \
    }                                                                                                                   \
    template <typename T, bool isSetMask = true>                                                                        \
    __aicore__ inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue,            \
                                uint64_t mask, twin::kernel::RepeatTimes repeatTime, const UnaryRepeatParams &p) {      \
        static_assert(twin::kernel::TYPES<T>, #NAME ": data type not supported on Atlas A2; accepted: " TWIN_##TYPES##_TEXT); \
        auto &c = twin::kernel::Core(#NAME);                                                                            \
        auto m = twin::kernel::PlanContinuousMask(#NAME, c, isSetMask, mask, 256 / sizeof(T));                          \
        const T s = scalarValue;                                                                                        \
        twin::kernel::UnaryMasked<T>(#NAME, m, repeatTime.v, dst, src, p, [s](T a) { return EXPR; });                   \
    }                                                                                                                   \
    template <typename T, bool isSetMask = true>                                                                        \
    __aicore__ inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue,            \
                                uint64_t mask[], twin::kernel::RepeatTimes repeatTime, const UnaryRepeatParams &p) {    \
        static_assert(twin::kernel::TYPES<T>, #NAME ": data type not supported on Atlas A2; accepted: " TWIN_##TYPES##_TEXT); \
        auto &c = twin::kernel::Core(#NAME);                                                                            \
        auto m = twin::kernel::PlanBitMask(#NAME, c, isSetMask, mask, 256 / sizeof(T));                                 \
        const T s = scalarValue;                                                                                        \
        twin::kernel::UnaryMasked<T>(#NAME, m, repeatTime.v, dst, src, p, [s](T a) { return EXPR; });                   \
    }

#define TWIN_UNARY_OP(NAME, EXPR, TYPES)                                                                                       \
    template <typename T>                                                                                               \
    __aicore__ inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t &count) {          \
        static_assert(twin::kernel::TYPES<T>, #NAME ": data type not supported on Atlas A2; accepted: " TWIN_##TYPES##_TEXT); \
        twin::kernel::UnaryCount<T>(#NAME, dst, src, count, [](T a) { return EXPR; });                                  \
    }                                                                                                                   \
    template <typename T, bool isSetMask = true>                                                                        \
    __aicore__ inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, uint64_t mask,                   \
                                twin::kernel::RepeatTimes repeatTime, const UnaryRepeatParams &p) {                     \
        static_assert(twin::kernel::TYPES<T>, #NAME ": data type not supported on Atlas A2; accepted: " TWIN_##TYPES##_TEXT); \
        auto &c = twin::kernel::Core(#NAME);                                                                            \
        auto m = twin::kernel::PlanContinuousMask(#NAME, c, isSetMask, mask, 256 / sizeof(T));                          \
        twin::kernel::UnaryMasked<T>(#NAME, m, repeatTime.v, dst, src, p, [](T a) { return EXPR; });                    \
    }                                                                                                                   \
    template <typename T, bool isSetMask = true>                                                                        \
    __aicore__ inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, uint64_t mask[],                 \
                                twin::kernel::RepeatTimes repeatTime, const UnaryRepeatParams &p) {                     \
        static_assert(twin::kernel::TYPES<T>, #NAME ": data type not supported on Atlas A2; accepted: " TWIN_##TYPES##_TEXT); \
        auto &c = twin::kernel::Core(#NAME);                                                                            \
        auto m = twin::kernel::PlanBitMask(#NAME, c, isSetMask, mask, 256 / sizeof(T));                                 \
        twin::kernel::UnaryMasked<T>(#NAME, m, repeatTime.v, dst, src, p, [](T a) { return EXPR; });                    \
    }

namespace AscendC {

using twin::kernel::F32;
using twin::kernel::AV;

TWIN_BINARY_OP(Add, AV(a) + AV(b), kA2Arith)
TWIN_BINARY_OP(Sub, AV(a) - AV(b), kA2Arith)
TWIN_BINARY_OP(Mul, AV(a) * AV(b), kA2Arith)
TWIN_BINARY_OP(Max, (AV(a) >= AV(b) ? a : b), kA2Arith)
TWIN_BINARY_OP(Min, (AV(a) <= AV(b) ? a : b), kA2Arith)
TWIN_BINARY_OP(And, static_cast<T>(a& b), kA2Logic)

template <typename T>
__aicore__ inline void Div(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, const int32_t &count) {
    static_assert(std::is_same<T, float>::value || std::is_same<T, half>::value, "Div supports half and float");
    twin::kernel::BinaryCount<T>("Div", dst, src0, src1, count, [](T a, T b) { return F32(a) / F32(b); });
}
template <typename T, bool isSetMask = true>
__aicore__ inline void Div(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, uint64_t mask,
                           twin::kernel::RepeatTimes repeatTime, const BinaryRepeatParams &p) {
    static_assert(std::is_same<T, float>::value || std::is_same<T, half>::value, "Div supports half and float");
    auto &c = twin::kernel::Core("Div");
    auto m = twin::kernel::PlanContinuousMask("Div", c, isSetMask, mask, 256 / sizeof(T));
    twin::kernel::BinaryMasked<T>("Div", isSetMask, m, repeatTime.v, dst, src0, src1, p, [](T a, T b) { return F32(a) / F32(b); });
}
template <typename T, bool isSetMask = true>
__aicore__ inline void Div(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, uint64_t mask[],
                           twin::kernel::RepeatTimes repeatTime, const BinaryRepeatParams &p) {
    static_assert(std::is_same<T, float>::value || std::is_same<T, half>::value, "Div supports half and float");
    auto &c = twin::kernel::Core("Div");
    auto m = twin::kernel::PlanBitMask("Div", c, isSetMask, mask, 256 / sizeof(T));
    twin::kernel::BinaryMasked<T>("Div", isSetMask, m, repeatTime.v, dst, src0, src1, p, [](T a, T b) { return F32(a) / F32(b); });
}

TWIN_SCALAR_OP(Adds, AV(a) + AV(s), kA2Arith)
TWIN_SCALAR_OP(Muls, AV(a) * AV(s), kA2Arith)
TWIN_SCALAR_OP(Maxs, (AV(a) >= AV(s) ? a : s), kA2Arith)
TWIN_SCALAR_OP(Mins, (AV(a) <= AV(s) ? a : s), kA2Arith)

TWIN_UNARY_OP(Abs, twin::kernel::AbsValue(a), kA2Float)
TWIN_UNARY_OP(Relu, (AV(a) > 0 ? a : static_cast<T>(0)), kA2Relu)
TWIN_UNARY_OP(Exp, std::exp(F32(a)), kA2Float)
TWIN_UNARY_OP(Ln, std::log(F32(a)), kA2Float)
TWIN_UNARY_OP(Sqrt, std::sqrt(F32(a)), kA2Float)
TWIN_UNARY_OP(Rsqrt, 1.0f / std::sqrt(F32(a)), kA2Float)
TWIN_UNARY_OP(Reciprocal, 1.0f / F32(a), kA2Float)

// ---- Duplicate -------------------------------------------------------------------------------
template <typename T>
__aicore__ inline void Duplicate(const LocalTensor<T> &dst, const T &scalarValue, const int32_t &count) {
    static_assert(twin::kernel::kA2Move<T>, "Duplicate: data type not supported on Atlas A2; accepted: " TWIN_kA2Move_TEXT);
    const char *api = "Duplicate";
    auto &c = twin::kernel::Core(api);
    if (twin::kernel::CountNop(api, c, count)) return;
    twin::kernel::CountOperand(api, c, dst, count, "dst", false);
    T *d = dst.TwinAddr();
    for (int32_t i = 0; i < count; ++i) d[i] = scalarValue;
    twin::kernel::CountDone(c, dst, count);
}

namespace twin_detail {
template <typename T>
inline void DuplicateMasked(const char *api, const twin::kernel::MaskPlan &m, int64_t repeat, const LocalTensor<T> &dst, T v,
                            uint16_t blk, uint8_t rep) {
    static_assert(twin::kernel::kA2Move<T>, "Duplicate: data type not supported on Atlas A2; accepted: " TWIN_kA2Move_TEXT);
    auto &c = twin::kernel::Core(api);
    const uint32_t per = 256 / sizeof(T);
    twin::kernel::VecOperand ops[1] = {{reinterpret_cast<uint8_t *>(dst.TwinAddr()), sizeof(T), blk, rep, dst.TwinCapacity(), "dst"}};
    const uint64_t R = twin::kernel::PrepareMasked(api, c, m, repeat, ops, 1, per);
    if (R == 0) return;
    uint64_t n = 0;
    twin::kernel::ForEachMasked(m, R, per, [&](uint64_t r, uint32_t e) {
        T *pd = dst.TwinAddr() + twin::kernel::ElemOffset(ops[0], r, e);
        *pd = v;
        twin::kernel::ShadowWriteElem(c, pd);
        ++n;
    });
    c.counters.vecElemOps += n;
}
}  // namespace twin_detail

template <typename T, bool isSetMask = true>
__aicore__ inline void Duplicate(const LocalTensor<T> &dst, const T &scalarValue, uint64_t mask, twin::kernel::RepeatTimes repeatTime,
                                 const uint16_t dstBlockStride, const uint8_t dstRepeatStride) {
    auto &c = twin::kernel::Core("Duplicate");
    auto m = twin::kernel::PlanContinuousMask("Duplicate", c, isSetMask, mask, 256 / sizeof(T));
    twin_detail::DuplicateMasked("Duplicate", m, repeatTime.v, dst, scalarValue, dstBlockStride, dstRepeatStride);
}
template <typename T, bool isSetMask = true>
__aicore__ inline void Duplicate(const LocalTensor<T> &dst, const T &scalarValue, uint64_t mask[], twin::kernel::RepeatTimes repeatTime,
                                 const uint16_t dstBlockStride, const uint8_t dstRepeatStride) {
    auto &c = twin::kernel::Core("Duplicate");
    auto m = twin::kernel::PlanBitMask("Duplicate", c, isSetMask, mask, 256 / sizeof(T));
    twin_detail::DuplicateMasked("Duplicate", m, repeatTime.v, dst, scalarValue, dstBlockStride, dstRepeatStride);
}

// ---- Axpy: dst = src * scalar + dst (product and sum each rounded to T) ----------------------
template <typename T, typename U>
__aicore__ inline void Axpy(const LocalTensor<T> &dst, const LocalTensor<U> &src, const U &scalarValue, const int32_t &count) {
    static_assert((std::is_same<T, U>::value && twin::kernel::kA2Float<T>) || (std::is_same<T, float>::value && std::is_same<U, half>::value),
                  "Axpy: Atlas A2 supports half/half, float/float and float dst with half src");
    const char *api = "Axpy";
    auto &c = twin::kernel::Core(api);
    if (twin::kernel::CountNop(api, c, count)) return;
    twin::kernel::CountOperand(api, c, src, count, "src", true);
    twin::kernel::CountOperand(api, c, dst, count, "dst", true);
    twin::kernel::CheckOverlap(api, dst.TwinAddr(), count * sizeof(T), src.TwinAddr(), count * sizeof(U), "src");
    T *d = dst.TwinAddr();
    const U *s = src.TwinAddr();
    const float k = F32(scalarValue);
    for (int32_t i = 0; i < count; ++i) {
        const T prod = static_cast<T>(F32(s[i]) * k);
        d[i] = static_cast<T>(F32(prod) + F32(d[i]));
    }
    twin::kernel::CountDone(c, dst, count);
}

// ---- Copy (UB -> UB vector copy) ---------------------------------------------------------------
template <typename T>
__aicore__ inline void Copy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t count) {
    twin::kernel::UnaryCount<T>("Copy", dst, src, count, [](T a) { return a; });
}
template <typename T, bool isSetMask = true>
__aicore__ inline void Copy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask, twin::kernel::RepeatTimes repeatTime,
                            const CopyRepeatParams &p) {
    auto &c = twin::kernel::Core("Copy");
    auto m = twin::kernel::PlanContinuousMask("Copy", c, isSetMask, mask, 256 / sizeof(T));
    UnaryRepeatParams u(p.dstStride, p.srcStride, static_cast<uint8_t>(p.dstRepeatSize), static_cast<uint8_t>(p.srcRepeatSize));
    twin::kernel::UnaryMasked<T>("Copy", m, repeatTime.v, dst, src, u, [](T a) { return a; });
}
template <typename T, bool isSetMask = true>
__aicore__ inline void Copy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[], twin::kernel::RepeatTimes repeatTime,
                            const CopyRepeatParams &p) {
    auto &c = twin::kernel::Core("Copy");
    auto m = twin::kernel::PlanBitMask("Copy", c, isSetMask, mask, 256 / sizeof(T));
    UnaryRepeatParams u(p.dstStride, p.srcStride, static_cast<uint8_t>(p.dstRepeatSize), static_cast<uint8_t>(p.srcRepeatSize));
    twin::kernel::UnaryMasked<T>("Copy", m, repeatTime.v, dst, src, u, [](T a) { return a; });
}

}  // namespace AscendC
