// Source locations of the kernel's synchronisation calls and the "drop one sync point" switch of the
// hazard checker (issue 10: every SyncAll and pipe synchronisation of the kernel must be needed).
// The twin's declarations of SetFlag/WaitFlag, PipeBarrier, SyncAll, CrossCoreSetFlag/WaitFlag, the
// queue calls (AllocTensor/FreeTensor/EnQue/DeQue) and Matmul::IterateAll/WaitIterateAll take two
// twin-only trailing parameters defaulted to __builtin_FILE()/__builtin_LINE(), so a kernel call site
// is known without changing the kernel (the real signatures are otherwise unchanged).
//
// Site key: "<file>:<line>" where <file> is the path from "op_kernel/" on (else the base name), plus
// "#<16 hex digits>": a hash of the call stack's return addresses (module-relative, so stable across
// runs of one build). The hash tells apart the callers of a kernel helper that wraps the sync call
// (dcn_common.h's PipeSync) and the instantiations of a template kernel function.
// Environment, read at each launch (only while the hazard checker is on):
//   TWIN_DROP_SYNC=<key>[,<key>...]  the site(s) matching a key ("file:line" = every caller,
//                             "file:line#hash" = one call stack) keep executing (flags, barriers, queues behave as
//                             usual, so the run is deterministic and the flag rules stay quiet) but create no ordering
//                             edge for the hazard checker;
//   TWIN_SYNC_SITES=<path>    appends "<kind>\t<key>\t<module>+0x<off>;0x<off>..." (the 4 innermost
//                             kernel frames, for addr2line -i on a build with debug info) for every site whose ordering
//                             edge was used (a wait, barrier or SyncAll when executed; a flag-setting call when a
//                             kernel-site wait consumed its flag), once per key and path per process.
#pragma once
#include <cstdint>

#include "twin/kernel/kernel_types.h"

namespace twin {
namespace kernel {

struct CoreContext;

struct SyncLoc {
    const char* file = nullptr; // nullptr: a call of the twin's own library internals (never listed/dropped)
    int line = 0;
};

// True when this site's ordering edge is dropped; records the site in the listing as "kind<detail>"
// (e.g. "SetFlag" + "MTE2_V", "PipeBarrier" + "PIPE_V", "SyncAll", "TQue::EnQue" + "MTE2_V").
bool HzSiteDropped(CoreContext& c, const char* kind, const SyncLoc& loc, const char* detail = nullptr);
// A site that sets flag (e, id) (SetFlag, FreeTensor, EnQue): true when dropped; it is listed only
// when a wait at a kernel site consumes the flag (HzSiteConsumed), so a FreeTensor whose flag only
// TPipe::Destroy/Reset waits (followed by PIPE_ALL) is not a site.
bool HzSiteSetDropped(CoreContext& c, const char* kind, const SyncLoc& loc, AscendC::HardEvent e, int32_t id);
void HzSiteConsumed(CoreContext& c, AscendC::HardEvent e, int32_t id, bool byKernelSite);

} // namespace kernel
} // namespace twin
