// Compile-and-run coverage of the kernel API surface written exactly as the official API reference
// shows the calls (mask/repeat forms, Cast, Compare/Select, reductions, Gather(Mask), events, atomics,
// workspace). Each case also checks its results, so a broken API fails here.
#include <gtest/gtest.h>

#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "kernel_test_util.h"

using namespace AscendC;

TEST(ApiSurface, mask_repeat_forms_match_count_forms)
{
    ktest::Gm<float> out(512, "out");
    auto r = ktest::Run(1, twin::KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 4 * 256 * sizeof(float));
        LocalTensor<float> a = buf.Get<float>();
        LocalTensor<float> b = a[256], c = a[512], d = a[768];
        Duplicate(a, 1.5f, 256);
        Duplicate<float>(b, 2.0f, 64, 4, 1, 8);            // mask form, 4 repeats of 64
        uint64_t mask[2] = {0xffffffffffffffffull, 0};
        PipeBarrier<PIPE_V>();                              // each vector op reads the previous one's result
        Add(c, a, b, mask, 4, {1, 1, 1, 8, 8, 8});          // bit-mask form
        PipeBarrier<PIPE_V>();
        Muls(d, c, 2.0f, 64, 4, {1, 1, 8, 8});              // continuous-mask form
        PipeBarrier<PIPE_V>();
        Adds(d, d, -1.0f, 256);
        GlobalTensor<float> g;
        g.SetGlobalBuffer((__gm__ float *)out.addr(), 512);
        PipeBarrier<PIPE_ALL>();
        DataCopy(g, d, 256);
        SetVectorMask<float>(0, 0xffull);                   // 8 elements per repeat
        Sub<float, false>(c, a, b, MASK_PLACEHOLDER, 1, {1, 1, 1, 8, 8, 8});
        ResetMask();
        PipeBarrier<PIPE_ALL>();
        DataCopy(g[256], c, 256);
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    for (int i = 0; i < 256; ++i) { // (1.5 + 2) * 2 - 1
        EXPECT_EQ(out[i], 6.0f) << "i = " << i;
    }
    for (int i = 0; i < 8; ++i) { // masked Sub wrote the first 8 only
        EXPECT_EQ(out[256 + i], -0.5f) << "i = " << i;
    }
    EXPECT_EQ(out[256 + 8], 3.5f);
}

TEST(ApiSurface, cast_compare_select_reduce)
{
    ktest::Gm<float> out(64, "out");
    ktest::Gm<int32_t> outi(64, "outi");
    auto r = ktest::Run(1, twin::KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 8192);
        LocalTensor<float> x = buf.Get<float>(64);
        LocalTensor<float> y = buf.GetWithOffset<float>(64, 256);
        LocalTensor<int32_t> xi = buf.GetWithOffset<int32_t>(64, 512);
        LocalTensor<uint8_t> bits = buf.GetWithOffset<uint8_t>(32, 768);
        LocalTensor<float> z = buf.GetWithOffset<float>(64, 1024);
        LocalTensor<float> tmp = buf.GetWithOffset<float>(64, 1280);
        LocalTensor<float> sum = buf.GetWithOffset<float>(8, 1536);
        for (int i = 0; i < 64; ++i) x.SetValue(i, -3.5f + 0.25f * i);
        PipeBarrier<PIPE_ALL>();
        Cast(xi, x, RoundMode::CAST_FLOOR, 64);
        PipeBarrier<PIPE_V>(); // each vector op reads the previous one's result
        Cast(y, xi, RoundMode::CAST_NONE, 64);
        CompareScalar(bits, x, 0.0f, CMPMODE::GE, 64);
        PipeBarrier<PIPE_V>();
        Select(z, bits, x, -1.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, 64);
        PipeBarrier<PIPE_V>();
        ReduceSum(sum, z, tmp, 64);
        GlobalTensor<float> g;
        g.SetGlobalBuffer((__gm__ float *)out.addr());
        GlobalTensor<int32_t> gi;
        gi.SetGlobalBuffer((__gm__ int32_t *)outi.addr());
        PipeBarrier<PIPE_ALL>();
        DataCopy(gi, xi, 64);
        DataCopy(g, z, 64);
        g.SetValue(0, sum.GetValue(0));
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    float want = 0;
    for (int i = 0; i < 64; ++i) {
        const float v = -3.5f + 0.25f * i;
        EXPECT_EQ(outi[i], static_cast<int32_t>(std::floor(v)));
        want += v >= 0 ? v : -1.0f;
        if (i > 0) {
            EXPECT_EQ(out[i], (v >= 0 ? v : -1.0f));
        }
    }
    EXPECT_EQ(out[0], want); // exact: all values are multiples of 0.25 with small magnitude
}

