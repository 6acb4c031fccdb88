// Optional BLAS backend of the twin's Matmul (opt-in): if the environment variable TWIN_BLAS_LIB names
// an OpenBLAS shared library (e.g. scipy-openblas32's libscipy_openblas.so, or numpy's bundled
// libscipy_openblas64_*.so), fp32 tiles are computed with its cblas_sgemm, single-threaded. Results
// then follow that BLAS's summation order (still independent of core count: every call has the
// shape of a tiling tile). Without the variable the fixed-order reference GEMM is used.
#include <dlfcn.h>

#include <cstdint>
#include <climits>
#include <cstdlib>
#include <mutex>

#include "twin/kernel/core_context.h"

namespace twin {
namespace kernel {
namespace {

constexpr int kCblasRowMajor = 101;
constexpr int kCblasNoTrans = 111;
constexpr int kCblasTrans = 112;
using Sgemm32 = void (*)(int, int, int, int32_t, int32_t, int32_t, float, const float *, int32_t, const float *, int32_t, float, float *, int32_t);
using Sgemm64 = void (*)(int, int, int, int64_t, int64_t, int64_t, float, const float *, int64_t, const float *, int64_t, float, float *, int64_t);
using SetThreads32 = void (*)(int32_t);
using SetThreads64 = void (*)(int64_t);

struct Blas {
    Sgemm32 sgemm32 = nullptr;
    Sgemm64 sgemm64 = nullptr;
};

const Blas &Load() {
    static Blas blas;
    static std::once_flag once;
    std::call_once(once, [] {
        const char *path = std::getenv("TWIN_BLAS_LIB");
        if (path == nullptr || *path == '\0') return;
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (h == nullptr) return;
        blas.sgemm32 = reinterpret_cast<Sgemm32>(dlsym(h, "scipy_cblas_sgemm"));
        if (blas.sgemm32 == nullptr) blas.sgemm32 = reinterpret_cast<Sgemm32>(dlsym(h, "cblas_sgemm"));
        if (blas.sgemm32 == nullptr) blas.sgemm64 = reinterpret_cast<Sgemm64>(dlsym(h, "scipy_cblas_sgemm64_"));
        if (blas.sgemm32 != nullptr) {
            for (const char *n : {"scipy_openblas_set_num_threads", "openblas_set_num_threads"})
                if (auto f = reinterpret_cast<SetThreads32>(dlsym(h, n))) { f(1); break; }
        } else if (blas.sgemm64 != nullptr) {
            if (auto f = reinterpret_cast<SetThreads64>(dlsym(h, "scipy_openblas_set_num_threads64_"))) f(1);
        }
    });
    return blas;
}

}  // namespace

bool BlasAvailable() {
    const Blas &blas = Load();
    return blas.sgemm32 != nullptr || blas.sgemm64 != nullptr;
}

bool BlasSgemmRowMajor(int m, int n, int k, const float *a, const float *b, float *c) {
    const Blas &blas = Load();
    if (blas.sgemm32 != nullptr) {
        blas.sgemm32(kCblasRowMajor, kCblasNoTrans, kCblasNoTrans, m, n, k, 1.0f, a, k, b, n, 1.0f, c, n);
        return true;
    }
    if (blas.sgemm64 != nullptr) {
        blas.sgemm64(kCblasRowMajor, kCblasNoTrans, kCblasNoTrans, m, n, k, 1.0f, a, k, b, n, 1.0f, c, n);
        return true;
    }
    return false;
}

bool BlasSgemmStrided(bool transA, bool transB, int m, int n, int k, const float *a, int64_t lda, const float *b, int64_t ldb, float *c,
                      int64_t ldc) {
    const Blas &blas = Load();
    const int ta = transA ? kCblasTrans : kCblasNoTrans, tb = transB ? kCblasTrans : kCblasNoTrans;
    if (blas.sgemm32 != nullptr) {
        if (lda > INT32_MAX || ldb > INT32_MAX || ldc > INT32_MAX) return false;
        blas.sgemm32(kCblasRowMajor, ta, tb, m, n, k, 1.0f, a, static_cast<int32_t>(lda), b, static_cast<int32_t>(ldb), 1.0f, c,
                     static_cast<int32_t>(ldc));
        return true;
    }
    if (blas.sgemm64 != nullptr) {
        blas.sgemm64(kCblasRowMajor, ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 1.0f, c, ldc);
        return true;
    }
    return false;
}

}  // namespace kernel
}  // namespace twin
