// twin::SetPlatform (twinSetPlatform) racing twin::CurrentPlatform(): readers get a consistent copy of
// one preset, never a mix of two (CurrentPlatform used to return a reference to the shared state read
// after the lock was released: a data race under TSan, torn values here).
#include <atomic>
#include <thread>
#include <vector>
#include <gtest/gtest.h>

#include "twin/platform.h"

TEST(PlatformRace, current_platform_is_a_consistent_snapshot)
{
    const twin::Platform saved = twin::CurrentPlatform();
    std::atomic<bool> stop{false};
    std::atomic<int> torn{0};
    std::thread writer([&] {
        for (int i = 0; i < 20000; ++i) twin::SetPlatform(i % 2 ? "Ascend910B4" : "Ascend910B2", 0);
        stop = true;
    });
    std::vector<std::thread> readers;
    for (int r = 0; r < 2; ++r) {
        readers.emplace_back([&] {
            while (!stop) {
                const twin::Platform p = twin::CurrentPlatform();
                const bool b4 = p.soc == "Ascend910B4";
                // Ascend910B4: 20 AIC, 32 GiB HBM; Ascend910B2: 24 AIC, 64 GiB.
                if (b4 != (p.aicCores == 20) || b4 != (p.hbmBytes == 32ull << 30)) ++torn;
            }
        });
    }
    writer.join();
    for (auto &t : readers) t.join();
    EXPECT_EQ(torn, 0);
    twin::SetPlatform(saved.soc, 0);
}
