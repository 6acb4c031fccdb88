// Compare / CompareScalar / Select (count forms) of the twin (ASC-API 比较与选择), with exactly the
// count-form overloads CANN 8.1.RC1 declares (interface/kernel_operator_vec_cmpsel_intf.h):
//   Compare<T, U>(dst, src0, src1 tensor, CMPMODE, uint32_t calCount)
//   CompareScalar<T, U>(dst, src0, const T src1Scalar, CMPMODE, uint32_t calCount)
//   Select<T, U>(dst, selMask, src0, src1 tensor, SELMODE, uint32_t calCount)      "select mode: 0/1/2"
//   Select<T, U>(dst, selMask, src0, T src1 scalar, SELMODE, uint32_t calCount)    "select mode: 1"
// (the scalar-src1 Select is defined for dav_c220 in impl/dav_c220/kernel_operator_vec_cmpsel_impl.h,
// VselImpl(..., T src1, SELMODE, uint32_t)). The mask/repeat forms are not provided.
// Compare/CompareScalar write one bit per element into a uint8_t tensor, element i -> bit (i % 8)
// of byte i / 8 (LSB first); count*sizeof(T) is rounded down to 256 B like the chip ("未对齐部分元素
// 不参与计算"). Select picks src0 where the selMask bit is 1, else src1 (tensor or scalar);
// VSEL_CMPMASK_SPR reuses the first 256/sizeof(T) bits for every 256-B chunk.
#pragma once
#include "twin/kernel/vec_engine.h"

