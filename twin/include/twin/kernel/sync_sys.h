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
#include "twin/kernel/sync_site.h"
#include "twin/kernel/api_tally.h"

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
// SetFlag/WaitFlag, a queue operation, the Matmul client); `loc` is the kernel call site (none for the
// twin's library internals), see twin/kernel/sync_site.h.
void FlagSet(const char* api, CoreContext& c, AscendC::HardEvent e, int32_t id, const SyncLoc& loc = SyncLoc());
void FlagWait(const char* api, CoreContext& c, AscendC::HardEvent e, int32_t id, const SyncLoc& loc = SyncLoc());
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

// The trailing `file`/`line` parameters of the synchronisation calls are twin-only (kernel call
// sites for the hazard checker's TWIN_DROP_SYNC / TWIN_SYNC_SITES, twin/kernel/sync_site.h).
template <HardEvent event>
__aicore__ inline void SetFlag(int32_t eventID, const char* file = __builtin_FILE(), int line = __builtin_LINE())
{
    auto &c = twin::kernel::Core("SetFlag");
    twin::kernel::CheckEventOnCore("SetFlag", c, event);
    twin::kernel::FlagSet("SetFlag", c, event, eventID, {file, line});
}

template <HardEvent event>
__aicore__ inline void WaitFlag(int32_t eventID, const char* file = __builtin_FILE(), int line = __builtin_LINE())
{
    auto &c = twin::kernel::Core("WaitFlag");
    twin::kernel::CheckEventOnCore("WaitFlag", c, event);
    twin::kernel::FlagWait("WaitFlag", c, event, eventID, {file, line});
}

namespace twin_detail {
constexpr const char* PipeTypeName(pipe_t p)
{
    return p == PIPE_S    ? "PIPE_S" :
           p == PIPE_V    ? "PIPE_V" :
           p == PIPE_M    ? "PIPE_M" :
           p == PIPE_MTE1 ? "PIPE_MTE1" :
           p == PIPE_MTE2 ? "PIPE_MTE2" :
           p == PIPE_MTE3 ? "PIPE_MTE3" :
           p == PIPE_FIX  ? "PIPE_FIX" :
           p == PIPE_ALL  ? "PIPE_ALL" :
                            "PIPE_?";
}
} // namespace twin_detail

// PipeBarrier<PIPE_ALL> joins all pipes; PipeBarrier<PIPE_V/MTE2/MTE3> orders that pipe's later
// instructions after its earlier ones (the hazard checker's in-pipe rule).
template <pipe_t pipe>
__aicore__ inline void PipeBarrier(const char* file = __builtin_FILE(), int line = __builtin_LINE())
{
    auto &c = twin::kernel::Core("PipeBarrier");
    twin::kernel::CheckPipeOnCore("PipeBarrier", c, pipe);
    if (pipe == PIPE_V) {
        ++c.counters.pipeBarriersV; // charged at the next timeline hook, like an instruction on V
        if (twin::kernel::ApiTallyOn())
            twin::kernel::ApiTallyBarrier(c.counters.syncAllCount, file, line);
    }
    if (pipe == PIPE_ALL)
        twin::kernel::TlPipeBarrierAll(c);
    else if (pipe == PIPE_MTE2)
        twin::kernel::TlPipeBarrier(c, twin::kernel::TlPipe::MTE2);
    else if (pipe == PIPE_MTE3)
        twin::kernel::TlPipeBarrier(c, twin::kernel::TlPipe::MTE3);
    if (c.hz == nullptr || twin::kernel::HzSiteDropped(c, "PipeBarrier", {file, line}, twin_detail::PipeTypeName(pipe)))
        return;
    if (pipe == PIPE_ALL)
        twin::kernel::HzPipeBarrierAll(c);
    else if (pipe == PIPE_V)
        twin::kernel::HzPipeBarrier(c, twin::kernel::HzPipe::V);
    else if (pipe == PIPE_MTE2)
        twin::kernel::HzPipeBarrier(c, twin::kernel::HzPipe::MTE2);
    else if (pipe == PIPE_MTE3)
        twin::kernel::HzPipeBarrier(c, twin::kernel::HzPipe::MTE3);
}

// Hard SyncAll starts with PipeBarrier<PIPE_ALL> (8.1.RC1 dav_c220 SyncAllImpl): all pipes of the
// core drain before the cross-core barrier (an ordering edge for the hazard checker). A dropped site
// still blocks (the run stays deterministic) but orders nothing.
template <bool isAIVOnly = true>
__aicore__ inline void SyncAll(const char* file = __builtin_FILE(), int line = __builtin_LINE())
{
    auto &c = twin::kernel::Core("SyncAll");
    const bool dropped = twin::kernel::HzSiteDropped(c, "SyncAll", {file, line});
    if (c.hz != nullptr && !dropped)
        twin::kernel::HzPipeBarrierAll(c);
    twin::kernel::HzBarrierDropScope drop(c, dropped);
    twin::kernel::HardSyncAll("SyncAll", isAIVOnly, 0);
}

template <bool isAIVOnly = true>
__aicore__ inline void SyncAll(
    const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace, const int32_t usedCores = 0,
    const char* file = __builtin_FILE(), int line = __builtin_LINE())
{
    auto &c = twin::kernel::Core("SyncAll(soft)");
    const uint32_t n = usedCores > 0 ? static_cast<uint32_t>(usedCores) : c.blockNum * (c.taskRatio ? c.taskRatio : 1);
    {
        twin::kernel::HzGmSuppress hzOff(c);   // the barrier's own workspace protocol
        twin::kernel::CheckGm("SyncAll(soft)", c, gmWorkspace.TwinAddr(), uint64_t(n) * 32, true);
    }
    if (ubWorkspace.TwinAddr() == nullptr) twin::kernel::Violation("SyncAll(soft)", "ubWorkspace is not allocated");
    const bool dropped = twin::kernel::HzSiteDropped(c, "SyncAll(soft)", {file, line});
    if (c.hz != nullptr && !dropped)
        twin::kernel::HzPipeBarrierAll(c);
    twin::kernel::HzBarrierDropScope drop(c, dropped);
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
