// gert contexts of the twin: instance vs IR indices with an absent optional input, typed attrs and
// their misuse, GetWorkspaceSizes' one-block rule, new-style GetTilingData<T>, infer contexts.
#include <string>
#include <vector>
#include <gtest/gtest.h>

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

TEST(TilingContext, instance_and_ir_indices)
{
    twin_host::ContextData d;
    std::vector<uint8_t> buf;
    Build(d, buf);
    gert::TilingContext ctx(&d);
    EXPECT_EQ(ctx.GetInputShape(0)->GetOriginShape(), (gert::Shape{2, 3}));
    EXPECT_EQ(ctx.GetInputShape(1)->GetStorageShape(), (gert::Shape{4})); // instance 1 = w (bias absent)
    EXPECT_EQ(ctx.GetInputShape(2), nullptr);
    EXPECT_EQ(ctx.GetOptionalInputShape(1), nullptr); // IR 1 = bias
    EXPECT_EQ(ctx.GetOptionalInputShape(2)->GetOriginShape().GetShapeSize(), 4);
    EXPECT_EQ(ctx.GetInputDesc(1)->GetDataType(), ge::DT_FLOAT);
    EXPECT_EQ(ctx.GetOptionalInputDesc(1), nullptr);
    EXPECT_EQ(ctx.GetOutputShape(0)->GetOriginShape().GetDim(1), 3);
    EXPECT_EQ(ctx.GetOutputDesc(0)->GetStorageFormat(), ge::FORMAT_ND);
    EXPECT_EQ(ctx.GetComputeNodeInputNum(), 2);
    // Only ValueDepend inputs expose host data to tiling; others have no readable address.
    const gert::Tensor *w = ctx.GetInputTensor(1);
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->GetData<float>(), nullptr);
    EXPECT_EQ(w->GetShapeSize(), 4);
    EXPECT_EQ(ctx.GetOptionalInputTensor(1), nullptr);
    EXPECT_EQ(std::string(ctx.GetNodeType()), "Probe");
}

TEST(TilingContext, typed_attrs_and_misuse)
{
    twin_host::ContextData d;
    std::vector<uint8_t> buf;
    Build(d, buf);
    gert::TilingContext ctx(&d);
    const gert::RuntimeAttrs *attrs = ctx.GetAttrs();
    EXPECT_EQ(attrs->GetAttrNum(), 4);
    const gert::TypedContinuousVector<int64_t> *ks = attrs->GetListInt(0);
    ASSERT_NE(ks, nullptr);
    ASSERT_EQ(ks->GetSize(), 3u);
    EXPECT_EQ(ks->GetData()[2], 3);
    EXPECT_EQ(*attrs->GetInt(1), 7);
    EXPECT_EQ(*attrs->GetBool(2), true);
    EXPECT_EQ(*attrs->GetFloat(3), 0.25f);
    EXPECT_EQ(*attrs->GetAttrPointer<int64_t>(1), 7);
    EXPECT_TRUE(d.error.empty());
    EXPECT_EQ(attrs->GetInt(2), nullptr); // modulated is a Bool
    EXPECT_NE(d.error.find("attr 'modulated' is declared Bool, not Int"), std::string::npos);
    d.error.clear();
    EXPECT_EQ(attrs->GetInt(9), nullptr);
    EXPECT_NE(d.error.find("out of range"), std::string::npos);
}

TEST(TilingContext, tiling_outputs_and_workspace_rule)
{
    twin_host::ContextData d;
    std::vector<uint8_t> buf;
    Build(d, buf);
    gert::TilingContext ctx(&d);
    EXPECT_EQ(ctx.SetBlockDim(24), ge::GRAPH_SUCCESS);
    EXPECT_EQ(ctx.GetBlockDim(), 24);
    EXPECT_EQ(d.blockDim, 24);
    ctx.SetTilingKey(2);
    EXPECT_EQ(d.tilingKey, 2);
    EXPECT_EQ(ctx.GetWorkspaceSizes(2), nullptr);
    EXPECT_NE(d.error.find("only one workspace block"), std::string::npos);
    size_t *ws = ctx.GetWorkspaceSizes(1);
    EXPECT_NE(ws, nullptr);
    ws[0] = 4096;
    EXPECT_EQ(d.workspaces.GetData()[0], 4096);
    struct NewStyle { int64_t a; uint32_t b; };
    NewStyle *t = ctx.GetTilingData<NewStyle>();
    EXPECT_NE(t, nullptr);
    EXPECT_EQ(ctx.GetRawTilingData()->GetDataSize(), sizeof(NewStyle));
    ctx.GetRawTilingData()->SetDataSize(1000);  // beyond the 256-byte capacity
    EXPECT_TRUE(ctx.GetRawTilingData()->TwinOverflowed());
    EXPECT_EQ(ctx.GetPlatformInfo(), &d.platform);
}

TEST(TilingContext, infer_contexts)
{
    twin_host::ContextData d;
    std::vector<uint8_t> buf;
    Build(d, buf);
    gert::InferShapeContext shapeCtx(&d);
    EXPECT_EQ(*shapeCtx.GetInputShape(1), (gert::Shape{4}));
    gert::Shape *out = shapeCtx.GetOutputShape(0);
    EXPECT_NE(out, nullptr);
    *out = *shapeCtx.GetInputShape(0);
    out->AppendDim(5);
    EXPECT_EQ(d.outputShapes[0], (gert::Shape{2, 3, 5}));
    EXPECT_EQ(shapeCtx.GetOutputShape(1), nullptr);
    gert::InferDataTypeContext dtCtx(&d);
    EXPECT_EQ(dtCtx.GetInputDataType(0), ge::DT_FLOAT16);
    EXPECT_EQ(dtCtx.GetOptionalInputDataType(1), ge::DT_UNDEFINED);
    EXPECT_EQ(dtCtx.SetOutputDataType(0, ge::DT_BF16), ge::GRAPH_SUCCESS);
    EXPECT_EQ(dtCtx.GetOutputDataType(0), ge::DT_BF16);
    EXPECT_EQ(dtCtx.SetOutputDataType(3, ge::DT_BF16), ge::GRAPH_FAILED);
}

TEST(TilingContext, shape_helpers)
{
    gert::Shape s{2, 3, 4};
    EXPECT_EQ(s.GetDimNum(), 3);
    EXPECT_EQ(s.GetShapeSize(), 24);
    s.SetDim(1, 5);
    EXPECT_EQ(s.GetShapeSize(), 40);
    EXPECT_EQ(s.GetDim(30), gert::Shape::kInvalidDimValue);
    gert::Shape big{INT64_MAX, 2};
    EXPECT_EQ(big.GetShapeSize(), gert::Shape::kInvalidDimValue);
    gert::Shape scalar;
    EXPECT_TRUE(scalar.IsScalar());
    EXPECT_EQ(scalar.GetShapeSize(), 1);
}
