// Calling aclnnDeformableConv2dBackward from C++, the way CANN's aclnn call samples do:
//   aclInit -> aclrtSetDevice -> aclrtCreateStream -> device buffers + aclCreateTensor ->
//   aclnnDeformableConv2dBackwardGetWorkspaceSize -> workspace -> aclnnDeformableConv2dBackward on
//   the stream -> aclrtSynchronizeStream -> copy back -> print -> release everything.
// Problem: the call example of CANN's aclnnDeformableConv2dBackward doc (op-semantics §6.5):
//   input [1,6,2,4], gradOutput [1,4,2,4], offsetOut [1,6,10,20], weight [4,3,5,5],
//   offset [1,75,2,4], kernelSize [5,5], stride [1,1,1,1], padding [2,2,2,2], dilation [1,1,1,1],
//   groups 2, deformableGroups 1, modulated true, float32, NCHW (gradBias ND).
// Data is deterministic; offsetOut is the forward's deformOut. The program checks every output
// against a naive double-precision host reference (naive_reference.h) with CANN's float32
// standard (relative error 1e-4 against max(|golden|, mean|golden|)) and exits 0 only on success.
// Builds unchanged against CANN (link ascendcl, nnopbase, cust_opapi; include the vendor
// package's op_api/include) and against the CPU twin (examples/CMakeLists.txt).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnn_deformable_conv2d_backward.h"
#include "naive_reference.h"

#define CHECK_RET(cond, return_expr) \
    do {                             \
        if (!(cond)) {               \
            return_expr;             \
        }                            \
    } while (0)

#define LOG_PRINT(message, ...)         \
    do {                                \
        printf(message, ##__VA_ARGS__); \
    } while (0)

namespace {

int64_t GetShapeSize(const std::vector<int64_t> &shape)
{
    int64_t size = 1;
    for (int64_t d : shape) {
        size *= d;
    }
    return size;
}

int Init(int32_t deviceId, aclrtStream *stream)
{
    auto ret = aclInit(nullptr);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclInit failed. ERROR: %d\n", ret); return ret);
    ret = aclrtSetDevice(deviceId);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSetDevice failed. ERROR: %d\n", ret); return ret);
    ret = aclrtCreateStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtCreateStream failed. ERROR: %d\n", ret); return ret);
    return 0;
}

// Device buffer + contiguous aclTensor for host data (view dims == storage dims).
template <typename T>
int CreateAclTensor(const std::vector<T> &hostData, const std::vector<int64_t> &shape, void **deviceAddr,
                    aclDataType dataType, aclFormat format, aclTensor **tensor)
{
    const auto size = static_cast<size_t>(GetShapeSize(shape)) * sizeof(T);
    auto ret = aclrtMalloc(deviceAddr, size, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
    ret = aclrtMemcpy(*deviceAddr, size, hostData.data(), size, ACL_MEMCPY_HOST_TO_DEVICE);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);
    std::vector<int64_t> strides(shape.size(), 1);
    for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i) {
        strides[i] = shape[i + 1] * strides[i + 1];
    }
    *tensor = aclCreateTensor(shape.data(), shape.size(), dataType, strides.data(), 0, format, shape.data(),
                              shape.size(), *deviceAddr);
    CHECK_RET(*tensor != nullptr, LOG_PRINT("aclCreateTensor failed: %s\n", aclGetRecentErrMsg()); return -1);
    return 0;
}

// Deterministic values in [lo, hi) (64-bit LCG).
std::vector<float> Fill(size_t count, uint64_t seed, float lo, float hi)
{
    std::vector<float> v(count);
    uint64_t s = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    for (auto &x : v) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        x = lo + (hi - lo) * static_cast<float>((s >> 40) & 0xFFFFFF) / 16777216.0f;
    }
    return v;
}

// CANN float32 standard for one tensor: failing-element ratio <= 1e-4.
bool Compare(const char *name, const std::vector<float> &actual, const std::vector<double> &golden)
{
    double mean = 0.0;
    for (double g : golden) {
        mean += std::fabs(g);
    }
    mean = golden.empty() ? 1.0 : mean / golden.size();
    if (!(mean > 0.0)) {
        mean = 1.0;
    }
    size_t fails = 0;
    double maxRel = 0.0;
    for (size_t i = 0; i < golden.size(); ++i) {
        const double denom = std::fmax(std::fabs(golden[i]), mean);
        const double rel = std::fabs(actual[i] - golden[i]) / denom;
        maxRel = std::fmax(maxRel, rel);
        fails += (rel <= 1e-4) ? 0 : 1;
    }
    const bool ok = static_cast<double>(fails) <= 1e-4 * static_cast<double>(golden.size());
    LOG_PRINT("%-10s %s  max_rel_err=%.3e  fails=%zu/%zu\n", name, ok ? "PASS" : "FAIL", maxRel, fails,
              golden.size());
    return ok;
}

