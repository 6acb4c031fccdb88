// Synchronisation, atomics and launch rules: positive SyncAll data exchange through GM across cores,
// and one negative test per rule (unpaired SetFlag/WaitFlag, atomic left on, deadlocks, kernel type,
// launch limits), each asserting API + core + rule in the report.
#include <chrono>

#include <gtest/gtest.h>

#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "kernel_test_util.h"

using namespace AscendC;
using twin::KernelType;

TEST(RulesSync, sync_all_exchanges_data_through_gm)
{
    for (uint32_t cores : {1u, 3u, 8u}) {
        ktest::Gm<int32_t> slots(cores * 8, "slots"), result(cores * 8, "result");
        auto r = ktest::Run(cores, KernelType::MIX_AIV_1_0, [&] {
            KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
            const int64_t me = GetBlockIdx(), n = GetBlockNum();
            GlobalTensor<int32_t> s, out;
            s.SetGlobalBuffer((__gm__ int32_t *)slots.addr(), n * 8);
            out.SetGlobalBuffer((__gm__ int32_t *)result.addr(), n * 8);
            for (int round = 0; round < 3; ++round) {
                s.SetValue(me * 8, static_cast<int32_t>(me * 100 + round));
                SyncAll();
                const int64_t peer = (me + 1) % n;
                out.SetValue(me * 8 + round, s.GetValue(peer * 8));   // must see the peer's write of this round
                SyncAll();
            }
        });
        EXPECT_TRUE(ktest::ExpectOk(r));
        for (uint32_t c = 0; c < cores; ++c)
            for (int round = 0; round < 3; ++round) {
                EXPECT_EQ(result[c * 8 + round], static_cast<int32_t>(((c + 1) % cores) * 100 + round))
                    << "round = " << round;
            }
        // per-stage counter snapshots: one per SyncAll arrival; scalar GM ops grow stage by stage
        for (const auto &cc : r.cores) {
            EXPECT_EQ(cc.syncAllCount, 6);
            EXPECT_EQ(cc.atSyncAll.size(), 6);
            if (cc.atSyncAll.size() == 6) {
                EXPECT_EQ(cc.atSyncAll[0].scalarGmOps, 1u);
                EXPECT_EQ(cc.atSyncAll[1].scalarGmOps, 3u);
                EXPECT_EQ(cc.scalarGmOps, 9u);
            }
        }
    }
}

TEST(RulesSync, deadlock_core_skips_sync_all)
{
    auto t0 = std::chrono::steady_clock::now();
    auto r = ktest::Run(4, KernelType::MIX_AIV_1_0, [&] {
        if (GetBlockIdx() != 2) SyncAll();
    }, 60000);
    EXPECT_TRUE(ktest::ExpectViolation(
        r, {"SyncAll", "core AIV", "deadlock", "AIV 2 left the kernel without reaching SyncAll"}));
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5)); // detected, not timed out
}

TEST(RulesSync, deadlock_timeout_reports_who_waits_where)
{
    ktest::Gm<int32_t> flag(8, "flag");
    auto r = ktest::Run(2, KernelType::MIX_AIV_1_0, [&] {
        GlobalTensor<int32_t> f;
        f.SetGlobalBuffer((__gm__ int32_t *)flag.addr(), 8);
        if (GetBlockIdx() == 0) {
            SyncAll();            // waits for core 1 ...
            f.SetValue(0, 1);
        } else {
            while (f.GetValue(0) == 0) {   // ... which waits for core 0's flag: circular wait
            }
            SyncAll();
        }
    }, 300);
    EXPECT_TRUE(ktest::ExpectViolation(
        r,
        {"SyncAll", "core AIV 0", "deadlock: no progress for 300 ms", "waiting: AIV 0 in SyncAll", "running): AIV 1"}));
}

TEST(RulesSync, hard_sync_all_needs_mix_launch)
{
    auto r = ktest::Run(2, KernelType::AIV_ONLY, [&] { SyncAll(); });
    EXPECT_TRUE(ktest::ExpectViolation(r, {"SyncAll", "core AIV", "KERNEL_TYPE_MIX_AIV_1_0"}));
}

TEST(RulesSync, wait_flag_without_set_flag)
{
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] { WaitFlag<HardEvent::MTE2_V>(0); });
    EXPECT_TRUE(ktest::ExpectViolation(r, {"WaitFlag", "core AIV 0", "without a matching SetFlag"}));
}

