// PlatformAscendC values per preset / override, and matmul_tiling GetTiling sanity and failures.
#include <cstdio>
#include <string>
#include <gtest/gtest.h>

#include "host/context_data.h"
#include "runtime/runtime_api.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"

using platform_ascendc::CoreMemType;

static bool LauncherBuilt() {
#ifdef TWIN_HAVE_KERNEL_RUNTIME
    return true;
#else
    return false;
#endif
}

TEST(PlatformMatmul, default_platform_is_910b2)
{
    twinSetPlatform("Ascend910B2", 0);
    fe::PlatFormInfos info = twin_host::SnapshotPlatform();
    platform_ascendc::PlatformAscendC p(&info);
    EXPECT_EQ(p.GetCoreNumAic(), 24);
    EXPECT_EQ(p.GetCoreNumAiv(), 48);
    EXPECT_EQ(p.GetCoreNum(), 24);
    EXPECT_EQ(p.GetCoreNumVector(), 0);
    uint64_t ub = 0, l1 = 0, l0a = 0, l0c = 0;
    p.GetCoreMemSize(CoreMemType::UB, ub);
    p.GetCoreMemSize(CoreMemType::L1, l1);
    p.GetCoreMemSize(CoreMemType::L0_A, l0a);
    p.GetCoreMemSize(CoreMemType::L0_C, l0c);
    EXPECT_EQ(ub, 196608 - 256);
    EXPECT_EQ(l1, 524288 - 256);
    EXPECT_EQ(l0a, 65536);
    EXPECT_EQ(l0c, 131072);
    EXPECT_EQ(p.GetLibApiWorkSpaceSize(), 16u * 1024 * 1024);
    EXPECT_EQ(p.GetSocVersion(), platform_ascendc::SocVersion::ASCEND910B);
    EXPECT_EQ(p.CalcTschNumBlocks(48, 24, 48), 24);
    EXPECT_EQ(p.CalcTschNumBlocks(50, 24, 48), 0); // more than the physical AIC count
    p.ReserveLocalMemory(platform_ascendc::ReservedSize::RESERVED_SIZE_8K);
    p.GetCoreMemSize(CoreMemType::UB, ub);
    EXPECT_EQ(ub, 196608 - 256 - 8192);
}

TEST(PlatformMatmul, presets_and_override)
{
    if (!LauncherBuilt()) {
        std::printf("SKIPPED presets_and_override: twin/platform.h (kernel side) not built yet\n");
        return;
    }
    twinSetPlatform("Ascend910B4", 0);
    fe::PlatFormInfos b4 = twin_host::SnapshotPlatform();
    platform_ascendc::PlatformAscendC p4(&b4);
    EXPECT_EQ(p4.GetCoreNumAic(), 20);
    EXPECT_EQ(p4.GetCoreNumAiv(), 40);
    twinSetPlatform("Ascend910_9392", 0);
    fe::PlatFormInfos a3 = twin_host::SnapshotPlatform();
    platform_ascendc::PlatformAscendC p93(&a3);
    EXPECT_EQ(p93.GetCoreNumAiv(), 48);
    EXPECT_EQ(p93.GetSocVersion(), platform_ascendc::SocVersion::ASCEND910B);
    twinSetPlatform("Ascend910B2", 7);
    fe::PlatFormInfos small = twin_host::SnapshotPlatform();
    platform_ascendc::PlatformAscendC ps(&small);
    EXPECT_EQ(ps.GetCoreNumAiv(), 7);
    EXPECT_EQ(ps.GetCoreNumAic(), 4);
    twinSetPlatform("Ascend910B2", 0);
}

static int32_t CeilDiv(int32_t a, int32_t b) { return (a + b - 1) / b; }

static void CheckConsistent(const optiling::TCubeTiling &t0, int32_t m, int32_t n, int32_t k, int32_t bytes) {
    auto &t = const_cast<optiling::TCubeTiling &>(t0);
    EXPECT_EQ(t.get_M(), m);
    EXPECT_EQ(t.get_N(), n);
    EXPECT_EQ(t.get_Ka(), k);
    EXPECT_EQ(t.get_Kb(), k);
    EXPECT_EQ(t.get_singleCoreK(), k);
    EXPECT_EQ(CeilDiv(m, t.get_singleCoreM()) * CeilDiv(n, t.get_singleCoreN()), t.get_usedCoreNum());
    EXPECT_EQ(t.get_baseM() % 16, 0);
    EXPECT_EQ(t.get_baseN() % 16, 0);
    EXPECT_EQ((t.get_baseK() * bytes) % 32, 0);
    EXPECT_LE(t.get_baseM() * t.get_baseK() * bytes * t.get_dbL0A(), 65536);
    EXPECT_LE(t.get_baseN() * t.get_baseK() * bytes * t.get_dbL0B(), 65536);
    EXPECT_LE(t.get_baseM() * t.get_baseN() * 4 * t.get_dbL0C(), 131072);
    EXPECT_EQ(t.get_depthA1(), t.get_stepM() * t.get_stepKa() * 2);
    EXPECT_EQ(t.get_depthB1(), t.get_stepN() * t.get_stepKb() * 2);
    EXPECT_LE(t.get_shareL1Size(), 524288 - 256);
}

