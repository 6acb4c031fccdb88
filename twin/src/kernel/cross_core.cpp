// CrossCoreSetFlag / CrossCoreWaitFlag of the twin: validation, the per-core flag counters, the group
// rounds of modes 0-2, the happens-before edges they carry to the hazard checker and the checks at
// kernel end (model and sources: twin/kernel/cross_core.h). State is per launch, under the launch
// mutex; reports are built under it and raised after it is released.
#include "twin/kernel/cross_core.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "cross_core_launch.h"
#include "twin/kernel/hazard.h"
#include "twin/kernel/pipe_timeline.h"
#include "twin/kernel/sync_sys.h"

namespace twin {
namespace kernel {

namespace {

constexpr uint16_t kFlagIds = 16;                             // "每个AIC和每个AIV都各自有16个flagId"
constexpr uint32_t kCounterMax = 15;                          // "每一个计数器计数范围为0-15"
constexpr uint16_t kSyncAllFirstId = 11, kSyncAllLastId = 14; // hard SyncAll's IDs (docs; 8.1.RC1 dav_c220 SYNC_*_FLAG)

// One flag counter of one core.
struct XcFlag {
    uint32_t count = 0;                        // current counter value
    uint64_t delivered = 0, consumed = 0;      // increments so far, waits completed so far
    std::vector<std::vector<uint32_t>> clocks; // happens-before clock of each unconsumed increment (FIFO)
    size_t head = 0;                           // first unconsumed entry of `clocks`
    uint32_t waitEpoch[16] = {};               // the waiter's epoch after wait j, at j % 16
    std::string lastFrom;                      // who delivered last (reports)
};

// One round of a group: the sets of its members so far and the join of their clocks.
struct XcRound {
    uint32_t sets = 0;
    std::vector<uint32_t> clock;
};

// A (mode, direction, group, flagId) channel: members set, receivers' counters are incremented.
struct XcChannel {
    std::vector<uint32_t> members, receivers; // core slots
    std::vector<uint64_t> setsOf;             // per member: sets so far
    std::vector<XcRound> rounds;              // incomplete rounds, the first is round `completed`
    uint64_t completed = 0;
    std::string name; // "mode 2 from AIC 0 to the AIVs of AI core 0"
};

} // namespace

struct CrossCoreLaunch {
    uint32_t numAic = 0, numAiv = 0, aivPerAic = 0;
    std::vector<std::vector<XcFlag>> flags; // [slot][flagId]
    std::vector<int> waitingFor;            // per slot: flagId it blocks on, -1 none
    std::vector<uint8_t> usedSyncAllIds, usedHardSyncAll;
    std::map<std::tuple<int, int, uint32_t, int>, XcChannel> channels;
};

static void DeleteCrossCore(CrossCoreLaunch* x) { delete x; }

CrossCoreLaunchPtr CrossCoreLaunchCreate(uint32_t numAic, uint32_t numAiv, uint32_t aivPerAic)
{
    CrossCoreLaunchPtr x(new CrossCoreLaunch, &DeleteCrossCore);
    x->numAic = numAic;
    x->numAiv = numAiv;
    x->aivPerAic = aivPerAic;
    const uint32_t n = numAic + numAiv;
    x->flags.assign(n, std::vector<XcFlag>(kFlagIds));
    x->waitingFor.assign(n, -1);
    x->usedSyncAllIds.assign(n, 0);
    x->usedHardSyncAll.assign(n, 0);
    return x;
}

namespace {

std::string SlotName(const CrossCoreLaunch& x, uint32_t slot)
{
    return slot < x.numAic ? "AIC " + std::to_string(slot) : "AIV " + std::to_string(slot - x.numAic);
}

const char* PipeName(pipe_t p)
{
    switch (p) {
        case PIPE_S:
            return "PIPE_S";
        case PIPE_V:
            return "PIPE_V";
        case PIPE_M:
            return "PIPE_M";
        case PIPE_MTE1:
            return "PIPE_MTE1";
        case PIPE_MTE2:
            return "PIPE_MTE2";
        case PIPE_MTE3:
            return "PIPE_MTE3";
        case PIPE_ALL:
            return "PIPE_ALL";
        case PIPE_FIX:
            return "PIPE_FIX";
        default:
            return "pipe_t(?)";
    }
}

void Join(std::vector<uint32_t>& into, const std::vector<uint32_t>& from)
{
    if (from.empty())
        return;
    if (into.empty()) {
        into = from;
        return;
    }
    for (size_t i = 0; i < into.size() && i < from.size(); ++i)
        into[i] = std::max(into[i], from[i]);
}

// Rules that do not depend on other cores (docs: modeId/pipe/flagId tables, table 3 of kernel types).
void Validate(const char* api, const CoreContext& c, uint8_t mode, pipe_t pipe, uint16_t id, bool isSet)
{
    const std::string call =
        std::string(api) + "<" + std::to_string(mode) + ", " + PipeName(pipe) + ">(" + std::to_string(id) + ")";
    if (mode > 2)
        Violation(
            api, call + ": modeId " + std::to_string(mode) +
                     " is not supported on Atlas A2/A3 (modes 0, 1, 2; mode 4 is Ascend 950 only)");
    if (id >= kFlagIds)
        Violation(
            api, call +
                     ": flagId must be in [0, 15] (each core has 16 flag counters; the chip would silently use the low "
                     "4 bits, " +
                     std::to_string(id & 0xF) + ")");
    if (isSet && (pipe == PIPE_S || pipe == PIPE_ALL))
        Violation(
            api, call + ": the pipe must be PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3 or PIPE_FIX (PIPE_S and "
                        "PIPE_ALL are not supported in modes 0-2)");
    if (!isSet && pipe == PIPE_ALL)
        Violation(
            api, call + ": PIPE_ALL is not supported (on A2/A3 the wait blocks every pipe whatever its pipe argument)");
    if (isSet)
        CheckPipeOnCore(api, c, pipe);
    const KernelType t = c.launchType;
    if (t == KernelType::AIV_ONLY || t == KernelType::AIC_ONLY)
        Violation(
            api, call + ": cross-core flags need a MIX kernel type (" + KernelTypeName(t) +
                     " does not start the scheduling module that counts them; mode 0: KERNEL_TYPE_MIX_AIV_1_0 or "
                     "MIX_AIC_1_1/1_2)");
    if (mode != 0 && t != KernelType::MIX_AIC_1_1 && t != KernelType::MIX_AIC_1_2)
        Violation(
            api, call + ": mode " + std::to_string(mode) +
                     " synchronises the cores of one AI core and needs KERNEL_TYPE_MIX_AIC_1_1 or MIX_AIC_1_2; "
                     "launched as " +
                     KernelTypeName(t));
    if (isSet && mode == 1 && c.isAic)
        Violation(api, call + ": mode 1 synchronises the AIV cores of one AI core; an AIC core cannot take part");
    if (c.matmulObjects > 0 && id < 2 * c.matmulObjects)
        Violation(
            api, call + ": flag IDs [0, " + std::to_string(2 * c.matmulObjects - 1) +
                     "] are used by the Matmul high-level API of this core's " + std::to_string(c.matmulObjects) +
                     " Matmul object(s)");
}

// The channel a set of core `slot` feeds, created on first use.
XcChannel& ChannelOf(
    CrossCoreLaunch& x, const CoreContext& c, uint32_t slot, uint8_t mode, uint16_t id, uint32_t& member)
{
    int dir = c.isAic ? 1 : 0;
    uint32_t group = 0;
    if (mode == 1 || (mode == 2 && !c.isAic))
        group = c.blockIdx / x.aivPerAic;
    else if (mode == 2)
        group = c.blockIdx;
    XcChannel& ch = x.channels[std::make_tuple(static_cast<int>(mode), dir, group, static_cast<int>(id))];
    if (ch.members.empty()) {
        auto aivsOf = [&x](uint32_t g, std::vector<uint32_t>& v) {
            for (uint32_t k = 0; k < x.aivPerAic; ++k)
                v.push_back(x.numAic + g * x.aivPerAic + k);
        };
        const std::string ai = "AI core " + std::to_string(group);
        if (mode == 0 && c.isAic) {
            for (uint32_t i = 0; i < x.numAic; ++i)
                ch.members.push_back(i);
            ch.receivers = ch.members;
            ch.name = "mode 0 among all AIC cores";
        } else if (mode == 0) {
            for (uint32_t i = 0; i < x.numAiv; ++i)
                ch.members.push_back(x.numAic + i);
            ch.receivers = ch.members;
            ch.name = "mode 0 among all AIV cores";
        } else if (mode == 1) {
            aivsOf(group, ch.members);
            ch.receivers = ch.members;
            ch.name = "mode 1 among the AIV cores of " + ai;
        } else if (c.isAic) {
            ch.members.push_back(slot);
            aivsOf(group, ch.receivers);
            ch.name = "mode 2 from AIC " + std::to_string(group) + " to the AIV cores of " + ai;
        } else {
            aivsOf(group, ch.members);
            ch.receivers.push_back(group);
            ch.name = "mode 2 from the AIV cores of " + ai + " to AIC " + std::to_string(group);
        }
        ch.setsOf.assign(ch.members.size(), 0);
    }
    member = static_cast<uint32_t>(std::find(ch.members.begin(), ch.members.end(), slot) - ch.members.begin());
    return ch;
}

// Lock held. Delivers a completed round to every receiver; returns an overflow report ("" = none).
std::string Deliver(CrossCoreLaunch& x, CoreContext& c, XcChannel& ch, uint16_t id, const XcRound& r, bool byClock)
{
    for (uint32_t recv : ch.receivers) {
        XcFlag& f = x.flags[recv][id];
        const uint64_t d = f.delivered + 1; // this delivery's number
        std::string why;
        if (!byClock && f.count >= kCounterMax) {
            why = "it already holds " + std::to_string(f.count);
        } else if (byClock && d > kCounterMax) {
            // Deterministic form: delivery d needs the receiver's wait for delivery d - 15 ordered before it.
            const uint64_t j = d - kCounterMax;
            if (f.consumed < j || r.clock.size() <= recv || r.clock[recv] < f.waitEpoch[j % 16])
                why = "nothing orders " + SlotName(x, recv) + "'s wait for delivery " + std::to_string(j) +
                      " before this set, so on the chip it may hold 15 when it arrives";
        }
        if (!why.empty())
            return std::string("CrossCoreSetFlag: core ") + CoreName(c) + ": flag counter overflow: delivery " +
                   std::to_string(d) + " (" + ch.name + ") of flagId " + std::to_string(id) + " to " +
                   SlotName(x, recv) + " would take its counter past 15: " + why +
                   " (the counter counts 0-15, more is an error on the chip: sets may run at most 15 ahead of the "
                   "waits)";
        ++f.count;
        ++f.delivered;
        f.clocks.push_back(r.clock);
        f.lastFrom = ch.name;
        if (x.waitingFor[recv] == static_cast<int>(id))
            LaunchWakeCrossCore(c, recv);
    }
    return std::string();
}

// Lock held. Records that this core uses one of hard SyncAll's flag IDs; a report ("" = none) when the
// core also calls hard SyncAll, whose counts would mix with this flag's.
std::string NoteSyncAllId(CrossCoreLaunch& x, CoreContext& c, const char* api, uint32_t slot, uint16_t id)
{
    if (id < kSyncAllFirstId || id > kSyncAllLastId)
        return std::string();
    x.usedSyncAllIds[slot] = 1;
    if (!x.usedHardSyncAll[slot])
        return std::string();
    return std::string(api) + ": core " + CoreName(c) + ": flagId " + std::to_string(id) +
           " is used by hard SyncAll (IDs 11-14), which this core also calls: their counts would mix";
}

} // namespace

void CrossCoreSet(const char* api, uint8_t mode, pipe_t pipe, uint16_t id, const SyncLoc& loc)
{
    auto& c = Core(api);
    Validate(api, c, mode, pipe, id, true);
    TlSync(c);
    const bool dropped = c.hz != nullptr && HzSiteDropped(c, api, loc, ("mode" + std::to_string(mode)).c_str());
    // The clock this set hands on (all of this core's earlier GM accesses); later accesses are not covered.
    std::vector<uint32_t> clock = HzCrossCoreRelease(c);
    if (dropped)
        clock.clear();
    const bool byClock = c.hz != nullptr && !HzSitesDropping(c);
    const uint32_t slot = LaunchSlot(c);
    std::string report;
    {
        auto lk = LaunchLock(c);
        CrossCoreLaunch& x = LaunchCrossCore(c);
        report = NoteSyncAllId(x, c, api, slot, id);
        if (report.empty()) {
            uint32_t member = 0;
            XcChannel& ch = ChannelOf(x, c, slot, mode, id, member);
            const uint64_t round = ch.setsOf[member]++;
            const size_t at = static_cast<size_t>(round - ch.completed);
            if (ch.rounds.size() <= at)
                ch.rounds.resize(at + 1);
            ++ch.rounds[at].sets;
            Join(ch.rounds[at].clock, clock);
            while (report.empty() && !ch.rounds.empty() && ch.rounds.front().sets == ch.members.size()) {
                report = Deliver(x, c, ch, id, ch.rounds.front(), byClock);
                ch.rounds.erase(ch.rounds.begin());
                ++ch.completed;
            }
        }
    }
    if (!report.empty())
        ViolationText(report);
}

void CrossCoreWait(const char* api, uint8_t mode, pipe_t pipe, uint16_t id, const SyncLoc& loc)
{
    auto& c = Core(api);
    Validate(api, c, mode, pipe, id, false);
    TlSync(c);
    const bool dropped = c.hz != nullptr && HzSiteDropped(c, api, loc, nullptr);
    const uint32_t slot = LaunchSlot(c);
    std::string report;
    std::vector<uint32_t> clock;
    {
        auto lk = LaunchLock(c);
        CrossCoreLaunch& x = LaunchCrossCore(c);
        report = NoteSyncAllId(x, c, api, slot, id);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(LaunchTimeoutMs(c));
        while (report.empty() && x.flags[slot][id].count == 0) {
            x.waitingFor[slot] = id;
            report = LaunchBlockCrossCore(c, lk, deadline);
            x.waitingFor[slot] = -1;
        }
        if (report.empty()) {
            XcFlag& f = x.flags[slot][id];
            --f.count;
            clock = std::move(f.clocks[f.head]);
            if (++f.head == f.clocks.size()) {
                f.clocks.clear();
                f.head = 0;
            }
            ++f.consumed;
            f.waitEpoch[f.consumed % 16] = HzCrossCoreAcquire(c, dropped ? std::vector<uint32_t>() : clock);
        }
    }
    if (!report.empty())
        ViolationText(report);
}

bool CrossCoreWaitReady(const CrossCoreLaunch& x, uint32_t slot)
{
    const int id = x.waitingFor[slot];
    return id < 0 || x.flags[slot][id].count > 0;
}

std::string CrossCoreWaitDescribe(const CrossCoreLaunch& x, uint32_t slot)
{
    const int id = x.waitingFor[slot];
    std::string s = "CrossCoreWaitFlag(flagId " + std::to_string(id) + ", counter 0";
    std::string pending;
    for (const auto& kv : x.channels) {
        const XcChannel& ch = kv.second;
        if (std::get<3>(kv.first) != id ||
            std::find(ch.receivers.begin(), ch.receivers.end(), slot) == ch.receivers.end())
            continue;
        std::string missing;
        for (size_t m = 0; m < ch.members.size(); ++m)
            if (ch.setsOf[m] <= ch.completed)
                missing += (missing.empty() ? "" : ", ") + SlotName(x, ch.members[m]);
        pending += "; " + ch.name + ": " + std::to_string(ch.completed) +
                   " round(s) delivered, the next needs a CrossCoreSetFlag from " + missing;
    }
    return s + (pending.empty() ? "; no core has set this flag for it)" : pending + ")");
}

std::string CrossCoreLaunchEnd(const CrossCoreLaunch& x)
{
    for (uint32_t slot = 0; slot < x.flags.size(); ++slot)
        for (uint16_t id = 0; id < kFlagIds; ++id) {
            const XcFlag& f = x.flags[slot][id];
            if (f.count != 0)
                return "CrossCoreSetFlag: core " + SlotName(x, slot) + ": flagId " + std::to_string(id) +
                       " still counts " + std::to_string(f.count) + " at kernel end (" + f.lastFrom +
                       "): a CrossCoreSetFlag without its CrossCoreWaitFlag (they must pair; undefined on the chip)";
        }
    for (const auto& kv : x.channels) {
        const XcChannel& ch = kv.second;
        if (ch.rounds.empty())
            continue;
        std::string who;
        for (size_t m = 0; m < ch.members.size(); ++m)
            who += (who.empty() ? "" : ", ") + SlotName(x, ch.members[m]) + " " + std::to_string(ch.setsOf[m]) + "x";
        return "CrossCoreSetFlag: flagId " + std::to_string(std::get<3>(kv.first)) + " (" + ch.name +
               "): a round was never completed at kernel end (sets: " + who +
               "): every member of the group must set it";
    }
    return std::string();
}

void CrossCoreNoteHardSyncAll(CoreContext& c)
{
    bool conflict = false;
    {
        auto lk = LaunchLock(c);
        CrossCoreLaunch& x = LaunchCrossCore(c);
        const uint32_t slot = LaunchSlot(c);
        x.usedHardSyncAll[slot] = 1;
        conflict = x.usedSyncAllIds[slot] != 0;
    }
    if (conflict)
        Violation(
            "SyncAll", "hard SyncAll uses cross-core flag IDs 11-14 internally, and this core used one of them with "
                       "CrossCoreSetFlag/WaitFlag: their counts would mix");
}

} // namespace kernel
} // namespace twin
