// twin::Launch: virtual AI cores as cooperative fibers on at most CoreThreadBudget() pool threads
// (twin/kernel/core_scheduler.h; waves of AIV-only launches larger than the chip run on pool threads
// directly), violation recording, SyncAll barrier with deadlock detection, Matmul service wait (MIX),
// end-of-kernel checks, the services of cross-core flags (src/kernel/cross_core_launch.h) and the
// deadlock report when every unfinished core waits and none can proceed.
#include "twin/launch.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <cstring>
#include <stdexcept>

#include "cross_core_launch.h"
#include "ub_arena.h"
#include "twin/kernel/api_tally.h"
#include "twin/kernel/core_context.h"
#include "twin/kernel/core_scheduler.h"
#include "twin/kernel/cost_table.h"
#include "twin/kernel/core_thread_pool.h"
#include "twin/kernel/hazard.h"
#include "twin/kernel/l2_model.h"
#include "twin/kernel/pipe_timeline.h"
#include "twin/kernel/sync_sys.h"
#include "twin/platform.h"

namespace twin {

const char *KernelTypeName(KernelType t) {
    switch (t) {
    case KernelType::AIV_ONLY: return "KERNEL_TYPE_AIV_ONLY";
    case KernelType::AIC_ONLY: return "KERNEL_TYPE_AIC_ONLY";
    case KernelType::MIX_AIV_1_0: return "KERNEL_TYPE_MIX_AIV_1_0";
    case KernelType::MIX_AIC_1_1: return "KERNEL_TYPE_MIX_AIC_1_1";
    case KernelType::MIX_AIC_1_2: return "KERNEL_TYPE_MIX_AIC_1_2";
    }
    return "?";
}

namespace kernel {

namespace {
thread_local CoreContext *g_twinCore = nullptr;
}  // namespace

CoreContext *CurrentCore() noexcept { return g_twinCore; }
void SetCurrentCore(CoreContext *c) noexcept { g_twinCore = c; }

struct LaunchState {
    LaunchOptions opt;
    Platform plat;
    uint32_t numAic = 0, numAiv = 0;       // virtual cores of the launch
    uint32_t aivPerAic = 0;                // 2 for MIX_AIC_1_2, 1 for MIX_AIC_1_1
    bool concurrent = true;                // all cores resident at once (false: AIV waves)
    bool timeline = false;                 // per-pipe timeline recorded (TlEnabled, decided at launch)
    uint64_t l2Capacity = 0;               // L2 model (twin/kernel/l2_model.h): TWIN_L2_BYTES, 0 = off
    std::vector<L2Log> l2Logs;             // per core (AIC then AIV) when the L2 model is on
    std::mutex mu;
    // Cores block through the scheduler (concurrent launches only). Channel 0: SyncAll barriers;
    // channel 1 + i: AIC i's Matmul service, woken only by its own AIV cores' exits (or an abort),
    // so a finishing AIV does not wake every other AIC.
    std::unique_ptr<CoreScheduler> sched;
    std::atomic<bool> aborted{false};
    std::string firstError;
    // barriers: [0] AIV-only, [1] all cores
    uint32_t arrived[2] = {0, 0};
    uint64_t generation[2] = {0, 0};
    uint32_t aivFinished = 0, aicFinished = 0;
    std::vector<std::string> waitingAt;    // per core slot (AIC then AIV): API it blocks in
    std::vector<uint8_t> finished;
    std::vector<uint32_t> aivDoneOfAic;
    std::vector<CoreCounters> aicCounters;  // written by AIV (Matmul MACs) under mu
    // Matmul work per serving AIC and per stage of the requesting AIV (its SyncAll count), under mu.
    std::vector<std::vector<PipeCounters>> aicStageWork;
    std::unique_ptr<HazardLaunch, void (*)(HazardLaunch *)> hazard{nullptr, nullptr};   // twin/kernel/hazard.h
    // Timeline (twin/kernel/pipe_timeline.h), under mu: per barrier the latest arrival so far and the
    // release time of its last generation; per AIC the time it is free for the next Matmul request and,
    // per stage of the requesting AIV, the cycles it spent (per variant) and its busy cycles per pipe.
    std::vector<double> tlArrival[2], tlRelease[2];
    std::vector<std::vector<double>> aicFree;
    std::vector<std::vector<std::vector<double>>> aicStageTimeline, aicStageBusy;
    // Per core slot, under mu: what a blocked core waits for (deadlock reports across SyncAll, the
    // Matmul service and cross-core flags). Scheduler channel 1 + numAic + slot: that core's
    // CrossCoreWaitFlag.
    enum BlockKind : uint8_t { kRunning = 0, kInSyncAll, kInMatmulService, kInCrossCoreWait };
    struct Blocked {
        BlockKind kind = kRunning;
        int barrier = 0;
        uint64_t generation = 0;
    };
    std::vector<Blocked> blocked;
    CrossCoreLaunchPtr xcore{nullptr, nullptr}; // cross-core flag state, created on first use
};

const char *HardEventName(AscendC::HardEvent e) {
    static const char *names[] = {"MTE2_MTE1", "MTE1_MTE2", "MTE1_M", "M_MTE1", "MTE2_V", "V_MTE2", "MTE3_V", "V_MTE3", "M_V", "V_M", "V_V",
                                  "MTE3_MTE1", "MTE1_MTE3", "MTE1_V", "MTE2_M", "M_MTE2", "V_MTE1", "M_FIX", "FIX_M", "MTE3_MTE2",
                                  "MTE2_MTE3", "S_V", "V_S", "S_MTE2", "MTE2_S", "S_MTE3", "MTE3_S", "MTE2_FIX", "FIX_MTE2", "FIX_S",
                                  "M_S", "FIX_MTE3", "MTE1_FIX", "FIX_MTE1", "FIX_FIX"};
    const unsigned i = static_cast<unsigned>(e);
    return i < sizeof(names) / sizeof(names[0]) ? names[i] : "?";
}

std::string CoreName(const CoreContext &c) { return std::string(c.isAic ? "AIC " : "AIV ") + std::to_string(c.blockIdx); }

static size_t Slot(const LaunchState &ls, const CoreContext &c) { return c.isAic ? c.blockIdx : ls.numAic + c.blockIdx; }

static std::string SlotName(const LaunchState& ls, size_t i)
{
    return i < ls.numAic ? "AIC " + std::to_string(i) : "AIV " + std::to_string(i - ls.numAic);
}

// Under mu: a deadlock report when every unfinished core is blocked, none of them can proceed and at
// least one waits for a cross-core flag ("" otherwise: SyncAll-only deadlocks keep their own reports).
// The text does not depend on which core detects it.
static std::string StuckReport(const LaunchState& ls)
{
    if (!ls.xcore)
        return std::string();
    bool crossCore = false;
    for (size_t i = 0; i < ls.blocked.size(); ++i) {
        if (ls.finished[i])
            continue;
        const LaunchState::Blocked& b = ls.blocked[i];
        switch (b.kind) {
            case LaunchState::kRunning:
                return std::string();
            case LaunchState::kInSyncAll:
                if (ls.generation[b.barrier] != b.generation)
                    return std::string();
                break;
            case LaunchState::kInMatmulService:
                if (ls.aivDoneOfAic[i] >= ls.aivPerAic)
                    return std::string();
                break;
            case LaunchState::kInCrossCoreWait:
                if (CrossCoreWaitReady(*ls.xcore, static_cast<uint32_t>(i)))
                    return std::string();
                crossCore = true;
                break;
        }
    }
    if (!crossCore)
        return std::string();
    std::string waiting, finished;
    for (size_t i = 0; i < ls.blocked.size(); ++i) {
        if (ls.finished[i]) {
            finished += (finished.empty() ? "" : ", ") + SlotName(ls, i);
            continue;
        }
        waiting += (waiting.empty() ? "" : "; ") + SlotName(ls, i) + " in ";
        switch (ls.blocked[i].kind) {
            case LaunchState::kInSyncAll:
                waiting += "SyncAll";
                break;
            case LaunchState::kInMatmulService:
                waiting += "REGIST_MATMUL_OBJ (serving Matmul until its AIV cores leave)";
                break;
            default:
                waiting += CrossCoreWaitDescribe(*ls.xcore, static_cast<uint32_t>(i));
                break;
        }
    }
    return "CrossCoreWaitFlag: deadlock: every unfinished core waits and none can proceed: " + waiting +
           "; finished: " + (finished.empty() ? "none" : finished);
}

std::unique_lock<std::mutex> LaunchLock(CoreContext& c) { return std::unique_lock<std::mutex>(c.launch->mu); }

CrossCoreLaunch& LaunchCrossCore(CoreContext& c)
{
    LaunchState& ls = *c.launch;
    if (!ls.xcore)
        ls.xcore = CrossCoreLaunchCreate(ls.numAic, ls.numAiv, ls.aivPerAic);
    return *ls.xcore;
}

uint32_t LaunchSlot(const CoreContext& c) { return static_cast<uint32_t>(Slot(*c.launch, c)); }

uint32_t LaunchTimeoutMs(const CoreContext& c) { return c.launch->opt.timeoutMs; }

void LaunchWakeCrossCore(CoreContext& c, uint32_t slot)
{
    LaunchState& ls = *c.launch;
    if (ls.sched)
        ls.sched->Wake(1 + ls.numAic + slot);
}

std::string LaunchBlockCrossCore(
    CoreContext& c, std::unique_lock<std::mutex>& lk, std::chrono::steady_clock::time_point deadline)
{
    LaunchState& ls = *c.launch;
    const size_t me = Slot(ls, c);
    if (ls.aborted) {
        lk.unlock();
        throw KernelAbort{};
    }
    if (!ls.concurrent)
        return "CrossCoreWaitFlag: core " + CoreName(c) +
               ": cross-core flags cannot complete with blockDim larger than the physical core count (cores run in "
               "waves)";
    ls.blocked[me].kind = LaunchState::kInCrossCoreWait;
    std::string report = StuckReport(ls);
    if (report.empty()) {
        ls.waitingAt[me] = "CrossCoreWaitFlag";
        const auto t0 = std::chrono::steady_clock::now();
        const bool timedOut = ls.sched->Block(lk, static_cast<uint32_t>(1 + ls.numAic + me), deadline);
        c.counters.syncWaitNs += static_cast<uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
        ls.waitingAt[me].clear();
        if (timedOut && !CrossCoreWaitReady(*ls.xcore, static_cast<uint32_t>(me)))
            report = "CrossCoreWaitFlag: core " + CoreName(c) + ": deadlock: no progress for " +
                     std::to_string(ls.opt.timeoutMs) + " ms in " +
                     CrossCoreWaitDescribe(*ls.xcore, static_cast<uint32_t>(me));
    }
    ls.blocked[me].kind = LaunchState::kRunning;
    if (ls.aborted && report.empty()) {
        lk.unlock();
        throw KernelAbort{};
    }
    return report;
}

static void Record(LaunchState &ls, const std::string &msg) {
    {
        std::lock_guard<std::mutex> lk(ls.mu);
        if (ls.firstError.empty()) ls.firstError = msg;
        ls.aborted = true;
        if (ls.sched) ls.sched->WakeAll();
    }
}

[[noreturn]] void Violation(const char *api, const std::string &rule) {
    CoreContext *c = g_twinCore;
    if (c == nullptr || c->launch == nullptr) throw std::logic_error(std::string(api) + ": " + rule);
    Record(*c->launch, std::string(api) + ": core " + CoreName(*c) + ": " + rule);
    throw KernelAbort{};
}

[[noreturn]] void ViolationText(const std::string &report) {
    CoreContext *c = g_twinCore;
    if (c == nullptr || c->launch == nullptr) throw std::logic_error(report);
    Record(*c->launch, report);
    throw KernelAbort{};
}

[[noreturn]] void OutsideLaunch(const char *api) {
    throw std::logic_error(std::string(api) + ": AscendC kernel API called outside twin::Launch (no virtual core on this thread)");
}

void LocalOffsetBeyond(uint32_t offset, uint32_t cap)
{
    Violation(
        "LocalTensor::operator[]",
        "offset " + std::to_string(offset) + " is beyond the buffer (" + std::to_string(cap) + " elements)");
}

void UbNotOwned(const char *api, const void *p) {
    (void)p;
    Violation(api, "operand is not inside this core's Unified Buffer (tensor from another core, a freed TPipe, or uninitialised)");
}

void UbUnwritten(const char *api, const void *p, size_t bytes, size_t firstBadBlock) {
    const CoreContext &c = *g_twinCore;
    const size_t off = static_cast<size_t>(static_cast<const uint8_t *>(p) - c.ubBase);
    Violation(api, "read of uninitialized UB (never written since InitBuffer): bytes [" + std::to_string(off) + ", " +
                       std::to_string(off + bytes) + "), first unwritten 32-B block at UB offset " + std::to_string(firstBadBlock * 32));
}

bool IsAic() { return Core("ASCEND_IS_AIC").isAic; }
uint64_t CurrentTilingKey() { return Core("TILING_KEY_IS").tilingKey; }

void DeclareKernelType(int meta) {
    auto &c = Core("KERNEL_TASK_TYPE_DEFAULT");
    KernelType t;
    switch (meta) {
    case KERNEL_TYPE_AIV_ONLY: t = KernelType::AIV_ONLY; break;
    case KERNEL_TYPE_AIC_ONLY: t = KernelType::AIC_ONLY; break;
    case KERNEL_TYPE_MIX_AIV_1_0: t = KernelType::MIX_AIV_1_0; break;
    case KERNEL_TYPE_MIX_AIC_1_1: t = KernelType::MIX_AIC_1_1; break;
    case KERNEL_TYPE_MIX_AIC_1_2: t = KernelType::MIX_AIC_1_2; break;
    default: Violation("KERNEL_TASK_TYPE_DEFAULT", "kernel type value " + std::to_string(meta) + " is not modelled by the twin");
    }
    if (t != c.launchType)
        Violation("KERNEL_TASK_TYPE_DEFAULT", std::string("kernel declares ") + KernelTypeName(t) + " but was launched as " + KernelTypeName(c.launchType));
}

void HardSyncAll(const char *api, bool aivOnly, uint32_t participants) {
    auto &c = Core(api);
    LaunchState &ls = *c.launch;
    if (std::strcmp(api, "SyncAll") == 0)
        CrossCoreNoteHardSyncAll(c); // hard SyncAll uses cross-core flag IDs 11-14
    if (aivOnly && c.isAic) Violation(api, "SyncAll<isAIVOnly=true> called on an AIC core");
    if (c.launchType == KernelType::AIV_ONLY)
        Violation(api, "hard SyncAll needs a kernel launched as KERNEL_TYPE_MIX_AIV_1_0 (or a MIX type); launched as KERNEL_TYPE_AIV_ONLY");
    if (ls.opt.scheduleMode != LaunchOptions::kScheduleModeUnchecked && ls.opt.scheduleMode != LaunchOptions::kScheduleModeBatch)
        Violation(api, "a kernel that calls SyncAll must be launched in batch schedule mode: the TilingFunc must call "
                       "context->SetScheduleMode(1) (SyncAll docs; launched with schedule mode " + std::to_string(ls.opt.scheduleMode) + ")");
    if (!ls.concurrent) Violation(api, "SyncAll with blockDim larger than the physical core count cannot complete (cores run in waves)");
    const int b = aivOnly ? 0 : 1;
    const uint32_t total = aivOnly ? ls.numAiv : ls.numAiv + ls.numAic;
    const uint32_t n = participants != 0 ? std::min(participants, total) : total;
    const std::vector<double> tlArrival = TlSyncAllArrive(c); // drains the pipes, + SyncAll cost
    ++c.counters.syncAllCount;
    c.counters.atSyncAll.push_back(static_cast<const PipeCounters &>(c.counters));
    const auto t0 = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> lk(ls.mu);
    const uint64_t gen = ls.generation[b];
    HazardBarrierArrive(c, b);
    if (ls.tlArrival[b].size() < tlArrival.size())
        ls.tlArrival[b].resize(tlArrival.size(), 0.0);
    for (size_t v = 0; v < tlArrival.size(); ++v)
        ls.tlArrival[b][v] = std::max(ls.tlArrival[b][v], tlArrival[v]);
    if (++ls.arrived[b] == n) {
        // A GM hazard of the finished stage: the barrier does not open, every waiter aborts.
        const std::string hazard = HazardBarrierComplete(c, b, aivOnly && n == ls.numAiv);
        if (!hazard.empty()) {
            lk.unlock();
            ViolationText(hazard);
        }
        ls.arrived[b] = 0;
        ++ls.generation[b];
        ls.tlRelease[b] = ls.tlArrival[b]; // every participant leaves at the latest arrival
        std::fill(ls.tlArrival[b].begin(), ls.tlArrival[b].end(), 0.0);
        ls.sched->Wake(0);
        HazardBarrierLeave(c, b);
        TlSyncAllLeave(c, ls.tlRelease[b]);
        // every core of the scope waits here: all threads resume from their first core (deterministic order)
        if (n == total)
            ls.sched->Restart(lk);
        return;
    }
    const size_t me = Slot(ls, c);
    ls.waitingAt[me] = api;
    ls.blocked[me] = {LaunchState::kInSyncAll, b, gen};
    const auto deadline = t0 + std::chrono::milliseconds(ls.opt.timeoutMs);
    std::string err, stuck;
    while (ls.generation[b] == gen) {
        if (ls.aborted) {
            ls.waitingAt[me].clear();
            ls.blocked[me] = {};
            lk.unlock();
            throw KernelAbort{};
        }
        stuck = StuckReport(ls); // cores blocked in cross-core waits that can never be satisfied
        if (!stuck.empty())
            break;
        // Early detection only when every core of the scope must arrive (soft SyncAll over a subset
        // of cores relies on the timeout).
        const uint32_t gone = aivOnly ? ls.aivFinished : ls.aivFinished + ls.aicFinished;
        if (n == total && gone > 0 && ls.arrived[b] + gone >= n) {
            std::string who;
            for (size_t i = 0; i < ls.finished.size(); ++i)
                if (ls.finished[i] && (!aivOnly || i >= ls.numAic))
                    who += (who.empty() ? "" : ", ") + std::string(i < ls.numAic ? "AIC " : "AIV ") + std::to_string(i < ls.numAic ? i : i - ls.numAic);
            err = "deadlock: core(s) " + who + " left the kernel without reaching SyncAll; " + std::to_string(ls.arrived[b]) + " of " +
                  std::to_string(n) + " cores wait in SyncAll";
            break;
        }
        if (ls.sched->Block(lk, 0, deadline) && ls.generation[b] == gen) {
            std::string waiting, running;
            for (size_t i = 0; i < ls.waitingAt.size(); ++i) {
                const std::string name = std::string(i < ls.numAic ? "AIC " : "AIV ") + std::to_string(i < ls.numAic ? i : i - ls.numAic);
                if (!ls.waitingAt[i].empty()) waiting += (waiting.empty() ? "" : ", ") + name + " in " + ls.waitingAt[i];
                else if (!ls.finished[i]) running += (running.empty() ? "" : ", ") + name;
            }
            err = "deadlock: no progress for " + std::to_string(ls.opt.timeoutMs) + " ms; waiting: " + waiting + "; not arrived (running): " +
                  (running.empty() ? "none" : running);
            break;
        }
    }
    ls.waitingAt[me].clear();
    ls.blocked[me] = {};
    if (err.empty() && stuck.empty())
        HazardBarrierLeave(c, b);
    if (err.empty() && stuck.empty())
        TlSyncAllLeave(c, ls.tlRelease[b]);
    c.counters.syncWaitNs += static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
    lk.unlock();
    if (!stuck.empty())
        ViolationText(stuck);
    if (!err.empty()) Violation(api, err);
}

void ServeMatmulUntilAivDone() {
    auto &c = Core("REGIST_MATMUL_OBJ");
    LaunchState &ls = *c.launch;
    const auto t0 = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> lk(ls.mu);
    ls.waitingAt[Slot(ls, c)] = "REGIST_MATMUL_OBJ (serving Matmul)";
    ls.blocked[Slot(ls, c)].kind = LaunchState::kInMatmulService;
    while (ls.aivDoneOfAic[c.blockIdx] < ls.aivPerAic) {
        if (ls.aborted) { lk.unlock(); throw KernelAbort{}; }
        const std::string stuck = StuckReport(ls); // its AIV cores wait for cross-core flags that never come
        if (!stuck.empty()) {
            lk.unlock();
            ViolationText(stuck);
        }
        ls.sched->Block(lk, 1 + c.blockIdx, CoreScheduler::Clock::time_point::max());
    }
    ls.blocked[Slot(ls, c)].kind = LaunchState::kRunning;
    ls.waitingAt[Slot(ls, c)].clear();
    c.counters.syncWaitNs += static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
}

static void AddCubeWork(PipeCounters &p, const cost::CubeCost &cost, uint64_t macs, uint64_t gmReadBytes, uint64_t gmWriteBytes) {
    p.cubeMacs += macs;
    p.cubeGmReadBytes += gmReadBytes;
    p.cubeGmWriteBytes += gmWriteBytes;
    p.cubeCycles += cost.mCycles;
    p.mmadCalls += cost.mmadCalls;
    p.mte1Cycles += cost.mte1Cycles;
    p.cubeGmReadTransfers += cost.gmReadTransfers;
    p.cubeGmWriteTransfers += cost.gmWriteTransfers;
    p.cubeGmLoadBytes += cost.gmLoadBytes;
}

void AddCubeWorkToServingAic(const cost::CubeCost &cost, uint64_t macs, uint64_t gmReadBytes, uint64_t gmWriteBytes) {
    auto &c = Core("Matmul");
    LaunchState &ls = *c.launch;
    c.counters.cubeMacsIssued += macs;
    const std::vector<double> request = TlMatmulRequest(c);
    std::vector<double> duration;
    double busy[kTlPipes] = {};
    if (c.tl != nullptr)
        MatmulDuration(cost, gmReadBytes, gmWriteBytes, duration, busy);
    std::lock_guard<std::mutex> lk(ls.mu);
    if (ls.aivPerAic == 0) {   // no serving AIC (not reachable: Matmul needs a MIX launch)
        AddCubeWork(c.counters, cost, macs, gmReadBytes, gmWriteBytes);
        return;
    }
    const uint32_t aic = c.blockIdx / ls.aivPerAic;
    if (c.tl != nullptr) { // the AIC serves requests first come, first served (in the order the twin delivers them)
        std::vector<double>& free = ls.aicFree[aic];
        free.resize(duration.size(), 0.0);
        std::vector<double> done(duration.size());
        for (size_t v = 0; v < duration.size(); ++v)
            done[v] = free[v] = std::max(free[v], v < request.size() ? request[v] : 0.0) + duration[v];
        TlMatmulIssued(c, done);
        const size_t st = c.counters.syncAllCount;
        auto& tl = ls.aicStageTimeline[aic];
        auto& bz = ls.aicStageBusy[aic];
        if (tl.size() <= st) {
            tl.resize(st + 1, std::vector<double>(duration.size(), 0.0));
            bz.resize(st + 1, std::vector<double>(kTlPipes, 0.0));
        }
        for (size_t v = 0; v < duration.size(); ++v)
            tl[st][v] += duration[v];
        for (int p = 0; p < kTlPipes; ++p)
            bz[st][p] += busy[p];
    }
    AddCubeWork(ls.aicCounters[aic], cost, macs, gmReadBytes, gmWriteBytes);
    std::vector<PipeCounters> &stages = ls.aicStageWork[aic];
    const size_t stage = c.counters.syncAllCount;
    if (stages.size() <= stage) stages.resize(stage + 1);
    AddCubeWork(stages[stage], cost, macs, gmReadBytes, gmWriteBytes);
}

static void EndOfKernelChecks(CoreContext &c) {
    if (c.atomicOp != 0) Violation("SetAtomicAdd", "atomic accumulation still enabled at kernel end (missing SetAtomicNone/DisableDmaAtomic)");
    CheckFlagsAtKernelEnd(c);
}

static void RunCore(LaunchState &ls, CoreContext &c, const std::function<void()> &entry) {
    // Pool threads are reused across launches: start every core from clean thread-local state.
    g_twinCore = &c;
    ClearCurrentPipe();
    try {
        entry();
        EndOfKernelChecks(c);
        TlKernelEnd(c);
        c.ranToEnd = true;
    } catch (const KernelAbort &) {
    } catch (const std::exception &e) {
        Record(ls, "kernel: core " + CoreName(c) + ": C++ exception: " + e.what());
    } catch (...) {
        Record(ls, "kernel: core " + CoreName(c) + ": unknown C++ exception");
    }
    g_twinCore = nullptr;
    ClearCurrentPipe();
    {
        std::lock_guard<std::mutex> lk(ls.mu);
        ls.finished[Slot(ls, c)] = 1;
        if (c.isAic) {
            ++ls.aicFinished;
        } else {
            ++ls.aivFinished;
            if (ls.aivPerAic != 0) ++ls.aivDoneOfAic[c.blockIdx / ls.aivPerAic];
        }
        if (ls.sched) {
            ls.sched->Wake(0);   // SyncAll waiters re-check for cores that left without arriving
            if (!c.isAic && ls.aivPerAic != 0) ls.sched->Wake(1 + c.blockIdx / ls.aivPerAic);
            for (size_t i = 0; i < ls.blocked.size(); ++i) // cross-core waiters re-check for a deadlock
                if (ls.blocked[i].kind == LaunchState::kInCrossCoreWait)
                    ls.sched->Wake(static_cast<uint32_t>(1 + ls.numAic + i));
            for (uint32_t a = 0; ls.xcore && a < ls.numAic; ++a) // so do Matmul services
                if (ls.blocked[a].kind == LaunchState::kInMatmulService)
                    ls.sched->Wake(1 + a);
        }
    }
}

static std::unique_ptr<CoreContext> MakeCore(LaunchState &ls, bool aic, uint32_t idx) {
    auto c = std::make_unique<CoreContext>();
    c->launch = &ls;
    c->aborted = &ls.aborted;
    c->isAic = aic;
    c->blockIdx = idx;
    c->blockNum = ls.opt.blockDim;
    c->launchType = ls.opt.type;
    c->tilingKey = ls.opt.tilingKey;
    c->workspace = ls.opt.workspace;
    c->taskRatio = ls.aivPerAic == 0 ? 1 : ls.aivPerAic;
    c->subBlockIdx = (!aic && ls.aivPerAic != 0) ? idx % ls.aivPerAic : 0;
    c->counters.isAic = aic;
    c->counters.blockIdx = idx;
    if (!aic) {
        c->ubBytes = ls.plat.ubBytes;
        c->ubCapacity = ls.plat.ubBytes - kUbSystemReservedBytes - kUbAscReservedBytes;
        UbArenaAttach(*c);
    }
    if (ls.hazard) HazardCoreAttach(ls.hazard.get(), *c);
    c->tl = ls.timeline ? TlCreate(c->counters) : nullptr;
    if (ls.l2Capacity != 0)
        c->l2 = &ls.l2Logs[aic ? idx : ls.numAic + idx];
    return c;
}

}  // namespace kernel

LaunchResult Launch(const LaunchOptions &opt, const std::function<void()> &entry) {
    using namespace kernel;
    LaunchResult res;
    const auto t0 = std::chrono::steady_clock::now();
    LaunchState ls;
    ls.opt = opt;
    ls.plat = CurrentPlatform();
    ls.timeline = TlEnabled(opt.timeline);
    ls.l2Capacity = L2CapacityFromEnv();
    if (opt.blockDim == 0 || opt.blockDim > 65535) {
        res.error = "Launch: blockDim must be in [1, 65535]; got " + std::to_string(opt.blockDim);
        return res;
    }
    if (!entry) { res.error = "Launch: entry is empty"; return res; }
    switch (opt.type) {
    case KernelType::AIV_ONLY: ls.numAiv = opt.blockDim; break;
    case KernelType::MIX_AIV_1_0: ls.numAiv = opt.blockDim; break;
    case KernelType::AIC_ONLY: ls.numAic = opt.blockDim; break;
    case KernelType::MIX_AIC_1_1: ls.numAic = opt.blockDim; ls.numAiv = opt.blockDim; ls.aivPerAic = 1; break;
    case KernelType::MIX_AIC_1_2: ls.numAic = opt.blockDim; ls.numAiv = 2 * opt.blockDim; ls.aivPerAic = 2; break;
    }
    const bool mix = opt.type != KernelType::AIV_ONLY && opt.type != KernelType::AIC_ONLY;
    if (mix && (ls.numAic > ls.plat.aicCores || ls.numAiv > ls.plat.physicalAivCores)) {
        res.error = std::string("Launch: blockDim ") + std::to_string(opt.blockDim) + " exceeds the physical cores of " + ls.plat.soc + " (" +
                    std::to_string(ls.plat.aicCores) + " AIC, " + std::to_string(ls.plat.physicalAivCores) + " AIV) for " + KernelTypeName(opt.type);
        return res;
    }
    // AIV-only / AIC-only launches larger than the chip run in waves on as many threads as cores.
    const uint32_t physical = opt.type == KernelType::AIC_ONLY ? ls.plat.aicCores : ls.plat.physicalAivCores;
    const uint32_t total = ls.numAic + ls.numAiv;
    ls.concurrent = mix || total <= physical;
    ls.waitingAt.assign(total, std::string());
    ls.finished.assign(total, 0);
    ls.blocked.assign(total, LaunchState::Blocked{});
    ls.aivDoneOfAic.assign(ls.numAic, 0);
    ls.aicCounters.assign(ls.numAic, CoreCounters{});
    ls.aicStageWork.assign(ls.numAic, {});
    ls.aicFree.assign(ls.numAic, {});
    ls.aicStageTimeline.assign(ls.numAic, {});
    ls.aicStageBusy.assign(ls.numAic, {});
    if (ls.l2Capacity != 0)
        ls.l2Logs.assign(total, L2Log{});
    if (HazardEnabled()) ls.hazard = HazardLaunchCreate(ls.numAic, ls.numAiv, ls.aivPerAic);
    ApiTallyBegin();

    std::vector<std::unique_ptr<CoreContext>> cores(total);
    std::atomic<uint32_t> next{0};
    const uint32_t budget = CoreThreadBudget();
    if (ls.concurrent) {
        std::vector<CoreContext *> raw(total);
        for (uint32_t i = 0; i < total; ++i) {
            cores[i] = MakeCore(ls, i < ls.numAic, i < ls.numAic ? i : i - ls.numAic);
            raw[i] = cores[i].get();
        }
        // an AIC and the AIV cores it serves form a group (one thread: their Matmul requests reach the AIC in
        // the same order on every run); otherwise every core is its own group
        std::vector<uint32_t> group(total);
        for (uint32_t i = 0; i < total; ++i)
            group[i] = ls.aivPerAic == 0 ? i : i < ls.numAic ? i : (i - ls.numAic) / ls.aivPerAic;
        ls.sched.reset(
            new CoreScheduler(ls.mu, 1 + ls.numAic + total)); // + one channel per core: its CrossCoreWaitFlag
        ls.sched->Run(total, budget, raw.data(), group.data(), [&ls, &cores, &entry](uint32_t i) {
            RunCore(ls, *cores[i], entry);
        });
    } else {
        RunOnDistinctThreads(std::min(physical, budget), [&ls, &cores, &entry, &next, total](uint32_t) {
            for (uint32_t i = next++; i < total; i = next++) {
                if (ls.aborted) break;
                cores[i] = MakeCore(ls, i < ls.numAic, i < ls.numAic ? i : i - ls.numAic);
                RunCore(ls, *cores[i], entry);
                UbArenaDetach(*cores[i], cores[i]->ranToEnd);
            }
        });
    }
    for (uint32_t i = 0; i < total; ++i)
        if (cores[i])
            UbArenaDetach(*cores[i], cores[i]->ranToEnd);
    std::vector<L2CoreHits> l2Hits; // per core
    if (ls.l2Capacity != 0 && ls.firstError.empty()) {
        std::vector<const L2Log*> logs;
        for (const L2Log& l : ls.l2Logs)
            logs.push_back(&l);
        l2Hits = L2Hits(logs, ls.l2Capacity);
        ls.l2Logs.clear();
        ls.l2Logs.shrink_to_fit();
    }
    uint64_t aivStages = 0;   // most SyncAlls of any AIV: the stage count the serving AICs are split into
    for (uint32_t i = ls.numAic; i < total; ++i)
        if (cores[i]) aivStages = std::max<uint64_t>(aivStages, cores[i]->counters.syncAllCount);
    for (uint32_t i = 0; i < total; ++i) {
        if (!cores[i]) continue;
        CoreCounters cc = cores[i]->counters;
        TlResults(cores[i]->tl, cc.stageTimeline, cc.stageBusy, cc.timelineEnd);
        TlDestroy(cores[i]->tl);
        cores[i]->tl = nullptr;
        if (i < ls.numAic) {
            const PipeCounters &w = ls.aicCounters[i];
            AddCubeWork(
                cc,
                cost::CubeCost{
                    w.cubeCycles, w.mmadCalls, w.mte1Cycles, w.cubeGmReadTransfers, w.cubeGmWriteTransfers,
                    w.cubeGmLoadBytes},
                w.cubeMacs, w.cubeGmReadBytes, w.cubeGmWriteBytes);
            // An AIC that only served Matmul has no SyncAll of its own: its snapshot k is the work its
            // AIV cores requested before their SyncAll k (per-stage costs by differences, as on AIV).
            const bool servedOnly = cc.atSyncAll.empty() && ls.aivPerAic != 0;
            if (servedOnly) {
                PipeCounters cum;
                const std::vector<PipeCounters> &st = ls.aicStageWork[i];
                for (uint64_t k = 0; k < aivStages; ++k) {
                    if (k < st.size())
                        AddCubeWork(
                            cum,
                            cost::CubeCost{
                                st[k].cubeCycles, st[k].mmadCalls, st[k].mte1Cycles, st[k].cubeGmReadTransfers,
                                st[k].cubeGmWriteTransfers, st[k].cubeGmLoadBytes},
                            st[k].cubeMacs, st[k].cubeGmReadBytes, st[k].cubeGmWriteBytes);
                    cc.atSyncAll.push_back(cum);
                }
            }
            // Its timeline: the cycles it spent on each stage's requests (it has no SyncAll of its own).
            // Its own code (TPipe, the service loop's flags) is charged to the last stage, like its counters.
            if (servedOnly && ls.timeline) {
                const size_t V = TlVariants();
                std::vector<std::vector<double>> own = cc.stageTimeline, ownBusy = cc.stageBusy;
                cc.stageTimeline.assign(aivStages + 1, std::vector<double>(V, 0.0));
                cc.stageBusy.assign(aivStages + 1, std::vector<double>(kTlPipes, 0.0));
                for (size_t s = 0; s < ls.aicStageTimeline[i].size() && s <= aivStages; ++s) {
                    cc.stageTimeline[s] = ls.aicStageTimeline[i][s];
                    cc.stageBusy[s] = ls.aicStageBusy[i][s];
                }
                if (!ls.aicFree[i].empty())
                    cc.timelineEnd = std::max(cc.timelineEnd, ls.aicFree[i][0]);
                for (size_t s = 0; s < own.size(); ++s) {
                    for (size_t v = 0; v < V && v < own[s].size(); ++v)
                        cc.stageTimeline[aivStages][v] += own[s][v];
                    for (int p = 0; p < kTlPipes; ++p)
                        cc.stageBusy[aivStages][p] += ownBusy[s][p];
                }
            }
        }
        if (i < l2Hits.size())
            L2AddHits(cc, l2Hits[i]);
        res.cores.push_back(cc);
    }
    ApiTallyEnd();
    if (ls.firstError.empty() && ls.hazard) ls.firstError = HazardLaunchEnd(ls.hazard.get());
    if (ls.firstError.empty() && ls.xcore)
        ls.firstError = CrossCoreLaunchEnd(*ls.xcore); // after: a hazard is the cause
    res.ok = ls.firstError.empty();
    res.error = ls.firstError;
    res.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res;
}

}  // namespace twin
