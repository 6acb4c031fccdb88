// SoC presets (RUNTIME src/platform/platform_config/cann/Ascend<SoC>.ini, cann-conventions §5) and the
// process-global active platform.
#include "twin/platform.h"

#include <cstdlib>
#include <mutex>
#include <stdexcept>

namespace twin {
namespace {

constexpr uint64_t kGiB = 1024ull * 1024 * 1024;
constexpr uint64_t kMiB = 1024ull * 1024;

const std::vector<Platform> &Presets() {
    static const std::vector<Platform> presets = {
        {"Ascend910B1", 24, 48, 48, 196608, 524288, 65536, 65536, 131072, 192 * kMiB, 64 * kGiB, 1850},
        {"Ascend910B2", 24, 48, 48, 196608, 524288, 65536, 65536, 131072, 192 * kMiB, 64 * kGiB, 1800},
        {"Ascend910B3", 20, 40, 40, 196608, 524288, 65536, 65536, 131072, 192 * kMiB, 64 * kGiB, 1800},
        {"Ascend910B4", 20, 40, 40, 196608, 524288, 65536, 65536, 131072, 96 * kMiB, 32 * kGiB, 1500},
        // Atlas A3: "Ascend910_93" = the Ascend910_9392 ini (24 AIC / 48 AIV, 1850 MHz).
        {"Ascend910_93", 24, 48, 48, 196608, 524288, 65536, 65536, 131072, 192 * kMiB, 64 * kGiB, 1850},
        {"Ascend910_9392", 24, 48, 48, 196608, 524288, 65536, 65536, 131072, 192 * kMiB, 64 * kGiB, 1850},
        {"Ascend910_9382", 24, 48, 48, 196608, 524288, 65536, 65536, 131072, 192 * kMiB, 64 * kGiB, 1800},
        {"Ascend910_9372", 20, 40, 40, 196608, 524288, 65536, 65536, 131072, 192 * kMiB, 64 * kGiB, 1800},
        {"Ascend910_9362", 20, 40, 40, 196608, 524288, 65536, 65536, 131072, 168 * kMiB, 64 * kGiB, 1500},
    };
    return presets;
}

uint64_t ParseHbmBytesEnv(const char* text);

Platform MakePlatform(const std::string &soc, uint32_t aivOverride) {
    for (const auto &p : Presets()) {
        if (p.soc != soc) continue;
        Platform r = p;
        const char* hbm = std::getenv("TWIN_HBM_BYTES");
        if (hbm != nullptr && *hbm != '\0')
            r.hbmBytes = ParseHbmBytesEnv(hbm);
        if (aivOverride != 0) {
            if (aivOverride > p.aivCores)
                throw std::invalid_argument("aivCoresOverride: must be <= " + std::to_string(p.aivCores) + " vector cores of " + soc +
                                            "; got " + std::to_string(aivOverride));
            r.aivCores = aivOverride;
            r.aicCores = (aivOverride + 1) / 2;
            r.physicalAivCores = 2 * r.aicCores;
        }
        return r;
    }
    std::string names;
    for (const auto &p : Presets()) names += (names.empty() ? "" : ", ") + p.soc;
    throw std::invalid_argument("soc: unknown SoC '" + soc + "'; expected one of " + names);
}

// TWIN_AIV_CORES: a positive decimal count of vector cores; anything else is an error, never ignored.
uint32_t ParseAivCoresEnv(const char *text) {
    const std::string value(text);
    bool digits = !value.empty() && value.size() <= 9;
    for (char c : value) digits = digits && c >= '0' && c <= '9';
    const unsigned long n = digits ? std::strtoul(value.c_str(), nullptr, 10) : 0;
    if (n == 0)
        throw std::invalid_argument("TWIN_AIV_CORES: must be a positive decimal number of vector cores (or unset); got '" +
                                    value + "'");
    return static_cast<uint32_t>(n);
}

// TWIN_HBM_BYTES: a positive decimal byte count replacing every preset's memory_size (a test knob of the
// twin: tilings that scale with the device memory can be exercised small); anything else is an error.
uint64_t ParseHbmBytesEnv(const char* text)
{
    const std::string value(text);
    bool digits = !value.empty() && value.size() <= 18;
    for (char c : value)
        digits = digits && c >= '0' && c <= '9';
    const unsigned long long n = digits ? std::strtoull(value.c_str(), nullptr, 10) : 0;
    if (n == 0)
        throw std::invalid_argument(
            "TWIN_HBM_BYTES: must be a positive decimal number of bytes (or unset); got '" + value + "'");
    return static_cast<uint64_t>(n);
}

std::mutex g_mu;
Platform g_platform;
bool g_init = false;

void InitFromEnv() {
    if (g_init) return;
    const char *soc = std::getenv("TWIN_SOC");
    const char *aiv = std::getenv("TWIN_AIV_CORES");
    uint32_t n = 0;
    if (aiv != nullptr && *aiv != '\0') n = ParseAivCoresEnv(aiv);
    g_platform = MakePlatform(soc != nullptr && *soc != '\0' ? soc : "Ascend910B2", n);
    g_init = true;
}

}  // namespace

Platform CurrentPlatform() {
    std::lock_guard<std::mutex> lk(g_mu);
    InitFromEnv();
    return g_platform;
}

void SetPlatform(const std::string &soc, uint32_t aivCoresOverride) {
    Platform p = MakePlatform(soc, aivCoresOverride);
    std::lock_guard<std::mutex> lk(g_mu);
    g_platform = p;
    g_init = true;
}

std::vector<std::string> PlatformPresets() {
    std::vector<std::string> r;
    for (const auto &p : Presets()) r.push_back(p.soc);
    return r;
}

uint64_t UsableUbBytes() { return CurrentPlatform().ubBytes - kUbSystemReservedBytes - kUbAscReservedBytes; }

}  // namespace twin
