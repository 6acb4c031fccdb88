// Compile-reject test: CANN declares GetTPipePtr() and GetSysWorkSpacePtr() in the GLOBAL namespace
// (8.1.RC1 basic_api/interface/kernel_common.h; asc-devkit include/basic_api/kernel_common.h and
// kernel_operator_swap_mem_intf.h), so `AscendC::`-qualified calls do not compile there and must not
// compile against the twin either. Built twice by ctest: plain (must compile) and with TWIN_REJECT
// (must fail with the regex registered in twin/CMakeLists.txt).
#include "kernel_operator.h"

__aicore__ inline void Uses() {
    AscendC::TPipe *pipe = GetTPipePtr();
    __gm__ uint8_t *ws = GetSysWorkSpacePtr();
    (void)pipe;
    (void)ws;
#ifdef TWIN_REJECT_TPIPE
    (void)AscendC::GetTPipePtr();
#endif
#ifdef TWIN_REJECT_WORKSPACE
    (void)AscendC::GetSysWorkSpacePtr();
#endif
}

// asc-devkit-only names that CANN 8.1.RC1 does not declare: the twin does not provide them either.
__aicore__ inline void UsesDevkitOnly() {
#ifdef TWIN_REJECT_TASK_RATIO
    (void)AscendC::GetTaskRatio();
#endif
#ifdef TWIN_REJECT_SUB_BLOCK_NUM
    (void)AscendC::GetSubBlockNum();
#endif
}
