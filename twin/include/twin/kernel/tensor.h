// GlobalTensor (GM view) and LocalTensor (UB view) of the twin.
// LocalTensor invariants: addr_ points into the owning core's UB arena; size_ = elements from addr_
// to the end of its logical size (GetSize), cap_ = elements to the end of the buffer it was carved
// from (the bound of every access); a default-constructed
// tensor has addr_ == nullptr. GlobalTensor checks every access against the GM registry.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include "twin/kernel/core_context.h"

namespace twin {
namespace kernel {

// Scalar GM accesses are relaxed atomics so that cross-core polling of GM flags (a legal pattern on
// the chip) is well-defined C++ and cannot be hoisted out of a loop by the compiler.
template <typename T>
inline T GmScalarLoad(const T *p) {
    T v;
    if constexpr (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8) {
        using U = std::conditional_t<sizeof(T) == 1, uint8_t, std::conditional_t<sizeof(T) == 2, uint16_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
        if (reinterpret_cast<uintptr_t>(p) % sizeof(T) == 0) {
            const U u = __atomic_load_n(reinterpret_cast<const U *>(p), __ATOMIC_RELAXED);
            std::memcpy(&v, &u, sizeof(T));
            return v;
        }
    }
    std::memcpy(&v, p, sizeof(T));
    return v;
}

template <typename T>
inline void GmScalarStore(T *p, T v) {
    if constexpr (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8) {
        using U = std::conditional_t<sizeof(T) == 1, uint8_t, std::conditional_t<sizeof(T) == 2, uint16_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
        if (reinterpret_cast<uintptr_t>(p) % sizeof(T) == 0) {
            U u;
            std::memcpy(&u, &v, sizeof(T));
            __atomic_store_n(reinterpret_cast<U *>(p), u, __ATOMIC_RELAXED);
            return;
        }
    }
    std::memcpy(p, &v, sizeof(T));
}

}  // namespace kernel
}  // namespace twin

namespace AscendC {

template <typename T> class LocalTensor;

template <typename T>
class GlobalTensor {
public:
    using PrimType = T;
    __aicore__ GlobalTensor() = default;
    __aicore__ inline void SetGlobalBuffer(__gm__ T *buffer, uint64_t bufferSize) { addr_ = buffer; size_ = bufferSize; }
    __aicore__ inline void SetGlobalBuffer(__gm__ T *buffer) { addr_ = buffer; size_ = 0; }
    __aicore__ inline const __gm__ T *GetPhyAddr() const { return addr_; }
    __aicore__ inline __gm__ T *GetPhyAddr(const uint64_t offset) const { return addr_ + offset; }
    __aicore__ inline __gm__ T *GetPhyAddr() { return addr_; }
    __aicore__ inline uint64_t GetSize() const { return size_; }
    __aicore__ inline T GetValue(const uint64_t offset) const {
        auto &c = twin::kernel::Core("GlobalTensor::GetValue");
        twin::kernel::PollAbort(c);
        twin::kernel::CheckGm("GlobalTensor::GetValue", c, addr_ + offset, sizeof(T), false);
        twin::kernel::TlSync(c); // scalar access: earlier instructions issue before it
        ++c.counters.scalarGmOps;
        return twin::kernel::GmScalarLoad(addr_ + offset);
    }
    __aicore__ inline void SetValue(const uint64_t offset, T value) {
        auto &c = twin::kernel::Core("GlobalTensor::SetValue");
        twin::kernel::PollAbort(c);
        twin::kernel::CheckGm("GlobalTensor::SetValue", c, addr_ + offset, sizeof(T), true);
        twin::kernel::TlSync(c); // scalar access: earlier instructions issue before it
        ++c.counters.scalarGmOps;
        twin::kernel::GmScalarStore(addr_ + offset, value);
    }
    __aicore__ inline GlobalTensor operator[](const uint64_t offset) const {
        GlobalTensor r;
        r.addr_ = addr_ + offset;
        r.size_ = size_ > offset ? size_ - offset : 0;
        return r;
    }
    // Twin-internal raw pointer (no checks).
    T *TwinAddr() const { return addr_; }

private:
    T *addr_ = nullptr;
    uint64_t size_ = 0;
};

template <typename T>
class LocalTensor {
public:
    using PrimType = T;
    __aicore__ LocalTensor() = default;
    LocalTensor(T *addr, uint32_t size, TPosition pos) : addr_(addr), size_(size), cap_(size), pos_(pos) {}
    LocalTensor(T *addr, uint32_t size, uint32_t cap, TPosition pos) : addr_(addr), size_(size), cap_(cap), pos_(pos) {}

