// DataCopy / DataCopyPad / Copy-free GM<->UB movement of the twin (ASC-API 数据搬运/GM与UB数据搬运).
// Units (as on the chip): DataCopy(count) moves count*sizeof(T) rounded DOWN to 32 B;
// DataCopyParams: blockLen, srcStride, dstStride in 32-B DataBlocks, blockCount <= 4095;
// DataCopyPad: blockLen in bytes (multiple of sizeof(T), <= 2097151); the GM-side stride in bytes,
// the UB-side stride in 32-B blocks; each block occupies a 32-B rounded slot in UB.
// UB addresses must be 32-B aligned; GM addresses sizeof(T)-aligned for DataCopy, 1-B for DataCopyPad.
// Writes to GM honour the atomic mode set by SetAtomicAdd<T> (element type must match).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include "twin/kernel/api_tally.h"
#include "twin/kernel/tensor.h"

namespace AscendC {

struct DataCopyParams {
    __aicore__ DataCopyParams() {}
    __aicore__ DataCopyParams(const uint16_t count, const uint16_t len, const uint16_t srcStrideIn, const uint16_t dstStrideIn)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn) {}
    uint16_t blockCount = DEFAULT_DATA_COPY_NBURST;
    uint16_t blockLen = 0;
    union { uint16_t srcGap = 0; uint16_t srcStride; };
    union { uint16_t dstGap = 0; uint16_t dstStride; };
    uint8_t fixShiftVal = 0;
};

struct DataCopyExtParams {
    __aicore__ DataCopyExtParams() {}
    __aicore__ DataCopyExtParams(const uint16_t count, const uint32_t len, const uint32_t srcStrideIn, const uint32_t dstStrideIn, const uint32_t rsvIn)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn), rsv(rsvIn) {}
    uint16_t blockCount = DEFAULT_DATA_COPY_NBURST;
    uint32_t blockLen = 0;
    uint32_t srcStride = DEFAULT_DATA_COPY_STRIDE;
    uint32_t dstStride = DEFAULT_DATA_COPY_STRIDE;
    uint32_t rsv = 0;
};

struct DataCopyPadParams {
    __aicore__ DataCopyPadParams() {}
    __aicore__ DataCopyPadParams(const bool isPadValue, const uint8_t leftPadValue, const uint8_t rightPadValue, const uint64_t padValue)
        : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue) {}
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    uint64_t paddingValue = 0;
};

template <typename T>
struct DataCopyPadExtParams {
    __aicore__ DataCopyPadExtParams() : isPad(false), leftPadding(0), rightPadding(0), paddingValue(static_cast<T>(0)) {}
    __aicore__ DataCopyPadExtParams(const bool isPadValue, const uint8_t leftPadValue, const uint8_t rightPadValue, T padValue)
        : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue) {}
    bool isPad;
    uint8_t leftPadding;
    uint8_t rightPadding;
    T paddingValue;
};

}  // namespace AscendC

namespace twin {
namespace kernel {

inline void RequireAiv(const char *api, const CoreContext &c) {
    if (c.isAic) Violation(api, "AIC (cube) cores have no Unified Buffer; vector/UB APIs are AIV-only");
}

inline void CheckGmAligned(const char *api, const void *p, size_t align) {
    if (reinterpret_cast<uintptr_t>(p) % align != 0)
        Violation(api, "GM address must be " + std::to_string(align) + "-byte aligned (sizeof(T))");
}

// Writes `elems` elements from UB to GM honouring the atomic mode. Bounds must be checked by the caller.
template <typename T>
inline void GmStore(const char *api, CoreContext &c, T *gm, const T *ub, size_t elems) {
    if (elems == 0) return;
    CheckGm(api, c, gm, elems * sizeof(T), true);
    L2Note(c, gm, elems * sizeof(T), true);
    c.counters.ubToGmBytes += elems * sizeof(T);
    if (c.atomicOp == 0) {
        std::memcpy(gm, ub, elems * sizeof(T));
        return;
    }
    if (c.atomicType == nullptr || *c.atomicType != typeid(T))
        Violation(api, std::string("atomic mode was set for ") + (c.atomicTypeName ? c.atomicTypeName : "?") +
                           " but the copy element type is " + TypeName<T>() + " (SetAtomicAdd<T> must match)");
    c.counters.gmAtomicBytes += elems * sizeof(T);
    GmAtomicLock(gm);
    for (size_t i = 0; i < elems; ++i) {
        const T a = gm[i], b = ub[i];
        if (c.atomicOp == 1) gm[i] = static_cast<T>(a + b);
        else if (c.atomicOp == 2) gm[i] = (b > a) ? b : a;
        else gm[i] = (b < a) ? b : a;
    }
    GmAtomicUnlock(gm);
}

}  // namespace kernel
}  // namespace twin

