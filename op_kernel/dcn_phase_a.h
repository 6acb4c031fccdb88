// Phase A of a chunk c > 0 whose fold writes no grad_input (deformable_conv2d_backward.cpp ChunkLoop): chunk c-1's
// fold units (Stage3Finalize::FoldUnit: block sums on the vector pipe) and chunk c's rearrangement tiles
// (Stage0Rearrange::RunUnit: transposes bound by their DMAs) interleaved on each vector core, in the buffers of one
// Stage3Finalize (its transpose runner carries the tiles), so that the fold's vector work runs beside the tiles' DMAs
// instead of before them.
// Units: vector core i takes its fold units and its rearrangement units in snake order (SnakeUnit, as the two stages
// run alone) and merges its two sequences in proportion, a rearrangement tile first: the next
// unit is a fold unit while folded * rearrangeCount < rearranged * foldCount (or no tile is left). Each unit writes the
// GM range it writes in its own stage, and the two read nothing the other writes (fold: chunk c-1's part ->
// grad_offset; rearrangement: gradOutput, offsetOut -> got, dcol), so the results are those of the two stages run one
// after the other.
#ifndef DCN_PHASE_A_H
#define DCN_PHASE_A_H

#include "dcn_stage0_rearrange.h"
#include "dcn_stage3_finalize.h"

namespace dcn_kernel {

// prev: chunk c-1 (its fold; AccFlushAfter(prev) false), cur: chunk c (its rearrangement); t: the tensors of chunk c
// (the fold reads part and writes grad_offset only). feed: the G GEMM of chunk c, ticked before each rearrangement
// unit as in Stage0Rearrange::Run (nullptr: none).
template <typename T>
__aicore__ inline void RunFoldBesideRearrange(
    AscendC::TPipe& pipe, const DcnParams& prev, const DcnParams& cur, const DcnTensors<T>& t, int64_t aivIdx,
    Stage1Feed<T>* feed)
{
    Stage3Finalize<T> fold;
    fold.InitBuffers(pipe);
    const int64_t lanes = cur.usedVecCores;
    const int64_t nFold = fold.FoldUnits(prev);
    const typename Stage0Rearrange<T>::Plan re = Stage0Rearrange<T>::MakePlan(cur, Stage0Part::kChunk);
    const int64_t nRe = re.total;
    const int64_t mineFold = SnakeCount(nFold, aivIdx, lanes);
    const int64_t mineRe = SnakeCount(nRe, aivIdx, lanes);
    int64_t folded = 0, rearranged = 0;
    while (folded < mineFold || rearranged < mineRe) {
        if (folded < mineFold && (rearranged == mineRe || folded * mineRe < rearranged * mineFold)) {
            if (folded > 0) {
                AscendC::PipeBarrier<PIPE_V>(); // the previous fold unit's vector reads of acc precede its next writes
            }
            fold.FoldUnit(prev, t, SnakeUnit(folded, aivIdx, lanes));
            ++folded;
        } else {
            if (feed != nullptr) {
                feed->Tick(rearranged, mineRe);
            }
            Stage0Rearrange<T>::RunUnit(cur, t, re, SnakeUnit(rearranged, aivIdx, lanes), fold.Runner());
            ++rearranged;
        }
    }
    pipe.Reset(); // the SyncAll that follows starts with PipeBarrier<PIPE_ALL>
}

}  // namespace dcn_kernel

#endif  // DCN_PHASE_A_H
