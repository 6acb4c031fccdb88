// Batch schedule mode (issue 9 part 4): a kernel that calls SyncAll must be launched in batch mode
// (TilingContext::SetScheduleMode(1); SyncAll docs), else several such operators on several streams can
// deadlock. The twin's launch carries the tiling's schedule mode; SyncAll under mode 0 is a violation.
#include <gtest/gtest.h>

#include "kernel_operator.h"
#include "kernel_test_util.h"

using namespace AscendC;
using twin::KernelType;

namespace {
twin::LaunchResult RunSyncAllKernel(int32_t scheduleMode, bool callSyncAll) {
    twin::LaunchOptions o;
    o.blockDim = 2;
    o.type = KernelType::MIX_AIV_1_0;
    o.timeoutMs = 20000;
    o.scheduleMode = scheduleMode;
    return twin::Launch(o, [callSyncAll] {
        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
        if (callSyncAll) SyncAll();
    });
}
}  // namespace

TEST(RulesScheduleMode, syncall_needs_batch_schedule_mode)
{
    EXPECT_TRUE(ktest::ExpectViolation(
        RunSyncAllKernel(0, true), {"SyncAll", "core AIV", "batch schedule mode", "SetScheduleMode(1)"}));
    EXPECT_TRUE(ktest::ExpectOk(RunSyncAllKernel(1, true)));
    EXPECT_TRUE(ktest::ExpectOk(RunSyncAllKernel(0, false))); // mode 0 is fine for a kernel without SyncAll
}
