// ascend_dcn._C — pybind11 binding of the two-phase aclnn API of DeformableConv2dBackward.
//
//   OpApi(opapi_path, runtime_paths)           load libraries (opapi_library.h), resolve symbols
//   OpApi.get_workspace_size(inputs, attrs, outputs, precheck=True) -> (workspace_size, Executor)
//       inputs  = (input, grad_output, offset_out, weight, offset)
//       attrs   = (kernel_size, stride, padding, dilation, groups, deformable_groups, modulated)
//       outputs = (grad_input, grad_weight, grad_offset, grad_bias)
//       tensor  = (data_ptr, shape, strides, dtype_name, format_name) or None (-> nullptr)
//       int list = sequence of ints or None (-> nullptr aclIntArray)
//       precheck: run dcn::CheckBackwardArgs (the op's own C++ contract validation) first and
//       raise its status/argument, so every caller sees the contract's codes even where a
//       generated aclnn layer would report a TilingFunc failure differently.
//       keep_alive: any Python object (the caller's torch tensors) the Executor holds until it has
//       run or is dropped, so the memory its descriptors point at cannot be freed in between.
//   OpApi.execute(workspace_ptr, workspace_size, executor, stream_ptr) -> 0
//       an Executor is single-use: a second execute raises ValueError without calling the API.
//   Executor release: when the runtime can release executors (OpApiLibrary::CanReleaseExecutors,
//   CANN), phase 1 marks the executor repeatable and the Executor destroys it when it dies, run or
//   not; otherwise the runtime frees it at the end of phase 2 (an unexecuted one cannot be freed).
//   OpApi.twin_set_platform(soc, aiv_cores); module twin_set_platform(soc, aiv_cores)
//   check_backward_args(inputs, attrs, outputs) -> (status, argument, message)
//   deform_columns(...)  sampling stage of the CPU forward (cpu_forward.h): addresses of contiguous
//       float32/float64 buffers; columns_ptr / deform_out_ptr 0 = not wanted
// Failures of the C API raise AclnnCallError (a RuntimeError) with .status, .api, .argument and
// the aclGetRecentErrMsg() text in .message. The GIL is released while the C API runs.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpu_forward.h"
#include "deformable_conv2d_backward_check.h"
#include "opapi_library.h"
#include "tensor_spec.h"

namespace py = pybind11;
using namespace pybind11::literals;