namespace AscendC {

// ---- contiguous (count) form ---------------------------------------------------------------------
template <typename T>
__aicore__ inline void DataCopy(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const uint32_t count) {
    const char *api = "DataCopy(GM->UB)";
    auto &c = twin::kernel::Core(api);
    twin::kernel::HzPipeScope hzPipe(c, twin::kernel::HzPipe::MTE2);
    twin::kernel::RequireAiv(api, c);
    const uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T) / 32 * 32;   // rounded down like the chip
    twin::kernel::CheckUbAligned(api, c, dst.TwinAddr(), "dst");
    twin::kernel::CheckLocalRange(api, c, dst, bytes / sizeof(T), "dst");
    twin::kernel::CheckGmAligned(api, src.TwinAddr(), sizeof(T));
    if (bytes == 0) return;
    twin::kernel::CheckGm(api, c, src.TwinAddr(), bytes, false);
    twin::kernel::L2Note(c, src.TwinAddr(), bytes, false);
    std::memcpy(dst.TwinAddr(), src.TwinAddr(), bytes);
    twin::kernel::UbMarkWritten(c, dst.TwinAddr(), bytes);
    c.counters.gmToUbBytes += bytes;
    ++c.counters.gmToUbCopies;
}

template <typename T>
__aicore__ inline void DataCopy(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t count) {
    const char *api = "DataCopy(UB->GM)";
    auto &c = twin::kernel::Core(api);
    twin::kernel::HzPipeScope hzPipe(c, twin::kernel::HzPipe::MTE3);
    twin::kernel::RequireAiv(api, c);
    const uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T) / 32 * 32;
    twin::kernel::CheckUbAligned(api, c, src.TwinAddr(), "src");
    twin::kernel::CheckLocalRange(api, c, src, bytes / sizeof(T), "src");
    twin::kernel::CheckGmAligned(api, dst.TwinAddr(), sizeof(T));
    if (bytes == 0) return;
    twin::kernel::UbCheckRead(api, c, src.TwinAddr(), bytes);
    twin::kernel::GmStore(api, c, dst.TwinAddr(), src.TwinAddr(), bytes / sizeof(T));
    ++c.counters.ubToGmCopies;
}

template <typename T>
__aicore__ inline void DataCopy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t count) {
    const char *api = "DataCopy(UB->UB)";
    auto &c = twin::kernel::Core(api);
    twin::kernel::RequireAiv(api, c);
    const uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T) / 32 * 32;
    twin::kernel::CheckUbAligned(api, c, dst.TwinAddr(), "dst");
    twin::kernel::CheckUbAligned(api, c, src.TwinAddr(), "src");
    twin::kernel::CheckLocalRange(api, c, dst, bytes / sizeof(T), "dst");
    twin::kernel::CheckLocalRange(api, c, src, bytes / sizeof(T), "src");
    if (bytes == 0) return;
    twin::kernel::UbCheckRead(api, c, src.TwinAddr(), bytes);
    std::memmove(dst.TwinAddr(), src.TwinAddr(), bytes);
    twin::kernel::UbMarkWritten(c, dst.TwinAddr(), bytes);
    c.counters.ubToUbBytes += bytes;
    ++c.counters.vecIssued; // a PIPE_V instruction the scalar unit issues, like every vector instruction
    if (twin::kernel::ApiTallyOn())
        twin::kernel::ApiTallyAdd(c.counters.syncAllCount, api, 0);
}

// ---- strided (DataCopyParams) form: all lengths/gaps in 32-B DataBlocks -------------------------
namespace twin_detail {
inline void CheckBlockParams(const char *api, const DataCopyParams &p) {
    if (p.blockCount > 4095)
        twin::kernel::Violation(api, "DataCopyParams.blockCount must be in [0, 4095]; got " + std::to_string(p.blockCount));
}
}  // namespace twin_detail

