// Persistent core threads of twin::Launch: with a thread budget of at least the core count the cores
// of one launch run on distinct threads at the same time (fewer threads: test_core_scheduler.cpp),
// later launches reuse those threads (no growth), thread-local core state starts clean
// on a reused thread (also after a violation), and two launches from different caller threads
// get disjoint workers and both meet their own SyncAll barriers; the calls of one launch are placed on
// distinct CPUs of the caller's affinity set (TWIN_PIN_THREADS=0: anywhere the caller may run).
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "kernel_operator.h"
#include "kernel_test_util.h"
#include "twin/kernel/core_scheduler.h"
#include "twin/kernel/core_thread_pool.h"

using namespace AscendC;
using twin::KernelType;

namespace {
std::set<std::thread::id> ThreadsOfLaunch(uint32_t cores, bool *distinct) {
    std::mutex mu;
    std::vector<std::thread::id> ids;
    auto r = ktest::Run(cores, KernelType::MIX_AIV_1_0, [&] {
        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
        {
            std::lock_guard<std::mutex> lk(mu);
            ids.push_back(std::this_thread::get_id());
        }
        SyncAll();   // every core resident at once, else this deadlocks
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    std::set<std::thread::id> s(ids.begin(), ids.end());
    *distinct = s.size() == cores && ids.size() == cores;
    return s;
}
}  // namespace

TEST(CoreThreadPool, cores_run_on_distinct_reused_threads)
{
    twin::kernel::SetCoreThreadBudget(64);
    bool distinct = false;
    const auto first = ThreadsOfLaunch(8, &distinct);
    EXPECT_TRUE(distinct);
    const uint32_t poolAfterFirst = twin::kernel::CoreThreadPoolSize();
    EXPECT_GE(poolAfterFirst, 8);
    for (int i = 0; i < 3; ++i) {
        const auto again = ThreadsOfLaunch(8, &distinct);
        EXPECT_TRUE(distinct);
        EXPECT_TRUE(std::includes(first.begin(), first.end(), again.begin(), again.end()) || again == first);
    }
    EXPECT_EQ(twin::kernel::CoreThreadPoolSize(), poolAfterFirst);
    // a smaller launch takes a subset, a larger one grows the pool by the difference only
    ThreadsOfLaunch(3, &distinct);
    EXPECT_TRUE(distinct);
    EXPECT_EQ(twin::kernel::CoreThreadPoolSize(), poolAfterFirst);
    twin::kernel::SetCoreThreadBudget(0);
}

TEST(CoreThreadPool, reused_thread_starts_with_clean_core_state)
{
    // launch 1 fails mid-kernel with a pipe alive and a flag set; launch 2 on the same threads
    // must see no pipe and no pending flag.
    auto bad = ktest::Run(4, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        SetFlag<HardEvent::V_S>(0);
        if (GetBlockIdx() == 1) WaitFlag<HardEvent::S_V>(0);   // violation: wait without set
        WaitFlag<HardEvent::V_S>(0);
    });
    EXPECT_TRUE(ktest::ExpectViolation(bad, {"WaitFlag", "core AIV 1"}));
    bool pipeSeen = false;
    std::mutex mu;
    auto good = ktest::Run(4, KernelType::AIV_ONLY, [&] {
        std::lock_guard<std::mutex> lk(mu);
        pipeSeen = pipeSeen || GetTPipePtr() != nullptr;
    });
    EXPECT_TRUE(ktest::ExpectOk(good));
    EXPECT_FALSE(pipeSeen);
}

TEST(CoreThreadPool, concurrent_launches_from_two_callers)
{
    auto one = [](int32_t tag, std::vector<int32_t> *seen) {
        ktest::Gm<int32_t> slots(6 * 8, "slots");
        auto r = ktest::Run(6, KernelType::MIX_AIV_1_0, [&] {
            KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
            const int64_t me = GetBlockIdx(), n = GetBlockNum();
            GlobalTensor<int32_t> s;
            s.SetGlobalBuffer((__gm__ int32_t *)slots.addr(), n * 8);
            s.SetValue(me * 8, static_cast<int32_t>(tag + me));
            SyncAll();
            s.SetValue(me * 8 + 1, s.GetValue(((me + 1) % n) * 8));
        });
        EXPECT_TRUE(ktest::ExpectOk(r));
        for (int c = 0; c < 6; ++c) seen->push_back(slots[c * 8 + 1]);
    };
    std::vector<int32_t> a, b;
    std::thread ta(one, 1000, &a), tb(one, 2000, &b);
    ta.join();
    tb.join();
    EXPECT_EQ(a.size(), 6);
    EXPECT_EQ(b.size(), 6);
    for (int c = 0; c < 6 && a.size() == 6 && b.size() == 6; ++c) {
        EXPECT_EQ(a[c], 1000 + (c + 1) % 6);
        EXPECT_EQ(b[c], 2000 + (c + 1) % 6);
    }
}

// UB arenas are recycled across launches: a buffer handed out by InitBuffer still starts as poison
// (0xFF bytes), never as a previous launch's data. Observable through DataCopyPad's undefined
// padding elements (isPad=false with rightPadding: they keep the UB contents).
TEST(CoreThreadPool, recycled_ub_arena_is_poisoned_by_init_buffer)
{
    ktest::Gm<float> in(8, "in"), out(8, "out");
    for (int i = 0; i < 8; ++i) in[i] = float(i + 1);
    auto fill = ktest::Run(2, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 1024);
        LocalTensor<float> t = buf.Get<float>();
        Duplicate(t, 1.0f, 256);
    });
    EXPECT_TRUE(ktest::ExpectOk(fill));
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 1024);
        LocalTensor<float> t = buf.Get<float>();
        GlobalTensor<float> gi, go;
        gi.SetGlobalBuffer((__gm__ float *)in.addr(), 8);
        go.SetGlobalBuffer((__gm__ float *)out.addr(), 8);
        DataCopyPad(t, gi, DataCopyExtParams(1, 4 * sizeof(float), 0, 0, 0), DataCopyPadExtParams<float>(false, 0, 2, 0.0f));
        SetFlag<HardEvent::MTE2_MTE3>(0);
        WaitFlag<HardEvent::MTE2_MTE3>(0);
        DataCopy(go, t, 8);
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    EXPECT_EQ(out[0], 1.0f);
    EXPECT_EQ(out[3], 4.0f);
    for (int i = 4; i < 8; ++i) {
        uint32_t bits = 0;
        std::memcpy(&bits, &out[i], sizeof(bits));
        EXPECT_EQ(bits, 0xFFFFFFFFu);
    }
}

