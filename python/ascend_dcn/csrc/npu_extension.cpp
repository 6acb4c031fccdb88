// ascend_dcn NPU extension (torch extension module, built by ascend_dcn.npu on an Ascend host).
//
//   bind_library(opapi_path)   load OUR operator library — the installed vendor package's
//       op_api/lib/libcust_opapi.so — with RTLD_LOCAL and resolve aclnnDeformableConv2dBackward*
//       by dlsym on that handle (OpApiLibrary, after the owner/mode check of library_trust.h).
//       Never op-plugin's name lookup: CANN's libopapi.so exports a built-in
//       aclnnDeformableConv2dBackward of the same name (docs/optype-collision.md).
//   bound_library() -> str     the path bound ("" when none); execute_symbol_file() -> str: the file
//       dladdr says defines the aclnnDeformableConv2dBackward we call.
//   get_workspace_size(input, grad_output, offset_out, weight, offset, kernel_size, stride, padding,
//       dilation, groups, deformable_groups, modulated, grad_input, grad_weight, grad_offset,
//       grad_bias) -> (workspace_size, NpuExecutor)       phase 1 on the calling thread
//   execute(workspace, workspace_size, executor)          phase 2 through torch_npu's queue
//   deformable_conv2d_backward(...) -> 4 tensors          the fused call
//   The fused call is also the PrivateUse1 kernel of ascend_dcn::deformable_conv2d_backward
//   (the torch.library op defined in ascend_dcn/library.py), so autograd, torch.compile and
//   torch.ops calls on NPU tensors take it without passing through Python.
// An NpuExecutor holds references to every tensor it describes until it has been launched or is
// dropped; dropping it unlaunched releases descriptors and executor (npu_call.h).
#include <torch/extension.h>
#include <torch/library.h>

#include <mutex>

#include "npu_call.h"
#include "torch_npu/csrc/core/npu/NPUException.h"

