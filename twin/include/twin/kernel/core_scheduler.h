// Cooperative scheduler of the virtual cores of one twin::Launch: the cores run as user-level contexts
// (ucontext fibers) on at most CoreThreadBudget() OS threads of the persistent pool.
// Invariants: the cores of one group (an AIC and the AIV cores it serves; otherwise one core) run on
// one pool thread, group g on thread g % threads, for their whole life; a thread runs one core at a
// time and switches only when that core blocks (Block: SyncAll, Matmul service), yields (YieldCore:
// every kYieldPolls GM accesses of a core that shares its thread, so a core spinning on GM lets the
// others progress) or leaves the kernel. Among its ready cores a thread picks the next in index order
// after the one it ran last; when a barrier of all cores opens (Restart), every thread starts again
// from its lowest-index ready core. So the interleaving of the cores of one group (the order of their
// Matmul requests to their AIC) is the same on every run and for every thread count.
// Wake-ups go by channel (0: launch-wide barriers; 1 + i: AIC i's Matmul service): Wake(ch) makes the
// cores blocked on ch ready and wakes only the idle threads that hold such a core (each thread sleeps
// on its own condition variable), WakeAll every blocked core, and a passed deadline its core; a ready
// core re-checks its own condition. Thread-local core state (CurrentCore, the current TPipe) is saved
// and restored on every switch. Sanitizers: ASan is told about every stack switch
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
    // mu: the launch's mutex; channels: wake-up channels (>= 1).
    CoreScheduler(std::mutex& mu, uint32_t channels);
    ~CoreScheduler();
    CoreScheduler(const CoreScheduler &) = delete;
    CoreScheduler &operator=(const CoreScheduler &) = delete;

    // Runs runCore(i) for i in [0, n) as fibers on min(groups, threads) pool threads; returns when all
    // have returned. Core i runs as cores[i] (made CurrentCore() whenever it is switched in) in group
    // group[i] (group ids in [0, n)). runCore must not throw.
    void Run(
        uint32_t n, uint32_t threads, CoreContext* const* cores, const uint32_t* group,
        const std::function<void(uint32_t)>& runCore);
    // On a running core, with lk held on the launch mutex: blocks until Wake(channel), WakeAll or
    // `deadline`; lk is released meanwhile and held again on return. Returns true if the deadline passed.
    bool Block(std::unique_lock<std::mutex> &lk, uint32_t channel, Clock::time_point deadline);
    // Caller holds the launch mutex.
    void Wake(uint32_t channel);
    void WakeAll();
    // On a running core, with lk held, right after it opened a barrier that every core of the launch
    // waits in (or has left): every thread resumes from its lowest-index ready core; this core yields
    // for that (lk is released meanwhile and held again on return).
    void Restart(std::unique_lock<std::mutex>& lk);

    struct Fiber;
    struct Thread;

private:
    void ThreadLoop(Thread &t);
    void Notify(Thread& t);
    std::mutex& mu_;
    std::vector<uint64_t> epoch_;   // per channel, bumped by Wake
    uint64_t restart_ = 0;          // bumped by Restart
    std::vector<Thread*> threads_;  // of the running Run
};

// Lets the other ready cores of this thread run (no-op outside a fiber or when alone on the thread).
void YieldCore();

}  // namespace kernel
}  // namespace twin
