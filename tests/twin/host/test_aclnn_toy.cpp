// End to end through the twin opbuild-generated aclnn layer of the toy op ToyAddCustom
// (tests/twin/host/toy_op): z = (x + y) * scale. Covers success (incl. AutoContiguous views and
// fewer cores), and the status codes of every failure class with their aclGetRecentErrMsg text.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>
#include <gtest/gtest.h>

#include "aclnn/aclnn_base.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnn_toy_add_custom.h"
#include "aclnn_toy_scale_by_tensor.h"

extern "C" void twinSetPlatform(const char *soc, uint32_t aivCores);
extern "C" uint32_t twinLastLaunchCores();
extern "C" int twinLastLaunchCounter(const char *counter, uint64_t *total);
extern "C" int twinLastLaunchCoreIsAic(uint32_t core);
extern "C" int twinLastLaunchCoreCounter(uint32_t core, const char *counter, uint64_t *value);
extern "C" int twinLastLaunchCoreSyncAllCount(uint32_t core);

// The generated declarations have the types the naming rules give (inputs, attrs: Float -> double,
// Int -> int64_t, outputs non-const, then workspaceSize and executor) — checked at compile time.
static_assert(std::is_same<decltype(&aclnnToyAddCustomGetWorkspaceSize),
                           aclnnStatus (*)(const aclTensor *, const aclTensor *, double, int64_t, aclTensor *,
                                           uint64_t *, aclOpExecutor **)>::value,
              "generated first-phase signature");
static_assert(std::is_same<decltype(&aclnnToyAddCustom),
                           aclnnStatus (*)(void *, uint64_t, aclOpExecutor *, const aclrtStream)>::value,
              "generated second-phase signature");

namespace {
struct Tensor {
    std::vector<float> data;
    aclTensor *t = nullptr;
    Tensor(std::vector<int64_t> shape, aclDataType dtype = ACL_FLOAT, std::vector<int64_t> strides = {},
           aclFormat fmt = ACL_FORMAT_ND, size_t storageElems = 0) {
        int64_t n = 1;
        for (auto d : shape) { n *= d; }
        if (strides.empty()) {
            strides.assign(shape.size(), 1);
            for (size_t i = shape.size(); i-- > 1;) { strides[i - 1] = strides[i] * shape[i]; }
        }
        const size_t elems = storageElems > 0 ? storageElems : static_cast<size_t>(n);
        data.assign(elems, 0.0f);
        const int64_t sdims[1] = {static_cast<int64_t>(elems)};
        t = aclCreateTensor(shape.data(), shape.size(), dtype, strides.data(), 0, fmt, sdims, 1, data.data());
    }
    ~Tensor() { aclDestroyTensor(t); }
    void Random(uint32_t seed) {
        std::mt19937 g(seed);
        std::uniform_real_distribution<float> u(-2.0f, 2.0f);
        for (auto &v : data) { v = u(g); }
    }
};

std::string Msg() { return aclGetRecentErrMsg(); }
// Success when the recent aclnn error message contains `s`; the failure prints the message.
::testing::AssertionResult MsgHas(const std::string& s)
{
    const std::string msg = Msg();
    if (msg.find(s) != std::string::npos)
        return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "recent error message \"" << msg << "\" does not contain \"" << s << "\"";
}

aclnnStatus RunToy(const Tensor &x, const Tensor &y, Tensor &z, double scale, int64_t faultMode,
                   uint64_t *wsOut = nullptr) {
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    aclnnStatus st = aclnnToyAddCustomGetWorkspaceSize(x.t, y.t, scale, faultMode, z.t, &ws, &ex);
    if (st != ACLNN_SUCCESS) { return st; }
    if (wsOut != nullptr) { *wsOut = ws; }
    std::vector<uint8_t> workspace(ws);
    return aclnnToyAddCustom(workspace.data(), ws, ex, nullptr);
}
}  // namespace

