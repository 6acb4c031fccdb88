// Tiling unit test of DeformableConv2dBackward: the pure plan (op_host/deformable_conv2d_backward_tiling_plan.h)
// for a table of shapes x platforms (48, 7 and 1 vector cores). Every field is pinned: key, blockDim, cores
// used, the work-split fields and each workspace region offset - a tiling change shows up here as a field
// diff. The expected values were computed from the formulas in deformable_conv2d_backward_tiling.h, not
// by running the plan (with the independent Python derivation tests/python/test_kernel_common.stage2_split,
// which also drives the workspace-formula cross-check of tests/python/test_workspace.py). The rows that took
// image-local accumulator planes (accImgs = 1 < N: r1_s2, r11_dg16, chunk_rows_small, chunk_cols_tiny, chunk_imgs) were
// re-pinned from the plan itself when those planes came in (session 22) and checked against the Python
// derivation (test_chunks, test_workspace: the same workspaces); r6_g32 likewise when it came to take them (session
// 29: a local plan that fills the last round of lanes with no more chunks is taken over the chosen one), and r12_c5
// when whole-row chunks came to hold balanced rows (session 29: 10 + 9 rows instead of 13 + 6). The pixel tiles of the
// rows with blocks of <= 8 channels (16 pixels at 3x3, not 14: r11_dg16, r1_s2, odd_small, win_k3_s2, win_dil2_dg2,
// chunk_cols_tiny, chunk_imgs), their windows and r1_s2's record region were re-pinned from the plan when
// kStage2RowsNarrow8 came in (session 34), with the Python derivation's tile rule changed alike.
#include <cstdint>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "deformable_conv2d_backward_tiling_plan.h"
#include "../op_kernel/dcn_tiling_constants.h"

