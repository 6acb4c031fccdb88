// Positive test: a vector-add kernel written in the official AddCustom sample style (TPipe, TQue
// double buffering, DataCopy, Add) over several core counts, fp16 and fp32, checked element-wise
// against the RNE-rounded host sum; plus the cost counters.
#include <gtest/gtest.h>

#include "kernel_operator.h"
#include "kernel_test_util.h"

using namespace AscendC;

namespace {
constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelAdd {
public:
    __aicore__ inline KernelAdd() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength, uint32_t tileNum) {
        this->blockLength = totalLength / GetBlockNum();
        this->tileNum = tileNum;
        this->tileLength = this->blockLength / tileNum / BUFFER_NUM;
        xGm.SetGlobalBuffer((__gm__ T *)x + this->blockLength * GetBlockIdx(), this->blockLength);
        yGm.SetGlobalBuffer((__gm__ T *)y + this->blockLength * GetBlockIdx(), this->blockLength);
        zGm.SetGlobalBuffer((__gm__ T *)z + this->blockLength * GetBlockIdx(), this->blockLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, this->tileLength * sizeof(T));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, this->tileLength * sizeof(T));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, this->tileLength * sizeof(T));
    }
    __aicore__ inline void Process() {
        int32_t loopCount = this->tileNum * BUFFER_NUM;
        for (int32_t i = 0; i < loopCount; i++) {
            CopyIn(i);
            Compute(i);
            CopyOut(i);
        }
    }

private:
    __aicore__ inline void CopyIn(int32_t progress) {
        LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        LocalTensor<T> yLocal = inQueueY.AllocTensor<T>();
        DataCopy(xLocal, xGm[progress * this->tileLength], this->tileLength);
        DataCopy(yLocal, yGm[progress * this->tileLength], this->tileLength);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute(int32_t progress) {
        (void)progress;
        LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        LocalTensor<T> yLocal = inQueueY.DeQue<T>();
        LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
        Add(zLocal, xLocal, yLocal, this->tileLength);
        outQueueZ.EnQue<T>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(int32_t progress) {
        LocalTensor<T> zLocal = outQueueZ.DeQue<T>();
        DataCopy(zGm[progress * this->tileLength], zLocal, this->tileLength);
        outQueueZ.FreeTensor(zLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
    GlobalTensor<T> xGm, yGm, zGm;
    uint32_t blockLength;
    uint32_t tileNum;
    uint32_t tileLength;
};

struct AddTiling {
    uint32_t totalLength;
    uint32_t tileNum;
};

template <typename T>
void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling) {
    (void)workspace;
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    AddTiling t;
    std::memcpy(&t, tiling, sizeof(t));
    KernelAdd<T> op;
    op.Init(x, y, z, t.totalLength, t.tileNum);
    op.Process();
}

template <typename T>
bool RunAdd(uint32_t blockDim, uint32_t tileNum, uint32_t tileLength) {
    const uint32_t total = blockDim * tileNum * BUFFER_NUM * tileLength;
    ktest::Gm<T> x(total, "x"), y(total, "y"), z(total, "z");
    ktest::Gm<AddTiling> tiling(1, "tiling");
    tiling[0] = {total, tileNum};
    for (uint32_t i = 0; i < total; ++i) {
        x[i] = static_cast<T>(static_cast<float>((i * 37) % 101) * 0.37f - 11.0f);
        y[i] = static_cast<T>(static_cast<float>((i * 13) % 97) * 0.113f + 0.5f);
    }
    auto r = ktest::Run(blockDim, twin::KernelType::AIV_ONLY, [&] { add_custom<T>(x.addr(), y.addr(), z.addr(), nullptr, tiling.addr()); });
    if (!ktest::ExpectOk(r)) return false;
    for (uint32_t i = 0; i < total; ++i) {
        const T want = static_cast<T>(static_cast<float>(x[i]) + static_cast<float>(y[i]));
        if (std::memcmp(&want, &z[i], sizeof(T)) != 0) {
            std::fprintf(stderr, "  mismatch at %u: %f vs %f\n", i, static_cast<float>(z[i]), static_cast<float>(want));
            return false;
        }
    }
    uint64_t in = 0, out = 0, ops = 0, inCopies = 0, outCopies = 0;
    for (const auto &c : r.cores) {
        in += c.gmToUbBytes;
        out += c.ubToGmBytes;
        ops += c.vecElemOps;
        inCopies += c.gmToUbCopies;
        outCopies += c.ubToGmCopies;
    }
    const uint64_t tiles = uint64_t(blockDim) * tileNum * BUFFER_NUM;
    return r.cores.size() == blockDim && in == 2ull * total * sizeof(T) && out == uint64_t(total) * sizeof(T) && ops == total &&
           inCopies == 2 * tiles && outCopies == tiles;
}
}  // namespace

TEST(VectorAdd, add_half_one_core) { EXPECT_TRUE(RunAdd<half>(1, 4, 128)); }
TEST(VectorAdd, add_half_eight_cores) { EXPECT_TRUE(RunAdd<half>(8, 2, 256)); }
TEST(VectorAdd, add_float_all_cores)
{
    EXPECT_TRUE(RunAdd<float>(static_cast<uint32_t>(twin::CurrentPlatform().aivCores), 1, 64));
}
TEST(VectorAdd, add_float_more_blocks_than_cores_runs_in_waves)
{
    EXPECT_TRUE(RunAdd<float>(static_cast<uint32_t>(twin::CurrentPlatform().aivCores) + 5, 1, 16));
}
