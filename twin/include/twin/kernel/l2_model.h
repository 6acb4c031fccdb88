// L2 model of a launch: which GM accesses the chip's L2 cache would absorb instead of HBM, for the chip-wide HBM
// bound of scripts/perf_model.py (docs/performance.md). The other counters are the same whether it runs or not.
//
// On with TWIN_L2_BYTES=<capacity in bytes> in the environment when a launch starts (perf_model.py passes the
// chip's ini l2_size). Every counted GM access (the bytes of gmToUbBytes, ubToGmBytes, cubeGmReadBytes and
// cubeGmWriteBytes: DataCopy / DataCopyPad in both directions, atomic writes included, and each Matmul IterateAll's
// A, B, bias and C rows) is logged with its core and stage (the SyncAll calls the issuing core had made; a Matmul's
// accesses belong to the requesting AIV). When the cores have finished, the rule below marks the bytes the L2
// absorbs; they become the counters l2ReadHitBytes / l2WriteHitBytes of the issuing core (its stage snapshots
// included), and ...Half / ...Double for half and twice the capacity (the model's sensitivity).
//
// The L2 (asc-devkit guide, 设置合理的L2-CacheMode.md): MTE2 reads and MTE3 / Fixpipe writes go through it; when
// the data exceeds its capacity it replaces lines, writing old data back to GM first. So a read of a resident block
// costs no HBM, and a write costs HBM once per dirty stay of a block (its write-back), not once per write.
// Rule (an assumption; stage-granular, blocks of 32 B, the accesses of a stage taken in core order, then log order):
// F(s) = bytes of the distinct blocks the launch touches (reads or writes) in stage s. A block accessed in stage s
// is resident when
//   - it was last touched before s in stage p and F(p) + F(p+1) + ... + F(s) <= capacity (the sum counts a block
//     once per stage and stages p and s whole, so it is at least the LRU reuse distance), or
//   - it was accessed before in stage s and F(s) <= capacity.
// A read of a resident block hits. A write to a resident block that is dirty (written since it last entered the L2)
// hits: its write-back is already charged; any other write is charged (the block's future write-back) and makes
// the block dirty. A block found not resident has been written back and is clean.
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

// Hit bytes of one core: read[variant][stage], write[variant][stage].
struct L2CoreHits {
    std::vector<std::vector<uint64_t>> read, write;
};

// The hits of each core (logs[core] may be nullptr).
std::vector<L2CoreHits> L2Hits(const std::vector<const L2Log*>& logs, uint64_t capacity);

// Adds a core's hits to its counters: the final values and every stage snapshot (snapshot k holds stages 0..k).
void L2AddHits(CoreCounters& cc, const L2CoreHits& hits);

} // namespace kernel
} // namespace twin

#endif // TWIN_KERNEL_L2_MODEL_H