namespace {

struct Row {
    const char *name;
    dcn::TilingShape shape;  // n cin h w cout kh kw ho wo groups dg strideH dilationH strideW dilationW elt key
                             // padTop padLeft
    uint64_t wsBudget;       // 0: the default dcn_tiling::kWsBudget; small budgets force many chunks
    int64_t split[17];       // segLen blockC blocksPerSeg numBlocks pixelTile pixelBands bandLen
                             // gTileM gTileN wTileM wTileN wSplitK wChunkK winOutRows winOutCols winRows winCols
    int64_t chunk[9];        // chunkImgs chunkOutRows chunkOutCols chunkPix chunkRows pixChunks numChunks gRegions
                             // accImgs
    uint64_t ws[11];         // xt giacc g g2 got dcol gw part zeroed rec userBytes
};

// One shape per row group (name, shape, split, workspace): kept as a table.
// clang-format off
const Row kRows[] = {
    {"r3_c4",
     {2, 256, 50, 84, 256, 3, 3, 50, 84, 1, 1, 1, 1, 1, 1, 4, 0, 1, 1},
     0,
     {256, 32, 8, 8, 7, 3, 280, 432, 384, 128, 192, 1, 1680, 5, 7, 15, 17},
     {2, 10, 84, 840, 1680, 5, 5, 1, 2},
     {0, 0, 25804800, 41287680, 41287680, 43008000, 58490880, 60850176, 62301696, 62302208, 63961088}},
    {"r6_g32",
     {2, 512, 50, 84, 512, 3, 3, 50, 84, 32, 1, 1, 1, 1, 1, 2, 1, 1, 1},
     0,
     {16, 16, 1, 32, 14, 3, 252, 256, 144, 16, 144, 1, 756, 4, 14, 14, 24},
     {1, 9, 84, 756, 756, 6, 12, 2, 1},
     {0, 0, 25804800, 39739392, 53673984, 54448128, 61415424, 61710336, 64323072, 64323584, 64738304}},
    {"r11_dg16",
     {8, 128, 64, 64, 64, 3, 3, 64, 64, 1, 16, 1, 1, 1, 1, 2, 2, 1, 1},
     0,
     {8, 8, 1, 16, 16, 3, 1366, 512, 384, 64, 128, 2, 2048, 17, 16, 27, 26},
     {1, 64, 64, 4096, 4096, 1, 8, 1, 1},
     {0, 0, 6291456, 25165824, 25165824, 25690112, 35127296, 35717120, 42795008, 42795520, 42795520}},
    {"r1_s2",
     {2, 128, 200, 336, 128, 3, 3, 100, 168, 1, 1, 2, 1, 2, 1, 4, 0, 1, 1},
     0,
     {128, 8, 16, 16, 16, 3, 392, 304, 192, 128, 128, 2, 588, 4, 32, 17, 73},
     {1, 7, 168, 1176, 1176, 15, 30, 2, 1},
     {0, 0, 103219200, 108638208, 114057216, 114659328, 120078336, 121257984, 123290112, 123290624, 123964928}},
    {"r8_up3",
     {32, 128, 64, 64, 64, 3, 3, 64, 64, 1, 1, 1, 1, 1, 1, 4, 0, 1, 1},
     0,
     {128, 32, 4, 4, 7, 1, 256, 256, 576, 64, 144, 3, 1024, 4, 7, 14, 17},
     {12, 4, 64, 256, 3072, 16, 48, 2, 32},
     {0, 0, 67108864, 81264640, 95420416, 96206848, 110362624, 111247360, 112574464, 112574976, 112574976}},
    {"r12_c5",
     {8, 512, 19, 19, 512, 3, 3, 19, 19, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1},
     0,
     {512, 32, 16, 16, 7, 1, 190, 190, 576, 256, 384, 1, 570, 3, 19, 13, 21},
     {3, 10, 19, 190, 570, 2, 6, 2, 8},
     {0, 0, 5914624, 16420864, 26927104, 27510784, 32763904, 42201088, 43186176, 43186688, 43624448}},
    {"odd_small",
     {1, 12, 5, 5, 8, 3, 3, 5, 5, 2, 3, 1, 1, 1, 1, 4, 0, 1, 1},
     0,
     {2, 2, 1, 6, 16, 5, 5, 25, 54, 4, 54, 1, 25, 2, 5, 7, 7},
     {1, 5, 5, 25, 25, 1, 1, 1, 1},
     {0, 0, 6144, 17408, 17408, 18432, 29696, 31744, 48128, 48640, 48640}},
    {"k5_long_ka",
     {3, 8, 30, 30, 8, 5, 5, 30, 30, 1, 1, 1, 1, 1, 1, 4, 0, 2, 2},
     0,
     {8, 8, 1, 1, 5, 8, 113, 128, 200, 8, 200, 2, 1350, 5, 30, 17, 32},
     {3, 30, 30, 900, 2700, 1, 1, 1, 3},
     {0, 0, 691200, 2851328, 2851328, 2937856, 5097984, 5110784, 5921280, 5921792, 5921792}},
    {"wide_k7",
     {1, 256, 9, 9, 64, 7, 7, 9, 9, 1, 1, 1, 1, 1, 1, 2, 1, 3, 3},
     0,
     {256, 32, 8, 8, 1, 6, 14, 81, 576, 64, 576, 1, 81, 0, 0, 0, 0},
     {1, 9, 9, 81, 81, 1, 1, 1, 1},
     {0, 0, 497664, 4561920, 4561920, 4572672, 6604800, 9816064, 10197504, 10198016, 10405376}},
    {"win_k1_c64",
     {48, 64, 12, 16, 8, 1, 1, 12, 16, 1, 1, 1, 1, 1, 1, 4, 0, 0, 0},
     0,
     {64, 32, 2, 2, 64, 1, 192, 192, 64, 8, 64, 10, 922, 12, 16, 14, 18},
     {48, 12, 16, 192, 9216, 1, 1, 1, 48},
     {0, 0, 2359296, 4718592, 4718592, 5013504, 7372800, 7393280, 7614464, 7614976, 7614976}},
    {"win_k3_s2",
     {1, 16, 60, 90, 8, 3, 3, 30, 45, 1, 1, 2, 1, 2, 1, 4, 0, 1, 1},
     0,
     {16, 8, 2, 2, 16, 8, 169, 128, 144, 8, 144, 2, 675, 5, 16, 19, 41},
     {1, 30, 45, 1350, 1350, 1, 1, 1, 1},
     {0, 0, 2764800, 3542528, 3542528, 3586048, 4363776, 4372992, 4664832, 4665344, 4665344}},
    {"win_dil2_dg2",
     {1, 32, 40, 120, 8, 3, 3, 40, 120, 1, 2, 1, 2, 1, 2, 4, 0, 2, 2},
     0,
     {16, 8, 2, 4, 16, 8, 600, 400, 144, 8, 144, 3, 1600, 6, 48, 18, 60},
     {1, 40, 120, 4800, 4800, 1, 1, 1, 1},
     {0, 0, 4915200, 10444800, 10444800, 10598400, 16128000, 16155648, 18229248, 18229760, 18229760}},
    {"r3_c3_n16",
     {16, 128, 100, 168, 128, 3, 3, 100, 168, 1, 1, 1, 1, 1, 1, 4, 0, 1, 1},
     0,
     {128, 32, 4, 4, 7, 1, 168, 168, 384, 128, 144, 3, 896, 1, 13, 11, 23},
     {16, 1, 168, 168, 2688, 100, 100, 2, 16},
     {0, 0, 137625600, 150011904, 162398208, 163774464, 176160768, 177930240, 179091456, 179091968, 179091968}},
    {"chunk_rows_small",
     {3, 8, 30, 30, 8, 5, 5, 30, 30, 1, 1, 1, 1, 1, 1, 4, 0, 2, 2},
     200000,
     {8, 8, 1, 1, 5, 2, 30, 60, 200, 8, 200, 1, 60, 2, 30, 14, 32},
     {1, 2, 30, 60, 60, 15, 45, 1, 1},
     {0, 0, 57856, 105984, 105984, 108032, 156160, 162816, 181248, 181760, 181760}},
    {"chunk_cols_tiny",
     {2, 16, 9, 40, 12, 3, 3, 9, 40, 2, 2, 1, 1, 1, 1, 2, 1, 1, 1},
     30000,
     {8, 8, 1, 2, 16, 2, 7, 13, 72, 6, 72, 1, 13, 1, 40, 11, 42},
     {1, 1, 13, 13, 13, 36, 72, 2, 1},
     {0, 0, 46080, 53760, 61440, 61952, 66048, 69632, 72704, 73216, 73216}},
    {"chunk_imgs",
     {5, 12, 6, 7, 8, 3, 3, 6, 7, 1, 3, 1, 1, 1, 1, 4, 0, 1, 1},
     90000,
     {4, 4, 1, 3, 16, 6, 7, 42, 108, 8, 108, 1, 42, 2, 7, 8, 9},
     {1, 6, 7, 42, 42, 1, 5, 1, 1},
     {0, 0, 12288, 30720, 30720, 32256, 50688, 54272, 68096, 68608, 68608}},
};
// clang-format on

struct Platform {
    uint32_t aic, aiv;
    uint32_t blockDim, usedVecCores;  // expected
};
// Ascend910B2 (24 AIC + 48 AIV), a 7-vector-core override (4 blocks, one idle AIV), one vector core.
const Platform kPlatforms[] = {{24, 48, 24, 48}, {24, 7, 4, 7}, {24, 1, 1, 1}};
constexpr uint64_t kUb = 196608;  // A2/A3 UB per vector core

// The 910B2 / A3 platform (24 cube cores, 48 vector cores, the UB above).
dcn::TilingPlatform A2Platform()
{
    dcn::TilingPlatform platform;
    platform.aicNum = 24;
    platform.aivNum = 48;
    platform.ubBytes = kUb;
    return platform;
}

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
        EXPECT_EQ(got[i], r.split[i]);
    }
}

