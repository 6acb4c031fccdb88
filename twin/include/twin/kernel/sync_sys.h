// Synchronisation, atomics and system variables of the twin (ASC-API 同步控制, 原子操作, 系统变量).
// SetFlag/WaitFlag: per core, per (HardEvent, eventID in [0,8)) one flag, set or clear (the chip's
// flag is one bit). Violations: SetFlag on a flag that is already set (undefined; it hangs at the
// next PIPE_ALL barrier, SetFlag/WaitFlag docs), WaitFlag on a flag that is not set (hangs), a flag
// still set at kernel end. PipeBarrier executes nothing (each core runs in program order).
// SyncAll<true> is a real barrier across all AIV cores of the launch (needs a MIX launch type, e.g.
// KERNEL_TYPE_MIX_AIV_1_0, as documented for hard synchronisation).
// Workspace convention: GetSysWorkSpacePtr() = launch workspace; GetUserWorkspace(ws) = ws + 16 MiB
// (twin::kLibApiWorkspaceBytes).
#pragma once
#include "twin/platform.h"
#include "twin/kernel/tensor.h"

namespace twin {
namespace kernel {
// Events that exist on a vector core (ASC-API impl/basic_api/kernel_event.h, HardEventAiv).
constexpr bool IsAivEvent(AscendC::HardEvent e) {
    using H = AscendC::HardEvent;
    return e == H::MTE2_V || e == H::V_MTE2 || e == H::MTE3_V || e == H::V_MTE3 || e == H::V_V || e == H::MTE3_MTE2 ||
           e == H::MTE2_MTE3 || e == H::S_V || e == H::V_S || e == H::S_MTE2 || e == H::MTE2_S || e == H::S_MTE3 || e == H::MTE3_S;
}
inline void CheckEventOnCore(const char *api, const CoreContext &c, AscendC::HardEvent e) {
    if (!c.isAic && !IsAivEvent(e))
        Violation(api, std::string("HardEvent::") + HardEventName(e) + " involves a pipe a vector core does not have (M/MTE1/FIX)");
}
// Flag state transitions (src/kernel/sync_flags.cpp); `api` names the caller in reports (user
// SetFlag/WaitFlag, a queue operation, the Matmul client).
void FlagSet(const char *api, CoreContext &c, AscendC::HardEvent e, int32_t id);
void FlagWait(const char *api, CoreContext &c, AscendC::HardEvent e, int32_t id);
// Clears a flag if set, never reports (destructors: TPipe, TBufPool, the Matmul client on unwind).
void FlagWaitQuiet(CoreContext &c, AscendC::HardEvent e, int32_t id);
void CheckFlagsAtKernelEnd(CoreContext &c);
inline void CheckPipeOnCore(const char *api, const CoreContext &c, pipe_t pipe) {
    if (!c.isAic && (pipe == PIPE_M || pipe == PIPE_MTE1 || pipe == PIPE_FIX))
        Violation(api, "PIPE_M/PIPE_MTE1/PIPE_FIX do not exist on a vector core");
}
}  // namespace kernel
}  // namespace twin

