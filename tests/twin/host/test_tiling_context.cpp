// gert contexts of the twin: instance vs IR indices with an absent optional input, typed attrs and
// their misuse, GetWorkspaceSizes' one-block rule, new-style GetTilingData<T>, infer contexts.
#include <string>
#include <vector>
#include "check.h"
#include "exe_graph/runtime/infer_datatype_context.h"
#include "exe_graph/runtime/infer_shape_context.h"
#include "exe_graph/runtime/tiling_context.h"
#include "host/context_data.h"

namespace {
using Kind = ops::OpAttrDef::Kind;

void AddSlot(std::vector<twin_host::TensorSlot> &slots, const char *name, bool present, gert::Shape shape,
             ge::DataType dt) {
    twin_host::TensorSlot s;
    s.name = name;
    s.present = present;
    s.shape.MutableOriginShape() = shape;
    s.shape.MutableStorageShape() = shape;
    s.desc.SetDataType(dt);
    s.desc.SetOriginFormat(ge::FORMAT_ND);
    s.desc.SetStorageFormat(ge::FORMAT_ND);
    s.tensor.TwinSet(s.shape, dt, ge::FORMAT_ND, nullptr, 0);
    slots.push_back(s);
}

void AddAttr(twin_host::ContextData &d, const char *name, Kind k) {
    auto v = std::make_unique<twin_host::AttrValue>();
    v->name = name;
    v->kind = k;
    v->i = 7;
    v->b = true;
    v->f = 0.25f;
    v->listInt = gert::TypedContinuousVector<int64_t>({1, 2, 3});
    d.attrStore.values.push_back(std::move(v));
}

// x [2,3] fp16, bias (absent optional), w [4] fp32; output y [2,3].
void Build(twin_host::ContextData &d, std::vector<uint8_t> &tilingBuf) {
    AddSlot(d.inputs, "x", true, gert::Shape{2, 3}, ge::DT_FLOAT16);
    AddSlot(d.inputs, "bias", false, gert::Shape{}, ge::DT_UNDEFINED);
    AddSlot(d.inputs, "w", true, gert::Shape{4}, ge::DT_FLOAT);
    AddSlot(d.outputs, "y", true, gert::Shape{2, 3}, ge::DT_FLOAT16);
    AddAttr(d, "kernel_size", Kind::LIST_INT);
    AddAttr(d, "groups", Kind::INT);
    AddAttr(d, "modulated", Kind::BOOL);
    AddAttr(d, "alpha", Kind::FLOAT);
    d.InitAttrs();
    d.nodeType = "Probe";
    tilingBuf.assign(256, 0);
    d.tilingData.reset(new gert::TilingData(tilingBuf.data(), tilingBuf.size()));
}
}  // namespace

TEST_CASE(instance_and_ir_indices) {
    twin_host::ContextData d;
    std::vector<uint8_t> buf;
    Build(d, buf);
    gert::TilingContext ctx(&d);
    CHECK(ctx.GetInputShape(0)->GetOriginShape() == (gert::Shape{2, 3}));
    CHECK(ctx.GetInputShape(1)->GetStorageShape() == (gert::Shape{4}));   // instance 1 = w (bias absent)
    CHECK(ctx.GetInputShape(2) == nullptr);
    CHECK(ctx.GetOptionalInputShape(1) == nullptr);                       // IR 1 = bias
    CHECK(ctx.GetOptionalInputShape(2)->GetOriginShape().GetShapeSize() == 4);
    CHECK(ctx.GetInputDesc(1)->GetDataType() == ge::DT_FLOAT);
    CHECK(ctx.GetOptionalInputDesc(1) == nullptr);
    CHECK(ctx.GetOutputShape(0)->GetOriginShape().GetDim(1) == 3);
    CHECK(ctx.GetOutputDesc(0)->GetStorageFormat() == ge::FORMAT_ND);
    CHECK(ctx.GetComputeNodeInputNum() == 2);
    // Only ValueDepend inputs expose host data to tiling; others have no readable address.
    const gert::Tensor *w = ctx.GetInputTensor(1);
    CHECK(w != nullptr && w->GetData<float>() == nullptr && w->GetShapeSize() == 4);
    CHECK(ctx.GetOptionalInputTensor(1) == nullptr);
    CHECK(std::string(ctx.GetNodeType()) == "Probe");
}

