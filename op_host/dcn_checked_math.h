// Overflow-checked arithmetic for sizes derived from caller-supplied shapes and attributes.
// Every function returns false when the exact result does not fit the result type (the output is then
// unspecified); callers turn that into a 161002 naming the tensor or a failed tiling. Header-only,
// no CANN dependency (the Python binding compiles the check code directly).
#ifndef DCN_CHECKED_MATH_H
#define DCN_CHECKED_MATH_H

#include <cstdint>
#include <initializer_list>
#include <vector>

namespace dcn {

inline bool CheckedMul(int64_t a, int64_t b, int64_t *out) { return !__builtin_mul_overflow(a, b, out); }
inline bool CheckedAdd(int64_t a, int64_t b, int64_t *out) { return !__builtin_add_overflow(a, b, out); }
inline bool CheckedMul(uint64_t a, uint64_t b, uint64_t *out) { return !__builtin_mul_overflow(a, b, out); }
inline bool CheckedAdd(uint64_t a, uint64_t b, uint64_t *out) { return !__builtin_add_overflow(a, b, out); }

// Product of non-negative factors (e.g. the dims of a shape); false if any factor is negative or the
// product overflows int64.
inline bool CheckedProduct(const std::vector<int64_t> &factors, int64_t *out)
{
    int64_t p = 1;
    for (int64_t f : factors) {
        if (f < 0 || !CheckedMul(p, f, &p)) {
            return false;
        }
    }
    *out = p;
    return true;
}
inline bool CheckedProduct(std::initializer_list<int64_t> factors, int64_t *out)
{
    return CheckedProduct(std::vector<int64_t>(factors), out);
}

// Byte size of a workspace region: product of non-negative int64 factors as uint64; false on a
// negative factor or overflow.
inline bool CheckedBytes(std::initializer_list<int64_t> factors, uint64_t *out)
{
    uint64_t p = 1;
    for (int64_t f : factors) {
        if (f < 0 || !CheckedMul(p, static_cast<uint64_t>(f), &p)) {
            return false;
        }
    }
    *out = p;
    return true;
}

// v rounded up to a multiple of align (> 0); false on overflow.
inline bool CheckedAlignUp(uint64_t v, uint64_t align, uint64_t *out)
{
    uint64_t t = 0;
    if (align == 0 || !CheckedAdd(v, align - 1, &t)) {
        return false;
    }
    *out = t / align * align;
    return true;
}

}  // namespace dcn

#endif  // DCN_CHECKED_MATH_H
