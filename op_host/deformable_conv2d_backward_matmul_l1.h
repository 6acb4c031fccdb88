// L1 plan of one stage-1 Matmul tile (singleM x singleN over singleK) for the Norm scheduler of the Matmul
// library (the kernel's kDcnMatmulCfg = GetNormalConfig): baseK, iterate order, steps and L1 depths that load
// the fewest A and B elements from GM. Pure (no CANN types): the TilingFunc writes the result into the
// TCubeTiling that GetTiling returned (TCubeTiling docs: a tiling may be adjusted after GetTiling within
// the documented constraints), so the chip and the twin run the same plan.
//
// What the library does with it (CANN 8.1.RC1 highlevel_api/impl/matmul): one GM->L1 ND2NZ copy per base
// block (baseM x baseK of A, baseK x baseN of B; stage/copy_cube_in/base/copy_cube_in_norm.h LoadData).
// iterateOrder 1 (ORDER_N) keeps A: its cache (index = m block of the stepM group x kIter + K block) lives
// over all n blocks and is reset per group of stepM m blocks; B (index = K block) is reset per (n block,
// group). iterateOrder 0 (ORDER_M) is the mirror image (scheduler/base/scheduler_norm_base.h
// MoveOnIterateOrderM/N). A cache keeps depth blocks when K is fully loaded (depth >= kIter x step), the
// first depth - 2 indexes when not and depth > 2, none otherwise or when kIter = 1 and depth = 2
// (resource/cube_in_buffer/cube_in_buffer_normal.h Init/Hit); a kept block loads once per reset period.
//
// Constraints met (TCubeTiling docs): baseK a multiple of 16 elements (A is transposed);
// baseM x baseK x elt x 2 <= L0A and baseN x baseK x elt x 2 <= L0B (dbL0A = dbL0B = 2);
// depthA1 = stepM x stepKa, depthB1 = stepN x stepKb (L1 double buffer flag 1);
// depthA1 x baseM x baseK x elt + depthB1 x baseN x baseK x elt <= L1 (no bias).
#ifndef DEFORMABLE_CONV2D_BACKWARD_MATMUL_L1_H
#define DEFORMABLE_CONV2D_BACKWARD_MATMUL_L1_H

#include <cstdint>

namespace dcn {

struct MatmulL1Limits {
    uint64_t l0aBytes = 0;
    uint64_t l0bBytes = 0;
    uint64_t l1Bytes = 0;
    uint64_t l0cBytes = 0; // PlanStage1Matmul only: baseM x baseN x 4 (fp32, dbL0C = 1) must fit
};

struct MatmulL1Plan {
    int32_t baseK = 0;
    int32_t iterateOrder = 0; // 0: ORDER_M (B kept over the m loop), 1: ORDER_N (A kept over the n loop)
    int32_t stepM = 1, stepN = 1, stepKa = 1, stepKb = 1;
    int32_t depthA1 = 1, depthB1 = 1;
    uint64_t l1Bytes = 0;    // the A and B caches
    uint64_t loadElems = 0;  // planned GM->L1 elements of one full tile (A and B, reloads included)
    uint64_t loadBlocks = 0; // planned GM->L1 block copies of one full tile
};

// Blocks an operand's Norm L1 cache keeps between two resets (cube_in_buffer_normal.h Init).
uint64_t NormCachedBlocks(uint64_t depth, uint64_t kIter, uint64_t step);

// false when no plan fits (a base block alone exceeds L0 or L1, or a size is not positive).
bool PlanMatmulL1(
    int64_t singleM, int64_t singleN, int64_t singleK, int64_t baseM, int64_t baseN, int64_t eltBytes,
    const MatmulL1Limits& limits, MatmulL1Plan& plan);

// The plan of one stage-1 tile: the base block (TCubeTiling baseM x baseN, passed to SetFixSplit) and the
// L1 plan over it.
struct Stage1MatmulPlan {
    int32_t baseM = 0, baseN = 0;
    MatmulL1Plan l1;
};

// Modelled AIC cycles of one IterateAll of m x n x k (a full tile or a tail tile: its own sizes) under
// `plan`, with the NPU time model's costs (scripts/perf_model.py; twin/src/kernel/cost_table.cpp MatmulCost and
// pipe_timeline.cpp MatmulDuration): MTE2 = block loads x 16 cycles + loaded bytes / 32 B per cycle; M = the Cube
// formula sum(ceil_m x ceil_n x ceil_k) / (16 x 16 x cube_k) + 32 cycles per Mmad; MTE1 = L1->L0A bytes / 256 +
// L1->L0B bytes / 128 per cycle; FIX = one 16-cycle store per base block + C bytes / 32. The four pipes overlap: the
// time is the busiest pipe plus one unit (block load, Mmad, store) of each of the others. A planning weight only:
// the chip runs the plan whatever the constants are. (Until session 25 a transfer weighed 500 cycles, the model's
// cost before session 18: it made the tile search prefer fewer, larger tiles, e.g. 20 G tiles for 24 cube cores.)
double Stage1TileCycles(int64_t m, int64_t n, int64_t k, const Stage1MatmulPlan& plan, int64_t eltBytes);

// The base block and L1 plan of a singleM x singleN x singleK tile with the fewest modelled cycles
// (Stage1TileCycles): baseM, baseN from {64, 128, 192, 256} and the axis itself rounded up to 16 when it is
// shorter than 256 (baseM <= singleM rounded up to 16, baseN <= singleN rounded up to C0 = 32 B, multiples
// of 16: SetFixSplit docs), baseM x baseN x 4 <= L0C; on an axis shorter than 16 elements of C0 alignment
// (fp32 N < 9) the base is 16 (SetFixSplit then leaves that axis to the tiling: pass -1). Ties keep the
// earlier candidate (larger baseM, then larger baseN). false when no base fits.
bool PlanStage1Matmul(
    int64_t singleM, int64_t singleN, int64_t singleK, int64_t eltBytes, const MatmulL1Limits& limits,
    Stage1MatmulPlan& plan);

} // namespace dcn

#endif // DEFORMABLE_CONV2D_BACKWARD_MATMUL_L1_H
