// In-pipe hazards (PipeBarrier<PIPE_V>/<PIPE_MTE2>) and the sync-site switches of the hazard checker
// (twin/kernel/sync_site.h): TWIN_DROP_SYNC drops one call site's ordering edge without changing the
// run (no flag rule fires), TWIN_SYNC_SITES lists the sites. Each negative case has a passing twin.
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "kernel_operator.h"
#include "kernel_test_util.h"

using namespace AscendC;
using twin::KernelType;

namespace {

GlobalTensor<float> Gm(ktest::Gm<float>& g)
{
    GlobalTensor<float> t;
    t.SetGlobalBuffer((__gm__ float*)g.addr(), g.n);
    return t;
}

// Sets an environment variable for one scope.
struct Env {
    const char* name;
    Env(const char* n, const std::string& v) : name(n) { setenv(n, v.c_str(), 1); }
    ~Env() { unsetenv(name); }
};

int g_flagLine = 0, g_barrierLine = 0, g_syncAllLine = 0;

// MTE2 -> V through one SetFlag/WaitFlag pair, then V -> V through a PipeBarrier.
twin::LaunchResult FlagAndBarrierKernel(ktest::Gm<float>& g)
{
    return ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> a, b;
        pipe.InitBuffer(a, 256);
        pipe.InitBuffer(b, 256);
        LocalTensor<float> ta = a.Get<float>(), tb = b.Get<float>();
        DataCopy(ta, Gm(g), 64);
        g_flagLine = __LINE__ + 1;
        SetFlag<HardEvent::MTE2_V>(0);
        WaitFlag<HardEvent::MTE2_V>(0);
        Adds(tb, ta, 1.0f, 64);
        g_barrierLine = __LINE__ + 1;
        PipeBarrier<PIPE_V>();
        Muls(ta, tb, 2.0f, 64);
    });
}

std::string Site(int line) { return std::string("test_hazard_sites.cpp:") + std::to_string(line); }

} // namespace

TEST(HazardSites, hazard_v_to_v_needs_pipe_barrier)
{
    auto kernel = [](int sync) {
        return ktest::Run(1, KernelType::AIV_ONLY, [sync] {
            TPipe pipe;
            TBuf<TPosition::VECCALC> a, b;
            pipe.InitBuffer(a, 256);
            pipe.InitBuffer(b, 256);
            LocalTensor<float> ta = a.Get<float>(), tb = b.Get<float>();
            Duplicate(ta, 1.0f, 64);
            if (sync == 1)
                PipeBarrier<PIPE_V>();
            if (sync == 2)
                PipeBarrier<PIPE_ALL>();
            if (sync == 3)
                PipeBarrier<PIPE_MTE2>(); // another pipe's barrier does not order V
            Add(tb, ta, ta, 64);
        });
    };
    EXPECT_TRUE(ktest::ExpectViolation(
        kernel(0), {"Add", "core AIV 0", "UB hazard V -> V (read after write in one pipe)",
                    "Duplicate on the same pipe wrote", "PipeBarrier<PIPE_V>"}));
    EXPECT_TRUE(ktest::ExpectOk(kernel(1)));
    EXPECT_TRUE(ktest::ExpectOk(kernel(2)));
    EXPECT_TRUE(ktest::ExpectViolation(kernel(3), {"UB hazard V -> V"}));
}

TEST(HazardSites, hazard_v_write_after_write_and_in_place)
{
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> a;
        pipe.InitBuffer(a, 256);
        LocalTensor<float> ta = a.Get<float>();
        Duplicate(ta, 1.0f, 64);
        PipeBarrier<PIPE_V>();
        Adds(ta, ta, 1.0f, 64);  // in place: one instruction reads and writes the block
        Duplicate(ta, 0.0f, 64); // overwrites the Adds result without a barrier
    });
    EXPECT_TRUE(ktest::ExpectViolation(
        r, {"Duplicate", "UB hazard V -> V (write after write in one pipe)", "Adds on the same pipe wrote"}));
}

