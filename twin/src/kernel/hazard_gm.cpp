// GM hazards across cores: recording of accesses per happens-before thread and the deterministic
// comparison of unordered segments (model: twin/kernel/hazard.h).
#include <algorithm>
#include <string>
#include <vector>

#include "hazard_state.h"
#include "twin/kernel/core_context.h"

namespace twin {
namespace kernel {

namespace {

// An MTE3 copy of this core writing GM bytes [lo, hi) that an earlier MTE3 copy wrote with no
// completion of that copy in between (PipeBarrier<PIPE_MTE3>, PIPE_ALL, a WaitFlag<MTE3_S>, or a flag
// round trip MTE3 -> X -> MTE3: done[MTE3]). asc-devkit docs/zh/api PipeBarrier(ISASI) 约束说明: when
// several DataCopy instructions' GM destinations overlap, PipeBarrier<PIPE_MTE3> must serialise them
// (the pipe overlaps consecutive copies). Atomic copies are copies too. One copy's own blocks (its
// API sequence number) never conflict.
void CheckMte3InPipe(CoreContext& c, HazardCore& h, const char* api, uintptr_t lo, uintptr_t hi)
{
    const int mte3 = static_cast<int>(HzPipe::MTE3);
    const uint32_t done = h.done[mte3];
    auto& w = h.mte3Writes;
    if (!w.empty() && h.mte3MaxEpoch <= done) {
        w.clear();
        h.mte3MaxLen = 0;
    }
    auto it = w.lower_bound(lo > h.mte3MaxLen ? lo - h.mte3MaxLen : 0);
    while (it != w.end() && it->first < hi) {
        const HzPipeWrite& e = it->second;
        if (e.hi > lo && e.seq != c.apiSeq && e.epoch > done) {
            const uintptr_t a = std::max(lo, it->first), b = std::min(hi, e.hi);
            Violation(
                api, std::string("GM hazard MTE3 -> MTE3 (write after write in one pipe): ") + api +
                         " on pipe MTE3 writes " + std::to_string(b - a) + " bytes of GM buffer " + GmDescribe(a) +
                         " that " + e.api +
                         " on the same pipe wrote, with no PipeBarrier<PIPE_MTE3> (or PIPE_ALL) in between "
                         "(PipeBarrier docs: DataCopy instructions whose GM destinations overlap must be "
                         "serialised by PipeBarrier<PIPE_MTE3>; without it the pipe overlaps them)");
        }
        it = (e.hi > lo && e.epoch <= done) ? w.erase(it) : std::next(it); // completed and overlapped: superseded
    }
    const uint32_t epoch = h.cnt[mte3];
    auto at = w.find(lo);
    if (at != w.end() && at->second.hi >= hi && at->second.seq == c.apiSeq)
        return;
    const uintptr_t end = std::max(hi, at != w.end() && at->second.seq == c.apiSeq ? at->second.hi : hi);
    w[lo] = HzPipeWrite{end, epoch, c.apiSeq, api};
    h.mte3MaxLen = std::max(h.mte3MaxLen, end - lo);
    h.mte3MaxEpoch = std::max(h.mte3MaxEpoch, epoch);
}

// An access of pipe `pipe` to GM bytes [lo, hi) of this core against the other pipes' earlier accesses of those
// bytes: read after write, write after read, write after write between two pipes of one core need the pipes
// ordered (SetFlag/WaitFlag<P_Q>, a chain of them, PIPE_ALL): 核内同步 docs, the pipes run asynchronously and a
// copy's GM data is not visible to another pipe's access until it has landed. Then recorded.
void CheckGmAcrossPipes(HazardCore& h, const char* api, uintptr_t lo, uintptr_t hi, bool write)
{
    const int p = static_cast<int>(h.pipe);
    if (p != static_cast<int>(HzPipe::S) && p != static_cast<int>(HzPipe::MTE2) &&
        p != static_cast<int>(HzPipe::MTE3)) {
        return;
    }
    auto check = [&](std::multimap<uintptr_t, HazardCore::GmPipeAcc>& m, bool otherWrites) {
        for (auto it = m.lower_bound(lo > h.gmMaxLen ? lo - h.gmMaxLen : 0); it != m.end() && it->first < hi; ++it) {
            const HazardCore::GmPipeAcc& e = it->second;
            if (e.hi <= lo || e.pipe == p || e.epoch <= h.clk[p][e.pipe]) {
                continue;
            }
            const uintptr_t a = std::max(lo, it->first), b = std::min(hi, e.hi);
            const std::string kind =
                otherWrites ? (write ? "write after write" : "read after write") : "write after read";
            const std::string from = HzPipeName(e.pipe), to = HzPipeName(p);
            Violation(
                api, std::string("GM hazard ") + from + " -> " + to + " on one core (" + kind + "): " + api +
                         " on pipe " + to + (write ? " writes " : " reads ") + std::to_string(b - a) +
                         " bytes of GM buffer " + GmDescribe(a) + " that " + e.api + " on pipe " + from +
                         (otherWrites ? " wrote" : " read") + ", with no synchronisation from " + from + " to " + to +
                         " in between (SetFlag/WaitFlag<HardEvent::" + from + "_" + to +
                         "> or PipeBarrier<PIPE_ALL>: the pipes run asynchronously)");
        }
    };
    check(h.gmWrites, true);
    if (write) {
        check(h.gmReads, false);
    }
    auto& m = write ? h.gmWrites : h.gmReads;
    h.gmPipes = static_cast<uint8_t>(h.gmPipes | (1U << p));
    if (h.gmReads.size() + h.gmWrites.size() >= h.gmPruneAt) { // drop what every other GM pipe is ordered after
        for (auto* mm : {&h.gmReads, &h.gmWrites}) {
            for (auto it = mm->begin(); it != mm->end();) {
                bool ordered = true;
                for (int q = 0; q < kHzPipes && ordered; ++q) {
                    ordered = q == it->second.pipe || (h.gmPipes & (1U << q)) == 0 ||
                              it->second.epoch <= h.clk[q][it->second.pipe];
                }
                it = ordered ? mm->erase(it) : std::next(it);
            }
        }
        h.gmPruneAt = std::max<size_t>(4096, 2 * (h.gmReads.size() + h.gmWrites.size()));
    }
    // an earlier access of the same pipe to bytes this one covers is superseded (a later access of another pipe
    // ordered after this one is ordered after it too)
    for (auto it = m.find(lo); it != m.end() && it->first == lo;) {
        it = (it->second.pipe == p && it->second.hi <= hi) ? m.erase(it) : std::next(it);
    }
    m.emplace(lo, HazardCore::GmPipeAcc{hi, h.cnt[p], static_cast<uint8_t>(p), api});
    h.gmMaxLen = std::max(h.gmMaxLen, hi - lo);
}

} // namespace

void HzGmDropPipeAccesses(HazardCore& h)
{
    h.gmReads.clear();
    h.gmWrites.clear();
    h.gmMaxLen = 0;
    h.gmPipes = 0;
    h.gmPruneAt = 4096;
}

void HzGmAccess(CoreContext &c, const char *api, const void *p, size_t bytes, bool write) {
    HazardCore &h = *c.hz;
    if (h.suppress > 0 || bytes == 0) return;
    if (write && !h.inMatmul && h.pipe == HzPipe::MTE3)
        CheckMte3InPipe(c, h, api, reinterpret_cast<uintptr_t>(p), reinterpret_cast<uintptr_t>(p) + bytes);
    if (!h.inMatmul)
        CheckGmAcrossPipes(h, api, reinterpret_cast<uintptr_t>(p), reinterpret_cast<uintptr_t>(p) + bytes, write);
    const uint32_t tid = h.inMatmul ? h.mmTid : h.tid;
    HzThread &t = h.launch->threads[tid];
    uint8_t kind = kHzRead;
    if (write) {
        const int op = h.inMatmul ? h.mmAtomic : c.atomicOp;
        kind = static_cast<uint8_t>(op == 0 ? kHzWrite : kHzWrite + op);
    }
    if (t.cur == nullptr) {
        t.segs.push_back(std::make_unique<HzSeg>());
        t.cur = t.segs.back().get();
        t.cur->tid = tid;
        t.cur->epoch = t.vc[tid];
        t.cur->vc = t.vc;
    }
    const uintptr_t lo = reinterpret_cast<uintptr_t>(p), hi = lo + bytes;
    auto &acc = t.cur->acc;
    if (!acc.empty() && acc.back().kind == kind && acc.back().api == api) {
        HzAcc &b = acc.back();
        if (b.hi == lo) {   // contiguous continuation (bursts, rows)
            b.hi = hi;
            return;
        }
        if (lo >= b.lo && hi <= b.hi) return;   // repeated access (e.g. a scalar polling loop)
    }
    acc.push_back({lo, hi, api, kind});
}

namespace {

struct Item {
    const HzAcc *a;
    const HzSeg *s;
};

// a happens before b
bool Before(const HzSeg &a, const HzSeg &b) { return b.vc[a.tid] >= a.epoch; }

bool Conflict(const Item &x, const Item &y) {
    if (x.s->tid == y.s->tid) return false;
    if (x.a->kind == kHzRead && y.a->kind == kHzRead) return false;
    if (x.a->kind >= kHzAtomicAdd && x.a->kind == y.a->kind) return false;
    if (x.s->checked && y.s->checked) return false;
    return !Before(*x.s, *y.s) && !Before(*y.s, *x.s);
}

const char *Verb(uint8_t kind) {
    switch (kind) {
    case kHzRead: return "reads";
    case kHzWrite: return "writes";
    case kHzAtomicAdd: return "atomically adds to";
    case kHzAtomicMax: return "atomically maxes";
    default: return "atomically mins";
    }
}

}  // namespace

std::string HzGmAnalyse(HazardLaunch &L, bool final) {
    std::vector<Item> items;
    for (uint32_t tid = final ? 0 : L.numAic; tid < L.threads.size(); ++tid)
        for (const auto &s : L.threads[tid].segs)
            for (const HzAcc &a : s->acc) items.push_back({&a, s.get()});
    std::sort(items.begin(), items.end(), [](const Item &x, const Item &y) {
        if (x.a->lo != y.a->lo) return x.a->lo < y.a->lo;
        if (x.s->tid != y.s->tid) return x.s->tid < y.s->tid;
        if (x.s->epoch != y.s->epoch) return x.s->epoch < y.s->epoch;
        return x.a < y.a;   // same segment: program order (accesses are stored in order)
    });
    // Sweep in address order; reads are compared only against writes (read/read never conflicts).
    std::vector<Item> writes, reads;
    bool found = false;
    Item bx{}, by{};
    uintptr_t at = 0;
    auto consider = [&](const Item &x, const Item &y) {
        const Item &lo = x.s->tid < y.s->tid ? x : y, &hi = x.s->tid < y.s->tid ? y : x;
        if (!found || lo.s->tid < bx.s->tid || (lo.s->tid == bx.s->tid && hi.s->tid < by.s->tid)) {
            bx = lo;
            by = hi;
        }
        found = true;
    };
    for (const Item &it : items) {
        if (found && it.a->lo > at) break;   // the lowest conflicting address is settled
        auto expire = [&](std::vector<Item> &v) {
            v.erase(std::remove_if(v.begin(), v.end(), [&](const Item &o) { return o.a->hi <= it.a->lo; }), v.end());
        };
        expire(writes);
        for (const Item &w : writes)
            if (Conflict(it, w)) {
                at = it.a->lo;
                consider(it, w);
            }
        if (it.a->kind != kHzRead) {
            expire(reads);
            for (const Item &r : reads)
                if (Conflict(it, r)) {
                    at = it.a->lo;
                    consider(it, r);
                }
            writes.push_back(it);
        } else {
            reads.push_back(it);
        }
    }
    for (uint32_t tid = final ? 0 : L.numAic; tid < L.threads.size(); ++tid)
        for (auto &s : L.threads[tid].segs) s->checked = true;
    if (!found) return std::string();
    const HzThread &ta = L.threads[bx.s->tid], &tb = L.threads[by.s->tid];
    const uintptr_t lo = std::max(bx.a->lo, by.a->lo), hi = std::min(bx.a->hi, by.a->hi);
    const bool ww = bx.a->kind != kHzRead && by.a->kind != kHzRead;
    return std::string(bx.a->api) + ": core " + ta.name + ": GM hazard across cores (" + (ww ? "write/write" : "read/write") + "): " + ta.name +
           " " + bx.a->api + " " + Verb(bx.a->kind) + " and " + tb.name + " " + by.a->api + " " + Verb(by.a->kind) + " " +
           std::to_string(hi - lo) + " overlapping bytes of GM buffer " + GmDescribe(lo) +
           ", and nothing orders one before the other (no SyncAll, cross-core flag or Matmul completion between them)";
}

void HzGmPrune(HazardLaunch &L, const std::vector<uint32_t> &j) {
    for (uint32_t tid = L.numAic; tid < L.threads.size(); ++tid) {
        HzThread &t = L.threads[tid];
        auto keep = std::remove_if(t.segs.begin(), t.segs.end(), [&](const std::unique_ptr<HzSeg> &s) { return j[s->tid] >= s->epoch; });
        for (auto i = keep; i != t.segs.end(); ++i)
            if (i->get() == t.cur) t.cur = nullptr;
        t.segs.erase(keep, t.segs.end());
    }
}

}  // namespace kernel
}  // namespace twin
