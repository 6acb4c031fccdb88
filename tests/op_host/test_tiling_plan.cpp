// Tiling unit test of DeformableConv2dBackward: the pure plan (op_host/deformable_conv2d_backward_tiling_plan.h)
// for a table of shapes x platforms (48, 7 and 1 vector cores). Every field is pinned: key, blockDim, cores
// used, the work-split fields and each workspace region offset - a tiling change shows up here as a field
// diff. The expected values were computed from the formulas in deformable_conv2d_backward_tiling.h, not
// by running the plan (with the independent Python derivation tests/python/test_kernel_common.stage2_split,
// which also drives the workspace-formula cross-check of tests/python/test_workspace.py).
#include <cstdint>
#include <cstdio>
#include <string>

#include "check.h"
#include "deformable_conv2d_backward_tiling_plan.h"
#include "../op_kernel/dcn_tiling_constants.h"

namespace {

struct Row {
    const char *name;
    dcn::TilingShape shape;  // n cin h w cout kh kw ho wo groups dg strideH dilationH strideW dilationW elt key
    int64_t split[17];       // segLen blockC blocksPerSeg numBlocks pixelTile pixelBands bandLen
                             // gTileM gTileN wTileM wTileN wSplitK wChunkK winOutRows winOutCols winRows winCols
    uint64_t ws[9];          // xt giacc g wp got dcol gw part userBytes
};

// One shape per row group (name, shape, split, workspace): kept as a table.
// clang-format off
const Row kRows[] = {
    {"r3_c4", {2, 256, 50, 84, 256, 3, 3, 50, 84, 1, 1, 1, 1, 1, 1, 4, 0},
     {256, 32, 8, 8, 7, 3, 1400, 512, 512, 256, 256, 5, 2048, 11, 11, 21, 21},
     {0, 8601600, 34406400, 111820800, 114180096, 122781696, 200196096, 211992576, 219250176}},
    {"r6_g32", {2, 512, 50, 84, 512, 3, 3, 50, 84, 32, 1, 1, 1, 1, 1, 2, 1},
     {16, 16, 1, 32, 14, 1, 4200, 512, 144, 16, 144, 5, 2048, 18, 18, 28, 28},
     {0, 17203200, 34406400, 189235200, 189382656, 197984256, 275398656, 276873216, 305903616}},
    {"r11_dg16", {8, 128, 64, 64, 64, 3, 3, 64, 64, 1, 16, 1, 1, 1, 1, 2, 2},
     {8, 8, 1, 16, 14, 1, 4096, 512, 512, 64, 256, 16, 2048, 20, 64, 30, 64},
     {0, 16777216, 33554432, 184549376, 184696832, 188891136, 264388608, 269107200, 325730304}},
    {"r1_s2", {2, 128, 200, 336, 128, 3, 3, 100, 168, 1, 1, 2, 1, 2, 1, 4, 0},
     {128, 32, 4, 4, 7, 6, 2800, 512, 512, 128, 256, 17, 2048, 6, 6, 21, 21},
     {0, 68812800, 481689600, 636518400, 637108224, 654311424, 809140224, 819167232, 833682432}},
    {"r8_up3", {32, 128, 64, 64, 64, 3, 3, 64, 64, 1, 1, 1, 1, 1, 1, 4, 0},
     {128, 32, 4, 4, 7, 1, 4096, 512, 512, 64, 256, 64, 2048, 11, 11, 21, 21},
     {0, 67108864, 134217728, 738197504, 738492416, 772046848, 1376026624, 1394900992, 1451524096}},
    {"r12_c5", {8, 512, 19, 19, 512, 3, 3, 19, 19, 1, 1, 1, 1, 1, 1, 2, 1},
     {512, 32, 16, 16, 7, 1, 361, 361, 512, 256, 256, 2, 2048, 19, 19, 19, 19},
     {0, 5914624, 11829248, 65060864, 69779456, 72736768, 99352576, 118226944, 123217408}},
    {"odd_small", {1, 12, 5, 5, 8, 3, 3, 5, 5, 2, 3, 1, 1, 1, 1, 4, 0},
     {2, 2, 1, 6, 14, 7, 4, 25, 54, 4, 54, 1, 25, 5, 5, 5, 5},
     {0, 1536, 10240, 21504, 23552, 24576, 35840, 37888, 54272}},
    {"k5_long_ka", {3, 8, 30, 30, 8, 5, 5, 30, 30, 1, 1, 1, 1, 1, 1, 4, 0},
     {8, 8, 1, 1, 5, 8, 113, 512, 200, 8, 200, 2, 2048, 30, 30, 30, 30},
     {0, 86528, 777728, 2937856, 2944512, 3031040, 5191168, 5203968, 6014464}},
    {"wide_k7", {1, 256, 9, 9, 64, 7, 7, 9, 9, 1, 1, 1, 1, 1, 1, 2, 1},
     {256, 64, 4, 4, 1, 8, 11, 81, 512, 64, 256, 1, 81, 9, 9, 9, 9},
     {0, 82944, 746496, 4810752, 6416384, 6427136, 8459264, 11670528, 11861504}},
    {"win_k1_c64", {48, 64, 12, 16, 8, 1, 1, 12, 16, 1, 1, 1, 1, 1, 1, 4, 0},
     {64, 64, 1, 1, 64, 1, 192, 192, 64, 8, 64, 5, 2048, 12, 3, 12, 11},
     {0, 2359296, 4718592, 7077888, 7079936, 7374848, 9734144, 9744384, 9854976}},
    {"win_k3_s2", {1, 16, 60, 90, 8, 3, 3, 30, 45, 1, 1, 2, 1, 2, 1, 4, 0},
     {16, 16, 1, 1, 14, 8, 169, 512, 144, 8, 144, 1, 1350, 9, 10, 27, 29},
     {0, 345600, 3110400, 3888128, 3892736, 3936256, 4713984, 4718592, 4864512}},
    {"win_dil2_dg2", {1, 32, 40, 120, 8, 3, 3, 40, 120, 1, 2, 1, 2, 1, 2, 4, 0},
     {16, 16, 1, 2, 14, 8, 600, 512, 288, 8, 256, 3, 2048, 40, 7, 40, 19},
     {0, 614400, 5529600, 11059200, 11068416, 11222016, 16751616, 16779264, 17816064}},
};
// clang-format on

struct Platform {
    uint32_t aic, aiv;
    uint32_t blockDim, usedVecCores;  // expected
};
// Ascend910B2 (24 AIC + 48 AIV), a 7-vector-core override (4 blocks, one idle AIV), one vector core.
const Platform kPlatforms[] = {{24, 48, 24, 48}, {24, 7, 4, 7}, {24, 1, 1, 1}};
constexpr uint64_t kUb = 196608;  // A2/A3 UB per vector core

void CheckSplit(const Row &r, const dcn::WorkSplit &w)
{
    const int64_t got[17] = {w.segLen,  w.blockC,     w.blocksPerSeg, w.numBlocks, w.pixelTile,  w.pixelBands,
                             w.bandLen, w.gTileM,     w.gTileN,       w.wTileM,    w.wTileN,     w.wSplitK,
                             w.wChunkK, w.winOutRows, w.winOutCols,   w.winRows,   w.winCols};
    const char *names[17] = {"segLen",  "blockC",     "blocksPerSeg", "numBlocks", "pixelTile",  "pixelBands",
                             "bandLen", "gTileM",     "gTileN",       "wTileM",    "wTileN",     "wSplitK",
                             "wChunkK", "winOutRows", "winOutCols",   "winRows",   "winCols"};
    for (int i = 0; i < 17; ++i) {
        if (got[i] != r.split[i]) {
            std::fprintf(stderr, "%s: %s = %lld, expected %lld\n", r.name, names[i], static_cast<long long>(got[i]),
                         static_cast<long long>(r.split[i]));
        }
        CHECK(got[i] == r.split[i]);
    }
}

void CheckWorkspace(const Row &r, const dcn::WorkspaceLayout &ws)
{
    const uint64_t got[9] = {ws.xt, ws.giacc, ws.g, ws.wp, ws.got, ws.dcol, ws.gw, ws.part, ws.userBytes};
    const char *names[9] = {"xt", "giacc", "g", "wp", "got", "dcol", "gw", "part", "userBytes"};
    for (int i = 0; i < 9; ++i) {
        if (got[i] != r.ws[i]) {
            std::fprintf(stderr, "%s: ws.%s = %llu, expected %llu\n", r.name, names[i],
                         static_cast<unsigned long long>(got[i]), static_cast<unsigned long long>(r.ws[i]));
        }
        CHECK(got[i] == r.ws[i]);
        CHECK(got[i] % dcn_tiling::kWsAlign == 0);
    }
}

}  // namespace