TEST(AclnnToy, adds_and_scales_on_all_cores)
{
    twinSetPlatform("Ascend910B2", 0);
    Tensor x({33, 144}), y({33, 144}), z({33, 144});
    x.Random(1);
    y.Random(2);
    uint64_t ws = 0;
    EXPECT_EQ(RunToy(x, y, z, 0.5, 0, &ws), ACLNN_SUCCESS);
    EXPECT_EQ(ws, 1024);
    // 4752 elements in 256-element tiles = 19 tiles, one per core; counters count the bytes moved.
    EXPECT_EQ(twinLastLaunchCores(), 19);
    uint64_t in = 0, out = 0;
    EXPECT_EQ(twinLastLaunchCounter("gmToUbBytes", &in), 0);
    EXPECT_EQ(in, 2 * 4752 * sizeof(float));
    EXPECT_EQ(twinLastLaunchCounter("ubToGmBytes", &out), 0);
    EXPECT_EQ(out, 4752 * sizeof(float));
    uint64_t copies = 0;
    EXPECT_EQ(twinLastLaunchCounter("gmToUbCopies", &copies), 0);
    EXPECT_EQ(copies, 2 * 19); // x and y, one per tile
    EXPECT_EQ(twinLastLaunchCounter("noSuchCounter", &out), -1);
    // Per core: 19 AIV cores; the last one moved the 144-element tail tile, the others 256 elements.
    uint64_t first = 0, last = 0;
    EXPECT_EQ(twinLastLaunchCoreIsAic(0), 0);
    EXPECT_EQ(twinLastLaunchCoreIsAic(19), -1);
    EXPECT_EQ(twinLastLaunchCoreCounter(0, "ubToGmBytes", &first), 0);
    EXPECT_EQ(first, 256 * sizeof(float));
    EXPECT_EQ(twinLastLaunchCoreCounter(18, "ubToGmBytes", &last), 0);
    EXPECT_EQ(last, 144 * sizeof(float));
    EXPECT_EQ(twinLastLaunchCoreCounter(19, "ubToGmBytes", &last), -1);
    EXPECT_EQ(twinLastLaunchCoreSyncAllCount(0), 0);
    int bad = 0;
    for (size_t i = 0; i < z.data.size(); ++i) { bad += z.data[i] != (x.data[i] + y.data[i]) * 0.5f; }
    EXPECT_EQ(bad, 0);
}

// Bits of an fp16 value for floats that fp16 represents exactly (normal range, <= 10 mantissa bits).
static uint16_t HalfBits(float f) {
    if (f == 0.0f) { return 0; }
    uint32_t b = 0;
    std::memcpy(&b, &f, sizeof(b));
    const uint32_t sign = (b >> 16) & 0x8000u;
    const uint32_t exp = ((b >> 23) & 0xffu) - 127u + 15u;
    return static_cast<uint16_t>(sign | (exp << 10) | ((b >> 13) & 0x3ffu));
}

TEST(AclnnToy, fp16_path)
{
    const int64_t n = 512;
    std::vector<uint16_t> x(n), y(n), z(n, 0xFFFF), expect(n);
    for (int64_t i = 0; i < n; ++i) {
        const float xv = static_cast<float>(i % 17 - 8) * 0.25f, yv = static_cast<float>(i % 5) * 0.5f;
        x[i] = HalfBits(xv);
        y[i] = HalfBits(yv);
        expect[i] = HalfBits((xv + yv) * 0.5f);
    }
    const int64_t shape[1] = {n}, strides[1] = {1};
    aclTensor *tx = aclCreateTensor(shape, 1, ACL_FLOAT16, strides, 0, ACL_FORMAT_ND, shape, 1, x.data());
    aclTensor *ty = aclCreateTensor(shape, 1, ACL_FLOAT16, strides, 0, ACL_FORMAT_ND, shape, 1, y.data());
    aclTensor *tz = aclCreateTensor(shape, 1, ACL_FLOAT16, strides, 0, ACL_FORMAT_ND, shape, 1, z.data());
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    EXPECT_EQ(aclnnToyAddCustomGetWorkspaceSize(tx, ty, 0.5, 0, tz, &ws, &ex), ACLNN_SUCCESS);
    std::vector<uint8_t> workspace(ws);
    EXPECT_EQ(aclnnToyAddCustom(workspace.data(), ws, ex, nullptr), ACLNN_SUCCESS);
    int bad = 0;
    for (int64_t i = 0; i < n; ++i) { bad += z[i] != expect[i]; }
    EXPECT_EQ(bad, 0);
    aclDestroyTensor(tx);
    aclDestroyTensor(ty);
    aclDestroyTensor(tz);
}

