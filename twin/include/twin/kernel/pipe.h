// TPipe / TQue / TQueBind / TBuf of the twin (ASC-API 资源管理/Pipe和Que框架).
// Invariants: every InitBuffer carves 32-B aligned, 32-B rounded regions from the core's UB arena;
// the sum over InitBuffer calls must fit twin::UsableUbBytes(), at most 64 buffers per kernel;
// AIC cores have no UB. A queue buffer is in one of three states: free -> allocated (AllocTensor,
// DeQue) -> enqueued (EnQue) -> allocated (DeQue) -> free (FreeTensor). At most `depth` buffers are
// enqueued; at most 8 buffers per TPosition are live (allocated or enqueued) on one core.
// Bounds of a LocalTensor are those of the buffer it comes from (a TBuf::Get(len) tensor has
// GetSize() == len but may be indexed up to the end of the TBuf, as on the chip).
// Event IDs (CANN 8.1.RC1 kernel_tpipe_impl.h / kernel_tquebind_impl.h, same in asc-devkit): the
// TPipe owns one pool per HardEvent (bit i = ID i taken). AllocEventID takes the lowest free ID,
// ReleaseEventID frees it, FetchEventID returns the lowest free ID without taking it, TPipe::Reset
// (and the constructor) free every ID. Queues take their IDs from the pool: EnQue allocates an
// enQueEvt ID and sets its flag, DeQue waits it and releases the ID; FreeTensor allocates a
// freeBufEvt ID and sets its flag, the buffer's next AllocTensor waits it and releases the ID;
// Reset/Destroy wait the free flags still held. VECIN: enQue MTE2_V / free V_MTE2; VECOUT: V_MTE3 /
// MTE3_V; VECIN->VECOUT (TQueBind): MTE2_MTE3 / MTE3_MTE2.
#pragma once
#include <cstdint>
#include <deque>
#include <vector>
#include "twin/kernel/tensor.h"
#include "twin/kernel/sync_site.h"

namespace AscendC {
class TPipe;
}

namespace twin {
namespace kernel {

// Allocates `bytes` (rounded up to 32) of UB for `pos`; poisons it and clears its shadow.
uint8_t *AllocUbBuffer(const char *api, AscendC::TPosition pos, uint32_t bytes, uint32_t count);
void ReleaseAllUb();
const char *PositionName(AscendC::TPosition pos);

// One queue buffer as its TPipe tracks it (CANN TBufType): the IDs of the flags it holds (-1: none).
struct BufEventRecord {
    AscendC::HardEvent enQueEvt = AscendC::HardEvent::MAX, freeBufEvt = AscendC::HardEvent::MAX;
    int8_t enQueId = -1, freeId = -1;
};

class QueueCore {
public:
    void Init(const char *api, AscendC::TPipe *pipe, AscendC::TPosition src, AscendC::TPosition dst, int32_t depth, uint8_t num, uint32_t len);
    // `loc`: the kernel call site (twin/kernel/sync_site.h) of the flag wait/set the call makes
    uint8_t* Alloc(const char* api, const SyncLoc& loc = SyncLoc());
    void Free(const char* api, const void* addr, const SyncLoc& loc = SyncLoc());
    void EnQue(const char* api, const void* addr, const SyncLoc& loc = SyncLoc());
    uint8_t* DeQue(const char* api, const SyncLoc& loc = SyncLoc());
    bool VacantInQue() const { return static_cast<int32_t>(fifo_.size()) < depth_; }
    bool HasTensorInQue() const { return !fifo_.empty(); }
    int32_t GetTensorCountInQue() const { return static_cast<int32_t>(fifo_.size()); }
    bool HasIdleBuffer() const;
    uint32_t Len() const { return len_; }
    AscendC::TPosition Pos() const { return pos_; }

private:
    int IndexOf(const char *api, const void *addr) const;
    BufEventRecord &Rec(int i) const;
    AscendC::TPipe *pipe_ = nullptr;
    uint32_t firstRec_ = 0;        // this queue's buffers are records [firstRec_, firstRec_ + num) of pipe_
    uint32_t cursor_ = 0;          // next buffer AllocTensor tries (round robin, as CANN's bufCursor)
    std::vector<uint8_t *> bufs_;
    std::vector<uint8_t> state_;   // 0 free, 1 allocated, 2 enqueued
    std::deque<int> fifo_;
    uint32_t epoch_ = 0;
    AscendC::TPosition pos_ = AscendC::TPosition::VECIN;
    int32_t depth_ = 0;
    uint32_t len_ = 0;
    bool inited_ = false;
};

}  // namespace kernel
}  // namespace twin

