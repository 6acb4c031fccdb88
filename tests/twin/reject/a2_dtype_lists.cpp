// Compile-reject test: a vector instruction on a dtype outside its Atlas A2 list fails to compile, and the
// message names the accepted dtypes. Built plain (must compile) and with each TWIN_REJECT_* macro.
#include "kernel_operator.h"

__aicore__ inline void Uses(AscendC::LocalTensor<float> &f, AscendC::LocalTensor<int8_t> &i8) {
    AscendC::Add(f, f, f, 64);
    (void)i8;
#ifdef TWIN_REJECT_ADD_INT8
    AscendC::Add(i8, i8, i8, 64);
#endif
#ifdef TWIN_REJECT_DUPLICATE_INT8
    AscendC::Duplicate(i8, int8_t(1), 64);
#endif
}
