// GM registry: the set of host buffers kernels may touch. Regions may overlap (views of one storage).
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "twin/kernel/core_context.h"

namespace twin {
namespace {

struct Region {
    const uint8_t *base;
    size_t bytes;
    std::string name;
};

std::shared_mutex g_mu;
std::vector<Region> g_regions;
std::mutex g_atomicMu;

}  // namespace

void RegisterGm(const void *base, size_t bytes, const char *name) {
    if (base == nullptr && bytes != 0) throw std::invalid_argument("base: nullptr with non-zero size");
    std::unique_lock<std::shared_mutex> lk(g_mu);
    g_regions.push_back({static_cast<const uint8_t *>(base), bytes, name ? name : "?"});
}

void UnregisterGm(const void *base) {
    std::unique_lock<std::shared_mutex> lk(g_mu);
    for (size_t i = g_regions.size(); i-- > 0;) {
        if (g_regions[i].base == base) {
            g_regions.erase(g_regions.begin() + static_cast<std::ptrdiff_t>(i));
            return;
        }
    }
}

void *GmAlloc(size_t bytes, const char *name) {
    const size_t rounded = (bytes + 63) / 64 * 64;
    void *p = std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
    if (p == nullptr) throw std::bad_alloc();
    std::memset(p, 0, rounded == 0 ? 64 : rounded);
    RegisterGm(p, bytes, name);
    return p;
}

void GmFree(void *p) {
    if (p == nullptr) return;
    UnregisterGm(p);
    std::free(p);
}

namespace kernel {

// "'name' at byte offset N" using the smallest registered buffer that contains p (hazard reports).
std::string GmDescribe(uintptr_t p) {
    std::shared_lock<std::shared_mutex> lk(g_mu);
    const Region *best = nullptr;
    for (const Region &r : g_regions) {
        const uintptr_t b = reinterpret_cast<uintptr_t>(r.base);
        if (p >= b && p < b + r.bytes && (best == nullptr || r.bytes < best->bytes)) best = &r;
    }
    if (best == nullptr) return "(unregistered)";
    return "'" + best->name + "' at byte offset " + std::to_string(p - reinterpret_cast<uintptr_t>(best->base));
}

void GmCheckSlow(const char *api, CoreContext &c, const void *p, size_t bytes, bool write) {
    const uint8_t *b = static_cast<const uint8_t *>(p);
    std::string nearest;
    {
        std::shared_lock<std::shared_mutex> lk(g_mu);
        const Region *best = nullptr;
        uint64_t bestDist = ~0ull;
        for (const auto &r : g_regions) {
            if (b >= r.base && bytes <= r.bytes && static_cast<size_t>(b - r.base) <= r.bytes - bytes) {
                c.gmCacheBase = r.base;
                c.gmCacheBytes = r.bytes;
                return;
            }
            const uint64_t d = b >= r.base ? static_cast<uint64_t>(b - r.base) : static_cast<uint64_t>(r.base - b);
            if (d < bestDist) { bestDist = d; best = &r; }
        }
        if (best != nullptr) {
            const long long off = static_cast<long long>(b - best->base);
            nearest = "; nearest buffer '" + best->name + "' has " + std::to_string(best->bytes) + " bytes, access at byte offset " +
                      std::to_string(off);
        } else {
            nearest = "; no GM buffer is registered";
        }
    }
    Violation(api, std::string("out-of-bounds GM access: ") + (write ? "write" : "read") + " of " + std::to_string(bytes) +
                       " bytes is outside every registered GM buffer" + nearest);
}

void GmAtomicLock(const void *) { g_atomicMu.lock(); }
void GmAtomicUnlock(const void *) { g_atomicMu.unlock(); }

}  // namespace kernel
}  // namespace twin