void CheckChunks(const Row& r, const dcn::WorkSplit& w)
{
    const int64_t got[9] = {w.chunkImgs, w.chunkOutRows, w.chunkOutCols, w.chunkPix, w.chunkRows,
                            w.pixChunks, w.numChunks,    w.gRegions,     w.accImgs};
    const char* names[9] = {"chunkImgs", "chunkOutRows", "chunkOutCols", "chunkPix", "chunkRows",
                            "pixChunks", "numChunks",    "gRegions",     "accImgs"};
    for (int i = 0; i < 9; ++i) {
        if (got[i] != r.chunk[i]) {
            std::fprintf(
                stderr, "%s: %s = %lld, expected %lld\n", r.name, names[i], static_cast<long long>(got[i]),
                static_cast<long long>(r.chunk[i]));
        }
        EXPECT_EQ(got[i], r.chunk[i]);
    }
}

uint64_t BudgetOf(const Row& r) { return r.wsBudget != 0 ? r.wsBudget : static_cast<uint64_t>(dcn_tiling::kWsBudget); }

void CheckWorkspace(const Row &r, const dcn::WorkspaceLayout &ws)
{
    const uint64_t got[11] = {ws.xt, ws.giacc, ws.g,      ws.g2,  ws.got,      ws.dcol,
                              ws.gw, ws.part,  ws.zeroed, ws.rec, ws.userBytes};
    const char* names[11] = {"xt", "giacc", "g", "g2", "got", "dcol", "gw", "part", "zeroed", "rec", "userBytes"};
    for (int i = 0; i < 11; ++i) {
        if (got[i] != r.ws[i]) {
            std::fprintf(stderr, "%s: ws.%s = %llu, expected %llu\n", r.name, names[i],
                         static_cast<unsigned long long>(got[i]), static_cast<unsigned long long>(r.ws[i]));
        }
        EXPECT_EQ(got[i], r.ws[i]);
        EXPECT_EQ(got[i] % dcn_tiling::kWsAlign, 0);
    }
}