template <typename T>
__aicore__ inline void DataCopy(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const DataCopyParams &p) {
    const char *api = "DataCopy(GM->UB, DataCopyParams)";
    auto &c = twin::kernel::Core(api);
    twin::kernel::HzPipeScope hzPipe(c, twin::kernel::HzPipe::MTE2);
    twin::kernel::RequireAiv(api, c);
    twin_detail::CheckBlockParams(api, p);
    twin::kernel::CheckUbAligned(api, c, dst.TwinAddr(), "dst");
    twin::kernel::CheckGmAligned(api, src.TwinAddr(), sizeof(T));
    if (p.blockCount == 0 || p.blockLen == 0) return;
    const uint64_t blk = uint64_t(p.blockLen) * 32;
    const uint64_t ubSpan = (uint64_t(p.blockCount) - 1) * (p.blockLen + p.dstStride) * 32 + blk;
    twin::kernel::CheckLocalRange(api, c, dst, (ubSpan + sizeof(T) - 1) / sizeof(T), "dst");
    auto *d = reinterpret_cast<uint8_t *>(dst.TwinAddr());
    auto *s = reinterpret_cast<const uint8_t *>(src.TwinAddr());
    for (uint32_t i = 0; i < p.blockCount; ++i) {
        const uint8_t *gs = s + uint64_t(i) * (p.blockLen + p.srcStride) * 32;
        uint8_t *ud = d + uint64_t(i) * (p.blockLen + p.dstStride) * 32;
        twin::kernel::CheckGm(api, c, gs, blk, false);
        twin::kernel::L2Note(c, gs, blk, false);
        std::memcpy(ud, gs, blk);
        twin::kernel::UbMarkWritten(c, ud, blk);
    }
    c.counters.gmToUbBytes += blk * p.blockCount;
    ++c.counters.gmToUbCopies;
}

template <typename T>
__aicore__ inline void DataCopy(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyParams &p) {
    const char *api = "DataCopy(UB->GM, DataCopyParams)";
    auto &c = twin::kernel::Core(api);
    twin::kernel::HzPipeScope hzPipe(c, twin::kernel::HzPipe::MTE3);
    twin::kernel::RequireAiv(api, c);
    twin_detail::CheckBlockParams(api, p);
    twin::kernel::CheckUbAligned(api, c, src.TwinAddr(), "src");
    twin::kernel::CheckGmAligned(api, dst.TwinAddr(), sizeof(T));
    if (p.blockCount == 0 || p.blockLen == 0) return;
    const uint64_t blk = uint64_t(p.blockLen) * 32;
    const uint64_t ubSpan = (uint64_t(p.blockCount) - 1) * (p.blockLen + p.srcStride) * 32 + blk;
    twin::kernel::CheckLocalRange(api, c, src, (ubSpan + sizeof(T) - 1) / sizeof(T), "src");
    for (uint32_t i = 0; i < p.blockCount; ++i) {
        const T *us = reinterpret_cast<const T *>(reinterpret_cast<const uint8_t *>(src.TwinAddr()) + uint64_t(i) * (p.blockLen + p.srcStride) * 32);
        T *gd = reinterpret_cast<T *>(reinterpret_cast<uint8_t *>(dst.TwinAddr()) + uint64_t(i) * (p.blockLen + p.dstStride) * 32);
        twin::kernel::UbCheckRead(api, c, us, blk);
        twin::kernel::GmStore(api, c, gd, us, blk / sizeof(T));
    }
    ++c.counters.ubToGmCopies;
}

