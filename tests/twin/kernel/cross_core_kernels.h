// Twin-only test kernels for CrossCoreSetFlag / CrossCoreWaitFlag (tests/twin/kernel/test_cross_core.cpp).
// Plain AscendC with the CANN 8.1.RC1 signatures: the file also compiles against the real 8.1.RC1
// headers (g++ -fsyntax-only in CANN's CPU-debug mode for the AIV and the AIC core, see twin/README.md
// "Cross-core flags"), so a kernel written like this builds on the real toolchain too.
//
// Handoff (KERNEL_TYPE_MIX_AIC_1_2, the pattern of the next kernel: G tiles from the cube core to the
// vector cores): per AI core one GM slot of kTileElems floats. The AIC writes tile t into the slot and
// hands it to its two AIVs (mode 2, flag kTileReady); each AIV reads its half, doubles it and writes it
// to out[t]; then both AIVs hand the slot back (mode 2, flag kTileFree) and the AIC waits for that
// before it overwrites the slot.
#pragma once
#include "kernel_operator.h"

namespace xcore_kernels {

constexpr uint16_t kTileReady = 2;  // AIC -> its AIVs
constexpr uint16_t kTileFree = 3;   // both AIVs -> their AIC
constexpr int32_t kTileElems = 128; // floats per tile; each AIV of the AI core takes half
constexpr int32_t kHalf = kTileElems / 2;

constexpr int kAivWaitLine = 59; // the line of the AIVs' CrossCoreWaitFlag(kTileReady) below

struct HandoffOptions {
    int32_t tiles = 20;
    bool aicSets = true;     // the AIC announces each tile
    bool aivWaits = true;    // the AIVs wait for it before reading
    bool flowControl = true; // the AIVs hand the slot back and the AIC waits for that
};

__aicore__ inline void HandoffAic(GM_ADDR slot, const HandoffOptions& o)
{
    AscendC::GlobalTensor<float> slotGm;
    slotGm.SetGlobalBuffer((__gm__ float*)slot + AscendC::GetBlockIdx() * kTileElems, kTileElems);
    for (int32_t t = 0; t < o.tiles; ++t) {
        if (t > 0 && o.flowControl)
            AscendC::CrossCoreWaitFlag(kTileFree); // both AIVs have read tile t - 1
        for (int32_t i = 0; i < kTileElems; ++i)
            slotGm.SetValue(i, static_cast<float>(t * 1000 + i));
        if (o.aicSets)
            AscendC::CrossCoreSetFlag<2, PIPE_FIX>(kTileReady);
    }
    if (o.flowControl && o.tiles > 0)
        AscendC::CrossCoreWaitFlag(kTileFree); // the last tile has been read
}

__aicore__ inline void HandoffAiv(GM_ADDR slot, GM_ADDR out, const HandoffOptions& o)
{
    const int64_t aiv = AscendC::GetBlockIdx();
    const int64_t aic = aiv / 2, sub = AscendC::GetSubBlockIdx();
    AscendC::GlobalTensor<float> slotGm, outGm;
    slotGm.SetGlobalBuffer((__gm__ float*)slot + aic * kTileElems + sub * kHalf, kHalf);
    outGm.SetGlobalBuffer((__gm__ float*)out + aic * o.tiles * kTileElems + sub * kHalf, o.tiles * kTileElems);
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, kHalf * sizeof(float));
    AscendC::LocalTensor<float> x = buf.Get<float>();
    for (int32_t t = 0; t < o.tiles; ++t) {
        if (o.aivWaits)
            AscendC::CrossCoreWaitFlag(kTileReady); // line kAivWaitLine (the drop-site test names it)
        if (t > 0) {
            AscendC::WaitFlag<AscendC::HardEvent::MTE3_MTE2>(0); // x has been written out
        }
        AscendC::DataCopy(x, slotGm, kHalf);
        AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(0);
        AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(0);
        if (o.flowControl)
            AscendC::CrossCoreSetFlag<2, PIPE_MTE2>(kTileFree); // the slot has been read
        AscendC::Muls(x, x, 2.0f, kHalf);
        AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(0);
        AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(0);
        AscendC::DataCopy(outGm[t * kTileElems], x, kHalf);
        if (t + 1 < o.tiles) {
            AscendC::SetFlag<AscendC::HardEvent::MTE3_MTE2>(0);
        }
    }
}

__aicore__ inline void Handoff(GM_ADDR slot, GM_ADDR out, const HandoffOptions& o)
{
    if ASCEND_IS_AIC {
        HandoffAic(slot, o);
        return;
    }
    HandoffAiv(slot, out, o);
}

// Mode 0 among all AIV cores (the docs' example): each AIV writes its row, all AIVs meet on flag 0,
// then each reads the row of the next AIV. With `pair` false the flags are left out.
__aicore__ inline void AllAivExchange(GM_ADDR rows, GM_ADDR out, bool pair)
{
    if ASCEND_IS_AIC {
        return;
    }
    const int64_t me = AscendC::GetBlockIdx(), n = AscendC::GetBlockNum() * 2;
    AscendC::GlobalTensor<float> rowsGm, outGm;
    rowsGm.SetGlobalBuffer((__gm__ float*)rows, n * kHalf);
    outGm.SetGlobalBuffer((__gm__ float*)out, n * kHalf);
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, kHalf * sizeof(float));
    AscendC::LocalTensor<float> x = buf.Get<float>();
    AscendC::Duplicate(x, static_cast<float>(me + 1), kHalf);
    AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(0);
    AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(0);
    AscendC::DataCopy(rowsGm[me * kHalf], x, kHalf);
    if (pair) {
        AscendC::CrossCoreSetFlag<0, PIPE_MTE3>(0);
        AscendC::CrossCoreWaitFlag(0);
    }
    AscendC::SetFlag<AscendC::HardEvent::MTE3_MTE2>(0);
    AscendC::WaitFlag<AscendC::HardEvent::MTE3_MTE2>(0);
    AscendC::DataCopy(x, rowsGm[((me + 1) % n) * kHalf], kHalf);
    AscendC::SetFlag<AscendC::HardEvent::MTE2_MTE3>(0);
    AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE3>(0);
    AscendC::DataCopy(outGm[me * kHalf], x, kHalf);
}

} // namespace xcore_kernels
