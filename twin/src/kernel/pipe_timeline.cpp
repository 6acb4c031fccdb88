// Per-pipe timeline of a virtual core (model: twin/kernel/pipe_timeline.h).
#include "twin/kernel/pipe_timeline.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "twin/kernel/core_context.h"

namespace twin {
namespace kernel {

namespace {

const char* const kPipeNames[kTlPipes] = {"S", "V", "MTE2", "MTE3", "MTE1", "M", "FIX"};
constexpr int kS = static_cast<int>(TlPipe::S);
constexpr int kEvents = static_cast<int>(AscendC::HardEvent::MAX);
constexpr int kIds = AscendC::kTwinEventIdsPerEvent;

// Byte offset of a PipeCounters field by name (all fields are uint64_t), found by probing
// cost::CounterByName, so the table follows launch.h without a second list of names.
size_t CounterOffset(const char* name)
{
    for (size_t off = 0; off + sizeof(uint64_t) <= sizeof(PipeCounters); off += sizeof(uint64_t)) {
        PipeCounters probe;
        std::memset(static_cast<void*>(&probe), 0, sizeof(probe));
        uint64_t one = 1;
        std::memcpy(reinterpret_cast<uint8_t*>(&probe) + off, &one, sizeof(one));
        uint64_t v = 0;
        if (cost::CounterByName(probe, name, v) && v == 1)
            return off;
    }
    throw std::logic_error(std::string("twin timeline: unknown counter ") + name);
}

uint64_t Field(const PipeCounters& c, size_t off)
{
    uint64_t v;
    std::memcpy(&v, reinterpret_cast<const uint8_t*>(&c) + off, sizeof(v));
    return v;
}

// The cost table compiled once: per pipe term its counter offset, pipe, constant and default value;
// per variant its constant values. Exactness: every cost constant (and its x0.5 / x2) is a dyadic
// rational (an integer or k / 2^m with m <= 9) and counters are integers, so every sum and max the
// timeline forms is exact in double precision (well below 2^53 cycles); the order of additions does
// not change a result, which lets TlSync charge all variants from the default sums (below).
struct Model {
    struct Term {
        size_t off;
        int pipe;
        int constant;  // index into the constants, -1: the counter is in cycles
        double value0; // the default cycles per count
    };
    static constexpr size_t kMaxConstants = 32; // a bit per constant in TlSync's mask
    std::vector<Term> terms;
    std::vector<double> value; // [variant][term]: constant x factor (1 for cycle counters)
    std::vector<const char*> varConst;
    std::vector<double> varFactor;
    std::vector<double> flagCycles; // [variant]
    std::vector<double> syncAllCycles;
    std::vector<double> dmaLatency; // [variant]
    size_t waitOff[kTlPipes]; // waitFlags<pipe> counter offsets
    size_t syncAllOff;
    int8_t src[kEvents], dst[kEvents];
    size_t V = 0, nk = 0;

