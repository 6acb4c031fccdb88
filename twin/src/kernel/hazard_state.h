// Private state of the hazard checker (see twin/kernel/hazard.h for the model).
// Ownership: HazardLaunch owns one HazardCore per virtual core slot and one HzThread per happens-before
// thread. A thread's segments are appended only by the OS thread running that core (a Matmul thread
// by its AIV's OS thread); they are read and pruned only while every vector core is blocked in the
// same SyncAll (under its lock) or after all cores have finished.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <deque>
#include <map>
#include <vector>

#include "twin/kernel/hazard.h"

namespace twin {
namespace kernel {

// Per 32-B UB block: the last write (its pipe, epoch and API sequence number) and the last read of
// each pipe (epoch 0 = none). Since that write, for V (write after read within the pipe): the API
// sequence number of the last V read, and the latest epoch of a V read by an earlier instruction.
struct HzBlock {
    uint32_t wEpoch;
    uint32_t wSeq;
    uint8_t wPipe;
    uint32_t rEpoch[kHzPipes];
    uint32_t vrSeq;
    uint32_t vrPrevEpoch;
    const char *wApi;
    const char *rApi[kHzPipes];
    const char* vrPrevApi;
};

enum HzKind : uint8_t { kHzRead = 0, kHzWrite = 1, kHzAtomicAdd = 2, kHzAtomicMax = 3, kHzAtomicMin = 4 };

// A GM write of one MTE3 copy of this core (DataCopy / DataCopyPad UB->GM, atomic or not): bytes [lo, hi)
// (the map key is lo), the MTE3 epoch and API sequence number it was issued in.
struct HzPipeWrite {
    uintptr_t hi;
    uint32_t epoch, seq;
    const char* api;
};

struct HzAcc {
    uintptr_t lo, hi;   // bytes [lo, hi)
    const char *api;
    uint8_t kind;
};

// A run of GM accesses of one thread under one vector clock.
struct HzSeg {
    uint32_t tid = 0, epoch = 0;
    std::vector<uint32_t> vc;
    std::vector<HzAcc> acc;
    bool checked = false;   // already compared against everything it could conflict with
};

struct HzThread {
    std::vector<uint32_t> vc;                 // own component = current epoch
    std::vector<std::unique_ptr<HzSeg>> segs; // in program order
    HzSeg *cur = nullptr;                     // segment of the current epoch (created on first access)
    std::string name;
};

// The kernel site of the SetFlag (or FreeTensor/EnQue) that set a flag, listed when a kernel-site
// wait consumes it (twin/kernel/sync_site.h); empty when sites are not listed.
struct HzTokenSite {
    std::string key, kind, frame;
};

struct HazardCore {
    HazardLaunch *launch = nullptr;
    CoreContext *core = nullptr;
    // UB
    HzPipe pipe = HzPipe::V;
    uint32_t cnt[kHzPipes] = {};
    uint32_t clk[kHzPipes][kHzPipes] = {};
    uint32_t tok[static_cast<int>(AscendC::HardEvent::MAX)][AscendC::kTwinEventIdsPerEvent][kHzPipes] = {};
    // Within one pipe (V; MTE2 writes): instructions of p in epochs <= done[p] have completed before
    // any later instruction of p (PipeBarrier<p>, PIPE_ALL, a WaitFlag on S after p's SetFlag, or a
    // flag round trip p -> q -> p).
    uint32_t done[kHzPipes] = {};
    HzTokenSite tokSite[static_cast<int>(AscendC::HardEvent::MAX)][AscendC::kTwinEventIdsPerEvent];
    bool barrierDropped = false; // the SyncAll in flight is the dropped site (TWIN_DROP_SYNC)
    HzBlock *blocks = nullptr;   // calloc'ed, one per 32-B block of UB
    size_t nBlocks = 0;
    // GM
    uint32_t tid = 0, mmTid = 0;
    int suppress = 0;
    bool inMatmul = false;
    // Completion clocks of this AIV's Matmul requests not yet waited for, oldest first: the chip counts
    // completion notifications per event ID and each wait consumes one (the oldest), so a removed wait
    // makes every later wait return one request early.
    std::deque<std::vector<uint32_t>> mmDone;
    uint8_t mmAtomic = 0;
    // MTE3 -> MTE3 on GM (PipeBarrier docs: DataCopy instructions whose GM destinations overlap need
    // PipeBarrier<PIPE_MTE3>): the writes of MTE3 epochs not known complete (epoch > done[MTE3]), by
    // address; the longest one's length and the newest epoch, so that a completed map is dropped whole.
    std::map<uintptr_t, HzPipeWrite> mte3Writes;
    uintptr_t mte3MaxLen = 0;
    uint32_t mte3MaxEpoch = 0;
    // GM between the pipes of this core (S, MTE2, MTE3): reads and writes by address, each with its pipe and epoch,
    // until every other pipe is ordered after it (dropped whole at PIPE_ALL / SyncAll, pruned when large).
    struct GmPipeAcc {
        uintptr_t hi;
        uint32_t epoch;
        uint8_t pipe;
        const char* api;
    };
    std::multimap<uintptr_t, GmPipeAcc> gmReads, gmWrites;
    uintptr_t gmMaxLen = 0;
    uint8_t gmPipes = 0;     // bit per pipe that accessed GM since the last drop
    size_t gmPruneAt = 4096; // entries at which the next pruning pass runs (doubles with what it keeps)
    ~HazardCore();
};

struct HazardLaunch {
    uint32_t numAic = 0, numAiv = 0, aivPerAic = 0;
    std::vector<std::unique_ptr<HazardCore>> cores;   // by slot: AIC 0.., then AIV 0..
    std::vector<HzThread> threads;                    // AIC 0.., AIV 0.., Matmul thread of AIV 0..
    std::vector<uint32_t> accum[2], released[2];      // SyncAll clocks: [0] AIV-only, [1] all cores
    // sync-site listing / drop switch (twin/kernel/sync_site.h), from the environment at launch
    std::string dropSpec, listPath;
    bool siteMode = false, dropNeedsHash = false;
};

void HzSitesConfigure(HazardLaunch& L);
// Compares the recorded segments (all threads when `final`, else vector cores and Matmul threads)
// and returns the lowest conflict as a report ("" = none); then marks them checked.
std::string HzGmAnalyse(HazardLaunch &L, bool final);
// Drops segments ordered before clock `j` on every vector core (after a SyncAll of all of them).
void HzGmPrune(HazardLaunch &L, const std::vector<uint32_t> &j);
// "'name' at byte offset N" for a GM address (smallest registered buffer containing it).
std::string GmDescribe(uintptr_t p);
// "S", "V", "MTE2", "MTE3" (HzPipe order).
const char* HzPipeName(int p);
// Forgets this core's GM accesses between its pipes (every pipe is ordered after them: PIPE_ALL, SyncAll).
void HzGmDropPipeAccesses(HazardCore& h);

}  // namespace kernel
}  // namespace twin
