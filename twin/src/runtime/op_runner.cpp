// First aclnn phase of the twin nnopbase (generated aclnnXxxGetWorkspaceSize calls these): executor
// building, dtype/format check against the OpDef, TilingFunc with a gert::TilingContext.
// Status codes (doc "aclnn返回码"; mapping of each check in twin/README.md):
//   161001 null pointer, 161002 dtype/format/layout not supported, 561000 invalid OpDef,
//   561002 TilingFunc failed or violated a tiling rule, 561003 no OpDef / no SoC config.
#include <memory>
#include <sstream>
#include <string>
#include <vector>
#include "../host/context_data.h"
#include "../host/host_errors.h"
#include "../host/op_def_validate.h"
#include "aclnn/opdev/op_errno.h"
#include "executor.h"
#include "register/op_def_factory.h"

using twin_rt::AttrArg;
using twin_rt::Destroy;
using twin_rt::Fail;
using twin_rt::IsLive;
using twin_rt::ParamName;

namespace {
constexpr size_t kTilingCapacity = 64 * 1024;  // bytes available to TilingFunc (twin value)

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
    // ValueDepend inputs: CANN copies their data to the host for tiling; the twin's data is host memory.
    const bool hostData = p.IsValueDepend() && t->IsContiguous() && t->data != nullptr;
    const int es = twin_rt::DataTypeBytes(t->dtype);
    slot.tensor.TwinSet(slot.shape, static_cast<ge::DataType>(t->dtype), static_cast<ge::Format>(t->format),
                        hostData ? static_cast<const uint8_t *>(t->data) + t->offset * es : nullptr,
                        static_cast<size_t>(t->Numel()) * es);
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
    ex->inputSerials.assign(ex->inputs.size(), 0);
    ex->outputSerials.assign(ex->outputs.size(), 0);
    ex->attrs.assign(ex->op->GetAttrs().size(), AttrArg{});
    *executor = ex.release();
    twin_rt::MarkLive(*executor);
    return ACLNN_SUCCESS;
}

aclnnStatus TwinNnopbaseAddInput(aclOpExecutor *ex, const aclTensor *tensor, uint32_t irIndex) {
    if (!IsLive(ex) || irIndex >= ex->inputs.size()) { return Fail(ACLNN_ERR_INNER, "AddInput: bad executor or index"); }
    const uint64_t serial = twin_rt::TensorSerialIfLive(tensor);
    if (tensor != nullptr && serial == 0) {
        return Fail(ACLNN_ERR_PARAM_INVALID, ex->opType + ": input " + std::to_string(irIndex) +
                                                 " is not a live aclTensor (destroyed, or not made by aclCreateTensor)");
    }
    ex->inputs[irIndex] = tensor;
    ex->inputSerials[irIndex] = serial;
    return ACLNN_SUCCESS;
}
aclnnStatus TwinNnopbaseAddOutput(aclOpExecutor *ex, const aclTensor *tensor, uint32_t irIndex) {
    if (!IsLive(ex) || irIndex >= ex->outputs.size()) { return Fail(ACLNN_ERR_INNER, "AddOutput: bad executor or index"); }
    const uint64_t serial = twin_rt::TensorSerialIfLive(tensor);
    if (tensor != nullptr && serial == 0) {
        return Fail(ACLNN_ERR_PARAM_INVALID, ex->opType + ": output " + std::to_string(irIndex) +
                                                 " is not a live aclTensor (destroyed, or not made by aclCreateTensor)");
    }
    ex->outputs[irIndex] = tensor;
    ex->outputSerials[irIndex] = serial;
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
    if ((st = twin_rt::CheckAliasing(ex)) != ACLNN_SUCCESS) { return bail(st); }

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
    ex->scheduleMode = ctx.scheduleMode;
    ex->tiled = true;
    *workspaceSize = ex->workspaceSize;
    return ACLNN_SUCCESS;
}
}  // extern "C"
