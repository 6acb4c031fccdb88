// CrossCoreSetFlag / CrossCoreWaitFlag (twin/kernel/cross_core.h): the AIC -> AIV tile handoff passes
// hazard-free with the same results on any thread budget; the same without the wait is a GM hazard;
// a wait nobody can satisfy is a deadlock report (not a hang); invalid mode / flag ID / pipe / kernel
// type, reserved IDs and counter overflow are rejected; unpaired sets are reported at kernel end.
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kernel_operator.h"
#include "cross_core_kernels.h"
#include "twin/kernel/core_scheduler.h"
#include "kernel_test_util.h"

using twin::KernelType;
using xcore_kernels::HandoffOptions;
using xcore_kernels::kTileElems;

namespace {

constexpr uint32_t kAiCores = 2; // MIX_AIC_1_2 blockDim: 2 AIC + 4 AIV

struct Budget {
    explicit Budget(uint32_t n) { twin::kernel::SetCoreThreadBudget(n); }
    ~Budget() { twin::kernel::SetCoreThreadBudget(0); }
};

// The kernels of the GM-hazard tests really race (that is what they test); they run on one OS thread
// (the cores as fibers, switched at synchronisation points) so ThreadSanitizer builds stay quiet. The
// report does not depend on the thread budget: the budget test below shows it with the race-free
// dropped-site variant (the wait still blocks, but orders nothing for the checker).
struct OneThread : Budget {
    OneThread() : Budget(1) {}
};

// TWIN_DROP_SYNC on the AIVs' CrossCoreWaitFlag(kTileReady) for one scope.
struct DropAivWait {
    DropAivWait()
    {
        const std::string site = "cross_core_kernels.h:" + std::to_string(xcore_kernels::kAivWaitLine);
        setenv("TWIN_DROP_SYNC", site.c_str(), 1);
    }
    ~DropAivWait() { unsetenv("TWIN_DROP_SYNC"); }
};

struct HandoffRun {
    twin::LaunchResult r;
    std::vector<float> out;
};

HandoffRun RunHandoff(const HandoffOptions& o, uint32_t timeoutMs = 20000)
{
    ktest::Gm<float> slot(kAiCores * kTileElems, "slot");
    ktest::Gm<float> out(kAiCores * static_cast<size_t>(o.tiles) * kTileElems, "out");
    for (size_t i = 0; i < out.n; ++i)
        out[i] = -1.0f;
    HandoffRun h;
    h.r = ktest::Run(
        kAiCores, KernelType::MIX_AIC_1_2, [&] { xcore_kernels::Handoff(slot.addr(), out.addr(), o); }, timeoutMs);
    h.out.assign(out.p, out.p + out.n);
    return h;
}

// A MIX_AIC_1_2 launch running `body` on every core.
twin::LaunchResult RunMix(
    const std::function<void()>& body, KernelType type = KernelType::MIX_AIC_1_2, uint32_t blockDim = 1)
{
    return ktest::Run(blockDim, type, body, 20000);
}

} // namespace

// ---- the handoff ---------------------------------------------------------------------------------

TEST(CrossCore, handoff_aic_to_aiv_passes_hazard_free_with_the_expected_tiles)
{
    HandoffOptions o; // 20 tiles: more than the counter range, flow control keeps it below
    const HandoffRun h = RunHandoff(o);
    ASSERT_TRUE(ktest::ExpectOk(h.r));
    for (uint32_t aic = 0; aic < kAiCores; ++aic)
        for (int32_t t = 0; t < o.tiles; ++t)
            for (int32_t i = 0; i < kTileElems; ++i) {
                const float want = 2.0f * static_cast<float>(t * 1000 + i);
                ASSERT_EQ(h.out[(aic * o.tiles + t) * kTileElems + i], want)
                    << "AI core " << aic << " tile " << t << " element " << i;
            }
}

