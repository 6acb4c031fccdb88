// Flag states of SetFlag/WaitFlag (one bit per core, HardEvent and event ID, as on the chip) and the
// end-of-kernel flag check. Every transition is also an ordering edge for the hazard checker.
#include "twin/kernel/sync_sys.h"
#include "twin/kernel/sync_site.h"

namespace twin {
namespace kernel {

static std::string FlagName(AscendC::HardEvent e, int32_t id) {
    return std::string("<HardEvent::") + HardEventName(e) + ">(" + std::to_string(id) + ")";
}

static void CheckId(const char *api, int32_t id) {
    if (id < 0 || id >= AscendC::kTwinEventIdsPerEvent) Violation(api, "eventID must be in [0, 7]; got " + std::to_string(id));
}

void FlagSet(const char* api, CoreContext& c, AscendC::HardEvent e, int32_t id, const SyncLoc& loc)
{
    CheckId(api, id);
    bool &set = c.flagSet[static_cast<int>(e)][id];
    if (set)
        Violation(api, std::string("SetFlag") + FlagName(e, id) + " on a flag that is already set (by " + c.flagSetBy[static_cast<int>(e)][id] +
                           ") and not yet waited: a second SetFlag before the WaitFlag is undefined on the chip (it hangs at the next "
                           "PIPE_ALL barrier; SetFlag/WaitFlag docs) and its WaitFlag would consume the other owner's flag");
    set = true;
    c.flagSetBy[static_cast<int>(e)][id] = api;
    if (c.hz != nullptr)
        HzFlagSet(c, e, id, HzSiteSetDropped(c, api, loc, e, id));
    TlFlagSet(c, e, id);
}

void FlagWait(const char* api, CoreContext& c, AscendC::HardEvent e, int32_t id, const SyncLoc& loc)
{
    CheckId(api, id);
    bool &set = c.flagSet[static_cast<int>(e)][id];
    if (!set) Violation(api, std::string("WaitFlag") + FlagName(e, id) + " on a flag that is not set: without a matching SetFlag (would hang on the chip)");
    set = false;
    TlFlagWait(c, e, id);
    if (c.hz == nullptr)
        return;
    HzSiteConsumed(c, e, id, loc.file != nullptr);
    if (!HzSiteDropped(c, api, loc, HardEventName(e)))
        HzFlagWait(c, e, id);
}

void FlagWaitQuiet(CoreContext &c, AscendC::HardEvent e, int32_t id) {
    if (id < 0 || id >= AscendC::kTwinEventIdsPerEvent || !c.flagSet[static_cast<int>(e)][id]) return;
    c.flagSet[static_cast<int>(e)][id] = false;
    if (c.hz != nullptr) {
        HzSiteConsumed(c, e, id, false);
        HzFlagWait(c, e, id);
    }
    TlFlagWait(c, e, id);
}

void CheckFlagsAtKernelEnd(CoreContext &c) {
    for (int e = 0; e < static_cast<int>(AscendC::HardEvent::MAX); ++e)
        for (int id = 0; id < AscendC::kTwinEventIdsPerEvent; ++id)
            if (c.flagSet[e][id])
                Violation("SetFlag", std::string("SetFlag") + FlagName(static_cast<AscendC::HardEvent>(e), id) + " (set by " + c.flagSetBy[e][id] +
                                         ") without a matching WaitFlag at kernel end (a flag left set at kernel end)");
}

}  // namespace kernel
}  // namespace twin
