// Hazard checker (twin/kernel/hazard.h): one negative test per hazard kind, each asserting the
// reported rule, each with the synchronised twin that must pass; determinism of the report.
#include <atomic>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "kernel_test_util.h"
#include "twin/kernel/core_scheduler.h"

using namespace AscendC;
using twin::KernelType;

namespace {

// A UB tensor of 64 floats from a TBuf, and a GM view of a 64-float buffer.
struct Ub64 {
    TPipe pipe;
    TBuf<TPosition::VECCALC> a, b;
    LocalTensor<float> ta, tb;
    Ub64() {
        pipe.InitBuffer(a, 256);
        pipe.InitBuffer(b, 256);
        ta = a.Get<float>();
        tb = b.Get<float>();
    }
};

// u.ta = 2.0f, its vector write ordered before the MTE3 copies that read it
void FillForStore(Ub64& u)
{
    Duplicate(u.ta, 2.0f, 64);
    SetFlag<HardEvent::V_MTE3>(0);
    WaitFlag<HardEvent::V_MTE3>(0);
}

GlobalTensor<float> Gm(ktest::Gm<float> &g) {
    GlobalTensor<float> t;
    t.SetGlobalBuffer((__gm__ float *)g.addr(), g.n);
    return t;
}

}  // namespace

// ---- UB: pipes of one core ---------------------------------------------------------------------

TEST(Hazard, hazard_mte2_to_v)
{
    ktest::Gm<float> g(64, "src");
    auto kernel = [&](int sync) {
        return ktest::Run(1, KernelType::AIV_ONLY, [&] {
            Ub64 u;
            GlobalTensor<float> gg = Gm(g);
            DataCopy(u.ta, gg, 64);
            if (sync == 1) {
                SetFlag<HardEvent::MTE2_V>(0);
                WaitFlag<HardEvent::MTE2_V>(0);
            } else if (sync == 2) {
                PipeBarrier<PIPE_ALL>();
            }
            Adds(u.tb, u.ta, 1.0f, 64);
        });
    };
    EXPECT_TRUE(ktest::ExpectViolation(
        kernel(0), {"Adds", "core AIV 0", "UB hazard MTE2 -> V (read after write)", "DataCopy(GM->UB) on pipe MTE2",
                    "SetFlag/WaitFlag<HardEvent::MTE2_V>"}));
    EXPECT_TRUE(ktest::ExpectOk(kernel(1)));
    EXPECT_TRUE(ktest::ExpectOk(kernel(2)));
    // a wrong-direction flag does not order MTE2 before V
    auto wrong = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        Ub64 u;
        GlobalTensor<float> gg = Gm(g);
        DataCopy(u.ta, gg, 64);
        SetFlag<HardEvent::V_MTE2>(0);
        WaitFlag<HardEvent::V_MTE2>(0);
        Adds(u.tb, u.ta, 1.0f, 64);
    });
    EXPECT_TRUE(ktest::ExpectViolation(wrong, {"Adds", "UB hazard MTE2 -> V"}));
}

TEST(Hazard, hazard_queue_orders_mte2_to_v)
{
    ktest::Gm<float> g(64, "src");
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TQue<TPosition::VECIN, 1> q;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(q, 1, 256);
        pipe.InitBuffer(b, 256);
        GlobalTensor<float> gg = Gm(g);
        for (int i = 0; i < 3; ++i) {
            LocalTensor<float> t = q.AllocTensor<float>();   // waits V_MTE2 of the previous FreeTensor
            DataCopy(t, gg, 64);
            q.EnQue(t);
            t = q.DeQue<float>();
            Adds(b.Get<float>(), t, 1.0f, 64);
            q.FreeTensor(t);
        }
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
}

TEST(Hazard, hazard_v_to_mte3)
{
    ktest::Gm<float> g(64, "dst");
    auto kernel = [&](bool sync) {
        return ktest::Run(1, KernelType::AIV_ONLY, [&] {
            Ub64 u;
            GlobalTensor<float> gg = Gm(g);
            Duplicate(u.ta, 2.0f, 64);
            if (sync) {
                SetFlag<HardEvent::V_MTE3>(0);
                WaitFlag<HardEvent::V_MTE3>(0);
            }
            DataCopy(gg, u.ta, 64);
        });
    };
    EXPECT_TRUE(ktest::ExpectViolation(
        kernel(false),
        {"DataCopy(UB->GM)", "core AIV 0", "UB hazard V -> MTE3 (read after write)", "Duplicate on pipe V"}));
    EXPECT_TRUE(ktest::ExpectOk(kernel(true)));
}

