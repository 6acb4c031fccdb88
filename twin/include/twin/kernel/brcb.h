// Brcb of the twin (CANN 8.1.RC1 kernel_operator_vec_brcb_intf.h / kernel_struct_brcb.h; asc-devkit docs
// 数据填充/Brcb.md; dav_c220 vbrcb). Repeat r reads the 8 elements src[8r .. 8r+7] (src is always read
// contiguously) and fills DataBlock r*dstRepStride + i*dstBlkStride of dst (units of 32 B) with element
// i. Rules: T in {int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float}; dst and src 32-B
// aligned; repeatTime in [0, 255] (0 = NOP); dstBlkStride 0 is undefined behaviour (rejected); src and dst
// must not share memory (rejected when their ranges overlap). The implementation resets the vector mask
// (ResetMask) before issuing the instruction. Cost: 表10 Brcb, output 64 (b32) / 128 (b16) elements per
// cycle = one repeat per cycle.
#pragma once
#include <type_traits>
#include "twin/kernel/vec_engine.h"

namespace AscendC {

struct BrcbRepeatParams {
    __aicore__ BrcbRepeatParams() {}
    __aicore__ BrcbRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t dstRepStrideIn)
        : dstRepStride(dstRepStrideIn), dstBlkStride(dstBlkStrideIn)
    {}
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint16_t dstRepStride = DEFAULT_REPEAT_STRIDE;
    uint16_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src0BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src1BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src0RepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src1RepStride = DEFAULT_REPEAT_STRIDE;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
};

template <typename T>
__aicore__ inline void Brcb(
    const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t repeatTimes,
    const BrcbRepeatParams& repeatParams)
{
    static_assert(
        std::is_same<T, int16_t>::value || std::is_same<T, uint16_t>::value || std::is_same<T, half>::value ||
            std::is_same<T, bfloat16_t>::value || std::is_same<T, int32_t>::value || std::is_same<T, uint32_t>::value ||
            std::is_same<T, float>::value,
        "Brcb: data type not supported on Atlas A2; accepted: int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, "
        "float");
    const char* api = "Brcb";
    auto& c = twin::kernel::Core(api);
    twin::kernel::RequireAiv(api, c);
    c.maskHigh = ~0ull; // BrcbImpl: ResetMask()
    c.maskLow = ~0ull;
    if (repeatTimes == 0)
        return;
    if (repeatParams.dstBlkStride == 0)
        twin::kernel::Violation(api, "BrcbRepeatParams.dstBlkStride must not be 0 (undefined behaviour)");
    twin::kernel::CheckUbAligned(api, c, dst.TwinAddr(), "dst");
    twin::kernel::CheckUbAligned(api, c, src0.TwinAddr(), "src");
    const uint32_t perBlk = 32 / sizeof(T);
    const uint64_t R = repeatTimes;
    const uint64_t srcElems = R * 8;
    twin::kernel::CheckLocalRange(api, c, src0, srcElems, "src");
    const uint64_t lastBlock = (R - 1) * repeatParams.dstRepStride + 7ull * repeatParams.dstBlkStride;
    twin::kernel::CheckLocalRange(api, c, dst, (lastBlock + 1) * perBlk, "dst");
    const uint8_t *d0 = reinterpret_cast<const uint8_t*>(dst.TwinAddr()),
                  *s0 = reinterpret_cast<const uint8_t*>(src0.TwinAddr());
    if (d0 < s0 + srcElems * sizeof(T) && s0 < d0 + (lastBlock + 1) * 32)
        twin::kernel::Violation(api, "src and dst must not share memory (Brcb constraint)");
    twin::kernel::UbCheckRead(api, c, src0.TwinAddr(), srcElems * sizeof(T));
    for (uint64_t r = 0; r < R; ++r) {
        for (uint32_t i = 0; i < 8; ++i) {
            const T v = src0.TwinAddr()[r * 8 + i];
            T* blk =
                dst.TwinAddr() + (r * repeatParams.dstRepStride + uint64_t(i) * repeatParams.dstBlkStride) * perBlk;
            for (uint32_t k = 0; k < perBlk; ++k)
                blk[k] = v;
            twin::kernel::UbMarkWrittenBlock(c, blk); // dst and its strides are whole blocks
        }
    }
    c.counters.vecElemOps += R * 8 * perBlk;
    c.counters.vecInstrs += R;
    twin::kernel::ChargeVector(c, api, sizeof(T), R * 8 * perBlk);
}

} // namespace AscendC
