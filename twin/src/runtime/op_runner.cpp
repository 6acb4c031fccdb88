// The twin nnopbase back end of generated aclnn code: executor building, dtype/format check against
// the OpDef, TilingFunc with a gert::TilingContext, kernel launch with GM registration.
// Status codes (doc "aclnn返回码"; mapping of each check in twin/README.md):
//   161001 null required tensor/attr/out-pointer, 161002 dtype/format/shape not supported,
//   561002 TilingFunc failed or violated a tiling rule, 561003 no kernel / no SoC config,
//   361001 kernel launch failed (twin rule violation; on the chip an AI Core exception).
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>
#include "../host/context_data.h"
#include "../host/host_errors.h"
#include "../host/op_def_validate.h"
#include "acl_objects.h"
#include "aclnn/aclnn_base.h"
#include "aclnn/opdev/op_errno.h"
#include "register/op_def_factory.h"
#include "runtime_api.h"
#ifdef TWIN_HAVE_KERNEL_RUNTIME  // set by twin/CMakeLists.txt when twin/src/kernel is built
#include "twin/launch.h"
#include "twin/platform.h"
#define TWIN_HAVE_LAUNCHER 1
#endif

namespace {
constexpr size_t kTilingCapacity = 64 * 1024;  // bytes available to TilingFunc (twin value)

struct KernelInfo {
    std::string name;
    int type = 0;
    TwinKernelEntry entry = nullptr;
    size_t numArgs = 0;
};
std::mutex &RegistryMutex() { static std::mutex m; return m; }
std::map<std::string, KernelInfo> &Kernels() { static std::map<std::string, KernelInfo> k; return k; }

struct AttrArg {
    bool set = false;
    bool isNull = false;
    int64_t i = 0;
    bool b = false;
    double f = 0.0;
    std::string s;
    std::vector<int64_t> listInt;
    std::vector<float> listFloat;
};
}  // namespace

struct aclOpExecutor {
    std::string opType;
    std::unique_ptr<ops::OpDef> op;
    std::vector<const aclTensor *> inputs;
    std::vector<const aclTensor *> outputs;
    std::vector<AttrArg> attrs;
    bool tiled = false;
    std::vector<uint8_t> tiling;
    uint64_t workspaceSize = 0;
    uint32_t blockDim = 0;
    uint64_t tilingKey = 0;
};