TEST(CrossCore, handoff_results_and_reports_are_identical_on_every_thread_budget)
{
    std::vector<float> first;
    std::string firstHazard, firstDeadlock;
    for (uint32_t threads : {1u, 2u, 4u, 6u}) {
        Budget b(threads);
        const HandoffRun ok = RunHandoff(HandoffOptions{});
        ASSERT_TRUE(ktest::ExpectOk(ok.r)) << "threads " << threads;
        HandoffOptions small;
        small.tiles = 4;
        HandoffRun hz;
        {
            DropAivWait drop;
            hz = RunHandoff(small);
        }
        HandoffOptions noSet;
        noSet.aicSets = false;
        noSet.flowControl = false;
        const HandoffRun dl = RunHandoff(noSet);
        ASSERT_FALSE(hz.r.ok);
        ASSERT_FALSE(dl.r.ok);
        if (first.empty()) {
            first = ok.out;
            firstHazard = hz.r.error;
            firstDeadlock = dl.r.error;
            continue;
        }
        EXPECT_EQ(ok.out, first) << "threads " << threads;
        EXPECT_EQ(hz.r.error, firstHazard) << "threads " << threads;
        EXPECT_EQ(dl.r.error, firstDeadlock) << "threads " << threads;
    }
}

TEST(CrossCore, handoff_without_the_wait_is_a_gm_hazard)
{
    OneThread one;
    HandoffOptions o;
    o.tiles = 4;
    o.aivWaits = false;
    const HandoffRun h = RunHandoff(o);
    EXPECT_TRUE(ktest::ExpectViolation(
        h.r, {"GM hazard across cores (read/write)", "AIC 0", "GlobalTensor::SetValue", "DataCopy", "'slot'"}));
}

TEST(CrossCore, handoff_without_flow_control_is_a_gm_hazard)
{
    // The AIC overwrites the slot before the AIVs have read the previous tile (write after read).
    OneThread one;
    HandoffOptions o;
    o.tiles = 4;
    o.flowControl = false;
    const HandoffRun h = RunHandoff(o);
    EXPECT_TRUE(ktest::ExpectViolation(h.r, {"GM hazard across cores (read/write)", "'slot'"}));
}

TEST(CrossCore, dropped_wait_site_is_a_gm_hazard)
{
    // TWIN_DROP_SYNC on the AIV's wait (sync-site machinery, twin/kernel/sync_site.h): it still waits,
    // but orders nothing.
    HandoffOptions o;
    o.tiles = 4;
    HandoffRun h;
    {
        DropAivWait drop;
        h = RunHandoff(o);
    }
    EXPECT_TRUE(ktest::ExpectViolation(h.r, {"GM hazard across cores (read/write)", "'slot'"}));
    const HandoffRun again = RunHandoff(o);
    EXPECT_TRUE(ktest::ExpectOk(again.r));
}

TEST(CrossCore, mode0_all_aiv_exchange_orders_the_rows_and_without_it_is_a_hazard)
{
    ktest::Gm<float> rows(4 * 64, "rows"), out(4 * 64, "out");
    const twin::LaunchResult ok =
        RunMix([&] { xcore_kernels::AllAivExchange(rows.addr(), out.addr(), true); }, KernelType::MIX_AIC_1_2, 2);
    ASSERT_TRUE(ktest::ExpectOk(ok));
    for (int core = 0; core < 4; ++core)
        EXPECT_EQ(out[core * 64 + 5], static_cast<float>((core + 1) % 4 + 1));
    OneThread one;
    const twin::LaunchResult bad =
        RunMix([&] { xcore_kernels::AllAivExchange(rows.addr(), out.addr(), false); }, KernelType::MIX_AIC_1_2, 2);
    EXPECT_TRUE(ktest::ExpectViolation(bad, {"GM hazard across cores (read/write)", "'rows'"}));
}

// ---- deadlocks -------------------------------------------------------------------------------------

TEST(CrossCore, wait_without_any_set_is_a_deadlock_report_not_a_hang)
{
    HandoffOptions o;
    o.aicSets = false;
    o.flowControl = false;
    const HandoffRun h = RunHandoff(o, 600000); // a hang would take the timeout: 10 minutes
    EXPECT_TRUE(ktest::ExpectViolation(
        h.r, {"CrossCoreWaitFlag: deadlock", "AIV 0 in CrossCoreWaitFlag(flagId 2", "no core has set this flag",
              "finished: AIC 0, AIC 1"}));
    EXPECT_LT(h.r.wallSeconds, 60.0);
}