// asc-devkit PipeBarrier / 核内同步能力概述: a V instruction may start before the previous one has
// finished, so overwriting a block an earlier V instruction reads needs PipeBarrier<PIPE_V> too.
TEST(HazardSites, hazard_v_write_after_read_needs_pipe_barrier)
{
    auto kernel = [](int form) {
        return ktest::Run(1, KernelType::AIV_ONLY, [form] {
            TPipe pipe;
            TBuf<TPosition::VECCALC> a, b;
            pipe.InitBuffer(a, 256);
            pipe.InitBuffer(b, 256);
            LocalTensor<float> ta = a.Get<float>(), tb = b.Get<float>();
            Duplicate(ta, 1.0f, 64);
            PipeBarrier<PIPE_V>();
            Adds(tb, ta, 1.0f, 64); // reads ta
            if (form == 1)
                PipeBarrier<PIPE_V>();
            if (form == 3)
                Muls(ta, ta, 2.0f, 64); // in place, but the Adds may still be reading ta
            else if (form == 2)
                Adds(tb, tb, 1.0f, 64); // in place on tb: reads only what it writes (after a write: RAW)
            else
                Duplicate(ta, 0.0f, 64); // overwrites what the Adds reads
        });
    };
    EXPECT_TRUE(ktest::ExpectViolation(
        kernel(0), {"Duplicate", "core AIV 0", "UB hazard V -> V (write after read in one pipe)",
                    "Adds on the same pipe read", "PipeBarrier<PIPE_V>"}));
    EXPECT_TRUE(ktest::ExpectOk(kernel(1)));
    EXPECT_TRUE(ktest::ExpectViolation(kernel(2), {"UB hazard V -> V (read after write in one pipe)"}));
    EXPECT_TRUE(ktest::ExpectViolation(
        kernel(3), {"Muls", "UB hazard V -> V (write after read in one pipe)", "Adds on the same pipe read"}));
    // one in-place instruction alone is not a hazard
    auto inPlace = ktest::Run(1, KernelType::AIV_ONLY, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> a;
        pipe.InitBuffer(a, 256);
        LocalTensor<float> ta = a.Get<float>();
        Duplicate(ta, 1.0f, 64);
        PipeBarrier<PIPE_V>();
        Muls(ta, ta, 2.0f, 64);
    });
    EXPECT_TRUE(ktest::ExpectOk(inPlace));
}

TEST(HazardSites, hazard_v_to_s_wait_orders_v_after_v)
{
    // WaitFlag<V_S> stalls the scalar unit, which issues every later instruction: V's earlier work is
    // complete before its later instructions start (no PipeBarrier<PIPE_V> needed).
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> a, b;
        pipe.InitBuffer(a, 256);
        pipe.InitBuffer(b, 256);
        LocalTensor<float> ta = a.Get<float>(), tb = b.Get<float>();
        Duplicate(ta, 1.0f, 64);
        SetFlag<HardEvent::V_S>(0);
        WaitFlag<HardEvent::V_S>(0);
        Add(tb, ta, ta, 64);
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
}

TEST(HazardSites, hazard_mte2_write_after_write_needs_barrier)
{
    ktest::Gm<float> g(64, "src");
    auto kernel = [&](int sync) {
        return ktest::Run(1, KernelType::AIV_ONLY, [&, sync] {
            TPipe pipe;
            TBuf<TPosition::VECCALC> a;
            pipe.InitBuffer(a, 256);
            LocalTensor<float> ta = a.Get<float>();
            DataCopy(ta, Gm(g), 64);
            if (sync == 1)
                PipeBarrier<PIPE_MTE2>();
            if (sync == 2) { // a round trip MTE2 -> V -> MTE2 orders the two copies too
                SetFlag<HardEvent::MTE2_V>(0);
                WaitFlag<HardEvent::MTE2_V>(0);
                SetFlag<HardEvent::V_MTE2>(0);
                WaitFlag<HardEvent::V_MTE2>(0);
            }
            DataCopy(ta, Gm(g), 64);
        });
    };
    EXPECT_TRUE(ktest::ExpectViolation(
        kernel(0),
        {"DataCopy(GM->UB)", "UB hazard MTE2 -> MTE2 (write after write in one pipe)", "PipeBarrier<PIPE_MTE2>"}));
    EXPECT_TRUE(ktest::ExpectOk(kernel(1)));
    EXPECT_TRUE(ktest::ExpectOk(kernel(2)));
}