namespace ascend_dcn {
namespace {

std::mutex &BindMutex()
{
    static std::mutex m;
    return m;
}

std::shared_ptr<OpApiLibrary> &BoundLibrarySlot()
{
    static std::shared_ptr<OpApiLibrary> lib;
    return lib;
}

void BindLibrary(const std::string &opapiPath)
{
    std::lock_guard<std::mutex> lock(BindMutex());
    auto &slot = BoundLibrarySlot();
    if (slot && slot->OpApiPath() == opapiPath) {
        return;
    }
    // No runtime paths: torch_npu has loaded CANN's runtime; the op library's own dependencies
    // (libnnopbase.so) provide aclCreateTensor & co.
    slot = std::make_shared<OpApiLibrary>(opapiPath, std::vector<std::string>{});
}

std::shared_ptr<OpApiLibrary> BoundLibrary()
{
    std::lock_guard<std::mutex> lock(BindMutex());
    TORCH_CHECK(BoundLibrarySlot() != nullptr,
                "ascend_dcn NPU extension: no operator library bound; import ascend_dcn and call "
                "ascend_dcn.npu.get_extension() (it binds the installed vendor package)",
                OPS_ERROR(ErrCode::NOT_FOUND));
    return BoundLibrarySlot();
}

std::string BoundLibraryPath()
{
    std::lock_guard<std::mutex> lock(BindMutex());
    return BoundLibrarySlot() ? BoundLibrarySlot()->OpApiPath() : std::string();
}

std::string ExecuteSymbolFile() { return BoundLibrary()->ExecuteSymbolFile(); }

at::Tensor Opt(const c10::optional<at::Tensor> &t) { return t.has_value() ? *t : at::Tensor(); }

BackwardAttrs MakeAttrs(at::IntArrayRef kernelSize, at::IntArrayRef stride, at::IntArrayRef padding,
                        at::IntArrayRef dilation, int64_t groups, int64_t deformableGroups, bool modulated)
{
    BackwardAttrs a;
    a.kernelSize = kernelSize.vec();
    a.stride = stride.vec();
    a.padding = padding.vec();
    a.dilation = dilation.vec();
    a.groups = groups;
    a.deformableGroups = deformableGroups;
    a.modulated = modulated;
    return a;
}

// Python handle of a prepared call. Holds the call (and through it the tensors) until execute
// hands it to torch_npu's queue or the handle is dropped.
class NpuExecutor {
public:
    explicit NpuExecutor(std::shared_ptr<NpuCall> call) : call_(std::move(call)), size_(call_->WorkspaceSize()) {}
    uint64_t WorkspaceSize() const { return size_; }
    bool Used() const { return used_; }
    bool HoldsReferences() const { return call_ != nullptr; }
    std::shared_ptr<NpuCall> Take()
    {
        TORCH_CHECK(!used_, "aclnnDeformableConv2dBackward: this executor was already executed; aclnn executors "
                    "are single-use — call get_workspace_size again", OPS_ERROR(ErrCode::PARAM));
        used_ = true;
        return std::move(call_);
    }

private:
    std::shared_ptr<NpuCall> call_;
    uint64_t size_;
    bool used_ = false;
};

py::tuple GetWorkspaceSize(const at::Tensor &input, const at::Tensor &gradOutput, const at::Tensor &offsetOut,
                           const at::Tensor &weight, const at::Tensor &offset, std::vector<int64_t> kernelSize,
                           std::vector<int64_t> stride, std::vector<int64_t> padding, std::vector<int64_t> dilation,
                           int64_t groups, int64_t deformableGroups, bool modulated,
                           const c10::optional<at::Tensor> &gradInput, const c10::optional<at::Tensor> &gradWeight,
                           const c10::optional<at::Tensor> &gradOffset, const c10::optional<at::Tensor> &gradBias)
{
    BackwardTensors t{input, gradOutput, offsetOut, weight, offset,
                      Opt(gradInput), Opt(gradWeight), Opt(gradOffset), Opt(gradBias)};
    const BackwardAttrs a = MakeAttrs(kernelSize, stride, padding, dilation, groups, deformableGroups, modulated);
    std::shared_ptr<NpuCall> call;
    {
        py::gil_scoped_release release;
        call = NpuCall::Prepare(BoundLibrary(), t, a);
    }
    const uint64_t size = call->WorkspaceSize();
    return py::make_tuple(size, std::make_shared<NpuExecutor>(std::move(call)));
}

void Execute(const c10::optional<at::Tensor> &workspace, uint64_t workspaceSize, NpuExecutor &executor)
{
    TORCH_CHECK(workspaceSize == executor.WorkspaceSize(), "aclnnDeformableConv2dBackward: workspace_size ",
                workspaceSize, " differs from the executor's ", executor.WorkspaceSize(), OPS_ERROR(ErrCode::PARAM));
    std::shared_ptr<NpuCall> call = executor.Take();
    py::gil_scoped_release release;
    NpuCall::Launch(call, Opt(workspace));
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> Backward(
    const at::Tensor &input, const at::Tensor &gradOutput, const at::Tensor &offsetOut, const at::Tensor &weight,
    const at::Tensor &offset, at::IntArrayRef kernelSize, at::IntArrayRef stride, at::IntArrayRef padding,
    at::IntArrayRef dilation, int64_t groups, int64_t deformableGroups, bool modulated)
{
    const BackwardAttrs a = MakeAttrs(kernelSize, stride, padding, dilation, groups, deformableGroups, modulated);
    // Outputs: fresh tensors from torch_npu's caching allocator on input's device (current stream).
    // The contract check in Prepare runs before any of them is used.
    const at::TensorOptions options = input.options();
    BackwardTensors t{input.contiguous(), gradOutput.contiguous(), offsetOut.contiguous(), weight.contiguous(),
                      offset.contiguous(), at::empty(input.sizes(), options), at::empty(weight.sizes(), options),
                      at::empty(offset.sizes(), options),
                      at::empty({weight.size(0)}, gradOutput.options())};
    std::shared_ptr<NpuCall> call = NpuCall::Prepare(BoundLibrary(), t, a);
    at::Tensor workspace;
    if (call->WorkspaceSize() > 0) {
        workspace = at::empty({static_cast<int64_t>(call->WorkspaceSize())}, options.dtype(at::kByte));
    }
    NpuCall::Launch(call, workspace);
    return std::make_tuple(t.gradInput, t.gradWeight, t.gradOffset, t.gradBias);
}

// PrivateUse1 kernel, typed exactly as the schema torch.library.custom_op infers for
// ascend_dcn::deformable_conv2d_backward: (Tensor x5, SymInt[] x4, SymInt, SymInt, bool).
std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> BackwardKernel(
    const at::Tensor &input, const at::Tensor &gradOutput, const at::Tensor &offsetOut, const at::Tensor &weight,
    const at::Tensor &offset, c10::SymIntArrayRef kernelSize, c10::SymIntArrayRef stride, c10::SymIntArrayRef padding,
    c10::SymIntArrayRef dilation, c10::SymInt groups, c10::SymInt deformableGroups, bool modulated)
{
    return Backward(input, gradOutput, offsetOut, weight, offset, C10_AS_INTARRAYREF_SLOW(kernelSize),
                    C10_AS_INTARRAYREF_SLOW(stride), C10_AS_INTARRAYREF_SLOW(padding),
                    C10_AS_INTARRAYREF_SLOW(dilation), groups.expect_int(), deformableGroups.expect_int(), modulated);
}

}  // namespace
}  // namespace ascend_dcn

TORCH_LIBRARY_IMPL(ascend_dcn, PrivateUse1, m)
{
    m.impl("deformable_conv2d_backward", TORCH_FN(ascend_dcn::BackwardKernel));
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    using namespace ascend_dcn;
    m.doc() = "aclnnDeformableConv2dBackward through torch_npu's operator machinery (OpCommand::RunOpApi)";
    py::class_<NpuExecutor, std::shared_ptr<NpuExecutor>>(m, "NpuExecutor")
        .def_property_readonly("workspace_size", &NpuExecutor::WorkspaceSize)
        .def_property_readonly("used", &NpuExecutor::Used)
        .def_property_readonly("holds_references", &NpuExecutor::HoldsReferences);
    m.def("bind_library", &BindLibrary, py::arg("opapi_path"));
    m.def("bound_library", &BoundLibraryPath);
    m.def("execute_symbol_file", &ExecuteSymbolFile);
    m.def("get_workspace_size", &GetWorkspaceSize, py::arg("input"), py::arg("grad_output"), py::arg("offset_out"),
          py::arg("weight"), py::arg("offset"), py::arg("kernel_size"), py::arg("stride"), py::arg("padding"),
          py::arg("dilation"), py::arg("groups"), py::arg("deformable_groups"), py::arg("modulated"),
          py::arg("grad_input"), py::arg("grad_weight"), py::arg("grad_offset"), py::arg("grad_bias"));
    m.def("execute", &Execute, py::arg("workspace"), py::arg("workspace_size"), py::arg("executor"));
    m.def("deformable_conv2d_backward", &Backward, py::arg("input"), py::arg("grad_output"), py::arg("offset_out"),
          py::arg("weight"), py::arg("offset"), py::arg("kernel_size"), py::arg("stride"), py::arg("padding"),
          py::arg("dilation"), py::arg("groups"), py::arg("deformable_groups"), py::arg("modulated"));
}
