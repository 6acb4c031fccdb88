// Cross-core flags of the twin: CrossCoreSetFlag / CrossCoreWaitFlag (ASC-API 同步控制/核间同步, Atlas
// A2/A3). Signatures as CANN 8.1.RC1 declares them (basic_api/interface/kernel_operator_common_intf.h;
// the same in asc-devkit include/basic_api/kernel_operator_block_sync_intf.h):
//   template <uint8_t modeId, pipe_t pipe>          void CrossCoreSetFlag(uint16_t flagId);
//   template <uint8_t modeId = 0, pipe_t pipe = PIPE_S> void CrossCoreWaitFlag(uint16_t flagId);
// plus the twin-only trailing call-site parameters of every sync call (twin/kernel/sync_site.h).
//
// Model (asc-devkit docs CrossCoreSetFlag(ISASI).md, CrossCoreWaitFlag(ISASI).md, 关键特性说明.md):
//  - every AIC and every AIV core has 16 flag counters (flagId 0-15), each counting 0-15; a counter
//    that would exceed 15 is an error ("计数器的值超出该范围，则会异常报错");
//  - a set increments counters once every member of its group has set (one round per set of each
//    member): mode 0 = all AIC cores (an AIC setter) or all AIV cores (an AIV setter), each member's
//    counter; mode 1 = the AIV cores of one AI core (AIC + its 1 or 2 AIVs), each member's counter;
//    mode 2 = AIC -> each AIV of its AI core, or all AIVs of the AI core -> their AIC;
//  - a wait blocks the core until its counter of flagId is non-zero, then decrements it; on A2/A3 the
//    wait's modeId and pipe have no effect (8.1.RC1 dav_c220 WaitEventImpl: wait_flag_dev(flagId)).
// Rules (violation = launch error): modeId in {0, 1, 2}; flagId <= 15 (the chip would use the low 4
// bits: the twin is stricter); the set's pipe one of PIPE_V/M/MTE1/MTE2/MTE3/FIX (not PIPE_S/PIPE_ALL)
// and present on the core (no M/MTE1/FIX on AIV); the wait's pipe not PIPE_ALL; a MIX kernel type
// (mode 0: MIX_AIV_1_0/MIX_AIC_1_1/MIX_AIC_1_2, modes 1/2: MIX_AIC_1_1/MIX_AIC_1_2; AIV_ONLY and
// AIC_ONLY start no scheduling module); mode 1 only on AIV; flag IDs 11-14 not on a core that also
// uses hard SyncAll, IDs [0, 2N) not on a core with N Matmul objects (both use them internally);
// counter overflow (with the hazard checker on: a set whose delivery is not ordered after the
// receiver's wait 15 deliveries earlier, so the result does not depend on thread timing); a wait that
// can never be satisfied (deadlock report naming the cores and the flag); at kernel end a counter not
// waited down to 0 or a round some group members never completed (sets and waits must pair).
// Hazard checker: a completed round carries the join of its members' happens-before clocks to the
// receivers' waits (GM edge). Not modelled: the set's pipe (a set orders all of its core's earlier GM
// accesses, whatever pipe issued them; the chip only waits for that pipe's earlier instructions), the
// timeline stall of a wait (cross-core time is not costed), the reordering of consecutive sets.
#pragma once
#include <cstdint>

#include "twin/kernel/core_context.h"
#include "twin/kernel/kernel_types.h"
#include "twin/kernel/sync_site.h"

namespace twin {
namespace kernel {
// src/kernel/cross_core.cpp
void CrossCoreSet(const char* api, uint8_t modeId, pipe_t pipe, uint16_t flagId, const SyncLoc& loc);
void CrossCoreWait(const char* api, uint8_t modeId, pipe_t pipe, uint16_t flagId, const SyncLoc& loc);
} // namespace kernel
} // namespace twin

namespace AscendC {

template <uint8_t modeId, pipe_t pipe>
__aicore__ inline void CrossCoreSetFlag(
    uint16_t flagId, const char* file = __builtin_FILE(), int line = __builtin_LINE())
{
    twin::kernel::CrossCoreSet("CrossCoreSetFlag", modeId, pipe, flagId, {file, line});
}

template <uint8_t modeId = 0, pipe_t pipe = PIPE_S>
__aicore__ inline void CrossCoreWaitFlag(
    uint16_t flagId, const char* file = __builtin_FILE(), int line = __builtin_LINE())
{
    twin::kernel::CrossCoreWait("CrossCoreWaitFlag", modeId, pipe, flagId, {file, line});
}

} // namespace AscendC
