// The L2 model (twin/kernel/l2_model.h): with TWIN_L2_BYTES set, the GM read bytes its stage rule lets the L2 serve
// and the write bytes it absorbs become l2ReadHitBytes / l2WriteHitBytes (capacity), ...Half and ...Double of the
// issuing core, per stage snapshot too; without the variable they stay 0 and the other counters are the same.
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "kernel_operator.h"
#include "kernel_test_util.h"
#include "twin/kernel/l2_model.h"

using namespace AscendC;
using twin::KernelType;

namespace {

constexpr uint32_t kElems = 16384; // 64 KiB of fp32 per buffer
constexpr uint64_t kBytes = kElems * 4;

// Stage 0: core 0 writes `a` and reads `b` (never written: a miss). Stage 1: both cores read `a`.
twin::LaunchResult WriteThenReadKernel(ktest::Gm<float>& a, ktest::Gm<float>& b)
{
    return ktest::Run(2, KernelType::MIX_AIV_1_0, [&a, &b] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, kBytes);
        LocalTensor<float> ub = buf.Get<float>();
        GlobalTensor<float> ga, gb;
        ga.SetGlobalBuffer(a.p, kElems);
        gb.SetGlobalBuffer(b.p, kElems);
        if (GetBlockIdx() == 0) {
            Duplicate(ub, 1.0f, kElems);
            SetFlag<HardEvent::V_MTE3>(0);
            WaitFlag<HardEvent::V_MTE3>(0);
            DataCopy(ga, ub, kElems);
            SetFlag<HardEvent::MTE3_MTE2>(0);
            WaitFlag<HardEvent::MTE3_MTE2>(0);
            DataCopy(ub, gb, kElems);
            SetFlag<HardEvent::MTE2_MTE3>(0);
            WaitFlag<HardEvent::MTE2_MTE3>(0);
        }
        SyncAll();
        DataCopy(ub, ga, kElems);
        SetFlag<HardEvent::MTE2_V>(0);
        WaitFlag<HardEvent::MTE2_V>(0);
    });
}

struct Hits {
    uint64_t cap = 0, half = 0, dbl = 0;
};

Hits HitsOf(const twin::PipeCounters& c) { return {c.l2ReadHitBytes, c.l2ReadHitBytesHalf, c.l2ReadHitBytesDouble}; }

twin::LaunchResult RunWithCapacity(uint64_t capacity, ktest::Gm<float>& a, ktest::Gm<float>& b)
{
    setenv("TWIN_L2_BYTES", std::to_string(capacity).c_str(), 1);
    twin::LaunchResult r = WriteThenReadKernel(a, b);
    unsetenv("TWIN_L2_BYTES");
    return r;
}

TEST(L2Model, a_block_written_in_the_previous_stage_is_served_when_both_stages_fit)
{
    ktest::Gm<float> a(kElems, "a"), b(kElems, "b");
    // F(0) = a + b = 128 KiB, F(1) = a = 64 KiB: a's reads in stage 1 are resident when 192 KiB fit.
    const twin::LaunchResult r = RunWithCapacity(256 * 1024, a, b);
    ASSERT_TRUE(ktest::ExpectOk(r));
    ASSERT_EQ(r.cores.size(), 2u);
    const twin::CoreCounters& c0 = r.cores[0];
    const twin::CoreCounters& c1 = r.cores[1];
    EXPECT_EQ(c0.gmToUbBytes, 2 * kBytes);
    EXPECT_EQ(c1.gmToUbBytes, kBytes);
    // capacity 256 KiB: both stage-1 reads hit; b (never written) misses. Half (128 KiB): not resident, F(1) fits:
    // the first read (core 0) misses, core 1's hits. Double: like the capacity.
    EXPECT_EQ(HitsOf(c0).cap, kBytes);
    EXPECT_EQ(HitsOf(c1).cap, kBytes);
    EXPECT_EQ(HitsOf(c0).half, 0u);
    EXPECT_EQ(HitsOf(c1).half, kBytes);
    EXPECT_EQ(HitsOf(c0).dbl, kBytes);
    EXPECT_EQ(HitsOf(c1).dbl, kBytes);
    // the stage-0 snapshot has no hits (b's read is a miss); the final values hold stage 1's
    ASSERT_EQ(c0.atSyncAll.size(), 1u);
    EXPECT_EQ(c0.atSyncAll[0].l2ReadHitBytes, 0u);
    EXPECT_EQ(c0.atSyncAll[0].gmToUbBytes, kBytes);
    EXPECT_EQ(c1.atSyncAll[0].l2ReadHitBytes, 0u);
}

TEST(L2Model, a_stage_larger_than_the_capacity_misses_every_read)
{
    ktest::Gm<float> a(kElems, "a"), b(kElems, "b");
    // capacity 48 KiB: F(1) = 64 KiB does not fit: every read misses; half too; double (96 KiB): F(1) fits, F(0) + F(1)
    // does not: one miss (core 0), core 1 hits.
    const twin::LaunchResult r = RunWithCapacity(48 * 1024, a, b);
    ASSERT_TRUE(ktest::ExpectOk(r));
    EXPECT_EQ(HitsOf(r.cores[0]).cap + HitsOf(r.cores[1]).cap, 0u);
    EXPECT_EQ(HitsOf(r.cores[0]).half + HitsOf(r.cores[1]).half, 0u);
    EXPECT_EQ(HitsOf(r.cores[0]).dbl, 0u);
    EXPECT_EQ(HitsOf(r.cores[1]).dbl, kBytes);
}

