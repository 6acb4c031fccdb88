// Fork safety of the twin: a child forked after launches (persistent core threads exist in the
// parent, none in the child) runs kernels with SyncAll to the same result; the parent keeps working.
// Every wait is bounded: the parent kills a child that does not finish within the timeout.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "kernel_operator.h"
#include "kernel_test_util.h"
#include "twin/kernel/core_scheduler.h"
#include "twin/kernel/core_thread_pool.h"

using namespace AscendC;
using twin::KernelType;

namespace {

// Sum over cores of (core index + 1) exchanged through GM across a SyncAll; 0 if the launch failed.
int64_t SyncAllSum(uint32_t cores) {
    ktest::Gm<int32_t> slots(cores * 8, "slots"), result(cores * 8, "result");
    auto r = ktest::Run(cores, KernelType::MIX_AIV_1_0, [&] {
        const int64_t me = GetBlockIdx(), n = GetBlockNum();
        GlobalTensor<int32_t> s, out;
        s.SetGlobalBuffer((__gm__ int32_t *)slots.addr(), n * 8);
        out.SetGlobalBuffer((__gm__ int32_t *)result.addr(), n * 8);
        s.SetValue(me * 8, static_cast<int32_t>(me + 1));
        SyncAll();
        int32_t sum = 0;
        for (int64_t i = 0; i < n; ++i) sum += s.GetValue(i * 8);
        out.SetValue(me * 8, sum);
    }, 10000);
    if (!r.ok) return 0;
    return result[0];
}

// Exit status of `pid`, or -1 after killing it if it does not finish within `seconds`.
int WaitBounded(pid_t pid, int seconds) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    for (;;) {
        int status = 0;
        const pid_t got = waitpid(pid, &status, WNOHANG);
        if (got == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        if (std::chrono::steady_clock::now() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return -1;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

}  // namespace

TEST(Fork, child_forked_after_launches_runs_kernels)
{
    twin::kernel::SetCoreThreadBudget(8);   // one core thread per core: 8 live threads at fork time
    EXPECT_EQ(SyncAllSum(8), 36);
    EXPECT_GE(twin::kernel::CoreThreadPoolSize(), 8); // parent has live core threads now
    const pid_t pid = fork();
    if (pid == 0) {
        // child: the parent's workers do not exist here; a fresh pool must start
        bool ok = SyncAllSum(8) == 36 && SyncAllSum(3) == 6;
        twin::kernel::SetCoreThreadBudget(2);   // and fibers sharing threads
        ok = ok && SyncAllSum(8) == 36;
        _exit(ok ? 0 : 3);
    }
    EXPECT_GT(pid, 0);
    const int status = WaitBounded(pid, 60);
    EXPECT_EQ(status, 0);         // -1: the child hung (killed by the guard)
    EXPECT_EQ(SyncAllSum(8), 36); // the parent's pool still works
    twin::kernel::SetCoreThreadBudget(0);
}