TEST(CrossCore, group_round_missing_a_member_is_a_deadlock_naming_it)
{
    // Mode 2 AIV -> AIC needs both AIVs of the AI core; only sub-block 0 sets.
    const twin::LaunchResult r = RunMix([] {
        if ASCEND_IS_AIC {
            AscendC::CrossCoreWaitFlag(5);
            return;
        }
        if (AscendC::GetSubBlockIdx() == 0)
            AscendC::CrossCoreSetFlag<2, PIPE_MTE3>(5);
    });
    EXPECT_TRUE(ktest::ExpectViolation(
        r,
        {"CrossCoreWaitFlag: deadlock", "AIC 0 in CrossCoreWaitFlag(flagId 5", "needs a CrossCoreSetFlag from AIV 1"}));
}

TEST(CrossCore, deadlock_with_a_core_in_sync_all_is_reported)
{
    // AIV 0 waits for AIC 0, which waits in a SyncAll of all cores that AIV 0 never reaches.
    const twin::LaunchResult r = RunMix([] {
        if (ASCEND_IS_AIV && AscendC::GetSubBlockIdx() == 0)
            AscendC::CrossCoreWaitFlag(4);
        AscendC::SyncAll<false>();
        if ASCEND_IS_AIC {
            AscendC::CrossCoreSetFlag<2, PIPE_FIX>(4);
        }
    });
    EXPECT_TRUE(ktest::ExpectViolation(r, {"deadlock", "AIV 0 in CrossCoreWaitFlag(flagId 4", "AIC 0 in SyncAll"}));
}

// ---- rules -------------------------------------------------------------------------------------------

TEST(CrossCore, invalid_mode_flag_id_and_pipe_are_rejected)
{
    EXPECT_TRUE(ktest::ExpectViolation(
        RunMix([] { AscendC::CrossCoreSetFlag<3, PIPE_MTE3>(1); }), {"CrossCoreSetFlag", "modeId 3 is not supported"}));
    EXPECT_TRUE(ktest::ExpectViolation(
        RunMix([] { AscendC::CrossCoreSetFlag<4, PIPE_MTE3>(1); }), {"modeId 4 is not supported", "Ascend 950"}));
    EXPECT_TRUE(ktest::ExpectViolation(
        RunMix([] { AscendC::CrossCoreWaitFlag<3>(1); }), {"CrossCoreWaitFlag", "modeId 3 is not supported"}));
    EXPECT_TRUE(ktest::ExpectViolation(
        RunMix([] { AscendC::CrossCoreSetFlag<0, PIPE_MTE3>(16); }), {"flagId must be in [0, 15]", "low 4 bits, 0"}));
    EXPECT_TRUE(ktest::ExpectViolation(
        RunMix([] { AscendC::CrossCoreWaitFlag(17); }), {"CrossCoreWaitFlag", "flagId must be in [0, 15]"}));
    EXPECT_TRUE(ktest::ExpectViolation(
        RunMix([] { AscendC::CrossCoreSetFlag<0, PIPE_S>(1); }), {"PIPE_S and PIPE_ALL are not supported"}));
    EXPECT_TRUE(ktest::ExpectViolation(
        RunMix([] { AscendC::CrossCoreSetFlag<0, PIPE_ALL>(1); }), {"PIPE_S and PIPE_ALL are not supported"}));
    EXPECT_TRUE(ktest::ExpectViolation(
        RunMix([] { AscendC::CrossCoreWaitFlag<0, PIPE_ALL>(1); }),
        {"CrossCoreWaitFlag", "PIPE_ALL is not supported"}));
    EXPECT_TRUE(ktest::ExpectViolation(
        RunMix([] {
            if ASCEND_IS_AIV {
                AscendC::CrossCoreSetFlag<2, PIPE_FIX>(1);
            }
        }),
        {"core AIV", "PIPE_M/PIPE_MTE1/PIPE_FIX do not exist on a vector core"}));
    EXPECT_TRUE(ktest::ExpectViolation(
        RunMix([] {
            if ASCEND_IS_AIC {
                AscendC::CrossCoreSetFlag<1, PIPE_FIX>(1);
            }
        }),
        {"core AIC 0", "mode 1 synchronises the AIV cores", "an AIC core cannot take part"}));
}

