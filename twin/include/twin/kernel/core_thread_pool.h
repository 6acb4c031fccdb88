// Persistent worker threads that run the virtual AI cores of twin::Launch.
// Invariants: RunOnDistinctThreads(n, fn) calls fn(0..n-1) each on its own thread, all n at the same
// time (cores of one launch meet at SyncAll barriers, so they must be resident together), and
// returns after every call has returned. Threads are created on demand and reused by later
// launches; concurrent launches from different caller threads get disjoint workers. fn must not
// throw (RunCore catches everything). Thread-local core state is reset by the caller (RunCore).
// Placement: call i runs on CPU i mod k of the caller's k-CPU affinity set (k >= 2), so the OS cannot
// stack the calls of one launch on one CPU; TWIN_PIN_THREADS=0 lets them run anywhere the caller may.
#pragma once
#include <cstdint>
#include <functional>

namespace twin {
namespace kernel {

void RunOnDistinctThreads(uint32_t n, const std::function<void(uint32_t)> &fn);

// Number of worker threads the pool owns (created so far); for tests.
uint32_t CoreThreadPoolSize();

}  // namespace kernel
}  // namespace twin
