// Phase 1 / phase 2 of aclnnDeformableConv2dBackward through torch_npu — see npu_call.h.
#include "npu_call.h"

#include <c10/util/Exception.h>

#include <utility>

#include "deformable_conv2d_backward_check.h"
#include "torch_npu/csrc/core/npu/NPUException.h"
#include "torch_npu/csrc/core/npu/NPUGuard.h"
#include "torch_npu/csrc/core/npu/NPUStream.h"
#include "torch_npu/csrc/core/npu/npu_log.h"
#include "torch_npu/csrc/framework/OpCommand.h"

namespace ascend_dcn {
namespace {

const char *const kGetWorkspaceApi = "aclnnDeformableConv2dBackwardGetWorkspaceSize";
const char *const kExecuteApi = "aclnnDeformableConv2dBackward";

aclDataType AclDataTypeOf(at::ScalarType t)
{
    switch (t) {
        case at::kFloat: return ACL_FLOAT;
        case at::kHalf: return ACL_FLOAT16;
        case at::kBFloat16: return ACL_BF16;
        case at::kDouble: return ACL_DOUBLE;
        default: return ACL_DT_UNDEFINED;
    }
}

ge::DataType GeDataTypeOf(at::ScalarType t)
{
    switch (t) {
        case at::kFloat: return ge::DT_FLOAT;
        case at::kHalf: return ge::DT_FLOAT16;
        case at::kBFloat16: return ge::DT_BF16;
        case at::kDouble: return ge::DT_DOUBLE;
        default: return ge::DT_UNDEFINED;
    }
}

dcn::TensorDesc DescOf(const at::Tensor &t)
{
    dcn::TensorDesc d;
    if (!t.defined()) {
        return d;
    }
    d.present = true;
    d.dtype = GeDataTypeOf(t.scalar_type());
    d.format = t.dim() == 4 ? ge::FORMAT_NCHW : ge::FORMAT_ND;
    d.shape = t.sizes().vec();
    return d;
}

dcn::BackwardArgs ArgsOf(const BackwardTensors &t, const BackwardAttrs &a)
{
    dcn::BackwardArgs b;
    b.input = DescOf(t.input);
    b.gradOutput = DescOf(t.gradOutput);
    b.offsetOut = DescOf(t.offsetOut);
    b.weight = DescOf(t.weight);
    b.offset = DescOf(t.offset);
    b.gradInput = DescOf(t.gradInput);
    b.gradWeight = DescOf(t.gradWeight);
    b.gradOffset = DescOf(t.gradOffset);
    b.gradBias = DescOf(t.gradBias);
    b.hasKernelSize = b.hasStride = b.hasPadding = b.hasDilation = true;
    b.kernelSize = a.kernelSize;
    b.stride = a.stride;
    b.padding = a.padding;
    b.dilation = a.dilation;
    b.groups = a.groups;
    b.deformableGroups = a.deformableGroups;
    b.modulated = a.modulated;
    return b;
}

ErrCode ErrCodeOf(int64_t status)
{
    return status == 161001 || status == 161002 ? ErrCode::PARAM : ErrCode::INTERNAL;
}

[[noreturn]] void RaiseStatus(const char *api, int64_t status, const std::string &message)
{
    TORCH_CHECK(false, api, " failed with status ", status, " (", AclnnStatusName(status), "): ", message,
                OPS_ERROR(ErrCodeOf(status)));
}

// The device every defined tensor is on; they must agree (the contract's "same device" rule).
c10::Device CommonDevice(const BackwardTensors &t)
{
    const at::Tensor *all[] = {&t.input, &t.gradOutput, &t.offsetOut, &t.weight, &t.offset,
                               &t.gradInput, &t.gradWeight, &t.gradOffset, &t.gradBias};
    static const char *const names[] = {"input", "gradOutput", "offsetOut", "weight", "offset",
                                        "gradInput", "gradWeight", "gradOffset", "gradBias"};
    TORCH_CHECK(t.input.defined(), kGetWorkspaceApi, " failed with status 161001 (ACLNN_ERR_PARAM_NULLPTR): ",
                "input: must not be None", OPS_ERROR(ErrCode::PARAM));
    const c10::Device device = t.input.device();
    for (size_t i = 0; i < 9; ++i) {
        if (all[i]->defined() && all[i]->device() != device) {
            RaiseStatus(kGetWorkspaceApi, 161002,
                        std::string(names[i]) + ": must be on the same device as input; expected " + device.str() +
                            ", got " + all[i]->device().str());
        }
    }
    TORCH_CHECK(device.type() == c10::DeviceType::PrivateUse1, kGetWorkspaceApi,
                ": the ascend_dcn NPU extension runs NPU tensors only, got ", device.str(),
                OPS_ERROR(ErrCode::PARAM));
    return device;
}

}  // namespace

const char *AclnnStatusName(int64_t status)
{
    switch (status) {
        case 0: return "ACLNN_SUCCESS";
        case 161001: return "ACLNN_ERR_PARAM_NULLPTR";
        case 161002: return "ACLNN_ERR_PARAM_INVALID";
        case 361001: return "ACLNN_ERR_RUNTIME_ERROR";
        case 561000: return "ACLNN_ERR_INNER";
        case 561001: return "ACLNN_ERR_INNER_INFERSHAPE_ERROR";
        case 561002: return "ACLNN_ERR_INNER_TILING_ERROR";
        case 561003: return "ACLNN_ERR_INNER_FIND_KERNEL_ERROR";
        case 561101: return "ACLNN_ERR_INNER_CREATE_EXECUTOR";
        case 561103: return "ACLNN_ERR_INNER_NULLPTR";
        default: return "unknown aclnn status";
    }
}

aclTensor *NpuCall::Describe(const at::Tensor &t, const char *name)
{
    if (!t.defined()) {
        return nullptr;
    }
    const std::vector<int64_t> dims = t.sizes().vec();
    const std::vector<int64_t> strides = t.strides().vec();
    const int64_t itemsize = static_cast<int64_t>(t.element_size());
    const std::vector<int64_t> storageDims = {static_cast<int64_t>(t.storage().nbytes()) / itemsize};
    const aclFormat format = t.dim() == 4 ? ACL_FORMAT_NCHW : ACL_FORMAT_ND;
    aclTensor *desc = lib_->Functions().createTensor(dims.data(), dims.size(), AclDataTypeOf(t.scalar_type()),
                                                     strides.data(), t.storage_offset(), format, storageDims.data(),
                                                     storageDims.size(), const_cast<void *>(t.storage().data()));
    TORCH_CHECK(desc != nullptr, "aclCreateTensor returned nullptr for ", name, ": ", lib_->RecentErrorMessage(),
                OPS_ERROR(ErrCode::INTERNAL));
    aclTensors_.push_back(desc);
    return desc;
}

aclIntArray *NpuCall::Describe(const std::vector<int64_t> &v, const char *name)
{
    aclIntArray *desc = lib_->Functions().createIntArray(v.data(), v.size());
    TORCH_CHECK(desc != nullptr, "aclCreateIntArray returned nullptr for ", name, ": ", lib_->RecentErrorMessage(),
                OPS_ERROR(ErrCode::INTERNAL));
    aclArrays_.push_back(desc);
    return desc;
}

std::shared_ptr<NpuCall> NpuCall::Prepare(std::shared_ptr<OpApiLibrary> lib, const BackwardTensors &tensors,
                                          const BackwardAttrs &attrs)
{
    const c10::Device device = CommonDevice(tensors);
    const dcn::CheckResult check = dcn::CheckBackwardArgs(ArgsOf(tensors, attrs));
    if (!check.ok()) {
        RaiseStatus(kGetWorkspaceApi, check.status, check.message);
    }
    c10_npu::NPUGuard guard(device);
    std::shared_ptr<NpuCall> call(new NpuCall(std::move(lib), device));
    call->tensors_ = tensors;
    const BackwardTensors &t = call->tensors_;
    aclTensor *in[] = {call->Describe(t.input, "input"), call->Describe(t.gradOutput, "gradOutput"),
                       call->Describe(t.offsetOut, "offsetOut"), call->Describe(t.weight, "weight"),
                       call->Describe(t.offset, "offset")};
    aclIntArray *lists[] = {call->Describe(attrs.kernelSize, "kernelSize"), call->Describe(attrs.stride, "stride"),
                            call->Describe(attrs.padding, "padding"), call->Describe(attrs.dilation, "dilation")};
    aclTensor *out[] = {call->Describe(t.gradInput, "gradInput"), call->Describe(t.gradWeight, "gradWeight"),
                        call->Describe(t.gradOffset, "gradOffset"), call->Describe(t.gradBias, "gradBias")};
    const OpApiFunctions &f = call->lib_->Functions();
    const aclnnStatus status = f.getWorkspaceSize(in[0], in[1], in[2], in[3], in[4], lists[0], lists[1], lists[2],
                                                  lists[3], attrs.groups, attrs.deformableGroups, attrs.modulated,
                                                  out[0], out[1], out[2], out[3], &call->workspaceSize_,
                                                  &call->executor_);
    if (status != 0) {
        RaiseStatus(kGetWorkspaceApi, status, call->lib_->RecentErrorMessage());
    }
    TORCH_CHECK(call->executor_ != nullptr, kGetWorkspaceApi, " returned success but no executor",
                OPS_ERROR(ErrCode::INTERNAL));
    if (call->lib_->CanReleaseExecutors()) {
        call->releasable_ = f.setExecutorRepeatable(call->executor_) == 0;
    }
    return call;
}

NpuCall::~NpuCall()
{
    const OpApiFunctions &f = lib_->Functions();
    if (releasable_ && executor_ != nullptr) {
        f.destroyExecutor(executor_);
    }
    for (aclTensor *t : aclTensors_) {
        f.destroyTensor(t);
    }
    for (aclIntArray *a : aclArrays_) {
        f.destroyIntArray(a);
    }
}

int NpuCall::RunPhase2(aclrtStream stream)
{
    void *workspace = workspace_.defined() && workspaceSize_ > 0 ? workspace_.data_ptr() : nullptr;
    const aclnnStatus status = lib_->Functions().execute(workspace, workspaceSize_, executor_, stream);
    if (status != 0) {
        // torch_npu raises for the non-zero status with CANN's error message; its operator log
        // gets our status name as well.
        const std::string message = lib_->RecentErrorMessage();
        ASCEND_LOGE("%s failed with status %d (%s): %s", kExecuteApi, static_cast<int>(status),
                    AclnnStatusName(status), message.c_str());
    }
    return status;
}

void NpuCall::Launch(const std::shared_ptr<NpuCall> &call, const at::Tensor &workspace)
{
    TORCH_CHECK(!call->launched_, kExecuteApi, ": this executor was already executed; aclnn executors are "
                "single-use — call get_workspace_size again", OPS_ERROR(ErrCode::PARAM));
    if (call->workspaceSize_ > 0) {
        TORCH_CHECK(workspace.defined() && workspace.device() == call->device_ && workspace.is_contiguous() &&
                        workspace.nbytes() >= call->workspaceSize_,
                    kExecuteApi, ": workspace must be a contiguous tensor of at least ", call->workspaceSize_,
                    " bytes on ", call->device_.str(), OPS_ERROR(ErrCode::PARAM));
    }
    c10_npu::NPUGuard guard(call->device_);
    call->launched_ = true;
    call->workspace_ = workspace;
    const aclrtStream stream = c10_npu::getCurrentNPUStream(call->device_.index()).stream(false);
    // The handler owns the call until it has run, then lets go of it (on torch_npu's launch thread
    // when the task queue is on): descriptors, executor and tensor references are released as soon
    // as nothing else holds the call, as op-plugin releases its converted arguments.
    std::shared_ptr<NpuCall> owned = call;
    at_npu::native::OpCommand::RunOpApi(kExecuteApi, [owned, stream]() mutable -> int {
        const int status = owned->RunPhase2(stream);
        owned.reset();
        return status;
    });
}

}  // namespace ascend_dcn
