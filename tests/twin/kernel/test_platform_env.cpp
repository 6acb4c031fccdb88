// The initial platform comes from TWIN_SOC / TWIN_AIV_CORES (read on first use): set them before
// main, then check the preset numbers, the ceil(N/2) AIC rule and that launches respect the override.
#include <chrono>
#include <cstdlib>
#include <stdexcept>

#include "kernel_operator.h"
#include "kernel_test_util.h"
#include "twin/kernel/core_scheduler.h"

namespace {
const bool g_envSet = [] {
    setenv("TWIN_SOC", "Ascend910B3", 1);
    setenv("TWIN_AIV_CORES", "7", 1);
    return true;
}();
}  // namespace

TEST_CASE(env_selects_soc_and_core_override) {
    CHECK(g_envSet);
    const twin::Platform &p = twin::CurrentPlatform();
    CHECK(p.soc == "Ascend910B3");
    CHECK(p.aivCores == 7 && p.aicCores == 4 && p.physicalAivCores == 8);
    CHECK(p.ubBytes == 196608 && p.l1Bytes == 524288 && p.l0aBytes == 65536 && p.l0bBytes == 65536 && p.l0cBytes == 131072);
    CHECK(p.l2Bytes == 192ull * 1024 * 1024 && p.hbmBytes == 64ull * 1024 * 1024 * 1024 && p.freqMhz == 1800);
    CHECK(twin::UsableUbBytes() == 196608 - 256 - 8192);
}

TEST_CASE(override_limits_mix_launch_and_waves) {
    // 7 vector cores -> 4 AI cores, each physically with 2 AIV: a MIX 1:2 launch of 4 blocks (8 AIV) fits.
    CHECK(ktest::ExpectOk(ktest::Run(4, twin::KernelType::MIX_AIC_1_1, [] {})));
    auto mix = ktest::Run(4, twin::KernelType::MIX_AIC_1_2, [] {});
    CHECK(ktest::ExpectOk(mix) && mix.cores.size() == 12);
    auto r = ktest::Run(5, twin::KernelType::MIX_AIC_1_2, [] {});   // 5 AIC > 4
    CHECK(!r.ok && ktest::Contains(r.error, "exceeds the physical cores"));
    // 20 AIV-only blocks run in waves on 8 threads; every block still runs exactly once.
    ktest::Gm<int32_t> hits(20, "hits");
    auto w = ktest::Run(20, twin::KernelType::AIV_ONLY, [&] {
        AscendC::GlobalTensor<int32_t> g;
        g.SetGlobalBuffer((__gm__ int32_t *)hits.addr(), 20);
        g.SetValue(AscendC::GetBlockIdx(), g.GetValue(AscendC::GetBlockIdx()) + 1);
    });
    CHECK(ktest::ExpectOk(w));
    bool once = true;
    for (int i = 0; i < 20; ++i) once = once && hits[i] == 1;
    CHECK(once && w.cores.size() == 20);
}

TEST_CASE(hbm_env_replaces_the_preset_memory_size)
{
    setenv("TWIN_HBM_BYTES", "33554432", 1);
    twin::SetPlatform("Ascend910B3", 7);
    CHECK(twin::CurrentPlatform().hbmBytes == 32ull * 1024 * 1024 && twin::CurrentPlatform().aivCores == 7);
    setenv("TWIN_HBM_BYTES", "32M", 1);
    bool threw = false;
    try {
        twin::SetPlatform("Ascend910B3", 7);
    } catch (const std::invalid_argument& e) {
        threw = ktest::Contains(e.what(), "TWIN_HBM_BYTES");
    }
    CHECK(threw);
    unsetenv("TWIN_HBM_BYTES");
    twin::SetPlatform("Ascend910B3", 7);
    CHECK(twin::CurrentPlatform().hbmBytes == 64ull * 1024 * 1024 * 1024);
}

TEST_CASE(counters_report_waits_and_ub_peak) {
    // one OS thread: core 0 runs first and waits in SyncAll while core 1 spins (no start-up race)
    twin::kernel::SetCoreThreadBudget(1);
    auto r = ktest::Run(2, twin::KernelType::MIX_AIV_1_0, [] {
        AscendC::TPipe pipe;
        AscendC::TBuf<AscendC::TPosition::VECCALC> b;
        pipe.InitBuffer(b, 1000);   // rounded to 1024
        if (AscendC::GetBlockIdx() == 1) {
            const auto t0 = std::chrono::steady_clock::now();
            while (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(20)) {
            }
        }
        AscendC::SyncAll();
    });
    CHECK(ktest::ExpectOk(r));
    twin::kernel::SetCoreThreadBudget(0);
    CHECK(r.cores.size() == 2 && r.cores[0].ubPeakBytes == 1024 && r.cores[0].syncWaitNs >= 10000000ull);
}

TEST_MAIN()