namespace ascend_dcn {
namespace {

constexpr size_t kNumInputs = 5;
constexpr size_t kNumAttrs = 7;
constexpr size_t kNumOutputs = 4;
const char *const kGetWorkspaceApi = "aclnnDeformableConv2dBackwardGetWorkspaceSize";
const char *const kExecuteApi = "aclnnDeformableConv2dBackward";

py::object &CallErrorType()
{
    static py::object type;
    return type;
}

[[noreturn]] void RaiseCallError(int32_t status, const std::string &api, const std::string &argument,
                                 const std::string &message)
{
    std::string text = api + " failed with status " + std::to_string(status);
    if (!message.empty()) {
        text += ": " + message;
    }
    py::object err = CallErrorType()(text);
    err.attr("status") = status;
    err.attr("api") = api;
    err.attr("argument") = argument;
    err.attr("message") = message;
    PyErr_SetObject(CallErrorType().ptr(), err.ptr());
    throw py::error_already_set();
}

std::optional<TensorSpec> ParseTensor(const py::handle &obj, const char *what)
{
    if (obj.is_none()) {
        return std::nullopt;
    }
    auto t = obj.cast<py::sequence>();
    if (t.size() != 5) {
        throw std::invalid_argument(std::string(what) +
                                    ": a tensor is (data_ptr, shape, strides, dtype_name, format_name) or None");
    }
    TensorSpec s;
    s.data = t[0].cast<uintptr_t>();
    s.shape = t[1].cast<std::vector<int64_t>>();
    s.strides = t[2].cast<std::vector<int64_t>>();
    s.dtype = t[3].cast<std::string>();
    s.format = t[4].cast<std::string>();
    if (s.shape.size() != s.strides.size()) {
        throw std::invalid_argument(std::string(what) + ": shape and strides must have the same length");
    }
    return s;
}

std::optional<std::vector<int64_t>> ParseIntList(const py::handle &obj, const char *what)
{
    if (obj.is_none()) {
        return std::nullopt;
    }
    try {
        return obj.cast<std::vector<int64_t>>();
    } catch (const py::cast_error &) {
        throw std::invalid_argument(std::string(what) + ": must be a sequence of ints or None");
    }
}

template <typename T>
T ParseScalar(const py::handle &obj, const char *what, const char *kind)
{
    try {
        return obj.cast<T>();
    } catch (const py::cast_error &) {
        throw std::invalid_argument(std::string(what) + ": must be " + kind);
    }
}

struct CallArgs {
    std::optional<TensorSpec> inputs[kNumInputs];
    std::optional<std::vector<int64_t>> lists[4];
    int64_t groups = 1;
    int64_t deformableGroups = 1;
    bool modulated = true;
    std::optional<TensorSpec> outputs[kNumOutputs];
};

CallArgs ParseCall(const py::sequence &inputs, const py::sequence &attrs, const py::sequence &outputs)
{
    if (inputs.size() != kNumInputs || attrs.size() != kNumAttrs || outputs.size() != kNumOutputs) {
        throw std::invalid_argument("expected 5 inputs (input, grad_output, offset_out, weight, offset), 7 attrs "
                                    "(kernel_size, stride, padding, dilation, groups, deformable_groups, "
                                    "modulated) and 4 outputs (grad_input, grad_weight, grad_offset, grad_bias)");
    }
    static const char *const inNames[] = {"input", "gradOutput", "offsetOut", "weight", "offset"};
    static const char *const outNames[] = {"gradInput", "gradWeight", "gradOffset", "gradBias"};
    CallArgs c;
    for (size_t i = 0; i < kNumInputs; ++i) {
        c.inputs[i] = ParseTensor(inputs[i], inNames[i]);
    }
    static const char *const listNames[] = {"kernelSize", "stride", "padding", "dilation"};
    for (size_t i = 0; i < 4; ++i) {
        c.lists[i] = ParseIntList(attrs[i], listNames[i]);
    }
    c.groups = ParseScalar<int64_t>(attrs[4], "groups", "an int");
    c.deformableGroups = ParseScalar<int64_t>(attrs[5], "deformableGroups", "an int");
    c.modulated = ParseScalar<bool>(attrs[6], "modulated", "a bool");
    for (size_t i = 0; i < kNumOutputs; ++i) {
        c.outputs[i] = ParseTensor(outputs[i], outNames[i]);
    }
    return c;
}

dcn::TensorDesc ToDesc(const std::optional<TensorSpec> &s)
{
    dcn::TensorDesc d;
    if (!s) {
        return d;
    }
    d.present = true;
    d.dtype = GeDataTypeFromName(s->dtype);
    d.format = GeFormatFromName(s->format);
    d.shape = s->shape;
    return d;
}

dcn::BackwardArgs ToBackwardArgs(const CallArgs &c)
{
    dcn::BackwardArgs a;
    a.input = ToDesc(c.inputs[0]);
    a.gradOutput = ToDesc(c.inputs[1]);
    a.offsetOut = ToDesc(c.inputs[2]);
    a.weight = ToDesc(c.inputs[3]);
    a.offset = ToDesc(c.inputs[4]);
    a.gradInput = ToDesc(c.outputs[0]);
    a.gradWeight = ToDesc(c.outputs[1]);
    a.gradOffset = ToDesc(c.outputs[2]);
    a.gradBias = ToDesc(c.outputs[3]);
    bool *has[] = {&a.hasKernelSize, &a.hasStride, &a.hasPadding, &a.hasDilation};
    std::vector<int64_t> *lists[] = {&a.kernelSize, &a.stride, &a.padding, &a.dilation};
    for (size_t i = 0; i < 4; ++i) {
        *has[i] = c.lists[i].has_value();
        if (c.lists[i]) {
            *lists[i] = *c.lists[i];
        }
    }
    a.groups = c.groups;
    a.deformableGroups = c.deformableGroups;
    a.modulated = c.modulated;
    return a;
}

// aclTensor / aclIntArray owned for the lifetime of an Executor (descriptors only; the data stays
// alive through the Executor's keep_alive reference to the caller's tensors).
class AclObjects {
public:
    explicit AclObjects(std::shared_ptr<OpApiLibrary> lib) : lib_(std::move(lib)) {}
    AclObjects(const AclObjects &) = delete;
    AclObjects &operator=(const AclObjects &) = delete;
    ~AclObjects()
    {
        const auto &f = lib_->Functions();
        for (aclTensor *t : tensors_) {
            f.destroyTensor(t);
        }
        for (aclIntArray *a : arrays_) {
            f.destroyIntArray(a);
        }
    }

