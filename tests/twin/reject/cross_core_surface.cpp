// Compile-reject test: CrossCoreSetFlag / CrossCoreWaitFlag have CANN 8.1.RC1's signatures
// (basic_api/interface/kernel_operator_common_intf.h): the set has no default template arguments
// (template <uint8_t modeId, pipe_t pipe>), the wait defaults to <0, PIPE_S>. Built plain (must
// compile, as it does against the 8.1.RC1 headers) and with each TWIN_REJECT_* macro.
#include "kernel_operator.h"

__aicore__ inline void Uses()
{
    AscendC::CrossCoreSetFlag<2, PIPE_MTE3>(3);
    AscendC::CrossCoreWaitFlag(3);
    AscendC::CrossCoreWaitFlag<2, PIPE_MTE2>(3);
#ifdef TWIN_REJECT_SET_WITHOUT_MODE
    AscendC::CrossCoreSetFlag(3);
#endif
}
