// Per-pipe timeline (twin/kernel/pipe_timeline.h): a single-buffered MTE2 -> V -> MTE3 loop costs about
// the sum of its pipes, the same loop double-buffered about its busiest pipe; SyncAll joins the cores;
// a synchronous Matmul stalls the requesting AIV for the AIC's time, an asynchronous one overlaps; and
// on every core and stage: busiest pipe <= timeline <= sum of the pipes (plus, on an AIV, the
// serving AIC's work of the stage).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "kernel_test_util.h"
#include "twin/kernel/cost_table.h"
#include "twin/kernel/pipe_timeline.h"

using namespace AscendC;
using twin::KernelType;
namespace cost = twin::cost;
namespace tk = twin::kernel;

namespace {

constexpr int kIters = 16;
constexpr uint32_t kElems = 2048; // 8 KiB fp32 per transfer

twin::PipeCounters Delta(const twin::CoreCounters& c, size_t stage)
{
    const twin::PipeCounters& hi =
        stage < c.atSyncAll.size() ? c.atSyncAll[stage] : static_cast<const twin::PipeCounters&>(c);
    twin::PipeCounters lo;
    if (stage > 0)
        lo = c.atSyncAll[stage - 1];
    twin::PipeCounters d;
    size_t nt = 0;
    const cost::PipeTerm* t = cost::PipeTerms(nt);
    (void)t;
    // every field is uint64_t: subtract field by field
    const uint64_t *h = reinterpret_cast<const uint64_t*>(&hi), *l = reinterpret_cast<const uint64_t*>(&lo);
    uint64_t* o = reinterpret_cast<uint64_t*>(&d);
    for (size_t i = 0; i < sizeof(twin::PipeCounters) / sizeof(uint64_t); ++i)
        o[i] = h[i] - l[i];
    return d;
}

struct Bounds {
    double serial = 0, busiest = 0;
};

Bounds PipeBounds(const twin::PipeCounters& d)
{
    size_t np = 0;
    const char* const* pipes = cost::Pipes(np);
    Bounds b;
    for (size_t i = 0; i < np; ++i) {
        const double p = cost::PipeCycles(d, pipes[i]);
        b.serial += p;
        b.busiest = std::max(b.busiest, p);
    }
    b.serial += cost::TransferLatencyCycles(d); // every transfer's latency exposed
    return b;
}

// One core's stage: the counters' pipe cycles and the timeline.
struct Stage {
    Bounds b;
    double timeline = 0;
};

Stage StageOf(const twin::LaunchResult& r, size_t core, size_t stage)
{
    Stage s;
    s.b = PipeBounds(Delta(r.cores[core], stage));
    if (stage < r.cores[core].stageTimeline.size())
        s.timeline = r.cores[core].stageTimeline[stage][0];
    return s;
}

// The toy kernel: kIters times load 8 KiB (MTE2), 10 Exp over it (V), store the result (MTE3).
// inPlace: one UB buffer per step for all three pipes (`buffers` of them, flags per buffer: with one,
// every step waits for the one before; with two, a step's load waits for the store two steps back).
// Otherwise: two input and two output buffers, as two TQue of depth 2 would give.
void Toy(float* in, float* out, int buffers, bool inPlace)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> tb;
    pipe.InitBuffer(tb, 4 * kElems * sizeof(float));
    GlobalTensor<float> gin, gout;
    gin.SetGlobalBuffer((__gm__ float*)in);
    gout.SetGlobalBuffer((__gm__ float*)out);
    for (int i = 0; i < kIters; ++i) {
        const int b = i % buffers;
        LocalTensor<float> src = tb.Get<float>()[b * kElems];
        LocalTensor<float> dst = inPlace ? src : tb.Get<float>()[(2 + b) * kElems];
        if (i >= buffers) {
            if (inPlace)
                WaitFlag<HardEvent::MTE3_MTE2>(b);
            else
                WaitFlag<HardEvent::V_MTE2>(b);
        }
        DataCopy(src, gin[i * kElems], kElems);
        SetFlag<HardEvent::MTE2_V>(b);
        WaitFlag<HardEvent::MTE2_V>(b);
        for (int k = 0; k < 9; ++k) {
            Exp(src, src, kElems);
            PipeBarrier<PIPE_V>(); // each Exp reads the previous one's result (in-pipe hazard rule)
        }
        if (!inPlace && i >= buffers)
            WaitFlag<HardEvent::MTE3_V>(b);
        Exp(dst, src, kElems);
        if (!inPlace)
            SetFlag<HardEvent::V_MTE2>(b);
        SetFlag<HardEvent::V_MTE3>(b);
        WaitFlag<HardEvent::V_MTE3>(b);
        DataCopy(gout[i * kElems], dst, kElems);
        if (inPlace)
            SetFlag<HardEvent::MTE3_MTE2>(b);
        else
            SetFlag<HardEvent::MTE3_V>(b);
    }
    for (int b = 0; b < buffers; ++b) {
        if (inPlace) {
            WaitFlag<HardEvent::MTE3_MTE2>(b);
        } else {
            WaitFlag<HardEvent::V_MTE2>(b);
            WaitFlag<HardEvent::MTE3_V>(b);
        }
    }
}