TEST_CASE(typed_attrs_and_misuse) {
    twin_host::ContextData d;
    std::vector<uint8_t> buf;
    Build(d, buf);
    gert::TilingContext ctx(&d);
    const gert::RuntimeAttrs *attrs = ctx.GetAttrs();
    CHECK(attrs->GetAttrNum() == 4);
    const gert::TypedContinuousVector<int64_t> *ks = attrs->GetListInt(0);
    CHECK(ks != nullptr && ks->GetSize() == 3 && ks->GetData()[2] == 3);
    CHECK(*attrs->GetInt(1) == 7);
    CHECK(*attrs->GetBool(2) == true);
    CHECK(*attrs->GetFloat(3) == 0.25f);
    CHECK(*attrs->GetAttrPointer<int64_t>(1) == 7);
    CHECK(d.error.empty());
    CHECK(attrs->GetInt(2) == nullptr);  // modulated is a Bool
    CHECK(d.error.find("attr 'modulated' is declared Bool, not Int") != std::string::npos);
    d.error.clear();
    CHECK(attrs->GetInt(9) == nullptr);
    CHECK(d.error.find("out of range") != std::string::npos);
}

TEST_CASE(tiling_outputs_and_workspace_rule) {
    twin_host::ContextData d;
    std::vector<uint8_t> buf;
    Build(d, buf);
    gert::TilingContext ctx(&d);
    CHECK(ctx.SetBlockDim(24) == ge::GRAPH_SUCCESS);
    CHECK(ctx.GetBlockDim() == 24 && d.blockDim == 24);
    ctx.SetTilingKey(2);
    CHECK(d.tilingKey == 2);
    CHECK(ctx.GetWorkspaceSizes(2) == nullptr);
    CHECK(d.error.find("only one workspace block") != std::string::npos);
    size_t *ws = ctx.GetWorkspaceSizes(1);
    CHECK(ws != nullptr);
    ws[0] = 4096;
    CHECK(d.workspaces.GetData()[0] == 4096);
    struct NewStyle { int64_t a; uint32_t b; };
    NewStyle *t = ctx.GetTilingData<NewStyle>();
    CHECK(t != nullptr && ctx.GetRawTilingData()->GetDataSize() == sizeof(NewStyle));
    ctx.GetRawTilingData()->SetDataSize(1000);  // beyond the 256-byte capacity
    CHECK(ctx.GetRawTilingData()->TwinOverflowed());
    CHECK(ctx.GetPlatformInfo() == &d.platform);
}

TEST_CASE(infer_contexts) {
    twin_host::ContextData d;
    std::vector<uint8_t> buf;
    Build(d, buf);
    gert::InferShapeContext shapeCtx(&d);
    CHECK(*shapeCtx.GetInputShape(1) == (gert::Shape{4}));
    gert::Shape *out = shapeCtx.GetOutputShape(0);
    CHECK(out != nullptr);
    *out = *shapeCtx.GetInputShape(0);
    out->AppendDim(5);
    CHECK(d.outputShapes[0] == (gert::Shape{2, 3, 5}));
    CHECK(shapeCtx.GetOutputShape(1) == nullptr);
    gert::InferDataTypeContext dtCtx(&d);
    CHECK(dtCtx.GetInputDataType(0) == ge::DT_FLOAT16);
    CHECK(dtCtx.GetOptionalInputDataType(1) == ge::DT_UNDEFINED);
    CHECK(dtCtx.SetOutputDataType(0, ge::DT_BF16) == ge::GRAPH_SUCCESS);
    CHECK(dtCtx.GetOutputDataType(0) == ge::DT_BF16);
    CHECK(dtCtx.SetOutputDataType(3, ge::DT_BF16) == ge::GRAPH_FAILED);
}

TEST_CASE(shape_helpers) {
    gert::Shape s{2, 3, 4};
    CHECK(s.GetDimNum() == 3 && s.GetShapeSize() == 24);
    s.SetDim(1, 5);
    CHECK(s.GetShapeSize() == 40);
    CHECK(s.GetDim(30) == gert::Shape::kInvalidDimValue);
    gert::Shape big{INT64_MAX, 2};
    CHECK(big.GetShapeSize() == gert::Shape::kInvalidDimValue);
    gert::Shape scalar;
    CHECK(scalar.IsScalar() && scalar.GetShapeSize() == 1);
}

TEST_MAIN()