    aclTensor *Tensor(const std::optional<TensorSpec> &s, const char *name)
    {
        if (!s) {
            return nullptr;
        }
        const std::vector<int64_t> storage = StorageDims(s->shape, s->strides);
        aclTensor *t = lib_->Functions().createTensor(
            s->shape.data(), s->shape.size(), AclDataTypeFromName(s->dtype), s->strides.data(), 0,
            AclFormatFromName(s->format), storage.data(), storage.size(), reinterpret_cast<void *>(s->data));
        if (t == nullptr) {
            throw std::runtime_error(std::string("aclCreateTensor returned nullptr for ") + name + ": " +
                                     lib_->RecentErrorMessage());
        }
        tensors_.push_back(t);
        return t;
    }

    aclIntArray *IntArray(const std::optional<std::vector<int64_t>> &v, const char *name)
    {
        if (!v) {
            return nullptr;
        }
        aclIntArray *a = lib_->Functions().createIntArray(v->data(), v->size());
        if (a == nullptr) {
            throw std::runtime_error(std::string("aclCreateIntArray returned nullptr for ") + name + ": " +
                                     lib_->RecentErrorMessage());
        }
        arrays_.push_back(a);
        return a;
    }

private:
    std::shared_ptr<OpApiLibrary> lib_;
    std::vector<aclTensor *> tensors_;
    std::vector<aclIntArray *> arrays_;
};

class Executor {
public:
    Executor(std::shared_ptr<OpApiLibrary> lib, std::unique_ptr<AclObjects> objects, aclOpExecutor *exec,
             uint64_t workspaceSize, py::object keepAlive)
        : lib_(std::move(lib)), objects_(std::move(objects)), exec_(exec), workspaceSize_(workspaceSize),
          keepAlive_(std::move(keepAlive))
    {
        if (lib_->CanReleaseExecutors()) {
            releasable_ = lib_->Functions().setExecutorRepeatable(exec_) == 0;
        }
    }
    Executor(const Executor &) = delete;
    Executor &operator=(const Executor &) = delete;
    ~Executor()
    {
        if (releasable_) {
            lib_->Functions().destroyExecutor(exec_);
        }
    }
    uint64_t WorkspaceSize() const { return workspaceSize_; }
    bool Used() const { return used_; }
    bool HoldsReferences() const { return !keepAlive_.is_none(); }
    // After phase 2 returned (the twin runs synchronously): the caller's tensors may go.
    void ReleaseReferences() { keepAlive_ = py::none(); }
    aclOpExecutor *Take(const OpApiLibrary &caller)
    {
        if (&caller != lib_.get()) {
            throw std::invalid_argument("this Executor was created by a different OpApi");
        }
        if (used_) {
            throw std::invalid_argument("this Executor was already executed; aclnn executors are single-use — "
                                        "call get_workspace_size again");
        }
        used_ = true;
        return exec_;
    }

private:
    std::shared_ptr<OpApiLibrary> lib_;
    std::unique_ptr<AclObjects> objects_;  // kept until the executor object dies (async NPU streams)
    aclOpExecutor *exec_ = nullptr;
    uint64_t workspaceSize_ = 0;
    py::object keepAlive_;
    bool used_ = false;
    bool releasable_ = false;
};

std::mutex &LibrariesMutex()
{
    static std::mutex m;
    return m;
}

std::vector<std::shared_ptr<OpApiLibrary>> &LoadedLibraries()
{
    static std::vector<std::shared_ptr<OpApiLibrary>> libs;
    return libs;
}

// A described tensor with elements must have an address: refuse null data before any native call
// (the kernel would fault on it). Shapes with a 0 dimension are left to the contract's empty rule.
void RequireData(const CallArgs &c)
{
    static const char *const names[] = {"input", "gradOutput", "offsetOut", "weight", "offset",
                                        "gradInput", "gradWeight", "gradOffset", "gradBias"};
    const std::optional<TensorSpec> *specs[] = {&c.inputs[0], &c.inputs[1], &c.inputs[2], &c.inputs[3],
                                                &c.inputs[4], &c.outputs[0], &c.outputs[1], &c.outputs[2],
                                                &c.outputs[3]};
    for (size_t i = 0; i < 9; ++i) {
        const auto &s = *specs[i];
        if (!s || s->data != 0) {
            continue;
        }
        bool empty = false;
        for (int64_t d : s->shape) {
            empty = empty || d == 0;
        }
        if (!empty) {
            throw std::invalid_argument(std::string(names[i]) + ": data_ptr is 0 for a tensor with elements");
        }
    }
}

class OpApi {
public:
    OpApi(const std::string &opapiPath, const std::vector<std::string> &runtimePaths)
        : lib_(std::make_shared<OpApiLibrary>(opapiPath, runtimePaths))
    {
        std::lock_guard<std::mutex> lock(LibrariesMutex());
        LoadedLibraries().push_back(lib_);
    }