// A launch that asks for the timeline (LaunchOptions::timeline; it is off by default).
twin::LaunchResult RunTl(uint32_t blockDim, KernelType type, const std::function<void()>& entry, bool timeline = true)
{
    twin::LaunchOptions o{};
    o.blockDim = blockDim;
    o.type = type;
    o.timeoutMs = 20000;
    o.timeline = timeline;
    return twin::Launch(o, entry);
}

twin::LaunchResult RunToy(int buffers, bool inPlace, bool timeline = true)
{
    ktest::Gm<float> in(kIters * kElems, "in"), out(kIters * kElems, "out");
    return RunTl(1, KernelType::AIV_ONLY, [&] { Toy(in.p, out.p, buffers, inPlace); }, timeline);
}

using AType = MatmulType<TPosition::GM, CubeFormat::ND, float>;
using CType = MatmulType<TPosition::GM, CubeFormat::ND, float>;

} // namespace

TEST(PipeTimeline, single_buffered_loop_costs_the_sum_of_its_pipes)
{
    auto r = RunToy(1, true);
    EXPECT_TRUE(ktest::ExpectOk(r));
    if (r.cores.size() != 1)
        return;
    EXPECT_EQ(r.cores[0].stageTimeline.size(), 1);
    const Stage s = StageOf(r, 0, 0);
    // no overlap is possible: every step waits for the one before
    EXPECT_LE(s.timeline, s.b.serial * (1 + 1e-9));
    EXPECT_GE(s.timeline, 0.95 * s.b.serial);
    EXPECT_LT(s.b.busiest, 0.5 * s.b.serial); // the pipes are balanced enough for overlap to matter
}

TEST(PipeTimeline, double_buffered_loop_costs_about_its_busiest_pipe)
{
    auto r1 = RunToy(1, true), r2 = RunToy(2, false);
    EXPECT_TRUE(ktest::ExpectOk(r1));
    EXPECT_TRUE(ktest::ExpectOk(r2));
    if (r1.cores.size() != 1 || r2.cores.size() != 1)
        return;
    const Stage s1 = StageOf(r1, 0, 0), s2 = StageOf(r2, 0, 0);
    // same work, same pipe totals
    EXPECT_LT(std::fabs(s1.b.serial - s2.b.serial), 0.05 * s1.b.serial); // same work (a few more flag waits)
    EXPECT_GE(s2.timeline, s2.b.busiest);
    // the busiest pipe plus filling and draining the pipeline (one step of each other pipe)
    EXPECT_LE(s2.timeline, 1.25 * s2.b.busiest);
    EXPECT_LT(s2.timeline, 0.6 * s1.timeline);
}