    __aicore__ inline LocalTensor operator[](const uint32_t offset) const {
        if (offset > cap_)
            twin::kernel::LocalOffsetBeyond(offset, cap_); // out of line: this stays inlinable
        return LocalTensor(addr_ + offset, size_ > offset ? size_ - offset : 0, cap_ - offset, pos_);
    }
    __aicore__ inline T GetValue(const uint32_t index) const {
        auto &c = twin::kernel::Core("LocalTensor::GetValue");
        twin::kernel::HzPipeScope hzPipe(c, twin::kernel::HzPipe::S);
        CheckIndex("LocalTensor::GetValue", index);
        twin::kernel::CheckUbAddress("LocalTensor::GetValue", c, addr_ + index, sizeof(T));
        twin::kernel::UbCheckRead("LocalTensor::GetValue", c, addr_ + index, sizeof(T));
        twin::kernel::TlSync(c); // scalar access: earlier instructions issue before it
        ++c.counters.scalarUbOps;
        return addr_[index];
    }
    template <typename T1>
    __aicore__ inline void SetValue(const uint32_t index, const T1 value) const {
        auto &c = twin::kernel::Core("LocalTensor::SetValue");
        twin::kernel::HzPipeScope hzPipe(c, twin::kernel::HzPipe::S);
        CheckIndex("LocalTensor::SetValue", index);
        twin::kernel::CheckUbAddress("LocalTensor::SetValue", c, addr_ + index, sizeof(T));
        twin::kernel::TlSync(c); // scalar access: earlier instructions issue before it
        ++c.counters.scalarUbOps;
        addr_[index] = static_cast<T>(value);
        twin::kernel::UbMarkWritten(c, addr_ + index, sizeof(T));
    }
    __aicore__ inline uint32_t GetSize() const { return size_; }
    __aicore__ inline uint32_t GetLength() const { return size_ * static_cast<uint32_t>(sizeof(T)); }
    __aicore__ inline void SetSize(const uint32_t size) {
        if (size > cap_) twin::kernel::Violation("LocalTensor::SetSize", "size " + std::to_string(size) + " exceeds the buffer (" + std::to_string(cap_) + " elements)");
        size_ = size;
    }
    // UB address as an integer (the twin returns the host address of the UB byte).
    __aicore__ inline uint64_t GetPhyAddr() const { return reinterpret_cast<uint64_t>(addr_); }
    __aicore__ inline uint64_t GetPhyAddr(const uint32_t offset) const { return reinterpret_cast<uint64_t>(addr_ + offset); }
    __aicore__ inline TPosition GetPosition() const { return pos_; }
    template <typename U>
    __aicore__ inline LocalTensor<U> ReinterpretCast() const {
        return LocalTensor<U>(reinterpret_cast<U *>(addr_), static_cast<uint32_t>(static_cast<uint64_t>(size_) * sizeof(T) / sizeof(U)),
                              static_cast<uint32_t>(static_cast<uint64_t>(cap_) * sizeof(T) / sizeof(U)), pos_);
    }
    // Twin-internal accessors (no checks).
    T *TwinAddr() const { return addr_; }
    uint32_t TwinCapacity() const { return cap_; }   // elements to the end of the buffer
    void CheckIndex(const char *api, uint64_t index) const {
        if (addr_ == nullptr) twin::kernel::Violation(api, "LocalTensor is not allocated (no AllocTensor/Get)");
        if (index >= cap_) twin::kernel::Violation(api, "index " + std::to_string(index) + " out of bounds of the LocalTensor's buffer (" + std::to_string(cap_) + " elements)");
    }

private:
    T *addr_ = nullptr;
    uint32_t size_ = 0;
    uint32_t cap_ = 0;
    TPosition pos_ = TPosition::VECCALC;
};

}  // namespace AscendC

namespace twin {
namespace kernel {

// Validates that [elemOffset, elemOffset+count) of t lies inside its buffer and on this core's UB.
template <typename T>
inline void CheckLocalRange(const char *api, const CoreContext &c, const AscendC::LocalTensor<T> &t, uint64_t count, const char *what) {
    if (t.TwinAddr() == nullptr) Violation(api, std::string(what) + " LocalTensor is not allocated");
    if (count > t.TwinCapacity())
        Violation(api, std::string(what) + " access of " + std::to_string(count) + " elements exceeds the LocalTensor's buffer (" +
                           std::to_string(t.TwinCapacity()) + " elements)");
    CheckUbAddress(api, c, t.TwinAddr(), count * sizeof(T));
}

}  // namespace kernel
}  // namespace twin