TEST(RulesSync, set_flag_without_wait_flag_at_kernel_end)
{
    auto ok = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        SetFlag<HardEvent::V_MTE3>(1);
        WaitFlag<HardEvent::V_MTE3>(1);
    });
    EXPECT_TRUE(ktest::ExpectOk(ok));
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] { SetFlag<HardEvent::V_MTE3>(1); });
    EXPECT_TRUE(ktest::ExpectViolation(r, {"SetFlag", "core AIV 0", "without a matching WaitFlag at kernel end"}));
}

TEST(RulesSync, event_id_range)
{
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] { SetFlag<HardEvent::S_V>(8); });
    EXPECT_TRUE(ktest::ExpectViolation(r, {"SetFlag", "core AIV 0", "eventID must be in [0, 7]"}));
}

TEST(RulesSync, cube_events_and_pipes_do_not_exist_on_aiv)
{
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        SetFlag<HardEvent::M_MTE1>(0);
        WaitFlag<HardEvent::M_MTE1>(0);
    });
    EXPECT_TRUE(ktest::ExpectViolation(r, {"SetFlag", "core AIV 0", "HardEvent::M_MTE1", "vector core"}));
    auto p = ktest::Run(1, KernelType::AIV_ONLY, [&] { PipeBarrier<PIPE_M>(); });
    EXPECT_TRUE(ktest::ExpectViolation(p, {"PipeBarrier", "core AIV 0", "do not exist on a vector core"}));
    EXPECT_TRUE(ktest::ExpectOk(ktest::Run(1, KernelType::AIV_ONLY, [&] {
        PipeBarrier<PIPE_V>();
        PipeBarrier<PIPE_ALL>();
    })));
}

TEST(RulesSync, atomic_left_on_at_kernel_end)
{
    auto r = ktest::Run(2, KernelType::AIV_ONLY, [&] {
        SetAtomicAdd<float>();
        if (GetBlockIdx() == 0) SetAtomicNone();
    });
    EXPECT_TRUE(ktest::ExpectViolation(r, {"SetAtomicAdd", "core AIV 1", "still enabled at kernel end"}));
}

TEST(RulesSync, atomic_type_must_match_copy)
{
    ktest::Gm<half> g(64);
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 128);
        LocalTensor<half> t = b.Get<half>();
        Duplicate(t, half(1.0f), 64);
        PipeBarrier<PIPE_ALL>();
        GlobalTensor<half> gg;
        gg.SetGlobalBuffer((__gm__ half *)g.addr());
        SetAtomicAdd<float>();
        DataCopy(gg, t, 64);
        SetAtomicNone();
    });
    EXPECT_TRUE(ktest::ExpectViolation(r, {"DataCopy(UB->GM)", "core AIV 0", "SetAtomicAdd<T> must match"}));
}

TEST(RulesSync, atomic_add_accumulates_across_cores)
{
    ktest::Gm<float> acc(256, "acc");
    for (int i = 0; i < 256; ++i) acc[i] = 0.5f;
    auto r = ktest::Run(8, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 1024);
        LocalTensor<float> t = b.Get<float>();
        Duplicate(t, static_cast<float>(GetBlockIdx() + 1), 256);
        PipeBarrier<PIPE_ALL>();
        GlobalTensor<float> g;
        g.SetGlobalBuffer((__gm__ float *)acc.addr());
        SetAtomicAdd<float>();
        DataCopyPad(g, t, DataCopyExtParams(1, 256 * sizeof(float), 0, 0, 0));
        SetAtomicNone();
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    bool all = true;
    for (int i = 0; i < 256; ++i) all = all && acc[i] == 36.5f;
    EXPECT_TRUE(all);
}

TEST(RulesSync, kernel_type_must_match_launch)
{
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] { KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2); });
    EXPECT_TRUE(ktest::ExpectViolation(
        r, {"KERNEL_TASK_TYPE_DEFAULT", "core AIV 0",
            "declares KERNEL_TYPE_MIX_AIC_1_2 but was launched as KERNEL_TYPE_AIV_ONLY"}));
}

