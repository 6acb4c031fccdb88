// UB allocation (TPipe::InitBuffer), queue state machine and event IDs of the twin.
#include "twin/kernel/pipe.h"
#include "twin/kernel/sync_sys.h"
#include "ub_arena.h"

#include <algorithm>

namespace twin {
namespace kernel {

const char *PositionName(AscendC::TPosition pos) {
    using P = AscendC::TPosition;
    switch (pos) {
    case P::GM: return "GM";
    case P::A1: return "A1";
    case P::A2: return "A2";
    case P::B1: return "B1";
    case P::B2: return "B2";
    case P::C1: return "C1";
    case P::C2: return "C2";
    case P::CO1: return "CO1";
    case P::CO2: return "CO2";
    case P::VECIN: return "VECIN";
    case P::VECOUT: return "VECOUT";
    case P::VECCALC: return "VECCALC";
    case P::SPM: return "SPM";
    case P::TSCM: return "TSCM";
    default: return "?";
    }
}

uint8_t *AllocUbBuffer(const char *api, AscendC::TPosition pos, uint32_t bytes, uint32_t count) {
    auto &c = Core(api);
    using P = AscendC::TPosition;
    if (c.isAic) Violation(api, std::string("AIC (cube) cores have no Unified Buffer; cannot allocate TPosition ") + PositionName(pos) + " on AIC");
    if (pos != P::VECIN && pos != P::VECOUT && pos != P::VECCALC)
        Violation(api, std::string("TPosition ") + PositionName(pos) + " is not a Unified Buffer position (the twin models VECIN/VECOUT/VECCALC)");
    if (bytes == 0) Violation(api, "len must be > 0");
    if (count == 0) Violation(api, "num (buffer count) must be > 0");
    const uint64_t each = (uint64_t(bytes) + 31) / 32 * 32;
    if (c.bufferCount + count > kMaxBuffersPerKernel)
        Violation(api, "more than 64 buffers in one kernel (already " + std::to_string(c.bufferCount) + ", requesting " + std::to_string(count) + ")");
    if (c.ubUsed + each * count > c.ubCapacity)
        Violation(api, "UB capacity exceeded: InitBuffer needs " + std::to_string(each * count) + " bytes, " + std::to_string(c.ubUsed) +
                           " of " + std::to_string(c.ubCapacity) + " usable bytes already allocated (UB " + std::to_string(c.ubBytes) +
                           " B - 256 B system - 8 KiB reserved)");
    uint8_t *p = c.ubBase + c.ubUsed;
    c.ubUsed += each * count;
    c.bufferCount += count;
    c.counters.ubPeakBytes = std::max<uint64_t>(c.counters.ubPeakBytes, c.ubUsed);
    UbPoisonRegion(c, p, each * count); // writes only the blocks that may differ from poison
    c.initBufferCalled = true;
    return p;
}

void ReleaseAllUb() {
    CoreContext *c = CurrentCore();
    if (c == nullptr) return;
    c->ubUsed = 0;
    c->bufferCount = 0;
    ++c->ubEpoch;
    std::fill(std::begin(c->liveTensors), std::end(c->liveTensors), 0u);
}

// The events of a queue from its positions (CANN GetQueEvt for the logical source/destination).
static void QueueEvents(const char *api, AscendC::TPosition src, AscendC::TPosition dst, AscendC::HardEvent &enq, AscendC::HardEvent &fre) {
    using P = AscendC::TPosition;
    using H = AscendC::HardEvent;
    if (src == P::VECIN && dst == P::VECIN) { enq = H::MTE2_V; fre = H::V_MTE2; return; }       // GM -> UB
    if (src == P::VECOUT && dst == P::VECOUT) { enq = H::V_MTE3; fre = H::MTE3_V; return; }     // UB -> GM
    if (src == P::VECIN && dst == P::VECOUT) { enq = H::MTE2_MTE3; fre = H::MTE3_MTE2; return; }  // UB -> UB
    if (src == P::VECCALC && dst == P::VECCALC) { enq = H::MAX; fre = H::MAX; return; }          // no events (twin)
    Violation(api, std::string("queue from ") + PositionName(src) + " to " + PositionName(dst) + " is not modelled by the twin");
}

static AscendC::TPipe &QueuePipe(const char *api, AscendC::TPipe *p) {
    if (p == nullptr || p != ::GetTPipePtr())
        Violation(api, "the queue's TPipe is gone or is not the current TPipe (GetTPipePtr())");
    return *p;
}

BufEventRecord &QueueCore::Rec(int i) const { return pipe_->TwinRecord(firstRec_ + static_cast<uint32_t>(i)); }

void QueueCore::Init(const char *api, AscendC::TPipe *pipe, AscendC::TPosition src, AscendC::TPosition dst, int32_t depth, uint8_t num,
                     uint32_t len) {
    if (inited_ && epoch_ == Core(api).ubEpoch) Violation(api, "queue already initialised by an earlier InitBuffer (TPipe::Reset first)");
    AscendC::HardEvent enq, fre;
    QueueEvents(api, src, dst, enq, fre);
    const uint64_t each = (uint64_t(len) + 31) / 32 * 32;
    uint8_t *p = AllocUbBuffer(api, src, len, num);
    pipe_ = pipe;
    firstRec_ = pipe->TwinAddRecords(api, num);
    for (uint32_t i = 0; i < num; ++i) {
        BufEventRecord &r = pipe->TwinRecord(firstRec_ + i);
        r.enQueEvt = enq;
        r.freeBufEvt = fre;
        r.enQueId = r.freeId = -1;
    }
    bufs_.clear();
    for (uint32_t i = 0; i < num; ++i) bufs_.push_back(p + i * each);
    state_.assign(num, 0);
    fifo_.clear();
    cursor_ = 0;
    pos_ = src;
    depth_ = depth;
    len_ = static_cast<uint32_t>(each);
    epoch_ = Core(api).ubEpoch;
    inited_ = true;
}

static void CheckQueueLive(const char *api, bool inited, uint32_t epoch) {
    if (!inited) Violation(api, "queue used before TPipe::InitBuffer");
    if (epoch != Core(api).ubEpoch) Violation(api, "queue used after TPipe::Reset/Destroy released its UB (InitBuffer it again)");
}

int QueueCore::IndexOf(const char *api, const void *addr) const {
    CheckQueueLive(api, inited_, epoch_);
    for (size_t i = 0; i < bufs_.size(); ++i)
        if (bufs_[i] == addr) return static_cast<int>(i);
    Violation(api, "tensor does not start at a buffer of this queue (was it allocated from another queue, or offset with operator[]?)");
}

bool QueueCore::HasIdleBuffer() const { return std::find(state_.begin(), state_.end(), 0) != state_.end(); }

uint8_t* QueueCore::Alloc(const char* api, const SyncLoc& loc)
{
    auto &c = Core(api);
    CheckQueueLive(api, inited_, epoch_);
    for (size_t n = 0; n < bufs_.size(); ++n) {
        const size_t i = cursor_;
        cursor_ = (cursor_ + 1) % static_cast<uint32_t>(bufs_.size());
        if (state_[i] != 0) continue;
        auto &live = c.liveTensors[static_cast<int>(pos_)];
        if (live + 1 > kMaxLiveTensorsPerPosition)
            Violation(api, std::string("more than 8 live AllocTensor tensors on TPosition ") + PositionName(pos_) + " (Atlas A2 limit)");
        BufEventRecord &r = Rec(static_cast<int>(i));
        if (r.freeId >= 0) {   // the buffer's last FreeTensor set this flag: wait for the consumer pipe, give the ID back
            AscendC::TPipe &pipe = QueuePipe(api, pipe_);
            FlagWait(api, c, r.freeBufEvt, r.freeId, loc);
            pipe.ReleaseEventIDImpl(r.freeBufEvt, r.freeId);
            r.freeId = -1;
        }
        ++live;
        state_[i] = 1;
        return bufs_[i];
    }
    Violation(api, "no free buffer in the queue: all " + std::to_string(bufs_.size()) +
                       " buffers are allocated or enqueued (would block forever on the chip; missing FreeTensor?)");
}

void QueueCore::Free(const char* api, const void* addr, const SyncLoc& loc)
{
    auto &c = Core(api);
    const int i = IndexOf(api, addr);
    if (state_[i] == 0) Violation(api, "FreeTensor of a tensor that is not allocated (double free?)");
    if (state_[i] == 2) Violation(api, "FreeTensor of a tensor that is still enqueued (EnQue without DeQue)");
    BufEventRecord &r = Rec(i);
    if (r.freeBufEvt != AscendC::HardEvent::MAX) {
        AscendC::TPipe &pipe = QueuePipe(api, pipe_);
        r.freeId = pipe.AllocEventIDImpl(r.freeBufEvt);
        FlagSet(api, c, r.freeBufEvt, r.freeId, loc);
    }
    state_[i] = 0;
    --c.liveTensors[static_cast<int>(pos_)];
}

void QueueCore::EnQue(const char* api, const void* addr, const SyncLoc& loc)
{
    auto &c = Core(api);
    const int i = IndexOf(api, addr);
    if (state_[i] != 1) Violation(api, state_[i] == 2 ? "tensor is already enqueued" : "EnQue of a tensor that is not allocated");
    if (static_cast<int32_t>(fifo_.size()) >= depth_)
        Violation(api, "EnQue over the queue depth " + std::to_string(depth_) + " (" + std::to_string(fifo_.size()) + " tensors already enqueued)");
    BufEventRecord &r = Rec(i);
    if (r.enQueEvt != AscendC::HardEvent::MAX) {
        AscendC::TPipe &pipe = QueuePipe(api, pipe_);
        r.enQueId = pipe.AllocEventIDImpl(r.enQueEvt);
        FlagSet(api, c, r.enQueEvt, r.enQueId, loc);
    }
    state_[i] = 2;
    fifo_.push_back(i);
}

uint8_t* QueueCore::DeQue(const char* api, const SyncLoc& loc)
{
    auto &c = Core(api);
    CheckQueueLive(api, inited_, epoch_);
    if (fifo_.empty()) Violation(api, "DeQue on an empty queue (would hang on the chip)");
    const int i = fifo_.front();
    fifo_.pop_front();
    BufEventRecord &r = Rec(i);
    if (r.enQueId >= 0) {
        AscendC::TPipe &pipe = QueuePipe(api, pipe_);
        FlagWait(api, c, r.enQueEvt, r.enQueId, loc);
        pipe.ReleaseEventIDImpl(r.enQueEvt, r.enQueId);
        r.enQueId = -1;
    }
    state_[i] = 1;
    return bufs_[i];
}

}  // namespace kernel
}  // namespace twin