namespace {
std::set<aclOpExecutor *> &LiveExecutors() { static std::set<aclOpExecutor *> s; return s; }

#ifdef TWIN_HAVE_KERNEL_RUNTIME
// Result of the last kernel launch made by aclnnXxx on this thread (cost counters for tests/benchmarks).
thread_local twin::LaunchResult g_lastLaunch;
#endif

aclnnStatus Fail(aclnnStatus status, const std::string &msg) {
    twin_rt::SetErrMsg(msg);
    return status;
}

bool IsLive(aclOpExecutor *ex) {
    std::lock_guard<std::mutex> lock(RegistryMutex());
    return ex != nullptr && LiveExecutors().count(ex) != 0;
}

void Destroy(aclOpExecutor *ex) {
    {
        std::lock_guard<std::mutex> lock(RegistryMutex());
        if (LiveExecutors().erase(ex) == 0) { return; }
    }
    delete ex;
}

std::string ParamName(const ops::OpParamDef &p) { return p.GetParamName().GetString(); }

std::string DescribeCombination(const std::vector<ops::OpParamDef> &ins, const std::vector<ops::OpParamDef> &outs,
                                size_t j) {
    std::ostringstream os;
    bool first = true;
    for (const auto *group : {&ins, &outs}) {
        for (const auto &p : *group) {
            os << (first ? "" : ", ") << ParamName(p) << "=";
            first = false;
            if (p.IsDtypeList()) { os << "list"; continue; }
            const auto &t = p.GetDataTypes();
            os << twin_rt::DataTypeName(static_cast<aclDataType>(j < t.size() ? t[j] : ge::DT_UNDEFINED));
        }
    }
    return os.str();
}

// Finds the first supported dtype/format combination matching the present tensors.
aclnnStatus CheckSupport(aclOpExecutor *ex, const std::vector<ops::OpParamDef> &ins,
                         const std::vector<ops::OpParamDef> &outs) {
    const size_t n = twin_host::CombinationCount(ins, outs);
    for (size_t j = 0; j < n; ++j) {
        bool ok = true;
        for (int g = 0; g < 2 && ok; ++g) {
            const auto &params = g == 0 ? ins : outs;
            const auto &tensors = g == 0 ? ex->inputs : ex->outputs;
            for (size_t i = 0; i < params.size() && ok; ++i) {
                const aclTensor *t = tensors[i];
                if (t == nullptr) { continue; }
                ok = twin_host::AcceptsDtype(params[i], j, static_cast<ge::DataType>(t->dtype)) &&
                     twin_host::AcceptsFormat(params[i], j, static_cast<ge::Format>(t->format));
            }
        }
        if (ok) { return ACLNN_SUCCESS; }
    }
    std::ostringstream os;
    os << ex->opType << ": the dtype/format combination of the tensors is not supported; got ";
    bool first = true;
    for (int g = 0; g < 2; ++g) {
        const auto &params = g == 0 ? ins : outs;
        const auto &tensors = g == 0 ? ex->inputs : ex->outputs;
        for (size_t i = 0; i < params.size(); ++i) {
            os << (first ? "" : ", ") << ParamName(params[i]) << "=";
            first = false;
            if (tensors[i] == nullptr) { os << "null"; continue; }
            os << twin_rt::DataTypeName(tensors[i]->dtype) << "/" << twin_rt::FormatName(tensors[i]->format);
        }
    }
    os << "; supported (dtype per param, format per OpDef):";
    for (size_t j = 0; j < n; ++j) { os << " [" << DescribeCombination(ins, outs, j) << "]"; }
    return Fail(ACLNN_ERR_PARAM_INVALID, os.str());
}

void FillSlot(twin_host::TensorSlot &slot, const ops::OpParamDef &p, const aclTensor *t) {
    slot.name = ParamName(p);
    slot.present = t != nullptr;
    if (t == nullptr) { return; }
    gert::Shape shape;
    for (int64_t d : t->viewDims) { shape.AppendDim(d); }
    slot.shape.MutableOriginShape() = shape;
    slot.shape.MutableStorageShape() = shape;
    slot.desc.SetDataType(static_cast<ge::DataType>(t->dtype));
    slot.desc.SetOriginFormat(static_cast<ge::Format>(t->format));
    slot.desc.SetStorageFormat(static_cast<ge::Format>(t->format));
}

aclnnStatus FillAttrs(aclOpExecutor *ex, twin_host::ContextData &ctx) {
    const auto &defs = ex->op->GetAttrs();
    for (size_t i = 0; i < defs.size(); ++i) {
        const auto &d = defs[i];
        const AttrArg &a = ex->attrs[i];
        auto v = std::make_unique<twin_host::AttrValue>();
        v->kind = d.GetKind();
        v->name = d.GetName().GetString();
        const bool useDefault = !a.set || a.isNull;
        if (useDefault && !d.HasDefault()) {
            return Fail(ACLNN_ERR_PARAM_NULLPTR, ex->opType + ": required attr '" + v->name + "' is null");
        }
        using Kind = ops::OpAttrDef::Kind;
        switch (d.GetKind()) {
            case Kind::BOOL: v->b = useDefault ? d.GetDefaultBool() : a.b; break;
            case Kind::INT: v->i = useDefault ? d.GetDefaultInt() : a.i; break;
            case Kind::FLOAT: v->f = useDefault ? d.GetDefaultFloat() : static_cast<float>(a.f); break;
            case Kind::STRING: v->s = useDefault ? d.GetDefaultString() : a.s; break;
            case Kind::LIST_INT:
                v->listInt = gert::TypedContinuousVector<int64_t>(useDefault ? d.GetDefaultListInt() : a.listInt);
                break;
            case Kind::LIST_FLOAT:
                v->listFloat = gert::TypedContinuousVector<float>(useDefault ? d.GetDefaultListFloat() : a.listFloat);
                break;
            default:
                return Fail(ACLNN_ERR_INNER, ex->opType + ": attr '" + v->name + "' has a kind the twin does not support");
        }
        ctx.attrStore.values.push_back(std::move(v));
    }
    ctx.InitAttrs();
    return ACLNN_SUCCESS;
}

aclnnStatus CheckTensorLayout(const aclOpExecutor *ex, const ops::OpParamDef &p, const aclTensor *t, bool isOutput) {
    if (t == nullptr) { return ACLNN_SUCCESS; }
    const std::string where = ex->opType + " " + (isOutput ? "output '" : "input '") + ParamName(p) + "'";
    if (twin_rt::DataTypeBytes(t->dtype) == 0) {
        return Fail(ACLNN_ERR_PARAM_INVALID, where + ": dtype " + std::to_string(t->dtype) + " is not supported");
    }
    if (t->Numel() > 0 && t->data == nullptr) {
        return Fail(ACLNN_ERR_PARAM_NULLPTR, where + ": tensor data is null");
    }
    if (!t->IsContiguous()) {
        if (isOutput) {
            return Fail(ACLNN_ERR_PARAM_INVALID, where + ": non-contiguous output tensors are not supported by the twin");
        }
        if (!p.GetAutoContiguous()) {
            return Fail(ACLNN_ERR_PARAM_INVALID,
                        where + ": non-contiguous input but the OpDef does not declare AutoContiguous()");
        }
    }
    return ACLNN_SUCCESS;
}
}  // namespace

