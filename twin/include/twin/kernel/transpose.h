// TransDataTo5HD of the twin (CANN 8.1.RC1 kernel_operator_vec_transpose_intf.h / kernel_struct_transpose.h;
// asc-devkit docs 数据排布转换/TransDataTo5HD.md; dav_c220 kernel_operator_vec_transpose_impl.h: the 16 dst and 16
// src addresses go to the VA registers (SetVaReg: four set_va_reg_sb), then one scatter_vnchwconv_b16 / _b32).
// One repeat reads 16 DataBlocks (32 B each), src block i at srcList[i] + r*srcRepStride blocks, and writes 16
// DataBlocks, dst block j at dstList[j] + r*dstRepStride blocks:
//   b16 (16 elements per block): dst block j, element i = src block i, element j (a 16 x 16 transpose);
//   b32 (8 elements per block): dst block 2j + h, element k = src block 8h + k, element j (j < 8, h < 2, k < 8:
//        a 16 x 8 matrix, one row per src block, to 8 rows of 16, two blocks each).
// The repeat offset is r*RepStride for repeatTimes > 1; with repeatTimes == 1 the one repeat is at
// list + RepStride (the docs' rule: set the strides to 0 to start at the lists). repeatTimes 0 is a NOP.
// Rules checked: T is int16_t, uint16_t, half, int32_t, uint32_t or float (A2/A3; 8-bit types and their
// high/low halves are not modelled, bfloat16_t is not supported on A2); every address 32-B aligned and inside
// UB; no src block of a call may share memory with a dst block of the call (the chip reads and writes the
// repeat's blocks in one instruction). Cost: 表9 TransDataTo5HD, 128 (b16) / 64 (b32) elements per cycle
// (two cycles per repeat); the four VA register loads are charged as four more issued instructions.
#pragma once
#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>
#include "twin/kernel/vec_engine.h"

