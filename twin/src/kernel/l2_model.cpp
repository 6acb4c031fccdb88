// L2 model of a launch (twin/kernel/l2_model.h): the stage-granular hit rule over the cores' logged GM accesses.
#include "twin/kernel/l2_model.h"

#include <algorithm>
#include <cstdlib>

#include "twin/launch.h"

namespace twin {
namespace kernel {
namespace {

constexpr uint64_t kBlock = 32;        // bytes per tracked GM block
constexpr uint32_t kMaxStages = 65000; // block states hold stage + 1 in 16 bits

// A block's state: the last stage that touched it (+1, 0 = never), the last one before that, and per capacity
// variant the stage (+1) of its last access in processing order (resident within the stage) and whether it is dirty.
struct BlockState {
    uint16_t cur = 0, prev = 0;
    uint16_t seen[kL2Variants] = {};
    uint8_t dirty = 0; // bit v: dirty in variant v
};

// Disjoint runs of touched blocks, each with its states.
struct Extent {
    uint64_t firstBlock = 0, endBlock = 0;
    std::vector<BlockState> state;
};

std::vector<Extent> MakeExtents(const std::vector<const L2Log*>& logs)
{
    std::vector<std::pair<uint64_t, uint64_t>> runs;
    for (const L2Log* log : logs) {
        if (log == nullptr)
            continue;
        for (const L2Access& a : log->accesses)
            runs.emplace_back(a.addr / kBlock, (a.addr + a.bytes + kBlock - 1) / kBlock);
    }
    std::sort(runs.begin(), runs.end());
    std::vector<Extent> out;
    for (const auto& r : runs) {
        if (!out.empty() && r.first <= out.back().endBlock) {
            out.back().endBlock = std::max(out.back().endBlock, r.second);
            continue;
        }
        Extent e;
        e.firstBlock = r.first;
        e.endBlock = r.second;
        out.push_back(std::move(e));
    }
    for (Extent& e : out)
        e.state.assign(e.endBlock - e.firstBlock, BlockState{});
    return out;
}

// The state of `block` and of the blocks after it in the same extent (an access's blocks are one extent's).
BlockState* StatesOf(std::vector<Extent>& extents, uint64_t block)
{
    auto it = std::upper_bound(
        extents.begin(), extents.end(), block, [](uint64_t b, const Extent& e) { return b < e.firstBlock; });
    Extent& e = *(it - 1); // every logged block lies in an extent by construction
    return e.state.data() + (block - e.firstBlock);
}

} // namespace

uint64_t L2CapacityFromEnv()
{
    const char* v = std::getenv("TWIN_L2_BYTES");
    if (v == nullptr || *v == '\0')
        return 0;
    char* end = nullptr;
    const unsigned long long n = std::strtoull(v, &end, 10);
    return (end != nullptr && *end == '\0') ? static_cast<uint64_t>(n) : 0;
}

std::vector<L2CoreHits> L2Hits(const std::vector<const L2Log*>& logs, uint64_t capacity)
{
    uint32_t stages = 0;
    for (const L2Log* log : logs)
        if (log != nullptr && !log->accesses.empty())
            stages = std::max(stages, log->accesses.back().stage + 1);
    std::vector<L2CoreHits> hits(logs.size());
    for (L2CoreHits& h : hits) {
        h.read.resize(kL2Variants);
        h.write.resize(kL2Variants);
        for (int v = 0; v < kL2Variants; ++v) {
            h.read[v].resize(stages, 0);
            h.write[v].resize(stages, 0);
        }
    }
    if (stages == 0 || stages > kMaxStages || capacity == 0)
        return hits;
    const uint64_t cap[kL2Variants] = {capacity, capacity / 2, capacity * 2};
    std::vector<Extent> extents = MakeExtents(logs);
    std::vector<size_t> cursor(logs.size(), 0), stageEnd(logs.size(), 0);
    std::vector<uint64_t> cum(1, 0); // cum[s] = F(0) + ... + F(s - 1)
    for (uint32_t s = 0; s < stages; ++s) {
        const uint16_t tag = static_cast<uint16_t>(s + 1);
        // pass 1: the stage's footprint F(s); each block's previous touching stage
        uint64_t footprint = 0;
        for (size_t c = 0; c < logs.size(); ++c) {
            if (logs[c] == nullptr)
                continue;
            const std::vector<L2Access>& acc = logs[c]->accesses;
            size_t i = cursor[c];
            for (; i < acc.size() && acc[i].stage == s; ++i) {
                const uint64_t b0 = acc[i].addr / kBlock, b1 = (acc[i].addr + acc[i].bytes + kBlock - 1) / kBlock;
                BlockState* states = StatesOf(extents, b0);
                for (uint64_t b = b0; b < b1; ++b) {
                    BlockState& st = states[b - b0];
                    if (st.cur == tag)
                        continue;
                    st.prev = st.cur;
                    st.cur = tag;
                    footprint += kBlock;
                }
            }
            stageEnd[c] = i;
        }
        cum.push_back(cum.back() + footprint);
        // pass 2: the bytes the rule absorbs, per core in core order, then log order
        for (size_t c = 0; c < logs.size(); ++c) {
            if (logs[c] == nullptr)
                continue;
            const std::vector<L2Access>& acc = logs[c]->accesses;
            for (size_t i = cursor[c]; i < stageEnd[c]; ++i) {
                const L2Access& a = acc[i];
                std::vector<std::vector<uint64_t>>& out = a.write ? hits[c].write : hits[c].read;
                const uint64_t end = a.addr + a.bytes, b0 = a.addr / kBlock;
                BlockState* states = StatesOf(extents, b0);
                for (uint64_t b = b0; b * kBlock < end; ++b) {
                    const uint64_t lo = std::max<uint64_t>(a.addr, b * kBlock);
                    const uint64_t hi = std::min<uint64_t>(end, (b + 1) * kBlock);
                    BlockState& st = states[b - b0];
                    for (int v = 0; v < kL2Variants; ++v) {
                        const uint8_t bit = static_cast<uint8_t>(1u << v);
                        const bool resident = (footprint <= cap[v] && st.seen[v] == tag) ||
                                              (st.prev != 0 && cum[s + 1] - cum[st.prev - 1] <= cap[v]);
                        if (!resident)
                            st.dirty = static_cast<uint8_t>(st.dirty & ~bit); // written back when it left
                        if (resident && (!a.write || (st.dirty & bit) != 0))
                            out[v][s] += hi - lo;
                        if (a.write)
                            st.dirty = static_cast<uint8_t>(st.dirty | bit);
                        st.seen[v] = tag;
                    }
                }
            }
            cursor[c] = stageEnd[c];
        }
    }
    return hits;
}

void L2AddHits(CoreCounters& cc, const L2CoreHits& hits)
{
    uint64_t PipeCounters::*const fields[2][kL2Variants] = {
        {&PipeCounters::l2ReadHitBytes, &PipeCounters::l2ReadHitBytesHalf, &PipeCounters::l2ReadHitBytesDouble},
        {&PipeCounters::l2WriteHitBytes, &PipeCounters::l2WriteHitBytesHalf, &PipeCounters::l2WriteHitBytesDouble}};
    for (int dir = 0; dir < 2; ++dir) {
        const std::vector<std::vector<uint64_t>>& h = dir == 0 ? hits.read : hits.write;
        for (int v = 0; v < kL2Variants && v < static_cast<int>(h.size()); ++v) {
            uint64_t PipeCounters::*const field = fields[dir][v];
            uint64_t running = 0;
            for (size_t s = 0; s < h[v].size(); ++s) {
                running += h[v][s];
                if (s < cc.atSyncAll.size())
                    cc.atSyncAll[s].*field += running;
            }
            for (size_t k = h[v].size(); k < cc.atSyncAll.size(); ++k)
                cc.atSyncAll[k].*field += running;
            cc.*field += running;
        }
    }
}

} // namespace kernel
} // namespace twin
