// Hazard checker of the twin (issue 10 part 1): missing synchronisation between the pipes of a core on
// UB, and between cores on GM. Deterministic: it decides from the happens-before relation the kernel
// establishes, never from thread timing. On by default; TWIN_HAZARD=0 turns it off (benchmarks only).
//
// UB, per vector core (src/kernel/hazard_ub.cpp). Pipes S, V, MTE2, MTE3 run asynchronously; every UB
// access is attributed to the pipe of its API (DataCopy GM->UB: MTE2, UB->GM: MTE3, LocalTensor
// GetValue/SetValue: S, every other UB API: V). Per pipe p an epoch cnt[p] and a clock clk[p][q] = the
// last epoch of pipe q that p is ordered after. SetFlag<p_q> hands clk[p] to the flag and starts a new
// epoch of p; WaitFlag<p_q> joins the flag's clock into clk[q]; PipeBarrier<PIPE_ALL> joins all pipes.
// Queue EnQue/DeQue/FreeTensor/AllocTensor are SetFlag/WaitFlag on the queue's events (pipe.h), so
// they order too. Per 32-B UB block: the last write (pipe, epoch, API) and the last read epoch of each
// pipe; an access from pipe p conflicting (at least one write) with an access of another pipe q whose
// epoch is not covered by clk[p][q] is a violation naming both APIs, both pipes and the UB range.
// Within one pipe (PipeBarrier docs): a V instruction reading or overwriting a block an earlier V
// instruction wrote, a V instruction overwriting a block an earlier V instruction read, or an MTE2
// copy overwriting a block an earlier MTE2 copy wrote, needs
// PipeBarrier<PIPE_V>/<PIPE_MTE2> (or PIPE_ALL, or a WaitFlag<V_S>/<MTE2_S> after the write: the
// scalar unit issues every instruction) in between; instructions are told apart by the core's API
// sequence number (CoreContext::apiSeq). S accesses are ordered by the hardware. An MTE3 copy writing GM
// bytes an earlier MTE3 copy of the core wrote needs PipeBarrier<PIPE_MTE3> (or PIPE_ALL, WaitFlag<MTE3_S>,
// a round trip MTE3 -> X -> MTE3) in between (src/kernel/hazard_gm.cpp CheckMte3InPipe).
// Sync sites (twin/kernel/sync_site.h): a dropped site (TWIN_DROP_SYNC) creates no edge.
//
// GM, across cores (src/kernel/hazard_gm.cpp). Threads: every AIC and AIV core, plus one "Matmul
// thread" per AIV (the cube work of that AIV's Matmul requests, computed on the AIV's OS thread).
// Vector clocks over those threads; edges: SyncAll (all participants join), a Matmul request (AIV ->
// its Matmul thread) and its completion (sync IterateAll, WaitIterateAll: Matmul thread -> AIV),
// cross-core flags (a completed CrossCoreSetFlag round -> each receiver's CrossCoreWaitFlag), and
// the launch boundary (a launch starts with no history). Every GM access is recorded with its
// thread's segment (a run of accesses under one clock). At each SyncAll of all vector cores and at
// kernel end the recorded segments are compared: overlapping bytes from two different threads, at
// least one a write, not both atomic with the same operation, and neither segment ordered before the
// other, are a violation naming both cores, both APIs, the GM buffer and the offset. The report is the
// conflict with the lowest address (ties: lowest thread pair), so it is the same on every run.
// Segments ordered before every vector core's clock are then dropped (pending async Matmul work
// stays). Within one core, GM accesses of pipes S, MTE2 and MTE3 are compared like UB blocks (another pipe's
// earlier conflicting access must be ordered by the pipe clocks; hazard_gm.cpp CheckGmAcrossPipes). Not
// modelled: GM flags polled by scalar code (use SyncAll), the data cache of scalar GM accesses, cube-core UB/L1/L0.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "twin/kernel/kernel_types.h"