    py::tuple GetWorkspaceSize(const py::sequence &inputs, const py::sequence &attrs, const py::sequence &outputs,
                               bool precheck, py::object keepAlive)
    {
        const CallArgs c = ParseCall(inputs, attrs, outputs);
        RequireData(c);
        if (precheck) {
            const dcn::CheckResult r = dcn::CheckBackwardArgs(ToBackwardArgs(c));
            if (!r.ok()) {
                RaiseCallError(r.status, kGetWorkspaceApi, r.argument, r.message);
            }
        }
        auto objects = std::make_unique<AclObjects>(lib_);
        const char *const inNames[] = {"input", "gradOutput", "offsetOut", "weight", "offset"};
        const char *const listNames[] = {"kernelSize", "stride", "padding", "dilation"};
        const char *const outNames[] = {"gradInput", "gradWeight", "gradOffset", "gradBias"};
        aclTensor *in[kNumInputs];
        aclIntArray *lists[4];
        aclTensor *out[kNumOutputs];
        for (size_t i = 0; i < kNumInputs; ++i) {
            in[i] = objects->Tensor(c.inputs[i], inNames[i]);
        }
        for (size_t i = 0; i < 4; ++i) {
            lists[i] = objects->IntArray(c.lists[i], listNames[i]);
        }
        for (size_t i = 0; i < kNumOutputs; ++i) {
            out[i] = objects->Tensor(c.outputs[i], outNames[i]);
        }
        uint64_t workspaceSize = 0;
        aclOpExecutor *exec = nullptr;
        aclnnStatus status = 0;
        std::string message;
        {
            py::gil_scoped_release release;
            status = lib_->Functions().getWorkspaceSize(in[0], in[1], in[2], in[3], in[4], lists[0], lists[1],
                                                        lists[2], lists[3], c.groups, c.deformableGroups,
                                                        c.modulated, out[0], out[1], out[2], out[3],
                                                        &workspaceSize, &exec);
            if (status != 0) {
                message = lib_->RecentErrorMessage();
            }
        }
        if (status != 0) {
            RaiseCallError(status, kGetWorkspaceApi, "", message);
        }
        if (exec == nullptr) {
            RaiseCallError(561103, kGetWorkspaceApi, "", "returned success but no executor");
        }
        auto executor = std::make_shared<Executor>(lib_, std::move(objects), exec, workspaceSize, std::move(keepAlive));
        return py::make_tuple(workspaceSize, executor);
    }

