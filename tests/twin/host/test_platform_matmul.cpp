// PlatformAscendC values per preset / override, and matmul_tiling GetTiling sanity and failures.
#include <cstdio>
#include <string>
#include "check.h"
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

TEST_CASE(default_platform_is_910b2) {
    twinSetPlatform("Ascend910B2", 0);
    fe::PlatFormInfos info = twin_host::SnapshotPlatform();
    platform_ascendc::PlatformAscendC p(&info);
    CHECK(p.GetCoreNumAic() == 24);
    CHECK(p.GetCoreNumAiv() == 48);
    CHECK(p.GetCoreNum() == 24);
    CHECK(p.GetCoreNumVector() == 0);
    uint64_t ub = 0, l1 = 0, l0a = 0, l0c = 0;
    p.GetCoreMemSize(CoreMemType::UB, ub);
    p.GetCoreMemSize(CoreMemType::L1, l1);
    p.GetCoreMemSize(CoreMemType::L0_A, l0a);
    p.GetCoreMemSize(CoreMemType::L0_C, l0c);
    CHECK(ub == 196608 - 256);
    CHECK(l1 == 524288 - 256);
    CHECK(l0a == 65536);
    CHECK(l0c == 131072);
    CHECK(p.GetLibApiWorkSpaceSize() == 16u * 1024 * 1024);
    CHECK(p.GetSocVersion() == platform_ascendc::SocVersion::ASCEND910B);
    CHECK(p.CalcTschNumBlocks(48, 24, 48) == 24);
    CHECK(p.CalcTschNumBlocks(50, 24, 48) == 0);  // more than the physical AIC count
    p.ReserveLocalMemory(platform_ascendc::ReservedSize::RESERVED_SIZE_8K);
    p.GetCoreMemSize(CoreMemType::UB, ub);
    CHECK(ub == 196608 - 256 - 8192);
}

TEST_CASE(presets_and_override) {
    if (!LauncherBuilt()) {
        std::printf("SKIPPED presets_and_override: twin/platform.h (kernel side) not built yet\n");
        return;
    }
    twinSetPlatform("Ascend910B4", 0);
    fe::PlatFormInfos b4 = twin_host::SnapshotPlatform();
    platform_ascendc::PlatformAscendC p4(&b4);
    CHECK(p4.GetCoreNumAic() == 20 && p4.GetCoreNumAiv() == 40);
    twinSetPlatform("Ascend910_9392", 0);
    fe::PlatFormInfos a3 = twin_host::SnapshotPlatform();
    platform_ascendc::PlatformAscendC p93(&a3);
    CHECK(p93.GetCoreNumAiv() == 48);
    CHECK(p93.GetSocVersion() == platform_ascendc::SocVersion::ASCEND910B);
    twinSetPlatform("Ascend910B2", 7);
    fe::PlatFormInfos small = twin_host::SnapshotPlatform();
    platform_ascendc::PlatformAscendC ps(&small);
    CHECK(ps.GetCoreNumAiv() == 7 && ps.GetCoreNumAic() == 4);
    twinSetPlatform("Ascend910B2", 0);
}

static int32_t CeilDiv(int32_t a, int32_t b) { return (a + b - 1) / b; }

static void CheckConsistent(const optiling::TCubeTiling &t0, int32_t m, int32_t n, int32_t k, int32_t bytes) {
    auto &t = const_cast<optiling::TCubeTiling &>(t0);
    CHECK(t.get_M() == m && t.get_N() == n && t.get_Ka() == k && t.get_Kb() == k);
    CHECK(t.get_singleCoreK() == k);
    CHECK(CeilDiv(m, t.get_singleCoreM()) * CeilDiv(n, t.get_singleCoreN()) == t.get_usedCoreNum());
    CHECK(t.get_baseM() % 16 == 0 && t.get_baseN() % 16 == 0 && (t.get_baseK() * bytes) % 32 == 0);
    CHECK(t.get_baseM() * t.get_baseK() * bytes * t.get_dbL0A() <= 65536);
    CHECK(t.get_baseN() * t.get_baseK() * bytes * t.get_dbL0B() <= 65536);
    CHECK(t.get_baseM() * t.get_baseN() * 4 * t.get_dbL0C() <= 131072);
    CHECK(t.get_depthA1() == t.get_stepM() * t.get_stepKa() * 2);
    CHECK(t.get_depthB1() == t.get_stepN() * t.get_stepKb() * 2);
    CHECK(t.get_shareL1Size() <= 524288 - 256);
}

TEST_CASE(multicore_matmul_tiling) {
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
    CHECK(mm.GetTiling(t) == 0);
    CHECK(t.get_usedCoreNum() <= 48 && t.get_usedCoreNum() > 1);
    CHECK(t.get_isBias() == 0);
    CheckConsistent(t, 1000, 300, 777, 4);

    matmul_tiling::MatmulApiTiling single(p);
    single.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
    single.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
    single.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    single.SetShape(64, 4096, 9000);
    single.SetBias(true);
    single.SetBiasType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    optiling::TCubeTiling t2;
    CHECK(single.GetTiling(t2) == 0);
    CHECK(t2.get_usedCoreNum() == 1 && t2.get_singleCoreN() == 4096 && t2.get_isBias() == 1);
    CheckConsistent(t2, 64, 4096, 9000, 2);
}

TEST_CASE(matmul_tiling_shape_grid) {
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
    CHECK(failures == 0);
}

TEST_CASE(matmul_tiling_failures) {
    using namespace matmul_tiling;
    fe::PlatFormInfos info = twin_host::SnapshotPlatform();
    platform_ascendc::PlatformAscendC p(&info);
    optiling::TCubeTiling t;
    MatmulApiTiling noShape(p);
    CHECK(noShape.GetTiling(t) == -1);
    MatmulApiTiling zero(p);
    zero.SetShape(0, 16, 16);
    CHECK(zero.GetTiling(t) == -1);
    MatmulApiTiling tooBig(p);
    tooBig.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    tooBig.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    tooBig.SetShape(512, 512, 512);
    CHECK(tooBig.SetFixSplit(256, 256) == 0); // 256*256*4 bytes > L0C
    CHECK(tooBig.GetTiling(t) == -1);
    MatmulApiTiling fixK(p);
    CHECK(fixK.SetFixSplit(128, 128, 64) == -1); // SetFixSplit docs: baseK only -1
    MatmulApiTiling baseOverSingle(p);
    baseOverSingle.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    baseOverSingle.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    baseOverSingle.SetShape(40, 64, 64);
    baseOverSingle.SetFixSplit(64, 64); // baseM 64 > singleM 40 rounded up to 16 (48)
    CHECK(baseOverSingle.GetTiling(t) == -1);
    MatmulApiTiling misaligned(p);
    misaligned.SetShape(64, 64, 64);
    misaligned.SetFixSplit(20, 16);
    CHECK(misaligned.GetTiling(t) == -1);
    MultiCoreMatmulTiling split(p);
    split.SetDim(2);
    split.SetShape(100, 100, 32);
    split.SetSingleShape(10, 10, 32);  // needs 100 cores
    CHECK(split.GetTiling(t) == -1);
    MatmulApiTiling kMismatch(p);
    kMismatch.SetShape(32, 32, 32);
    kMismatch.SetOrgShape(32, 32, 32, 48);
    CHECK(kMismatch.GetTiling(t) == -1);
}

TEST_MAIN()
