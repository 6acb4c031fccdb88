// CPU twin of platform/platform_infos_def.h: fe::PlatFormInfos, the platform description handed to
// TilingFunc via TilingContext::GetPlatformInfo(). Opaque to operator code (use PlatformAscendC);
// in the twin it is a snapshot of the active twin platform (twin::CurrentPlatform()) taken when the
// aclnn runtime builds the TilingContext. Keys of GetPlatformRes follow the SoC ini files
// (hicann/runtime src/platform/platform_config/cann/Ascend<SoC>.ini): SoCInfo/{ai_core_cnt,
// cube_core_cnt, vector_core_cnt, cube_vector_combine}, AICoreSpec/{ub_size, l1_size, l0_a_size,
// l0_b_size, l0_c_size}, version/{SoC_version, Short_SoC_version, NpuArch}.
#pragma once
#include <cstdint>
#include <string>

namespace fe {
class PlatFormInfos {
public:
    std::string socVersion = "Ascend910B2";  // full SoC name, e.g. Ascend910B2, Ascend910_9392
    uint32_t aicCores = 0;
    uint32_t aivCores = 0;
    uint64_t ubBytes = 0;
    uint64_t l1Bytes = 0;
    uint64_t l0aBytes = 0;
    uint64_t l0bBytes = 0;
    uint64_t l0cBytes = 0;
    uint64_t l2Bytes = 0;
    uint64_t hbmBytes = 0;
    uint32_t freqMhz = 0;
    // ini-style lookup; false when the label/key is unknown.
    bool GetPlatformRes(const std::string &label, const std::string &key, std::string &val) const;
    bool GetPlatformResWithLock(const std::string &label, const std::string &key, std::string &val) const {
        return GetPlatformRes(label, key, val);
    }
    uint32_t GetCoreNum() const { return aicCores; }
};
}  // namespace fe