    int Execute(uintptr_t workspace, uint64_t workspaceSize, Executor &executor, uintptr_t stream)
    {
        aclOpExecutor *exec = executor.Take(*lib_);
        aclnnStatus status = 0;
        std::string message;
        {
            py::gil_scoped_release release;
            status = lib_->Functions().execute(reinterpret_cast<void *>(workspace), workspaceSize, exec,
                                               reinterpret_cast<void *>(stream));
            if (status != 0) {
                message = lib_->RecentErrorMessage();
            }
        }
        executor.ReleaseReferences();
        if (status != 0) {
            RaiseCallError(status, kExecuteApi, "", message);
        }
        return 0;
    }

    void TwinSetPlatform(const std::string &soc, uint32_t aivCores)
    {
        if (lib_->Functions().twinSetPlatform == nullptr) {
            throw std::runtime_error("twinSetPlatform is not exported by the loaded runtime (not the CPU twin)");
        }
        lib_->Functions().twinSetPlatform(soc.c_str(), aivCores);
    }

    std::string RecentErrorMessage() const { return lib_->RecentErrorMessage(); }
    const std::string &OpApiPath() const { return lib_->OpApiPath(); }
    const std::vector<std::string> &RuntimePaths() const { return lib_->RuntimePaths(); }
    bool IsTwin() const { return lib_->Functions().twinSetPlatform != nullptr; }
    std::string ExecuteSymbolFile() const { return lib_->ExecuteSymbolFile(); }
    bool CanReleaseExecutors() const { return lib_->CanReleaseExecutors(); }

private:
    std::shared_ptr<OpApiLibrary> lib_;
};

void ModuleTwinSetPlatform(const std::string &soc, uint32_t aivCores)
{
    std::lock_guard<std::mutex> lock(LibrariesMutex());
    for (const auto &lib : LoadedLibraries()) {
        if (lib->Functions().twinSetPlatform != nullptr) {
            lib->Functions().twinSetPlatform(soc.c_str(), aivCores);
            return;
        }
    }
    throw std::runtime_error("twin_set_platform: no twin runtime loaded yet (create an OpApi with the twin's "
                             "libraries first)");
}

py::tuple ModuleCheckBackwardArgs(const py::sequence &inputs, const py::sequence &attrs, const py::sequence &outputs)
{
    const dcn::CheckResult r = dcn::CheckBackwardArgs(ToBackwardArgs(ParseCall(inputs, attrs, outputs)));
    return py::make_tuple(r.status, r.argument, r.message);
}

template <typename T>
void RunDeformColumns(const py::dict& kw)
{
    DeformColumnsArgs<T> a;
    auto ptr = [&kw](const char* key) { return reinterpret_cast<T*>(kw[key].cast<uintptr_t>()); };
    auto num = [&kw](const char* key) { return kw[key].cast<int64_t>(); };
    a.image = ptr("image_ptr");
    a.offset = ptr("offset_ptr");
    a.columns = ptr("columns_ptr");
    a.deformOut = ptr("deform_out_ptr");
    a.deformOutChannelStride = num("deform_out_channel_stride");
    a.channels = num("channels");
    a.height = num("height");
    a.width = num("width");
    a.kernelH = num("kernel_h");
    a.kernelW = num("kernel_w");
    a.outH = num("out_h");
    a.outW = num("out_w");
    a.strideH = num("stride_h");
    a.strideW = num("stride_w");
    a.padTop = num("pad_top");
    a.padLeft = num("pad_left");
    a.dilationH = num("dilation_h");
    a.dilationW = num("dilation_w");
    a.deformGroups = num("deformable_groups");
    a.modulated = kw["modulated"].cast<bool>();
    a.rowBegin = num("row_begin");
    a.rowEnd = num("row_end");
    const int threads = static_cast<int>(num("threads"));
    py::gil_scoped_release release;
    DeformColumns(a, threads);
}

// deform_columns(dtype="float32"|"float64", **fields of DeformColumnsArgs in snake case, threads)
void ModuleDeformColumns(const std::string& dtype, const py::kwargs& kw)
{
    if (dtype == "float32") {
        RunDeformColumns<float>(kw);
    } else if (dtype == "float64") {
        RunDeformColumns<double>(kw);
    } else {
        throw std::invalid_argument("deform_columns: dtype must be float32 or float64; got " + dtype);
    }
}

}  // namespace
}  // namespace ascend_dcn

