// Negative tests, one per UB/GM/queue rule: each kernel breaks exactly one rule and the test asserts
// the reported error names the API, the core and the rule. The matching positive control (same
// kernel without the fault) passes, so a removed rule makes the negative test fail.
#include <gtest/gtest.h>

#include "kernel_operator.h"
#include "kernel_test_util.h"

#include <stdexcept>

using namespace AscendC;
using twin::KernelType;

namespace {

// Copies 64 floats GM->UB->GM at UB element offset `ubOffset` and GM count `count`.
twin::LaunchResult CopyKernel(ktest::Gm<float> &in, ktest::Gm<float> &out, uint32_t ubOffset, uint32_t count, uint32_t gmOffset = 0) {
    return ktest::Run(2, KernelType::AIV_ONLY, [&, ubOffset, count, gmOffset] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 1024);
        LocalTensor<float> t = buf.Get<float>()[ubOffset];
        GlobalTensor<float> gi, go;
        gi.SetGlobalBuffer((__gm__ float *)in.addr() + gmOffset);
        go.SetGlobalBuffer((__gm__ float *)out.addr());
        if (GetBlockIdx() == 1) {
            DataCopy(t, gi, count);
            PipeBarrier<PIPE_ALL>();
            DataCopy(go, t, count);
        }
    });
}

}  // namespace

TEST(RulesMemory, copy_positive_control)
{
    ktest::Gm<float> in(64), out(64);
    for (int i = 0; i < 64; ++i) in[i] = float(i);
    EXPECT_TRUE(ktest::ExpectOk(CopyKernel(in, out, 8, 64)));
    EXPECT_EQ(out[63], 63.0f);
}

TEST(RulesMemory, ub_address_must_be_32_byte_aligned)
{
    ktest::Gm<float> in(64), out(64);
    EXPECT_TRUE(
        ktest::ExpectViolation(CopyKernel(in, out, 3, 64), {"DataCopy(GM->UB)", "core AIV 1", "32-byte aligned"}));
}

TEST(RulesMemory, datacopy_rounds_down_to_32_bytes_and_tail_stays_unwritten)
{
    ktest::Gm<float> in(64), out(64);
    for (int i = 0; i < 64; ++i) in[i] = float(i + 1);
    // 60 floats = 240 B -> 224 B (56 floats) moved; the out tail keeps its old content.
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 256);
        LocalTensor<float> t = buf.Get<float>();
        GlobalTensor<float> gi, go;
        gi.SetGlobalBuffer((__gm__ float *)in.addr());
        go.SetGlobalBuffer((__gm__ float *)out.addr());
        DataCopy(t, gi, 60);
        PipeBarrier<PIPE_ALL>();
        DataCopy(go, t, 60);
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    EXPECT_EQ(out[55], 56.0f);
    EXPECT_EQ(out[56], 0.0f);
    // Reading the never-filled tail of UB is then caught.
    auto r2 = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 256);
        LocalTensor<float> t = buf.Get<float>();
        GlobalTensor<float> gi;
        gi.SetGlobalBuffer((__gm__ float *)in.addr());
        DataCopy(t, gi, 60);
        (void)t.GetValue(58);
    });
    EXPECT_TRUE(ktest::ExpectViolation(r2, {"LocalTensor::GetValue", "core AIV 0", "uninitialized UB"}));
}

TEST(RulesMemory, uninitialized_ub_read_in_vector_op)
{
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 1024);
        LocalTensor<float> a = buf.Get<float>(), b = a[64], c = a[128];
        Duplicate(a, 1.0f, 64);
        PipeBarrier<PIPE_V>();
        Add(c, a, b, 64);   // b never written
    });
    EXPECT_TRUE(ktest::ExpectViolation(r, {"Add", "core AIV 0", "uninitialized UB"}));
}

// The mask-form fast paths (prefix masks: one shadow check per 32-B block) still catch a read of an
// unwritten block in the middle of a repeat, for binary, tensor-scalar and reduce instructions.
TEST(RulesMemory, uninitialized_ub_read_in_mask_forms)
{
    auto kernel = [](int which) {
        return ktest::Run(1, KernelType::AIV_ONLY, [which] {
            TPipe pipe;
            TBuf<TPosition::VECCALC> buf;
            pipe.InitBuffer(buf, 4096);
            LocalTensor<float> a = buf.Get<float>(), w = a[256], d = a[512];
            Duplicate(a, 1.0f, 40);    // blocks 0..4 of a written; block 5 (elements 40..47) not
            Duplicate(w, 2.0f, 8);     // one block, broadcast with block stride 0
            PipeBarrier<PIPE_V>();
            if (which == 0) Mul(d, a, w, 48, 1, {1, 1, 0, 8, 8, 0});
            if (which == 1) Muls(d, a, 3.0f, 48, 1, {1, 1, 8, 8});
            if (which == 2) WholeReduceSum(d, a, 48, 1, 1, 1, 8);
            if (which == 3) Mul(d, a, w, 40, 1, {1, 1, 0, 8, 8, 0});   // within the written part: fine
        });
    };
    EXPECT_TRUE(ktest::ExpectViolation(
        kernel(0), {"Mul", "core AIV 0", "uninitialized UB", "first unwritten 32-B block at UB offset 160"}));
    EXPECT_TRUE(ktest::ExpectViolation(
        kernel(1), {"Muls", "core AIV 0", "uninitialized UB", "first unwritten 32-B block at UB offset 160"}));
    EXPECT_TRUE(ktest::ExpectViolation(
        kernel(2),
        {"WholeReduceSum", "core AIV 0", "uninitialized UB", "first unwritten 32-B block at UB offset 160"}));
    EXPECT_TRUE(ktest::ExpectOk(kernel(3)));
}

