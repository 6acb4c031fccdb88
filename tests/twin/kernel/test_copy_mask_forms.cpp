// Positive semantics of the strided DataCopy (DataCopyParams, 32-B block units), UB->UB copies,
// counter-mode masks (SetMaskCount + isSetMask=false), block/repeat strides of the mask form, and a
// MIX kernel that combines Matmul with SyncAll across its AIV cores.
#include <gtest/gtest.h>

#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "kernel_test_util.h"

using namespace AscendC;
using twin::KernelType;

TEST(CopyMaskForms, datacopy_params_strides_in_blocks)
{
    // GM: 4 rows x 24 floats (96 B); copy 2 blocks (16 floats) per row, skipping 1 block of GM
    // between rows and leaving a 1-block gap in UB.
    ktest::Gm<float> src(96, "src"), dst(96, "dst");
    for (int i = 0; i < 96; ++i) src[i] = float(i);
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 1024);
        LocalTensor<float> u = b.Get<float>(), v = u[128];
        GlobalTensor<float> gs, gd;
        gs.SetGlobalBuffer((__gm__ float *)src.addr());
        gd.SetGlobalBuffer((__gm__ float *)dst.addr());
        DataCopy(u, gs, DataCopyParams(4, 2, 1, 1));   // GM row pitch 3 blocks, UB pitch 3 blocks
        PipeBarrier<PIPE_ALL>();
        DataCopy(v, u, DataCopyParams(4, 2, 1, 0));    // UB->UB: compact the rows
        PipeBarrier<PIPE_ALL>();
        DataCopy(gd, v, 64);
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    bool same = true;
    for (int row = 0; row < 4; ++row)
        for (int k = 0; k < 16; ++k) same = same && dst[row * 16 + k] == src[row * 24 + k];
    EXPECT_TRUE(same);
}

TEST(CopyMaskForms, counter_mode_mask_processes_exact_count)
{
    ktest::Gm<float> out(256, "out");
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 2048);
        LocalTensor<float> a = b.Get<float>(256), c = b.GetWithOffset<float>(256, 1024);
        Duplicate(a, 2.0f, 256);
        Duplicate(c, 0.0f, 256);
        SetMaskCount();
        SetVectorMask<float, MaskMode::COUNTER>(0, 100);
        PipeBarrier<PIPE_V>();
        Muls<float, false>(c, a, 3.0f, MASK_PLACEHOLDER, 1, {1, 1, 8, 8});
        SetMaskNorm();
        ResetMask();
        GlobalTensor<float> g;
        g.SetGlobalBuffer((__gm__ float *)out.addr());
        PipeBarrier<PIPE_ALL>();
        DataCopy(g, c, 256);
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    for (int i = 0; i < 256; ++i) {
        EXPECT_EQ(out[i], (i < 100 ? 6.0f : 0.0f)) << "i = " << i;
    }
}

TEST(CopyMaskForms, counter_mode_footprint_is_exact)
{
    // 100 elements in counter mode touch exactly 100 elements: a 416-B buffer (104 floats) suffices.
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 400);
        LocalTensor<float> t = b.Get<float>();
        Duplicate(t, 1.0f, 104);
        SetMaskCount();
        SetVectorMask<float, MaskMode::COUNTER>(0, 100);
        PipeBarrier<PIPE_V>();
        Adds<float, false>(t, t, 1.0f, MASK_PLACEHOLDER, 1, {1, 1, 8, 8});
        SetVectorMask<float, MaskMode::COUNTER>(0, 105);
        PipeBarrier<PIPE_V>();
        Adds<float, false>(t, t, 1.0f, MASK_PLACEHOLDER, 1, {1, 1, 8, 8});
    });
    EXPECT_TRUE(ktest::ExpectViolation(r, {"Adds", "core AIV 0", "reaches element 104"}));
}

TEST(CopyMaskForms, mask_form_block_and_repeat_strides)
{
    // dst block stride 2: each repeat writes blocks 0,2,4,...,14 of a 16-block window; repeat stride 16.
    ktest::Gm<float> out(512, "out");
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 4096);
        LocalTensor<float> d = b.Get<float>(512), s = b.GetWithOffset<float>(128, 2048);
        Duplicate(d, -1.0f, 512);
        for (int i = 0; i < 128; ++i) s.SetValue(i, float(i));
        PipeBarrier<PIPE_ALL>();
        Adds(d, s, 100.0f, 64, 2, {2, 1, 16, 8});
        GlobalTensor<float> g;
        g.SetGlobalBuffer((__gm__ float *)out.addr());
        PipeBarrier<PIPE_ALL>();
        DataCopy(g, d, 512);
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    bool ok = true;
    for (int rep = 0; rep < 2; ++rep)
        for (int e = 0; e < 64; ++e) {
            const int blk = e / 8, w = e % 8;
            ok = ok && out[rep * 128 + blk * 16 + w] == float(100 + rep * 64 + e);
            ok = ok && out[rep * 128 + blk * 16 + 8 + w] == -1.0f;   // skipped blocks untouched
        }
    EXPECT_TRUE(ok);
}

TEST(CopyMaskForms, mix_kernel_matmul_then_sync_all)
{
    // Each AIV computes C_i = A * B (4x4 identity-free case), then after SyncAll reads its peer's C.
    ktest::Gm<uint8_t> ws(twin::kLibApiWorkspaceBytes, "ws");
    ktest::Gm<float> a(16, "A"), b(16, "B"), c(4 * 16, "C"), peer(4 * 16, "peer");
    for (int i = 0; i < 16; ++i) { a[i] = float(i % 5); b[i] = float((i * 3) % 7); }
    TCubeTiling t{};
    t.M = t.N = t.Ka = t.Kb = 4;
    t.singleCoreM = t.singleCoreN = t.singleCoreK = 4;
    t.baseM = t.baseN = t.baseK = 16;
    auto r = ktest::Run(2, KernelType::MIX_AIC_1_2, [&] {
        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
        TPipe pipe;
        using F = MatmulType<TPosition::GM, CubeFormat::ND, float>;
        Matmul<F, F, F> mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        GlobalTensor<float> ga, gb, gc, gp;
        ga.SetGlobalBuffer((__gm__ float *)a.addr());
        gb.SetGlobalBuffer((__gm__ float *)b.addr());
        gc.SetGlobalBuffer((__gm__ float *)c.addr());
        gp.SetGlobalBuffer((__gm__ float *)peer.addr());
        const int64_t me = GetBlockIdx(), n = GetBlockNum() * 2;
        mm.SetTensorA(ga);
        mm.SetTensorB(gb);
        mm.IterateAll(gc[me * 16]);
        mm.End();
        SyncAll();
        for (int i = 0; i < 16; ++i) gp.SetValue(me * 16 + i, gc.GetValue(((me + 1) % n) * 16 + i));
    }, 20000, ws.addr());
    EXPECT_TRUE(ktest::ExpectOk(r));
    bool ok = true;
    for (int core = 0; core < 4; ++core)
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) {
                float s = 0;
                for (int k = 0; k < 4; ++k) s += a[i * 4 + k] * b[k * 4 + j];
                ok = ok && peer[core * 16 + i * 4 + j] == s;
            }
    EXPECT_TRUE(ok);
}
