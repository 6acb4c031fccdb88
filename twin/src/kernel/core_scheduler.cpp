// Cooperative scheduler of the virtual cores (see twin/kernel/core_scheduler.h).
#include "twin/kernel/core_scheduler.h"

#include <pthread.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>

#include "twin/kernel/core_context.h"
#include "twin/kernel/core_thread_pool.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TWIN_ASAN_FIBERS 1
#endif
#if __has_feature(thread_sanitizer)
#define TWIN_TSAN_FIBERS 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(TWIN_ASAN_FIBERS)
#define TWIN_ASAN_FIBERS 1
#endif
#if defined(__SANITIZE_THREAD__) && !defined(TWIN_TSAN_FIBERS)
#define TWIN_TSAN_FIBERS 1
#endif

#ifdef TWIN_ASAN_FIBERS
extern "C" {
void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom, size_t size);
void __sanitizer_finish_switch_fiber(void *fake_stack_save, const void **bottom_old, size_t *size_old);
void __asan_unpoison_memory_region(void const volatile *addr, size_t size);
}
#endif
#ifdef TWIN_TSAN_FIBERS
extern "C" {
void *__tsan_get_current_fiber(void);
void *__tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void *fiber);
void __tsan_switch_to_fiber(void *fiber, unsigned flags);
}
#endif

