// CPU twin of tiling/platform/platform_ascendc.h (cannmirror/asc-devkit
// include/utils/tiling/platform/platform_ascendc.h + impl/utils/tiling/platform/platform_ascendc.cpp).
// Values come from the fe::PlatFormInfos snapshot of the active twin platform:
//   GetCoreNum = GetCoreNumAic = cube cores, GetCoreNumAiv = vector cores (A2/A3 separated mode),
//   GetCoreNumVector = 0 (only 310P has separate vector cores), GetLibApiWorkSpaceSize = 16 MiB on
//   NpuArch 2201, GetCoreMemSize(UB/L1) = ini size - 256 B (reserved for KFC on the ASCEND910B family),
//   GetSocVersion: Ascend910B* and Ascend910_93* -> SocVersion::ASCEND910B (CANN's short-SoC mapping).
#pragma once
#include <cstdint>
#include "platform/platform_infos_def.h"

namespace platform_ascendc {
enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, FB = 7, BT = 8, RESERVED };
enum class SocVersion {
    ASCEND910 = 0, ASCEND910B, ASCEND310P, ASCEND310B, ASCEND950, ASCEND910_55, ASCEND910_95 = ASCEND950,
    AS31XM1, ASCEND031, ASCEND035, ASCEND310, ASCEND610, ASCEND610Lite, ASCEND910_93, BS9SX1A, BS9SX2A,
    HI3796CV300CS, HI3796CV300ES, MC61AM21A, MC62, SD3403, KIRINX90, KIRIN9030, MC32DM11A, ASCEND350,
    RESERVED_VERSION = 99999
};
enum class ReservedSize { RESERVED_SIZE_8K, RESERVED_SIZE_16K, RESERVED_SIZE_32K };

class PlatformAscendC {
public:
    PlatformAscendC() = delete;
    ~PlatformAscendC() = default;
    explicit PlatformAscendC(fe::PlatFormInfos *platformInfo) : platformInfo_(platformInfo) {}
    uint32_t GetCoreNum(void) const;
    uint32_t GetCoreNumAic(void) const;
    uint32_t GetCoreNumAiv(void) const;
    uint32_t GetCoreNumVector(void) const;
    uint32_t CalcTschNumBlocks(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const;
    uint32_t CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const;
    uint32_t GetLibApiWorkSpaceSize(void) const;
    void GetCoreMemSize(const CoreMemType &memType, uint64_t &size) const;
    void GetCoreMemBw(const CoreMemType &memType, uint64_t &bwSize) const;
    void ReserveLocalMemory(ReservedSize size);
    SocVersion GetSocVersion(void) const;

private:
    const fe::PlatFormInfos &Info() const;
    fe::PlatFormInfos *platformInfo_;
    uint32_t reservedMemSize_ = 0;
};
}  // namespace platform_ascendc