TEST(PipeTimeline, ping_pong_of_three_pipes_over_two_shared_buffers_halves_the_sum)
{
    // load(i) waits for store(i-2): two steps per load -> vector -> store round trip
    auto r1 = RunToy(1, true), r2 = RunToy(2, true);
    EXPECT_TRUE(ktest::ExpectOk(r1));
    EXPECT_TRUE(ktest::ExpectOk(r2));
    if (r1.cores.size() != 1 || r2.cores.size() != 1)
        return;
    const Stage s1 = StageOf(r1, 0, 0), s2 = StageOf(r2, 0, 0);
    EXPECT_GT(s2.timeline, 0.45 * s1.timeline);
    EXPECT_LT(s2.timeline, 0.6 * s1.timeline);
    EXPECT_GT(s2.timeline, 1.2 * s2.b.busiest);
}

TEST(PipeTimeline, exported_busy_cycles_match_the_pipe_terms)
{
    auto r = RunToy(2, false);
    EXPECT_TRUE(ktest::ExpectOk(r));
    if (r.cores.size() != 1 || r.cores[0].stageBusy.size() != 1)
        return;
    const twin::PipeCounters d = Delta(r.cores[0], 0);
    for (int p = 0; p < tk::kTlPipes; ++p) {
        const double want = cost::PipeCycles(d, tk::TlPipeName(p));
        EXPECT_LE(std::fabs(r.cores[0].stageBusy[0][p] - want), 1e-6 * (1 + want));
    }
}

namespace {
// Every variant of `constant` moves the timeline tl (one value per variant) by (factor - 1) x `count` x the
// constant: the constant's work lies entirely on the critical path. false when the constant has no variant.
bool ExpectVariantShifts(const std::vector<double>& tl, const char* constant, double count)
{
    bool seen = false;
    for (size_t v = 1; v < tl.size(); ++v) {
        if (std::strcmp(tk::TlVariantConstant(v), constant) != 0)
            continue;
        seen = true;
        const double want = tl[0] + (tk::TlVariantFactor(v) - 1) * count * cost::ConstantValue(constant);
        EXPECT_LT(std::fabs(tl[v] - want), 1e-6 * tl[0]) << constant << " x" << tk::TlVariantFactor(v);
    }
    return seen;
}
} // namespace

TEST(PipeTimeline, variants_scale_one_constant)
{
    auto r = RunToy(1, true);
    EXPECT_TRUE(ktest::ExpectOk(r));
    if (r.cores.size() != 1 || r.cores[0].stageTimeline.empty())
        return;
    const std::vector<double>& tl = r.cores[0].stageTimeline[0];
    EXPECT_EQ(tl.size(), tk::TlVariants());
    EXPECT_EQ(tk::TlVariantConstant(0), nullptr);
    EXPECT_EQ(tk::TlVariantFactor(0), 1.0);
    // 2 transfers per step, nothing overlaps: +-(half of) 2 x kIters x dma_transfer_cycles
    EXPECT_TRUE(ExpectVariantShifts(tl, "dma_transfer_cycles", 2 * kIters));
}

TEST(PipeTimeline, a_dependent_transfer_exposes_its_latency)
{
    // single buffered: every step waits for its load's data (MTE2_V) and for its store's landing (MTE3_MTE2 before
    // the next load, the final wait for the last): 2 x kIters latencies on the critical path, none overlapped
    auto r = RunToy(1, true);
    EXPECT_TRUE(ktest::ExpectOk(r));
    if (r.cores.size() != 1 || r.cores[0].stageTimeline.empty())
        return;
    const std::vector<double>& tl = r.cores[0].stageTimeline[0];
    const double lat = cost::ConstantValue("dma_latency_cycles");
    EXPECT_GT(lat, 0.0);
    EXPECT_TRUE(ExpectVariantShifts(tl, "dma_latency_cycles", 2 * kIters));
    // double buffered with separate in/out buffers: the loads' latencies overlap the other steps' work
    auto r2 = RunToy(2, false);
    EXPECT_TRUE(ktest::ExpectOk(r2));
    if (r2.cores.size() != 1 || r2.cores[0].stageTimeline.empty())
        return;
    const std::vector<double>& tl2 = r2.cores[0].stageTimeline[0];
    for (size_t v = 1; v < tl2.size(); ++v) {
        if (std::strcmp(tk::TlVariantConstant(v), "dma_latency_cycles") == 0 && tk::TlVariantFactor(v) == 2.0) {
            EXPECT_LT(tl2[v] - tl2[0], 0.5 * 2 * kIters * lat);
        }
    }
}