namespace twin {
namespace kernel {

// ---- thread budget ---------------------------------------------------------------------------

namespace {
std::atomic<uint32_t> g_budgetOverride{0};
}

uint32_t CoreThreadBudget() {
    const uint32_t o = g_budgetOverride.load();
    if (o > 0) return o;
    if (const char *env = std::getenv("TWIN_THREADS")) {
        const long v = std::strtol(env, nullptr, 10);
        if (v > 0) return static_cast<uint32_t>(std::min<long>(v, 4096));
    }
    return std::max(1u, std::thread::hardware_concurrency());
}

void SetCoreThreadBudget(uint32_t threads) { g_budgetOverride.store(threads); }

// ---- fiber stacks ----------------------------------------------------------------------------

namespace {
// 4 MiB per core (the pool threads had 8 MiB; kernels keep large data in UB/GM, not on the stack),
// reserved lazily, with a guard page below; recycled across launches (at most kMaxPooledStacks kept).
constexpr size_t kStackBytes = 4u << 20;
constexpr size_t kGuardBytes = 64u << 10;
constexpr size_t kMaxPooledStacks = 128;
std::mutex g_stackMu;
std::vector<void *> g_stacks;   // base of each mapping (guard first)

void StackLockForFork() { g_stackMu.lock(); }
void StackUnlockAfterFork() { g_stackMu.unlock(); }
const int g_stackAtFork = pthread_atfork(StackLockForFork, StackUnlockAfterFork, StackUnlockAfterFork);

void *TakeStack() {
    (void)g_stackAtFork;
    {
        std::lock_guard<std::mutex> lk(g_stackMu);
        if (!g_stacks.empty()) {
            void *s = g_stacks.back();
            g_stacks.pop_back();
            return s;
        }
    }
    void *p = mmap(nullptr, kStackBytes + kGuardBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    mprotect(p, kGuardBytes, PROT_NONE);
    return p;
}

void ReturnStack(void *p) {
#ifdef TWIN_ASAN_FIBERS
    // frames of the finished core may have left redzones poisoned on this stack
    __asan_unpoison_memory_region(static_cast<char *>(p) + kGuardBytes, kStackBytes);
#endif
    std::lock_guard<std::mutex> lk(g_stackMu);
    if (g_stacks.size() < kMaxPooledStacks) {
        g_stacks.push_back(p);
        return;
    }
    munmap(p, kStackBytes + kGuardBytes);
}
}  // namespace

// ---- fibers ----------------------------------------------------------------------------------

enum class FiberState { Ready, Running, Blocked, Finished };

struct CoreScheduler::Fiber {
    uint32_t index = 0;
    CoreContext *core = nullptr;
    void *pipe = nullptr;              // the core's current TPipe while switched out
    FiberState state = FiberState::Ready;
    uint32_t channel = 0;
    uint64_t epoch = 0;                // epoch_[channel] when it blocked
    Clock::time_point deadline = Clock::time_point::max();
    ucontext_t ctx;
    void *stack = nullptr;
    Thread *thread = nullptr;
    const std::function<void(uint32_t)> *run = nullptr;
    void *asanFakeStack = nullptr;
    void *tsanFiber = nullptr;
    bool finished = false;             // set by the fiber itself; read by its own thread only
};

struct CoreScheduler::Thread {
    CoreScheduler *sched = nullptr;
    std::vector<Fiber *> fibers;
    Fiber *current = nullptr;
    std::condition_variable cv; // the thread sleeps here when it has no ready core (under the launch mutex)
    bool idle = false;          // sleeping on cv
    ucontext_t mainCtx;
    const void *mainStackBottom = nullptr;   // learnt from ASan on the first switch into a fiber
    size_t mainStackSize = 0;
    void *mainFakeStack = nullptr;
    void *tsanMain = nullptr;
};

namespace {
thread_local CoreScheduler::Thread *t_thread = nullptr;

void FinishSwitchIntoFiber(CoreScheduler::Fiber &f) {
#ifdef TWIN_ASAN_FIBERS
    CoreScheduler::Thread &t = *f.thread;
    __sanitizer_finish_switch_fiber(f.asanFakeStack, &t.mainStackBottom, &t.mainStackSize);
#else
    (void)f;
#endif
}

// From the worker's main context into fiber f (returns when f switches back).
void SwitchToFiber(CoreScheduler::Thread &t, CoreScheduler::Fiber &f) {
    t.current = &f;
    SetCurrentCore(f.core);
    SetCurrentPipeHandle(f.pipe);
#ifdef TWIN_ASAN_FIBERS
    __sanitizer_start_switch_fiber(&t.mainFakeStack, static_cast<char *>(f.stack) + kGuardBytes, kStackBytes);
#endif
#ifdef TWIN_TSAN_FIBERS
    __tsan_switch_to_fiber(f.tsanFiber, 0);
#endif
    swapcontext(&t.mainCtx, &f.ctx);
#ifdef TWIN_ASAN_FIBERS
    __sanitizer_finish_switch_fiber(t.mainFakeStack, nullptr, nullptr);
#endif
    t.current = nullptr;
    SetCurrentCore(nullptr);
    SetCurrentPipeHandle(nullptr);
}

// From fiber f back to its worker's main context; `finished`: f never runs again.
void SwitchToMain(CoreScheduler::Fiber &f, bool finished) {
    CoreScheduler::Thread &t = *f.thread;
    f.pipe = CurrentPipeHandle();
#ifdef TWIN_ASAN_FIBERS
    __sanitizer_start_switch_fiber(finished ? nullptr : &f.asanFakeStack, t.mainStackBottom, t.mainStackSize);
#endif
#ifdef TWIN_TSAN_FIBERS
    __tsan_switch_to_fiber(t.tsanMain, 0);
#endif
    if (finished) {
        setcontext(&t.mainCtx);
    } else {
        swapcontext(&f.ctx, &t.mainCtx);
        FinishSwitchIntoFiber(f);
    }
}

void FiberEntry() {
    CoreScheduler::Fiber &f = *t_thread->current;
    FinishSwitchIntoFiber(f);
    (*f.run)(f.index);
    f.finished = true;   // `state` is written only under the launch mutex (ThreadLoop turns this into Finished)
    SwitchToMain(f, true);
}
}  // namespace

// ---- the scheduler ---------------------------------------------------------------------------

CoreScheduler::CoreScheduler(std::mutex& mu, uint32_t channels) : mu_(mu), epoch_(std::max(1u, channels), 0) {}

CoreScheduler::~CoreScheduler() = default;

void CoreScheduler::Run(
    uint32_t n, uint32_t threads, CoreContext* const* cores, const uint32_t* group,
    const std::function<void(uint32_t)>& runCore)
{
    if (n == 0) return;
    uint32_t groups = 0;
    for (uint32_t i = 0; i < n; ++i)
        groups = std::max(groups, group[i] + 1);
    threads = std::max(1u, std::min(threads, groups));
    std::vector<Fiber> fibers(n);
    std::vector<Thread> workers(threads);
    for (uint32_t t = 0; t < threads; ++t) workers[t].sched = this;
    for (uint32_t i = 0; i < n; ++i) {
        Fiber &f = fibers[i];
        f.index = i;
        f.core = cores[i];
        f.run = &runCore;
        f.thread = &workers[group[i] % threads];
        f.thread->fibers.push_back(&f); // in index order
    }
    for (uint32_t i = 0; i < n; ++i) cores[i]->sharesThread = fibers[i].thread->fibers.size() > 1;
    {
        std::lock_guard<std::mutex> lk(mu_);
        threads_.clear();
        for (Thread& w : workers)
            threads_.push_back(&w);
    }
    RunOnDistinctThreads(threads, [this, &workers](uint32_t t) { ThreadLoop(workers[t]); });
    std::lock_guard<std::mutex> lk(mu_);
    threads_.clear();
}

void CoreScheduler::ThreadLoop(Thread &t) {
    t_thread = &t;
#ifdef TWIN_TSAN_FIBERS
    t.tsanMain = __tsan_get_current_fiber();
#endif
    for (Fiber *f : t.fibers) {
        f->stack = TakeStack();
        getcontext(&f->ctx);
        f->ctx.uc_stack.ss_sp = static_cast<char *>(f->stack) + kGuardBytes;
        f->ctx.uc_stack.ss_size = kStackBytes;
        f->ctx.uc_link = nullptr;
        makecontext(&f->ctx, FiberEntry, 0);
#ifdef TWIN_TSAN_FIBERS
        f->tsanFiber = __tsan_create_fiber(0);
#endif
    }
    size_t next = 0, done = 0;
    std::unique_lock<std::mutex> lk(mu_);
    uint64_t restartSeen = restart_;
    while (done < t.fibers.size()) {
        if (restart_ != restartSeen) { // a barrier of all cores opened: start again from the first core
            restartSeen = restart_;
            next = 0;
        }
        Fiber *pick = nullptr;
        const Clock::time_point now = Clock::now();
        Clock::time_point earliest = Clock::time_point::max();
        for (size_t k = 0; k < t.fibers.size() && pick == nullptr; ++k) {
            Fiber *f = t.fibers[(next + k) % t.fibers.size()];
            if (f->state == FiberState::Ready ||
                (f->state == FiberState::Blocked && (epoch_[f->channel] != f->epoch || now >= f->deadline))) {
                pick = f;
                next = (next + k + 1) % t.fibers.size();
            } else if (f->state == FiberState::Blocked) {
                earliest = std::min(earliest, f->deadline);
            }
        }
        if (pick == nullptr) {
            t.idle = true;
            if (earliest == Clock::time_point::max())
                t.cv.wait(lk);
            else
                t.cv.wait_until(lk, earliest);
            t.idle = false;
            continue;
        }
        pick->state = FiberState::Running;
        lk.unlock();
        SwitchToFiber(t, *pick);
        lk.lock();
        // Block and Restart set Blocked/Ready themselves (under the mutex); a fiber that comes back still
        // Running has either finished or yielded (YieldCore).
        if (pick->state == FiberState::Running)
            pick->state = pick->finished ? FiberState::Finished : FiberState::Ready;
        if (pick->state == FiberState::Finished) ++done;
    }
    lk.unlock();
    for (Fiber *f : t.fibers) {
        ReturnStack(f->stack);
#ifdef TWIN_TSAN_FIBERS
        __tsan_destroy_fiber(f->tsanFiber);
#endif
    }
    t_thread = nullptr;
}

bool CoreScheduler::Block(std::unique_lock<std::mutex> &lk, uint32_t channel, Clock::time_point deadline) {
    Thread *t = t_thread;
    if (t == nullptr || t->current == nullptr) throw std::logic_error("CoreScheduler::Block outside a core fiber");
    Fiber &f = *t->current;
    f.channel = channel < epoch_.size() ? channel : 0;
    f.epoch = epoch_[f.channel];
    f.deadline = deadline;
    f.state = FiberState::Blocked;
    lk.unlock();
    SwitchToMain(f, false);   // back when woken, the deadline passed, or the thread had nothing else
    lk.lock();
    f.deadline = Clock::time_point::max();
    return Clock::now() >= deadline;
}

void CoreScheduler::Notify(Thread& t)
{
    if (t.idle)
        t.cv.notify_one();
}

void CoreScheduler::Wake(uint32_t channel) {
    if (channel >= epoch_.size())
        return;
    ++epoch_[channel];
    for (Thread* t : threads_) {
        for (const Fiber* f : t->fibers) {
            if (f->state == FiberState::Blocked && f->channel == channel) {
                Notify(*t);
                break;
            }
        }
    }
}

void CoreScheduler::WakeAll() {
    for (uint64_t &e : epoch_) ++e;
    for (Thread* t : threads_)
        Notify(*t);
}

void CoreScheduler::Restart(std::unique_lock<std::mutex>& lk)
{
    ++restart_;
    Thread* t = t_thread;
    if (t == nullptr || t->current == nullptr)
        return;
    Fiber& f = *t->current;
    f.state = FiberState::Ready;
    lk.unlock();
    SwitchToMain(f, false);
    lk.lock();
}

void YieldCore() {
    CoreScheduler::Thread *t = t_thread;
    if (t == nullptr || t->current == nullptr || t->fibers.size() < 2) return;
    SwitchToMain(*t->current, false);   // ThreadLoop marks it Ready under the launch mutex
}

}  // namespace kernel
}  // namespace twin
