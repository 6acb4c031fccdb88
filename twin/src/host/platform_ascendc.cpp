// PlatformAscendC and fe::PlatFormInfos of the twin (rules in tiling/platform/platform_ascendc.h).
#include <cctype>
#include <string>
#ifdef TWIN_HAVE_KERNEL_RUNTIME  // set by twin/CMakeLists.txt when twin/src/kernel is built
#include "twin/platform.h"
#define TWIN_HAVE_KERNEL_PLATFORM 1
#endif
#include "context_data.h"
#include "tiling/platform/platform_ascendc.h"

namespace twin_host {
fe::PlatFormInfos SnapshotPlatform() {
    fe::PlatFormInfos p;
#ifdef TWIN_HAVE_KERNEL_PLATFORM
    const auto &cur = twin::CurrentPlatform();
    p.socVersion = cur.soc;
    p.aicCores = cur.aicCores;
    p.aivCores = cur.aivCores;
    p.ubBytes = cur.ubBytes;
    p.l1Bytes = cur.l1Bytes;
    p.l0aBytes = cur.l0aBytes;
    p.l0bBytes = cur.l0bBytes;
    p.l0cBytes = cur.l0cBytes;
    p.l2Bytes = cur.l2Bytes;
    p.hbmBytes = cur.hbmBytes;
    p.freqMhz = cur.freqMhz;
#else
    // Kernel-side twin platform not available yet: Ascend910B2 ini values.
    p.socVersion = "Ascend910B2";
    p.aicCores = 24; p.aivCores = 48; p.ubBytes = 196608; p.l1Bytes = 524288;
    p.l0aBytes = 65536; p.l0bBytes = 65536; p.l0cBytes = 131072;
    p.l2Bytes = 201326592; p.hbmBytes = 68719476736ULL; p.freqMhz = 1800;
#endif
    return p;
}

std::string ComputeUnitOfSoc(const std::string &soc) {
    std::string lower;
    for (char c : soc) { lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }
    if (lower.rfind("ascend910_93", 0) == 0) { return "ascend910_93"; }
    if (lower.rfind("ascend910b", 0) == 0) { return "ascend910b"; }
    return lower;
}
}  // namespace twin_host

namespace fe {
bool PlatFormInfos::GetPlatformRes(const std::string &label, const std::string &key, std::string &val) const {
    if (label == "SoCInfo") {
        if (key == "ai_core_cnt" || key == "cube_core_cnt") { val = std::to_string(aicCores); return true; }
        if (key == "vector_core_cnt") { val = std::to_string(aivCores); return true; }
        if (key == "cube_vector_combine") { val = "split"; return true; }
        if (key == "l2_size") { val = std::to_string(l2Bytes); return true; }
        if (key == "memory_size") { val = std::to_string(hbmBytes); return true; }
    } else if (label == "AICoreSpec") {
        if (key == "ub_size") { val = std::to_string(ubBytes); return true; }
        if (key == "l1_size") { val = std::to_string(l1Bytes); return true; }
        if (key == "l0_a_size") { val = std::to_string(l0aBytes); return true; }
        if (key == "l0_b_size") { val = std::to_string(l0bBytes); return true; }
        if (key == "l0_c_size") { val = std::to_string(l0cBytes); return true; }
        if (key == "cube_freq") { val = std::to_string(freqMhz); return true; }
    } else if (label == "version") {
        if (key == "SoC_version") { val = socVersion; return true; }
        if (key == "Short_SoC_version") {
            val = twin_host::ComputeUnitOfSoc(socVersion) == "ascend910_93" ? "Ascend910_93" : "Ascend910B";
            return true;
        }
        if (key == "NpuArch") { val = "2201"; return true; }
    }
    return false;
}
}  // namespace fe