// The most tiles one stage-2 unit pushes in any pixel chunk (the kernel's SetChunk and ProcessUnit loops: bands of
// the chunk's pixel range, on tile boundaries where tiles run across rows, UB windows, output rows of a window, tiles
// of pixelTile pixels x kernel-point chunks).
int64_t SimulatedUnitTiles(const dcn::TilingShape& s, const dcn::WorkSplit& w)
{
    const auto cdiv = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
    const int64_t k = s.kh * s.kw, kChunks = cdiv(k, std::min<int64_t>(k, 64));
    const int64_t colChunks = cdiv(s.wo, w.chunkOutCols);
    int64_t most = 0;
    for (int64_t pc = 0; pc < w.pixChunks; ++pc) {
        const int64_t rc = pc / colChunks, cc = pc % colChunks;
        const int64_t row0 = rc * w.chunkOutRows, rows = std::min(w.chunkOutRows, s.ho - row0);
        const int64_t col0 = cc * w.chunkOutCols, cols = std::min(w.chunkOutCols, s.wo - col0);
        const int64_t q0 = row0 * s.wo + col0, qLen = (rows - 1) * s.wo + cols;
        // tiles across rows (a full-width window or none) and more units than lanes: band b from tile b*T/bands of
        // the chunk's T tiles
        const bool tileRuns = (w.winRows == 0 || w.winOutCols >= s.wo) && w.chunkImgs * w.numBlocks * w.pixelBands > 48;
        const int64_t chunkTiles = cdiv(qLen, w.pixelTile);
        for (int64_t band = 0; band < w.pixelBands; ++band) {
            int64_t begin = q0 + band * w.bandLen, end = std::min(q0 + qLen, begin + w.bandLen);
            if (tileRuns) {
                begin = q0 + w.pixelTile * (band * chunkTiles / w.pixelBands);
                end = std::min(q0 + qLen, q0 + w.pixelTile * ((band + 1) * chunkTiles / w.pixelBands));
            }
            if (begin >= end) {
                continue;
            }
            int64_t tiles = 0;
            const auto pixels = [&](int64_t from, int64_t to) {
                tiles += from < to ? cdiv(to - from, w.pixelTile) : 0;
            };
            if (w.winRows == 0) {
                pixels(begin, end);
            } else {
                const int64_t ohLast = (end - 1) / s.wo;
                for (int64_t oh0 = begin / s.wo; oh0 <= ohLast; oh0 += w.winOutRows) {
                    const int64_t ohEnd = std::min(oh0 + w.winOutRows, ohLast + 1);
                    if (w.winOutCols >= s.wo) {
                        pixels(std::max(begin, oh0 * s.wo), std::min(end, ohEnd * s.wo));
                        continue;
                    }
                    for (int64_t ow0 = 0; ow0 < s.wo; ow0 += w.winOutCols) {
                        const int64_t owEnd = std::min(ow0 + w.winOutCols, s.wo);
                        for (int64_t oh = oh0; oh < ohEnd; ++oh) {
                            pixels(std::max(begin, oh * s.wo + ow0), std::min(end, oh * s.wo + owEnd));
                        }
                    }
                }
            }
            most = std::max(most, tiles * kChunks);
        }
    }
    return most;
}

}  // namespace

