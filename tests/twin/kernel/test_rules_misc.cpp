// Further single-rule negative tests (padding limits, GM alignment, event-ID pool, queue misuse,
// Matmul call rules) and the asynchronous IterateAll protocol.
#include <gtest/gtest.h>

#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "kernel_test_util.h"

using namespace AscendC;
using twin::KernelType;

TEST(RulesMisc, datacopypad_padding_at_most_32_bytes)
{
    ktest::Gm<float> g(64);
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 512);
        LocalTensor<float> t = b.Get<float>();
        GlobalTensor<float> gg;
        gg.SetGlobalBuffer((__gm__ float *)g.addr());
        DataCopyPad(t, gg, {1, 16, 0, 0, 0}, {true, 9, 0, 0.0f});   // 9 floats = 36 B
    });
    EXPECT_TRUE(ktest::ExpectViolation(r, {"DataCopyPad(GM->UB)", "core AIV 0", "at most 32 bytes"}));
}

TEST(RulesMisc, datacopy_gm_address_aligned_to_element)
{
    ktest::Gm<uint8_t> g(1024);
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 256);
        LocalTensor<float> t = b.Get<float>();
        GlobalTensor<float> gg;
        gg.SetGlobalBuffer((__gm__ float *)(g.addr() + 2));
        DataCopy(t, gg, 64);
    });
    EXPECT_TRUE(ktest::ExpectViolation(r, {"DataCopy(GM->UB)", "core AIV 0", "4-byte aligned"}));
}

TEST(RulesMisc, event_id_pool_exhaustion)
{
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        for (int i = 0; i < 9; ++i) (void)pipe.AllocEventID<HardEvent::MTE2_V>();
    });
    EXPECT_TRUE(ktest::ExpectViolation(r, {"TPipe::AllocEventID", "core AIV 0", "all 8 event IDs"}));
}

TEST(RulesMisc, double_free_and_free_of_enqueued_tensor)
{
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TQue<TPosition::VECIN, 1> q;
        pipe.InitBuffer(q, 1, 64);
        LocalTensor<float> t = q.AllocTensor<float>();
        q.EnQue(t);
        q.FreeTensor(t);
    });
    EXPECT_TRUE(ktest::ExpectViolation(r, {"TQue::FreeTensor", "core AIV 0", "still enqueued"}));
    auto r2 = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TQue<TPosition::VECIN, 1> q;
        pipe.InitBuffer(q, 1, 64);
        LocalTensor<float> t = q.AllocTensor<float>();
        q.FreeTensor(t);
        q.FreeTensor(t);
    });
    EXPECT_TRUE(ktest::ExpectViolation(r2, {"TQue::FreeTensor", "core AIV 0", "double free"}));
}

TEST(RulesMisc, tbuf_get_longer_than_buffer)
{
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 100);   // rounded to 128 B
        (void)b.Get<float>(33);
    });
    EXPECT_TRUE(ktest::ExpectViolation(r, {"TBuf::Get", "core AIV 0", "exceeds the TBuf length 128"}));
}

namespace {
using F = MatmulType<TPosition::GM, CubeFormat::ND, float>;

TCubeTiling Tiling8() {
    TCubeTiling t{};
    t.M = t.N = t.Ka = t.Kb = 8;
    t.singleCoreM = t.singleCoreN = t.singleCoreK = 8;
    t.baseM = t.baseN = t.baseK = 16;
    return t;
}
}  // namespace

TEST(RulesMisc, matmul_called_on_aic)
{
    ktest::Gm<uint8_t> ws(twin::kLibApiWorkspaceBytes);
    TCubeTiling t = Tiling8();
    auto r = ktest::Run(1, KernelType::MIX_AIC_1_2, [&] {
        Matmul<F, F, F> mm;
        if ASCEND_IS_AIC { mm.Init(&t); }
    }, 20000, ws.addr());
    EXPECT_TRUE(ktest::ExpectViolation(r, {"Matmul::Init", "core AIC 0", "from AIV code"}));
}