TEST(PipeTimeline, mte3_barrier_waits_for_the_landing_of_earlier_stores)
{
    // kIters stores of one UB buffer to the same GM range: PipeBarrier<PIPE_MTE3> between them (the in-pipe
    // hazard rule) makes each wait for the previous one's landing: kIters - 1 latencies on the MTE3 pipe
    // (the last one's landing is waited for by the kernel end's join), none without it to a disjoint range
    auto run = [](bool barrier) {
        ktest::Gm<float> out(kIters * kElems, "out");
        return RunTl(1, KernelType::AIV_ONLY, [&] {
            TPipe pipe;
            TBuf<TPosition::VECCALC> buf;
            pipe.InitBuffer(buf, kElems * sizeof(float));
            LocalTensor<float> t = buf.Get<float>();
            GlobalTensor<float> g;
            g.SetGlobalBuffer((__gm__ float*)out.p, kIters * kElems);
            Duplicate(t, 1.0f, kElems);
            SetFlag<HardEvent::V_MTE3>(0);
            WaitFlag<HardEvent::V_MTE3>(0);
            for (int i = 0; i < kIters; ++i) {
                if (barrier && i > 0)
                    PipeBarrier<PIPE_MTE3>();
                DataCopy(g[barrier ? 0 : i * kElems], t, kElems);
            }
        });
    };
    auto with = run(true), without = run(false);
    ASSERT_TRUE(ktest::ExpectOk(with));
    ASSERT_TRUE(ktest::ExpectOk(without));
    ASSERT_FALSE(with.cores.empty() || with.cores[0].stageTimeline.empty());
    ASSERT_FALSE(without.cores.empty() || without.cores[0].stageTimeline.empty());
    const double lat = cost::ConstantValue("dma_latency_cycles");
    const double d = with.cores[0].stageTimeline[0][0] - without.cores[0].stageTimeline[0][0];
    // within the stores' scalar issue: without barriers the loop's work is charged at one hook, its transfers
    // queued after all of its issue; with them at every barrier
    EXPECT_NEAR(d, (kIters - 1) * lat, kIters * cost::ConstantValue("scalar_issue_cycles"));
    EXPECT_GT(d, (kIters - 1) * lat / 2);
}

TEST(PipeTimeline, syncall_joins_the_cores_at_the_latest_arrival)
{
    auto r = RunTl(2, KernelType::MIX_AIV_1_0, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, kElems * sizeof(float));
        LocalTensor<float> buf = tb.Get<float>();
        Duplicate(buf, 1.0f, kElems);
        if (GetBlockIdx() == 1)
            for (int k = 0; k < 100; ++k) {
                PipeBarrier<PIPE_V>(); // each Exp reads the previous result (in-pipe hazard rule)
                Exp(buf, buf, kElems); // 100 x 64 cycles on core 1 only
            }
        SyncAll();
        Exp(buf, buf, kElems);
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    if (r.cores.size() != 2)
        return;
    const double syncAll = cost::ConstantValue("syncall_cycles");
    const auto &c0 = r.cores[0], &c1 = r.cores[1];
    EXPECT_EQ(c0.stageTimeline.size(), 2);
    EXPECT_EQ(c1.stageTimeline.size(), 2);
    if (c0.stageTimeline.size() != 2 || c1.stageTimeline.size() != 2)
        return;
    EXPECT_GT(c1.stageTimeline[0][0], c0.stageTimeline[0][0] + 6000);
    // both leave the SyncAll at core 1's arrival and end one Exp (and its issue) later
    EXPECT_LT(std::fabs(c0.timelineEnd - c1.timelineEnd), 1e-9);
    EXPECT_LT(std::fabs(c0.timelineEnd - (c1.stageTimeline[0][0] + c0.stageTimeline[1][0])), 1e-9);
    EXPECT_GE(c1.stageTimeline[0][0], 100 * 64 + syncAll);
}