TEST(PlatformMatmul, multicore_matmul_tiling)
{
    twinSetPlatform("Ascend910B2", 0);
    fe::PlatFormInfos info = twin_host::SnapshotPlatform();
    platform_ascendc::PlatformAscendC p(&info);
    matmul_tiling::MultiCoreMatmulTiling mm(p);
    using namespace matmul_tiling;
    mm.SetDim(static_cast<int32_t>(p.GetCoreNumAiv()));
    mm.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT, true);
    mm.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    mm.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    mm.SetShape(1000, 300, 777);
    mm.SetOrgShape(1000, 300, 777);
    mm.SetBias(false);
    mm.SetBufferSpace(-1, -1, -1);
    optiling::TCubeTiling t;
    EXPECT_EQ(mm.GetTiling(t), 0);
    EXPECT_LE(t.get_usedCoreNum(), 48);
    EXPECT_GT(t.get_usedCoreNum(), 1);
    EXPECT_EQ(t.get_isBias(), 0);
    CheckConsistent(t, 1000, 300, 777, 4);

    matmul_tiling::MatmulApiTiling single(p);
    single.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
    single.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
    single.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    single.SetShape(64, 4096, 9000);
    single.SetBias(true);
    single.SetBiasType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    optiling::TCubeTiling t2;
    EXPECT_EQ(single.GetTiling(t2), 0);
    EXPECT_EQ(t2.get_usedCoreNum(), 1);
    EXPECT_EQ(t2.get_singleCoreN(), 4096);
    EXPECT_EQ(t2.get_isBias(), 1);
    CheckConsistent(t2, 64, 4096, 9000, 2);
}

TEST(PlatformMatmul, matmul_tiling_shape_grid)
{
    using namespace matmul_tiling;
    fe::PlatFormInfos info = twin_host::SnapshotPlatform();
    platform_ascendc::PlatformAscendC p(&info);
    const int32_t sizes[] = {1, 15, 17, 100, 1000, 4099};
    int failures = 0;
    for (DataType dt : {DataType::DT_FLOAT16, DataType::DT_FLOAT}) {
        for (int32_t dim : {1, 7, 48}) {
            for (int32_t m : sizes) {
                for (int32_t n : sizes) {
                    for (int32_t k : sizes) {
                        MultiCoreMatmulTiling mm(p);
                        mm.SetDim(dim);
                        mm.SetAType(TPosition::GM, CubeFormat::ND, dt, true);
                        mm.SetBType(TPosition::GM, CubeFormat::ND, dt);
                        mm.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
                        mm.SetShape(m, n, k);
                        optiling::TCubeTiling t;
                        if (mm.GetTiling(t) != 0 || t.get_usedCoreNum() > dim) { ++failures; continue; }
                        CheckConsistent(t, m, n, k, dt == DataType::DT_FLOAT ? 4 : 2);
                    }
                }
            }
        }
    }
    EXPECT_EQ(failures, 0);
}

TEST(PlatformMatmul, matmul_tiling_failures)
{
    using namespace matmul_tiling;
    fe::PlatFormInfos info = twin_host::SnapshotPlatform();
    platform_ascendc::PlatformAscendC p(&info);
    optiling::TCubeTiling t;
    MatmulApiTiling noShape(p);
    EXPECT_EQ(noShape.GetTiling(t), -1);
    MatmulApiTiling zero(p);
    zero.SetShape(0, 16, 16);
    EXPECT_EQ(zero.GetTiling(t), -1);
    MatmulApiTiling tooBig(p);
    tooBig.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    tooBig.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    tooBig.SetShape(512, 512, 512);
    EXPECT_EQ(tooBig.SetFixSplit(256, 256), 0); // 256*256*4 bytes > L0C
    EXPECT_EQ(tooBig.GetTiling(t), -1);
    MatmulApiTiling fixK(p);
    EXPECT_EQ(fixK.SetFixSplit(128, 128, 64), -1); // SetFixSplit docs: baseK only -1
    MatmulApiTiling baseOverSingle(p);
    baseOverSingle.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    baseOverSingle.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    baseOverSingle.SetShape(40, 64, 64);
    baseOverSingle.SetFixSplit(64, 64); // baseM 64 > singleM 40 rounded up to 16 (48)
    EXPECT_EQ(baseOverSingle.GetTiling(t), -1);
    MatmulApiTiling misaligned(p);
    misaligned.SetShape(64, 64, 64);
    misaligned.SetFixSplit(20, 16);
    EXPECT_EQ(misaligned.GetTiling(t), -1);
    MultiCoreMatmulTiling split(p);
    split.SetDim(2);
    split.SetShape(100, 100, 32);
    split.SetSingleShape(10, 10, 32);  // needs 100 cores
    EXPECT_EQ(split.GetTiling(t), -1);
    MatmulApiTiling kMismatch(p);
    kMismatch.SetShape(32, 32, 32);
    kMismatch.SetOrgShape(32, 32, 32, 48);
    EXPECT_EQ(kMismatch.GetTiling(t), -1);
}
