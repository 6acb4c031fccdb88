// InitBuffer hands out all-poison UB (0xFF bytes) whatever the arena held before: after a TPipe::Reset
// in the same launch, in a recycled arena of a later launch, and after a launch that a violation ended
// (src/kernel/ub_arena.h re-poisons only the blocks that may differ from poison). Observed through
// DataCopyPad's undefined padding elements (isPad=false with rightPadding: they keep the UB contents).
#include <cstdint>
#include <cstring>

#include <gtest/gtest.h>

#include "kernel_operator.h"
#include "kernel_test_util.h"

using namespace AscendC;
using twin::KernelType;

namespace {
constexpr int kSlots = 8; // 32-B slots: 4 copied floats, then 4 undefined ones

// Copies 4 floats of `in` into each of the first kSlots 32-B blocks of a fresh 1 KiB TBuf and the
// blocks (data and undefined padding) to `out`.
void CopyPaddedSlots(TPipe& pipe, GlobalTensor<float>& gi, GlobalTensor<float>& go)
{
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 1024);
    LocalTensor<float> t = buf.Get<float>();
    DataCopyPad(
        t, gi, DataCopyExtParams(kSlots, 4 * sizeof(float), 0, 0, 0), DataCopyPadExtParams<float>(false, 0, 2, 0.0f));
    SetFlag<HardEvent::MTE2_MTE3>(0);
    WaitFlag<HardEvent::MTE2_MTE3>(0);
    DataCopy(go, t, kSlots * 8);
}

void ExpectPoisonPadding(ktest::Gm<float>& in, ktest::Gm<float>& out)
{
    for (int s = 0; s < kSlots; ++s)
        for (int k = 0; k < 8; ++k) {
            uint32_t bits = 0, want = 0xFFFFFFFFu;
            std::memcpy(&bits, &out[8 * s + k], sizeof(bits));
            if (k < 4)
                std::memcpy(&want, &in[4 * s + k], sizeof(want));
            EXPECT_EQ(bits, want) << "slot " << s << " element " << k;
        }
}

struct Io {
    ktest::Gm<float> in{4 * kSlots, "in"}, out{8 * kSlots, "out"};
    GlobalTensor<float> gi, go;
    Io()
    {
        for (int i = 0; i < 4 * kSlots; ++i)
            in[i] = float(i + 1);
    }
    void Bind()
    {
        gi.SetGlobalBuffer((__gm__ float*)in.addr(), 4 * kSlots);
        go.SetGlobalBuffer((__gm__ float*)out.addr(), 8 * kSlots);
    }
};

// A fresh one-core launch copies padded slots: its UB padding must read back as poison.
void ExpectNextLaunchSeesPoison()
{
    Io io;
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        io.Bind();
        TPipe pipe;
        CopyPaddedSlots(pipe, io.gi, io.go);
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    ExpectPoisonPadding(io.in, io.out);
}
} // namespace

// Half of the buffer written (blocks 0..15 of 32), TPipe::Reset, InitBuffer again at the same address.
TEST(UbPoison, init_buffer_after_reset_repoisons_written_blocks)
{
    Io io;
    auto r = ktest::Run(1, KernelType::AIV_ONLY, [&] {
        io.Bind();
        TPipe pipe;
        {
            TBuf<TPosition::VECCALC> buf;
            pipe.InitBuffer(buf, 1024);
            LocalTensor<float> t = buf.Get<float>();
            Duplicate(t, 1.0f, 128);
            PipeBarrier<PIPE_ALL>();
        }
        pipe.Reset();
        CopyPaddedSlots(pipe, io.gi, io.go);
    });
    EXPECT_TRUE(ktest::ExpectOk(r));
    ExpectPoisonPadding(io.in, io.out);
}

// Every block of every core's arena written, then the next launches recycle those arenas.
TEST(UbPoison, recycled_arena_starts_as_poison)
{
    for (int round = 0; round < 2; ++round) {
        auto fill = ktest::Run(4, KernelType::AIV_ONLY, [&] {
            TPipe pipe;
            TBuf<TPosition::VECCALC> buf;
            pipe.InitBuffer(buf, 64 * 1024);
            Duplicate(buf.Get<float>(), 2.0f, 16 * 1024);
        });
        EXPECT_TRUE(ktest::ExpectOk(fill));
        ExpectNextLaunchSeesPoison();
    }
}

// A launch that a violation ends after writing UB: its arenas are recycled all-dirty.
TEST(UbPoison, arena_of_a_failed_launch_starts_as_poison)
{
    auto bad = ktest::Run(4, KernelType::AIV_ONLY, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 1024);
        LocalTensor<float> t = buf.Get<float>();
        Duplicate(t, 3.0f, 256);
        (void)buf.Get<float>(1024); // beyond the TBuf: a violation
    });
    EXPECT_TRUE(ktest::ExpectViolation(bad, {"TBuf::Get", "exceeds the TBuf length"}));
    ExpectNextLaunchSeesPoison();
}
