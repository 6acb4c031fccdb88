// Cost table of the twin: what each instruction costs a pipe of an Atlas A2/A3 core, in cycles.
// Sources (every entry is listed with its source in twin/README.md, "Cost model"):
//   VEC  = asc-devkit docs/zh/api/附录/Vector指令理论性能汇总.md (A2/A3 tables 3-12, element/cycle)
//   CUBE = asc-devkit docs/zh/api/附录/Cube指令理论性能汇总.md (Mmad formula, table 1; L1->L0 table 3)
//   PIPE = asc-devkit docs/zh/api/附录/API流水类型汇总.md (which pipe executes which API)
// Numbers the documentation does not give are Constants with assumed=true; the twin only counts the
// quantities they multiply (transfers, bytes, scalar accesses, ...) and PipeTerms() says which counter
// times which constant makes up which pipe's cycles, so scripts/perf_model.py can vary each assumed
// constant (x0.5, x2) without rerunning the kernel. Invariant: PipeCycles(c, pipe) ==
// sum over PipeTerms() of that pipe of counter * (constant or 1).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include "twin/launch.h"

namespace twin {
namespace cost {

// A named number of the cost model. unit: what one unit of `value` is (cycles per transfer, ...).
struct Constant {
    const char *name;
    double value;
    const char *unit;
    bool assumed;        // true: not in the official tables (the printed sensitivity varies it)
    const char *source;  // document or reasoning
};
const Constant *Constants(size_t &count);
double ConstantValue(const char *name);   // throws std::out_of_range for an unknown name

// One additive term of a pipe's cycles: counter (a PipeCounters field name) x constant
// (constant == nullptr: the counter is already in cycles).
struct PipeTerm {
    const char *pipe;       // "V", "S", "MTE2", "MTE3" (AIV); "M", "MTE1", "MTE2", "FIX" (AIC)
    const char *counter;
    const char *constant;
};
const PipeTerm *PipeTerms(size_t &count);
const char *const *Pipes(size_t &count);          // pipe names in print order

// PipeCounters field by name (the names of twin/launch.h); false for an unknown name.
bool CounterByName(const PipeCounters &c, const std::string &name, uint64_t &value);
// Cycles of one pipe from the counters and the default constants.
double PipeCycles(const PipeCounters &c, const char *pipe);
// Transfer calls (DataCopy both ways, Matmul block loads and stores) x dma_latency_cycles: what a run with no
// overlap at all adds to the sum of its pipes (the serial bound of the timeline).
double TransferLatencyCycles(const PipeCounters& c);

// ---- vector (PIPE_V) ------------------------------------------------------------------------
// Cycles of one vector instruction `api` that issues `elems` elements of `elemBytes` bytes (the
// widest operand type). Repeat-based instructions issue whole 256-B repeats (elems = repeats x
// 256/elemBytes; a masked repeat costs a full one); Gather costs per element. An api without a table
// entry (Copy, ReduceSum — software-emulated —, ...) returns 0 and sets `unlistedRepeats` to the
// repeats it issued; they are charged with the assumed constant vec_unlisted_cycles_per_repeat.
struct VecCost {
    uint64_t cycles = 0;
    uint64_t unlistedRepeats = 0;
};
VecCost VectorCost(const char *api, uint32_t elemBytes, uint64_t elems);

// The listed rates, for the documentation test: api, element bytes, elements per `cycles` cycles.
struct VecRate {
    const char *api;
    uint32_t elemBytes;
    uint32_t elems;
    uint32_t cycles;
    bool perElement;     // Gather: elements are not rounded up to repeats
    const char *source;
};
const VecRate *VectorRates(size_t &count);

// The table entry VectorCost uses for (api, elemBytes); nullptr when the api has none (unlisted).
const VecRate* FindVectorRate(const char* api, uint32_t elemBytes);
// a / b rounded up, with a shift when b is a power of two (every repeat width and most rates).
inline uint64_t CeilDivFast(uint64_t a, uint64_t b)
{
    return (b & (b - 1)) == 0 ? (a + b - 1) >> __builtin_ctzll(b) : (a + b - 1) / b;
}
// VectorCost given the entry, so that a caller may cache the lookup (ChargeVector does, per core):
// VectorCost(api, b, n) == VectorCostFor(FindVectorRate(api, b), b, n).
inline VecCost VectorCostFor(const VecRate* r, uint32_t elemBytes, uint64_t elems)
{
    VecCost cost;
    if (elems == 0 || elemBytes == 0)
        return cost;
    const uint64_t perRepeat = 256 / elemBytes;
    if (r == nullptr) {
        cost.unlistedRepeats = CeilDivFast(elems, perRepeat);
        return cost;
    }
    const uint64_t issued = r->perElement ? elems : CeilDivFast(elems, perRepeat) * perRepeat;
    cost.cycles = CeilDivFast(issued * r->cycles, r->elems);
    return cost;
}

// ---- cube (AIC: PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_FIX) ---------------------------------------
// One Matmul IterateAll of M x N x K split into base blocks baseM x baseN x baseK (TCubeTiling), one
// Mmad per block, A and B elements of elemBytes (fp32: 4, half/bf16: 2).
// GM->L1 loads follow the Norm scheduler of the Matmul library (CANN 8.1.RC1 highlevel_api/impl/matmul/
// scheduler/base/scheduler_norm_base.h MoveOnIterateOrderM/N, stage/copy_cube_in/base/copy_cube_in_norm.h
// GetIterIndexInner, resource/cube_in_buffer/cube_in_buffer_normal.h Init/Hit): one load per base block
// (baseM x baseK of A, baseK x baseN of B; one ND2NZ DataCopy) and visit. iterateOrder 0 (ORDER_M) walks n
// groups of stepN outside, m inside, the group's n blocks innermost: A (cache index = K block) is reset
// after every (m, group), B (index = member of the group x kIter + K block) after every group. iterateOrder 1
// (ORDER_N) is the mirror image (B reset per (n, group of stepM m blocks), A per group). An operand's L1
// cache keeps depth blocks when K is fully loaded (depth >= kIter x stepM for A, x stepN for B), the first
// depth - 2 indexes when it is not and depth > 2 (the other blocks stream through 2 buffers), none when
// depth <= 2 and K is not fully loaded or kIter = 1 and depth = 2; a kept block loads once per reset period,
// any other once per use. MDL and other schedulers are costed the same way (not modelled).
struct CubeTiling {
    uint64_t baseM = 0, baseN = 0, baseK = 0; // 0: the whole dimension
    uint64_t stepM = 1, stepN = 1, depthA1 = 1, depthB1 = 1;
    int iterateOrder = 0;
};
struct CubeCost {
    uint64_t mCycles = 0;        // sum of the Mmad formula without its head overhead (CUBE table 1)
    uint64_t mmadCalls = 0;      // Mmad instructions (head overhead: assumed constant)
    uint64_t mte1Cycles = 0;     // L1->L0A at 256 B/cycle + L1->L0B at 128 B/cycle (CUBE table 3)
    uint64_t gmReadTransfers = 0;   // GM->L1 block loads (reloads included)
    uint64_t gmWriteTransfers = 0;  // L0C->GM block stores
    uint64_t gmLoadBytes = 0;       // GM->L1 bytes of A and B, reloads included (MTE2)
};
CubeCost MatmulCost(uint64_t M, uint64_t N, uint64_t K, const CubeTiling& t, uint32_t elemBytes);
// Every block loaded once per visit without L1 reuse across blocks (stepM = stepN = depth = 1).
CubeCost MatmulCost(uint64_t M, uint64_t N, uint64_t K, uint64_t baseM, uint64_t baseN, uint64_t baseK, uint32_t elemBytes);

}  // namespace cost
}  // namespace twin
