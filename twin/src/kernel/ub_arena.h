// UB arenas of the AIV cores: pooled storage and lazy poisoning (internal to the twin's kernel side).
// Invariant: a 32-B UB block whose shadow byte and dirty byte are both 0 holds only kUbPoisonByte.
// Every UB write of the twin marks its blocks in the shadow, so only blocks with either byte set can
// differ from poison; UbPoisonRegion (InitBuffer) re-poisons just those and clears both bytes. The
// dirty map carries a recycled arena's written blocks over to its next launch (the shadow restarts at
// 0 there); a core that did not run to its end may have written unmarked bytes: its arena is all
// dirty. So every InitBuffer hands out all-poison bytes with a clear shadow, as a full memset would.
#pragma once
#include <cstdint>

#include "twin/kernel/core_context.h"

namespace twin {
namespace kernel {

// Gives an AIV core its arena (recycled when the pool holds one of its size), shadow and dirty map.
void UbArenaAttach(CoreContext& c);
// Returns the core's arena to the pool; `ranToEnd`: the core's kernel finished without an exception.
void UbArenaDetach(CoreContext& c, bool ranToEnd);
// Poisons [p, p + bytes) (32-B aligned offset and length) and clears its shadow: writes only the
// blocks that may differ from poison.
void UbPoisonRegion(CoreContext& c, uint8_t* p, uint64_t bytes);

} // namespace kernel
} // namespace twin