TEST_CASE(plan_table_shapes_x_platforms)
{
    for (const Row &r : kRows) {
        for (const Platform &pf : kPlatforms) {
            dcn::TilingPlatform platform;
            platform.aicNum = pf.aic;
            platform.aivNum = pf.aiv;
            platform.ubBytes = kUb;
            dcn::TilingPlan plan;
            std::string error;
            const bool ok = dcn::MakeTilingPlan(r.shape, platform, plan, error);
            if (!ok) {
                std::fprintf(stderr, "%s: %s\n", r.name, error.c_str());
            }
            CHECK(ok);
            CHECK(plan.cores.blockDim == pf.blockDim);
            CHECK(plan.cores.usedVecCores == pf.usedVecCores);
            CheckSplit(r, plan.split);        // identical on every platform: the split is shape-only
            CheckWorkspace(r, plan.ws);
            CHECK(plan.ub.need <= kUb - dcn_tiling::kUbReserved);
            CHECK(plan.ub.need >= plan.ub.stage0 && plan.ub.need >= plan.ub.stage2 && plan.ub.need >= plan.ub.stage3);
        }
    }
}

TEST_CASE(keys_are_the_dtypes)
{
    CHECK(DCN_TILING_KEY_FLOAT32 == 0);
    CHECK(DCN_TILING_KEY_FLOAT16 == 1);
    CHECK(DCN_TILING_KEY_BFLOAT16 == 2);
}