namespace AscendC {

constexpr int32_t NCHW_CONV_ADDR_LIST_SIZE = 16;

struct TransDataTo5HDParams {
    __aicore__ TransDataTo5HDParams() {}
    __aicore__ TransDataTo5HDParams(
        const bool dstHighHalfIn, const bool srcHighHalfIn, const uint8_t repeatTimesIn, const uint16_t dstRepStrideIn,
        const uint16_t srcRepStrideIn)
        : dstHighHalf(dstHighHalfIn),
          srcHighHalf(srcHighHalfIn),
          repeatTimes(repeatTimesIn),
          dstRepStride(dstRepStrideIn),
          srcRepStride(srcRepStrideIn)
    {}
    bool dstHighHalf = false;
    bool srcHighHalf = false;
    uint8_t repeatTimes = 1;
    uint16_t dstRepStride = 0;
    uint16_t srcRepStride = 0;
};

template <typename T>
__aicore__ inline void TransDataTo5HD(
    const LocalTensor<T> (&dstLocalList)[NCHW_CONV_ADDR_LIST_SIZE],
    const LocalTensor<T> (&srcLocalList)[NCHW_CONV_ADDR_LIST_SIZE], const TransDataTo5HDParams& params)
{
    static_assert(
        std::is_same<T, int16_t>::value || std::is_same<T, uint16_t>::value || std::is_same<T, half>::value ||
            std::is_same<T, int32_t>::value || std::is_same<T, uint32_t>::value || std::is_same<T, float>::value,
        "TransDataTo5HD: data type not modelled; accepted on Atlas A2/A3 (16/32-bit): int16_t, uint16_t, "
        "half, int32_t, uint32_t, float");
    const char* api = "TransDataTo5HD";
    auto& c = twin::kernel::Core(api);
    twin::kernel::RequireAiv(api, c);
    if (params.repeatTimes == 0)
        return;
    if (params.dstHighHalf || params.srcHighHalf)
        twin::kernel::Violation(api, "dstHighHalf/srcHighHalf apply to 8-bit types only");
    constexpr uint32_t kList = NCHW_CONV_ADDR_LIST_SIZE;
    constexpr uint32_t perBlk = 32 / sizeof(T);
    const uint32_t repeats = params.repeatTimes;
    // repeat r's block offset (in blocks) from the list addresses
    auto at = [&](uint32_t r, uint16_t stride) { return uint64_t(repeats == 1 ? 1 : r) * stride; };
    const uint64_t dstSpan = (at(repeats - 1, params.dstRepStride) + 1) * 32;
    const uint64_t srcSpan = (at(repeats - 1, params.srcRepStride) + 1) * 32;
    // argument names for the reports (fixed strings: no string is built per call)
    static const char* const kDstNames[kList] = {
        "dstLocalList[0]",  "dstLocalList[1]",  "dstLocalList[2]",  "dstLocalList[3]",
        "dstLocalList[4]",  "dstLocalList[5]",  "dstLocalList[6]",  "dstLocalList[7]",
        "dstLocalList[8]",  "dstLocalList[9]",  "dstLocalList[10]", "dstLocalList[11]",
        "dstLocalList[12]", "dstLocalList[13]", "dstLocalList[14]", "dstLocalList[15]"};
    static const char* const kSrcNames[kList] = {
        "srcLocalList[0]",  "srcLocalList[1]",  "srcLocalList[2]",  "srcLocalList[3]",
        "srcLocalList[4]",  "srcLocalList[5]",  "srcLocalList[6]",  "srcLocalList[7]",
        "srcLocalList[8]",  "srcLocalList[9]",  "srcLocalList[10]", "srcLocalList[11]",
        "srcLocalList[12]", "srcLocalList[13]", "srcLocalList[14]", "srcLocalList[15]"};
    for (uint32_t i = 0; i < kList; ++i) {
        twin::kernel::CheckUbAligned(api, c, dstLocalList[i].TwinAddr(), kDstNames[i]);
        twin::kernel::CheckUbAligned(api, c, srcLocalList[i].TwinAddr(), kSrcNames[i]);
        twin::kernel::CheckLocalRange(api, c, dstLocalList[i], dstSpan / sizeof(T), kDstNames[i]);
        twin::kernel::CheckLocalRange(api, c, srcLocalList[i], srcSpan / sizeof(T), kSrcNames[i]);
    }
    // repeat r's src block i / dst block j
    auto srcBlock = [&](uint32_t r, uint32_t i) {
        return reinterpret_cast<const uint8_t*>(srcLocalList[i].TwinAddr()) + at(r, params.srcRepStride) * 32;
    };
    auto dstBlock = [&](uint32_t r, uint32_t j) {
        return reinterpret_cast<uint8_t*>(dstLocalList[j].TwinAddr()) + at(r, params.dstRepStride) * 32;
    };
    // no src block may share memory with a dst block of the call: checked block by block only when the address
    // ranges the two lists reach intersect
    const uint8_t *srcLo = srcBlock(0, 0), *srcHi = srcLo, *dstLo = dstBlock(0, 0), *dstHi = dstLo;
    for (uint32_t i = 0; i < kList; ++i) {
        srcLo = std::min(srcLo, srcBlock(0, i));
        srcHi = std::max(srcHi, srcBlock(repeats - 1, i) + 32);
        dstLo = std::min<const uint8_t*>(dstLo, dstBlock(0, i));
        dstHi = std::max<const uint8_t*>(dstHi, dstBlock(repeats - 1, i) + 32);
    }
    if (srcLo < dstHi && dstLo < srcHi) {
        static thread_local std::vector<const uint8_t*> writes;
        writes.clear();
        for (uint32_t r = 0; r < repeats; ++r)
            for (uint32_t j = 0; j < kList; ++j)
                writes.push_back(dstBlock(r, j));
        std::sort(writes.begin(), writes.end());
        for (uint32_t r = 0; r < repeats; ++r) {
            for (uint32_t i = 0; i < kList; ++i) {
                const uint8_t* rb = srcBlock(r, i);
                auto it = std::upper_bound(writes.begin(), writes.end(), rb);
                if ((it != writes.end() && *it < rb + 32) || (it != writes.begin() && *(it - 1) + 32 > rb))
                    twin::kernel::Violation(api, "a src block shares memory with a dst block of the same call");
            }
        }
    }
    for (uint32_t r = 0; r < repeats; ++r)
        for (uint32_t i = 0; i < kList; ++i)
            twin::kernel::UbCheckReadBlock(api, c, srcBlock(r, i)); // aligned (checked above): one block
    T in[kList][perBlk];
    for (uint32_t r = 0; r < repeats; ++r) {
        for (uint32_t i = 0; i < kList; ++i)
            std::memcpy(in[i], srcBlock(r, i), 32);
        for (uint32_t j = 0; j < kList; ++j) {
            T out[perBlk];
            for (uint32_t k = 0; k < perBlk; ++k) {
                // b16: dst block j <- element j of src blocks 0..15; b32: dst block 2j'+h <- element j' of
                // src blocks 8h..8h+7
                out[k] = perBlk == kList ? in[k][j] : in[8 * (j % 2) + k][j / 2];
            }
            uint8_t* db = dstBlock(r, j);
            std::memcpy(db, out, 32);
            twin::kernel::UbMarkWrittenBlock(c, db);
        }
    }
    const uint64_t elems = uint64_t(repeats) * kList * perBlk;
    c.counters.vecElemOps += elems;
    c.counters.vecInstrs += repeats;
    twin::kernel::ChargeVector(c, api, sizeof(T), elems);
    c.counters.vecIssued += 4; // SetVaReg: the four set_va_reg_sb of the address lists
}

} // namespace AscendC
