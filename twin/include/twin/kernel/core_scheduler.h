// Cooperative scheduler of the virtual cores of one twin::Launch: the cores run as user-level contexts
// (ucontext fibers) on at most CoreThreadBudget() OS threads of the persistent pool.
// Invariants: core i runs on pool thread i % threads for its whole life; a thread runs one core at a
// time and switches only when that core blocks (Block: SyncAll, Matmul service), yields (YieldCore:
// every kYieldPolls GM accesses of a core that shares its thread, so a core spinning on GM lets the
// others progress) or leaves the kernel. Among its ready cores a thread picks the next in index order
// after the one it ran last, so with one thread the interleaving is the same on every run.
// Wake-ups go by channel (0: launch-wide barriers; 1 + i: AIC i's Matmul service): Wake(ch) makes the
// cores blocked on ch ready, WakeAll every blocked core, and a passed deadline its core; a ready core
// re-checks its own condition. Thread-local core state (CurrentCore, the current TPipe) is saved and
// restored on every switch. Sanitizers: ASan is told about every stack switch
// (__sanitizer_start/finish_switch_fiber), TSan about every fiber (__tsan_create/switch_to_fiber).
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace twin {
namespace kernel {

struct CoreContext;

// OS threads the cores of one launch may use: SetCoreThreadBudget(n) if n > 0, else $TWIN_THREADS
// (> 0), else std::thread::hardware_concurrency() (at least 1).
uint32_t CoreThreadBudget();
void SetCoreThreadBudget(uint32_t threads);   // 0 = back to the default

class CoreScheduler {
public:
    using Clock = std::chrono::steady_clock;
    // mu / cv: the launch's mutex and condition variable; channels: wake-up channels (>= 1).
    CoreScheduler(std::mutex &mu, std::condition_variable &cv, uint32_t channels);
    ~CoreScheduler();
    CoreScheduler(const CoreScheduler &) = delete;
    CoreScheduler &operator=(const CoreScheduler &) = delete;

    // Runs runCore(i) for i in [0, n) as fibers on min(n, threads) pool threads; returns when all have
    // returned. Core i runs as cores[i] (made CurrentCore() whenever it is switched in). runCore must
    // not throw.
    void Run(uint32_t n, uint32_t threads, CoreContext *const *cores, const std::function<void(uint32_t)> &runCore);
    // On a running core, with lk held on the launch mutex: blocks until Wake(channel), WakeAll or
    // `deadline`; lk is released meanwhile and held again on return. Returns true if the deadline passed.
    bool Block(std::unique_lock<std::mutex> &lk, uint32_t channel, Clock::time_point deadline);
    // Caller holds the launch mutex.
    void Wake(uint32_t channel);
    void WakeAll();

    struct Fiber;
    struct Thread;

private:
    void ThreadLoop(Thread &t);
    std::mutex &mu_;
    std::condition_variable &cv_;
    std::vector<uint64_t> epoch_;   // per channel, bumped by Wake
};

// Lets the other ready cores of this thread run (no-op outside a fiber or when alone on the thread).
void YieldCore();

}  // namespace kernel
}  // namespace twin