TEST(TilingPlan, plan_table_shapes_x_platforms)
{
    for (const Row &r : kRows) {
        for (const Platform &pf : kPlatforms) {
            dcn::TilingPlatform platform;
            platform.aicNum = pf.aic;
            platform.aivNum = pf.aiv;
            platform.ubBytes = kUb;
            dcn::TilingPlan plan;
            std::string error;
            const bool ok = dcn::MakeTilingPlan(r.shape, platform, plan, error, BudgetOf(r));
            if (!ok) {
                std::fprintf(stderr, "%s: %s\n", r.name, error.c_str());
            }
            EXPECT_TRUE(ok);
            EXPECT_EQ(plan.cores.blockDim, pf.blockDim);
            EXPECT_EQ(plan.cores.usedVecCores, pf.usedVecCores);
            CheckSplit(r, plan.split);        // identical on every platform: the split is shape-only
            CheckChunks(r, plan.split);
            CheckWorkspace(r, plan.ws);
            EXPECT_LE(plan.ub.need, kUb - dcn_tiling::kUbReserved);
            EXPECT_EQ(plan.ub.limit, kUb - dcn_tiling::kUbReserved); // tiling ubBytes: the kernel's optional buffers
            EXPECT_GE(plan.ub.need, plan.ub.stage0);
            EXPECT_GE(plan.ub.need, plan.ub.stage2);
            EXPECT_GE(plan.ub.need, plan.ub.stage3);
        }
    }
}

// No shape cliff over the kernel size: every 1 x K kernel (K = 1..140, across the 64-point tile limit) with 8 to 72
// channels (deformable groups of 8) has a plan within the UB, for 32- and 16-bit I/O. K = 61..64 once had none: the
// narrowest block's 128-row tiles with two slots of partials planes exceeded the UB (PixelTile now takes fewer pixels).
TEST(TilingPlan, every_kernel_size_has_a_plan)
{
    const dcn::TilingPlatform platform = A2Platform();
    for (const int64_t elt : {4, 2}) {
        for (const int64_t cin : {8, 64, 72}) {
            for (int64_t k = 1; k <= 140; ++k) {
                dcn::TilingShape s = kRows[0].shape;
                s.n = 1;
                s.cin = cin;
                s.cout = 8;
                s.groups = 1;
                s.dg = cin / 8;
                s.kh = 1;
                s.kw = k;
                s.h = 4;
                s.w = 200;
                s.ho = 4;
                s.wo = 200 - k + 1;
                s.strideH = s.strideW = s.dilationH = s.dilationW = 1;
                s.padTop = s.padLeft = 0;
                s.elt = elt;
                s.key = elt == 4 ? DCN_TILING_KEY_FLOAT32 : DCN_TILING_KEY_FLOAT16;
                dcn::TilingPlan plan;
                std::string error;
                EXPECT_TRUE(dcn::MakeTilingPlan(s, platform, plan, error))
                    << "K " << k << " Cin " << cin << " elt " << elt << ": " << error;
                EXPECT_LE(plan.ub.need, kUb - dcn_tiling::kUbReserved);
            }
        }
    }
}