TEST(AclnnToy, fewer_cores_and_nchw_tensors)
{
    twinSetPlatform("Ascend910B2", 3);
    Tensor x({2, 3, 16, 16}, ACL_FLOAT, {}, ACL_FORMAT_NCHW), y({2, 3, 16, 16}, ACL_FLOAT, {}, ACL_FORMAT_NCHW),
        z({2, 3, 16, 16}, ACL_FLOAT, {}, ACL_FORMAT_NCHW);
    x.Random(3);
    y.Random(4);
    EXPECT_EQ(RunToy(x, y, z, 2.0, 0), ACLNN_SUCCESS);
    int bad = 0;
    for (size_t i = 0; i < z.data.size(); ++i) { bad += z.data[i] != (x.data[i] + y.data[i]) * 2.0f; }
    EXPECT_EQ(bad, 0);
    twinSetPlatform("Ascend910B2", 0);
}

TEST(AclnnToy, auto_contiguous_input_view)
{
    // x is the transpose view of a [32, 48] buffer (strides {1, 48}); the OpDef declares AutoContiguous.
    Tensor x({48, 32}, ACL_FLOAT, {1, 48}), y({48, 32}), z({48, 32});
    x.Random(5);
    y.Random(6);
    EXPECT_EQ(RunToy(x, y, z, 1.0, 0), ACLNN_SUCCESS);
    int bad = 0;
    for (int64_t r = 0; r < 48; ++r) {
        for (int64_t c = 0; c < 32; ++c) {
            bad += z.data[r * 32 + c] != x.data[c * 48 + r] + y.data[r * 32 + c];
        }
    }
    EXPECT_EQ(bad, 0);
    // Row-strided view (last dim contiguous): x = columns 0..31 of a [48, 40] buffer.
    Tensor xr({48, 32}, ACL_FLOAT, {40, 1}, ACL_FORMAT_ND, 48 * 40), yr({48, 32}), zr({48, 32});
    xr.Random(8);
    yr.Random(9);
    EXPECT_EQ(RunToy(xr, yr, zr, 1.0, 0), ACLNN_SUCCESS);
    bad = 0;
    for (int64_t r = 0; r < 48; ++r) {
        for (int64_t c = 0; c < 32; ++c) { bad += zr.data[r * 32 + c] != xr.data[r * 40 + c] + yr.data[r * 32 + c]; }
    }
    EXPECT_EQ(bad, 0);
    // y has no AutoContiguous: a non-contiguous y is rejected.
    Tensor x2({48, 32}), y2({48, 32}, ACL_FLOAT, {1, 48}), z2({48, 32});
    EXPECT_EQ(RunToy(x2, y2, z2, 1.0, 0), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MsgHas("input 'y'"));
    EXPECT_TRUE(MsgHas("AutoContiguous"));
}