namespace twin {
namespace kernel {

struct CoreContext;
struct HazardLaunch;

enum class HzPipe : uint8_t { S = 0, V, MTE2, MTE3, kCount };
constexpr int kHzPipes = static_cast<int>(HzPipe::kCount);

// Per-core hazard state (allocated by HazardCoreAttach; nullptr when checking is off).
struct HazardCore;

// ---- launch lifecycle (called by src/kernel/launch.cpp) ---------------------------------------
bool HazardEnabled();   // TWIN_HAZARD != "0"
std::unique_ptr<HazardLaunch, void (*)(HazardLaunch *)> HazardLaunchCreate(uint32_t numAic, uint32_t numAiv, uint32_t aivPerAic);
void HazardCoreAttach(HazardLaunch *hl, CoreContext &c);
void HazardCoreDetach(CoreContext &c);
// SyncAll: each arriving core (under the barrier lock), the completing core (under the lock, all
// participants arrived; returns the report of a GM hazard of the finished stage, "" = none), each
// core leaving (under the lock).
void HazardBarrierArrive(CoreContext &c, int barrier);
std::string HazardBarrierComplete(CoreContext &c, int barrier, bool allVectorCores);
void HazardBarrierLeave(CoreContext &c, int barrier);
// Marks the SyncAll in flight on this core as a dropped site (TWIN_DROP_SYNC) for the hooks above.
class HzBarrierDropScope {
public:
    HzBarrierDropScope(CoreContext& c, bool dropped);
    ~HzBarrierDropScope();
    HzBarrierDropScope(const HzBarrierDropScope&) = delete;
    HzBarrierDropScope& operator=(const HzBarrierDropScope&) = delete;

private:
    HazardCore* hz_;
};
// After every core has finished: the final comparison; returns the report ("" = none).
std::string HazardLaunchEnd(HazardLaunch *hl);

// ---- UB (pipes of one core) -------------------------------------------------------------------
void HzUbAccess(const CoreContext &c, const void *p, size_t bytes, bool write);
void HzFlagSet(CoreContext& c, AscendC::HardEvent e, int32_t id, bool dropped = false);
void HzFlagWait(CoreContext &c, AscendC::HardEvent e, int32_t id);
void HzPipeBarrierAll(CoreContext &c);
void HzPipeBarrier(CoreContext& c, HzPipe p); // PipeBarrier<PIPE_V/MTE2/MTE3/S>: in-pipe order

// Sets the pipe of the UB accesses of one API call (default V) and restores it at scope end.
class HzPipeScope {
public:
    HzPipeScope(CoreContext &c, HzPipe p);
    ~HzPipeScope();
    HzPipeScope(const HzPipeScope &) = delete;
    HzPipeScope &operator=(const HzPipeScope &) = delete;

private:
    HazardCore *hz_;
    HzPipe saved_;
};

// ---- GM (across cores) ------------------------------------------------------------------------
void HzGmAccess(CoreContext &c, const char *api, const void *p, size_t bytes, bool write);
// Matmul request of this AIV: accesses until HzMatmulEnd belong to its Matmul thread; `atomicOp` is
// the IterateAll enAtomic (1 add, 2 max, 3 min). `completed` = the AIV waits for the result now.
// `dropped` (TWIN_DROP_SYNC on the IterateAll site): the request does not order; a synchronous one's
// completion does not either (an asynchronous one completes at its WaitIterateAll).
// Completions are counted like the chip's per-event notifications: each completed request (synchronous
// IterateAll, WaitIterateAll) acquires the oldest request not yet waited for.
void HzMatmulBegin(CoreContext& c, uint8_t atomicOp, bool dropped = false);
// `notified` = false: an asynchronous request without waitIterateAll (no notification to wait for).
void HzMatmulEnd(CoreContext& c, bool completed, bool dropped = false, bool notified = true);
void HzMatmulWait(CoreContext& c); // WaitIterateAll: completion of the oldest pending request
// Cross-core flags (src/kernel/cross_core.cpp). A set: the clock it hands on (this core's, covering
// all of its earlier GM accesses; empty when the checker is off); the core's later accesses start a
// new epoch. A wait: joins `clock` (nothing when empty) and starts a new epoch; returns the core's
// epoch after the wait (0 when off). HzSitesDropping: TWIN_DROP_SYNC is set for this launch.
std::vector<uint32_t> HzCrossCoreRelease(CoreContext& c);
uint32_t HzCrossCoreAcquire(CoreContext& c, const std::vector<uint32_t>& clock);
bool HzSitesDropping(const CoreContext& c);
// Accesses inside the scope are not recorded (library workspaces used by the twin's own protocols).
class HzGmSuppress {
public:
    explicit HzGmSuppress(CoreContext &c);
    ~HzGmSuppress();
    HzGmSuppress(const HzGmSuppress &) = delete;
    HzGmSuppress &operator=(const HzGmSuppress &) = delete;

private:
    HazardCore *hz_;
};

}  // namespace kernel
}  // namespace twin