// No shape cliff over a sweep of valid shapes (a fixed pseudo-random sequence): kernels up to 11 x 11 and 1 x 140,
// conv groups, deformable groups, strides, dilations, paddings, batch sizes, 32- and 16-bit I/O each have a plan
// within the UB (the K = 61..64 cliff was found by such a sweep).
TEST(TilingPlan, swept_shapes_have_a_plan)
{
    const dcn::TilingPlatform platform = A2Platform();
    uint64_t state = 23;
    auto pick = [&state](int64_t n) { // uniform in [0, n)
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<int64_t>((state >> 33) % static_cast<uint64_t>(n));
    };
    const int64_t cinGs[] = {1, 2, 3, 4, 8, 12, 16, 20, 32, 48, 64, 72, 128, 256, 512};
    const int64_t groupsOf[] = {1, 1, 2, 4, 32}, dgs[] = {1, 1, 2, 4, 8, 16}, coutGs[] = {1, 4, 8, 64, 128, 256};
    int64_t planned = 0;
    int64_t shared = 0;
    for (int64_t i = 0; i < 2000; ++i) {
        dcn::TilingShape s = kRows[0].shape;
        s.kh = 1 + pick(11);
        s.kw = 1 + pick(11);
        if (pick(5) == 0) {
            s.kh = 1;
            s.kw = 1 + pick(140);
        }
        s.groups = groupsOf[pick(5)];
        s.dg = dgs[pick(6)];
        s.cin = cinGs[pick(15)] * s.groups;
        s.cout = coutGs[pick(6)] * s.groups;
        s.strideH = 1 + pick(3);
        s.strideW = 1 + pick(2);
        s.dilationH = 1 + pick(2);
        s.dilationW = pick(3) == 0 ? 3 : 1;
        s.padTop = pick(s.kh + 1);
        s.padLeft = pick(s.kw + 1);
        s.h = 1 + pick(80);
        s.w = 1 + pick(120);
        s.n = 1 + pick(8);
        s.elt = pick(2) == 0 ? 4 : 2;
        s.key = s.elt == 4 ? DCN_TILING_KEY_FLOAT32 : DCN_TILING_KEY_FLOAT16;
        s.ho = (s.h + 2 * s.padTop - s.dilationH * (s.kh - 1) - 1) / s.strideH + 1;
        s.wo = (s.w + 2 * s.padLeft - s.dilationW * (s.kw - 1) - 1) / s.strideW + 1;
        if (s.cin % s.dg != 0 || s.ho < 1 || s.wo < 1) {
            continue;
        }
        dcn::TilingPlan plan;
        std::string error;
        const bool ok = dcn::MakeTilingPlan(s, platform, plan, error);
        EXPECT_TRUE(ok) << "n " << s.n << " cin " << s.cin << " cout " << s.cout << " " << s.h << "x" << s.w << " k "
                        << s.kh << "x" << s.kw << " groups " << s.groups << " dg " << s.dg << " elt " << s.elt << ": "
                        << error;
        EXPECT_LE(plan.ub.need, kUb - dcn_tiling::kUbReserved);
        planned += ok ? 1 : 0;
        if (ok && plan.split.recTiles > 0) { // shared fronts: the records' count bounds every unit's tiles
            EXPECT_EQ(plan.split.recTiles, SimulatedUnitTiles(s, plan.split));
            ++shared;
        }
    }
    EXPECT_GT(planned, 1000); // the sweep exercises what it claims
    EXPECT_GT(shared, 10);
}

TEST(TilingPlan, keys_are_the_dtypes)
{
    EXPECT_EQ(DCN_TILING_KEY_FLOAT32, 0);
    EXPECT_EQ(DCN_TILING_KEY_FLOAT16, 1);
    EXPECT_EQ(DCN_TILING_KEY_BFLOAT16, 2);
}

TEST(TilingPlan, no_cores_or_small_ub_is_an_error)
{
    dcn::TilingPlatform platform;
    platform.aicNum = 0;
    platform.aivNum = 48;
    platform.ubBytes = kUb;
    dcn::TilingPlan plan;
    std::string error;
    EXPECT_FALSE(dcn::MakeTilingPlan(kRows[0].shape, platform, plan, error));
    EXPECT_NE(error.find("cube core"), std::string::npos);
    platform.aicNum = 24;
    platform.ubBytes = 64 * 1024;  // below the stage-0 transpose buffers
    error.clear();
    EXPECT_FALSE(dcn::MakeTilingPlan(kRows[0].shape, platform, plan, error));
    EXPECT_NE(error.find("UB budget"), std::string::npos);
}

TEST(TilingPlan, chunk_budget_follows_small_device_memory_only)
{
    const uint64_t full = static_cast<uint64_t>(dcn_tiling::kWsBudget);
    EXPECT_EQ(dcn::WsBudgetForHbm(0), full);
    EXPECT_EQ(dcn::WsBudgetForHbm(32ull << 30), full); // Ascend910B4
    EXPECT_EQ(dcn::WsBudgetForHbm(64ull << 30), full); // Ascend910B2 / A3
    EXPECT_EQ(dcn::WsBudgetForHbm(32ull << 20), (64ull << 10));
}

