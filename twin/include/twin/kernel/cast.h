// Cast of the twin (ASC-API Memory矢量计算/类型转换/Cast.md, Atlas A2 table). RoundMode semantics:
// CAST_RINT nearest-even, CAST_FLOOR, CAST_CEIL, CAST_ROUND nearest-away-from-zero, CAST_TRUNC toward
// zero, CAST_ODD round-to-odd, CAST_NONE = the pair's default (RNE where rounding is needed).
// Pairs/modes outside the A2 table are violations. Float -> integer saturates, NaN -> 0
// (chip behaviour for out-of-range/NaN is UNCONFIRMED).
#pragma once
#include <cmath>
#include <limits>
#include "twin/kernel/vec_engine.h"

namespace twin {
namespace kernel {

enum : uint32_t {
    kRmNone = 1u << 0, kRmRint = 1u << 1, kRmFloor = 1u << 2, kRmCeil = 1u << 3, kRmRound = 1u << 4,
    kRmTrunc = 1u << 5, kRmOdd = 1u << 6,
    kRm5 = kRmRint | kRmFloor | kRmCeil | kRmRound | kRmTrunc,
};

template <typename D, typename S> constexpr uint32_t CastModesA2() {
    using std::is_same;
#define TWIN_PAIR(d, s) (is_same<D, d>::value && is_same<S, s>::value)
    return TWIN_PAIR(float, half) ? kRmNone
         : TWIN_PAIR(float, bfloat16_t) ? kRmNone
         : TWIN_PAIR(half, float) ? (kRm5 | kRmOdd | kRmNone)
         : TWIN_PAIR(bfloat16_t, float) ? kRm5
         : TWIN_PAIR(int32_t, float) ? kRm5
         : TWIN_PAIR(float, float) ? kRm5
         : TWIN_PAIR(int16_t, float) ? kRm5
         : TWIN_PAIR(int64_t, float) ? kRm5
         : TWIN_PAIR(float, int32_t) ? (kRm5 | kRmNone)
         : TWIN_PAIR(int32_t, half) ? kRm5
         : TWIN_PAIR(int32_t, bfloat16_t) ? kRm5
         : TWIN_PAIR(half, int16_t) ? (kRm5 | kRmNone)
         : TWIN_PAIR(float, int16_t) ? kRmNone
         : TWIN_PAIR(int16_t, half) ? kRm5
         : TWIN_PAIR(int8_t, half) ? (kRm5 | kRmNone)
         : TWIN_PAIR(uint8_t, half) ? (kRm5 | kRmNone)
         : TWIN_PAIR(half, int8_t) ? kRmNone
         : TWIN_PAIR(half, uint8_t) ? kRmNone
         : TWIN_PAIR(int64_t, int32_t) ? kRmNone
         : TWIN_PAIR(int32_t, int64_t) ? kRmNone
         : TWIN_PAIR(int16_t, int32_t) ? kRmNone
         : TWIN_PAIR(float, int64_t) ? kRm5
         : 0u;
#undef TWIN_PAIR
}

inline const char *RoundModeName(AscendC::RoundMode m) {
    static const char *names[] = {"CAST_NONE", "CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC", "CAST_ODD", "CAST_HYBRID"};
    const unsigned i = static_cast<unsigned>(m);
    return i < 8 ? names[i] : "?";
}

inline fp::Round ToFpRound(AscendC::RoundMode m) {
    switch (m) {
    case AscendC::RoundMode::CAST_FLOOR: return fp::Round::Floor;
    case AscendC::RoundMode::CAST_CEIL: return fp::Round::Ceil;
    case AscendC::RoundMode::CAST_ROUND: return fp::Round::AwayFromZero;
    case AscendC::RoundMode::CAST_TRUNC: return fp::Round::TowardZero;
    case AscendC::RoundMode::CAST_ODD: return fp::Round::Odd;
    default: return fp::Round::NearestEven;
    }
}

inline double RoundIntegral(double v, fp::Round r) {
    switch (r) {
    case fp::Round::Floor: return std::floor(v);
    case fp::Round::Ceil: return std::ceil(v);
    case fp::Round::AwayFromZero: return std::round(v);
    case fp::Round::TowardZero: return std::trunc(v);
    default: return std::nearbyint(v);   // default FP environment: nearest-even
    }
}

inline bool FloatBitsOdd(float f) { return (fp::FloatBits(f) & 1u) != 0; }

// double -> float with a directed rounding (exact double input, e.g. from an integer).
inline float DoubleToFloat(double v, fp::Round r) {
    float f = static_cast<float>(v);   // RNE
    if (r == fp::Round::NearestEven || static_cast<double>(f) == v) return f;
    const float down = static_cast<double>(f) > v ? std::nextafter(f, -INFINITY) : f;
    const float up = static_cast<double>(f) < v ? std::nextafter(f, INFINITY) : f;
    switch (r) {
    case fp::Round::Floor: return down;
    case fp::Round::Ceil: return up;
    case fp::Round::TowardZero: return v < 0 ? up : down;
    case fp::Round::AwayFromZero: {
        const double dd = v - down, du = up - v;
        if (dd < du) return down;
        if (du < dd) return up;
        return v < 0 ? down : up;
    }
    case fp::Round::Odd: return (FloatBitsOdd(down) ? down : up);
    default: return f;
    }
}

template <typename D>
inline D SaturateToInt(double v) {
    if (std::isnan(v)) return 0;
    if (v <= static_cast<double>(std::numeric_limits<D>::lowest())) return std::numeric_limits<D>::lowest();
    if (v >= static_cast<double>(std::numeric_limits<D>::max())) return std::numeric_limits<D>::max();
    return static_cast<D>(v);
}

template <typename D, typename S>
inline D CastElem(S s, fp::Round r) {
    if constexpr (std::is_same<D, half>::value) {
        return half::FromBits(fp::FloatToHalfBits(static_cast<float>(s), r));   // int sources fit float exactly
    } else if constexpr (std::is_same<D, bfloat16_t>::value) {
        return bfloat16_t::FromBits(fp::FloatToBf16Bits(static_cast<float>(s), r));
    } else if constexpr (std::is_same<D, float>::value) {
        if constexpr (std::is_integral<S>::value) return DoubleToFloat(static_cast<double>(s), r);
        else if constexpr (std::is_same<S, float>::value) return static_cast<float>(RoundIntegral(s, r));
        else return static_cast<float>(s);
    } else {   // integer destination
        if constexpr (std::is_integral<S>::value) return static_cast<D>(s);
        else return SaturateToInt<D>(RoundIntegral(static_cast<double>(static_cast<float>(s)), r));
    }
}

// d[i] = CastElem(s[i], r) for i < n, with r a template argument in the loop (same values).
template <typename D, typename S, fp::Round R>
inline void CastRun(D* d, const S* s, uint32_t n)
{
    for (uint32_t i = 0; i < n; ++i)
        d[i] = CastElem<D, S>(s[i], R);
}
template <typename D, typename S>
inline void CastRun(D* d, const S* s, uint32_t n, fp::Round r)
{
    switch (r) {
        case fp::Round::NearestEven:
            CastRun<D, S, fp::Round::NearestEven>(d, s, n);
            break;
        case fp::Round::Floor:
            CastRun<D, S, fp::Round::Floor>(d, s, n);
            break;
        case fp::Round::Ceil:
            CastRun<D, S, fp::Round::Ceil>(d, s, n);
            break;
        case fp::Round::AwayFromZero:
            CastRun<D, S, fp::Round::AwayFromZero>(d, s, n);
            break;
        case fp::Round::TowardZero:
            CastRun<D, S, fp::Round::TowardZero>(d, s, n);
            break;
        default:
            for (uint32_t i = 0; i < n; ++i)
                d[i] = CastElem<D, S>(s[i], r);
            break;
    }
}

template <typename D, typename S>
inline fp::Round CheckCastMode(const char *api, AscendC::RoundMode mode) {
    constexpr uint32_t allowed = CastModesA2<D, S>();
    if (allowed == 0)
        Violation(api, std::string("conversion ") + TypeName<S>() + " -> " + TypeName<D>() + " is not supported on Atlas A2 (or not modelled by the twin)");
    const unsigned mi = static_cast<unsigned>(mode);
    if (mi > 6 || (allowed & (1u << mi)) == 0)
        Violation(api, std::string("round mode ") + RoundModeName(mode) + " is not supported for " + TypeName<S>() + " -> " +
                           TypeName<D>() + " on Atlas A2");
    return ToFpRound(mode);
}

}  // namespace kernel
}  // namespace twin

