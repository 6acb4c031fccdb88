// Twin platform model: the active SoC preset (process-global) that both the kernel side (launcher,
// UB capacity) and the host side (PlatformAscendC) read.
// Numbers come from the official SoC ini files (hicann/runtime src/platform/platform_config/cann/
// Ascend<SoC>.ini; see twin/README.md, "Supported APIs and where they were looked up", SoC presets).
// Sizes are in bytes, freq in MHz.
// Initial value: env TWIN_SOC (default "Ascend910B2") and TWIN_AIV_CORES (vector-core override N:
// aivCores = N, aicCores = ceil(N/2), physicalAivCores = 2 * aicCores because every AI core has two
// vector cores — a MIX 1:2 block always gets two AIV; launches are checked against the physical
// counts). TWIN_HBM_BYTES (positive decimal bytes) replaces the preset's HBM size (memory_size) in every
// preset, also for SetPlatform. SetPlatform() changes it at run time (not while a Launch is running).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace twin {

struct Platform {
    std::string soc;          // e.g. "Ascend910B2"
    uint32_t aicCores;        // cube cores (cube_core_cnt)
    uint32_t aivCores;        // vector cores (vector_core_cnt); what tiling sees (GetCoreNumAiv)
    uint32_t physicalAivCores; // vector cores that physically exist: 2 per AI core (= aivCores without override)
    uint64_t ubBytes;         // Unified Buffer per AIV (ub_size)
    uint64_t l1Bytes;         // L1 per AIC (l1_size)
    uint64_t l0aBytes;        // L0A per AIC
    uint64_t l0bBytes;        // L0B per AIC
    uint64_t l0cBytes;        // L0C per AIC
    uint64_t l2Bytes;         // L2 cache (l2_size)
    uint64_t hbmBytes;        // HBM (memory_size)
    uint32_t freqMhz;         // cube_freq
};

// UB budget rules (ASC-GUIDE NPU架构版本2201: users get at most 192 KB - 256 B; the build reserves a
// further 8 KB unless --cce-disable-asc-reserved-ubuf — that 8 KB is UNCONFIRMED for older CANN).
// The twin is strict: a kernel fitting on the twin fits on the chip either way.
constexpr uint64_t kUbSystemReservedBytes = 256;        // never usable by kernels
constexpr uint64_t kUbAscReservedBytes = 8 * 1024;      // UNCONFIRMED 8 KB reservation (counted)
constexpr uint64_t kUbAlignBytes = 32;                  // UB address / DataBlock granularity

// System workspace convention (cann-conventions §3.5): the first kLibApiWorkspaceBytes of the
// kernel `workspace` argument belong to the library (Matmul); GetUserWorkspace(ws) = ws + that.
// platform_ascendc::PlatformAscendC::GetLibApiWorkSpaceSize() on the twin returns the same number.
constexpr uint64_t kLibApiWorkspaceBytes = 16ull * 1024 * 1024;

// A copy of the active platform, taken under the platform lock (a reference would be read after the
// lock is released while SetPlatform may be writing it).
Platform CurrentPlatform();
// soc: one of PlatformPresets(); aivCoresOverride 0 = the preset's count. Throws std::invalid_argument
// naming the argument on an unknown soc or an override larger than the preset.
void SetPlatform(const std::string &soc, uint32_t aivCoresOverride = 0);
std::vector<std::string> PlatformPresets();
// Bytes of UB a kernel may allocate with InitBuffer on one AIV core of the current platform.
uint64_t UsableUbBytes();

}  // namespace twin