namespace AscendC {

template <HardEvent event>
__aicore__ inline void SetFlag(int32_t eventID) {
    auto &c = twin::kernel::Core("SetFlag");
    twin::kernel::CheckEventOnCore("SetFlag", c, event);
    twin::kernel::FlagSet("SetFlag", c, event, eventID);
}

template <HardEvent event>
__aicore__ inline void WaitFlag(int32_t eventID) {
    auto &c = twin::kernel::Core("WaitFlag");
    twin::kernel::CheckEventOnCore("WaitFlag", c, event);
    twin::kernel::FlagWait("WaitFlag", c, event, eventID);
}

template <pipe_t pipe>
__aicore__ inline void PipeBarrier() {
    auto &c = twin::kernel::Core("PipeBarrier");
    twin::kernel::CheckPipeOnCore("PipeBarrier", c, pipe);
    if (pipe == PIPE_ALL && c.hz != nullptr) twin::kernel::HzPipeBarrierAll(c);
    if (pipe == PIPE_ALL)
        twin::kernel::TlPipeBarrierAll(c);
}

// Hard SyncAll starts with PipeBarrier<PIPE_ALL> (8.1.RC1 dav_c220 SyncAllImpl): all pipes of the
// core drain before the cross-core barrier (an ordering edge for the hazard checker).
template <bool isAIVOnly = true>
__aicore__ inline void SyncAll() {
    auto &c = twin::kernel::Core("SyncAll");
    if (c.hz != nullptr) twin::kernel::HzPipeBarrierAll(c);
    twin::kernel::HardSyncAll("SyncAll", isAIVOnly, 0);
}

template <bool isAIVOnly = true>
__aicore__ inline void SyncAll(const GlobalTensor<int32_t> &gmWorkspace, const LocalTensor<int32_t> &ubWorkspace, const int32_t usedCores = 0) {
    auto &c = twin::kernel::Core("SyncAll(soft)");
    const uint32_t n = usedCores > 0 ? static_cast<uint32_t>(usedCores) : c.blockNum * (c.taskRatio ? c.taskRatio : 1);
    {
        twin::kernel::HzGmSuppress hzOff(c);   // the barrier's own workspace protocol
        twin::kernel::CheckGm("SyncAll(soft)", c, gmWorkspace.TwinAddr(), uint64_t(n) * 32, true);
    }
    if (ubWorkspace.TwinAddr() == nullptr) twin::kernel::Violation("SyncAll(soft)", "ubWorkspace is not allocated");
    if (c.hz != nullptr) twin::kernel::HzPipeBarrierAll(c);
    twin::kernel::HardSyncAll("SyncAll(soft)", isAIVOnly, usedCores > 0 ? static_cast<uint32_t>(usedCores) : 0);
}

template <typename T>
__aicore__ inline void SetAtomicAdd() {
    static_assert(std::is_same<T, float>::value || std::is_same<T, half>::value || std::is_same<T, int16_t>::value ||
                      std::is_same<T, int32_t>::value || std::is_same<T, int8_t>::value || std::is_same<T, bfloat16_t>::value,
                  "SetAtomicAdd supports float/half/int16_t/int32_t/int8_t/bfloat16_t");
    auto &c = twin::kernel::Core("SetAtomicAdd");
    c.atomicOp = 1;
    c.atomicType = &typeid(T);
    c.atomicTypeName = twin::kernel::TypeName<T>();
}
template <typename T>
__aicore__ inline void SetAtomicMax() {
    auto &c = twin::kernel::Core("SetAtomicMax");
    c.atomicOp = 2;
    c.atomicType = &typeid(T);
    c.atomicTypeName = twin::kernel::TypeName<T>();
}
template <typename T>
__aicore__ inline void SetAtomicMin() {
    auto &c = twin::kernel::Core("SetAtomicMin");
    c.atomicOp = 3;
    c.atomicType = &typeid(T);
    c.atomicTypeName = twin::kernel::TypeName<T>();
}
__aicore__ inline void SetAtomicNone() {
    auto &c = twin::kernel::Core("SetAtomicNone");
    c.atomicOp = 0;
    c.atomicType = nullptr;
    c.atomicTypeName = nullptr;
}
__aicore__ inline void DisableDmaAtomic() { SetAtomicNone(); }

template <typename T, CacheLine entireType, DcciDst dcciDst>
__aicore__ inline void DataCacheCleanAndInvalid(const GlobalTensor<T> &dst) { (void)dst; (void)twin::kernel::Core("DataCacheCleanAndInvalid"); }
template <typename T, CacheLine entireType>
__aicore__ inline void DataCacheCleanAndInvalid(const GlobalTensor<T> &dst) { (void)dst; (void)twin::kernel::Core("DataCacheCleanAndInvalid"); }

__aicore__ inline int64_t GetBlockIdx() { return twin::kernel::Core("GetBlockIdx").blockIdx; }
__aicore__ inline int64_t GetBlockNum() { return twin::kernel::Core("GetBlockNum").blockNum; }
__aicore__ inline int64_t GetSubBlockIdx() { return twin::kernel::Core("GetSubBlockIdx").subBlockIdx; }
// GetTaskRatio/GetSubBlockNum are not provided: asc-devkit declares them, CANN 8.1.RC1 does not (it has
// only the misspelt GetTaskRation, interface/kernel_operator_common_intf.h), so a kernel using either
// would not build on 8.1.RC1.


__aicore__ inline GM_ADDR GetUserWorkspace(GM_ADDR workspace) {
    (void)twin::kernel::Core("GetUserWorkspace");
    if (workspace == nullptr) twin::kernel::Violation("GetUserWorkspace", "workspace can not be nullptr");
    return workspace + twin::kLibApiWorkspaceBytes;
}

}  // namespace AscendC

// Global namespace, as CANN declares it (8.1.RC1 basic_api/interface/kernel_common.h; asc-devkit
// include/basic_api/kernel_operator_swap_mem_intf.h): `AscendC::GetSysWorkSpacePtr()` does not compile
// against CANN.
__aicore__ inline __gm__ uint8_t *__gm__ GetSysWorkSpacePtr() {
    return static_cast<uint8_t *>(twin::kernel::Core("GetSysWorkSpacePtr").workspace);
}
