// ThreadSanitizer canary: 8 virtual cores, one pool thread each, bump a plain (unsynchronised) host
// counter. This is a real data race on purpose; the ASCEND_DCN_TSAN build registers this program as
// a test that passes only when TSan reports "data race", proving the TSan CI step can see races
// between the twin's core threads/fibers. Never built in other configurations.
#include <chrono>

#include "kernel_operator.h"
#include "kernel_test_util.h"
#include "twin/kernel/core_scheduler.h"
#include "twin/kernel/core_thread_pool.h"

namespace {
int g_unsynchronised_counter = 0;

void SpinFor(std::chrono::milliseconds d)
{
    const auto until = std::chrono::steady_clock::now() + d;
    while (std::chrono::steady_clock::now() < until) {
    }
}
} // namespace

int main()
{
    twin::kernel::SetCoreThreadBudget(8);
    const auto r = ktest::Run(8, twin::KernelType::MIX_AIV_1_0, [] {
        // Busy-wait around the increment so the cores overlap in time: the scheduler's own mutex
        // would otherwise order cores that happen to run one after another.
        SpinFor(std::chrono::milliseconds(50));
        ++g_unsynchronised_counter;
        SpinFor(std::chrono::milliseconds(50));
    });
    return r.ok ? 0 : 1;
}
