// Compile-reject test: the compare/select count forms are exactly those CANN 8.1.RC1 declares
// (basic_api/interface/kernel_operator_vec_cmpsel_intf.h): Compare (tensor-tensor), CompareScalar
// (tensor-scalar), Select with a tensor src1 (modes 0/1/2) and Select with a scalar src1 (mode 1).
// asc-devkit's newer `Compares` does not exist in 8.1.RC1, so it must not compile against the twin.
// Built plain (must compile: the 8.1.RC1 forms) and with each TWIN_REJECT_* macro.
#include "kernel_operator.h"

__aicore__ inline void Uses(
    AscendC::LocalTensor<uint8_t>& bits, AscendC::LocalTensor<float>& x, AscendC::LocalTensor<float>& y)
{
    AscendC::Compare(bits, x, y, AscendC::CMPMODE::LT, 64);
    AscendC::CompareScalar(bits, x, 0.0f, AscendC::CMPMODE::GE, 64);
    AscendC::Select(y, bits, x, y, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, 64);
    AscendC::Select(y, bits, x, -1.0f, AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, 64);
#ifdef TWIN_REJECT_COMPARES
    AscendC::Compares(bits, x, 0.0f, AscendC::CMPMODE::GE, 64);
#endif
#ifdef TWIN_REJECT_COMPARES_TENSOR
    AscendC::Compares(bits, x, y, AscendC::CMPMODE::LT, 64);
#endif
}