TEST(L2Model, off_without_the_variable_and_the_other_counters_unchanged)
{
    ktest::Gm<float> a(kElems, "a"), b(kElems, "b");
    unsetenv("TWIN_L2_BYTES");
    const twin::LaunchResult off = WriteThenReadKernel(a, b);
    const twin::LaunchResult on = RunWithCapacity(1 << 20, a, b);
    ASSERT_TRUE(ktest::ExpectOk(off));
    ASSERT_TRUE(ktest::ExpectOk(on));
    for (size_t i = 0; i < off.cores.size(); ++i) {
        EXPECT_EQ(HitsOf(off.cores[i]).cap + HitsOf(off.cores[i]).half + HitsOf(off.cores[i]).dbl, 0u);
        EXPECT_EQ(off.cores[i].gmToUbBytes, on.cores[i].gmToUbBytes);
        EXPECT_EQ(off.cores[i].ubToGmBytes, on.cores[i].ubToGmBytes);
        EXPECT_EQ(off.cores[i].vecCycles, on.cores[i].vecCycles);
    }
}

// The rule itself on hand-made logs: partial blocks count their bytes; a read of a block touched two stages ago is
// resident only when the three stages' footprints fit; a write to a dirty resident block is absorbed, a write to a
// clean or evicted one is charged; a read after a write in the same stage hits.
TEST(L2Model, rule_on_hand_made_logs)
{
    using twin::kernel::L2Log;
    L2Log core0, core1;
    const uintptr_t base = 1 << 20;         // block-aligned
    core0.Note(base, 64, 0, true);          // stage 0: write 2 blocks (charged: first touch)
    core0.Note(base + 1024, 32, 0, true);   // stage 0: write block 32 ...
    core1.Note(base + 1024, 32, 0, false);  // ... and read it back (core 1 after core 0: a hit)
    core1.Note(base + 4096, 320, 1, false); // stage 1: read 10 other blocks (first touch: misses)
    core0.Note(base + 8, 16, 2, false);     // stage 2: read 16 bytes inside block 0
    core0.Note(base + 32, 32, 2, true);     // stage 2: rewrite block 1
    const auto hits = twin::kernel::L2Hits({&core0, &core1}, 13 * 32);
    // F = 96, 320, 64 bytes; stage 2 -> stage 0: 480 > 416 (capacity): block 0's read misses, block 1's write is
    // charged (it was evicted, written back); at 2x capacity the read hits and the write to the dirty block is absorbed
    EXPECT_EQ(hits[0].read[0][2], 0u);
    EXPECT_EQ(hits[0].write[0][2], 0u);
    EXPECT_EQ(hits[0].read[2][2], 16u);
    EXPECT_EQ(hits[0].write[2][2], 32u);
    EXPECT_EQ(hits[0].write[0][0], 0u);
    EXPECT_EQ(hits[1].read[0][0], 32u);
    EXPECT_EQ(hits[1].read[0][1], 0u);
    // a clean resident block (only read before) is charged when written
    L2Log reader;
    reader.Note(base, 32, 0, false);
    reader.Note(base, 32, 1, true);
    reader.Note(base, 32, 2, true);
    const auto h2 = twin::kernel::L2Hits({&reader}, 1 << 20);
    EXPECT_EQ(h2[0].write[0][1], 0u);
    EXPECT_EQ(h2[0].write[0][2], 32u);
    // adjacent notes of one stage and direction merge into one access
    L2Log merged;
    merged.Note(base, 32, 0, false);
    merged.Note(base + 32, 32, 0, false);
    merged.Note(base + 64, 32, 0, true);
    EXPECT_EQ(merged.accesses.size(), 2u);
}

// Stage 0 writes `a` on core 0, stage 1 rewrites it (atomically added, like a grad_input plane): absorbed when the
// two stages fit.
TEST(L2Model, a_rewrite_of_a_dirty_resident_buffer_is_absorbed)
{
    ktest::Gm<float> a(kElems, "a");
    const auto kernel = [&a] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, kBytes);
        LocalTensor<float> ub = buf.Get<float>();
        GlobalTensor<float> ga;
        ga.SetGlobalBuffer(a.p, kElems);
        if (GetBlockIdx() == 0) {
            Duplicate(ub, 1.0f, kElems);
            SetFlag<HardEvent::V_MTE3>(0);
            WaitFlag<HardEvent::V_MTE3>(0);
            DataCopy(ga, ub, kElems);
        }
        SyncAll();
        if (GetBlockIdx() == 0) {
            SetAtomicAdd<float>();
            DataCopy(ga, ub, kElems);
            SetAtomicNone();
        }
    };
    setenv("TWIN_L2_BYTES", std::to_string(128 * 1024).c_str(), 1);
    const twin::LaunchResult r = ktest::Run(2, KernelType::MIX_AIV_1_0, kernel);
    unsetenv("TWIN_L2_BYTES");
    ASSERT_TRUE(ktest::ExpectOk(r));
    const twin::CoreCounters& c0 = r.cores[0];
    EXPECT_EQ(c0.ubToGmBytes, 2 * kBytes);
    EXPECT_EQ(c0.l2WriteHitBytes, kBytes); // F(0) + F(1) = 128 KiB fit
    EXPECT_EQ(c0.l2WriteHitBytesHalf, 0u); // 64 KiB: evicted and written back in between
    EXPECT_EQ(c0.l2WriteHitBytesDouble, kBytes);
    EXPECT_EQ(c0.atSyncAll[0].l2WriteHitBytes, 0u);
    EXPECT_EQ(c0.l2ReadHitBytes, 0u);
}

} // namespace