// Prefix-mask fast path and bit-mask path agree element by element (broadcast src1, strided dst).
TEST(RulesMemory, mask_forms_prefix_and_bitmask_agree)
{
    ktest::Gm<float> out(2 * 128, "out");
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 8192);
        LocalTensor<float> a = buf.Get<float>(), w = a[256], d1 = a[512], d2 = a[1024];
        for (int i = 0; i < 128; ++i) a.SetValue(i, float(i) * 0.5f - 7.0f);
        for (int i = 0; i < 8; ++i) w.SetValue(i, float(i + 2));
        PipeBarrier<PIPE_ALL>();
        Duplicate(d1, 0.0f, 256);
        Duplicate(d2, 0.0f, 256);
        PipeBarrier<PIPE_V>();
        Mul(d1, a, w, 44, 2, {2, 1, 0, 16, 8, 0});                 // prefix: fast path
        uint64_t bits[2] = {(1ull << 44) - 1, 0};
        Mul(d2, a, w, bits, 2, {2, 1, 0, 16, 8, 0});               // same elements as a bit mask
        GlobalTensor<float> g;
        g.SetGlobalBuffer((__gm__ float *)out.addr());
        PipeBarrier<PIPE_ALL>();
        DataCopy(g, d1, 128);
        DataCopy(g[128], d2, 128);
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    bool same = true;
    for (int i = 0; i < 128; ++i) same = same && out[i] == out[128 + i];
    EXPECT_TRUE(same);
    // element e of repeat r: dst at r*128 + (e/8)*16 + e%8 = a[r*64 + e] * w[e%8]
    EXPECT_EQ(out[16 + 3], (float(64 * 0 + 8 + 3) * 0.5f - 7.0f) * float(3 + 2));
}

TEST(RulesMemory, gm_out_of_bounds_read)
{
    ktest::Gm<float> in(64), out(64);
    EXPECT_TRUE(ktest::ExpectViolation(
        CopyKernel(in, out, 0, 64, 8), {"DataCopy(GM->UB)", "core AIV 1", "out-of-bounds GM access"}));
}

TEST(RulesMemory, gm_out_of_bounds_scalar_write)
{
    ktest::Gm<int32_t> g(8);
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        GlobalTensor<int32_t> t;
        t.SetGlobalBuffer((__gm__ int32_t *)g.addr(), 8);
        t.SetValue(7, 1);
        t.SetValue(8, 1);
    });
    EXPECT_TRUE(
        ktest::ExpectViolation(r, {"GlobalTensor::SetValue", "core AIV 0", "out-of-bounds GM access", "write"}));
    EXPECT_EQ(g[7], 1);
}

TEST(RulesMemory, ub_capacity_is_enforced)
{
    const uint32_t usable = static_cast<uint32_t>(twin::UsableUbBytes());
    auto fits = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> a, b;
        pipe.InitBuffer(a, usable - 1024);
        pipe.InitBuffer(b, 1024);
    });
    EXPECT_TRUE(ktest::ExpectOk(fits));
    auto over = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> a, b;
        pipe.InitBuffer(a, usable - 1024);
        pipe.InitBuffer(b, 1025);   // rounds to 1056 B
    });
    EXPECT_TRUE(ktest::ExpectViolation(over, {"TPipe::InitBuffer", "core AIV 0", "UB capacity exceeded"}));
}

TEST(RulesMemory, ub_budget_resets_after_pipe_reset)
{
    const uint32_t usable = static_cast<uint32_t>(twin::UsableUbBytes());
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TQue<TPosition::VECIN, 1> q;
        pipe.InitBuffer(q, 1, usable);
        pipe.Reset();
        pipe.InitBuffer(q, 1, usable);
        LocalTensor<float> t = q.AllocTensor<float>();
        q.FreeTensor(t);
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    auto stale = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TQue<TPosition::VECIN, 1> q;
        pipe.InitBuffer(q, 1, 256);
        pipe.Reset();
        LocalTensor<float> t = q.AllocTensor<float>();
        (void)t;
    });
    EXPECT_TRUE(ktest::ExpectViolation(stale, {"TQue::AllocTensor", "core AIV 0", "after TPipe::Reset"}));
}