namespace AscendC {

template <typename T, typename U>
__aicore__ inline void Cast(const LocalTensor<T> &dst, const LocalTensor<U> &src, const RoundMode &roundMode, const uint32_t count) {
    const char *api = "Cast";
    auto &c = twin::kernel::Core(api);
    const twin::fp::Round r = twin::kernel::CheckCastMode<T, U>(api, roundMode);
    if (twin::kernel::CountNop(api, c, count)) return;
    twin::kernel::CountOperand(api, c, src, count, "src", true);
    twin::kernel::CountOperand(api, c, dst, count, "dst", false);
    if (sizeof(T) == sizeof(U)) {
        twin::kernel::CheckOverlap(api, dst.TwinAddr(), uint64_t(count) * sizeof(T), src.TwinAddr(), uint64_t(count) * sizeof(U), "src");
    } else if (reinterpret_cast<const uint8_t *>(dst.TwinAddr()) < reinterpret_cast<const uint8_t *>(src.TwinAddr()) + uint64_t(count) * sizeof(U) &&
               reinterpret_cast<const uint8_t *>(src.TwinAddr()) < reinterpret_cast<const uint8_t *>(dst.TwinAddr()) + uint64_t(count) * sizeof(T)) {
        twin::kernel::Violation(api, "dst and src overlap in a width-changing Cast (only a 100% overlap of equal-size operands is allowed)");
    }
    T *d = dst.TwinAddr();
    const U *s = src.TwinAddr();
    twin::kernel::CastRun<T, U>(d, s, count, r);
    twin::kernel::CountDone(c, dst, count, sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U));
}