namespace twin {
namespace kernel {

template <typename T>
inline bool CmpEval(AscendC::CMPMODE m, T a, T b) {
    using A = std::conditional_t<std::is_integral<T>::value, int64_t, float>;
    const A x = static_cast<A>(a), y = static_cast<A>(b);
    switch (m) {
    case AscendC::CMPMODE::LT: return x < y;
    case AscendC::CMPMODE::GT: return x > y;
    case AscendC::CMPMODE::EQ: return x == y;
    case AscendC::CMPMODE::LE: return x <= y;
    case AscendC::CMPMODE::GE: return x >= y;
    case AscendC::CMPMODE::NE: return x != y;
    }
    return false;
}

// Bits of n elements (n % 8 == 0) into whole bytes: bit k of d[i / 8] = cmp(a[i], b ? b[i] : scalar).
template <typename T, typename Cmp>
inline void CompareBytes(uint8_t* d, const T* a, const T* b, T scalar, uint32_t n, Cmp cmp)
{
    using A = std::conditional_t<std::is_integral<T>::value, int64_t, float>;
    for (uint32_t i0 = 0; i0 < n; i0 += 8) {
        uint32_t byte = 0;
        for (uint32_t k = 0; k < 8; ++k)
            byte |= static_cast<uint32_t>(cmp(static_cast<A>(a[i0 + k]), static_cast<A>(b ? b[i0 + k] : scalar))) << k;
        d[i0 / 8] = static_cast<uint8_t>(byte);
    }
}

// src1 = b (tensor) or, when b is nullptr, the scalar.
template <typename T, typename U>
inline void CompareCount(
    const char* api, const AscendC::LocalTensor<U>& dst, const AscendC::LocalTensor<T>& src0, const T* b, T scalar,
    AscendC::CMPMODE mode, uint32_t count)
{
    static_assert(std::is_same<U, uint8_t>::value || std::is_same<U, int8_t>::value, "Compare dst must be uint8_t/int8_t");
    auto &c = Core(api);
    if (CountNop(api, c, count)) return;
    const uint32_t n = static_cast<uint32_t>(uint64_t(count) * sizeof(T) / 256 * 256 / sizeof(T));
    if (n == 0) return;
    CountOperand(api, c, src0, n, "src0", true);
    CheckUbAligned(api, c, dst.TwinAddr(), "dst");
    CheckLocalRange(api, c, dst, (n + 7) / 8, "dst");
    uint8_t* d = reinterpret_cast<uint8_t*>(dst.TwinAddr());
    const T *a = src0.TwinAddr();
    const auto overlaps = [&](const T* p) {
        return p != nullptr && d < reinterpret_cast<const uint8_t*>(p + n) &&
               reinterpret_cast<const uint8_t*>(p) < d + (n + 7) / 8;
    };
    if (!overlaps(a) && !overlaps(b)) {
        // n is a whole number of 256-B repeats (a multiple of 8): every byte of d gets 8 bits at once,
        // with the comparison chosen once per instruction. The same bits as the loop below.
        switch (mode) {
            case AscendC::CMPMODE::LT:
                CompareBytes(d, a, b, scalar, n, [](auto x, auto y) { return x < y; });
                break;
            case AscendC::CMPMODE::GT:
                CompareBytes(d, a, b, scalar, n, [](auto x, auto y) { return x > y; });
                break;
            case AscendC::CMPMODE::EQ:
                CompareBytes(d, a, b, scalar, n, [](auto x, auto y) { return x == y; });
                break;
            case AscendC::CMPMODE::LE:
                CompareBytes(d, a, b, scalar, n, [](auto x, auto y) { return x <= y; });
                break;
            case AscendC::CMPMODE::GE:
                CompareBytes(d, a, b, scalar, n, [](auto x, auto y) { return x >= y; });
                break;
            case AscendC::CMPMODE::NE:
                CompareBytes(d, a, b, scalar, n, [](auto x, auto y) { return x != y; });
                break;
            default:
                std::memset(d, 0, (n + 7) / 8);
                break; // CmpEval: false
        }
    } else { // dst shares memory with a source: element order as written
        std::memset(d, 0, (n + 7) / 8);
        for (uint32_t i = 0; i < n; ++i)
            if (CmpEval<T>(mode, a[i], b ? b[i] : scalar))
                d[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
    }
    UbMarkWritten(c, d, (n + 7) / 8);
    c.counters.vecElemOps += n;
    c.counters.vecInstrs += uint64_t(n) * sizeof(T) / 256;
    ChargeVector(c, api, sizeof(T), n);
}

}  // namespace kernel
}  // namespace twin

namespace AscendC {

template <typename T, typename U>
__aicore__ inline void Compare(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, CMPMODE cmpMode, uint32_t count) {
    auto &c = twin::kernel::Core("Compare");
    const uint32_t n = static_cast<uint32_t>(uint64_t(count) * sizeof(T) / 256 * 256 / sizeof(T));
    if (n > 0) twin::kernel::CountOperand("Compare", c, src1, n, "src1", true);
    twin::kernel::CompareCount<T, U>("Compare", dst, src0, src1.TwinAddr(), T(), cmpMode, count);
}

template <typename T, typename U>
__aicore__ inline void CompareScalar(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const T src1Scalar, CMPMODE cmpMode, uint32_t count) {
    twin::kernel::CompareCount<T, U>("CompareScalar", dst, src0, nullptr, src1Scalar, cmpMode, count);
}
// No `Compares`: asc-devkit declares it (tensor-scalar compare under its newer name), CANN 8.1.RC1
// does not (interface/kernel_operator_vec_cmpsel_intf.h has Compare, CompareScalar, Select only), so
// a kernel using it would not build on 8.1.RC1 (compile-reject test tests/twin/reject/cmpsel_surface.cpp).

namespace twin_detail {
template <typename T, typename U, typename Rhs>
inline void SelectCount(const char *api, const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0, Rhs rhs,
                        SELMODE mode, uint32_t count) {
    auto &c = twin::kernel::Core(api);
    if (twin::kernel::CountNop(api, c, count)) return;
    const uint32_t perChunk = 256 / sizeof(T);
    const uint64_t maskBits = mode == SELMODE::VSEL_CMPMASK_SPR ? perChunk : count;
    twin::kernel::CheckUbAligned(api, c, selMask.TwinAddr(), "selMask");
    const uint64_t maskBytes = (maskBits + 7) / 8;
    twin::kernel::CheckLocalRange(api, c, selMask, (maskBytes + sizeof(U) - 1) / sizeof(U), "selMask");
    twin::kernel::UbCheckRead(api, c, selMask.TwinAddr(), maskBytes);
    twin::kernel::CountOperand(api, c, src0, count, "src0", true);
    twin::kernel::CountOperand(api, c, dst, count, "dst", false);
    const uint8_t *bits = reinterpret_cast<const uint8_t *>(selMask.TwinAddr());
    const T *a = src0.TwinAddr();
    T *d = dst.TwinAddr();
    for (uint32_t i = 0; i < count; ++i) {
        const uint64_t b = mode == SELMODE::VSEL_CMPMASK_SPR ? i % perChunk : i;
        d[i] = ((bits[b / 8] >> (b % 8)) & 1) ? a[i] : rhs(i);
    }
    twin::kernel::CountDone(c, dst, count);
    // dav_c220 VselImpl / VselIntrinsicsImplPre (kernel_operator_vec_cmpsel_impl.h): before the vsel, the
    // selMask address (modes 1, 2) or the scalar src1 is duplicated into a 32-B temporary block
    // (DuplicateIntrinsicsImpl) and loaded with set_cmpmask; mode 0 loads the mask with set_cmpmask only.
    // Each is one more vector instruction the scalar unit issues (the vsel is charged above).
    if (mode != SELMODE::VSEL_CMPMASK_SPR)
        twin::kernel::ChargeVector(c, "Duplicate", sizeof(uint32_t), 8);
    twin::kernel::ChargeVector(c, "set_cmpmask", sizeof(uint32_t), 8);
}
}  // namespace twin_detail

template <typename T, typename U>
__aicore__ inline void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0, const LocalTensor<T> &src1,
                              SELMODE selMode, uint32_t count) {
    if (selMode == SELMODE::VSEL_TENSOR_SCALAR_MODE)
        twin::kernel::Violation("Select", "VSEL_TENSOR_SCALAR_MODE needs a scalar src1; got a tensor");
    auto &c = twin::kernel::Core("Select");
    if (count > 0) twin::kernel::CountOperand("Select", c, src1, count, "src1", true);
    const T *b = src1.TwinAddr();
    twin_detail::SelectCount("Select", dst, selMask, src0, [b](uint32_t i) { return b[i]; }, selMode, count);
}
template <typename T, typename U>
__aicore__ inline void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0, T src1,
                              SELMODE selMode, uint32_t count) {
    if (selMode != SELMODE::VSEL_TENSOR_SCALAR_MODE)
        twin::kernel::Violation("Select", "a scalar src1 requires SELMODE::VSEL_TENSOR_SCALAR_MODE");
    twin_detail::SelectCount("Select", dst, selMask, src0, [src1](uint32_t) { return src1; }, selMode, count);
}

}  // namespace AscendC