extern "C" {
int TwinRegisterKernel(const char *opType, const char *kernelName, int kernelType, TwinKernelEntry entry,
                       size_t numArgs) {
    std::lock_guard<std::mutex> lock(RegistryMutex());
    Kernels()[opType] = KernelInfo{kernelName, kernelType, entry, numArgs};
    return 0;
}

void TwinNnopbaseSetErrMsg(const char *message) { twin_rt::SetErrMsg(message == nullptr ? "" : message); }

aclnnStatus TwinNnopbaseCreateExecutor(const char *opType, aclOpExecutor **executor) {
    if (executor == nullptr) { return Fail(ACLNN_ERR_PARAM_NULLPTR, "executor != nullptr"); }
    *executor = nullptr;
    if (!ops::OpDefFactory::Exists(opType)) {
        return Fail(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, std::string("op type ") + opType + " is not registered (OP_ADD)");
    }
    auto ex = std::make_unique<aclOpExecutor>();
    ex->opType = opType;
    ex->op = std::make_unique<ops::OpDef>(ops::OpDefFactory::OpDefCreate(opType));
    const std::string err = twin_host::ValidateOpDef(*ex->op);
    if (!err.empty()) { return Fail(ACLNN_ERR_INNER, "invalid OpDef: " + err); }
    ex->inputs.assign(ex->op->GetInputs().size(), nullptr);
    ex->outputs.assign(ex->op->GetOutputs().size(), nullptr);
    ex->attrs.assign(ex->op->GetAttrs().size(), AttrArg{});
    *executor = ex.release();
    std::lock_guard<std::mutex> lock(RegistryMutex());
    LiveExecutors().insert(*executor);
    return ACLNN_SUCCESS;
}

aclnnStatus TwinNnopbaseAddInput(aclOpExecutor *ex, const aclTensor *tensor, uint32_t irIndex) {
    if (!IsLive(ex) || irIndex >= ex->inputs.size()) { return Fail(ACLNN_ERR_INNER, "AddInput: bad executor or index"); }
    ex->inputs[irIndex] = tensor;
    return ACLNN_SUCCESS;
}
aclnnStatus TwinNnopbaseAddOutput(aclOpExecutor *ex, const aclTensor *tensor, uint32_t irIndex) {
    if (!IsLive(ex) || irIndex >= ex->outputs.size()) { return Fail(ACLNN_ERR_INNER, "AddOutput: bad executor or index"); }
    ex->outputs[irIndex] = tensor;
    return ACLNN_SUCCESS;
}

static AttrArg *AttrSlot(aclOpExecutor *ex, uint32_t attrIndex) {
    if (!IsLive(ex) || attrIndex >= ex->attrs.size()) { return nullptr; }
    AttrArg *a = &ex->attrs[attrIndex];
    a->set = true;
    return a;
}
aclnnStatus TwinNnopbaseAddIntAttr(aclOpExecutor *ex, int64_t value, uint32_t attrIndex) {
    AttrArg *a = AttrSlot(ex, attrIndex);
    if (a == nullptr) { return Fail(ACLNN_ERR_INNER, "AddIntAttr: bad executor or index"); }
    a->i = value;
    return ACLNN_SUCCESS;
}
aclnnStatus TwinNnopbaseAddBoolAttr(aclOpExecutor *ex, bool value, uint32_t attrIndex) {
    AttrArg *a = AttrSlot(ex, attrIndex);
    if (a == nullptr) { return Fail(ACLNN_ERR_INNER, "AddBoolAttr: bad executor or index"); }
    a->b = value;
    return ACLNN_SUCCESS;
}
aclnnStatus TwinNnopbaseAddFloatAttr(aclOpExecutor *ex, double value, uint32_t attrIndex) {
    AttrArg *a = AttrSlot(ex, attrIndex);
    if (a == nullptr) { return Fail(ACLNN_ERR_INNER, "AddFloatAttr: bad executor or index"); }
    a->f = value;
    return ACLNN_SUCCESS;
}
aclnnStatus TwinNnopbaseAddStrAttr(aclOpExecutor *ex, const char *value, uint32_t attrIndex) {
    AttrArg *a = AttrSlot(ex, attrIndex);
    if (a == nullptr) { return Fail(ACLNN_ERR_INNER, "AddStrAttr: bad executor or index"); }
    a->isNull = value == nullptr;
    if (value != nullptr) { a->s = value; }
    return ACLNN_SUCCESS;
}
aclnnStatus TwinNnopbaseAddIntArrayAttr(aclOpExecutor *ex, const aclIntArray *value, uint32_t attrIndex) {
    AttrArg *a = AttrSlot(ex, attrIndex);
    if (a == nullptr) { return Fail(ACLNN_ERR_INNER, "AddIntArrayAttr: bad executor or index"); }
    a->isNull = value == nullptr;
    if (value != nullptr) { a->listInt = value->values; }
    return ACLNN_SUCCESS;
}
aclnnStatus TwinNnopbaseAddFloatArrayAttr(aclOpExecutor *ex, const aclFloatArray *value, uint32_t attrIndex) {
    AttrArg *a = AttrSlot(ex, attrIndex);
    if (a == nullptr) { return Fail(ACLNN_ERR_INNER, "AddFloatArrayAttr: bad executor or index"); }
    a->isNull = value == nullptr;
    if (value != nullptr) { a->listFloat = value->values; }
    return ACLNN_SUCCESS;
}

void TwinNnopbaseDestroyExecutor(aclOpExecutor *executor) { Destroy(executor); }

aclnnStatus TwinNnopbaseRunForWorkspace(aclOpExecutor *ex, uint64_t *workspaceSize) {
    if (!IsLive(ex)) { return Fail(ACLNN_ERR_PARAM_INVALID, "executor is not live (executors are single-use)"); }
    aclnnStatus st = ACLNN_SUCCESS;
    auto bail = [&](aclnnStatus s) { Destroy(ex); return s; };
    if (workspaceSize == nullptr) { return bail(Fail(ACLNN_ERR_PARAM_NULLPTR, "workspaceSize != nullptr")); }

    const fe::PlatFormInfos platform = twin_host::SnapshotPlatform();
    const std::string unit = twin_host::ComputeUnitOfSoc(platform.socVersion);
    std::vector<ops::OpParamDef> ins, outs;
    if (!twin_host::ParamsForComputeUnit(*ex->op, unit, ins, outs)) {
        return bail(Fail(ACLNN_ERR_INNER_FIND_KERNEL_ERROR,
                         ex->opType + ": no AICore().AddConfig(\"" + unit + "\") for the active SoC " + platform.socVersion));
    }
    // Required tensors are checked by the generated code (161001); optional outputs may be absent.
    for (size_t i = 0; i < ins.size(); ++i) {
        if ((st = CheckTensorLayout(ex, ins[i], ex->inputs[i], false)) != ACLNN_SUCCESS) { return bail(st); }
    }
    for (size_t i = 0; i < outs.size(); ++i) {
        if ((st = CheckTensorLayout(ex, outs[i], ex->outputs[i], true)) != ACLNN_SUCCESS) { return bail(st); }
    }
    if ((st = CheckSupport(ex, ins, outs)) != ACLNN_SUCCESS) { return bail(st); }

    twin_host::ContextData ctx;
    ctx.nodeType = ex->opType;
    ctx.nodeName = ex->opType;
    ctx.platform = platform;
    ctx.inputs.resize(ins.size());
    ctx.outputs.resize(outs.size());
    for (size_t i = 0; i < ins.size(); ++i) { FillSlot(ctx.inputs[i], ins[i], ex->inputs[i]); }
    for (size_t i = 0; i < outs.size(); ++i) { FillSlot(ctx.outputs[i], outs[i], ex->outputs[i]); }
    if ((st = FillAttrs(ex, ctx)) != ACLNN_SUCCESS) { return bail(st); }
    std::vector<uint8_t> tilingBuf(kTilingCapacity, 0);
    ctx.tilingData.reset(new gert::TilingData(tilingBuf.data(), tilingBuf.size()));

    gert::TilingContext tctx(&ctx);
    (void)twin_host::TakeHostError();
    const ge::graphStatus gs = ex->op->AICore().GetTiling()(&tctx);
    const std::string hostErr = twin_host::TakeHostError();
    if (gs != ge::GRAPH_SUCCESS) {
        std::string m = ex->opType + ": TilingFunc returned GRAPH_FAILED";
        if (!ctx.error.empty()) { m += ": " + ctx.error; } else if (!hostErr.empty()) { m += ": " + hostErr; }
        return bail(Fail(ACLNN_ERR_INNER_TILING_ERROR, m));
    }
    if (!ctx.error.empty()) { return bail(Fail(ACLNN_ERR_INNER_TILING_ERROR, ex->opType + ": " + ctx.error)); }
    if (!hostErr.empty()) { return bail(Fail(ACLNN_ERR_INNER_TILING_ERROR, ex->opType + ": " + hostErr)); }
    if (ctx.tilingData->TwinOverflowed()) {
        return bail(Fail(ACLNN_ERR_INNER_TILING_ERROR, ex->opType + ": tiling data exceeds the capacity of " +
                                                          std::to_string(kTilingCapacity) + " bytes"));
    }
    if (ctx.blockDim == 0 || ctx.blockDim > 65535) {
        return bail(Fail(ACLNN_ERR_INNER_TILING_ERROR, ex->opType + ": TilingFunc set block dim " +
                                                          std::to_string(ctx.blockDim) + "; must be in [1, 65535]"));
    }
    ex->tiling.assign(tilingBuf.begin(), tilingBuf.begin() + ctx.tilingData->GetDataSize());
    ex->workspaceSize = ctx.workspaceRequested ? ctx.workspaces.GetData()[0] : 0;
    ex->blockDim = ctx.blockDim;
    ex->tilingKey = ctx.tilingKey;
    ex->tiled = true;
    *workspaceSize = ex->workspaceSize;
    return ACLNN_SUCCESS;
}

namespace {
// Copies a strided view into a dense row-major buffer (what AutoContiguous does before the kernel).
std::vector<uint8_t> MakeContiguous(const aclTensor *t) {
    const int es = twin_rt::DataTypeBytes(t->dtype);
    std::vector<uint8_t> out(static_cast<size_t>(t->Numel()) * es);
    const size_t rank = t->viewDims.size();
    std::vector<int64_t> idx(rank, 0);
    const uint8_t *src = static_cast<const uint8_t *>(t->data);
    for (int64_t n = 0; n < t->Numel(); ++n) {
        int64_t off = t->offset;
        for (size_t d = 0; d < rank; ++d) { off += idx[d] * t->strides[d]; }
        std::memcpy(out.data() + n * es, src + off * es, es);
        for (size_t d = rank; d-- > 0;) {
            if (++idx[d] < t->viewDims[d]) { break; }
            idx[d] = 0;
        }
    }
    return out;
}
}  // namespace

aclnnStatus TwinNnopbaseRunWithWorkspace(aclOpExecutor *ex, aclrtStream stream, void *workspace,
                                         uint64_t workspaceSize) {
    (void)stream;  // the twin runs synchronously on the calling thread's virtual cores
    if (ex == nullptr) { return Fail(ACLNN_ERR_PARAM_NULLPTR, "executor != nullptr"); }
    if (!IsLive(ex)) { return Fail(ACLNN_ERR_PARAM_INVALID, "executor is not live (executors are single-use)"); }
    std::unique_ptr<aclOpExecutor, void (*)(aclOpExecutor *)> guard(ex, [](aclOpExecutor *e) { Destroy(e); });
    if (!ex->tiled) { return Fail(ACLNN_ERR_PARAM_INVALID, ex->opType + ": executor was not prepared by GetWorkspaceSize"); }
    if (ex->workspaceSize > 0 && workspace == nullptr) {
        return Fail(ACLNN_ERR_PARAM_NULLPTR, ex->opType + ": workspace is null but " +
                                                 std::to_string(ex->workspaceSize) + " bytes are required");
    }
    if (workspaceSize < ex->workspaceSize) {
        return Fail(ACLNN_ERR_PARAM_INVALID, ex->opType + ": workspaceSize " + std::to_string(workspaceSize) +
                                                 " < required " + std::to_string(ex->workspaceSize));
    }
    KernelInfo kernel;
    {
        std::lock_guard<std::mutex> lock(RegistryMutex());
        auto it = Kernels().find(ex->opType);
        if (it == Kernels().end()) {
            return Fail(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, ex->opType + ": no kernel registered for this op type");
        }
        kernel = it->second;
    }
    const size_t nIn = ex->inputs.size(), nOut = ex->outputs.size();
    if (kernel.numArgs != nIn + nOut + 2) {
        return Fail(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, ex->opType + ": kernel " + kernel.name + " takes " +
                                                           std::to_string(kernel.numArgs) + " arguments, the OpDef needs " +
                                                           std::to_string(nIn + nOut + 2));
    }
#ifdef TWIN_HAVE_LAUNCHER
    std::vector<std::vector<uint8_t>> temps;  // contiguous copies of non-contiguous inputs
    temps.reserve(nIn);
    std::vector<void *> args(nIn + nOut + 2, nullptr);
    struct Region { const void *base; size_t bytes; std::string name; };
    std::vector<Region> regions;
    auto addRegion = [&regions](const void *base, size_t bytes, const std::string &name) {
        if (base == nullptr || bytes == 0) { return; }
        for (const auto &r : regions) {
            if (r.base == base) { return; }  // same buffer passed twice (e.g. in-place)
        }
        regions.push_back({base, bytes, name});
    };
    const auto &inDefs = ex->op->GetInputs();
    const auto &outDefs = ex->op->GetOutputs();
    for (size_t i = 0; i < nIn + nOut; ++i) {
        const bool isIn = i < nIn;
        const aclTensor *t = isIn ? ex->inputs[i] : ex->outputs[i - nIn];
        if (t == nullptr) { continue; }
        const std::string name = ParamName(isIn ? inDefs[i] : outDefs[i - nIn]);
        const size_t bytes = static_cast<size_t>(t->Numel()) * twin_rt::DataTypeBytes(t->dtype);
        void *p;
        if (t->IsContiguous()) {
            p = static_cast<uint8_t *>(t->data) + t->offset * twin_rt::DataTypeBytes(t->dtype);
        } else {
            temps.push_back(MakeContiguous(t));
            p = temps.back().data();
        }
        args[i] = p;
        addRegion(p, bytes, name);
    }
    std::vector<uint8_t> tilingGm(ex->tiling.empty() ? 8 : ex->tiling.size(), 0);
    std::memcpy(tilingGm.data(), ex->tiling.data(), ex->tiling.size());
    args[nIn + nOut] = ex->workspaceSize > 0 ? workspace : nullptr;
    args[nIn + nOut + 1] = tilingGm.data();
    addRegion(args[nIn + nOut], ex->workspaceSize, "workspace");
    addRegion(tilingGm.data(), ex->tiling.size(), "tiling");

    twin::LaunchOptions opt{};
    opt.blockDim = ex->blockDim;
    opt.tilingKey = ex->tilingKey;
    opt.workspace = args[nIn + nOut];  // GetSysWorkSpacePtr() in the kernel
    switch (kernel.type) {
        case 0: opt.type = twin::KernelType::AIV_ONLY; break;
        case 1: opt.type = twin::KernelType::AIC_ONLY; break;
        case 2: opt.type = twin::KernelType::MIX_AIV_1_0; break;
        case 3: opt.type = twin::KernelType::MIX_AIC_1_1; break;
        case 4: opt.type = twin::KernelType::MIX_AIC_1_2; break;
        default:
            return Fail(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, ex->opType + ": unsupported kernel type " + std::to_string(kernel.type));
    }
    for (const auto &r : regions) { twin::RegisterGm(r.base, r.bytes, r.name.c_str()); }
    TwinKernelEntry entry = kernel.entry;
    void **argv = args.data();
    const twin::LaunchResult res = twin::Launch(opt, [entry, argv]() { entry(argv); });
    for (const auto &r : regions) { twin::UnregisterGm(r.base); }
    g_lastLaunch = res;
    if (!res.ok) {
        return Fail(ACLNN_ERR_RUNTIME_ERROR, ex->opType + ": kernel " + kernel.name + " failed: " + res.error);
    }
    twin_rt::ClearErrMsg();
    return ACLNN_SUCCESS;
#else
    (void)workspace;
    return Fail(ACLNN_ERR_RUNTIME_ERROR, ex->opType + ": the twin kernel launcher (twin/launch.h) is not built yet");
#endif
}

uint32_t twinLastLaunchCores() {
#ifdef TWIN_HAVE_KERNEL_RUNTIME
    return static_cast<uint32_t>(g_lastLaunch.cores.size());
#else
    return 0;
#endif
}

double twinLastLaunchWallSeconds() {
#ifdef TWIN_HAVE_KERNEL_RUNTIME
    return g_lastLaunch.wallSeconds;
#else
    return 0.0;
#endif
}

int twinLastLaunchCounter(const char *counter, uint64_t *total) {
    if (counter == nullptr || total == nullptr) { return -1; }
    *total = 0;
#ifdef TWIN_HAVE_KERNEL_RUNTIME
    const std::string n = counter;
    for (const auto &c : g_lastLaunch.cores) {
        if (n == "gmToUbBytes") { *total += c.gmToUbBytes; }
        else if (n == "ubToGmBytes") { *total += c.ubToGmBytes; }
        else if (n == "ubToUbBytes") { *total += c.ubToUbBytes; }
        else if (n == "gmAtomicBytes") { *total += c.gmAtomicBytes; }
        else if (n == "vecElemOps") { *total += c.vecElemOps; }
        else if (n == "vecInstrs") { *total += c.vecInstrs; }
        else if (n == "cubeMacs") { *total += c.cubeMacs; }
        else if (n == "scalarGmOps") { *total += c.scalarGmOps; }
        else if (n == "scalarUbOps") { *total += c.scalarUbOps; }
        else if (n == "syncWaitNs") { *total += c.syncWaitNs; }
        else if (n == "ubPeakBytes") { *total = c.ubPeakBytes > *total ? c.ubPeakBytes : *total; }
        else { return -1; }
    }
    return 0;
#else
    return -1;
#endif
}

void twinSetPlatform(const char *soc, uint32_t aivCores) {
#ifdef TWIN_HAVE_LAUNCHER
    twin::SetPlatform(soc == nullptr ? std::string("Ascend910B2") : std::string(soc), aivCores);
#else
    (void)soc;
    (void)aivCores;
#endif
}
}  // extern "C"
