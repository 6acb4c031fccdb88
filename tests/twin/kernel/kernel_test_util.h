// Helpers for the twin kernel tests: launching, GM buffers, and asserting reported violations.
#pragma once
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "twin/launch.h"
#include "twin/platform.h"

namespace ktest {

// A registered GM buffer of n elements of T (freed at scope end).
template <typename T>
struct Gm {
    explicit Gm(size_t n, const char *name = "gm") : n(n), p(static_cast<T *>(twin::GmAlloc(n * sizeof(T), name))) {}
    ~Gm() { twin::GmFree(p); }
    Gm(const Gm &) = delete;
    Gm &operator=(const Gm &) = delete;
    uint8_t *addr() const { return reinterpret_cast<uint8_t *>(p); }
    T &operator[](size_t i) { return p[i]; }
    const T &operator[](size_t i) const { return p[i]; }
    size_t n;
    T *p;
};

inline twin::LaunchResult Run(uint32_t blockDim, twin::KernelType type, const std::function<void()> &entry, uint32_t timeoutMs = 20000,
                              void *workspace = nullptr, uint64_t tilingKey = 0) {
    twin::LaunchOptions o;
    o.blockDim = blockDim;
    o.type = type;
    o.timeoutMs = timeoutMs;
    o.workspace = workspace;
    o.tilingKey = tilingKey;
    return twin::Launch(o, entry);
}

inline bool Contains(const std::string& s, const std::string& sub) { return s.find(sub) != std::string::npos; }

// Success when `s` contains `sub`; the failure prints both (for EXPECT_TRUE).
inline ::testing::AssertionResult HasSubstr(const std::string& s, const std::string& sub)
{
    if (Contains(s, sub))
        return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "\"" << s << "\" does not contain \"" << sub << "\"";
}

// Expects a failed launch whose error names all the given fragments (API, core, rule); the failure
// prints the launch's outcome and the first missing fragment.
inline ::testing::AssertionResult ExpectViolation(
    const twin::LaunchResult& r, std::initializer_list<const char*> fragments)
{
    if (std::getenv("TWIN_TEST_VERBOSE") != nullptr) std::fprintf(stderr, "  reported: %s\n", r.error.c_str());
    if (r.ok)
        return ::testing::AssertionFailure() << "launch succeeded; expected a violation";
    for (const char* f : fragments) {
        if (!Contains(r.error, f)) {
            return ::testing::AssertionFailure() << "violation \"" << r.error << "\" does not contain \"" << f << "\"";
        }
    }
    return ::testing::AssertionSuccess();
}

// Expects a successful launch; the failure prints the launch error.
inline ::testing::AssertionResult ExpectOk(const twin::LaunchResult& r)
{
    if (r.ok)
        return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "launch failed: " << r.error;
}

}  // namespace ktest
