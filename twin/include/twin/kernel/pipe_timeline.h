// Per-pipe timeline of a virtual core (twin/README.md "Cost model", "Timeline"): turns the cycles the
// cost table charges into the time the core's pipes take when they run asynchronously and meet only
// at the kernel's synchronisation points.
//
// Model (all times in cycles from the launch start, one set of clocks per cost variant):
//  - clock[p] = time pipe p finishes the work queued on it (pipes: S V MTE2 MTE3 on AIV; S MTE2 MTE1 M
//    FIX on AIC). The scalar unit issues every instruction in program order: clock[S] is its issue point.
//  - Work between two synchronisation points is charged from counter differences (cost table pipe
//    terms): first the scalar work (GetValue/SetValue, issue cost) advances clock[S], then each other
//    pipe p gets clock[p] = max(clock[p], clock[S]) + its work (in-order queues, issued at clock[S]).
//    TlSync runs before every scalar access, so scalar work delays the instructions issued after it.
//  - Transfers (MTE2, MTE3, FIX: DataCopy both ways, the Matmul's block loads and stores) occupy their pipe for
//    dma_transfer_cycles + bytes x rate; their data lands dma_latency_cycles later (arrive[P] = clock[P] + latency,
//    set whenever transfers are charged), and what waits for them waits for that.
//  - SetFlag<P_Q>: the flag's time is max(clock[P], clock[S]) (the set_flag instruction follows P's
//    queued work; transfer pipes: also arrive[P]). WaitFlag<P_Q>: clock[Q] = max(clock[Q], clock[S], flag time) +
//    flag_cycles (Q = S: the scalar unit stalls, delaying all later issue). Queue EnQue/DeQue/AllocTensor/FreeTensor
//    are SetFlag/WaitFlag on their queue's events (twin/kernel/pipe.h), so they order the same way.
//  - PipeBarrier<PIPE_MTE2/MTE3>: that pipe's clock = its arrival (its transfers so far have landed).
//  - PipeBarrier<PIPE_ALL>: every clock = the latest (arrivals included). SyncAll: PIPE_ALL, + syncall_cycles, then
//  every
//    participant leaves at the latest arrival (the stage ends there).
//  - Matmul (separated mode): IterateAll sends the request at the AIV's clock[S]; the serving AIC
//    (first come, first served) runs it for D = its pipelined duration (MatmulDuration); a synchronous
//    IterateAll stalls the AIV's scalar unit until completion, an asynchronous one at WaitIterateAll.
// Variants: 0 = the cost table's constants; 2j+1 / 2j+2 = constant j x0.5 / x2 (the sensitivity that
// scripts/perf_model.py prints), so no rerun is needed per constant.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "twin/launch.h"
#include "twin/kernel/cost_table.h"
#include "twin/kernel/kernel_types.h"

namespace twin {
namespace kernel {

struct CoreContext;

enum class TlPipe : uint8_t { S = 0, V, MTE2, MTE3, MTE1, M, FIX, kCount };
constexpr int kTlPipes = static_cast<int>(TlPipe::kCount);
const char* TlPipeName(int p);        // "S", "V", ...
int TlPipeFromName(const char* name); // -1 if unknown

// Cost variants: 0 = defaults; 2j+1 = constant j x0.5, 2j+2 = constant j x2.
size_t TlVariants();
const char* TlVariantConstant(size_t v); // nullptr for variant 0
double TlVariantFactor(size_t v);

// Whether a launch records the timeline: requested (LaunchOptions::timeline) or TWIN_TIMELINE set to
// anything but "" / "0" in the environment, read on every call (never cached). Off, CoreContext::tl is
// nullptr and every hook below returns at once (TlFlagWait still counts the wait in the counters).
bool TlEnabled(bool requested);

struct TimelineCore; // per virtual core (src/kernel/pipe_timeline.cpp)
TimelineCore* TlCreate(const PipeCounters& start);
void TlDestroy(TimelineCore* t);

// Hooks (each one line at its call site). All take the core's current counters.
void TlSync(CoreContext& c); // charge the work since the last hook
void TlFlagSet(CoreContext& c, AscendC::HardEvent e, int32_t id);
void TlFlagWait(CoreContext& c, AscendC::HardEvent e, int32_t id);
void TlPipeBarrierAll(CoreContext& c);
// PipeBarrier<PIPE_MTE2/MTE3>: the pipe's later transfers start when its earlier ones have landed
// (clock = max(clock, arrive)); PipeBarrier<PIPE_V> is charged per call (pipe_barrier_cycles).
void TlPipeBarrier(CoreContext& c, TlPipe p);
// SyncAll: before the arrival is counted; returns the arrival time per variant.
const std::vector<double>& TlSyncAllArrive(CoreContext& c);
void TlSyncAllLeave(CoreContext& c, const std::vector<double>& release); // stage ends, next starts at release
void TlKernelEnd(CoreContext& c);                                        // final stage
// Matmul: the request time (per variant) of an IterateAll issued now, and its completion.
const std::vector<double>& TlMatmulRequest(CoreContext& c);
void TlMatmulIssued(CoreContext& c, const std::vector<double>& done); // completion time of the request
void TlMatmulWait(CoreContext& c);                                    // scalar unit waits for the completion

// Pipelined duration of one Matmul request on the AIC, per variant: the library double-buffers L1/L0,
// so the pipes MTE2 -> MTE1 -> M -> FIX overlap; duration = max over pipes p of (one unit of every
// pipe before p + p's total + one unit of every pipe after p) + 2 x dma_latency_cycles (the first load's data
// arrives, the last store lands). busy[p] (variant 0) is also returned.
void MatmulDuration(
    const cost::CubeCost& cost, uint64_t gmReadBytes, uint64_t gmWriteBytes, std::vector<double>& duration,
    double busy[kTlPipes]);

// Results of one core: per stage (stages end at SyncAll) the timeline (per variant) and the busy
// cycles per pipe (variant 0).
// endCycles: the core's end from the launch start (variant 0).
void TlResults(
    const TimelineCore* t, std::vector<std::vector<double>>& stageTimeline, std::vector<std::vector<double>>& stageBusy,
    double& endCycles);

} // namespace kernel
} // namespace twin