namespace AscendC {

namespace {
thread_local TPipe *g_currentPipe = nullptr;
}

// On a cube core the constructor takes M_MTE1 IDs 0, 1, 2 and sets their flags for the Matmul macro;
// Destroy waits and releases them (8.1.RC1 TPipe::Init / DestroyWithoutPipeAll, __CCE_AICORE__ 220).
TPipe::TPipe() {
    auto &c = twin::kernel::Core("TPipe::TPipe");
    g_currentPipe = this;
    isAic_ = c.isAic;
    if (isAic_) {
        for (int i = 0; i < 3; ++i) {
            const TEventID id = AllocEventIDImpl(HardEvent::M_MTE1);
            twin::kernel::FlagSet("TPipe::TPipe (Matmul macro M_MTE1 events)", c, HardEvent::M_MTE1, id);
        }
    }
}

// Waits the free flags the queue buffers still hold (CANN Reset/Destroy); `quiet` on unwinding.
void TPipe::WaitHeldFreeFlags(bool quiet) {
    twin::kernel::CoreContext *c = twin::kernel::CurrentCore();
    if (c == nullptr) return;
    for (uint32_t i = 0; i < recordCount_; ++i) {
        auto &r = records_[i];
        if (r.freeId < 0) continue;
        if (quiet) twin::kernel::FlagWaitQuiet(*c, r.freeBufEvt, r.freeId);
        else twin::kernel::FlagWait("TPipe::Reset/Destroy", *c, r.freeBufEvt, r.freeId);
        r.freeId = -1;
    }
}

void TPipe::ResetPool() {
    std::fill(std::begin(eventOccupy_), std::end(eventOccupy_), 0);
    recordCount_ = 0;
}

TPipe::~TPipe() {
    twin::kernel::CoreContext *c = twin::kernel::CurrentCore();
    if (!destroyed_ && c != nullptr) {
        WaitHeldFreeFlags(true);
        if (isAic_)
            for (int i = 0; i < 3; ++i) twin::kernel::FlagWaitQuiet(*c, HardEvent::M_MTE1, i);
        if (c->hz != nullptr) twin::kernel::HzPipeBarrierAll(*c);   // Destroy ends with pipe_barrier(PIPE_ALL)
        twin::kernel::TlPipeBarrierAll(*c);
        twin::kernel::ReleaseAllUb();
    }
    if (g_currentPipe == this) g_currentPipe = nullptr;
}

void TPipe::Destroy() {
    auto &c = twin::kernel::Core("TPipe::Destroy");
    WaitHeldFreeFlags(false);
    if (isAic_)
        for (int i = 0; i < 3; ++i) {
            twin::kernel::FlagWait("TPipe::Destroy (Matmul macro M_MTE1 events)", c, HardEvent::M_MTE1, i);
            ReleaseEventIDImpl(HardEvent::M_MTE1, static_cast<TEventID>(i));
        }
    if (c.hz != nullptr) twin::kernel::HzPipeBarrierAll(c);   // Destroy ends with pipe_barrier(PIPE_ALL)
    twin::kernel::TlPipeBarrierAll(c);
    twin::kernel::ReleaseAllUb();
    destroyed_ = true;
}

// Reset waits the held free flags and frees every event ID, including IDs that other owners (the
// Matmul client, a kernel's long-lived AllocEventID) still use: the next FetchEventID/AllocEventID
// of that HardEvent returns their ID again.
void TPipe::Reset() {
    (void)twin::kernel::Core("TPipe::Reset");
    WaitHeldFreeFlags(false);
    ResetPool();
    twin::kernel::ReleaseAllUb();
}

uint32_t TPipe::TwinAddRecords(const char *api, uint32_t n) {
    if (recordCount_ + n > twin::kernel::kMaxBuffersPerKernel) twin::kernel::Violation(api, "more than 64 queue buffers in one TPipe");
    const uint32_t first = recordCount_;
    recordCount_ += n;
    return first;
}

TEventID TPipe::AllocEventIDImpl(HardEvent evt) {
    auto &c = twin::kernel::Core("TPipe::AllocEventID");
    if (!c.isAic && !twin::kernel::IsAivEvent(evt))
        twin::kernel::Violation("TPipe::AllocEventID", std::string("HardEvent::") + twin::kernel::HardEventName(evt) + " does not exist on a vector core");
    auto &mask = eventOccupy_[static_cast<int>(evt)];
    for (int id = 0; id < kTwinEventIdsPerEvent; ++id) {
        if (!((mask >> id) & 1)) {
            mask = static_cast<uint8_t>(mask | (1u << id));
            return static_cast<TEventID>(id);
        }
    }
    twin::kernel::Violation("TPipe::AllocEventID", std::string("all 8 event IDs of HardEvent::") + twin::kernel::HardEventName(evt) +
                                                       " are allocated (missing ReleaseEventID? queue buffers hold one while enqueued and one after FreeTensor)");
}

void TPipe::ReleaseEventIDImpl(HardEvent evt, TEventID id) {
    (void)twin::kernel::Core("TPipe::ReleaseEventID");
    if (id < 0 || id >= kTwinEventIdsPerEvent) twin::kernel::Violation("TPipe::ReleaseEventID", "eventID must be in [0, 7]; got " + std::to_string(id));
    auto &mask = eventOccupy_[static_cast<int>(evt)];
    if (!((mask >> id) & 1)) twin::kernel::Violation("TPipe::ReleaseEventID", "event ID " + std::to_string(id) + " was not allocated");
    mask = static_cast<uint8_t>(mask & ~(1u << id));
}

TEventID TPipe::FetchEventIDImpl(HardEvent evt) {
    (void)twin::kernel::Core("TPipe::FetchEventID");
    const auto mask = eventOccupy_[static_cast<int>(evt)];
    for (int id = 0; id < kTwinEventIdsPerEvent; ++id)
        if (!((mask >> id) & 1)) return static_cast<TEventID>(id);
    twin::kernel::Violation("TPipe::FetchEventID", std::string("all 8 event IDs of HardEvent::") + twin::kernel::HardEventName(evt) + " are allocated");
}

}  // namespace AscendC

AscendC::TPipe *GetTPipePtr() { return AscendC::g_currentPipe; }

namespace twin {
namespace kernel {
void ClearCurrentPipe() { AscendC::g_currentPipe = nullptr; }
void *CurrentPipeHandle() noexcept { return AscendC::g_currentPipe; }
void SetCurrentPipeHandle(void *pipe) noexcept { AscendC::g_currentPipe = static_cast<AscendC::TPipe *>(pipe); }
}  // namespace kernel
}  // namespace twin