namespace {
twin::LaunchResult RunMatmul(bool async, int vecWork, bool timeline = true)
{
    const int M = 128, N = 128, K = 256;
    static ktest::Gm<float> a(M * K, "a"), b(K * N, "b"), c(M * N, "c");
    static ktest::Gm<uint8_t> ws(twin::kLibApiWorkspaceBytes, "ws");
    static TCubeTiling t{};
    t.usedCoreNum = 1;
    t.M = M;
    t.N = N;
    t.Ka = K;
    t.Kb = K;
    t.singleCoreM = M;
    t.singleCoreN = N;
    t.singleCoreK = K;
    t.baseM = 64;
    t.baseN = 64;
    t.baseK = 32;
    twin::LaunchOptions opt{};
    opt.blockDim = 1;
    opt.type = KernelType::MIX_AIC_1_2;
    opt.workspace = ws.addr();
    opt.timeline = timeline;
    return twin::Launch(opt, [&] {
        TPipe pipe;
        Matmul<AType, AType, CType, CType, CFG_NORM> mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        if ASCEND_IS_AIC {
            return;
        }
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, kElems * sizeof(float));
        LocalTensor<float> buf = tb.Get<float>();
        GlobalTensor<float> ga, gb, gc;
        ga.SetGlobalBuffer((__gm__ float*)a.addr());
        gb.SetGlobalBuffer((__gm__ float*)b.addr());
        gc.SetGlobalBuffer((__gm__ float*)c.addr());
        if (GetBlockIdx() == 0) {
            mm.SetTensorA(ga);
            mm.SetTensorB(gb);
            if (async)
                mm.template IterateAll<false>(gc, 0, false, true);
            else
                mm.IterateAll(gc);
            Duplicate(buf, 1.0f, kElems);
            for (int k = 0; k < vecWork; ++k) {
                PipeBarrier<PIPE_V>(); // each Exp reads the previous result (in-pipe hazard rule)
                Exp(buf, buf, kElems);
            }
            if (async)
                mm.WaitIterateAll();
        }
        mm.End();
    });
}
} // namespace

TEST(PipeTimeline, synchronous_matmul_stalls_the_aiv_asynchronous_overlaps)
{
    auto rs = RunMatmul(false, 200), ra = RunMatmul(true, 200);
    EXPECT_TRUE(ktest::ExpectOk(rs));
    EXPECT_TRUE(ktest::ExpectOk(ra));
    if (rs.cores.size() != 3 || ra.cores.size() != 3)
        return;
    const double aic = rs.cores[0].stageTimeline.empty() ? 0 : rs.cores[0].stageTimeline[0][0];
    EXPECT_GT(aic, 1000);
    const double vec = 200 * 64;
    const double sync = rs.cores[1].stageTimeline[0][0], async = ra.cores[1].stageTimeline[0][0];
    EXPECT_GE(sync, aic + vec);                        // the AIV's vector work starts after the completion
    EXPECT_LT(async, sync - 0.8 * std::min(aic, vec)); // ... or alongside it
    EXPECT_GE(async, std::max(aic, vec));
    EXPECT_LT(rs.cores[2].stageTimeline[0][0], 0.1 * sync); // the other AIV requested nothing
}

TEST(PipeTimeline, busiest_pipe_le_timeline_le_serial_on_every_core_and_stage)
{
    std::vector<twin::LaunchResult> runs;
    runs.push_back(RunToy(1, true));
    runs.push_back(RunToy(2, true));
    runs.push_back(RunToy(2, false));
    runs.push_back(RunMatmul(false, 50));
    runs.push_back(RunMatmul(true, 50));
    for (const auto& r : runs) {
        EXPECT_TRUE(ktest::ExpectOk(r));
        size_t nAic = 0;
        for (const auto& c : r.cores)
            nAic += c.isAic ? 1 : 0;
        for (size_t i = 0; i < r.cores.size(); ++i) {
            const auto& c = r.cores[i];
            EXPECT_EQ(c.stageTimeline.size(), c.atSyncAll.size() + 1);
            for (size_t s = 0; s < c.stageTimeline.size(); ++s) {
                Stage st = StageOf(r, i, s);
                if (!c.isAic && nAic > 0) { // the serving AIC's work of the stage: the AIV may wait for all of it
                    const size_t aic = (i - nAic) / ((r.cores.size() - nAic) / nAic);
                    st.b.serial += PipeBounds(Delta(r.cores[aic], s)).serial;
                }
                EXPECT_LE(st.b.busiest, st.timeline * (1 + 1e-9) + 1e-9);
                EXPECT_LE(st.timeline, st.b.serial * (1 + 1e-9) + 1e-9);
            }
        }
    }
}

