// Twin launcher: runs a kernel entry on virtual AI cores, one real thread per core
// (docs/architecture.md: the twin's kernel side). Block-index mapping follows the AscendC docs (GetBlockIdx.md,
// 设置Kernel类型.md): AIV_ONLY -> blockDim AIV cores; MIX_AIC_1_2 -> blockDim AIC + 2*blockDim AIV
// (AIC idx in [0,blockDim), AIV idx in [0,2*blockDim), GetBlockNum() = blockDim);
// MIX_AIC_1_1 -> blockDim AIC + blockDim AIV; AIC_ONLY -> blockDim AIC; MIX_AIV_1_0 -> blockDim AIV
// (vector-only kernel that may use hard SyncAll).
// A rule violation on any core stops the launch: ok=false, error = "API, core, rule".
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace twin {

enum class KernelType { AIV_ONLY, AIC_ONLY, MIX_AIV_1_0, MIX_AIC_1_1, MIX_AIC_1_2 };
const char *KernelTypeName(KernelType t);

struct LaunchOptions {
    uint32_t blockDim;
    KernelType type;
    uint64_t tilingKey = 0;
    uint32_t timeoutMs = 120000;   // deadlock detection: a core blocked this long fails the launch
    void *workspace = nullptr;     // kernel `workspace` argument: GetSysWorkSpacePtr() returns it
    // Schedule mode (gert::TilingContext::SetScheduleMode; `__schedmode__` for direct calls): 0 normal,
    // 1 batch (all cores of the launch scheduled together). A kernel that calls SyncAll must run in batch
    // mode (SyncAll docs: otherwise operators on several streams can deadlock) -> violation in SyncAll.
    // kScheduleModeUnchecked: kernel tests launching directly (the twin models no `__schedmode__`).
    int32_t scheduleMode = kScheduleModeUnchecked;
    // Per-pipe timeline (twin/kernel/pipe_timeline.h; CoreCounters::stageTimeline/stageBusy/timelineEnd):
    // off by default, it costs more than the emulation itself. On when this is true or when the
    // environment has TWIN_TIMELINE set to anything but "" or "0" (read at every launch; the way
    // scripts/perf_model.py asks for it through the aclnn path). The counters are the same either way.
    bool timeline = false;
    static constexpr int32_t kScheduleModeUnchecked = -1;
    static constexpr int32_t kScheduleModeBatch = 1;
};

// Cost counters (feed the performance model). PipeCounters is the numeric part; a core's record adds
// its identity and a snapshot of the numbers at each SyncAll arrival (per-stage split by differences).
struct PipeCounters {
    uint64_t gmToUbBytes = 0;      // MTE2
    uint64_t ubToGmBytes = 0;      // MTE3 (incl. atomic)
    uint64_t ubToUbBytes = 0;      // DataCopy UB->UB
    uint64_t gmAtomicBytes = 0;    // part of ubToGmBytes written with atomic add
    uint64_t gmToUbCopies = 0;     // DataCopy/DataCopyPad calls GM->UB
    uint64_t ubToGmCopies = 0;     // DataCopy/DataCopyPad calls UB->GM
    uint64_t vecElemOps = 0;       // vector element operations
    uint64_t vecInstrs = 0;        // vector instructions issued (repeats for the mask form, 256-B chunks for count form)
    uint64_t vecCycles = 0;        // PIPE_V cycles of the instructions listed in the cost table (twin/kernel/cost_table.h)
    uint64_t vecUnlistedRepeats = 0; // 256-B repeats of vector APIs without a cost-table entry (Copy, ReduceSum)
    uint64_t cubeMacs = 0;         // cube multiply-accumulates executed (AIC; Matmul work is credited to the serving AIC)
    uint64_t cubeGmReadBytes = 0;  // Matmul A/B/bias bytes read from GM, each element once per IterateAll (lower bound; AIC)
    uint64_t cubeGmWriteBytes = 0; // Matmul C bytes written to GM (AIC)
    uint64_t cubeGmLoadBytes = 0;  // Matmul GM->L1 bytes of A and B with the library's reloads (AIC MTE2; cost_table.h)
    uint64_t cubeMacsIssued = 0;   // Matmul MACs requested by this core (AIV side of the same work)
    uint64_t cubeCycles = 0;       // PIPE_M cycles of the Mmads (cost table, without head overhead; AIC)
    uint64_t mmadCalls = 0;        // Mmad instructions = Matmul base blocks (AIC)
    uint64_t mte1Cycles = 0;       // PIPE_MTE1 cycles L1->L0A/L0B (AIC)
    uint64_t cubeGmReadTransfers = 0;  // Matmul GM->L1 block loads (AIC MTE2)
    uint64_t cubeGmWriteTransfers = 0; // Matmul L0C->GM block stores (AIC FIX)
    uint64_t scalarGmOps = 0;      // GlobalTensor GetValue/SetValue
    uint64_t scalarUbOps = 0;      // LocalTensor GetValue/SetValue
    uint64_t syncWaitNs = 0;       // time blocked in SyncAll / Matmul service
    uint64_t syncAllCount = 0;     // SyncAll calls
    uint64_t ubPeakBytes = 0;      // max UB allocated by InitBuffer
    uint64_t vecIssued = 0;        // vector instructions issued by the scalar unit (API calls that charge PIPE_V)
    uint64_t pipeBarriersV = 0;    // PipeBarrier<PIPE_V>: the vector pipe drains (pipe_barrier_cycles each)
    // WaitFlag instructions per waiting pipe (SetFlag/WaitFlag, queue operations, the Matmul client)
    uint64_t waitFlagsS = 0, waitFlagsV = 0, waitFlagsMTE2 = 0, waitFlagsMTE3 = 0, waitFlagsMTE1 = 0, waitFlagsM = 0,
             waitFlagsFIX = 0;
    // GM read bytes the L2 model serves and write bytes it absorbs (twin/kernel/l2_model.h; 0 unless TWIN_L2_BYTES is
    // set): at the capacity, at half of it and at twice it. Counted on the issuing core (a Matmul's: the requesting
    // AIV).
    uint64_t l2ReadHitBytes = 0, l2ReadHitBytesHalf = 0, l2ReadHitBytesDouble = 0;
    uint64_t l2WriteHitBytes = 0, l2WriteHitBytesHalf = 0, l2WriteHitBytesDouble = 0;
};

struct CoreCounters : PipeCounters {
    bool isAic = false;
    uint32_t blockIdx = 0;
    std::vector<PipeCounters> atSyncAll;   // counters at each SyncAll arrival, in call order; on an AIC serving
                                           // Matmul: its work requested before each of its AIV's SyncAlls
    // Per-pipe timeline (twin/kernel/pipe_timeline.h), one entry per stage (atSyncAll.size() + 1 when the
    // core finished): cycles from the stage start to the core's SyncAll arrival (last stage: its end), per
    // cost variant (0 = default constants); on an AIC serving Matmul: the cycles it spent on the stage's
    // requests. stageBusy: cycles per pipe (TlPipeName order), variant 0.
    std::vector<std::vector<double>> stageTimeline;
    std::vector<std::vector<double>> stageBusy;
    double timelineEnd =
        0; // cycles from the launch start to the core's end (variant 0; a serving AIC: its last completion)
};

struct LaunchResult {
    bool ok = false;
    std::string error;             // first violation: "<API>: core <AIV|AIC> <idx>: <rule>"
    std::vector<CoreCounters> cores;   // AIC cores (block order) then AIV cores (block order)
    double wallSeconds = 0;
};

// Runs entry on every virtual core of the launch and joins them. Never throws for kernel faults.
// Invalid options (blockDim 0 or > 65535, MIX with more AIC blocks than the platform has, ...)
// return ok=false with an error naming the option.
LaunchResult Launch(const LaunchOptions &opt, const std::function<void()> &entry);

// GM registry: every GM byte a kernel touches must lie in a registered buffer
// (otherwise "out-of-bounds GM access", the twin's AI Core exception).
void *GmAlloc(size_t bytes, const char *name);   // 64-B aligned, zero-filled, registered
void GmFree(void *p);                            // unregisters + frees (nullptr is a no-op)
void RegisterGm(const void *base, size_t bytes, const char *name);
void UnregisterGm(const void *base);

}  // namespace twin