TEST(RulesMemory, at_most_64_buffers)
{
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> bufs[65];
        for (auto &b : bufs) pipe.InitBuffer(b, 32);
    });
    EXPECT_TRUE(ktest::ExpectViolation(r, {"TPipe::InitBuffer", "core AIV 0", "more than 64 buffers"}));
}

TEST(RulesMemory, aic_has_no_unified_buffer)
{
    ktest::Gm<uint8_t> ws(twin::kLibApiWorkspaceBytes);
    auto r = ktest::Run(1, KernelType::MIX_AIC_1_2, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 256);
    }, 20000, ws.addr());
    EXPECT_TRUE(ktest::ExpectViolation(r, {"TPipe::InitBuffer", "core AIC 0", "no Unified Buffer"}));
}

TEST(RulesMemory, enque_over_depth)
{
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TQue<TPosition::VECIN, 1> q;
        pipe.InitBuffer(q, 2, 256);
        LocalTensor<float> a = q.AllocTensor<float>(), b = q.AllocTensor<float>();
        q.EnQue(a);
        q.EnQue(b);
    });
    EXPECT_TRUE(ktest::ExpectViolation(r, {"TQue::EnQue", "core AIV 0", "over the queue depth 1"}));
}

TEST(RulesMemory, deque_on_empty_queue)
{
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TQue<TPosition::VECOUT, 2> q;
        pipe.InitBuffer(q, 2, 256);
        LocalTensor<float> a = q.DeQue<float>();
        (void)a;
    });
    EXPECT_TRUE(ktest::ExpectViolation(r, {"TQue::DeQue", "core AIV 0", "empty queue"}));
}

TEST(RulesMemory, at_most_8_live_tensors_per_position)
{
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TQue<TPosition::VECIN, 1> q1, q2;
        pipe.InitBuffer(q1, 5, 64);
        pipe.InitBuffer(q2, 5, 64);
        for (int i = 0; i < 5; ++i) (void)q1.AllocTensor<float>();
        for (int i = 0; i < 5; ++i) (void)q2.AllocTensor<float>();
    });
    EXPECT_TRUE(ktest::ExpectViolation(r, {"TQue::AllocTensor", "core AIV 0", "more than 8 live"}));
}

TEST(RulesMemory, alloc_without_free_buffer)
{
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TQue<TPosition::VECIN, 2> q;
        pipe.InitBuffer(q, 2, 64);
        for (int i = 0; i < 3; ++i) (void)q.AllocTensor<float>();
    });
    EXPECT_TRUE(ktest::ExpectViolation(r, {"TQue::AllocTensor", "core AIV 0", "no free buffer"}));
}

TEST(RulesMemory, local_tensor_bounds)
{
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 256);
        LocalTensor<float> t = b.Get<float>();   // 64 elements
        Duplicate(t, 0.0f, 64);
        Adds(t, t, 1.0f, 72);
    });
    EXPECT_TRUE(ktest::ExpectViolation(r, {"Adds", "core AIV 0", "exceeds the LocalTensor's buffer"}));
    auto r2 = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 256);
        LocalTensor<float> t = b.Get<float>();
        t.SetValue(64, 1.0f);
    });
    EXPECT_TRUE(ktest::ExpectViolation(r2, {"LocalTensor::SetValue", "core AIV 0", "out of bounds"}));
}

TEST(RulesMemory, datacopy_params_block_count_limit)
{
    ktest::Gm<float> g(1 << 16);
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 32);
        LocalTensor<float> t = b.Get<float>();
        GlobalTensor<float> gg;
        gg.SetGlobalBuffer((__gm__ float *)g.addr());
        DataCopyParams p;
        p.blockCount = 4096;
        p.blockLen = 1;
        DataCopy(t, gg, p);
    });
    EXPECT_TRUE(ktest::ExpectViolation(
        r, {"DataCopy(GM->UB, DataCopyParams)", "core AIV 0", "blockCount must be in [0, 4095]"}));
}

TEST(RulesMemory, datacopypad_block_len_multiple_of_type)
{
    ktest::Gm<float> g(64);
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 256);
        LocalTensor<float> t = b.Get<float>();
        GlobalTensor<float> gg;
        gg.SetGlobalBuffer((__gm__ float *)g.addr());
        DataCopyPad(t, gg, {1, 10, 0, 0, 0}, {false, 0, 0, 0.0f});
    });
    EXPECT_TRUE(ktest::ExpectViolation(r, {"DataCopyPad(GM->UB)", "core AIV 0", "multiple of sizeof(T)"}));
}

TEST(RulesMemory, api_outside_launch_is_an_error)
{
    bool threw = false;
    try {
        (void)GetBlockIdx();
    } catch (const std::logic_error &e) {
        threw = ktest::Contains(e.what(), "GetBlockIdx") && ktest::Contains(e.what(), "outside twin::Launch");
    }
    EXPECT_TRUE(threw);
}