namespace {
// TWIN_TIMELINE for the scope of one test (restored after it).
class ScopedTimelineEnv {
public:
    explicit ScopedTimelineEnv(const char* value)
    {
        const char* old = std::getenv("TWIN_TIMELINE");
        had_ = old != nullptr;
        if (had_)
            old_ = old;
        Set(value);
    }
    ~ScopedTimelineEnv() { Set(had_ ? old_.c_str() : nullptr); }
    static void Set(const char* value)
    {
        if (value == nullptr)
            unsetenv("TWIN_TIMELINE");
        else
            setenv("TWIN_TIMELINE", value, 1);
    }

private:
    bool had_ = false;
    std::string old_;
};

bool SameCounters(const twin::PipeCounters& a, const twin::PipeCounters& b)
{
    twin::PipeCounters x = a, y = b;
    x.syncWaitNs = y.syncWaitNs = 0; // wall time, not a cost
    return std::memcmp(&x, &y, sizeof(x)) == 0;
}
} // namespace

TEST(PipeTimeline, off_by_default_and_the_counters_do_not_depend_on_it)
{
    ScopedTimelineEnv env(nullptr);
    std::vector<std::pair<twin::LaunchResult, twin::LaunchResult>> runs; // (off, on)
    runs.emplace_back(RunToy(2, false, false), RunToy(2, false, true));
    runs.emplace_back(RunMatmul(true, 20, false), RunMatmul(true, 20, true));
    for (const auto& [off, on] : runs) {
        EXPECT_TRUE(ktest::ExpectOk(off));
        EXPECT_TRUE(ktest::ExpectOk(on));
        ASSERT_EQ(off.cores.size(), on.cores.size());
        uint64_t waits = 0;
        for (size_t i = 0; i < off.cores.size(); ++i) {
            EXPECT_TRUE(off.cores[i].stageTimeline.empty());
            EXPECT_TRUE(off.cores[i].stageBusy.empty());
            EXPECT_EQ(off.cores[i].timelineEnd, 0.0);
            EXPECT_FALSE(on.cores[i].stageTimeline.empty());
            // every counter (the WaitFlag counts included) is the same with and without the timeline
            EXPECT_TRUE(SameCounters(off.cores[i], on.cores[i])) << "core " << i;
            ASSERT_EQ(off.cores[i].atSyncAll.size(), on.cores[i].atSyncAll.size());
            for (size_t k = 0; k < off.cores[i].atSyncAll.size(); ++k)
                EXPECT_TRUE(SameCounters(off.cores[i].atSyncAll[k], on.cores[i].atSyncAll[k]));
            waits += off.cores[i].waitFlagsV + off.cores[i].waitFlagsMTE2 + off.cores[i].waitFlagsMTE3;
        }
        EXPECT_GT(waits, 0u); // the comparison covers the WaitFlag counters
    }
}

TEST(PipeTimeline, environment_switch_is_read_at_every_launch)
{
    {
        ScopedTimelineEnv env("1");
        EXPECT_EQ(RunToy(1, true, false).cores.at(0).stageTimeline.size(), 1u);
    }
    {
        ScopedTimelineEnv env("0");
        EXPECT_TRUE(RunToy(1, true, false).cores.at(0).stageTimeline.empty());
        EXPECT_EQ(RunToy(1, true, true).cores.at(0).stageTimeline.size(), 1u); // the option still asks
    }
    {
        ScopedTimelineEnv env("1"); // after launches without it: not frozen at the first launch
        EXPECT_EQ(RunToy(1, true, false).cores.at(0).stageTimeline.size(), 1u);
    }
    {
        ScopedTimelineEnv env(nullptr);
        EXPECT_TRUE(RunToy(1, true, false).cores.at(0).stageTimeline.empty());
    }
}