    Model()
    {
        size_t nt = 0;
        const cost::Constant* k = cost::Constants(nk);
        const cost::PipeTerm* t = cost::PipeTerms(nt);
        if (nk > kMaxConstants)
            throw std::logic_error("twin timeline: more cost constants than TlSync's mask holds");
        varConst.push_back(nullptr);
        varFactor.push_back(1.0);
        for (size_t j = 0; j < nk; ++j) { // variants 2j+1 (x0.5) and 2j+2 (x2): TlSync relies on this order
            varConst.push_back(k[j].name);
            varFactor.push_back(0.5);
            varConst.push_back(k[j].name);
            varFactor.push_back(2.0);
        }
        V = varConst.size();
        for (size_t i = 0; i < nt; ++i) {
            const int p = TlPipeFromName(t[i].pipe);
            if (p < 0)
                throw std::logic_error(std::string("twin timeline: unknown pipe ") + t[i].pipe);
            int ci = -1;
            for (size_t j = 0; t[i].constant != nullptr && j < nk; ++j)
                if (std::strcmp(k[j].name, t[i].constant) == 0)
                    ci = static_cast<int>(j);
            if (t[i].constant != nullptr && ci < 0)
                throw std::logic_error(std::string("twin timeline: unknown constant ") + t[i].constant);
            terms.push_back({CounterOffset(t[i].counter), p, ci, ci < 0 ? 1.0 : k[ci].value});
        }
        value.assign(V * nt, 1.0);
        flagCycles.assign(V, 0.0);
        syncAllCycles.assign(V, 0.0);
        dmaLatency.assign(V, 0.0);
        for (size_t v = 0; v < V; ++v) {
            auto val = [&](const char* name) {
                return cost::ConstantValue(name) *
                       (varConst[v] && std::strcmp(varConst[v], name) == 0 ? varFactor[v] : 1.0);
            };
            for (size_t i = 0; i < nt; ++i)
                if (t[i].constant)
                    value[v * nt + i] = val(t[i].constant);
            flagCycles[v] = val("flag_cycles");
            syncAllCycles[v] = val("syncall_cycles");
            dmaLatency[v] = val("dma_latency_cycles");
        }
        static const char* const waitNames[kTlPipes] = {"waitFlagsS",    "waitFlagsV", "waitFlagsMTE2", "waitFlagsMTE3",
                                                        "waitFlagsMTE1", "waitFlagsM", "waitFlagsFIX"};
        for (int p = 0; p < kTlPipes; ++p)
            waitOff[p] = CounterOffset(waitNames[p]);
        syncAllOff = CounterOffset("syncAllCount");
        for (int e = 0; e < kEvents; ++e) {
            const std::string n = HardEventName(static_cast<AscendC::HardEvent>(e));
            const size_t u = n.find('_');
            src[e] = static_cast<int8_t>(TlPipeFromName(n.substr(0, u).c_str()));
            dst[e] = static_cast<int8_t>(u == std::string::npos ? -1 : TlPipeFromName(n.substr(u + 1).c_str()));
        }
    }
};

const Model& M()
{
    static const Model m;
    return m;
}

void Bump(PipeCounters& c, size_t off)
{
    uint64_t v = Field(c, off) + 1;
    std::memcpy(reinterpret_cast<uint8_t*>(&c) + off, &v, sizeof(v));
}

} // namespace

// Clocks are stored pipe-major ([pipe][variant]) so that one hook updates a pipe of every variant in
// one contiguous loop.
struct TimelineCore {
    PipeCounters last; // counters already charged
    size_t V = 0;
    std::vector<double> clk;        // [pipe][variant]
    std::vector<double> flag;       // [event][id][variant]: time the flag was set
    std::vector<double> stageStart; // [variant]
    std::vector<double> work;       // [variant] work of one pipe in the segment being charged
    std::vector<double> result;     // [variant] (returned by reference)
    std::vector<double> mmDone;     // [variant] completion of the last Matmul request
    std::vector<double> arrive;     // [pipe][variant]: transfer pipes (MTE2, MTE3, FIX): when the data of the
                                    // last transfer queued on the pipe is visible (its pipe time + dma_latency_cycles);
                                    // 0 for the other pipes (no effect in the maxima that read it)
    // [constant][pipe]: the segment's cycles charged through each constant (default values); rows
    // are cleared after use (TlSync)
    double byConstant[Model::kMaxConstants][kTlPipes] = {};
    double busy[kTlPipes] = {}; // variant 0, current stage
    std::vector<std::vector<double>> stages, stageBusy;
    double* Pipe(int p) { return &clk[size_t(p) * V]; }
    double* Arrive(int p) { return &arrive[size_t(p) * V]; }
    const double* Pipe(int p) const { return &clk[size_t(p) * V]; }
};

// Pipes whose work is GM transfers (a transfer's data lands dma_latency_cycles after its pipe time).
static bool TransferPipe(int p)
{
    return p == static_cast<int>(TlPipe::MTE2) || p == static_cast<int>(TlPipe::MTE3) ||
           p == static_cast<int>(TlPipe::FIX);
}

const char* TlPipeName(int p) { return p >= 0 && p < kTlPipes ? kPipeNames[p] : "?"; }

int TlPipeFromName(const char* name)
{
    for (int p = 0; p < kTlPipes; ++p)
        if (std::strcmp(name, kPipeNames[p]) == 0)
            return p;
    return -1;
}

bool TlEnabled(bool requested)
{
    if (requested)
        return true;
    const char* v = std::getenv("TWIN_TIMELINE");
    return v != nullptr && v[0] != '\0' && std::strcmp(v, "0") != 0;
}

size_t TlVariants() { return M().V; }
const char* TlVariantConstant(size_t v) { return v < M().V ? M().varConst[v] : nullptr; }
double TlVariantFactor(size_t v) { return v < M().V ? M().varFactor[v] : 1.0; }

TimelineCore* TlCreate(const PipeCounters& start)
{
    const Model& m = M();
    auto* t = new TimelineCore;
    t->last = start;
    t->V = m.V;
    t->clk.assign(m.V * kTlPipes, 0.0);
    t->flag.assign(size_t(kEvents) * kIds * m.V, 0.0);
    t->stageStart.assign(m.V, 0.0);
    t->work.assign(m.V, 0.0);
    t->result.assign(m.V, 0.0);
    t->mmDone.assign(m.V, 0.0);
    t->arrive.assign(m.V * kTlPipes, 0.0);
    return t;
}

void TlDestroy(TimelineCore* t) { delete t; }

// The segment's work of pipe p in every variant: the default sum, plus for variant 2j+1 / 2j+2 (constant
// j x0.5 / x2) the part charged through constant j times -0.5 / +1 (exact, see Model).
static const double* PipeWork(TimelineCore& t, const double w0[kTlPipes], uint32_t mask, int p)
{
    double* w = t.work.data();
    std::fill(w, w + t.V, w0[p]);
    for (uint32_t rest = mask; rest != 0; rest &= rest - 1) {
        const int j = __builtin_ctz(rest);
        const double part = t.byConstant[j][p];
        w[2 * j + 1] -= 0.5 * part;
        w[2 * j + 2] += part;
    }
    return w;
}

void TlSync(CoreContext& c)
{
    TimelineCore* t = c.tl;
    if (t == nullptr)
        return;
    const Model& m = M();
    double w0[kTlPipes] = {};
    uint32_t mask = 0; // constants charged in this segment
    bool any = false;
    for (const Model::Term& term : m.terms) {
        const uint64_t d = Field(c.counters, term.off) - Field(t->last, term.off);
        if (d == 0)
            continue;
        any = true;
        const double x = static_cast<double>(d) * term.value0;
        w0[term.pipe] += x;
        if (term.constant >= 0) {
            t->byConstant[term.constant][term.pipe] += x;
            mask |= 1u << term.constant;
        }
    }
    if (!any)
        return;
    t->last = c.counters;
    const size_t V = t->V;
    double* s = t->Pipe(kS);
    { // scalar work first: the other instructions issue after it
        const double* w = PipeWork(*t, w0, mask, kS);
        for (size_t v = 0; v < V; ++v)
            s[v] += w[v];
    }
    for (int p = 1; p < kTlPipes; ++p) {
        if (w0[p] == 0) // all terms are positive: no work in the defaults = none in any variant
            continue;
        const double* w = PipeWork(*t, w0, mask, p);
        double* q = t->Pipe(p);
        for (size_t v = 0; v < V; ++v)
            q[v] = std::max(q[v], s[v]) + w[v];
        if (TransferPipe(p)) { // this pipe's work in a segment is transfers (its waits are charged by TlFlagWait)
            double* a = t->Arrive(p);
            for (size_t v = 0; v < V; ++v)
                a[v] = q[v] + m.dmaLatency[v];
        }
    }
    for (int p = 0; p < kTlPipes; ++p)
        t->busy[p] += w0[p];
    for (uint32_t rest = mask; rest != 0; rest &= rest - 1)
        std::fill(t->byConstant[__builtin_ctz(rest)], t->byConstant[__builtin_ctz(rest)] + kTlPipes, 0.0);
}

void TlFlagSet(CoreContext& c, AscendC::HardEvent e, int32_t id)
{
    TimelineCore* t = c.tl;
    if (t == nullptr || id < 0 || id >= kIds)
        return;
    TlSync(c);
    const int p = M().src[static_cast<int>(e)];
    double* f = &t->flag[(size_t(static_cast<int>(e)) * kIds + size_t(id)) * t->V];
    const double* s = t->Pipe(kS);
    if (p >= 0) { // after P's queued work; a transfer pipe's flag when their data has landed (arrive)
        const double* q = t->Pipe(p);
        const double* a = t->Arrive(p);
        for (size_t v = 0; v < t->V; ++v)
            f[v] = std::max(std::max(s[v], q[v]), a[v]);
    } else {
        for (size_t v = 0; v < t->V; ++v)
            f[v] = std::max(s[v], 0.0);
    }
}

void TlFlagWait(CoreContext& c, AscendC::HardEvent e, int32_t id)
{
    TimelineCore* t = c.tl;
    if (id < 0 || id >= kIds)
        return;
    const Model& m = M();
    const int q = m.dst[static_cast<int>(e)];
    if (t == nullptr) { // no timeline: only the counter
        if (q >= 0)
            Bump(c.counters, m.waitOff[q]);
        return;
    }
    TlSync(c);
    if (q < 0)
        return;
    // the wait_flag instruction occupies pipe q for flag_cycles (counted: waitFlags<q>)
    Bump(c.counters, m.waitOff[q]);
    Bump(t->last, m.waitOff[q]);
    const double* f = &t->flag[(size_t(static_cast<int>(e)) * kIds + size_t(id)) * t->V];
    const double* s = t->Pipe(kS);
    double* w = t->Pipe(q);
    for (size_t v = 0; v < t->V; ++v)
        w[v] = std::max(std::max(w[v], s[v]), f[v]) + m.flagCycles[v];
    t->busy[q] += m.flagCycles[0];
}

// Every clock of every variant = the latest of that variant (transfer pipes: their data landed).
static void JoinPipes(TimelineCore& t)
{
    double* j = t.work.data();
    std::copy(t.Pipe(0), t.Pipe(0) + t.V, j);
    for (int p = 1; p < kTlPipes; ++p) {
        const double* q = t.Pipe(p);
        const double* a = t.Arrive(p);
        for (size_t v = 0; v < t.V; ++v)
            j[v] = std::max(std::max(j[v], q[v]), a[v]);
    }
    for (int p = 0; p < kTlPipes; ++p)
        std::copy(j, j + t.V, t.Pipe(p));
}

void TlPipeBarrier(CoreContext& c, TlPipe pipe)
{
    TimelineCore* t = c.tl;
    const int p = static_cast<int>(pipe);
    if (t == nullptr || !TransferPipe(p))
        return;
    TlSync(c);
    double* q = t->Pipe(p);
    const double* a = t->Arrive(p);
    for (size_t v = 0; v < t->V; ++v)
        q[v] = std::max(q[v], a[v]);
}

void TlPipeBarrierAll(CoreContext& c)
{
    TimelineCore* t = c.tl;
    if (t == nullptr)
        return;
    TlSync(c);
    JoinPipes(*t);
}

static void EndStage(TimelineCore& t, const std::vector<double>& end)
{
    std::vector<double> d(t.V);
    for (size_t v = 0; v < t.V; ++v)
        d[v] = end[v] - t.stageStart[v];
    t.stages.push_back(std::move(d));
    t.stageBusy.emplace_back(t.busy, t.busy + kTlPipes);
    std::fill(t.busy, t.busy + kTlPipes, 0.0);
}

const std::vector<double>& TlSyncAllArrive(CoreContext& c)
{
    static const std::vector<double> none;
    TimelineCore* t = c.tl;
    if (t == nullptr)
        return none;
    TlPipeBarrierAll(c);
    const Model& m = M();
    Bump(t->last, m.syncAllOff); // the caller counts this SyncAll next; its cost is charged here
    const double* s = t->Pipe(kS);
    for (size_t v = 0; v < t->V; ++v)
        t->result[v] = s[v] + m.syncAllCycles[v];
    for (int p = 0; p < kTlPipes; ++p)
        std::copy(t->result.begin(), t->result.end(), t->Pipe(p));
    t->busy[kS] += m.syncAllCycles[0];
    return t->result;
}

void TlSyncAllLeave(CoreContext& c, const std::vector<double>& release)
{
    TimelineCore* t = c.tl;
    if (t == nullptr || release.size() != t->V)
        return;
    const std::vector<double> arrival(t->Pipe(kS), t->Pipe(kS) + t->V); // all pipes joined at the arrival
    EndStage(*t, arrival);
    for (int p = 0; p < kTlPipes; ++p)
        std::copy(release.begin(), release.end(), t->Pipe(p));
    t->stageStart = release;
}

void TlKernelEnd(CoreContext& c)
{
    TimelineCore* t = c.tl;
    if (t == nullptr)
        return;
    TlPipeBarrierAll(c);
    const std::vector<double> end(t->Pipe(kS), t->Pipe(kS) + t->V);
    EndStage(*t, end);
}

const std::vector<double>& TlMatmulRequest(CoreContext& c)
{
    static const std::vector<double> none;
    TimelineCore* t = c.tl;
    if (t == nullptr)
        return none;
    TlSync(c);
    std::copy(t->Pipe(kS), t->Pipe(kS) + t->V, t->result.begin());
    return t->result;
}

void TlMatmulIssued(CoreContext& c, const std::vector<double>& done)
{
    TimelineCore* t = c.tl;
    if (t == nullptr || done.size() != t->V)
        return;
    t->mmDone = done;
}

void TlMatmulWait(CoreContext& c)
{
    TimelineCore* t = c.tl;
    if (t == nullptr)
        return;
    TlSync(c);
    double* s = t->Pipe(kS);
    for (size_t v = 0; v < t->V; ++v)
        s[v] = std::max(s[v], t->mmDone[v]);
}

void MatmulDuration(
    const cost::CubeCost& cc, uint64_t gmReadBytes, uint64_t gmWriteBytes, std::vector<double>& duration,
    double busy[kTlPipes])
{
    const Model& m = M();
    const size_t nt = m.terms.size();
    PipeCounters w;
    w.cubeCycles = cc.mCycles;
    w.mmadCalls = cc.mmadCalls;
    w.mte1Cycles = cc.mte1Cycles;
    w.cubeGmReadTransfers = cc.gmReadTransfers;
    w.cubeGmWriteTransfers = cc.gmWriteTransfers;
    w.cubeGmReadBytes = gmReadBytes;
    w.cubeGmLoadBytes = cc.gmLoadBytes;
    w.cubeGmWriteBytes = gmWriteBytes;
    // the pipeline order of the library and the number of units each pipe's work comes in
    const int order[4] = {
        static_cast<int>(TlPipe::MTE2), static_cast<int>(TlPipe::MTE1), static_cast<int>(TlPipe::M),
        static_cast<int>(TlPipe::FIX)};
    const double units[4] = {
        static_cast<double>(std::max<uint64_t>(cc.gmReadTransfers, 1)),
        static_cast<double>(std::max<uint64_t>(cc.mmadCalls, 1)),
        static_cast<double>(std::max<uint64_t>(cc.mmadCalls, 1)),
        static_cast<double>(std::max<uint64_t>(cc.gmWriteTransfers, 1))};
    duration.assign(m.V, 0.0);
    for (size_t v = 0; v < m.V; ++v) {
        double p[kTlPipes] = {};
        for (size_t i = 0; i < nt; ++i) {
            const uint64_t d = Field(w, m.terms[i].off);
            if (d)
                p[m.terms[i].pipe] += static_cast<double>(d) * m.value[v * nt + i];
        }
        if (v == 0)
            std::copy(p, p + kTlPipes, busy);
        double best = 0;
        for (int k = 0; k < 4; ++k) {
            double d = p[order[k]];
            for (int j = 0; j < 4; ++j)
                if (j != k)
                    d += p[order[j]] / units[j];
            best = std::max(best, d);
        }
        duration[v] = best + 2 * m.dmaLatency[v]; // the first load's data, the last store's landing
    }
}

void TlResults(
    const TimelineCore* t, std::vector<std::vector<double>>& stageTimeline, std::vector<std::vector<double>>& stageBusy,
    double& endCycles)
{
    stageTimeline.clear();
    stageBusy.clear();
    endCycles = 0;
    if (t == nullptr)
        return;
    for (int p = 0; p < kTlPipes; ++p)
        endCycles = std::max(endCycles, t->Pipe(p)[0]);
    stageTimeline = t->stages;
    stageBusy = t->stageBusy;
}

} // namespace kernel
} // namespace twin
