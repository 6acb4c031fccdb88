// Per-virtual-core state of the twin (one thread = one AI core) and the rule-check primitives.
// Invariants: CurrentCore() is non-null only on a launcher thread; UB of an AIV core is one arena of
// Platform::ubBytes bytes, 64-B aligned, poison-filled (0xFF) on InitBuffer, with a shadow byte
// per 32-B DataBlock (1 = written since InitBuffer; every UB write marks it: the lazy poisoning of
// src/kernel/ub_arena.h relies on that). A violation records "API, core, rule" in the
// launch and unwinds the core with KernelAbort; other cores abort at their next blocking call.
#pragma once
#include <cstddef>
#include <cstdint>
#include <atomic>
#include <cstring>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>
#include "twin/launch.h"
#include "twin/kernel/cost_table.h"
#include "twin/kernel/kernel_types.h"
#include "twin/kernel/hazard.h"
#include "twin/kernel/l2_model.h"
#include "twin/kernel/pipe_timeline.h"

namespace twin {
namespace kernel {

struct KernelAbort {};          // unwinds a core; never escapes Launch
struct LaunchState;             // defined in src/kernel/launch_state.h

constexpr uint32_t kMaxBuffersPerKernel = 64;        // "Buffer数量之和不能超过64"
constexpr uint32_t kMaxLiveTensorsPerPosition = 8;   // Atlas A2: AllocTensor per TPosition <= 8
constexpr uint32_t kMaxMatmulObjects = 4;            // "最多支持定义4个Matmul对象"
constexpr uint8_t kUbPoisonByte = 0xFF;              // NaN for fp16/fp32/bf16, -1 for ints

struct CoreContext {
    LaunchState *launch = nullptr;
    const std::atomic<bool> *aborted = nullptr;   // set when any core reported a violation
    bool isAic = false;
    uint32_t blockIdx = 0;
    uint32_t blockNum = 0;
    uint32_t subBlockIdx = 0;
    uint32_t taskRatio = 1;
    KernelType launchType = KernelType::AIV_ONLY;
    uint64_t tilingKey = 0;
    void *workspace = nullptr;
    // Unified Buffer (AIV only)
    uint8_t *ubBase = nullptr;
    uint64_t ubBytes = 0;          // physical arena size
    uint64_t ubCapacity = 0;       // bytes InitBuffer may hand out
    uint64_t ubUsed = 0;
    uint32_t bufferCount = 0;
    uint8_t *shadow = nullptr;     // one byte per 32-B block
    uint8_t* ubDirty = nullptr;    // per block: may differ from poison though its shadow is 0 (src/kernel/ub_arena.h)
    uint32_t liveTensors[static_cast<int>(AscendC::TPosition::MAX)] = {};
    bool initBufferCalled = false;
    uint32_t ubEpoch = 1;          // incremented by TPipe::Reset/Destroy: older queues/TBufs are stale
    // synchronisation
    // per (HardEvent, ID) flag: set by SetFlag, cleared by WaitFlag (src/kernel/sync_flags.cpp)
    bool flagSet[static_cast<int>(AscendC::HardEvent::MAX)][AscendC::kTwinEventIdsPerEvent] = {};
    const char *flagSetBy[static_cast<int>(AscendC::HardEvent::MAX)][AscendC::kTwinEventIdsPerEvent] = {};
    // atomic accumulation state (SetAtomicAdd<T> .. SetAtomicNone)
    int atomicOp = 0;              // 0 none, 1 add, 2 max, 3 min
    const std::type_info *atomicType = nullptr;
    const char *atomicTypeName = nullptr;
    // vector mask register
    uint64_t maskHigh = ~0ull, maskLow = ~0ull;
    bool maskCounterMode = false;
    // Matmul
    uint32_t matmulObjects = 0;
    bool matmulRegistered = false;
    // GM registry lookup cache
    const uint8_t *gmCacheBase = nullptr;
    size_t gmCacheBytes = 0;
    CoreCounters counters;
    // cooperative scheduling (twin/kernel/core_scheduler.h)
    bool sharesThread = false;             // other cores run on this core's OS thread
    mutable uint32_t pollsSinceYield = 0;  // GM accesses since this core last yielded
    const char *costApi = "";      // API of the count-form vector instruction in flight (set by CountNop)
    // Cost-table entries of the vector APIs this core issued (ChargeVector, vec_engine.h): direct-mapped
    // by (API name pointer, element bytes); an entry holds cost::FindVectorRate of its key.
    struct RateSlot {
        const char* api = nullptr;
        uint32_t elemBytes = 0;
        const cost::VecRate* rate = nullptr;
    };
    static constexpr size_t kRateSlots = 64;
    RateSlot rateCache[kRateSlots];
    // hazard checker (twin/kernel/hazard.h): nullptr when off; the API last entered (for its reports)
    HazardCore *hz = nullptr;
    const char *lastApi = nullptr;
    uint32_t apiSeq = 0;        // API calls entered so far (Core()): tells instructions of one pipe apart
    TimelineCore* tl = nullptr; // per-pipe timeline (twin/kernel/pipe_timeline.h); nullptr: not costed
    L2Log* l2 = nullptr;        // counted GM accesses for the L2 model (twin/kernel/l2_model.h); nullptr: off
    std::vector<uint8_t> ubStorage;
    std::vector<uint8_t> shadowStorage;
    std::vector<uint8_t> dirtyStorage;
    bool ranToEnd = false; // the kernel returned and passed its end checks (no exception)
};

// The current thread's virtual core (nullptr outside twin::Launch). Out of line on purpose: an
// inline read of an `extern thread_local` trips GCC 12's TLS wrapper under -O2 + UBSan.
CoreContext *CurrentCore() noexcept;
// Thread-local core state switched by the cooperative scheduler with the core it runs.
void SetCurrentCore(CoreContext *c) noexcept;
void *CurrentPipeHandle() noexcept;            // GetTPipePtr()'s pipe of this thread
void SetCurrentPipeHandle(void *pipe) noexcept;
void YieldCore();                              // twin/kernel/core_scheduler.h
constexpr uint32_t kYieldPolls = 1024;         // GM accesses between yields of a core sharing its thread

[[noreturn]] void Violation(const char *api, const std::string &rule);
// Records a complete report (already naming API and core) and unwinds the current core.
[[noreturn]] void ViolationText(const std::string &report);
[[noreturn]] void OutsideLaunch(const char *api);
// LocalTensor::operator[]'s violation: "offset <offset> is beyond the buffer (<cap> elements)".
[[noreturn]] void LocalOffsetBeyond(uint32_t offset, uint32_t cap);
std::string CoreName(const CoreContext &c);     // "AIV 3" / "AIC 1"
const char *HardEventName(AscendC::HardEvent e); // "MTE2_V"

inline CoreContext &Core(const char *api) {
    CoreContext *c = CurrentCore();
    if (c == nullptr) OutsideLaunch(api);
    c->lastApi = api;
    ++c->apiSeq;
    return *c;
}

// Lets a core that spins on GM (e.g. waiting for a flag another core will never set) leave once
// the launch has failed, and, when it shares its OS thread, lets the other cores run now and then.
inline void PollAbort(const CoreContext &c) {
    if (c.aborted != nullptr && c.aborted->load(std::memory_order_relaxed)) throw KernelAbort{};
    if (c.sharesThread && ++c.pollsSinceYield >= kYieldPolls) {
        c.pollsSinceYield = 0;
        YieldCore();
        if (c.aborted != nullptr && c.aborted->load(std::memory_order_relaxed)) throw KernelAbort{};
    }
}

template <typename T> const char *TypeName() {
    if (std::is_same<T, float>::value) return "float";
    if (std::is_same<T, half>::value) return "half";
    if (std::is_same<T, bfloat16_t>::value) return "bfloat16_t";
    if (std::is_same<T, int32_t>::value) return "int32_t";
    if (std::is_same<T, uint32_t>::value) return "uint32_t";
    if (std::is_same<T, int16_t>::value) return "int16_t";
    if (std::is_same<T, uint16_t>::value) return "uint16_t";
    if (std::is_same<T, int8_t>::value) return "int8_t";
    if (std::is_same<T, uint8_t>::value) return "uint8_t";
    if (std::is_same<T, int64_t>::value) return "int64_t";
    if (std::is_same<T, uint64_t>::value) return "uint64_t";
    if (std::is_same<T, double>::value) return "double";
    return typeid(T).name();
}

// ---- UB checks -------------------------------------------------------------------------------
void UbNotOwned(const char *api, const void *p);
void UbUnwritten(const char *api, const void *p, size_t bytes, size_t firstBadBlock);

inline void CheckUbAddress(const char *api, const CoreContext &c, const void *p, size_t bytes) {
    const uint8_t *b = static_cast<const uint8_t *>(p);
    if (c.ubBase == nullptr || b < c.ubBase || b + bytes > c.ubBase + c.ubBytes) UbNotOwned(api, p);
}

inline void CheckUbAligned(const char *api, const CoreContext &c, const void *p, const char *what) {
    const size_t off = static_cast<size_t>(static_cast<const uint8_t *>(p) - c.ubBase);
    if (off % 32 != 0)
        Violation(api, std::string(what) + " UB address must be 32-byte aligned; got offset " +
                           std::to_string(off) + " (mod 32 = " + std::to_string(off % 32) + ")");
}

inline void UbMarkWritten(CoreContext &c, const void *p, size_t bytes) {
    if (bytes == 0) return;
    const size_t off = static_cast<size_t>(static_cast<const uint8_t *>(p) - c.ubBase);
    const size_t b0 = off / 32, n = (off + bytes - 1) / 32 - b0 + 1;
    if (n <= 8) { // the common small write (a scalar, a block or two): no library call
        for (size_t i = 0; i < n; ++i)
            c.shadow[b0 + i] = 1;
    } else {
        std::memset(c.shadow + b0, 1, n);
    }
    if (c.hz != nullptr) HzUbAccess(c, p, bytes, true);
}

inline void UbCheckRead(const char *api, const CoreContext &c, const void *p, size_t bytes) {
    if (bytes == 0) return;
    if (c.hz != nullptr) HzUbAccess(c, p, bytes, false);
    const size_t off = static_cast<size_t>(static_cast<const uint8_t *>(p) - c.ubBase);
    const size_t b0 = off / 32, n = (off + bytes - 1) / 32 - b0 + 1;
    if (n <= 8) {   // the common small read: a few shadow bytes, no library call
        for (size_t i = 0; i < n; ++i)
            if (c.shadow[b0 + i] == 0) UbUnwritten(api, p, bytes, b0 + i);
        return;
    }
    const void *bad = std::memchr(c.shadow + b0, 0, n);
    if (bad != nullptr) UbUnwritten(api, p, bytes, static_cast<size_t>(static_cast<const uint8_t *>(bad) - c.shadow));
}

// UbCheckRead / UbMarkWritten of one 32-B aligned block (p at a 32-B offset of UB): the same checks,
// reports and hazard calls, small enough to inline into per-block loops.
inline void UbCheckReadBlock(const char* api, const CoreContext& c, const void* p)
{
    if (c.hz != nullptr)
        HzUbAccess(c, p, 32, false);
    const size_t b = static_cast<size_t>(static_cast<const uint8_t*>(p) - c.ubBase) >> 5;
    if (c.shadow[b] == 0)
        UbUnwritten(api, p, 32, b);
}
inline void UbMarkWrittenBlock(CoreContext& c, const void* p)
{
    c.shadow[static_cast<size_t>(static_cast<const uint8_t*>(p) - c.ubBase) >> 5] = 1;
    if (c.hz != nullptr)
        HzUbAccess(c, p, 32, true);
}

// ---- GM checks -------------------------------------------------------------------------------
// Every GM byte touched must lie inside one registered buffer (twin::RegisterGm / GmAlloc).
void GmCheckSlow(const char *api, CoreContext &c, const void *p, size_t bytes, bool write);
inline void CheckGm(const char *api, CoreContext &c, const void *p, size_t bytes, bool write) {
    PollAbort(c);
    if (c.hz != nullptr) HzGmAccess(c, api, p, bytes, write);
    const uint8_t *b = static_cast<const uint8_t *>(p);
    if (b >= c.gmCacheBase && bytes <= c.gmCacheBytes && b - c.gmCacheBase <= static_cast<ptrdiff_t>(c.gmCacheBytes - bytes)) return;
    GmCheckSlow(api, c, p, bytes, write);
}
// Logs a counted GM access for the L2 model (twin/kernel/l2_model.h) when it is on.
inline void L2Note(CoreContext& c, const void* p, uint64_t bytes, bool write)
{
    if (c.l2 != nullptr)
        c.l2->Note(reinterpret_cast<uintptr_t>(p), bytes, static_cast<uint32_t>(c.counters.syncAllCount), write);
}
// Atomic read-modify-write of GM (serialised across cores by one process-wide lock; the address
// argument is kept so the lock could be striped by address later).
void GmAtomicLock(const void *p);
void GmAtomicUnlock(const void *p);

// ---- launch queries used by macros ---------------------------------------------------------
void DeclareKernelType(int kernelMetaType);     // KERNEL_TASK_TYPE_DEFAULT
uint64_t CurrentTilingKey();                    // TILING_KEY_IS
bool IsAic();                                   // ASCEND_IS_AIC
// Blocks until the paired AIV cores of this AIC have left the kernel (Matmul service, MIX mode).
void ServeMatmulUntilAivDone();
// Credits one Matmul computation to the AIC serving this AIV (per stage: the AIV's SyncAll count).
void AddCubeWorkToServingAic(const cost::CubeCost &cost, uint64_t macs, uint64_t gmReadBytes, uint64_t gmWriteBytes);
// Forgets GetTPipePtr()'s pipe on this thread (pool threads are reused across launches).
void ClearCurrentPipe();
// Barrier across cores: aivOnly -> all AIV cores of the launch, else all cores.
void HardSyncAll(const char *api, bool aivOnly, uint32_t participants);

}  // namespace kernel
}  // namespace twin
