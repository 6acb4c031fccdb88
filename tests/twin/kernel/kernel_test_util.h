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

#include "check.h"
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

inline bool Contains(const std::string &s, const std::string &sub) { return s.find(sub) != std::string::npos; }

// Expects a failed launch whose error names all the given fragments (API, core, rule).
inline bool ExpectViolation(const twin::LaunchResult &r, std::initializer_list<const char *> fragments) {
    bool ok = !r.ok;
    for (const char *f : fragments) ok = ok && Contains(r.error, f);
    if (std::getenv("TWIN_TEST_VERBOSE") != nullptr) std::fprintf(stderr, "  reported: %s\n", r.error.c_str());
    if (!ok) std::fprintf(stderr, "  expected violation with fragments; got ok=%d error='%s'\n", r.ok ? 1 : 0, r.error.c_str());
    return ok;
}

inline bool ExpectOk(const twin::LaunchResult &r) {
    if (!r.ok) std::fprintf(stderr, "  launch failed: %s\n", r.error.c_str());
    return r.ok;
}

}  // namespace ktest
