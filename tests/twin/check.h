// Minimal test harness for the C++ twin tests (no third-party framework on CI machines).
// CHECK(cond) records a failure and continues; TEST_MAIN() runs the registered cases and
// prints "N passed, N failed"; the exit code is non-zero when anything failed.
#pragma once
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace twintest {
struct Case { const char *name; std::function<void()> fn; };
inline std::vector<Case> &Cases() { static std::vector<Case> c; return c; }
inline int &Failures() { static int f = 0; return f; }
struct Registrar { Registrar(const char *n, std::function<void()> f) { Cases().push_back({n, std::move(f)}); } };
}  // namespace twintest

#define TEST_CASE(name)                                                         \
    static void name();                                                         \
    static ::twintest::Registrar name##_registrar(#name, name);                 \
    static void name()

#define CHECK(cond)                                                             \
    do {                                                                        \
        if (!(cond)) {                                                          \
            std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            ++::twintest::Failures();                                           \
        }                                                                       \
    } while (0)

#define TEST_MAIN()                                                             \
    int main() {                                                                \
        int passed = 0, failed = 0;                                             \
        for (auto &c : ::twintest::Cases()) {                                   \
            int before = ::twintest::Failures();                                \
            c.fn();                                                             \
            if (::twintest::Failures() == before) { ++passed; }                 \
            else { ++failed; std::fprintf(stderr, "FAILED: %s\n", c.name); }   \
        }                                                                       \
        std::printf("%d passed, %d failed\n", passed, failed);                  \
        return failed == 0 ? 0 : 1;                                             \
    }
