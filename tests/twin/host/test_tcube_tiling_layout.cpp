// Host optiling::TCubeTiling (macro struct) and the kernel POD TCubeTiling (kernel_tiling/kernel_tiling.h,
// twin kernel side) must be byte-identical: same size, same field offsets by name.
#include <cstddef>
#include <cstdio>
#include <string>
#include <gtest/gtest.h>

#include "tiling/tiling_api.h"
#if __has_include("kernel_tiling/kernel_tiling.h")
#include "kernel_tiling/kernel_tiling.h"
#define HAVE_KERNEL_TCUBE 1
#endif

TEST(TcubeTilingLayout, host_and_kernel_tcube_tiling_agree)
{
#ifdef HAVE_KERNEL_TCUBE
    optiling::TCubeTiling host;
    EXPECT_EQ(sizeof(::TCubeTiling), host.GetDataSize());
    size_t offset = 0;
    for (const auto &f : host.GetFieldInfo()) {
        const std::string n = f.name_;
#define TWIN_FIELD(name)                                  \
    if (n == #name) {                                     \
        EXPECT_EQ(offsetof(::TCubeTiling, name), offset); \
    }
        TWIN_FIELD(usedCoreNum) TWIN_FIELD(M) TWIN_FIELD(N) TWIN_FIELD(Ka) TWIN_FIELD(Kb) TWIN_FIELD(singleCoreM)
        TWIN_FIELD(singleCoreN) TWIN_FIELD(singleCoreK) TWIN_FIELD(baseM) TWIN_FIELD(baseN) TWIN_FIELD(baseK)
        TWIN_FIELD(depthA1) TWIN_FIELD(depthB1) TWIN_FIELD(stepM) TWIN_FIELD(stepN) TWIN_FIELD(isBias)
        TWIN_FIELD(transLength) TWIN_FIELD(iterateOrder) TWIN_FIELD(shareMode) TWIN_FIELD(shareL1Size)
        TWIN_FIELD(shareL0CSize) TWIN_FIELD(shareUbSize) TWIN_FIELD(batchM) TWIN_FIELD(batchN)
        TWIN_FIELD(singleBatchM) TWIN_FIELD(singleBatchN) TWIN_FIELD(stepKa) TWIN_FIELD(stepKb)
        TWIN_FIELD(dbL0A) TWIN_FIELD(dbL0B) TWIN_FIELD(dbL0C)
#undef TWIN_FIELD
        offset += 4;
    }
#else
    std::printf("SKIPPED: kernel_tiling/kernel_tiling.h (twin kernel side) does not exist yet\n");
#endif
}