TEST(ApiSurface, events_atomics_workspace)
{
    ktest::Gm<float> acc(64, "acc");
    ktest::Gm<uint8_t> ws(twin::kLibApiWorkspaceBytes + 1024, "workspace");
    auto r = ktest::Run(4, twin::KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 256);
        LocalTensor<float> t = buf.Get<float>();
        Duplicate(t, 1.0f + static_cast<float>(GetBlockIdx()), 64);
        TEventID id = pipe.AllocEventID<HardEvent::V_MTE3>();
        SetFlag<HardEvent::V_MTE3>(id);
        WaitFlag<HardEvent::V_MTE3>(id);
        pipe.ReleaseEventID<HardEvent::V_MTE3>(id);
        PipeBarrier<PIPE_ALL>();
        GlobalTensor<float> g;
        g.SetGlobalBuffer((__gm__ float *)acc.addr(), 64);
        SetAtomicAdd<float>();
        DataCopy(g, t, 64);
        SetAtomicNone();
        GM_ADDR user = GetUserWorkspace(GetSysWorkSpacePtr());
        GlobalTensor<uint8_t> u;
        u.SetGlobalBuffer(user);
        u.SetValue(GetBlockIdx(), 7);
    }, 20000, ws.addr());
    EXPECT_TRUE(ktest::ExpectOk(r));
    for (int i = 0; i < 64; ++i) { // 1 + 2 + 3 + 4
        EXPECT_EQ(acc[i], 10.0f) << "i = " << i;
    }
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(ws[twin::kLibApiWorkspaceBytes + i], 7) << "i = " << i;
    }
}

TEST(ApiSurface, gather_mask_patterns)
{
    ktest::Gm<float> out(64, "out");
    uint64_t kept = 0;
    auto r = ktest::Run(1, twin::KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TQue<TPosition::VECIN, 1> q;
        pipe.InitBuffer(q, 2, 256);
        LocalTensor<float> src = q.AllocTensor<float>();
        LocalTensor<float> dst = q.AllocTensor<float>();
        for (int i = 0; i < 64; ++i) src.SetValue(i, static_cast<float>(i));
        PipeBarrier<PIPE_ALL>();
        GatherMask(dst, src, static_cast<uint8_t>(2), false, 0, {1, 1, 8, 8}, kept);
        GlobalTensor<float> g;
        g.SetGlobalBuffer((__gm__ float *)out.addr());
        PipeBarrier<PIPE_ALL>();
        DataCopy(g, dst, 32);
        q.FreeTensor(src);
        q.FreeTensor(dst);
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    EXPECT_EQ(kept, 32);
    for (int i = 0; i < 32; ++i) {
        EXPECT_EQ(out[i], static_cast<float>(2 * i + 1)) << "i = " << i;
    }
}

TEST(ApiSurface, scalar_first_set_bit)
{
    // ScalarGetSFFValue<v>(x): position of the first bit equal to v from the least significant end, -1 if none
    EXPECT_EQ(ScalarGetSFFValue<1>(0x1000000000000100ULL), 8);
    EXPECT_EQ(ScalarGetSFFValue<1>(0ULL), -1);
    EXPECT_EQ(ScalarGetSFFValue<1>(0x8000000000000000ULL), 63);
    EXPECT_EQ(ScalarGetSFFValue<0>(0x00000000000000FFULL), 8);
    EXPECT_EQ(ScalarGetSFFValue<0>(0ULL), 0);
    EXPECT_EQ(ScalarGetSFFValue<0>(~0ULL), -1);
    EXPECT_EQ(ScalarGetSFFValue<0>(0x7FFFFFFFFFFFFFFFULL), 63);
}