// Two MTE3 copies whose GM destinations overlap need PipeBarrier<PIPE_MTE3> between them (PipeBarrier
// docs, 约束说明); atomic copies too; disjoint destinations and the blocks of one copy do not.
TEST(Hazard, hazard_mte3_to_mte3_overlapping_gm)
{
    ktest::Gm<float> g(128, "dst");
    // sync: 0 none, 1 PipeBarrier<PIPE_MTE3>, 2 PIPE_ALL, 3 a WaitFlag<MTE3_S>; offset: the second copy's
    // first element; atomic: both copies add
    auto kernel = [&](int sync, int offset, bool atomic) {
        return ktest::Run(1, KernelType::AIV_ONLY, [&] {
            Ub64 u;
            GlobalTensor<float> gg = Gm(g);
            FillForStore(u);
            if (atomic)
                SetAtomicAdd<float>();
            DataCopy(gg, u.ta, 64);
            if (sync == 1) {
                PipeBarrier<PIPE_MTE3>();
            } else if (sync == 2) {
                PipeBarrier<PIPE_ALL>();
            } else if (sync == 3) {
                SetFlag<HardEvent::MTE3_S>(0);
                WaitFlag<HardEvent::MTE3_S>(0);
            }
            DataCopyExtParams cp{2, 32 * 4, 0, 0, 0}; // 2 blocks of 32 floats: contiguous in GM, one copy
            DataCopyPad(gg[offset], u.ta, cp);
            if (atomic)
                SetAtomicNone();
        });
    };
    for (const bool atomic : {false, true}) {
        EXPECT_TRUE(ktest::ExpectViolation(
            kernel(0, atomic ? 0 : 56, atomic),
            {"DataCopyPad(UB->GM)", "core AIV 0", "GM hazard MTE3 -> MTE3 (write after write in one pipe)",
             "DataCopy(UB->GM) on the same pipe wrote", "PipeBarrier<PIPE_MTE3>"}));
    }
    EXPECT_TRUE(ktest::ExpectOk(kernel(1, 0, false)));
    EXPECT_TRUE(ktest::ExpectOk(kernel(2, 0, true)));
    EXPECT_TRUE(ktest::ExpectOk(kernel(3, 0, false)));
    EXPECT_TRUE(ktest::ExpectOk(kernel(0, 64, false))); // disjoint: the first copy ends at element 64
}

// GM between two pipes of one core: a DataCopy GM->UB (MTE2) of bytes an earlier DataCopy UB->GM (MTE3) wrote, or
// an MTE3 write of bytes an earlier MTE2 copy read, needs the pipes ordered (SetFlag/WaitFlag, PIPE_ALL).
TEST(Hazard, hazard_gm_between_pipes_of_one_core)
{
    ktest::Gm<float> g(128, "buf");
    // order: 0 MTE3 write then MTE2 read, 1 MTE2 read then MTE3 write; sync: 0 none, 1 the flag, 2 PIPE_ALL;
    // offset: the second copy's first element
    auto kernel = [&](int order, int sync, int offset) {
        return ktest::Run(1, KernelType::AIV_ONLY, [&] {
            Ub64 u;
            GlobalTensor<float> gg = Gm(g);
            FillForStore(u);
            if (order == 0) {
                DataCopy(gg, u.ta, 64);
                if (sync == 1) {
                    SetFlag<HardEvent::MTE3_MTE2>(0);
                    WaitFlag<HardEvent::MTE3_MTE2>(0);
                } else if (sync == 2) {
                    PipeBarrier<PIPE_ALL>();
                }
                DataCopy(u.tb, gg[offset], 64);
            } else {
                DataCopy(u.tb, gg, 64);
                if (sync == 1) {
                    SetFlag<HardEvent::MTE2_MTE3>(0);
                    WaitFlag<HardEvent::MTE2_MTE3>(0);
                } else if (sync == 2) {
                    PipeBarrier<PIPE_ALL>();
                }
                DataCopy(gg[offset], u.ta, 64);
            }
        });
    };
    EXPECT_TRUE(ktest::ExpectViolation(
        kernel(0, 0, 32), {"DataCopy(GM->UB)", "core AIV 0", "GM hazard MTE3 -> MTE2 on one core (read after write)",
                           "DataCopy(UB->GM) on pipe MTE3 wrote", "SetFlag/WaitFlag<HardEvent::MTE3_MTE2>"}));
    EXPECT_TRUE(ktest::ExpectViolation(
        kernel(1, 0, 0), {"DataCopy(UB->GM)", "GM hazard MTE2 -> MTE3 on one core (write after read)",
                          "DataCopy(GM->UB) on pipe MTE2 read"}));
    for (int order : {0, 1}) {
        EXPECT_TRUE(ktest::ExpectOk(kernel(order, 1, 0)));
        EXPECT_TRUE(ktest::ExpectOk(kernel(order, 2, 0)));
        EXPECT_TRUE(ktest::ExpectOk(kernel(order, 0, 64))); // disjoint: the first copy covers elements 0..63
    }
}