TEST(RulesSync, tiling_key_is)
{
    ktest::Gm<int32_t> out(8);
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        GlobalTensor<int32_t> g;
        g.SetGlobalBuffer((__gm__ int32_t *)out.addr());
        if (TILING_KEY_IS(0)) g.SetValue(0, 10);
        else if (TILING_KEY_IS(2)) g.SetValue(0, 12);
    }, 20000, nullptr, 2);
    EXPECT_TRUE(ktest::ExpectOk(r));
    EXPECT_EQ(out[0], 12);
}

TEST(RulesSync, mix_block_index_mapping)
{
    ktest::Gm<int32_t> seen(64, "seen");
    auto r = ktest::Run(3, KernelType::MIX_AIC_1_2, [&] {
        GlobalTensor<int32_t> g;
        g.SetGlobalBuffer((__gm__ int32_t *)seen.addr(), 64);
        const int64_t base = ASCEND_IS_AIC ? 0 : 16;
        g.SetValue(base + GetBlockIdx(), static_cast<int32_t>(100 * GetBlockNum() + 10 * GetSubBlockIdx() + 1));
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    for (int i = 0; i < 3; ++i) { // AIC idx 0..2
        EXPECT_EQ(seen[i], 301) << "i = " << i;
    }
    for (int i = 0; i < 6; ++i) { // AIV idx 0..5, sub-block i%2
        EXPECT_EQ(seen[16 + i], 301 + 10 * (i % 2)) << "i = " << i;
    }
    EXPECT_EQ(seen[3], 0);
    EXPECT_EQ(seen[22], 0);
    EXPECT_EQ(r.cores.size(), 9);
}

TEST(RulesSync, launch_limits)
{
    const uint32_t aic = twin::CurrentPlatform().aicCores;
    auto r = ktest::Run(aic + 1, KernelType::MIX_AIC_1_2, [] {});
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(ktest::HasSubstr(r.error, "exceeds the physical cores"));
    auto r0 = ktest::Run(0, KernelType::AIV_ONLY, [] {});
    EXPECT_FALSE(r0.ok);
    EXPECT_TRUE(ktest::HasSubstr(r0.error, "blockDim must be in [1, 65535]"));
}

TEST(RulesSync, platform_presets_and_override)
{
    const std::string before = twin::CurrentPlatform().soc;
    const uint32_t beforeAiv = twin::CurrentPlatform().aivCores;
    twin::SetPlatform("Ascend910B4");
    EXPECT_EQ(twin::CurrentPlatform().aicCores, 20);
    EXPECT_EQ(twin::CurrentPlatform().aivCores, 40);
    EXPECT_EQ(twin::CurrentPlatform().freqMhz, 1500);
    twin::SetPlatform("Ascend910B2", 5);
    EXPECT_EQ(twin::CurrentPlatform().aivCores, 5);
    EXPECT_EQ(twin::CurrentPlatform().aicCores, 3);
    EXPECT_EQ(twin::CurrentPlatform().physicalAivCores, 6);
    auto r = ktest::Run(4, KernelType::MIX_AIC_1_2, [] {});
    EXPECT_FALSE(r.ok); // 4 AIC blocks > 3 AIC cores
    bool threw = false;
    try { twin::SetPlatform("Ascend999"); } catch (const std::invalid_argument &e) { threw = ktest::Contains(e.what(), "soc"); }
    EXPECT_TRUE(threw);
    twin::SetPlatform(before, beforeAiv == 48 || beforeAiv == 40 ? 0 : beforeAiv);
}

// ---- event IDs and flag states (issue 9 part 2) -------------------------------------------------

TEST(RulesSync, set_flag_on_a_set_flag)
{
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        SetFlag<HardEvent::V_S>(2);
        SetFlag<HardEvent::V_S>(2);
        WaitFlag<HardEvent::V_S>(2);
    });
    EXPECT_TRUE(ktest::ExpectViolation(
        r, {"SetFlag", "core AIV 0", "SetFlag<HardEvent::V_S>(2) on a flag that is already set"}));
    // set -> wait -> set -> wait is fine
    EXPECT_TRUE(ktest::ExpectOk(ktest::Run(1, KernelType::AIV_ONLY, [&] {
        for (int i = 0; i < 3; ++i) {
            SetFlag<HardEvent::V_S>(2);
            WaitFlag<HardEvent::V_S>(2);
        }
    })));
}

