// Thread budget of twin::Launch (twin/kernel/core_scheduler.h): the cores of a launch run as fibers on
// at most CoreThreadBudget() OS threads; SyncAll, cross-core GM waits, Matmul service, deadlock
// detection (which cores wait where) and per-core counters work with 1 and 2 threads, and with one
// thread the interleaving of the cores is the same on every run.
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "kernel_test_util.h"
#include "twin/kernel/core_scheduler.h"

using namespace AscendC;
using twin::KernelType;

namespace {

struct Budget {   // sets the thread budget for one test, restores the default after
    explicit Budget(uint32_t n) { twin::kernel::SetCoreThreadBudget(n); }
    ~Budget() { twin::kernel::SetCoreThreadBudget(0); }
};

// Runs an 8-core SyncAll ring exchange; returns the OS threads the cores ran on (empty on failure).
std::set<std::thread::id> RingExchange(uint32_t cores) {
    ktest::Gm<int32_t> slots(cores * 8, "slots"), result(cores * 8, "result");
    std::mutex mu;
    std::set<std::thread::id> ids;
    auto r = ktest::Run(cores, KernelType::MIX_AIV_1_0, [&] {
        const int64_t me = GetBlockIdx(), n = GetBlockNum();
        {
            std::lock_guard<std::mutex> lk(mu);
            ids.insert(std::this_thread::get_id());
        }
        GlobalTensor<int32_t> s, out;
        s.SetGlobalBuffer((__gm__ int32_t *)slots.addr(), n * 8);
        out.SetGlobalBuffer((__gm__ int32_t *)result.addr(), n * 8);
        for (int round = 0; round < 3; ++round) {
            s.SetValue(me * 8, static_cast<int32_t>(me * 100 + round));
            SyncAll();
            out.SetValue(me * 8 + round, s.GetValue(((me + 1) % n) * 8));
            SyncAll();
        }
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    bool right = r.ok;
    for (uint32_t c = 0; c < cores; ++c)
        for (int round = 0; round < 3; ++round) right = right && result[c * 8 + round] == static_cast<int32_t>(((c + 1) % cores) * 100 + round);
    EXPECT_TRUE(right);
    for (const auto& cc : r.cores) {
        EXPECT_EQ(cc.syncAllCount, 6u);
        EXPECT_EQ(cc.atSyncAll.size(), 6u);
        EXPECT_EQ(cc.scalarGmOps, 9u);
    }
    return right ? ids : std::set<std::thread::id>{};
}

}  // namespace

TEST(CoreScheduler, sync_all_works_on_one_and_two_threads)
{
    {
        Budget b(1);
        const auto ids = RingExchange(8);
        EXPECT_EQ(ids.size(), 1);
    }
    {
        Budget b(2);
        const auto ids = RingExchange(8);
        EXPECT_GE(ids.size(), 1);
        EXPECT_LE(ids.size(), 2);
    }
    {
        Budget b(64);
        EXPECT_EQ(RingExchange(8).size(), 8); // enough threads: one per core, as before
    }
}

TEST(CoreScheduler, budget_comes_from_twin_threads_env)
{
    twin::kernel::SetCoreThreadBudget(0);
    setenv("TWIN_THREADS", "3", 1);
    EXPECT_EQ(twin::kernel::CoreThreadBudget(), 3);
    {
        Budget b(5);
        EXPECT_EQ(twin::kernel::CoreThreadBudget(), 5); // the API setting wins
    }
    unsetenv("TWIN_THREADS");
    EXPECT_GE(twin::kernel::CoreThreadBudget(), 1);
}

TEST(CoreScheduler, core_spinning_on_gm_lets_the_others_of_its_thread_run)
{
    Budget b(1);
    ktest::Gm<int32_t> flag(8, "flag");
    // A scalar GM-flag protocol is outside the hazard checker's model (it reports the unordered flag
    // write/read); this case is about scheduling only, so the checker is off for its launch.
    setenv("TWIN_HAZARD", "0", 1);
    auto r = ktest::Run(2, KernelType::MIX_AIV_1_0, [&] {
        GlobalTensor<int32_t> f;
        f.SetGlobalBuffer((__gm__ int32_t *)flag.addr(), 8);
        if (GetBlockIdx() == 0) {
            while (f.GetValue(0) == 0) {   // core 1 runs on the same thread: must get its turn
            }
        } else {
            f.SetValue(0, 1);
        }
        SyncAll();
    });
    unsetenv("TWIN_HAZARD");
    EXPECT_TRUE(ktest::ExpectOk(r));
}

TEST(CoreScheduler, deadlock_detection_on_one_thread)
{
    Budget b(1);
    const auto t0 = std::chrono::steady_clock::now();
    auto r = ktest::Run(4, KernelType::MIX_AIV_1_0, [&] {
        if (GetBlockIdx() != 2) SyncAll();
    }, 60000);
    EXPECT_TRUE(ktest::ExpectViolation(r, {"SyncAll", "deadlock", "AIV 2 left the kernel without reaching SyncAll"}));
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
    // circular wait: core 0 in SyncAll, core 1 spinning on a flag core 0 sets after it
    ktest::Gm<int32_t> flag(8, "flag");
    r = ktest::Run(2, KernelType::MIX_AIV_1_0, [&] {
        GlobalTensor<int32_t> f;
        f.SetGlobalBuffer((__gm__ int32_t *)flag.addr(), 8);
        if (GetBlockIdx() == 0) {
            SyncAll();
            f.SetValue(0, 1);
        } else {
            while (f.GetValue(0) == 0) {
            }
            SyncAll();
        }
    }, 300);
    EXPECT_TRUE(ktest::ExpectViolation(
        r,
        {"SyncAll", "deadlock: no progress for 300 ms", "waiting: AIV 0 in SyncAll", "not arrived (running): AIV 1"}));
}

TEST(CoreScheduler, one_thread_interleaving_is_the_same_on_every_run)
{
    Budget b(1);
    auto trace = [] {
        std::vector<int> order;
        auto r = ktest::Run(6, KernelType::MIX_AIV_1_0, [&] {
            const int me = static_cast<int>(GetBlockIdx());
            order.push_back(me);          // one OS thread: no lock needed
            SyncAll();
            order.push_back(10 + me);
            SyncAll();
            order.push_back(20 + me);
        });
        EXPECT_TRUE(ktest::ExpectOk(r));
        return order;
    };
    const std::vector<int> first = trace();
    EXPECT_EQ(first.size(), 18);
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(trace(), first) << "i = " << i;
    }
}

namespace {
using FType = MatmulType<TPosition::GM, CubeFormat::ND, float>;
}

TEST(CoreScheduler, matmul_service_on_one_thread)
{
    Budget b(1);
    const int M = 32, N = 16, K = 16;
    ktest::Gm<float> a(M * K, "a"), bm(K * N, "b"), c(M * N, "c");
    for (int i = 0; i < M * K; ++i) a[i] = 1.0f;
    for (int i = 0; i < K * N; ++i) bm[i] = 2.0f;
    ktest::Gm<uint8_t> ws(twin::kLibApiWorkspaceBytes, "ws");
    TCubeTiling t{};
    t.usedCoreNum = 1;
    t.M = M; t.N = N; t.Ka = K; t.Kb = K;
    t.singleCoreM = M / 4; t.singleCoreN = N; t.singleCoreK = K;
    t.baseM = 16; t.baseN = 16; t.baseK = 16;
    twin::LaunchOptions opt{};
    opt.blockDim = 2;
    opt.type = KernelType::MIX_AIC_1_2;
    opt.workspace = ws.addr();
    auto r = twin::Launch(opt, [&] {
        TPipe pipe;
        Matmul<FType, FType, FType, FType, CFG_NORM> mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        if ASCEND_IS_AIC { return; }
        const int64_t me = GetBlockIdx();   // 4 AIV cores, one quarter of the rows each
        GlobalTensor<float> ga, gb, gc;
        ga.SetGlobalBuffer((__gm__ float *)a.addr());
        gb.SetGlobalBuffer((__gm__ float *)bm.addr());
        gc.SetGlobalBuffer((__gm__ float *)c.addr());
        SyncAll();
        mm.SetTensorA(ga[me * (M / 4) * K]);
        mm.SetTensorB(gb);
        mm.IterateAll(gc[me * (M / 4) * N]);
        mm.End();
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    bool right = true;
    for (int i = 0; i < M * N; ++i) right = right && c[i] == 2.0f * K;
    EXPECT_TRUE(right);
    ASSERT_EQ(r.cores.size(), 6u);
    EXPECT_TRUE(r.cores[0].isAic);
    EXPECT_EQ(r.cores[0].cubeMacs, uint64_t(M / 2) * N * K);
}

namespace {
// Per AIC, the order in which its AIV cores send Matmul requests, on a MIX_AIC_1_2 launch of 3 blocks
// (3 AIC, 6 AIV) whose AIV cores do different amounts of GM work (so they yield at different points)
// between requests, with SyncAll between rounds.
std::vector<std::vector<int>> MatmulRequestOrder()
{
    const int M = 96, N = 16, K = 16, rows = 16;
    ktest::Gm<float> a(M * K, "a"), bm(K * N, "b"), c(M * N, "c"), spin(4096, "spin");
    ktest::Gm<uint8_t> ws(twin::kLibApiWorkspaceBytes, "ws");
    TCubeTiling t{};
    t.usedCoreNum = 1;
    t.M = M;
    t.N = N;
    t.Ka = K;
    t.Kb = K;
    t.singleCoreM = rows;
    t.singleCoreN = N;
    t.singleCoreK = K;
    t.baseM = 16;
    t.baseN = 16;
    t.baseK = 16;
    twin::LaunchOptions opt{};
    opt.blockDim = 3;
    opt.type = KernelType::MIX_AIC_1_2;
    opt.workspace = ws.addr();
    std::mutex mu;
    std::vector<std::vector<int>> order(3);
    auto r = twin::Launch(opt, [&] {
        TPipe pipe;
        Matmul<FType, FType, FType, FType, CFG_NORM> mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        if ASCEND_IS_AIC {
            return;
        }
        const int me = static_cast<int>(GetBlockIdx());
        GlobalTensor<float> ga, gb, gc, gs;
        ga.SetGlobalBuffer((__gm__ float*)a.addr());
        gb.SetGlobalBuffer((__gm__ float*)bm.addr());
        gc.SetGlobalBuffer((__gm__ float*)c.addr());
        gs.SetGlobalBuffer((__gm__ float*)spin.addr());
        for (int round = 0; round < 3; ++round) {
            for (int step = 0; step < 2; ++step) {
                const int polls = 700 * ((me * 7 + round * 3 + step) % 5 + 1); // 1-5 yields' worth, per core
                float sum = 0;
                for (int i = 0; i < polls; ++i)
                    sum += gs.GetValue(i % 4096);
                {
                    std::lock_guard<std::mutex> lk(mu);
                    order[me / 2].push_back(me + static_cast<int>(sum));
                }
                mm.SetTensorA(ga[me * rows * K]);
                mm.SetTensorB(gb);
                mm.IterateAll(gc[me * rows * N]);
            }
            SyncAll();
        }
        mm.End();
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    return order;
}
} // namespace

TEST(CoreScheduler, matmul_request_order_is_the_same_on_every_run_and_thread_count)
{
    std::vector<std::vector<int>> first;
    {
        Budget b(1);
        first = MatmulRequestOrder();
    }
    ASSERT_EQ(first.size(), 3u);
    for (const auto& o : first)
        EXPECT_EQ(o.size(), 12u);
    for (uint32_t threads : {1u, 2u, 3u, 2u, 8u, 2u}) {
        Budget b(threads);
        EXPECT_EQ(MatmulRequestOrder(), first) << threads << " threads";
    }
}