TEST(HazardSites, drop_sync_site_reports_the_hazard_and_nothing_else)
{
    ktest::Gm<float> g(64, "src");
    EXPECT_TRUE(ktest::ExpectOk(FlagAndBarrierKernel(g)));
    EXPECT_GT(g_flagLine, 0);
    EXPECT_GT(g_barrierLine, 0);
    {
        Env drop("TWIN_DROP_SYNC", Site(g_flagLine)); // the SetFlag: the flag is still set and waited
        EXPECT_TRUE(
            ktest::ExpectViolation(FlagAndBarrierKernel(g), {"Adds", "UB hazard MTE2 -> V (read after write)"}));
    }
    {
        Env drop("TWIN_DROP_SYNC", Site(g_flagLine + 1)); // the WaitFlag
        EXPECT_TRUE(
            ktest::ExpectViolation(FlagAndBarrierKernel(g), {"Adds", "UB hazard MTE2 -> V (read after write)"}));
    }
    {
        Env drop("TWIN_DROP_SYNC", Site(g_barrierLine));
        EXPECT_TRUE(ktest::ExpectViolation(
            FlagAndBarrierKernel(g), {"Muls", "UB hazard V -> V (read after write in one pipe)"}));
    }
    {
        Env drop("TWIN_DROP_SYNC", "test_hazard_sites.cpp:1"); // no such site: nothing changes
        EXPECT_TRUE(ktest::ExpectOk(FlagAndBarrierKernel(g)));
    }
    {
        Env off("TWIN_HAZARD", "0"); // checker off: nothing is dropped or reported
        Env drop("TWIN_DROP_SYNC", Site(g_flagLine));
        EXPECT_TRUE(ktest::ExpectOk(FlagAndBarrierKernel(g)));
    }
}

TEST(HazardSites, drop_sync_all_site_reports_the_gm_hazard)
{
    ktest::Gm<float> g(2 * 64, "shared");
    auto kernel = [&] {
        return ktest::Run(2, KernelType::MIX_AIV_1_0, [&] {
            GlobalTensor<float> gg = Gm(g);
            const int64_t me = GetBlockIdx();
            gg.SetValue(me * 64, 1.0f);
            if (me == 0) { // one writer: the two cores may run this body on separate threads
                g_syncAllLine = __LINE__ + 2;
            }
            SyncAll();
            (void)gg.GetValue((1 - me) * 64);
        });
    };
    EXPECT_TRUE(ktest::ExpectOk(kernel()));
    Env drop("TWIN_DROP_SYNC", Site(g_syncAllLine));
    EXPECT_TRUE(
        ktest::ExpectViolation(kernel(), {"GM hazard across cores (read/write)", "GlobalTensor::SetValue writes"}));
}

TEST(HazardSites, sync_sites_are_listed_with_kind_key_and_frame)
{
    ktest::Gm<float> g(64, "src");
    const std::string path = "twin_test_sync_sites_" + std::to_string(getpid()) + ".txt";
    std::remove(path.c_str());
    {
        Env list("TWIN_SYNC_SITES", path);
        EXPECT_TRUE(ktest::ExpectOk(FlagAndBarrierKernel(g)));
        EXPECT_TRUE(ktest::ExpectOk(FlagAndBarrierKernel(g))); // listed once per key and path
    }
    std::ifstream in(path);
    std::stringstream all;
    all << in.rdbuf();
    const std::string text = all.str();
    std::remove(path.c_str());
    EXPECT_TRUE(ktest::HasSubstr(text, "SetFlag<MTE2_V>\t" + Site(g_flagLine) + "#"));
    EXPECT_TRUE(ktest::HasSubstr(text, "WaitFlag<MTE2_V>\t" + Site(g_flagLine + 1) + "#"));
    EXPECT_TRUE(ktest::HasSubstr(text, "PipeBarrier<PIPE_V>\t" + Site(g_barrierLine) + "#"));
    size_t rows = 0;
    for (char ch : text)
        rows += ch == '\n';
    EXPECT_EQ(rows, 3);
}