void PrintHead(const char *name, const std::vector<float> &v)
{
    LOG_PRINT("%s[0..%d]:", name, v.size() < 6 ? static_cast<int>(v.size()) - 1 : 5);
    for (size_t i = 0; i < v.size() && i < 6; ++i) {
        LOG_PRINT(" %.6f", v[i]);
    }
    LOG_PRINT("\n");
}

}  // namespace

int main()
{
    int32_t deviceId = 0;
    aclrtStream stream = nullptr;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return 1);

    const example::Problem p{1, 6, 2, 4, 4, 5, 5, {1, 1, 1, 1}, {2, 2, 2, 2}, {1, 1, 1, 1}, 2, 1};
    const int64_t ho = p.OutH(), wo = p.OutW(), k = p.kh * p.kw;
    const std::vector<int64_t> inputShape = {p.n, p.cin, p.h, p.w};
    const std::vector<int64_t> gradOutputShape = {p.n, p.cout, ho, wo};
    const std::vector<int64_t> offsetOutShape = {p.n, p.cin, ho * p.kh, wo * p.kw};
    const std::vector<int64_t> weightShape = {p.cout, p.cin / p.groups, p.kh, p.kw};
    const std::vector<int64_t> offsetShape = {p.n, 3 * p.deformableGroups * k, ho, wo};
    const std::vector<int64_t> gradBiasShape = {p.cout};

    std::vector<float> input = Fill(GetShapeSize(inputShape), 1, -1.0f, 1.0f);
    std::vector<float> gradOutput = Fill(GetShapeSize(gradOutputShape), 2, -1.0f, 1.0f);
    std::vector<float> weight = Fill(GetShapeSize(weightShape), 3, -0.5f, 0.5f);
    std::vector<float> offset = Fill(GetShapeSize(offsetShape), 4, -1.5f, 1.5f);
    const size_t maskStart = static_cast<size_t>(2 * p.deformableGroups * k * ho * wo);
    const std::vector<float> mask = Fill(offset.size() - maskStart, 5, 0.0f, 1.0f);
    std::copy(mask.begin(), mask.end(), offset.begin() + maskStart);  // modulation scalars in [0, 1)
    const std::vector<double> deformOut = example::DeformSample(p, input, offset);
    std::vector<float> offsetOut(deformOut.begin(), deformOut.end());
    std::vector<float> gradInput(input.size(), 0.0f), gradWeight(weight.size(), 0.0f);
    std::vector<float> gradOffset(offset.size(), 0.0f), gradBias(p.cout, 0.0f);

    void *inputDev = nullptr, *gradOutputDev = nullptr, *offsetOutDev = nullptr, *weightDev = nullptr;
    void *offsetDev = nullptr, *gradInputDev = nullptr, *gradWeightDev = nullptr, *gradOffsetDev = nullptr;
    void *gradBiasDev = nullptr;
    aclTensor *inputT = nullptr, *gradOutputT = nullptr, *offsetOutT = nullptr, *weightT = nullptr;
    aclTensor *offsetT = nullptr, *gradInputT = nullptr, *gradWeightT = nullptr, *gradOffsetT = nullptr;
    aclTensor *gradBiasT = nullptr;
    ret = CreateAclTensor(input, inputShape, &inputDev, ACL_FLOAT, ACL_FORMAT_NCHW, &inputT);
    CHECK_RET(ret == ACL_SUCCESS, return 1);
    ret = CreateAclTensor(gradOutput, gradOutputShape, &gradOutputDev, ACL_FLOAT, ACL_FORMAT_NCHW, &gradOutputT);
    CHECK_RET(ret == ACL_SUCCESS, return 1);
    ret = CreateAclTensor(offsetOut, offsetOutShape, &offsetOutDev, ACL_FLOAT, ACL_FORMAT_NCHW, &offsetOutT);
    CHECK_RET(ret == ACL_SUCCESS, return 1);
    ret = CreateAclTensor(weight, weightShape, &weightDev, ACL_FLOAT, ACL_FORMAT_NCHW, &weightT);
    CHECK_RET(ret == ACL_SUCCESS, return 1);
    ret = CreateAclTensor(offset, offsetShape, &offsetDev, ACL_FLOAT, ACL_FORMAT_NCHW, &offsetT);
    CHECK_RET(ret == ACL_SUCCESS, return 1);
    ret = CreateAclTensor(gradInput, inputShape, &gradInputDev, ACL_FLOAT, ACL_FORMAT_NCHW, &gradInputT);
    CHECK_RET(ret == ACL_SUCCESS, return 1);
    ret = CreateAclTensor(gradWeight, weightShape, &gradWeightDev, ACL_FLOAT, ACL_FORMAT_NCHW, &gradWeightT);
    CHECK_RET(ret == ACL_SUCCESS, return 1);
    ret = CreateAclTensor(gradOffset, offsetShape, &gradOffsetDev, ACL_FLOAT, ACL_FORMAT_NCHW, &gradOffsetT);
    CHECK_RET(ret == ACL_SUCCESS, return 1);
    ret = CreateAclTensor(gradBias, gradBiasShape, &gradBiasDev, ACL_FLOAT, ACL_FORMAT_ND, &gradBiasT);
    CHECK_RET(ret == ACL_SUCCESS, return 1);

    const std::vector<int64_t> kernelSizeData = {p.kh, p.kw};
    const std::vector<int64_t> strideData(p.stride, p.stride + 4);
    const std::vector<int64_t> paddingData(p.padding, p.padding + 4);
    const std::vector<int64_t> dilationData(p.dilation, p.dilation + 4);
    aclIntArray *kernelSize = aclCreateIntArray(kernelSizeData.data(), kernelSizeData.size());
    aclIntArray *stride = aclCreateIntArray(strideData.data(), strideData.size());
    aclIntArray *padding = aclCreateIntArray(paddingData.data(), paddingData.size());
    aclIntArray *dilation = aclCreateIntArray(dilationData.data(), dilationData.size());
    CHECK_RET(kernelSize && stride && padding && dilation, LOG_PRINT("aclCreateIntArray failed\n"); return 1);

    // Phase 1: workspace size and executor.
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    ret = aclnnDeformableConv2dBackwardGetWorkspaceSize(inputT, gradOutputT, offsetOutT, weightT, offsetT,
                                                        kernelSize, stride, padding, dilation, p.groups,
                                                        p.deformableGroups, true, gradInputT, gradWeightT,
                                                        gradOffsetT, gradBiasT, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS,
              LOG_PRINT("aclnnDeformableConv2dBackwardGetWorkspaceSize failed. ERROR: %d (%s)\n", ret,
                        aclGetRecentErrMsg());
              return 1);
    LOG_PRINT("workspace size: %llu bytes\n", static_cast<unsigned long long>(workspaceSize));
    void *workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return 1);
    }

    // Phase 2: execute on the stream, then wait for it.
    ret = aclnnDeformableConv2dBackward(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS,
              LOG_PRINT("aclnnDeformableConv2dBackward failed. ERROR: %d (%s)\n", ret, aclGetRecentErrMsg());
              return 1);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return 1);

    // Copy the results back and check them.
    struct Back {
        const char *name;
        std::vector<float> *host;
        void *dev;
    } back[] = {{"gradInput", &gradInput, gradInputDev},
                {"gradWeight", &gradWeight, gradWeightDev},
                {"gradOffset", &gradOffset, gradOffsetDev},
                {"gradBias", &gradBias, gradBiasDev}};
    for (auto &b : back) {
        const size_t bytes = b.host->size() * sizeof(float);
        ret = aclrtMemcpy(b.host->data(), bytes, b.dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy %s back failed. ERROR: %d\n", b.name, ret); return 1);
        PrintHead(b.name, *b.host);
    }
    const example::Gradients golden = example::Backward(p, input, gradOutput, offsetOut, weight, offset);
    bool ok = Compare("gradInput", gradInput, golden.gradInput);
    ok = Compare("gradWeight", gradWeight, golden.gradWeight) && ok;
    ok = Compare("gradOffset", gradOffset, golden.gradOffset) && ok;
    ok = Compare("gradBias", gradBias, golden.gradBias) && ok;
    LOG_PRINT("%s\n", ok ? "RESULT: PASS" : "RESULT: FAIL");

    // Release everything.
    aclTensor *tensors[] = {inputT, gradOutputT, offsetOutT, weightT, offsetT,
                            gradInputT, gradWeightT, gradOffsetT, gradBiasT};
    for (aclTensor *t : tensors) {
        aclDestroyTensor(t);
    }
    aclIntArray *arrays[] = {kernelSize, stride, padding, dilation};
    for (aclIntArray *a : arrays) {
        aclDestroyIntArray(a);
    }
    void *buffers[] = {inputDev, gradOutputDev, offsetOutDev, weightDev, offsetDev,
                       gradInputDev, gradWeightDev, gradOffsetDev, gradBiasDev, workspaceAddr};
    for (void *b : buffers) {
        if (b != nullptr) {
            aclrtFree(b);
        }
    }
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    return ok ? 0 : 1;
}