TEST(TilingPlan, matmul_int32_limit_is_an_error)
{
    dcn::TilingShape s = kRows[0].shape;
    s.ho = 65536;
    s.wo = 32769; // Ho*Wo > INT32_MAX
    s.h = s.ho;
    s.w = s.wo;
    const dcn::TilingPlatform platform = A2Platform();
    dcn::TilingPlan plan;
    std::string error;
    EXPECT_FALSE(dcn::MakeTilingPlan(s, platform, plan, error));
    EXPECT_NE(error.find("2147483647"), std::string::npos);
}

// Issue 11: workspace <= 4 B x (|grad_input| + |grad_weight|) + 64 MiB (user part; the library's 16 MiB come
// on top) for fp32 I/O, whatever N and Ho*Wo; the chunks cover every pixel of every image exactly once.
TEST(TilingPlan, workspace_is_bounded_and_chunks_cover_the_output)
{
    struct Sweep {
        int64_t n, cin, hw, cout, k, groups, dg;
    };
    const Sweep sweeps[] = {{1, 64, 1024, 64, 3, 1, 1},   {4096, 64, 56, 64, 3, 1, 1}, {16, 128, 168, 128, 3, 1, 1},
                            {1, 2048, 64, 2048, 3, 1, 1}, {2, 16, 2048, 16, 1, 1, 1},  {64, 256, 13, 256, 5, 4, 8},
                            {1, 8, 4000, 8, 7, 1, 1},     {100000, 8, 3, 8, 3, 1, 1}};
    const dcn::TilingPlatform platform = A2Platform();
    for (const Sweep& w : sweeps) {
        dcn::TilingShape s;
        s.n = w.n;
        s.cin = w.cin;
        s.h = w.hw;
        s.w = w.hw;
        s.cout = w.cout;
        s.kh = w.k;
        s.kw = w.k;
        s.ho = w.hw;
        s.wo = w.hw;
        s.groups = w.groups;
        s.dg = w.dg;
        s.padTop = s.padLeft = (w.k - 1) / 2;
        dcn::TilingPlan plan;
        std::string error;
        const bool ok = dcn::MakeTilingPlan(s, platform, plan, error);
        if (!ok) {
            std::fprintf(
                stderr, "sweep n=%lld hw=%lld: %s\n", static_cast<long long>(w.n), static_cast<long long>(w.hw),
                error.c_str());
        }
        EXPECT_TRUE(ok);
        const uint64_t gi = static_cast<uint64_t>(s.n * s.cin * s.h * s.w);
        const uint64_t gw = static_cast<uint64_t>(s.cout * (s.cin / s.groups) * s.kh * s.kw);
        const uint64_t bound = 4 * (gi + gw) + (64ull << 20);
        if (plan.ws.userBytes > bound) {
            std::fprintf(
                stderr, "sweep n=%lld hw=%lld: workspace %llu > bound %llu\n", static_cast<long long>(w.n),
                static_cast<long long>(w.hw), static_cast<unsigned long long>(plan.ws.userBytes),
                static_cast<unsigned long long>(bound));
        }
        EXPECT_LE(plan.ws.userBytes, bound);
        const dcn::WorkSplit& p = plan.split;
        EXPECT_TRUE(p.chunkOutCols == s.wo || p.chunkOutRows == 1);
        EXPECT_GE(p.chunkImgs, 1);
        EXPECT_LE(p.chunkImgs, s.n);
        EXPECT_EQ(p.chunkPix, p.chunkOutRows * p.chunkOutCols);
        EXPECT_EQ(p.numChunks, (s.n + p.chunkImgs - 1) / p.chunkImgs * p.pixChunks);
        EXPECT_EQ(
            p.pixChunks, (s.ho + p.chunkOutRows - 1) / p.chunkOutRows * ((s.wo + p.chunkOutCols - 1) / p.chunkOutCols));
        EXPECT_GE(p.wChunkK * p.wSplitK, p.chunkRows);
        // chunk 0 is full (SetChunk: chunkImgs images x chunkPix pixels), so it writes every Ka slot that the
        // later chunks add to and stage 3 sums
        EXPECT_LE(p.chunkOutRows, s.ho);
        EXPECT_LE(p.chunkOutCols, s.wo);
        EXPECT_EQ((p.chunkRows + p.wChunkK - 1) / p.wChunkK, p.wSplitK);
        EXPECT_GE(p.pixelBands * p.bandLen, p.chunkPix);
        // a one-chunk run has one G region (the lane balance never splits it), a second region is only taken
        // for several chunks
        EXPECT_TRUE(p.gRegions == 1 || (p.gRegions == 2 && p.numChunks > 1));
        EXPECT_EQ(plan.ws.got > plan.ws.g2, p.gRegions == 2); // the second region is empty with one
    }
}

