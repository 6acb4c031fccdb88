// Kernel of the twin's toy operator ToyScaleByTensor: y = x * factor on one vector core, the factor
// coming from the tiling data (the host read the ValueDepend input). DTYPE_X is generated (float).
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void toy_scale_by_tensor(GM_ADDR x, GM_ADDR factor, GM_ADDR y, GM_ADDR workspace,
                                                          GM_ADDR tiling) {
    (void)factor;
    (void)workspace;
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    GET_TILING_DATA(tilingData, tiling);
    constexpr uint32_t kTile = 256;
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, kTile * sizeof(DTYPE_X));
    AscendC::GlobalTensor<DTYPE_X> xGm, yGm;
    xGm.SetGlobalBuffer(reinterpret_cast<__gm__ DTYPE_X *>(x), tilingData.totalLength);
    yGm.SetGlobalBuffer(reinterpret_cast<__gm__ DTYPE_Y *>(y), tilingData.totalLength);
    AscendC::LocalTensor<DTYPE_X> t = buf.Get<DTYPE_X>();
    for (uint32_t done = 0; done < tilingData.totalLength; done += kTile) {
        const uint32_t n = tilingData.totalLength - done < kTile ? tilingData.totalLength - done : kTile;
        AscendC::DataCopy(t, xGm[done], n);
        AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(0);
        AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(0);
        AscendC::Muls(t, t, static_cast<DTYPE_X>(tilingData.factor), static_cast<int32_t>(n));
        AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(0);
        AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(0);
        AscendC::DataCopy(yGm[done], t, n);
        AscendC::SetFlag<AscendC::HardEvent::MTE3_MTE2>(0);
        AscendC::WaitFlag<AscendC::HardEvent::MTE3_MTE2>(0);
    }
}