TEST(RulesSync, event_pool_semantics)
{
    // AllocEventID takes the lowest free ID, FetchEventID returns it without taking it, ReleaseEventID
    // frees it, TPipe::Reset frees every ID (CANN kernel_tpipe_impl.h).
    int got[8] = {};
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        got[0] = pipe.FetchEventID<HardEvent::V_MTE3>();   // 0
        got[1] = pipe.AllocEventID<HardEvent::V_MTE3>();   // 0
        got[2] = pipe.AllocEventID<HardEvent::V_MTE3>();   // 1
        got[3] = pipe.FetchEventID<HardEvent::V_MTE3>();   // 2
        pipe.ReleaseEventID<HardEvent::V_MTE3>(0);
        got[4] = pipe.FetchEventID(HardEvent::V_MTE3);     // 0 again
        got[5] = pipe.FetchEventID<HardEvent::MTE2_V>();   // other events have their own pool: 0
        pipe.Reset();
        got[6] = pipe.AllocEventID<HardEvent::V_MTE3>();   // 0: Reset freed ID 1 as well
        got[7] = pipe.AllocEventID<HardEvent::V_MTE3>();   // 1
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    const int want[8] = {0, 0, 1, 2, 0, 0, 0, 1};
    for (int i = 0; i < 8; ++i) {
        EXPECT_EQ(got[i], want[i]) << "i = " << i;
    }
}

TEST(RulesSync, event_pool_exhausted)
{
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        for (int i = 0; i < 9; ++i) (void)pipe.AllocEventID<HardEvent::S_V>();
    });
    EXPECT_TRUE(ktest::ExpectViolation(
        r, {"TPipe::AllocEventID", "core AIV 0", "all 8 event IDs of HardEvent::S_V are allocated"}));
}

TEST(RulesSync, queues_take_event_ids_from_the_pipe)
{
    // EnQue of a VECIN buffer holds an MTE2_V ID until DeQue; FreeTensor holds a V_MTE2 ID (flag set)
    // until the buffer's next AllocTensor; Reset / the destructor wait the held free flags.
    int seen[4] = {-1, -1, -1, -1};
    ktest::Gm<float> g(64, "g");
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TQue<TPosition::VECIN, 2> q;
        pipe.InitBuffer(q, 2, 256);
        GlobalTensor<float> gg;
        gg.SetGlobalBuffer((__gm__ float *)g.addr(), 64);
        LocalTensor<float> t = q.AllocTensor<float>();
        DataCopy(t, gg, 64);
        q.EnQue(t);
        seen[0] = pipe.FetchEventID<HardEvent::MTE2_V>();   // 1: ID 0 held by the enqueued buffer
        t = q.DeQue<float>();
        seen[1] = pipe.FetchEventID<HardEvent::MTE2_V>();   // 0: released by DeQue
        q.FreeTensor(t);
        seen[2] = pipe.FetchEventID<HardEvent::V_MTE2>();   // 1: ID 0 held by the freed buffer
        pipe.Reset();                                       // waits the free flag, frees all IDs
        seen[3] = pipe.FetchEventID<HardEvent::V_MTE2>();   // 0
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    EXPECT_EQ(seen[0], 1);
    EXPECT_EQ(seen[1], 0);
    EXPECT_EQ(seen[2], 1);
    EXPECT_EQ(seen[3], 0);
    // A user SetFlag on the queue's held free ID is a second SetFlag on a set flag.
    auto bad = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TQue<TPosition::VECIN, 1> q;
        pipe.InitBuffer(q, 1, 256);
        LocalTensor<float> t = q.AllocTensor<float>();
        q.FreeTensor(t);
        SetFlag<HardEvent::V_MTE2>(0);
        WaitFlag<HardEvent::V_MTE2>(0);
    });
    EXPECT_TRUE(ktest::ExpectViolation(
        bad, {"SetFlag", "core AIV 0",
              "SetFlag<HardEvent::V_MTE2>(0) on a flag that is already set (by TQue::FreeTensor)"}));
}

TEST(RulesSync, enqueued_buffer_left_at_kernel_end)
{
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TQue<TPosition::VECOUT, 1> q;
        pipe.InitBuffer(q, 1, 256);
        LocalTensor<float> t = q.AllocTensor<float>();
        Duplicate(t, 1.0f, 64);
        q.EnQue(t);
    });
    EXPECT_TRUE(ktest::ExpectViolation(
        r, {"SetFlag", "core AIV 0",
            "SetFlag<HardEvent::V_MTE3>(0) (set by TQue::EnQue) without a matching WaitFlag at kernel end"}));
}