TEST(Hazard, hazard_v_to_s)
{
    float seen = 0;
    auto kernel = [&](bool sync) {
        return ktest::Run(1, KernelType::AIV_ONLY, [&] {
            Ub64 u;
            Duplicate(u.ta, 3.0f, 64);
            if (sync) {
                SetFlag<HardEvent::V_S>(0);
                WaitFlag<HardEvent::V_S>(0);
            }
            seen = u.ta.GetValue(5);
        });
    };
    EXPECT_TRUE(ktest::ExpectViolation(
        kernel(false), {"LocalTensor::GetValue", "core AIV 0", "UB hazard V -> S (read after write)"}));
    EXPECT_TRUE(ktest::ExpectOk(kernel(true)));
    EXPECT_EQ(seen, 3.0f);
}

TEST(Hazard, hazard_s_to_v)
{
    auto kernel = [&](bool sync) {
        return ktest::Run(1, KernelType::AIV_ONLY, [&] {
            Ub64 u;
            for (int i = 0; i < 64; ++i) u.ta.SetValue(i, float(i));
            if (sync) {
                SetFlag<HardEvent::S_V>(0);
                WaitFlag<HardEvent::S_V>(0);
            }
            Muls(u.tb, u.ta, 2.0f, 64);
        });
    };
    EXPECT_TRUE(ktest::ExpectViolation(
        kernel(false),
        {"Muls", "core AIV 0", "UB hazard S -> V (read after write)", "LocalTensor::SetValue on pipe S"}));
    EXPECT_TRUE(ktest::ExpectOk(kernel(true)));
}

TEST(Hazard, hazard_v_to_mte2_write_after_read)
{
    ktest::Gm<float> g(64, "src");
    auto kernel = [&](bool sync) {
        return ktest::Run(1, KernelType::AIV_ONLY, [&] {
            Ub64 u;
            GlobalTensor<float> gg = Gm(g);
            Duplicate(u.ta, 1.0f, 64);
            PipeBarrier<PIPE_V>();
            Adds(u.tb, u.ta, 1.0f, 64);   // V reads ta ...
            if (sync) {
                SetFlag<HardEvent::V_MTE2>(0);
                WaitFlag<HardEvent::V_MTE2>(0);
            }
            DataCopy(u.ta, gg, 64);       // ... MTE2 overwrites it
            PipeBarrier<PIPE_ALL>();
        });
    };
    EXPECT_TRUE(ktest::ExpectViolation(
        kernel(false), {"DataCopy(GM->UB)", "core AIV 0", "UB hazard V -> MTE2 (write after read)", "Adds on pipe V"}));
    EXPECT_TRUE(ktest::ExpectOk(kernel(true)));
}

TEST(Hazard, hazard_flag_edges_are_transitive)
{
    // MTE2 -> V -> MTE3 chain: MTE3 reads data MTE2 wrote, ordered through V.
    ktest::Gm<float> src(64, "src"), dst(64, "dst");
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        Ub64 u;
        DataCopy(u.ta, Gm(src), 64);
        SetFlag<HardEvent::MTE2_V>(0);
        WaitFlag<HardEvent::MTE2_V>(0);
        Adds(u.tb, u.tb.ReinterpretCast<float>(), 0.0f, 0);   // a V instruction after the wait
        SetFlag<HardEvent::V_MTE3>(0);
        WaitFlag<HardEvent::V_MTE3>(0);
        DataCopy(Gm(dst), u.ta, 64);
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
}

// ---- GM: across cores -------------------------------------------------------------------------

