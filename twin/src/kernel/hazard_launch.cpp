// Hazard checker lifecycle: per-launch state, per-core attachment, and the happens-before edges of
// SyncAll and Matmul requests (model: twin/kernel/hazard.h).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "hazard_state.h"
#include "twin/kernel/core_context.h"

namespace twin {
namespace kernel {

bool HazardEnabled() {
    const char *v = std::getenv("TWIN_HAZARD");
    return v == nullptr || std::strcmp(v, "0") != 0;
}

HazardCore::~HazardCore() { std::free(blocks); }

static void DeleteLaunch(HazardLaunch *l) { delete l; }

std::unique_ptr<HazardLaunch, void (*)(HazardLaunch *)> HazardLaunchCreate(uint32_t numAic, uint32_t numAiv, uint32_t aivPerAic) {
    std::unique_ptr<HazardLaunch, void (*)(HazardLaunch *)> l(new HazardLaunch, &DeleteLaunch);
    l->numAic = numAic;
    l->numAiv = numAiv;
    l->aivPerAic = aivPerAic;
    const uint32_t nt = numAic + 2 * numAiv;
    l->threads.resize(nt);
    for (uint32_t t = 0; t < nt; ++t) {
        HzThread &th = l->threads[t];
        th.vc.assign(nt, 0);
        th.vc[t] = 1;
        if (t < numAic) th.name = "AIC " + std::to_string(t);
        else if (t < numAic + numAiv) th.name = "AIV " + std::to_string(t - numAic);
        else {
            const uint32_t aiv = t - numAic - numAiv;
            th.name = "the Matmul of AIV " + std::to_string(aiv);
            if (aivPerAic != 0) th.name += " (on AIC " + std::to_string(aiv / aivPerAic) + ")";
        }
    }
    for (int b = 0; b < 2; ++b) {
        l->accum[b].assign(nt, 0);
        l->released[b].assign(nt, 0);
    }
    HzSitesConfigure(*l);
    l->cores.resize(numAic + numAiv);
    for (auto &c : l->cores) c.reset(new HazardCore);
    return l;
}

void HazardCoreAttach(HazardLaunch *hl, CoreContext &c) {
    const uint32_t slot = c.isAic ? c.blockIdx : hl->numAic + c.blockIdx;
    HazardCore &h = *hl->cores[slot];
    h.launch = hl;
    h.core = &c;
    h.tid = slot;
    h.mmTid = c.isAic ? slot : hl->numAic + hl->numAiv + c.blockIdx;
    for (int p = 0; p < kHzPipes; ++p) h.clk[p][p] = h.cnt[p] = 1;
    if (!c.isAic && c.ubBytes != 0) {
        h.nBlocks = c.ubBytes / 32;
        h.blocks = static_cast<HzBlock *>(std::calloc(h.nBlocks, sizeof(HzBlock)));   // zero pages: cheap until touched
        if (h.blocks == nullptr) throw std::bad_alloc();
    }
    c.hz = &h;
}

void HazardCoreDetach(CoreContext &c) { c.hz = nullptr; }

static void Join(std::vector<uint32_t> &into, const std::vector<uint32_t> &from) {
    for (size_t i = 0; i < into.size(); ++i) into[i] = std::max(into[i], from[i]);
}

// Any change of a thread's clock starts a new epoch (and a new segment at its next access).
static void Acquire(HzThread &t, uint32_t tid, const std::vector<uint32_t> &from) {
    Join(t.vc, from);
    ++t.vc[tid];
    t.cur = nullptr;
}

// A dropped SyncAll site (TWIN_DROP_SYNC) still blocks but neither contributes nor acquires a clock.
void HazardBarrierArrive(CoreContext &c, int barrier) {
    if (c.hz == nullptr || c.hz->barrierDropped)
        return;
    HazardLaunch &L = *c.hz->launch;
    Join(L.accum[barrier], L.threads[c.hz->tid].vc);
}

std::string HazardBarrierComplete(CoreContext &c, int barrier, bool allVectorCores) {
    if (c.hz == nullptr) return std::string();
    HazardLaunch &L = *c.hz->launch;
    L.released[barrier] = L.accum[barrier];
    std::fill(L.accum[barrier].begin(), L.accum[barrier].end(), 0u);
    if (!allVectorCores) return std::string();
    std::string report = HzGmAnalyse(L, false);
    if (report.empty()) HzGmPrune(L, L.released[barrier]);
    return report;
}

void HazardBarrierLeave(CoreContext &c, int barrier) {
    if (c.hz == nullptr) return;
    HazardLaunch &L = *c.hz->launch;
    if (c.hz->barrierDropped) { // no edge, but later accesses start a new (unchecked) segment
        L.threads[c.hz->tid].cur = nullptr;
        return;
    }
    Acquire(L.threads[c.hz->tid], c.hz->tid, L.released[barrier]);
}

void HzMatmulBegin(CoreContext& c, uint8_t atomicOp, bool dropped)
{
    if (c.hz == nullptr) return;
    HazardCore &h = *c.hz;
    HzThread &aiv = h.launch->threads[h.tid], &mm = h.launch->threads[h.mmTid];
    if (h.mmTid != h.tid && !dropped) {
        Acquire(mm, h.mmTid, aiv.vc);     // the request: everything the AIV did before is visible to the cube
        ++aiv.vc[h.tid];                  // the AIV's later accesses run concurrently with the cube work
        aiv.cur = nullptr;
    }
    h.inMatmul = true;
    h.mmAtomic = atomicOp;
}

// The AIV acquires the oldest outstanding completion (a wait consumes one notification).
static void Complete(HazardCore &h) {
    if (h.mmDone.empty())
        return;
    if (h.mmTid != h.tid)
        Acquire(h.launch->threads[h.tid], h.tid, h.mmDone.front());
    h.mmDone.pop_front();
}

void HzMatmulEnd(CoreContext& c, bool completed, bool dropped, bool notified)
{
    if (c.hz == nullptr) return;
    HazardCore &h = *c.hz;
    h.inMatmul = false;
    h.mmAtomic = 0;
    if (completed && dropped)
        return; // a dropped synchronous request: no completion edge either
    if (!completed && !notified)
        return; // no completion notification: nothing for a wait to consume
    if (h.mmTid != h.tid) {
        // the request's completion covers the Matmul thread's accesses so far; later requests start a
        // new segment, so they are not covered by this completion
        HzThread& mm = h.launch->threads[h.mmTid];
        h.mmDone.push_back(mm.vc);
        ++mm.vc[h.mmTid];
        mm.cur = nullptr;
    } else {
        h.mmDone.emplace_back();
    }
    if (completed)
        Complete(h);
}

void HzMatmulWait(CoreContext &c) {
    if (c.hz != nullptr)
        Complete(*c.hz);
}

std::vector<uint32_t> HzCrossCoreRelease(CoreContext& c)
{
    if (c.hz == nullptr)
        return std::vector<uint32_t>();
    HzThread& t = c.hz->launch->threads[c.hz->tid];
    std::vector<uint32_t> clock = t.vc;
    ++t.vc[c.hz->tid];
    t.cur = nullptr;
    return clock;
}

uint32_t HzCrossCoreAcquire(CoreContext& c, const std::vector<uint32_t>& clock)
{
    if (c.hz == nullptr)
        return 0;
    HzThread& t = c.hz->launch->threads[c.hz->tid];
    if (clock.size() == t.vc.size())
        Join(t.vc, clock);
    ++t.vc[c.hz->tid];
    t.cur = nullptr;
    return t.vc[c.hz->tid];
}

bool HzSitesDropping(const CoreContext& c) { return c.hz != nullptr && !c.hz->launch->dropSpec.empty(); }

std::string HazardLaunchEnd(HazardLaunch *hl) {
    if (hl == nullptr) return std::string();
    return HzGmAnalyse(*hl, true);
}

HzBarrierDropScope::HzBarrierDropScope(CoreContext& c, bool dropped) : hz_(c.hz)
{
    if (hz_ != nullptr)
        hz_->barrierDropped = dropped;
}

HzBarrierDropScope::~HzBarrierDropScope()
{
    if (hz_ != nullptr)
        hz_->barrierDropped = false;
}

HzGmSuppress::HzGmSuppress(CoreContext &c) : hz_(c.hz) {
    if (hz_ != nullptr) ++hz_->suppress;
}

HzGmSuppress::~HzGmSuppress() {
    if (hz_ != nullptr) --hz_->suppress;
}

}  // namespace kernel
}  // namespace twin