TEST(RulesMisc, matmul_single_shape_within_org_shape)
{
    ktest::Gm<uint8_t> ws(twin::kLibApiWorkspaceBytes);
    ktest::Gm<float> a(64), b(64), c(64);
    TCubeTiling t = Tiling8();
    auto r = ktest::Run(1, KernelType::MIX_AIC_1_2, [&] {
        TPipe pipe;
        Matmul<F, F, F> mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        GlobalTensor<float> ga, gb, gc;
        ga.SetGlobalBuffer((__gm__ float *)a.addr());
        gb.SetGlobalBuffer((__gm__ float *)b.addr());
        gc.SetGlobalBuffer((__gm__ float *)c.addr());
        mm.SetTensorA(ga);
        mm.SetTensorB(gb);
        mm.SetTail(9, 8, 8);
        mm.IterateAll(gc);
    }, 20000, ws.addr());
    EXPECT_TRUE(ktest::ExpectViolation(r, {"Matmul::IterateAll", "core AIV", "exceeds the original shape"}));
}

TEST(RulesMisc, matmul_async_iterate_all_protocol)
{
    ktest::Gm<uint8_t> ws(twin::kLibApiWorkspaceBytes);
    ktest::Gm<float> a(64), b(64), c(64);
    for (int i = 0; i < 64; ++i) { a[i] = (i % 9 == 0) ? 1.0f : 0.0f; b[i] = float(i); }   // A = identity
    TCubeTiling t = Tiling8();
    auto body = [&](bool wait) {
        return ktest::Run(1, KernelType::MIX_AIC_1_2, [&, wait] {
            TPipe pipe;
            Matmul<F, F, F> mm;
            REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
            GlobalTensor<float> ga, gb, gc;
            ga.SetGlobalBuffer((__gm__ float *)a.addr());
            gb.SetGlobalBuffer((__gm__ float *)b.addr());
            gc.SetGlobalBuffer((__gm__ float *)c.addr());
            mm.SetTensorA(ga);
            mm.SetTensorB(gb);
            if (GetSubBlockIdx() == 0) {
                mm.template IterateAll<false>(gc, 0, false, true);
                if (wait) mm.WaitIterateAll();
            }
            mm.End();
        }, 20000, ws.addr());
    };
    EXPECT_TRUE(ktest::ExpectOk(body(true)));
    for (int i = 0; i < 64; ++i) {
        EXPECT_EQ(c[i], float(i)) << "i = " << i;
    }
    EXPECT_TRUE(ktest::ExpectViolation(body(false), {"Matmul::End", "core AIV 0", "call WaitIterateAll before End"}));
}

TEST(RulesMisc, abs_clears_sign_of_negative_zero)
{
    ktest::Gm<float> out(64);
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 256);
        LocalTensor<float> t = b.Get<float>();
        Duplicate(t, -0.0f, 64);
        PipeBarrier<PIPE_ALL>();
        t.SetValue(1, -2.5f);
        PipeBarrier<PIPE_ALL>();
        Abs(t, t, 64);
        GlobalTensor<float> g;
        g.SetGlobalBuffer((__gm__ float *)out.addr());
        PipeBarrier<PIPE_ALL>();
        DataCopy(g, t, 64);
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    EXPECT_FALSE(std::signbit(out[0])) << out[0];
    EXPECT_EQ(out[1], 2.5f);
}

TEST(RulesMisc, partial_overlap_of_dst_and_src)
{
    auto inplace = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 1024);
        LocalTensor<float> t = b.Get<float>();
        Duplicate(t, 1.0f, 256);
        PipeBarrier<PIPE_V>();
        Add(t, t, t, 128);   // 100 % overlap: allowed
    });
    EXPECT_TRUE(ktest::ExpectOk(inplace));
    auto partial = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 1024);
        LocalTensor<float> t = b.Get<float>();
        Duplicate(t, 1.0f, 256);
        PipeBarrier<PIPE_V>();
        Muls(t[8], t, 2.0f, 128);
    });
    EXPECT_TRUE(ktest::ExpectViolation(partial, {"Muls", "core AIV 0", "partially overlap"}));
    auto widening = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 1024);
        LocalTensor<half> h = b.Get<half>();
        Duplicate(h, half(1.0f), 128);
        PipeBarrier<PIPE_V>();
        Cast(b.Get<float>(), h, RoundMode::CAST_NONE, 128);
    });
    EXPECT_TRUE(ktest::ExpectViolation(widening, {"Cast", "core AIV 0", "width-changing Cast"}));
}
