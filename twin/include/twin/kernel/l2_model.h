// L2 model of a launch: which GM reads the chip's L2 cache would serve instead of HBM, for the chip-wide HBM
// bound of scripts/perf_model.py (docs/performance.md). The counters are the same whether it runs or not.
//
// On with TWIN_L2_BYTES=<capacity in bytes> in the environment when a launch starts (perf_model.py passes the
// chip's ini l2_size). Every counted GM access (the bytes of gmToUbBytes, ubToGmBytes, cubeGmReadBytes and
// cubeGmWriteBytes: DataCopy / DataCopyPad in both directions, atomic writes included, and each Matmul IterateAll's
// A, B, bias and C rows) is logged with its core and stage (the SyncAll calls the issuing core had made; a Matmul's
// accesses belong to the requesting AIV). When the cores have finished, the rule below marks the read bytes the L2
// serves; they become the counter l2ReadHitBytes of the issuing core (its stage snapshots included), and
// l2ReadHitBytesHalf / l2ReadHitBytesDouble for half and twice the capacity (the model's sensitivity).
//
// Rule (an assumption; stage-granular and independent of the order of the cores' accesses inside a stage):
// GM is split in 32-B blocks; F(s) = bytes of the distinct blocks the launch touches (reads or writes) in stage s.
// A block read in stage s
//   - that was last touched before s in stage p is served by the L2 when F(p) + F(p+1) + ... + F(s) <= capacity
//     (a bound on the bytes that can enter the L2 between the two accesses: the sum counts a block once per stage
//     and stage p and s whole, so it is at least the LRU reuse distance);
//   - that was not touched before s (or is not served by the rule above) misses once: its first read in s (in core
//     order, then log order) is HBM traffic, its later reads in s hit when F(s) <= capacity.
// Writes are always HBM traffic (a write-back L2 writes the bytes out on eviction; no credit for overwritten lines).
// Granularity 32 B (the UB block; no neighbour prefetch credit). The L2 bandwidth bound of the hits is the model's.
#ifndef TWIN_KERNEL_L2_MODEL_H
#define TWIN_KERNEL_L2_MODEL_H

#include <cstdint>
#include <vector>

namespace twin {
struct PipeCounters;
struct CoreCounters;
namespace kernel {

struct L2Access {
    uintptr_t addr = 0;
    uint64_t bytes = 0;
    uint32_t stage = 0;
    bool write = false;
};

// One core's counted GM accesses in issue order (adjacent accesses of one stage and direction merged).
struct L2Log {
    std::vector<L2Access> accesses;
    void Note(uintptr_t addr, uint64_t bytes, uint32_t stage, bool write)
    {
        if (bytes == 0)
            return;
        if (!accesses.empty()) {
            L2Access& last = accesses.back();
            if (last.stage == stage && last.write == write && last.addr + last.bytes == addr) {
                last.bytes += bytes;
                return;
            }
        }
        accesses.push_back({addr, bytes, stage, write});
    }
};

// The capacity of TWIN_L2_BYTES (0 = off), read by Launch when it starts.
uint64_t L2CapacityFromEnv();

constexpr int kL2Variants = 3; // capacity, capacity / 2, 2 * capacity

// Read-hit bytes of each core per variant and stage: hits[core][variant][stage] (logs[core] may be nullptr).
std::vector<std::vector<std::vector<uint64_t>>> L2ReadHits(const std::vector<const L2Log*>& logs, uint64_t capacity);

// Adds a core's hits (hits[core] of L2ReadHits) to its counters: the final values and every stage snapshot
// (snapshot k holds stages 0..k).
void L2AddHits(CoreCounters& cc, const std::vector<std::vector<uint64_t>>& coreHits);

} // namespace kernel
} // namespace twin

#endif // TWIN_KERNEL_L2_MODEL_H
