// One call of aclnnDeformableConv2dBackward on NPU tensors, run through torch_npu's machinery.
//
//   Prepare (phase 1, calling thread): under a device guard for the tensors' device, describes the
//     at::Tensors with aclCreateTensor (view dims, strides in elements, storage offset, 1-D storage
//     dims, storage base address — the way torch_npu's op-plugin describes tensors) and calls OUR
//     aclnnDeformableConv2dBackwardGetWorkspaceSize (bound by OpApiLibrary from the vendor package's
//     libcust_opapi.so, never by name lookup). A failing status raises a c10::Error carrying the
//     status name, the API's message and torch_npu's OPS error code.
//   Launch (phase 2): under a device guard, takes torch_npu's current stream of that device and
//     hands a handler to at_npu::native::OpCommand::RunOpApi named "aclnnDeformableConv2dBackward".
//     torch_npu then queues it behind every operator issued before it (TASK_QUEUE_ENABLE=1/2) or
//     runs it inline (0), synchronises under ASCEND_LAUNCH_BLOCKING=1, records it for its profiler
//     and reports a failing status with CANN's error message.
//   Lifetimes: an NpuCall owns references to every at::Tensor it describes (inputs, outputs,
//     workspace), its aclTensor/aclIntArray descriptors and the executor. The handler owns the
//     NpuCall, so all of it lives until phase 2 has been launched; a call that never launches is
//     released when its last owner drops it (the executor too, when CANN can release executors).
//   Single use: Launch on a launched call throws.
#ifndef ASCEND_DCN_NPU_CALL_H
#define ASCEND_DCN_NPU_CALL_H

#include <ATen/ATen.h>

#include <memory>
#include <string>
#include <vector>

#include "opapi_library.h"

namespace ascend_dcn {

struct BackwardTensors {
    at::Tensor input, gradOutput, offsetOut, weight, offset;              // inputs
    at::Tensor gradInput, gradWeight, gradOffset, gradBias;               // outputs (may be undefined)
};

struct BackwardAttrs {
    std::vector<int64_t> kernelSize, stride, padding, dilation;
    int64_t groups = 1;
    int64_t deformableGroups = 1;
    bool modulated = true;
};

class NpuCall {
public:
    // Phase 1. Throws c10::Error (status name + message) when the contract check or the API fails.
    static std::shared_ptr<NpuCall> Prepare(std::shared_ptr<OpApiLibrary> lib, const BackwardTensors &tensors,
                                            const BackwardAttrs &attrs);
    ~NpuCall();
    NpuCall(const NpuCall &) = delete;
    NpuCall &operator=(const NpuCall &) = delete;

    uint64_t WorkspaceSize() const { return workspaceSize_; }
    bool Launched() const { return launched_; }
    c10::Device Device() const { return device_; }

    // Phase 2 through torch_npu's queue. `workspace` is an NPU byte tensor of at least
    // WorkspaceSize() bytes on Device() (undefined when the size is 0).
    static void Launch(const std::shared_ptr<NpuCall> &call, const at::Tensor &workspace);

private:
    explicit NpuCall(std::shared_ptr<OpApiLibrary> lib, c10::Device device) : lib_(std::move(lib)), device_(device) {}
    aclTensor *Describe(const at::Tensor &t, const char *name);
    aclIntArray *Describe(const std::vector<int64_t> &v, const char *name);
    int RunPhase2(aclrtStream stream);

    std::shared_ptr<OpApiLibrary> lib_;
    c10::Device device_;
    BackwardTensors tensors_;
    at::Tensor workspace_;
    std::vector<aclTensor *> aclTensors_;
    std::vector<aclIntArray *> aclArrays_;
    aclOpExecutor *executor_ = nullptr;
    uint64_t workspaceSize_ = 0;
    bool releasable_ = false;  // marked repeatable: we destroy the executor ourselves
    bool launched_ = false;
};

// "ACLNN_ERR_PARAM_INVALID" etc. for the aclnn status codes this operator returns.
const char *AclnnStatusName(int64_t status);

}  // namespace ascend_dcn

#endif  // ASCEND_DCN_NPU_CALL_H