template <typename T>
__aicore__ inline void DataCopy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyParams &p) {
    const char *api = "DataCopy(UB->UB, DataCopyParams)";
    auto &c = twin::kernel::Core(api);
    twin::kernel::RequireAiv(api, c);
    twin_detail::CheckBlockParams(api, p);
    twin::kernel::CheckUbAligned(api, c, dst.TwinAddr(), "dst");
    twin::kernel::CheckUbAligned(api, c, src.TwinAddr(), "src");
    if (p.blockCount == 0 || p.blockLen == 0) return;
    const uint64_t blk = uint64_t(p.blockLen) * 32;
    twin::kernel::CheckLocalRange(api, c, src, ((uint64_t(p.blockCount) - 1) * (p.blockLen + p.srcStride) * 32 + blk) / sizeof(T), "src");
    twin::kernel::CheckLocalRange(api, c, dst, ((uint64_t(p.blockCount) - 1) * (p.blockLen + p.dstStride) * 32 + blk) / sizeof(T), "dst");
    for (uint32_t i = 0; i < p.blockCount; ++i) {
        const uint8_t *us = reinterpret_cast<const uint8_t *>(src.TwinAddr()) + uint64_t(i) * (p.blockLen + p.srcStride) * 32;
        uint8_t *ud = reinterpret_cast<uint8_t *>(dst.TwinAddr()) + uint64_t(i) * (p.blockLen + p.dstStride) * 32;
        twin::kernel::UbCheckRead(api, c, us, blk);
        std::memmove(ud, us, blk);
        twin::kernel::UbMarkWritten(c, ud, blk);
    }
    c.counters.ubToUbBytes += blk * p.blockCount;
    ++c.counters.vecIssued; // a PIPE_V instruction the scalar unit issues, like every vector instruction
    if (twin::kernel::ApiTallyOn())
        twin::kernel::ApiTallyAdd(c.counters.syncAllCount, api, 0);
}

// ---- DataCopyPad: byte-granular blocks -----------------------------------------------------------
namespace twin_detail {
template <typename T>
inline void DataCopyPadIn(const char *api, const LocalTensor<T> &dst, const GlobalTensor<T> &src, uint32_t blockCount,
                          uint32_t blockLen, uint64_t srcStrideBytes, uint64_t dstStrideBlocks, bool isPad,
                          uint32_t left, uint32_t right, T padValue) {
    auto &c = twin::kernel::Core(api);
    twin::kernel::HzPipeScope hzPipe(c, twin::kernel::HzPipe::MTE2);
    twin::kernel::RequireAiv(api, c);
    if (blockCount > 4095) twin::kernel::Violation(api, "blockCount must be in [0, 4095]; got " + std::to_string(blockCount));
    if (blockLen > 2097151) twin::kernel::Violation(api, "blockLen must be in [0, 2097151] bytes; got " + std::to_string(blockLen));
    if (blockLen % sizeof(T) != 0)
        twin::kernel::Violation(api, "blockLen (bytes) must be a multiple of sizeof(T) = " + std::to_string(sizeof(T)) + "; got " + std::to_string(blockLen));
    if (left * sizeof(T) > 32 || right * sizeof(T) > 32)
        twin::kernel::Violation(api, "leftPadding/rightPadding must each occupy at most 32 bytes; got " + std::to_string(left) + "/" + std::to_string(right) + " elements");
    twin::kernel::CheckUbAligned(api, c, dst.TwinAddr(), "dst");
    if (blockCount == 0 || blockLen == 0) return;
    const uint64_t slot = (uint64_t(left) * sizeof(T) + blockLen + uint64_t(right) * sizeof(T) + 31) / 32 * 32;
    const uint64_t ubSpan = (uint64_t(blockCount) - 1) * (slot + dstStrideBlocks * 32) + slot;
    twin::kernel::CheckLocalRange(api, c, dst, ubSpan / sizeof(T), "dst");
    const uint8_t *s = reinterpret_cast<const uint8_t *>(src.TwinAddr());
    const uint32_t n = blockLen / sizeof(T);
    for (uint32_t i = 0; i < blockCount; ++i) {
        const T *gs = reinterpret_cast<const T *>(s + uint64_t(i) * (blockLen + srcStrideBytes));
        T *ud = reinterpret_cast<T *>(reinterpret_cast<uint8_t *>(dst.TwinAddr()) + uint64_t(i) * (slot + dstStrideBlocks * 32));
        twin::kernel::CheckGm(api, c, gs, blockLen, false);
        twin::kernel::L2Note(c, gs, blockLen, false);
        std::memcpy(ud + left, gs, blockLen);
        const uint32_t slotElems = static_cast<uint32_t>(slot / sizeof(T));
        // Pad/dummy elements: isPad -> paddingValue; no padding requested -> the chip repeats the
        // block's first element; otherwise undefined (poison stays).
        if (isPad || (left == 0 && right == 0)) {
            const T fill = isPad ? padValue : gs[0];
            for (uint32_t k = 0; k < left; ++k) ud[k] = fill;
            for (uint32_t k = left + n; k < slotElems; ++k) ud[k] = fill;
        }
        twin::kernel::UbMarkWritten(c, ud, slot);
    }
    c.counters.gmToUbBytes += uint64_t(blockLen) * blockCount;
    ++c.counters.gmToUbCopies;
}

template <typename T>
inline void DataCopyPadOut(const char *api, const GlobalTensor<T> &dst, const LocalTensor<T> &src, uint32_t blockCount,
                           uint32_t blockLen, uint64_t srcStrideBlocks, uint64_t dstStrideBytes) {
    auto &c = twin::kernel::Core(api);
    twin::kernel::HzPipeScope hzPipe(c, twin::kernel::HzPipe::MTE3);
    twin::kernel::RequireAiv(api, c);
    if (blockCount > 4095) twin::kernel::Violation(api, "blockCount must be in [0, 4095]; got " + std::to_string(blockCount));
    if (blockLen > 2097151) twin::kernel::Violation(api, "blockLen must be in [0, 2097151] bytes; got " + std::to_string(blockLen));
    if (blockLen % sizeof(T) != 0)
        twin::kernel::Violation(api, "blockLen (bytes) must be a multiple of sizeof(T) = " + std::to_string(sizeof(T)) + "; got " + std::to_string(blockLen));
    twin::kernel::CheckUbAligned(api, c, src.TwinAddr(), "src");
    if (blockCount == 0 || blockLen == 0) return;
    const uint64_t slot = (uint64_t(blockLen) + 31) / 32 * 32;
    const uint64_t ubSpan = (uint64_t(blockCount) - 1) * (slot + srcStrideBlocks * 32) + blockLen;
    twin::kernel::CheckLocalRange(api, c, src, (ubSpan + sizeof(T) - 1) / sizeof(T), "src");
    for (uint32_t i = 0; i < blockCount; ++i) {
        const T *us = reinterpret_cast<const T *>(reinterpret_cast<const uint8_t *>(src.TwinAddr()) + uint64_t(i) * (slot + srcStrideBlocks * 32));
        T *gd = reinterpret_cast<T *>(reinterpret_cast<uint8_t *>(dst.TwinAddr()) + uint64_t(i) * (blockLen + dstStrideBytes));
        twin::kernel::UbCheckRead(api, c, us, blockLen);
        twin::kernel::GmStore(api, c, gd, us, blockLen / sizeof(T));
    }
    ++c.counters.ubToGmCopies;
}
}  // namespace twin_detail

