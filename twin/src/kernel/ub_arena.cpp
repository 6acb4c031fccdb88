// UB arena pool and lazy poisoning (see ub_arena.h for the invariant).
#include "ub_arena.h"

#include <pthread.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

namespace twin {
namespace kernel {

// Recycled UB arenas with their dirty maps, and shadows: a launch at 48 vector cores needs ~9.4 MB of
// arena; taking it from freed heap memory every time costs page faults. At most kMaxPooledArenas of each.
namespace {
constexpr size_t kMaxPooledArenas = 96;
struct PooledArena {
    std::vector<uint8_t> bytes, dirty;
};
std::mutex g_arenaMu;
std::vector<PooledArena> g_ubArenas;
std::vector<std::vector<uint8_t>> g_shadowArenas;

// Held across fork() so a forked child never inherits it locked by another thread.
void ArenaLockForFork() { g_arenaMu.lock(); }
void ArenaUnlockAfterFork() { g_arenaMu.unlock(); }
const int g_arenaAtFork = pthread_atfork(ArenaLockForFork, ArenaUnlockAfterFork, ArenaUnlockAfterFork);

template <typename T>
T TakeFrom(std::vector<T>& pool)
{
    (void)g_arenaAtFork;
    std::lock_guard<std::mutex> lk(g_arenaMu);
    if (pool.empty())
        return T{};
    T v = std::move(pool.back());
    pool.pop_back();
    return v;
}

uint64_t Load8(const uint8_t* p)
{
    uint64_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
// True if a byte of v is 0.
bool HasZeroByte(uint64_t v) { return ((v - 0x0101010101010101ull) & ~v & 0x8080808080808080ull) != 0; }
} // namespace

void UbArenaAttach(CoreContext& c)
{
    PooledArena a = TakeFrom(g_ubArenas);
    const size_t blocks = c.ubBytes / 32;
    if (a.bytes.size() != c.ubBytes + 64 || a.dirty.size() != blocks) {
        a.bytes.assign(c.ubBytes + 64, kUbPoisonByte);
        a.dirty.assign(blocks, 0);
    }
    c.ubStorage = std::move(a.bytes);
    c.dirtyStorage = std::move(a.dirty);
    const uintptr_t base = reinterpret_cast<uintptr_t>(c.ubStorage.data());
    c.ubBase = reinterpret_cast<uint8_t*>((base + 63) / 64 * 64);
    c.ubDirty = c.dirtyStorage.data();
    c.shadowStorage = TakeFrom(g_shadowArenas);
    c.shadowStorage.assign(blocks, 0);
    c.shadow = c.shadowStorage.data();
}

void UbArenaDetach(CoreContext& c, bool ranToEnd)
{
    if (!c.ubStorage.empty() && c.dirtyStorage.size() == c.shadowStorage.size()) {
        if (ranToEnd) {
            uint8_t* d = c.dirtyStorage.data();
            const uint8_t* s = c.shadowStorage.data();
            const size_t n = c.dirtyStorage.size();
            size_t b = 0;
            for (; b + 8 <= n; b += 8) { // 8 blocks per step
                const uint64_t v = Load8(d + b) | Load8(s + b);
                std::memcpy(d + b, &v, sizeof v);
            }
            for (; b < n; ++b)
                d[b] = static_cast<uint8_t>(d[b] | s[b]);
        } else {
            std::fill(c.dirtyStorage.begin(), c.dirtyStorage.end(), uint8_t{1});
        }
        std::lock_guard<std::mutex> lk(g_arenaMu);
        if (g_ubArenas.size() < kMaxPooledArenas)
            g_ubArenas.push_back(PooledArena{std::move(c.ubStorage), std::move(c.dirtyStorage)});
        if (g_shadowArenas.size() < kMaxPooledArenas)
            g_shadowArenas.push_back(std::move(c.shadowStorage));
    }
    c.ubStorage = std::vector<uint8_t>();
    c.dirtyStorage = std::vector<uint8_t>();
    c.shadowStorage = std::vector<uint8_t>();
    c.ubBase = nullptr;
    c.ubDirty = nullptr;
    c.shadow = nullptr;
}

void UbPoisonRegion(CoreContext& c, uint8_t* p, uint64_t bytes)
{
    const size_t b0 = static_cast<size_t>(p - c.ubBase) / 32, n = static_cast<size_t>(bytes / 32);
    uint8_t* sh = c.shadow + b0;
    uint8_t* dt = c.ubDirty + b0;
    size_t i = 0;
    while (i < n) {
        while (i + 8 <= n && (Load8(sh + i) | Load8(dt + i)) == 0) // 8 clean blocks at a time
            i += 8;
        while (i < n && (sh[i] | dt[i]) == 0)
            ++i;
        size_t j = i;
        while (j + 8 <= n && !HasZeroByte(Load8(sh + j) | Load8(dt + j))) // 8 blocks to poison at a time
            j += 8;
        while (j < n && (sh[j] | dt[j]) != 0)
            ++j;
        if (j > i)
            std::memset(p + i * 32, kUbPoisonByte, (j - i) * 32);
        i = j;
    }
    std::memset(sh, 0, n);
    std::memset(dt, 0, n);
}

} // namespace kernel
} // namespace twin