namespace twin_detail {
template <typename T, typename U>
inline void CastMasked(const char *api, const twin::kernel::MaskPlan &m, int64_t repeat, const LocalTensor<T> &dst,
                       const LocalTensor<U> &src, twin::fp::Round r, const UnaryRepeatParams &p) {
    auto &c = twin::kernel::Core(api);
    const uint32_t per = 256 / (sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U));
    twin::kernel::VecOperand ops[2] = {{reinterpret_cast<uint8_t *>(dst.TwinAddr()), sizeof(T), p.dstBlkStride, p.dstRepStride, dst.TwinCapacity(), "dst"},
                                       {reinterpret_cast<uint8_t *>(src.TwinAddr()), sizeof(U), p.srcBlkStride, p.srcRepStride, src.TwinCapacity(), "src"}};
    const uint64_t R = twin::kernel::PrepareMasked(api, c, m, repeat, ops, 2, per);
    if (R == 0) return;
    uint64_t n = 0;
    twin::kernel::ForEachMasked(m, R, per, [&](uint64_t rr, uint32_t e) {
        const U *ps = src.TwinAddr() + twin::kernel::ElemOffset(ops[1], rr, e);
        T *pd = dst.TwinAddr() + twin::kernel::ElemOffset(ops[0], rr, e);
        twin::kernel::UbCheckRead(api, c, ps, sizeof(U));
        *pd = twin::kernel::CastElem<T, U>(*ps, r);
        twin::kernel::ShadowWriteElem(c, pd);
        ++n;
    });
    c.counters.vecElemOps += n;
}
}  // namespace twin_detail

template <typename T, typename U, bool isSetMask = true>
__aicore__ inline void Cast(const LocalTensor<T> &dst, const LocalTensor<U> &src, const RoundMode &roundMode, const uint64_t mask,
                            twin::kernel::RepeatTimes repeatTime, const UnaryRepeatParams &p) {
    auto &c = twin::kernel::Core("Cast");
    const twin::fp::Round r = twin::kernel::CheckCastMode<T, U>("Cast", roundMode);
    auto m = twin::kernel::PlanContinuousMask("Cast", c, isSetMask, mask, 256 / (sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U)));
    twin_detail::CastMasked("Cast", m, repeatTime.v, dst, src, r, p);
}
template <typename T, typename U, bool isSetMask = true>
__aicore__ inline void Cast(const LocalTensor<T> &dst, const LocalTensor<U> &src, const RoundMode &roundMode, const uint64_t mask[],
                            twin::kernel::RepeatTimes repeatTime, const UnaryRepeatParams &p) {
    auto &c = twin::kernel::Core("Cast");
    const twin::fp::Round r = twin::kernel::CheckCastMode<T, U>("Cast", roundMode);
    auto m = twin::kernel::PlanBitMask("Cast", c, isSetMask, mask, 256 / (sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U)));
    twin_detail::CastMasked("Cast", m, repeatTime.v, dst, src, r, p);
}

}  // namespace AscendC