TEST(AclnnToy, null_required_arguments)
{
    Tensor x({64}), y({64}), z({64});
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    EXPECT_EQ(aclnnToyAddCustomGetWorkspaceSize(nullptr, y.t, 1.0, 0, z.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_TRUE(MsgHas("x != nullptr"));
    EXPECT_EQ(aclnnToyAddCustomGetWorkspaceSize(x.t, y.t, 1.0, 0, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_TRUE(MsgHas("out != nullptr"));
    EXPECT_EQ(aclnnToyAddCustomGetWorkspaceSize(x.t, y.t, 1.0, 0, z.t, nullptr, &ex), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(aclnnToyAddCustomGetWorkspaceSize(x.t, y.t, 1.0, 0, z.t, &ws, nullptr), ACLNN_ERR_PARAM_NULLPTR);
}

TEST(AclnnToy, unsupported_dtype_combinations)
{
    Tensor xi({64}, ACL_INT32), y({64}), z({64});
    EXPECT_EQ(RunToy(xi, y, z, 1.0, 0), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MsgHas("not supported"));
    EXPECT_TRUE(MsgHas("x=INT32"));
    Tensor x({64}), yh({64}, ACL_FLOAT16), z2({64});
    EXPECT_EQ(RunToy(x, yh, z2, 1.0, 0), ACLNN_ERR_PARAM_INVALID); // fp32 + fp16 is no declared combination
    EXPECT_TRUE(MsgHas("y=FLOAT16"));
    Tensor xf({64}, ACL_FLOAT, {}, ACL_FORMAT_FRACTAL_NZ), y3({64}), z3({64});
    EXPECT_EQ(RunToy(xf, y3, z3, 1.0, 0), ACLNN_ERR_PARAM_INVALID); // private format vs declared ND
}

TEST(AclnnToy, tiling_failure_status)
{
    Tensor x({64}), y({64}), z({64});
    EXPECT_EQ(RunToy(x, y, z, 1.0, 2), ACLNN_ERR_INNER_TILING_ERROR);
    EXPECT_TRUE(MsgHas("TilingFunc returned GRAPH_FAILED"));
    Tensor x2({40}), y2({40}), z2({40});  // not a multiple of 16: the toy TilingFunc refuses it
    EXPECT_EQ(RunToy(x2, y2, z2, 1.0, 0), ACLNN_ERR_INNER_TILING_ERROR);
}

TEST(AclnnToy, kernel_violation_surfaces_as_runtime_error)
{
    Tensor x({1024}), y({1024}), z({1024});
    EXPECT_EQ(RunToy(x, y, z, 1.0, 1), ACLNN_ERR_RUNTIME_ERROR);
    EXPECT_TRUE(MsgHas("toy_add_custom failed"));
    EXPECT_TRUE(MsgHas("AIV"));
}

TEST(AclnnToy, workspace_checks_and_single_use_executor)
{
    Tensor x({64}), y({64}), z({64});
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    EXPECT_EQ(aclnnToyAddCustomGetWorkspaceSize(x.t, y.t, 1.0, 0, z.t, &ws, &ex), ACLNN_SUCCESS);
    EXPECT_EQ(aclnnToyAddCustom(nullptr, ws, ex, nullptr), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_TRUE(MsgHas("workspace is null"));
    EXPECT_EQ(aclnnToyAddCustom(nullptr, ws, ex, nullptr), ACLNN_ERR_PARAM_INVALID); // executor already consumed
    EXPECT_TRUE(MsgHas("single-use"));
    EXPECT_EQ(aclnnToyAddCustomGetWorkspaceSize(x.t, y.t, 1.0, 0, z.t, &ws, &ex), ACLNN_SUCCESS);
    std::vector<uint8_t> small(ws / 2);
    EXPECT_EQ(aclnnToyAddCustom(small.data(), small.size(), ex, nullptr), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(MsgHas("workspaceSize 512 < required 1024"));
}

TEST(AclnnToy, value_depend_input_reaches_tiling)
{
    // ToyScaleByTensor: the TilingFunc reads factor on the host (GetInputTensor) and the kernel uses
    // the value from the tiling data.
    Tensor x({4, 64}), factor({1}), y({4, 64});
    x.Random(7);
    factor.data[0] = 3.0f;
    uint64_t ws = 1;
    aclOpExecutor *ex = nullptr;
    EXPECT_EQ(aclnnToyScaleByTensorGetWorkspaceSize(x.t, factor.t, y.t, &ws, &ex), ACLNN_SUCCESS);
    EXPECT_EQ(ws, 0);
    EXPECT_EQ(aclnnToyScaleByTensor(nullptr, 0, ex, nullptr), ACLNN_SUCCESS);
    int bad = 0;
    for (size_t i = 0; i < y.data.size(); ++i) { bad += y.data[i] != x.data[i] * 3.0f; }
    EXPECT_EQ(bad, 0);
}

TEST(AclnnToy, op_without_config_for_the_active_soc)
{
    twinSetPlatform("Ascend910_9392", 0);
    Tensor x({64}), factor({1}), y({64});
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    EXPECT_EQ(aclnnToyScaleByTensorGetWorkspaceSize(x.t, factor.t, y.t, &ws, &ex), ACLNN_ERR_INNER_FIND_KERNEL_ERROR);
    EXPECT_TRUE(MsgHas("ascend910_93"));
    twinSetPlatform("Ascend910B2", 0);
}
