// UB hazards between the pipes of one vector core (model: twin/kernel/hazard.h).
#include <algorithm>
#include <cstring>
#include <string>

#include "hazard_state.h"
#include "twin/kernel/core_context.h"

namespace twin {
namespace kernel {

const char* HzPipeName(int p)
{
    static const char* names[kHzPipes] = {"S", "V", "MTE2", "MTE3"};
    return names[p];
}

namespace {

int PipeFromName(const std::string &s) {
    for (int p = 0; p < kHzPipes; ++p)
        if (s == HzPipeName(p))
            return p;
    return -1;   // cube pipes (M, MTE1, FIX): not modelled on UB
}

// Source and destination pipe of each HardEvent ("MTE2_V" -> MTE2, V).
struct EventPipes {
    int8_t src[static_cast<int>(AscendC::HardEvent::MAX)];
    int8_t dst[static_cast<int>(AscendC::HardEvent::MAX)];
    EventPipes() {
        for (int e = 0; e < static_cast<int>(AscendC::HardEvent::MAX); ++e) {
            const std::string n = HardEventName(static_cast<AscendC::HardEvent>(e));
            const size_t u = n.find('_');
            src[e] = static_cast<int8_t>(PipeFromName(n.substr(0, u)));
            dst[e] = static_cast<int8_t>(u == std::string::npos ? -1 : PipeFromName(n.substr(u + 1)));
        }
    }
};
const EventPipes &Pipes() {
    static const EventPipes p;
    return p;
}

std::string SyncHint(int from, int to) {
    return std::string("SetFlag/WaitFlag<HardEvent::") + HzPipeName(from) + "_" + HzPipeName(to) +
           ">, EnQue/DeQue of the tensor's queue, or PipeBarrier<PIPE_ALL>";
}

[[noreturn]] void Report(const CoreContext &c, HazardCore &h, int p, int q, size_t blk, bool write, bool otherWrite, const char *otherApi) {
    const char *api = c.lastApi ? c.lastApi : "?";
    const std::string kind = std::string(otherWrite ? (write ? "write after write" : "read after write") : "write after read");
    Violation(
        api, std::string("UB hazard ") + HzPipeName(q) + " -> " + HzPipeName(p) + " (" + kind + "): " + api +
                 " on pipe " + HzPipeName(p) + " " + (write ? "writes" : "reads") + " the 32-B UB block at offset " +
                 std::to_string(blk * 32) + " that " + (otherApi ? otherApi : "?") + " on pipe " + HzPipeName(q) + " " +
                 (otherWrite ? "wrote" : "read") + ", with no synchronisation from " + HzPipeName(q) + " to " +
                 HzPipeName(p) + " in between (" + SyncHint(q, p) +
                 "; the chip runs the pipes asynchronously and the kernel may not rely on the compiler's auto-sync)");
    (void)h;
}

// Two instructions of one pipe touching the same block (V: read after write, write after write, write
// after read; MTE2: write after write) with no PipeBarrier of that pipe in between: the pipe overlaps
// consecutive instructions. asc-devkit docs/zh/api (核内同步能力概述, PipeBarrier(ISASI)): within one pipe
// the instructions execute in order, but a later one may start before an earlier one has finished;
// PipeBarrier makes every read and write of the earlier instructions complete before the later ones
// run (a Mul reading an Add's result needs PipeBarrier<PIPE_V>; overlapping DataCopy destinations need
// PipeBarrier<PIPE_MTE2>/<PIPE_MTE3>). So a V instruction may overwrite a block an earlier, unfinished V
// instruction still reads: write after read within V needs the barrier too.
[[noreturn]] void ReportSamePipe(
    const CoreContext& c, int p, size_t blk, bool write, bool otherWrite, const char* otherApi)
{
    const char* api = c.lastApi ? c.lastApi : "?";
    const std::string kind = otherWrite ? (write ? "write after write" : "read after write") : "write after read";
    Violation(
        api, std::string("UB hazard ") + HzPipeName(p) + " -> " + HzPipeName(p) + " (" + kind +
                 " in one pipe): " + api + " on pipe " + HzPipeName(p) + " " + (write ? "writes" : "reads") +
                 " the 32-B UB block at offset " + std::to_string(blk * 32) + " that " + (otherApi ? otherApi : "?") +
                 " on the same pipe " + (otherWrite ? "wrote" : "read") + ", with no PipeBarrier<PIPE_" +
                 HzPipeName(p) +
                 "> (or PIPE_ALL) in between (PipeBarrier docs: the barrier makes the reads and writes of the earlier "
                 "instructions complete before the later ones run; without it the pipe overlaps them)");
}

} // namespace

void HzUbAccess(const CoreContext &c, const void *ptr, size_t bytes, bool write) {
    HazardCore &h = *c.hz;
    if (h.blocks == nullptr || bytes == 0) return;
    const int p = static_cast<int>(h.pipe);
    const size_t off = static_cast<size_t>(static_cast<const uint8_t *>(ptr) - c.ubBase);
    const size_t b0 = off / 32, b1 = std::min((off + bytes - 1) / 32, h.nBlocks - 1);
    const uint32_t e = h.cnt[p];
    const uint32_t *clk = h.clk[p];
    const char *api = c.lastApi;
    const uint32_t seq = c.apiSeq;
    // in-pipe ordering is checked for V (reads and writes) and for MTE2 writes; S is ordered by the
    // hardware (PipeBarrier docs), MTE3 only reads UB
    const bool samePipe = h.pipe == HzPipe::V || (write && h.pipe == HzPipe::MTE2);
    for (size_t b = b0; b <= b1; ++b) {
        HzBlock &k = h.blocks[b];
        if (samePipe && k.wPipe == p && k.wEpoch > h.done[p] && k.wSeq != seq)
            ReportSamePipe(c, p, b, write, true, k.wApi);
        if (write && h.pipe == HzPipe::V) { // reads of earlier V instructions (not this one: in place)
            if (k.vrSeq != seq && k.rEpoch[p] > h.done[p])
                ReportSamePipe(c, p, b, true, false, k.rApi[p]);
            if (k.vrPrevEpoch > h.done[p])
                ReportSamePipe(c, p, b, true, false, k.vrPrevApi);
        }
        if (write)   // reads since the last write first (they are the most recent accesses)
            for (int q = 0; q < kHzPipes; ++q)
                if (q != p && k.rEpoch[q] > clk[q]) Report(c, h, p, q, b, true, false, k.rApi[q]);
        if (k.wPipe != p && k.wEpoch > clk[k.wPipe]) Report(c, h, p, k.wPipe, b, write, true, k.wApi);
        if (write) {
            k.wPipe = static_cast<uint8_t>(p);
            k.wEpoch = e;
            k.wSeq = seq;
            k.wApi = api;
            std::memset(k.rEpoch, 0, sizeof(k.rEpoch));
            k.vrSeq = 0;
            k.vrPrevEpoch = 0;
        } else {
            if (h.pipe == HzPipe::V && k.vrSeq != seq && k.rEpoch[p] > k.vrPrevEpoch) {
                k.vrPrevEpoch = k.rEpoch[p]; // an earlier V instruction's read (epoch 0: none)
                k.vrPrevApi = k.rApi[p];
            }
            if (h.pipe == HzPipe::V)
                k.vrSeq = seq;
            k.rEpoch[p] = e;
            k.rApi[p] = api;
        }
    }
}

// SetFlag on pipe `src`: the flag carries src's clock (nothing when the site is dropped); src starts
// a new epoch.
void HzFlagSet(CoreContext& c, AscendC::HardEvent e, int32_t id, bool dropped)
{
    HazardCore &h = *c.hz;
    const int src = Pipes().src[static_cast<int>(e)];
    uint32_t *t = h.tok[static_cast<int>(e)][id];
    if (src < 0 || dropped) {
        std::fill(t, t + kHzPipes, 0u);
        return;
    }
    h.clk[src][src] = h.cnt[src];
    std::copy(h.clk[src], h.clk[src] + kHzPipes, t);
    h.clk[src][src] = ++h.cnt[src];
}

// WaitFlag on pipe `dst`: dst is ordered after everything the flag's clock covers.
void HzFlagWait(CoreContext &c, AscendC::HardEvent e, int32_t id) {
    HazardCore &h = *c.hz;
    const int dst = Pipes().dst[static_cast<int>(e)];
    if (dst < 0) return;
    const uint32_t *t = h.tok[static_cast<int>(e)][id];
    for (int q = 0; q < kHzPipes; ++q)
        if (q != dst) h.clk[dst][q] = std::max(h.clk[dst][q], t[q]);
    // In-pipe completion: what the flag knows of dst's own epochs (a round trip dst -> src -> dst);
    // a wait on the scalar unit stalls the issue of every later instruction, so the source pipe's
    // epochs the flag covers have completed before its later instructions start.
    h.done[dst] = std::max(h.done[dst], t[dst]);
    const int src = Pipes().src[static_cast<int>(e)];
    if (dst == static_cast<int>(HzPipe::S) && src >= 0)
        h.done[src] = std::max(h.done[src], t[src]);
}

// PipeBarrier<p>: p's instructions so far complete before its later ones (a new epoch of p).
void HzPipeBarrier(CoreContext& c, HzPipe pipe)
{
    HazardCore& h = *c.hz;
    const int p = static_cast<int>(pipe);
    h.done[p] = h.cnt[p];
    h.clk[p][p] = ++h.cnt[p];
}

void HzPipeBarrierAll(CoreContext &c) {
    HazardCore &h = *c.hz;
    uint32_t j[kHzPipes];
    for (int q = 0; q < kHzPipes; ++q) {
        h.clk[q][q] = h.cnt[q];
        j[q] = 0;
    }
    for (int p = 0; p < kHzPipes; ++p)
        for (int q = 0; q < kHzPipes; ++q) j[q] = std::max(j[q], h.clk[p][q]);
    for (int p = 0; p < kHzPipes; ++p) {
        std::copy(j, j + kHzPipes, h.clk[p]);
        h.done[p] = h.cnt[p];
        h.clk[p][p] = ++h.cnt[p];
    }
    HzGmDropPipeAccesses(h);
}

HzPipeScope::HzPipeScope(CoreContext &c, HzPipe p) : hz_(c.hz), saved_(HzPipe::V) {
    if (hz_ == nullptr) return;
    saved_ = hz_->pipe;
    hz_->pipe = p;
}

HzPipeScope::~HzPipeScope() {
    if (hz_ != nullptr) hz_->pipe = saved_;
}

}  // namespace kernel
}  // namespace twin