template <typename T>
__aicore__ inline void DataCopyPad(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const DataCopyExtParams &p,
                                   const DataCopyPadExtParams<T> &pad) {
    twin_detail::DataCopyPadIn("DataCopyPad(GM->UB)", dst, src, p.blockCount, p.blockLen, p.srcStride, p.dstStride,
                               pad.isPad, pad.leftPadding, pad.rightPadding, pad.paddingValue);
}

template <typename T>
__aicore__ inline void DataCopyPad(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const DataCopyParams &p,
                                   const DataCopyPadParams &pad) {
    T padValue;
    std::memcpy(&padValue, &pad.paddingValue, sizeof(T) < sizeof(uint64_t) ? sizeof(T) : sizeof(uint64_t));
    twin_detail::DataCopyPadIn("DataCopyPad(GM->UB)", dst, src, p.blockCount, p.blockLen, p.srcStride, p.dstStride,
                               pad.isPad, pad.leftPadding, pad.rightPadding, padValue);
}

template <typename T>
__aicore__ inline void DataCopyPad(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyExtParams &p) {
    twin_detail::DataCopyPadOut("DataCopyPad(UB->GM)", dst, src, p.blockCount, p.blockLen, p.srcStride, p.dstStride);
}

template <typename T>
__aicore__ inline void DataCopyPad(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyParams &p) {
    twin_detail::DataCopyPadOut("DataCopyPad(UB->GM)", dst, src, p.blockCount, p.blockLen, p.srcStride, p.dstStride);
}

}  // namespace AscendC
