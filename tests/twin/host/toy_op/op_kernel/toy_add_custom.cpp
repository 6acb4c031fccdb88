// Kernel of the twin's toy operator ToyAddCustom: z = (x + y) * scale on the vector cores, written
// against the AscendC API. Each core handles blockLength elements in tiles of tileLength (double
// buffered). GET_TILING_DATA comes from the twin opbuild's generated header (force-included).
#include "kernel_operator.h"

namespace {
constexpr int32_t kBufferNum = 2;

template <typename T>
class ToyAdd {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total, uint32_t blockLength,
                                uint32_t tileLength, float scale, int32_t faultMode) {
        const uint32_t start = blockLength * AscendC::GetBlockIdx();
        length_ = start >= total ? 0 : (total - start < blockLength ? total - start : blockLength);
        tileLength_ = tileLength;
        scale_ = static_cast<T>(scale);
        // faultMode 1: claim a bigger z than exists, so the last tile lands outside the z buffer.
        const uint32_t zExtra = faultMode == 1 ? tileLength : 0;
        xGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T *>(x) + start, length_);
        yGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T *>(y) + start, length_);
        zGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T *>(z) + start + zExtra, length_);
        pipe_.InitBuffer(inX_, kBufferNum, tileLength * sizeof(T));
        pipe_.InitBuffer(inY_, kBufferNum, tileLength * sizeof(T));
        pipe_.InitBuffer(outZ_, kBufferNum, tileLength * sizeof(T));
    }
    __aicore__ inline void Process() {
        for (uint32_t done = 0; done < length_; done += tileLength_) {
            const uint32_t n = length_ - done < tileLength_ ? length_ - done : tileLength_;
            AscendC::LocalTensor<T> x = inX_.AllocTensor<T>();
            AscendC::LocalTensor<T> y = inY_.AllocTensor<T>();
            AscendC::DataCopy(x, xGm_[done], n);
            AscendC::DataCopy(y, yGm_[done], n);
            inX_.EnQue(x);
            inY_.EnQue(y);
            AscendC::LocalTensor<T> xv = inX_.DeQue<T>();
            AscendC::LocalTensor<T> yv = inY_.DeQue<T>();
            AscendC::LocalTensor<T> z = outZ_.AllocTensor<T>();
            AscendC::Add(z, xv, yv, static_cast<int32_t>(n));
            AscendC::PipeBarrier<PIPE_V>(); // Muls reads the Add result (same-pipe dependency)
            AscendC::Muls(z, z, scale_, static_cast<int32_t>(n));
            outZ_.EnQue(z);
            inX_.FreeTensor(xv);
            inY_.FreeTensor(yv);
            AscendC::LocalTensor<T> zo = outZ_.DeQue<T>();
            AscendC::DataCopy(zGm_[done], zo, n);
            outZ_.FreeTensor(zo);
        }
    }

private:
    AscendC::TPipe pipe_;
    AscendC::TQue<AscendC::TPosition::VECIN, kBufferNum> inX_, inY_;
    AscendC::TQue<AscendC::TPosition::VECOUT, kBufferNum> outZ_;
    AscendC::GlobalTensor<T> xGm_, yGm_, zGm_;
    uint32_t length_ = 0;
    uint32_t tileLength_ = 0;
    T scale_;
};
}  // namespace

extern "C" __global__ __aicore__ void toy_add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling) {
    (void)workspace;
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(0)) {
        ToyAdd<float> op;
        op.Init(x, y, z, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength, tilingData.scale,
                tilingData.faultMode);
        op.Process();
    } else if (TILING_KEY_IS(1)) {
        ToyAdd<half> op;
        op.Init(x, y, z, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength, tilingData.scale,
                tilingData.faultMode);
        op.Process();
    }
}