PYBIND11_MODULE(_C, m)
{
    using namespace ascend_dcn;
    m.doc() = "Two-phase aclnn binding of DeformableConv2dBackward (dlopen; CPU twin or CANN)";

    py::object builtins = py::module_::import("builtins");
    CallErrorType() = builtins.attr("type")("AclnnCallError", py::make_tuple(py::handle(PyExc_RuntimeError)),
                                            py::dict("__module__"_a = "ascend_dcn._C"));
    m.attr("AclnnCallError") = CallErrorType();

    py::class_<Executor, std::shared_ptr<Executor>>(m, "Executor")
        .def_property_readonly("workspace_size", &Executor::WorkspaceSize)
        .def_property_readonly("used", &Executor::Used)
        .def_property_readonly("holds_references", &Executor::HoldsReferences);

    py::class_<OpApi>(m, "OpApi")
        .def(py::init<const std::string &, const std::vector<std::string> &>(), py::arg("opapi_path"),
             py::arg("runtime_paths") = std::vector<std::string>{})
        .def("get_workspace_size", &OpApi::GetWorkspaceSize, py::arg("inputs"), py::arg("attrs"),
             py::arg("outputs"), py::arg("precheck") = true, py::arg("keep_alive") = py::none())
        .def("execute", &OpApi::Execute, py::arg("workspace_ptr"), py::arg("workspace_size"), py::arg("executor"),
             py::arg("stream_ptr") = 0)
        .def("twin_set_platform", &OpApi::TwinSetPlatform, py::arg("soc"), py::arg("aiv_cores") = 0)
        .def("recent_error_message", &OpApi::RecentErrorMessage)
        .def_property_readonly("opapi_path", &OpApi::OpApiPath)
        .def_property_readonly("runtime_paths", &OpApi::RuntimePaths)
        .def_property_readonly("is_twin", &OpApi::IsTwin)
        .def_property_readonly("execute_symbol_file", &OpApi::ExecuteSymbolFile)
        .def_property_readonly("can_release_executors", &OpApi::CanReleaseExecutors);

    m.def("twin_set_platform", &ModuleTwinSetPlatform, py::arg("soc"), py::arg("aiv_cores") = 0);
    m.def("check_backward_args", &ModuleCheckBackwardArgs, py::arg("inputs"), py::arg("attrs"), py::arg("outputs"));
    m.def("deform_columns", &ModuleDeformColumns, py::arg("dtype"));
    m.attr("ACLNN_ERR_PARAM_NULLPTR") = dcn::kStatusParamNullptr;
    m.attr("ACLNN_ERR_PARAM_INVALID") = dcn::kStatusParamInvalid;
}