namespace {
// Affinity set of the calling thread, as ascending CPU numbers.
std::vector<int> AllowedCpus(pthread_t t)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    EXPECT_EQ(pthread_getaffinity_np(t, sizeof(set), &set), 0);
    std::vector<int> cpus;
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &set))
            cpus.push_back(c);
    return cpus;
}
} // namespace

TEST(CoreThreadPool, calls_of_one_launch_are_placed_on_distinct_cpus)
{
    const std::vector<int> caller = AllowedCpus(pthread_self());
    const uint32_t n = 3;
    std::vector<std::vector<int>> seen(n);
    twin::kernel::RunOnDistinctThreads(n, [&](uint32_t i) { seen[i] = AllowedCpus(pthread_self()); });
    for (uint32_t i = 0; i < n; ++i) {
        if (caller.size() < 2) {
            EXPECT_EQ(seen[i], caller) << "one CPU: nothing to spread, call " << i;
        } else {
            EXPECT_EQ(seen[i], std::vector<int>{caller[i % caller.size()]}) << "call " << i;
        }
    }
    // placement off: the workers (the same ones, reused) may run wherever the caller may
    setenv("TWIN_PIN_THREADS", "0", 1);
    twin::kernel::RunOnDistinctThreads(n, [&](uint32_t i) { seen[i] = AllowedCpus(pthread_self()); });
    unsetenv("TWIN_PIN_THREADS");
    for (uint32_t i = 0; i < n; ++i)
        EXPECT_EQ(seen[i], caller) << "TWIN_PIN_THREADS=0, call " << i;
}