TEST_CASE(no_cores_or_small_ub_is_an_error)
{
    dcn::TilingPlatform platform;
    platform.aicNum = 0;
    platform.aivNum = 48;
    platform.ubBytes = kUb;
    dcn::TilingPlan plan;
    std::string error;
    CHECK(!dcn::MakeTilingPlan(kRows[0].shape, platform, plan, error));
    CHECK(error.find("cube core") != std::string::npos);
    platform.aicNum = 24;
    platform.ubBytes = 64 * 1024;  // below the stage-0 transpose buffers
    error.clear();
    CHECK(!dcn::MakeTilingPlan(kRows[0].shape, platform, plan, error));
    CHECK(error.find("UB budget") != std::string::npos);
}

TEST_CASE(matmul_int32_limit_is_an_error)
{
    dcn::TilingShape s = kRows[0].shape;
    s.n = (int64_t{1} << 31) / (s.ho * s.wo) + 1;  // N*Ho*Wo > INT32_MAX
    dcn::TilingPlatform platform;
    platform.aicNum = 24;
    platform.aivNum = 48;
    platform.ubBytes = kUb;
    dcn::TilingPlan plan;
    std::string error;
    CHECK(!dcn::MakeTilingPlan(s, platform, plan, error));
    CHECK(error.find("2147483647") != std::string::npos);
}

TEST_MAIN()
