// half (IEEE binary16) and bfloat16_t as real 16-bit storage types for the twin.
// Invariants: sizeof == 2, trivially copyable; conversion from float rounds to nearest, ties to
// even (the chip's default, and CAST_RINT); conversion to float is exact. Arithmetic happens in
// float (an expression like a + b is a float; assigning it back rounds once, RNE) — for + - * /
// of two 16-bit values this equals the correctly rounded 16-bit result.
// Directed roundings used by Cast live in twin/kernel/rounding.h.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace twin {
namespace fp {

enum class Round : uint8_t { NearestEven, Floor, Ceil, AwayFromZero, TowardZero, Odd };

inline uint32_t FloatBits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float BitsFloat(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

// Decides whether to add one ulp to a truncated magnitude. rem/halfway describe the dropped bits
// (rem < 2*halfway); neg is the sign of the value; lsbOdd is the lowest kept bit.
inline bool RoundUp(Round r, bool neg, bool lsbOdd, uint64_t rem, uint64_t halfway, bool inexact) {
    switch (r) {
    case Round::NearestEven: return rem > halfway || (rem == halfway && inexact && lsbOdd);
    case Round::AwayFromZero: return inexact && rem >= halfway;
    case Round::TowardZero: return false;
    case Round::Floor: return neg && inexact;
    case Round::Ceil: return !neg && inexact;
    case Round::Odd: return false;   // handled by caller (sets lsb)
    }
    return false;
}

// Overflow result for a format whose largest finite magnitude bits are maxFinite and inf bits inf.
inline uint32_t OverflowBits(Round r, bool neg, uint32_t maxFinite, uint32_t inf) {
    switch (r) {
    case Round::NearestEven: case Round::AwayFromZero: return inf;
    case Round::TowardZero: case Round::Odd: return maxFinite;
    case Round::Floor: return neg ? inf : maxFinite;
    case Round::Ceil: return neg ? maxFinite : inf;
    }
    return inf;
}

inline uint16_t FloatToHalfBits(float f, Round r = Round::NearestEven) {
    const uint32_t u = FloatBits(f);
    const bool neg = (u >> 31) != 0;
    const uint16_t sign = neg ? 0x8000 : 0;
    const uint32_t expField = (u >> 23) & 0xff;
    const uint32_t man = u & 0x7fffff;
    if (expField == 0xff) return static_cast<uint16_t>(sign | (man ? 0x7e00 : 0x7c00));
    if (expField == 0 && man == 0) return sign;
    int e = expField ? static_cast<int>(expField) - 127 : -126;
    uint64_t m = expField ? (man | 0x800000u) : man;          // value = m * 2^(e-23)
    int shift = 13 + (e < -14 ? (-14 - e) : 0);                // bits dropped to reach 10-bit mantissa
    uint64_t q, rem, halfway;
    if (shift >= 40) { q = 0; rem = m; halfway = ~0ull; if (m == 0) halfway = 1; }
    else { q = m >> shift; rem = m & ((1ull << shift) - 1); halfway = 1ull << (shift - 1); }
    const bool inexact = rem != 0;
    if (r == Round::Odd) { if (inexact) q |= 1; }
    else if (RoundUp(r, neg, (q & 1) != 0, rem, halfway, inexact)) q += 1;
    uint32_t bits;
    if (e < -14) bits = static_cast<uint32_t>(q);              // subnormal (carry into exponent is fine)
    else bits = (static_cast<uint32_t>(e + 15) << 10) + static_cast<uint32_t>(q - 0x400);
    if (e > 15 || bits >= 0x7c00) bits = OverflowBits(r, neg, 0x7bff, 0x7c00);
    return static_cast<uint16_t>(sign | bits);
}

inline float HalfBitsToFloat(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
    const uint32_t e = (h >> 10) & 0x1f;
    uint32_t m = h & 0x3ff;
    if (e == 0x1f) return BitsFloat(sign | 0x7f800000u | (m << 13));
    if (e == 0) {
        if (m == 0) return BitsFloat(sign);
        int ee = -14;
        while ((m & 0x400) == 0) { m <<= 1; --ee; }
        m &= 0x3ff;
        return BitsFloat(sign | (static_cast<uint32_t>(ee + 127) << 23) | (m << 13));
    }
    return BitsFloat(sign | ((e - 15 + 127) << 23) | (m << 13));
}

inline uint16_t FloatToBf16Bits(float f, Round r = Round::NearestEven) {
    const uint32_t u = FloatBits(f);
    const bool neg = (u >> 31) != 0;
    const uint32_t sign = u & 0x80000000u;
    const uint32_t mag = u & 0x7fffffffu;
    if (mag > 0x7f800000u) return static_cast<uint16_t>((sign >> 16) | 0x7fc0);   // NaN -> quiet
    if (mag == 0x7f800000u) return static_cast<uint16_t>((sign | mag) >> 16);
    uint32_t q = mag >> 16;
    const uint32_t rem = mag & 0xffff;
    const bool inexact = rem != 0;
    if (r == Round::Odd) { if (inexact) q |= 1; }
    else if (RoundUp(r, neg, (q & 1) != 0, rem, 0x8000, inexact)) q += 1;
    if (q >= 0x7f80) q = OverflowBits(r, neg, 0x7f7f, 0x7f80);
    return static_cast<uint16_t>((sign >> 16) | q);
}

inline float Bf16BitsToFloat(uint16_t b) { return BitsFloat(static_cast<uint32_t>(b) << 16); }

}  // namespace fp
}  // namespace twin

// Global-namespace storage types, like the CCE builtins `half` and `bfloat16_t`.
struct half {
    uint16_t bits;
    half() = default;
    template <typename A, typename = std::enable_if_t<std::is_arithmetic<A>::value>>
    half(A v) : bits(twin::fp::FloatToHalfBits(static_cast<float>(v))) {}  // NOLINT: implicit like the builtin
    operator float() const { return twin::fp::HalfBitsToFloat(bits); }
    static half FromBits(uint16_t b) { half h; h.bits = b; return h; }
    half &operator+=(float v) { *this = half(float(*this) + v); return *this; }
    half &operator-=(float v) { *this = half(float(*this) - v); return *this; }
    half &operator*=(float v) { *this = half(float(*this) * v); return *this; }
    half &operator/=(float v) { *this = half(float(*this) / v); return *this; }
    half operator-() const { return FromBits(static_cast<uint16_t>(bits ^ 0x8000)); }
};

struct bfloat16_t {
    uint16_t bits;
    bfloat16_t() = default;
    template <typename A, typename = std::enable_if_t<std::is_arithmetic<A>::value>>
    bfloat16_t(A v) : bits(twin::fp::FloatToBf16Bits(static_cast<float>(v))) {}  // NOLINT
    operator float() const { return twin::fp::Bf16BitsToFloat(bits); }
    static bfloat16_t FromBits(uint16_t b) { bfloat16_t h; h.bits = b; return h; }
    bfloat16_t &operator+=(float v) { *this = bfloat16_t(float(*this) + v); return *this; }
    bfloat16_t &operator-=(float v) { *this = bfloat16_t(float(*this) - v); return *this; }
    bfloat16_t &operator*=(float v) { *this = bfloat16_t(float(*this) * v); return *this; }
    bfloat16_t operator-() const { return FromBits(static_cast<uint16_t>(bits ^ 0x8000)); }
};

static_assert(sizeof(half) == 2 && std::is_trivially_copyable<half>::value, "half must be 16-bit POD");
static_assert(sizeof(bfloat16_t) == 2 && std::is_trivially_copyable<bfloat16_t>::value, "bf16 must be 16-bit POD");
