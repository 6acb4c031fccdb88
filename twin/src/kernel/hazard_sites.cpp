// Kernel synchronisation sites: keys, the listing (TWIN_SYNC_SITES) and the drop switch
// (TWIN_DROP_SYNC) of the hazard checker (model: twin/kernel/sync_site.h).
#include <dlfcn.h>
#include <execinfo.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "hazard_state.h"
#include "twin/kernel/core_context.h"
#include "twin/kernel/sync_site.h"

namespace twin {
namespace kernel {

namespace {

std::string SiteFile(const char* file)
{
    const char* k = std::strstr(file, "op_kernel/");
    if (k != nullptr)
        return k;
    const char* b = std::strrchr(file, '/');
    return b != nullptr ? b + 1 : file;
}

// FNV-1a over the module-relative return addresses of the call stack's frames in the kernel's module
// (the module of the innermost frame outside the twin's runtime: kernel code, entry stub, aclnn layer),
// so the hash does not depend on how the scheduler started the core or on the caller's own frames;
// when everything is one module (a statically linked test), over the innermost 8 frames.
struct CallStack {
    uint64_t hash = 1469598103934665603ull;
    std::string innermost; // "<module path>+0x<offset>[;0x<offset>...]": the 4 innermost kernel-module frames
};

__attribute__((noinline)) CallStack KernelCallStack()
{
    void* frames[32];
    const int n = backtrace(frames, 32);
    Dl_info self{};
    const void* selfBase = dladdr(reinterpret_cast<void*>(&KernelCallStack), &self) != 0 ? self.dli_fbase : nullptr;
    CallStack cs;
    auto mix = [&cs](uintptr_t a) {
        for (int b = 0; b < 8; ++b) {
            cs.hash ^= (a >> (8 * b)) & 0xFF;
            cs.hash *= 1099511628211ull;
        }
    };
    int used = 0;
    const void* kernelBase = nullptr; // the module of the innermost frame outside the runtime
    for (int i = 1; i < n; ++i) {
        Dl_info info{};
        if (dladdr(frames[i], &info) == 0 || info.dli_fbase == nullptr || info.dli_fbase == selfBase)
            continue;
        if (kernelBase == nullptr) {
            kernelBase = info.dli_fbase;
            cs.innermost = info.dli_fname != nullptr ? info.dli_fname : "?";
        }
        if (info.dli_fbase != kernelBase)
            continue; // e.g. the caller's interpreter when a core runs on its thread
        if (used < 4) {
            char off[24];
            std::snprintf(
                off, sizeof off, "%s0x%llx", used == 0 ? "+" : ";",
                static_cast<unsigned long long>(
                    reinterpret_cast<uintptr_t>(frames[i]) - reinterpret_cast<uintptr_t>(info.dli_fbase)));
            cs.innermost += off;
        }
        mix(reinterpret_cast<uintptr_t>(frames[i]) - reinterpret_cast<uintptr_t>(info.dli_fbase));
        ++used;
    }
    if (used == 0)
        for (int i = 1; i < n && i <= 8; ++i)
            mix(reinterpret_cast<uintptr_t>(frames[i]) - reinterpret_cast<uintptr_t>(selfBase));
    return cs;
}

std::mutex g_listMu;
std::map<std::string, std::set<std::string>> g_listed; // listing path -> keys written

void List(const std::string& path, const std::string& kind, const std::string& key, const std::string& frame)
{
    std::lock_guard<std::mutex> lk(g_listMu);
    if (!g_listed[path].insert(key).second)
        return;
    FILE* f = std::fopen(path.c_str(), "a");
    if (f == nullptr)
        return;
    std::fprintf(f, "%s\t%s\t%s\n", kind.c_str(), key.c_str(), frame.c_str());
    std::fclose(f);
}

} // namespace

void HzSitesConfigure(HazardLaunch& L)
{
    const char* drop = std::getenv("TWIN_DROP_SYNC");
    const char* list = std::getenv("TWIN_SYNC_SITES");
    L.dropSpec = drop != nullptr ? drop : "";
    L.listPath = list != nullptr ? list : "";
    L.siteMode = !L.dropSpec.empty() || !L.listPath.empty();
    L.dropNeedsHash = L.dropSpec.find('#') != std::string::npos;
}

namespace {

// Key of a site (empty when the launch neither lists nor drops sites), its innermost kernel frame
// (listing only) and whether it is dropped (TWIN_DROP_SYNC: keys separated by commas).
bool SiteKey(CoreContext& c, const SyncLoc& loc, std::string& key, std::string& frame)
{
    key.clear();
    frame.clear();
    if (c.hz == nullptr || loc.file == nullptr)
        return false;
    const HazardLaunch& L = *c.hz->launch;
    if (!L.siteMode)
        return false;
    const std::string fileLine = SiteFile(loc.file) + ":" + std::to_string(loc.line);
    key = fileLine;
    if (!L.listPath.empty() || L.dropNeedsHash) {
        const CallStack cs = KernelCallStack();
        char hex[20];
        std::snprintf(hex, sizeof hex, "#%016llx", static_cast<unsigned long long>(cs.hash));
        key += hex;
        frame = cs.innermost;
    }
    if (L.dropSpec.empty())
        return false;
    size_t at = 0;
    while (at <= L.dropSpec.size()) {
        size_t end = L.dropSpec.find(',', at);
        if (end == std::string::npos)
            end = L.dropSpec.size();
        const std::string one = L.dropSpec.substr(at, end - at);
        if (one == key || one == fileLine)
            return true;
        at = end + 1;
    }
    return false;
}

std::string KindName(const char* kind, const char* detail)
{
    return detail != nullptr ? std::string(kind) + "<" + detail + ">" : kind;
}

} // namespace

bool HzSiteDropped(CoreContext& c, const char* kind, const SyncLoc& loc, const char* detail)
{
    std::string key, frame;
    const bool dropped = SiteKey(c, loc, key, frame);
    if (!key.empty() && !c.hz->launch->listPath.empty())
        List(c.hz->launch->listPath, KindName(kind, detail), key, frame);
    return dropped;
}

bool HzSiteSetDropped(CoreContext& c, const char* kind, const SyncLoc& loc, AscendC::HardEvent e, int32_t id)
{
    std::string key, frame;
    const bool dropped = SiteKey(c, loc, key, frame);
    if (c.hz != nullptr) {
        HzTokenSite& t = c.hz->tokSite[static_cast<int>(e)][id];
        t.key = key;
        t.frame = frame;
        t.kind = key.empty() ? std::string() : KindName(kind, HardEventName(e));
    }
    return dropped;
}

void HzSiteConsumed(CoreContext& c, AscendC::HardEvent e, int32_t id, bool byKernelSite)
{
    if (c.hz == nullptr)
        return;
    HzTokenSite& t = c.hz->tokSite[static_cast<int>(e)][id];
    if (byKernelSite && !t.key.empty() && !c.hz->launch->listPath.empty())
        List(c.hz->launch->listPath, t.kind, t.key, t.frame);
    t.key.clear();
}

} // namespace kernel
} // namespace twin