namespace platform_ascendc {
namespace {
constexpr uint64_t kLocalReserveBytes = 256;               // UB/L1 reserved for KFC on the 910B family
constexpr uint32_t kLibApiWorkspace2201 = 16 * 1024 * 1024;  // GetLibApiWorkSpaceSize on NpuArch 2201
fe::PlatFormInfos &FallbackInfo() {
    static fe::PlatFormInfos p = twin_host::SnapshotPlatform();
    return p;
}
}  // namespace

const fe::PlatFormInfos &PlatformAscendC::Info() const {
    return platformInfo_ != nullptr ? *platformInfo_ : FallbackInfo();
}
uint32_t PlatformAscendC::GetCoreNum(void) const { return Info().aicCores; }
uint32_t PlatformAscendC::GetCoreNumAic(void) const { return Info().aicCores; }
uint32_t PlatformAscendC::GetCoreNumAiv(void) const { return Info().aivCores; }
uint32_t PlatformAscendC::GetCoreNumVector(void) const { return 0; }
uint32_t PlatformAscendC::CalcTschNumBlocks(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const {
    if (aicCoreNum == 0 || aivCoreNum == 0 || aicCoreNum > aivCoreNum) { return sliceNum; }
    const uint32_t ratio = aivCoreNum / aicCoreNum;
    const uint32_t blocks = (sliceNum + ratio - 1) / ratio;
    if (ratio == 2 && blocks > aicCoreNum) { return 0; }  // MIX 1:2 may not exceed the physical AIC count
    return blocks;
}
uint32_t PlatformAscendC::CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const {
    return CalcTschNumBlocks(sliceNum, aicCoreNum, aivCoreNum);
}
uint32_t PlatformAscendC::GetLibApiWorkSpaceSize(void) const {
#ifdef TWIN_HAVE_KERNEL_PLATFORM
    static_assert(twin::kLibApiWorkspaceBytes == kLibApiWorkspace2201, "kernel side and host side disagree");
    return static_cast<uint32_t>(twin::kLibApiWorkspaceBytes);
#else
    return kLibApiWorkspace2201;
#endif
}
void PlatformAscendC::GetCoreMemSize(const CoreMemType &memType, uint64_t &size) const {
    const auto &p = Info();
    switch (memType) {
        case CoreMemType::L0_A: size = p.l0aBytes; break;
        case CoreMemType::L0_B: size = p.l0bBytes; break;
        case CoreMemType::L0_C: size = p.l0cBytes; break;
        case CoreMemType::L1: size = p.l1Bytes - kLocalReserveBytes; break;
        case CoreMemType::L2: size = p.l2Bytes; break;
        case CoreMemType::UB: size = p.ubBytes - kLocalReserveBytes - reservedMemSize_; break;
        case CoreMemType::HBM: size = p.hbmBytes; break;
        case CoreMemType::FB: size = 2048; break;   // Fixpipe buffer 2 KB (2201 spec)
        case CoreMemType::BT: size = 1024; break;   // BiasTable 1 KB (2201 spec)
        default: size = 0; break;
    }
}
void PlatformAscendC::GetCoreMemBw(const CoreMemType &memType, uint64_t &bwSize) const {
    // ini *_rate values (units undocumented; CANN supports only L2 and HBM here).
    if (memType == CoreMemType::L2) { bwSize = 110; }
    else if (memType == CoreMemType::HBM) { bwSize = 32; }
    else { bwSize = 0; }
}
void PlatformAscendC::ReserveLocalMemory(ReservedSize size) {
    switch (size) {
        case ReservedSize::RESERVED_SIZE_8K: reservedMemSize_ = 8 * 1024; break;
        case ReservedSize::RESERVED_SIZE_16K: reservedMemSize_ = 16 * 1024; break;
        case ReservedSize::RESERVED_SIZE_32K: reservedMemSize_ = 32 * 1024; break;
    }
}
SocVersion PlatformAscendC::GetSocVersion(void) const {
    const std::string unit = twin_host::ComputeUnitOfSoc(Info().socVersion);
    if (unit == "ascend910b" || unit == "ascend910_93") { return SocVersion::ASCEND910B; }
    return SocVersion::RESERVED_VERSION;
}
}  // namespace platform_ascendc
