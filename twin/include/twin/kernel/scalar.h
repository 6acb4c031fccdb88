// Scalar bit functions of the twin (CANN 8.1.RC1 kernel_operator_scalar_intf.h / impl kernel_scalar.h: sff0,
// sff1; asc-devkit docs 标量计算/GetSFFValue.md, which keeps ScalarGetSFFValue as the older name).
// ScalarGetSFFValue<v>(x): the position (0 = least significant) of the first bit equal to v in x, -1 when x has
// none. countValue other than 0 or 1 does not compile. Scalar-unit instructions: no pipe counter (like the
// kernel's other scalar arithmetic; only LocalTensor/GlobalTensor GetValue/SetValue are costed).
#pragma once
#include <cstdint>
#include "twin/kernel/kernel_types.h"

namespace AscendC {

template <int countValue>
__aicore__ inline int64_t ScalarGetSFFValue(uint64_t valueIn)
{
    static_assert(countValue == 0 || countValue == 1, "ScalarGetSFFValue: countValue must be 1 or 0");
    const uint64_t bits = countValue == 1 ? valueIn : ~valueIn;
    if (bits == 0) {
        return -1;
    }
    return __builtin_ctzll(bits); // the lowest set bit of bits (nonzero here)
}

} // namespace AscendC
