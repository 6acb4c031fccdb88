// Cost table of the twin (see twin/kernel/cost_table.h and twin/README.md "Cost model").
#include "twin/kernel/cost_table.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

namespace twin {
namespace cost {
namespace {

const char *const kVec = "Vector指令理论性能汇总.md";

// elements per `cycles` cycles, by element size (0 = any size). Widest operand for Cast and Axpy.
// clang-format off
const VecRate kVecRates[] = {
    // 表3 基础算术类: 128 (16-bit) / 64 (32-bit) element/cycle = one 256-B repeat per cycle
    {"Add", 2, 128, 1, false, kVec}, {"Add", 4, 64, 1, false, kVec},
    {"Sub", 2, 128, 1, false, kVec}, {"Sub", 4, 64, 1, false, kVec},
    {"Mul", 2, 128, 1, false, kVec}, {"Mul", 4, 64, 1, false, kVec},
    {"Max", 2, 128, 1, false, kVec}, {"Max", 4, 64, 1, false, kVec},
    {"Min", 2, 128, 1, false, kVec}, {"Min", 4, 64, 1, false, kVec},
    {"Adds", 2, 128, 1, false, kVec}, {"Adds", 4, 64, 1, false, kVec},
    {"Muls", 2, 128, 1, false, kVec}, {"Muls", 4, 64, 1, false, kVec},
    {"Maxs", 2, 128, 1, false, kVec}, {"Maxs", 4, 64, 1, false, kVec},
    {"Mins", 2, 128, 1, false, kVec}, {"Mins", 4, 64, 1, false, kVec},
    {"Abs", 2, 128, 1, false, kVec}, {"Abs", 4, 64, 1, false, kVec},
    {"Relu", 2, 128, 1, false, kVec}, {"Relu", 4, 64, 1, false, kVec},
    {"Rsqrt", 2, 128, 1, false, kVec}, {"Rsqrt", 4, 64, 1, false, kVec},
    {"Reciprocal", 2, 128, 1, false, kVec}, {"Reciprocal", 4, 64, 1, false, kVec},
    // 表3: 32 element/cycle for half and float
    {"Div", 2, 32, 1, false, kVec}, {"Div", 4, 32, 1, false, kVec},
    {"Exp", 2, 32, 1, false, kVec}, {"Exp", 4, 32, 1, false, kVec},
    {"Ln", 2, 32, 1, false, kVec}, {"Ln", 4, 32, 1, false, kVec},
    {"Sqrt", 2, 32, 1, false, kVec}, {"Sqrt", 4, 32, 1, false, kVec},
    // 表4 逻辑计算类: And int16_t/uint16_t 128
    {"And", 2, 128, 1, false, kVec},
    // 表5 复合计算类: Axpy half 128, float 64, half->float 64 (widest operand 4 B)
    {"Axpy", 2, 128, 1, false, kVec}, {"Axpy", 4, 64, 1, false, kVec},
    // 表6 比较与选择类 (Compare, Compares; CompareScalar is the twin's name of the Compares form)
    {"Compare", 2, 128, 1, false, kVec}, {"Compare", 4, 64, 1, false, kVec},
    {"Compares", 2, 128, 1, false, kVec}, {"Compares", 4, 64, 1, false, kVec},
    {"CompareScalar", 2, 128, 1, false, kVec}, {"CompareScalar", 4, 64, 1, false, kVec},
    {"Select", 2, 128, 1, false, kVec}, {"Select", 4, 64, 1, false, kVec},
    {"GatherMask", 2, 64, 1, false, kVec}, {"GatherMask", 4, 32, 1, false, kVec},
    // 表7 类型转换类: 128 when both types are <= 2 B, 64 when the widest is 4 B, 32 with int64
    {"Cast", 1, 128, 1, false, kVec}, {"Cast", 2, 128, 1, false, kVec}, {"Cast", 4, 64, 1, false, kVec},
    {"Cast", 8, 32, 1, false, kVec},
    // 表8 归约计算类: ReduceRepeat (the WholeReduce* instruction) half 128/7, float 64/7
    {"WholeReduceSum", 2, 128, 7, false, kVec}, {"WholeReduceSum", 4, 64, 7, false, kVec},
    // 表8: ReduceDataBlock (the BlockReduceSum instruction) half 128/7, float 64
    {"BlockReduceSum", 2, 128, 7, false, kVec}, {"BlockReduceSum", 4, 64, 1, false, kVec},
    // 表10 数据填充类: Duplicate 128 / 64
    {"Duplicate", 2, 128, 1, false, kVec}, {"Duplicate", 4, 64, 1, false, kVec},
    // 表10: Brcb output 128 (b16) / 64 (b32) elements per cycle (input 8)
    {"Brcb", 2, 128, 1, false, kVec}, {"Brcb", 4, 64, 1, false, kVec},
    // 表9 数据排布转换类: TransDataTo5HD 128 (16-bit) / 64 (32-bit) element/cycle
    {"TransDataTo5HD", 2, 128, 1, false, kVec}, {"TransDataTo5HD", 4, 64, 1, false, kVec},
    // 表12 离散与聚合类: Gather 5 element/cycle for every data type
    {"Gather", 0, 5, 1, true, kVec},
    // 表12: Gatherb uint16_t 42, uint32_t 21 element/cycle
    {"Gatherb", 2, 42, 1, false, kVec}, {"Gatherb", 4, 21, 1, false, kVec},
};
// clang-format on

const Constant kConstants[] = {
    {"dma_transfer_cycles", 16,
     "cycles a DataCopy/DataCopyPad call (MTE2, MTE3) or a Matmul block load/store (AIC MTE2, FIX) occupies its pipe "
     "beyond its bytes",
     true,
     "assumption derived from a measurement: asc-devkit examples/01_simd_cpp_api/05_best_practices/04_memory_access/"
     "data_copy/README.md, Atlas A2/A3 scenario 1 (48 AIV, 49,152 DataCopyPad calls of 128 B each per core, "
     "aiv_mte2_time 548.161 us): about 20 cycles per call at 1.8 GHz, 4 of them the 128 B at 32 B/cycle; a call's "
     "latency is dma_latency_cycles, not pipe time"},
    {"dma_latency_cycles", 300,
     "cycles from the end of a transfer's pipe time to its data being visible (a flag set by MTE2/MTE3/FIX, a "
     "barrier or SyncAll waits for it); twice per Matmul request (first load, last store)",
     true,
     "assumption: Huawei's A2/A3 cost model (hicann/pypto framework/src/cost_model/simulation_ca/A2A3/"
     "SimulatorA2A3.cpp: GM read latency 307, write 153 cycles); the asc-devkit add_high_performance example's "
     "measured single-core round trips expose about 95-190 cycles per dependent 8 KB read"},
    {"gm_read_cycles_per_byte", 1.0 / 32, "cycles per byte GM->UB / GM->L1 on one core", true,
     "assumption: RUNTIME Ascend910B*.ini ddr_rate=32 read as bytes/cycle/core (units undocumented, "
     "cann-conventions.md 5)"},
    {"gm_write_cycles_per_byte", 1.0 / 32, "cycles per byte UB->GM / L0C->GM on one core (atomic add included)", true,
     "assumption: same ini ddr_rate=32 as reads"},
    {"scalar_ub_cycles", 4, "cycles per LocalTensor GetValue/SetValue (PIPE_S)", true,
     "assumption: a scalar UB access; the tables give 1 cycle per scalar ALU instruction (Vector table 14) but no "
     "load/store cost"},
    {"scalar_gm_cycles", 200, "cycles per GlobalTensor GetValue/SetValue (PIPE_S, through the DataCache)", true,
     "assumption: one DataCache miss to GM; hits (same 64-B line) are cheaper (guide: Scalar读写数据.md)"},
    {"ub_copy_cycles_per_byte", 1.0 / 256, "cycles per byte of DataCopy UB->UB (PIPE_V, API流水类型汇总.md)", true,
     "assumption: one 256-B repeat per cycle like Duplicate (table 10); DataCopy UB->UB is not in the tables"},
    {"vec_unlisted_cycles_per_repeat", 1,
     "cycles per 256-B repeat of a vector API without a table entry (Copy, ReduceSum)", true,
     "assumption: one repeat per cycle; ReduceSum is software-emulated (table 8: 软仿指令), its passes are not "
     "modelled"},
    {"mmad_head_cycles", 32, "cycles of head overhead per Mmad (the delta-t of the Cube formula)", true,
     "assumption: Cube指令理论性能汇总.md names the head overhead but gives no value"},
    {"scalar_issue_cycles", 8, "scalar (PIPE_S) cycles to issue one vector or DMA instruction", true,
     "assumption: about 8 scalar instructions (operand addresses, repeat/stride/mask set-up) at 1 cycle each (Vector "
     "table 14: scalar ALU 1 cycle)"},
    {"flag_cycles", 16, "cycles a WaitFlag occupies its pipe after the flag is set (set_flag -> wait_flag latency)",
     true, "assumption: no official figure (SetFlag-WaitFlag docs give none)"},
    {"pipe_barrier_cycles", 16,
     "cycles a PipeBarrier<PIPE_V> holds the vector pipe (the instructions before it complete before any after it "
     "starts)",
     true,
     "assumption: no official figure (PipeBarrier docs name the cost, not its size; the tables give throughputs, "
     "not latencies); taken equal to flag_cycles. The barrier's scalar issue (no operands) is not counted"},
    {"syncall_cycles", 1000,
     "cycles of one hard SyncAll after the last core arrives (scalar unit of every participant)", true,
     "assumption: cross-core barrier latency, no official figure (SyncAll docs give none)"},
};

const PipeTerm kPipeTerms[] = {
    {"V", "vecCycles", nullptr},
    {"V", "vecUnlistedRepeats", "vec_unlisted_cycles_per_repeat"},
    {"V", "ubToUbBytes", "ub_copy_cycles_per_byte"},
    {"S", "scalarUbOps", "scalar_ub_cycles"},
    {"S", "scalarGmOps", "scalar_gm_cycles"},
    {"MTE2", "gmToUbCopies", "dma_transfer_cycles"},
    {"MTE2", "gmToUbBytes", "gm_read_cycles_per_byte"},
    {"MTE2", "cubeGmReadTransfers", "dma_transfer_cycles"},
    {"MTE2", "cubeGmLoadBytes", "gm_read_cycles_per_byte"},
    {"MTE3", "ubToGmCopies", "dma_transfer_cycles"},
    {"MTE3", "ubToGmBytes", "gm_write_cycles_per_byte"},
    {"M", "cubeCycles", nullptr},
    {"M", "mmadCalls", "mmad_head_cycles"},
    {"MTE1", "mte1Cycles", nullptr},
    {"FIX", "cubeGmWriteTransfers", "dma_transfer_cycles"},
    {"FIX", "cubeGmWriteBytes", "gm_write_cycles_per_byte"},
    {"S", "vecIssued", "scalar_issue_cycles"},
    {"S", "gmToUbCopies", "scalar_issue_cycles"},
    {"S", "ubToGmCopies", "scalar_issue_cycles"},
    {"S", "syncAllCount", "syncall_cycles"},
    {"S", "waitFlagsS", "flag_cycles"},
    {"V", "waitFlagsV", "flag_cycles"},
    {"V", "pipeBarriersV", "pipe_barrier_cycles"},
    {"MTE2", "waitFlagsMTE2", "flag_cycles"},
    {"MTE3", "waitFlagsMTE3", "flag_cycles"},
    {"MTE1", "waitFlagsMTE1", "flag_cycles"},
    {"M", "waitFlagsM", "flag_cycles"},
    {"FIX", "waitFlagsFIX", "flag_cycles"},
};

const char *const kPipes[] = {"MTE2", "V", "S", "MTE3", "MTE1", "M", "FIX"};

uint64_t CeilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// Sum over the blocks of one dimension of the block size rounded up to `align` (the Mmad formula's
// ceil_m / ceil_n / ceil_k): full blocks of `base` plus the tail.
uint64_t AlignedBlockSum(uint64_t total, uint64_t base, uint64_t align) {
    const uint64_t full = total / base, tail = total % base;
    return full * CeilDiv(base, align) * align + (tail ? CeilDiv(tail, align) * align : 0);
}

// The table entry of (api, elemBytes): the first whose element size matches (0: any). The hot path caches it per
// core (vec_engine.h ChargeVector).
const VecRate* ScanRate(const char* api, uint32_t elemBytes)
{
    for (const VecRate& r : kVecRates)
        if ((r.elemBytes == 0 || r.elemBytes == elemBytes) && std::strcmp(r.api, api) == 0)
            return &r;
    return nullptr;
}

// ScanRate by name hash: per api name, ScanRate's answer for each element size 1, 2, 4 and 8 (every core
// misses its per-core cache once per key, so a launch on 48 cores would scan the table ~1,500 times).
const VecRate* LookUpRate(const char* api, uint32_t elemBytes)
{
    using BySize = std::array<const VecRate*, 4>; // elemBytes 1, 2, 4, 8
    static const std::unordered_map<std::string_view, BySize> byName = [] {
        std::unordered_map<std::string_view, BySize> m;
        for (const VecRate& r : kVecRates)
            if (m.count(r.api) == 0)
                m[r.api] = BySize{ScanRate(r.api, 1), ScanRate(r.api, 2), ScanRate(r.api, 4), ScanRate(r.api, 8)};
        return m;
    }();
    if (elemBytes == 0 || elemBytes > 8 || (elemBytes & (elemBytes - 1)) != 0)
        return ScanRate(api, elemBytes);
    const auto it = byName.find(std::string_view(api));
    return it == byName.end() ? nullptr : it->second[static_cast<size_t>(__builtin_ctz(elemBytes))];
}

}  // namespace

const Constant *Constants(size_t &count) {
    count = sizeof(kConstants) / sizeof(kConstants[0]);
    return kConstants;
}

double ConstantValue(const char *name) {
    for (const Constant &k : kConstants)
        if (std::strcmp(k.name, name) == 0) return k.value;
    throw std::out_of_range(std::string("twin cost table: unknown constant ") + name);
}

const PipeTerm *PipeTerms(size_t &count) {
    count = sizeof(kPipeTerms) / sizeof(kPipeTerms[0]);
    return kPipeTerms;
}

const char *const *Pipes(size_t &count) {
    count = sizeof(kPipes) / sizeof(kPipes[0]);
    return kPipes;
}

const VecRate *VectorRates(size_t &count) {
    count = sizeof(kVecRates) / sizeof(kVecRates[0]);
    return kVecRates;
}

bool CounterByName(const PipeCounters &c, const std::string &n, uint64_t &v) {
    if (n == "gmToUbBytes") v = c.gmToUbBytes;
    else if (n == "ubToGmBytes") v = c.ubToGmBytes;
    else if (n == "ubToUbBytes") v = c.ubToUbBytes;
    else if (n == "gmAtomicBytes") v = c.gmAtomicBytes;
    else if (n == "gmToUbCopies") v = c.gmToUbCopies;
    else if (n == "ubToGmCopies") v = c.ubToGmCopies;
    else if (n == "vecElemOps") v = c.vecElemOps;
    else if (n == "vecInstrs") v = c.vecInstrs;
    else if (n == "vecCycles") v = c.vecCycles;
    else if (n == "vecUnlistedRepeats") v = c.vecUnlistedRepeats;
    else if (n == "cubeMacs") v = c.cubeMacs;
    else if (n == "cubeCycles") v = c.cubeCycles;
    else if (n == "mmadCalls") v = c.mmadCalls;
    else if (n == "mte1Cycles") v = c.mte1Cycles;
    else if (n == "cubeGmReadBytes") v = c.cubeGmReadBytes;
    else if (n == "cubeGmLoadBytes")
        v = c.cubeGmLoadBytes;
    else if (n == "cubeGmWriteBytes") v = c.cubeGmWriteBytes;
    else if (n == "cubeGmReadTransfers") v = c.cubeGmReadTransfers;
    else if (n == "cubeGmWriteTransfers") v = c.cubeGmWriteTransfers;
    else if (n == "cubeMacsIssued") v = c.cubeMacsIssued;
    else if (n == "scalarGmOps") v = c.scalarGmOps;
    else if (n == "scalarUbOps") v = c.scalarUbOps;
    else if (n == "syncWaitNs") v = c.syncWaitNs;
    else if (n == "syncAllCount") v = c.syncAllCount;
    else if (n == "ubPeakBytes") v = c.ubPeakBytes;
    else if (n == "vecIssued")
        v = c.vecIssued;
    else if (n == "pipeBarriersV")
        v = c.pipeBarriersV;
    else if (n == "waitFlagsS")
        v = c.waitFlagsS;
    else if (n == "waitFlagsV")
        v = c.waitFlagsV;
    else if (n == "waitFlagsMTE2")
        v = c.waitFlagsMTE2;
    else if (n == "waitFlagsMTE3")
        v = c.waitFlagsMTE3;
    else if (n == "waitFlagsMTE1")
        v = c.waitFlagsMTE1;
    else if (n == "waitFlagsM")
        v = c.waitFlagsM;
    else if (n == "waitFlagsFIX")
        v = c.waitFlagsFIX;
    else if (n == "l2ReadHitBytes")
        v = c.l2ReadHitBytes;
    else if (n == "l2ReadHitBytesHalf")
        v = c.l2ReadHitBytesHalf;
    else if (n == "l2ReadHitBytesDouble")
        v = c.l2ReadHitBytesDouble;
    else if (n == "l2WriteHitBytes")
        v = c.l2WriteHitBytes;
    else if (n == "l2WriteHitBytesHalf")
        v = c.l2WriteHitBytesHalf;
    else if (n == "l2WriteHitBytesDouble")
        v = c.l2WriteHitBytesDouble;
    else return false;
    return true;
}

double PipeCycles(const PipeCounters &c, const char *pipe) {
    double sum = 0;
    for (const PipeTerm &t : kPipeTerms) {
        if (std::strcmp(t.pipe, pipe) != 0) continue;
        uint64_t v = 0;
        if (!CounterByName(c, t.counter, v)) throw std::logic_error(std::string("twin cost table: unknown counter ") + t.counter);
        sum += static_cast<double>(v) * (t.constant ? ConstantValue(t.constant) : 1.0);
    }
    return sum;
}

double TransferLatencyCycles(const PipeCounters& c)
{
    const uint64_t calls = c.gmToUbCopies + c.ubToGmCopies + c.cubeGmReadTransfers + c.cubeGmWriteTransfers;
    return static_cast<double>(calls) * ConstantValue("dma_latency_cycles");
}

const VecRate* FindVectorRate(const char* api, uint32_t elemBytes) { return LookUpRate(api, elemBytes); }

VecCost VectorCost(const char *api, uint32_t elemBytes, uint64_t elems) {
    return VectorCostFor(LookUpRate(api, elemBytes), elemBytes, elems);
}

namespace {
// ---- Matmul GM->L1 loads under the Norm scheduler (cost_table.h CubeTiling). Sources (CANN 8.1.RC1
// highlevel_api/impl/matmul): resource/cube_in_buffer/cube_in_buffer_normal.h (Init, AllocTensor, Hit),
// stage/copy_cube_in/base/copy_cube_in_norm.h (LoadData, GetIterIndexInner), scheduler/base/
// scheduler_norm_base.h (MoveOnIterateOrderM/N: CopyCubeInA/B Reset).
// Blocks of one operand kept in its L1 cache between two Resets (CubeInBuffer::Init with cacheNum = depth,
// reduceAxisCnt = kIter, GetMajorCacheNum = stepM for A, stepN for B): "k full load" (depth >= kIter x
// major) keeps depth blocks; "k not full load" with depth > 2 keeps the first depth - 2 cache indexes and
// streams the rest through 2 buffers; depth <= 2 keeps none when K is not fully loaded, nor when kIter = 1
// and depth = 2 (double buffering along m / n).
uint64_t NormCachedBlocks(uint64_t depth, uint64_t kIter, uint64_t major)
{
    const bool full = depth >= kIter * major;
    if (depth > 2)
        return full ? depth : depth - 2;
    if (!full || (kIter == 1 && depth == 2))
        return 0;
    return depth;
}

struct BlockLoads {
    uint64_t transfers = 0; // block loads (one ND2NZ DataCopy each)
    uint64_t elems = 0;     // elements loaded
};

// Elements of the first `blocks` K blocks of baseK (the last one the K tail).
uint64_t LeadingK(uint64_t blocks, uint64_t K, uint64_t baseK) { return std::min(blocks * baseK, K); }

// The operand reset after every inner group (ORDER_M: A, reset per (m, group of stepN n blocks); ORDER_N:
// B, per (n, group of stepM m blocks)). Cache index = its K block, so K blocks below `cache` load once per
// (row block, group) and the others once per (row block, group member). rows = its non-K extent.
BlockLoads InnerOperandLoads(
    uint64_t rows, uint64_t baseRows, uint64_t otherBlocks, uint64_t step, uint64_t K, uint64_t baseK, uint64_t cache)
{
    const uint64_t tk = CeilDiv(K, baseK), cached = std::min(cache, tk), keptK = LeadingK(cached, K, baseK);
    const uint64_t groups = CeilDiv(otherBlocks, step);
    BlockLoads l;
    // sum over groups of (cached + (tk - cached) x |group|) = groups x cached + (tk - cached) x otherBlocks
    l.transfers = CeilDiv(rows, baseRows) * (groups * cached + (tk - cached) * otherBlocks);
    l.elems = rows * (groups * keptK + (K - keptK) * otherBlocks);
    return l;
}

// The operand reset after the whole outer loop of its group (ORDER_M: B, per group of stepN n blocks, over
// all m; ORDER_N: A, per group of stepM m blocks, over all n). Cache index = member j of the group x kIter
// + K block: indexes below `cache` load once per group, the others once per block of the other axis.
BlockLoads OuterOperandLoads(
    uint64_t cols, uint64_t baseCols, uint64_t otherBlocks, uint64_t step, uint64_t K, uint64_t baseK, uint64_t cache)
{
    const uint64_t tk = CeilDiv(K, baseK), blocks = CeilDiv(cols, baseCols);
    BlockLoads l;
    for (uint64_t c0 = 0; c0 < blocks; ++c0) {
        const uint64_t j = c0 % step, len = std::min(baseCols, cols - c0 * baseCols);
        const uint64_t cached = cache > j * tk ? std::min(cache - j * tk, tk) : 0;
        const uint64_t keptK = LeadingK(cached, K, baseK);
        l.transfers += cached + (tk - cached) * otherBlocks;
        l.elems += len * (keptK + (K - keptK) * otherBlocks);
    }
    return l;
}
} // namespace

CubeCost MatmulCost(uint64_t M, uint64_t N, uint64_t K, uint64_t baseM, uint64_t baseN, uint64_t baseK, uint32_t elemBytes) {
    CubeTiling t;
    t.baseM = baseM;
    t.baseN = baseN;
    t.baseK = baseK;
    return MatmulCost(M, N, K, t, elemBytes);
}

CubeCost MatmulCost(uint64_t M, uint64_t N, uint64_t K, const CubeTiling& t, uint32_t elemBytes)
{
    CubeCost c;
    if (M == 0 || N == 0 || K == 0) return c;
    const uint64_t baseM = t.baseM ? t.baseM : M, baseN = t.baseN ? t.baseN : N, baseK = t.baseK ? t.baseK : K;
    // CUBE table 1 (NPU arch 2201): half/bf16 cube_k = k0 = 16; float cube_k = 4, k0 = 8.
    const uint64_t cubeK = elemBytes == 4 ? 4 : 16, k0 = elemBytes == 4 ? 8 : 16;
    const uint64_t sm = AlignedBlockSum(M, baseM, 16), sn = AlignedBlockSum(N, baseN, 16), sk = AlignedBlockSum(K, baseK, k0);
    const uint64_t tm = CeilDiv(M, baseM), tn = CeilDiv(N, baseN), tk = CeilDiv(K, baseK);
    // sum over blocks of ceil_m*ceil_n*ceil_k / (16*16*cube_k): separable into the three sums
    c.mCycles = CeilDiv(sm * sn * sk, 16 * 16 * cubeK);
    c.mmadCalls = tm * tn * tk;
    // every Mmad loads its A block into L0A and its B block into L0B (no L0 reuse across blocks)
    const uint64_t l0aBytes = tn * sm * sk * elemBytes, l0bBytes = tm * sk * sn * elemBytes;
    c.mte1Cycles = CeilDiv(l0aBytes, 256) + CeilDiv(l0bBytes, 128);
    // Norm scheduler L1 reuse (see cost_table.h): GM->L1 block loads of A and B.
    const uint64_t stepM = std::max<uint64_t>(t.stepM, 1), stepN = std::max<uint64_t>(t.stepN, 1);
    const uint64_t cacheA = NormCachedBlocks(std::max<uint64_t>(t.depthA1, 1), tk, stepM);
    const uint64_t cacheB = NormCachedBlocks(std::max<uint64_t>(t.depthB1, 1), tk, stepN);
    BlockLoads a, b;
    if (t.iterateOrder == 0) { // ORDER_M: A reset per (m, n group), B per n group
        a = InnerOperandLoads(M, baseM, tn, stepN, K, baseK, cacheA);
        b = OuterOperandLoads(N, baseN, tm, stepN, K, baseK, cacheB);
    } else { // ORDER_N: B reset per (n, m group), A per m group
        b = InnerOperandLoads(N, baseN, tm, stepM, K, baseK, cacheB);
        a = OuterOperandLoads(M, baseM, tn, stepM, K, baseK, cacheA);
    }
    c.gmReadTransfers = a.transfers + b.transfers;
    c.gmLoadBytes = (a.elems + b.elems) * elemBytes;
    c.gmWriteTransfers = tm * tn;
    return c;
}

}  // namespace cost
}  // namespace twin
