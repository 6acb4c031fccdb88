// Per-API tally of a launch's vector instructions, a profiling aid beside the NPU time model
// (scripts/perf_model.py, docs/performance.md): which APIs a stage's PIPE_V cycles and scalar issue slots go to.
//
// With TWIN_API_TALLY=<file> in the environment when a launch starts, every vector instruction (an API call that
// charges PIPE_V: ChargeVector, and the UB->UB DataCopy forms) is counted per (stage, API) over all vector cores,
// with its PIPE_V cycles from the cost table (twin/kernel/cost_table.h), and every PipeBarrier<PIPE_V> per call site;
// when the launch ends one block is appended to <file>:
//   launch <n>                                   (n: launches tallied by this process, from 1)
//   <stage>\t<api>\t<instructions>\t<cycles>     (ascending stage, then API name)
// stage = the SyncAll calls the issuing core had made (the stage index of perf_model.py's per-stage tables).
// Off by default; then an instruction costs one relaxed atomic load more. Concurrent launches share one tally.
#ifndef TWIN_KERNEL_API_TALLY_H
#define TWIN_KERNEL_API_TALLY_H

#include <atomic>
#include <cstdint>

namespace twin {
namespace kernel {

extern std::atomic<bool> g_apiTallyOn; // set by ApiTallyBegin before the launch's cores start

inline bool ApiTallyOn() { return g_apiTallyOn.load(std::memory_order_relaxed); }

void ApiTallyBegin();                                           // Launch: reads TWIN_API_TALLY
void ApiTallyAdd(uint64_t stage, const char *api, uint64_t cycles); // one instruction
// One PipeBarrier<PIPE_V>, listed as "PipeBarrier<PIPE_V> <file>:<line>" (file: its base name) with the
// pipe_barrier_cycles it holds the vector pipe: where a stage's barriers are.
void ApiTallyBarrier(uint64_t stage, const char* file, int line);
void ApiTallyEnd();                                             // Launch: appends the block, clears

}  // namespace kernel
}  // namespace twin

#endif  // TWIN_KERNEL_API_TALLY_H