TEST(Hazard, hazard_cross_core_read_before_sync_all)
{
    ktest::Gm<float> g(64, "shared");
    auto kernel = [&](bool sync) {
        return ktest::Run(2, KernelType::MIX_AIV_1_0, [&] {
            GlobalTensor<float> gg = Gm(g);
            if (GetBlockIdx() == 0) gg.SetValue(3, 7.0f);
            if (sync) SyncAll();
            if (GetBlockIdx() == 1) (void)gg.GetValue(3);
            if (!sync) SyncAll();
        });
    };
    EXPECT_TRUE(ktest::ExpectViolation(
        kernel(false), {"core AIV 0", "GM hazard across cores (read/write)", "AIV 0 GlobalTensor::SetValue writes",
                        "AIV 1 GlobalTensor::GetValue reads", "'shared' at byte offset 12"}));
    EXPECT_TRUE(ktest::ExpectOk(kernel(true)));
}

TEST(Hazard, hazard_cross_core_write_write)
{
#if defined(__SANITIZE_THREAD__)
    // The non-atomic kernel races on GM on purpose; with its cores on two OS threads ThreadSanitizer
    // reports that race of the test process (whenever the two stores happen to overlap in time). One
    // thread under TSan; the other builds run it on the default thread budget.
    twin::kernel::SetCoreThreadBudget(1);
    struct RestoreBudget {
        ~RestoreBudget() { twin::kernel::SetCoreThreadBudget(0); }
    } restore;
#endif
    ktest::Gm<float> g(256, "out");
    auto kernel = [&](bool atomic) {
        return ktest::Run(4, KernelType::AIV_ONLY, [&] {
            Ub64 u;
            Duplicate(u.ta, 1.0f, 64);
            SetFlag<HardEvent::V_MTE3>(0);
            WaitFlag<HardEvent::V_MTE3>(0);
            GlobalTensor<float> gg = Gm(g);
            // cores 1 and 2 write the same 64 floats at offset 64; cores 0 and 3 write their own ranges
            const int64_t slot = GetBlockIdx() == 2 ? 1 : GetBlockIdx();
            if (atomic) SetAtomicAdd<float>();
            DataCopy(gg[slot * 64], u.ta, 64);
            if (atomic) SetAtomicNone();
        });
    };
    for (int run = 0; run < 3; ++run)   // the same report every time, whatever the thread timing
        EXPECT_TRUE(ktest::ExpectViolation(
            kernel(false),
            {"DataCopy(UB->GM): core AIV 1: GM hazard across cores (write/write): AIV 1 DataCopy(UB->GM) writes and "
             "AIV 2 DataCopy(UB->GM) writes 256 overlapping bytes of GM buffer 'out' at byte offset 256"}));
    EXPECT_TRUE(ktest::ExpectOk(kernel(true))); // atomic adds commute
}

TEST(Hazard, hazard_report_is_deterministic)
{
    // 8 cores race on overlapping ranges: the reported pair is the lowest address, lowest cores.
    ktest::Gm<float> g(1024, "racy");
    std::string first;
    for (int run = 0; run < 5; ++run) {
        auto r = ktest::Run(8, KernelType::AIV_ONLY, [&] {
            GlobalTensor<float> gg = Gm(g);
            const int64_t me = GetBlockIdx();
            for (int i = 0; i < 16; ++i) gg.SetValue((me * 7 + i * 3) % 40, float(me));
        });
        EXPECT_FALSE(r.ok);
        if (run == 0) first = r.error;
        EXPECT_EQ(r.error, first);
    }
    EXPECT_TRUE(ktest::HasSubstr(first, "GM hazard across cores (write/write)"));
}

namespace {
TCubeTiling Tiling8() {
    TCubeTiling t{};
    t.M = t.N = t.Ka = t.Kb = 8;
    t.singleCoreM = t.singleCoreN = t.singleCoreK = 8;
    t.baseM = t.baseN = t.baseK = 16;
    return t;
}
using MmF = MatmulType<TPosition::GM, CubeFormat::ND, float>;
}  // namespace