TEST(CrossCore, kernel_types_without_the_scheduling_module_are_rejected)
{
    const auto set0 = [] { AscendC::CrossCoreSetFlag<0, PIPE_MTE3>(1); };
    EXPECT_TRUE(
        ktest::ExpectViolation(RunMix(set0, KernelType::AIV_ONLY), {"need a MIX kernel type", "KERNEL_TYPE_AIV_ONLY"}));
    EXPECT_TRUE(ktest::ExpectViolation(
        RunMix([] { AscendC::CrossCoreSetFlag<0, PIPE_FIX>(1); }, KernelType::AIC_ONLY), {"KERNEL_TYPE_AIC_ONLY"}));
    EXPECT_TRUE(ktest::ExpectViolation(
        RunMix([] { AscendC::CrossCoreSetFlag<2, PIPE_MTE3>(1); }, KernelType::MIX_AIV_1_0),
        {"mode 2 synchronises the cores of one AI core", "KERNEL_TYPE_MIX_AIV_1_0"}));
    // Mode 0 among all AIV cores on MIX_AIV_1_0 is allowed (the docs' pure-vector example).
    EXPECT_TRUE(ktest::ExpectOk(RunMix(
        [] {
            AscendC::CrossCoreSetFlag<0, PIPE_MTE3>(1);
            AscendC::CrossCoreWaitFlag(1);
        },
        KernelType::MIX_AIV_1_0, 4)));
}

TEST(CrossCore, sync_all_flag_ids_may_not_be_mixed_with_hard_sync_all)
{
    const auto body = [](bool syncFirst) {
        return RunMix([syncFirst] {
            if ASCEND_IS_AIC {
                return;
            }
            if (syncFirst)
                AscendC::SyncAll();
            AscendC::CrossCoreSetFlag<1, PIPE_MTE3>(12);
            AscendC::CrossCoreWaitFlag(12);
            if (!syncFirst)
                AscendC::SyncAll();
        });
    };
    EXPECT_TRUE(ktest::ExpectViolation(body(true), {"flagId 12 is used by hard SyncAll (IDs 11-14)"}));
    EXPECT_TRUE(ktest::ExpectViolation(body(false), {"SyncAll", "uses cross-core flag IDs 11-14 internally"}));
    // The same IDs without a hard SyncAll are fine.
    EXPECT_TRUE(ktest::ExpectOk(RunMix([] {
        if ASCEND_IS_AIV {
            AscendC::CrossCoreSetFlag<1, PIPE_MTE3>(12);
            AscendC::CrossCoreWaitFlag(12);
        }
    })));
}

TEST(CrossCore, counter_overflow_is_an_error)
{
    // The AIC announces n tiles at once, its AIVs wait n times: with n = 16 the 16th delivery is not
    // ordered after the AIVs' first wait, so it may find the counter at 15 (reported whatever the
    // thread timing); 15 deliveries ahead are within the range.
    const auto run = [](int n) {
        return RunMix([n] {
            for (int i = 0; i < n; ++i) {
                if ASCEND_IS_AIC {
                    AscendC::CrossCoreSetFlag<2, PIPE_FIX>(2);
                } else {
                    AscendC::CrossCoreWaitFlag(2);
                }
            }
        });
    };
    EXPECT_TRUE(ktest::ExpectViolation(
        run(16), {"CrossCoreSetFlag: core AIC 0: flag counter overflow: delivery 16", "of flagId 2 to AIV 0",
                  "wait for delivery 1"}));
    EXPECT_TRUE(ktest::ExpectOk(run(15)));
    // With flow control (the handoff: the AIC waits for the slot back) 40 tiles stay in range.
    HandoffOptions o;
    o.tiles = 40;
    EXPECT_TRUE(ktest::ExpectOk(RunHandoff(o).r));
}

TEST(CrossCore, counter_overflow_without_hazard_checker_counts_the_real_counter)
{
    setenv("TWIN_HAZARD", "0", 1);
    const twin::LaunchResult r = RunMix([] {
        if ASCEND_IS_AIV {
            for (int i = 0; i < 16; ++i)
                AscendC::CrossCoreSetFlag<1, PIPE_MTE3>(6); // both AIVs: each round raises both counters
        }
    });
    unsetenv("TWIN_HAZARD");
    EXPECT_TRUE(ktest::ExpectViolation(r, {"flag counter overflow: delivery 16", "it already holds 15"}));
}

TEST(CrossCore, set_without_its_wait_is_reported_at_kernel_end)
{
    const twin::LaunchResult r = RunMix([] {
        if ASCEND_IS_AIC {
            AscendC::CrossCoreSetFlag<2, PIPE_FIX>(7);
        }
    });
    EXPECT_TRUE(ktest::ExpectViolation(
        r, {"core AIV 0: flagId 7 still counts 1 at kernel end", "mode 2 from AIC 0", "must pair"}));
}