TEST(RulesSync, cube_pipe_holds_m_mte1_ids)
{
    int id = -1;
    auto r = ktest::Run(1, KernelType::AIC_ONLY, [&] {
        TPipe pipe;
        id = pipe.FetchEventID<HardEvent::M_MTE1>();   // 0, 1, 2 are the Matmul macro's (TPipe::Init on 220)
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    EXPECT_EQ(id, 3);
}

namespace {
TCubeTiling SmallTiling() {
    TCubeTiling t{};
    t.M = t.N = t.Ka = t.Kb = 8;
    t.singleCoreM = t.singleCoreN = t.singleCoreK = 8;
    t.baseM = t.baseN = t.baseK = 16;
    return t;
}
using MmF = MatmulType<TPosition::GM, CubeFormat::ND, float>;
}  // namespace

// The operator's stage pattern before the fix: pipe.Reset() while the Matmul client lives, then a
// one-shot PipeSync<MTE3_S> (FetchEventID + SetFlag + WaitFlag) gets the client's ID back and sets
// its flag a second time; on the chip the client's final wait would never return.
TEST(RulesSync, matmul_client_id_reused_after_pipe_reset)
{
    ktest::Gm<uint8_t> ws(twin::kLibApiWorkspaceBytes, "ws");
    TCubeTiling t = SmallTiling();
    auto r = ktest::Run(1, KernelType::MIX_AIC_1_2, [&] {
        TPipe pipe;
        Matmul<MmF, MmF, MmF> mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 256);
        pipe.Reset();                                            // end of a stage
        TEventID id = pipe.FetchEventID<HardEvent::MTE3_S>();   // 0: the client's ID
        SetFlag<HardEvent::MTE3_S>(id);
        WaitFlag<HardEvent::MTE3_S>(id);
        mm.End();
    }, 20000, ws.addr());
    EXPECT_TRUE(ktest::ExpectViolation(
        r,
        {"SetFlag", "core AIV", "SetFlag<HardEvent::MTE3_S>(0) on a flag that is already set (by REGIST_MATMUL_OBJ"}));
}

// The fix: the client's scope ends (quit message) before the next MTE3_S ID is taken.
TEST(RulesSync, matmul_client_scope_ends_before_mte3_s_reuse)
{
    ktest::Gm<uint8_t> ws(twin::kLibApiWorkspaceBytes, "ws");
    TCubeTiling t = SmallTiling();
    auto r = ktest::Run(1, KernelType::MIX_AIC_1_2, [&] {
        TPipe pipe;
        {
            Matmul<MmF, MmF, MmF> mm;
            REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
            TBuf<TPosition::VECCALC> b;
            pipe.InitBuffer(b, 256);
            pipe.Reset();
            mm.End();
        }
        if ASCEND_IS_AIC { return; }
        TEventID id = pipe.FetchEventID<HardEvent::MTE3_S>();
        SetFlag<HardEvent::MTE3_S>(id);
        WaitFlag<HardEvent::MTE3_S>(id);
    }, 20000, ws.addr());
    EXPECT_TRUE(ktest::ExpectOk(r));
}

// The client's quit at the end of its scope waits its flag: a user WaitFlag that consumed it means the
// quit would hang on the chip.
TEST(RulesSync, matmul_client_flag_consumed_by_user)
{
    ktest::Gm<uint8_t> ws(twin::kLibApiWorkspaceBytes, "ws");
    TCubeTiling t = SmallTiling();
    auto r = ktest::Run(1, KernelType::MIX_AIC_1_2, [&] {
        TPipe pipe;
        Matmul<MmF, MmF, MmF> mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        mm.End();
        WaitFlag<HardEvent::MTE3_S>(0);
    }, 20000, ws.addr());
    EXPECT_TRUE(ktest::ExpectViolation(
        r, {"REGIST_MATMUL_OBJ (Matmul client quit at the end of its scope)", "core AIV",
            "WaitFlag<HardEvent::MTE3_S>(0) on a flag that is not set"}));
}