namespace AscendC {

template <TPosition src, TPosition dst, int32_t depth, auto mask = 0>
class TQueBind {
public:
    __aicore__ TQueBind() = default;
    // trailing file/line: twin-only call-site parameters (twin/kernel/sync_site.h)
    template <typename T>
    __aicore__ inline LocalTensor<T> AllocTensor(const char* file = __builtin_FILE(), int line = __builtin_LINE())
    {
        uint8_t* p = core_.Alloc("TQue::AllocTensor", {file, line});
        return LocalTensor<T>(reinterpret_cast<T *>(p), core_.Len() / sizeof(T), src);
    }
    template <typename T>
    __aicore__ inline void FreeTensor(
        LocalTensor<T>& tensor, const char* file = __builtin_FILE(), int line = __builtin_LINE())
    {
        core_.Free("TQue::FreeTensor", tensor.TwinAddr(), {file, line});
    }
    template <typename T>
    __aicore__ inline bool EnQue(
        const LocalTensor<T>& tensor, const char* file = __builtin_FILE(), int line = __builtin_LINE())
    {
        core_.EnQue("TQue::EnQue", tensor.TwinAddr(), {file, line});
        return true;
    }
    template <typename T>
    __aicore__ inline LocalTensor<T> DeQue(const char* file = __builtin_FILE(), int line = __builtin_LINE())
    {
        uint8_t* p = core_.DeQue("TQue::DeQue", {file, line});
        return LocalTensor<T>(reinterpret_cast<T *>(p), core_.Len() / sizeof(T), dst);
    }
    __aicore__ inline bool VacantInQue() { return core_.VacantInQue(); }
    __aicore__ inline bool HasTensorInQue() { return core_.HasTensorInQue(); }
    __aicore__ inline int32_t GetTensorCountInQue() { return core_.GetTensorCountInQue(); }
    __aicore__ inline bool HasIdleBuffer() { return core_.HasIdleBuffer(); }
    // Twin-internal: called by TPipe::InitBuffer.
    bool TwinInit(TPipe *pipe, uint8_t num, uint32_t len) {
        core_.Init("TPipe::InitBuffer", pipe, src, dst, depth, num, len);
        return true;
    }

private:
    twin::kernel::QueueCore core_;
};

template <TPosition pos, int32_t depth, auto mask = 0>
class TQue : public TQueBind<pos, pos, depth, mask> {};

template <TPosition pos = TPosition::VECCALC>
class TBuf {
public:
    __aicore__ TBuf() = default;
    template <typename T> __aicore__ inline LocalTensor<T> Get() {
        Check("TBuf::Get");
        return LocalTensor<T>(reinterpret_cast<T *>(addr_), len_ / sizeof(T), pos);
    }
    template <typename T> __aicore__ inline LocalTensor<T> Get(uint32_t len) {
        Check("TBuf::Get");
        if (static_cast<uint64_t>(len) * sizeof(T) > len_)
            twin::kernel::Violation("TBuf::Get", "len * sizeof(T) = " + std::to_string(uint64_t(len) * sizeof(T)) +
                                    " bytes exceeds the TBuf length " + std::to_string(len_));
        return LocalTensor<T>(reinterpret_cast<T *>(addr_), len, static_cast<uint32_t>(len_ / sizeof(T)), pos);
    }
    template <typename T> __aicore__ inline LocalTensor<T> GetWithOffset(uint32_t size, uint32_t bufOffset) {
        Check("TBuf::GetWithOffset");
        if (bufOffset % 32 != 0)
            twin::kernel::Violation("TBuf::GetWithOffset", "bufOffset must be 32-byte aligned; got " + std::to_string(bufOffset));
        if (static_cast<uint64_t>(size) * sizeof(T) + bufOffset > len_)
            twin::kernel::Violation("TBuf::GetWithOffset", "bufOffset + size * sizeof(T) exceeds the TBuf length " + std::to_string(len_));
        return LocalTensor<T>(reinterpret_cast<T *>(addr_ + bufOffset), size, static_cast<uint32_t>((len_ - bufOffset) / sizeof(T)), pos);
    }
    bool TwinInit(uint32_t len) {
        addr_ = twin::kernel::AllocUbBuffer("TPipe::InitBuffer", pos, len, 1);
        len_ = (len + 31u) / 32u * 32u;
        epoch_ = twin::kernel::Core("TPipe::InitBuffer").ubEpoch;
        return true;
    }

private:
    void Check(const char *api) const {
        if (addr_ == nullptr) twin::kernel::Violation(api, "TBuf used before TPipe::InitBuffer");
        if (epoch_ != twin::kernel::Core(api).ubEpoch) twin::kernel::Violation(api, "TBuf used after TPipe::Reset/Destroy released its UB (InitBuffer it again)");
    }
    uint32_t epoch_ = 0;
    uint8_t *addr_ = nullptr;
    uint32_t len_ = 0;
};

class TPipe {
public:
    __aicore__ TPipe();
    __aicore__ ~TPipe();
    TPipe(const TPipe &) = delete;
    TPipe &operator=(const TPipe &) = delete;
    __aicore__ inline void Init() {}
    template <class T> __aicore__ inline bool InitBuffer(T &que, uint8_t num, uint32_t len) { return que.TwinInit(this, num, len); }
    template <TPosition bufPos> __aicore__ inline bool InitBuffer(TBuf<bufPos> &buf, uint32_t len) { return buf.TwinInit(len); }
    template <HardEvent evt> __aicore__ inline TEventID AllocEventID() { return AllocEventIDImpl(evt); }
    template <HardEvent evt> __aicore__ inline void ReleaseEventID(TEventID id) { ReleaseEventIDImpl(evt, id); }
    template <HardEvent evt> __aicore__ inline TEventID FetchEventID() { return FetchEventIDImpl(evt); }
    __aicore__ void Destroy();
    __aicore__ void Reset();   // releases all UB; queues/TBufs must be InitBuffer'ed again

    __aicore__ inline TEventID FetchEventID(HardEvent evt) { return FetchEventIDImpl(evt); }

    // Twin-internal: the event-ID pool and the queue-buffer records (see the header comment).
    TEventID AllocEventIDImpl(HardEvent evt);
    void ReleaseEventIDImpl(HardEvent evt, TEventID id);
    TEventID FetchEventIDImpl(HardEvent evt);
    uint32_t TwinAddRecords(const char *api, uint32_t n);
    twin::kernel::BufEventRecord &TwinRecord(uint32_t i) { return records_[i]; }

private:
    void WaitHeldFreeFlags(bool quiet);
    void ResetPool();
    uint8_t eventOccupy_[static_cast<int>(HardEvent::MAX)] = {};
    twin::kernel::BufEventRecord records_[twin::kernel::kMaxBuffersPerKernel];
    uint32_t recordCount_ = 0;
    bool destroyed_ = false;
    bool isAic_ = false;
};

}  // namespace AscendC

// Global namespace, as CANN declares it (8.1.RC1 basic_api/interface/kernel_common.h; asc-devkit
// include/basic_api/kernel_common.h): `AscendC::GetTPipePtr()` does not compile against CANN.
__aicore__ AscendC::TPipe *GetTPipePtr();
