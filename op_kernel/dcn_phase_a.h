// Phase A of a chunk c (deformable_conv2d_backward.cpp ChunkLoop) when its vector work can run beside its
// rearrangement: chunk c-1's fold units (Stage3Finalize::FoldUnit: block sums on the vector pipe; c > 0 and the fold
// writes no grad_input), chunk c's rearrangement tiles (Stage0Rearrange::RunUnit: transposes bound by their DMAs) and
// chunk c's shared-front records (Stage2Sample::RecordItem: vector levels and record stores; tiling recTiles > 0 when
// their buffers fit the UB beside the others, RecordSlotsBeside) interleaved on each vector core, so that the fold's
// and the records' vector work runs beside the tiles' DMAs instead of before or after them. The rearrangement's tiles
// go through the fold's transpose runner (Stage3Finalize::Runner), lean when the records are beside (one offset
// table, no cast or plane buffers: the rearrangement needs neither).
// Units: vector core i takes the units of each kind in snake order (SnakeUnit, as the stages run alone) and merges
// its sequences in proportion: the next unit is of the kind with the smallest share done (done * others' count
// compared), a rearrangement tile first, then a record item, then a fold unit at equal shares. Each unit writes the
// GM range it writes in its own stage, and none reads what another writes (fold: chunk c-1's part -> grad_offset;
// rearrangement: gradOutput, offsetOut -> got, dcol, xt; records: offset -> rec), so the results are those of the
// kinds run one after the other.
#ifndef DCN_PHASE_A_H
#define DCN_PHASE_A_H

#include "dcn_stage0_rearrange.h"
#include "dcn_stage2_sample.h"
#include "dcn_stage3_finalize.h"

namespace dcn_kernel {

// Whether a kind with share a / ma done (a < ma: units left) is behind one with b / mb (all done: b == mb).
__aicore__ inline bool ShareBehind(int64_t a, int64_t ma, int64_t b, int64_t mb)
{
    return a < ma && (b == mb || a * mb < b * ma);
}

// Gather-table slots of chunk p's records beside phase A's other units: 2, else 1, when the producer's buffers fit
// the UB (tiling ubBytes) beside the fold's buffers and the lean runner; 0: no records, or they run after the others.
template <typename T>
__aicore__ inline int64_t RecordSlotsBeside(const DcnParams& p, Stage2Sample<T>& fronts)
{
    if (p.recTiles == 0) {
        return 0;
    }
    const int64_t room = p.ubBytes - Stage3Finalize<T>::UbBytes(true);
    for (int64_t slots = 2; slots >= 1; --slots) {
        if (fronts.RecordsUbBytes(p, slots) <= room) {
            return slots;
        }
    }
    return 0;
}

// prev: chunk c-1 (its fold; AccFlushAfter(*prev) false), nullptr: no fold; cur: chunk c (its rearrangement and
// records); t: the tensors of chunk c (the fold reads part and writes grad_offset only). feed: the G GEMM of chunk c,
// ticked before each rearrangement unit as in Stage0Rearrange::Run (nullptr: none). recordSlots: RecordSlotsBeside
// (0: the records are not run here).
template <typename T>
__aicore__ inline void RunPhaseA(
    AscendC::TPipe& pipe, const DcnParams* prev, const DcnParams& cur, const DcnTensors<T>& t, int64_t aivIdx,
    Stage1Feed<T>* feed, Stage2Sample<T>& fronts, int64_t recordSlots)
{
    Stage3Finalize<T> fold;
    fold.InitBuffers(pipe, recordSlots > 0);
    const int64_t lanes = cur.usedVecCores;
    const int64_t nFold = prev != nullptr ? fold.FoldUnits(*prev) : 0;
    const typename Stage0Rearrange<T>::Plan re = Stage0Rearrange<T>::MakePlan(cur, Stage0Part::kChunk);
    const int64_t mineFold = SnakeCount(nFold, aivIdx, lanes);
    const int64_t mineRe = SnakeCount(re.total, aivIdx, lanes);
    const int64_t mineRec = recordSlots > 0 ? fronts.BeginRecords(pipe, cur, t, aivIdx, recordSlots) : 0;
    int64_t folded = 0, rearranged = 0, recorded = 0;
    while (folded < mineFold || rearranged < mineRe || recorded < mineRec) {
        if (rearranged < mineRe && !ShareBehind(recorded, mineRec, rearranged, mineRe) &&
            !ShareBehind(folded, mineFold, rearranged, mineRe)) {
            if (feed != nullptr) {
                feed->Tick(rearranged, mineRe);
            }
            Stage0Rearrange<T>::RunUnit(cur, t, re, SnakeUnit(rearranged, aivIdx, lanes), fold.Runner());
            ++rearranged;
        } else if (recorded < mineRec && !ShareBehind(folded, mineFold, recorded, mineRec)) {
            fronts.RecordItem(aivIdx, recorded);
            ++recorded;
        } else {
            if (folded > 0) {
                AscendC::PipeBarrier<PIPE_V>(); // the previous fold unit's vector reads of acc precede its next writes
            }
            fold.FoldUnit(*prev, t, SnakeUnit(folded, aivIdx, lanes));
            ++folded;
        }
    }
    if (recordSlots > 0) {
        fronts.EndRecords();
    }
    pipe.Reset(); // the SyncAll that follows starts with PipeBarrier<PIPE_ALL>
}

}  // namespace dcn_kernel

#endif  // DCN_PHASE_A_H