TEST(Hazard, hazard_aiv_reads_matmul_result_before_completion)
{
    ktest::Gm<uint8_t> ws(twin::kLibApiWorkspaceBytes, "ws");
    ktest::Gm<float> a(64, "A"), b(64, "B"), c(2 * 64, "C");
    TCubeTiling t = Tiling8();
    auto kernel = [&](bool wait) {
        return ktest::Run(1, KernelType::MIX_AIC_1_2, [&] {
            TPipe pipe;
            Matmul<MmF, MmF, MmF> mm;
            REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
            GlobalTensor<float> ga = Gm(a), gb = Gm(b), gc = Gm(c);
            const int64_t me = GetBlockIdx();
            mm.SetTensorA(ga);
            mm.SetTensorB(gb);
            mm.template IterateAll<false>(gc[me * 64], 0, false, true);
            if (wait) mm.WaitIterateAll();
            (void)gc.GetValue(me * 64 + 9);   // the result, read by the scalar unit
            if (!wait) mm.WaitIterateAll();
            mm.End();
        }, 20000, ws.addr());
    };
    EXPECT_TRUE(ktest::ExpectViolation(
        kernel(false), {"GM hazard across cores (read/write)", "AIV 0 GlobalTensor::GetValue reads",
                        "the Matmul of AIV 0 (on AIC 0) Matmul::IterateAll writes", "'C' at byte offset 36"}));
    EXPECT_TRUE(ktest::ExpectOk(kernel(true)));
}

// The chip counts completion notifications and each WaitIterateAll consumes the oldest: deleting the wait
// for request 1 makes the wait meant for request 2 return once request 1 is done, so reading request 2's
// result is a hazard. TWIN_DROP_SYNC on the first wait's line acts as that deletion.
TEST(Hazard, hazard_deleted_matmul_wait_shifts_later_waits)
{
    ktest::Gm<uint8_t> ws(twin::kLibApiWorkspaceBytes, "ws");
    ktest::Gm<float> a(64, "A"), b(64, "B"), c(4 * 64, "C");
    TCubeTiling t = Tiling8();
    std::atomic<int> firstWaitLine{0}; // written by both vector cores (atomic: no core scheduling can race)
    auto kernel = [&] {
        return ktest::Run(
            1, KernelType::MIX_AIC_1_2,
            [&] {
                TPipe pipe;
                Matmul<MmF, MmF, MmF> mm;
                REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
                GlobalTensor<float> ga = Gm(a), gb = Gm(b), gc = Gm(c);
                const int64_t me = GetBlockIdx();
                mm.SetTensorA(ga);
                mm.SetTensorB(gb);
                mm.template IterateAll<false>(gc[me * 128], 0, false, true);
                firstWaitLine.store(__LINE__ + 1);
                mm.WaitIterateAll();
                mm.template IterateAll<false>(gc[me * 128 + 64], 0, false, true);
                mm.WaitIterateAll();
                (void)gc.GetValue(me * 128 + 64 + 9); // request 2's result
                mm.End();
            },
            20000, ws.addr());
    };
    EXPECT_TRUE(ktest::ExpectOk(kernel()));
    ASSERT_GT(firstWaitLine.load(), 0);
    const std::string site = "test_hazard.cpp:" + std::to_string(firstWaitLine.load());
    setenv("TWIN_DROP_SYNC", site.c_str(), 1);
    twin::LaunchResult dropped = kernel();
    unsetenv("TWIN_DROP_SYNC");
    EXPECT_TRUE(ktest::ExpectViolation(
        dropped, {"GM hazard across cores (read/write)", "GlobalTensor::GetValue reads", "Matmul::IterateAll writes"}));
}

TEST(Hazard, hazard_matmul_result_of_another_aiv_needs_sync_all)
{
    ktest::Gm<uint8_t> ws(twin::kLibApiWorkspaceBytes, "ws");
    ktest::Gm<float> a(64, "A"), b(64, "B"), c(2 * 64, "C");
    TCubeTiling t = Tiling8();
    auto kernel = [&](bool sync) {
        return ktest::Run(1, KernelType::MIX_AIC_1_2, [&] {
            TPipe pipe;
            Matmul<MmF, MmF, MmF> mm;
            REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
            GlobalTensor<float> ga = Gm(a), gb = Gm(b), gc = Gm(c);
            const int64_t me = GetBlockIdx();
            mm.SetTensorA(ga);
            mm.SetTensorB(gb);
            mm.IterateAll(gc[me * 64]);   // synchronous: complete for this AIV only
            mm.End();
            if (sync) SyncAll();
            (void)gc.GetValue((1 - me) * 64);   // the other AIV's result
            if (!sync) SyncAll();
        }, 20000, ws.addr());
    };
    EXPECT_TRUE(ktest::ExpectViolation(
        kernel(false), {"GM hazard across cores (read/write)", "the Matmul of AIV", "Matmul::IterateAll writes"}));
    EXPECT_TRUE(ktest::ExpectOk(kernel(true)));
}
