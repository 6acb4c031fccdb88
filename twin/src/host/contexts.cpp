// gert context accessors of the twin (see exe_graph/runtime/*.h and context_data.h).
#include <string>
#include "context_data.h"
#include "exe_graph/runtime/infer_datatype_context.h"
#include "exe_graph/runtime/infer_shape_context.h"
#include "exe_graph/runtime/tiling_context.h"

namespace twin_host {
static const TensorSlot *ByInstance(const std::vector<TensorSlot> &slots, size_t index) {
    size_t seen = 0;
    for (const auto &s : slots) {
        if (!s.present) { continue; }
        if (seen == index) { return &s; }
        ++seen;
    }
    return nullptr;
}
const TensorSlot *ContextData::InputByInstance(size_t index) const { return ByInstance(inputs, index); }
const TensorSlot *ContextData::OutputByInstance(size_t index) const { return ByInstance(outputs, index); }

}  // namespace twin_host

namespace gert {
using twin_host::ContextData;
using twin_host::TensorSlot;

// ---- ExtendedKernelContext
const CompileTimeTensorDesc *ExtendedKernelContext::GetInputDesc(size_t index) const {
    const TensorSlot *s = data_->InputByInstance(index);
    return s == nullptr ? nullptr : &s->desc;
}
const CompileTimeTensorDesc *ExtendedKernelContext::GetOptionalInputDesc(size_t irIndex) const {
    if (irIndex >= data_->inputs.size() || !data_->inputs[irIndex].present) { return nullptr; }
    return &data_->inputs[irIndex].desc;
}
const CompileTimeTensorDesc *ExtendedKernelContext::GetRequiredInputDesc(size_t irIndex) const {
    return GetOptionalInputDesc(irIndex);
}
const CompileTimeTensorDesc *ExtendedKernelContext::GetOutputDesc(size_t index) const {
    const TensorSlot *s = data_->OutputByInstance(index);
    return s == nullptr ? nullptr : &s->desc;
}
size_t ExtendedKernelContext::GetComputeNodeInputNum() const {
    size_t n = 0;
    for (const auto &s : data_->inputs) { n += s.present ? 1 : 0; }
    return n;
}
size_t ExtendedKernelContext::GetComputeNodeOutputNum() const {
    size_t n = 0;
    for (const auto &s : data_->outputs) { n += s.present ? 1 : 0; }
    return n;
}
const RuntimeAttrs *ExtendedKernelContext::GetAttrs() const { return data_->attrs.get(); }
const ge::char_t *ExtendedKernelContext::GetNodeType() const { return data_->nodeType.c_str(); }
const ge::char_t *ExtendedKernelContext::GetNodeName() const { return data_->nodeName.c_str(); }

// ---- TilingContext
const StorageShape *TilingContext::GetInputShape(size_t index) const {
    const TensorSlot *s = data_->InputByInstance(index);
    return s == nullptr ? nullptr : &s->shape;
}
const StorageShape *TilingContext::GetOptionalInputShape(size_t irIndex) const {
    if (irIndex >= data_->inputs.size() || !data_->inputs[irIndex].present) { return nullptr; }
    return &data_->inputs[irIndex].shape;
}
const StorageShape *TilingContext::GetRequiredInputShape(size_t irIndex) const { return GetOptionalInputShape(irIndex); }
const StorageShape *TilingContext::GetOutputShape(size_t index) const {
    const TensorSlot *s = data_->OutputByInstance(index);
    return s == nullptr ? nullptr : &s->shape;
}
const Tensor *TilingContext::GetInputTensor(size_t index) const {
    const TensorSlot *s = data_->InputByInstance(index);
    return s == nullptr ? nullptr : &s->tensor;
}
const Tensor *TilingContext::GetOptionalInputTensor(size_t irIndex) const {
    if (irIndex >= data_->inputs.size() || !data_->inputs[irIndex].present) { return nullptr; }
    return &data_->inputs[irIndex].tensor;
}
const Tensor *TilingContext::GetRequiredInputTensor(size_t irIndex) const { return GetOptionalInputTensor(irIndex); }
ge::graphStatus TilingContext::SetTilingKey(uint64_t tilingKey) { data_->tilingKey = tilingKey; return ge::GRAPH_SUCCESS; }
uint64_t TilingContext::GetTilingKey() const { return data_->tilingKey; }
ge::graphStatus TilingContext::SetSimdNumBlocks(uint32_t numBlocks) { data_->blockDim = numBlocks; return ge::GRAPH_SUCCESS; }
uint32_t TilingContext::GetBlockDim() const { return data_->blockDim; }
ge::graphStatus TilingContext::SetScheduleMode(uint32_t scheduleMode) { data_->scheduleMode = scheduleMode; return ge::GRAPH_SUCCESS; }
uint32_t TilingContext::GetScheduleMode() const { return data_->scheduleMode; }
ge::graphStatus TilingContext::SetNeedAtomic(bool atomic) { data_->needAtomic = atomic; return ge::GRAPH_SUCCESS; }
bool TilingContext::NeedAtomic() const { return data_->needAtomic; }
TilingData *TilingContext::GetRawTilingData() { return data_->tilingData.get(); }
size_t *TilingContext::GetWorkspaceSizes(size_t workspaceCount) {
    if (workspaceCount != 1) {
        data_->RecordError("TilingContext::GetWorkspaceSizes(" + std::to_string(workspaceCount) +
                           "): only one workspace block is supported (CANN: \"当前限制使用一块\")");
        return nullptr;
    }
    data_->workspaceRequested = true;
    return data_->workspaces.MutableData();
}
size_t TilingContext::GetWorkspaceNum() const { return data_->workspaceRequested ? 1 : 0; }
fe::PlatFormInfos *TilingContext::GetPlatformInfo() const { return &data_->platform; }

// ---- InferShapeContext
const Shape *InferShapeContext::GetInputShape(size_t index) const {
    const TensorSlot *s = data_->InputByInstance(index);
    return s == nullptr ? nullptr : &s->shape.GetOriginShape();
}
const Shape *InferShapeContext::GetOptionalInputShape(size_t irIndex) const {
    if (irIndex >= data_->inputs.size() || !data_->inputs[irIndex].present) { return nullptr; }
    return &data_->inputs[irIndex].shape.GetOriginShape();
}
const Shape *InferShapeContext::GetRequiredInputShape(size_t irIndex) const { return GetOptionalInputShape(irIndex); }
Shape *InferShapeContext::GetOutputShape(size_t index) {
    if (data_->outputShapes.size() < data_->outputs.size()) { data_->outputShapes.resize(data_->outputs.size()); }
    size_t seen = 0;
    for (size_t ir = 0; ir < data_->outputs.size(); ++ir) {
        if (!data_->outputs[ir].present) { continue; }
        if (seen == index) { return &data_->outputShapes[ir]; }
        ++seen;
    }
    return nullptr;
}

const Tensor *InferShapeContext::GetInputTensor(size_t index) const {
    const TensorSlot *s = data_->InputByInstance(index);
    return s == nullptr ? nullptr : &s->tensor;
}
const Tensor *InferShapeContext::GetOptionalInputTensor(size_t irIndex) const {
    if (irIndex >= data_->inputs.size() || !data_->inputs[irIndex].present) { return nullptr; }
    return &data_->inputs[irIndex].tensor;
}

// ---- InferDataTypeContext
ge::DataType InferDataTypeContext::GetInputDataType(size_t index) const {
    const TensorSlot *s = data_->InputByInstance(index);
    return s == nullptr ? ge::DT_UNDEFINED : s->desc.GetDataType();
}
ge::DataType InferDataTypeContext::GetOptionalInputDataType(size_t irIndex) const {
    if (irIndex >= data_->inputs.size() || !data_->inputs[irIndex].present) { return ge::DT_UNDEFINED; }
    return data_->inputs[irIndex].desc.GetDataType();
}
ge::DataType InferDataTypeContext::GetRequiredInputDataType(size_t irIndex) const { return GetOptionalInputDataType(irIndex); }
ge::DataType InferDataTypeContext::GetOutputDataType(size_t index) const {
    size_t seen = 0;
    for (size_t ir = 0; ir < data_->outputs.size(); ++ir) {
        if (!data_->outputs[ir].present) { continue; }
        if (seen == index) { return ir < data_->outputDtypes.size() ? data_->outputDtypes[ir] : ge::DT_UNDEFINED; }
        ++seen;
    }
    return ge::DT_UNDEFINED;
}
ge::graphStatus InferDataTypeContext::SetOutputDataType(size_t index, ge::DataType dataType) {
    if (data_->outputDtypes.size() < data_->outputs.size()) {
        data_->outputDtypes.resize(data_->outputs.size(), ge::DT_UNDEFINED);
    }
    size_t seen = 0;
    for (size_t ir = 0; ir < data_->outputs.size(); ++ir) {
        if (!data_->outputs[ir].present) { continue; }
        if (seen == index) { data_->outputDtypes[ir] = dataType; return ge::GRAPH_SUCCESS; }
        ++seen;
    }
    return ge::GRAPH_FAILED;
}

// ---- RuntimeAttrs
namespace {
using Kind = ops::OpAttrDef::Kind;
const char *KindName(Kind k) {
    switch (k) {
        case Kind::BOOL: return "Bool"; case Kind::FLOAT: return "Float"; case Kind::INT: return "Int";
        case Kind::STRING: return "String"; case Kind::LIST_BOOL: return "ListBool";
        case Kind::LIST_FLOAT: return "ListFloat"; case Kind::LIST_INT: return "ListInt"; default: return "unset";
    }
}
const twin_host::AttrValue *Typed(const twin_host::AttrStore *store, size_t index, Kind want, const char *api) {
    if (store == nullptr || index >= store->values.size()) {
        if (store != nullptr && store->errorSink != nullptr && store->errorSink->empty()) {
            *store->errorSink = std::string("RuntimeAttrs::") + api + "(" + std::to_string(index) +
                                "): attr index out of range (the op declares " +
                                std::to_string(store->values.size()) + " attrs)";
        }
        return nullptr;
    }
    const twin_host::AttrValue *v = store->values[index].get();
    if (v->kind != want) {
        if (store->errorSink != nullptr && store->errorSink->empty()) {
            *store->errorSink = std::string("RuntimeAttrs::") + api + "(" + std::to_string(index) + "): attr '" +
                                v->name + "' is declared " + KindName(v->kind) + ", not " + KindName(want);
        }
        return nullptr;
    }
    return v;
}
}  // namespace

const int64_t *RuntimeAttrs::GetInt(size_t index) const {
    auto v = Typed(store_, index, Kind::INT, "GetInt");
    return v == nullptr ? nullptr : &v->i;
}
const bool *RuntimeAttrs::GetBool(size_t index) const {
    auto v = Typed(store_, index, Kind::BOOL, "GetBool");
    return v == nullptr ? nullptr : &v->b;
}
const float *RuntimeAttrs::GetFloat(size_t index) const {
    auto v = Typed(store_, index, Kind::FLOAT, "GetFloat");
    return v == nullptr ? nullptr : &v->f;
}
const char *RuntimeAttrs::GetStr(size_t index) const {
    auto v = Typed(store_, index, Kind::STRING, "GetStr");
    return v == nullptr ? nullptr : v->s.c_str();
}
const TypedContinuousVector<int64_t> *RuntimeAttrs::GetListInt(size_t index) const {
    auto v = Typed(store_, index, Kind::LIST_INT, "GetListInt");
    return v == nullptr ? nullptr : &v->listInt;
}
const TypedContinuousVector<float> *RuntimeAttrs::GetListFloat(size_t index) const {
    auto v = Typed(store_, index, Kind::LIST_FLOAT, "GetListFloat");
    return v == nullptr ? nullptr : &v->listFloat;
}
size_t RuntimeAttrs::GetAttrNum() const { return store_ == nullptr ? 0 : store_->values.size(); }
const void *RuntimeAttrs::GetPointerByIndex(size_t index) const {
    if (store_ == nullptr || index >= store_->values.size()) { return nullptr; }
    const twin_host::AttrValue *v = store_->values[index].get();
    switch (v->kind) {
        case Kind::BOOL: return &v->b;
        case Kind::INT: return &v->i;
        case Kind::FLOAT: return &v->f;
        case Kind::STRING: return v->s.c_str();
        case Kind::LIST_INT: return &v->listInt;
        case Kind::LIST_FLOAT: return &v->listFloat;
        default: return nullptr;
    }
}
}  // namespace gert