// Shared stage-2 fronts: the records' count per unit bounds every unit's tiles (the kernel indexes them by the
// unit's tile order), their region fits the room beyond the budget, and they are taken only with many blocks per
// deformable group (kShareMinBlocks and its variants per block width: X101 g32 in 16-bit, 32 blocks of one group;
// R50 c4, 8 blocks of 32 channels: in 16-bit I/O, and in fp32 with one G region; R50 c3 entry, 16 blocks of 8: every
// dtype).
TEST(TilingPlan, shared_fronts_bound_every_unit)
{
    const dcn::TilingPlatform platform = A2Platform();
    // the threshold per dtype, block width and G regions (dcn_tiling_constants.h)
    const struct {
        int64_t elt, blockC, gRegions, minBlocks;
    } rules[] = {{4, 32, 2, 32}, {4, 16, 2, 16}, {4, 8, 2, 16},  {4, 32, 1, 4}, {4, 8, 1, 4},
                 {2, 32, 2, 8},  {2, 64, 1, 8},  {2, 16, 2, 16}, {2, 8, 1, 16}};
    for (const auto& rule : rules) {
        dcn::TilingShape s;
        s.elt = rule.elt;
        dcn::WorkSplit w;
        w.blockC = rule.blockC;
        w.gRegions = rule.gRegions;
        EXPECT_EQ(dcn::SharedFrontsMinBlocks(s, w), rule.minBlocks)
            << rule.elt << " " << rule.blockC << " " << rule.gRegions;
    }
    int64_t shared = 0;
    for (const Row& r : kRows) {
        for (int64_t elt : {int64_t{4}, int64_t{2}}) {
            dcn::TilingShape s = r.shape;
            s.elt = elt;
            dcn::TilingPlan plan;
            std::string error;
            ASSERT_TRUE(dcn::MakeTilingPlan(s, platform, plan, error, BudgetOf(r))) << r.name << ": " << error;
            const dcn::WorkSplit& w = plan.split;
            const int64_t blocksPerDg = (s.cin / s.dg / w.segLen) * w.blocksPerSeg;
            if (std::string(r.name) == "r6_g32" && elt == 2) {
                EXPECT_GT(w.recTiles, 0);
            }
            if (std::string(r.name) == "r3_c4") { // 8 blocks of 32 channels per group: shared in 16-bit I/O, and
                                                  // in fp32 only with one G region (its first phases cube-bound)
                EXPECT_EQ(w.recTiles > 0, elt == 2 || w.gRegions == 1) << elt;
            }
            if (std::string(r.name) == "r1_s2") { // 16 blocks of 8 channels per group: shared in every dtype
                EXPECT_GT(w.recTiles, 0) << elt;
            }
            if (w.recTiles == 0) {
                EXPECT_EQ(plan.ws.userBytes, plan.ws.rec) << r.name; // an empty region
                continue;
            }
            ++shared;
            EXPECT_GE(blocksPerDg, dcn::SharedFrontsMinBlocks(s, w)) << r.name;
            EXPECT_EQ(w.recTiles, SimulatedUnitTiles(s, w)) << r.name;
            EXPECT_LE(
                static_cast<uint64_t>(w.chunkImgs * w.pixelBands * s.dg * w.recTiles * w.recFloats * 4),
                static_cast<uint64_t>(dcn_tiling::kRecordFree))
                << r.name;
            EXPECT_EQ(
                plan.ws.userBytes - plan.ws.rec,
                static_cast<uint64_t>(
                    (w.chunkImgs * w.pixelBands * s.dg * w.recTiles * w.recFloats * 4 + 511) / 512 * 512))
                << r.name;
        }
    }
    EXPECT_GE(shared, 1); // r6_g32 in 16-bit at least
}
