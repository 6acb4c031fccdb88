// Cross-core flag state of one launch (src/kernel/cross_core.cpp; model: twin/kernel/cross_core.h) and
// the launch services it uses (src/kernel/launch.cpp). Functions marked "lock held" run under the
// launch mutex; none of them reports a violation itself (a report is returned as text, so the caller
// can release the mutex before unwinding).
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace twin {
namespace kernel {

struct CoreContext;
struct CrossCoreLaunch;
using CrossCoreLaunchPtr = std::unique_ptr<CrossCoreLaunch, void (*)(CrossCoreLaunch*)>;

// ---- cross_core.cpp ---------------------------------------------------------------------------
CrossCoreLaunchPtr CrossCoreLaunchCreate(uint32_t numAic, uint32_t numAiv, uint32_t aivPerAic);
bool CrossCoreWaitReady(const CrossCoreLaunch& x, uint32_t slot); // lock held: counter > 0
std::string CrossCoreWaitDescribe(
    const CrossCoreLaunch& x, uint32_t slot); // lock held: "CrossCoreWaitFlag(flagId 3) ..."
// After every core has finished: sets never waited for, rounds never completed ("" = none).
std::string CrossCoreLaunchEnd(const CrossCoreLaunch& x);
// Hard SyncAll on core c (it uses flag IDs 11-14 internally): reported if c used one of them.
void CrossCoreNoteHardSyncAll(CoreContext& c);

// ---- launch.cpp -------------------------------------------------------------------------------
std::unique_lock<std::mutex> LaunchLock(CoreContext& c);
CrossCoreLaunch& LaunchCrossCore(CoreContext& c); // lock held; created on first use
uint32_t LaunchSlot(const CoreContext& c);        // AIC 0.., then AIV 0..
uint32_t LaunchTimeoutMs(const CoreContext& c);
void LaunchWakeCrossCore(CoreContext& c, uint32_t slot); // lock held: the core waiting at `slot` re-checks
// Lock held: blocks the current core in a cross-core wait until woken or `deadline`. Returns a
// deadlock report when every unfinished core waits and none can proceed, or on timeout ("" = woken:
// re-check the counter). Throws KernelAbort (lock released) when the launch has failed.
std::string LaunchBlockCrossCore(
    CoreContext& c, std::unique_lock<std::mutex>& lk, std::chrono::steady_clock::time_point deadline);

} // namespace kernel
} // namespace twin
