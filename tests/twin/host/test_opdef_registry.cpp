// OpDef registry of the twin: declaration order, dtype/format lists, attrs, SoC configs, validation.
#include <string>
#include <gtest/gtest.h>

#include "host/context_data.h"
#include "host/op_def_validate.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus ProbeTiling(gert::TilingContext *) { return ge::GRAPH_SUCCESS; }
}
namespace ge {
static graphStatus ProbeInferShape(gert::InferShapeContext *) { return GRAPH_SUCCESS; }
}

namespace ops {
class RegistryProbe : public OpDef {
public:
    explicit RegistryProbe(const char *name) : OpDef(name) {
        Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND}).AutoContiguous();
        Input("bias").ParamType(OPTIONAL).DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        Attr("kernel_size").AttrType(REQUIRED).ListInt();
        Attr("groups").AttrType(OPTIONAL).Int(1);
        Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        Attr("modulated").AttrType(OPTIONAL).Bool(true);
        Attr("alpha").AttrType(OPTIONAL).Float(0.5f);
        SetInferShape(ge::ProbeInferShape);
        OpAICoreConfig cfg93;
        cfg93.Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        AICore().SetTiling(optiling::ProbeTiling).AddConfig("ascend910b").AddConfig("ascend910_93", cfg93);
    }
};
OP_ADD(RegistryProbe);

class MismatchedLists : public OpDef {
public:
    explicit MismatchedLists(const char *name) : OpDef(name) {
        Input("x").DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        Output("y").DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16}).Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        AICore().SetTiling(optiling::ProbeTiling).AddConfig("ascend910b");
    }
};
OP_ADD(MismatchedLists);

class OptionalAttrNoDefault : public OpDef {
public:
    explicit OptionalAttrNoDefault(const char *name) : OpDef(name) {
        Input("x").DataType({ge::DT_FLOAT});
        Output("y").DataType({ge::DT_FLOAT});
        Attr("eps").AttrType(OPTIONAL).Float();
        AICore().SetTiling(optiling::ProbeTiling).AddConfig("ascend910b");
    }
};
OP_ADD(OptionalAttrNoDefault);
}  // namespace ops

namespace ops {
class FollowProbe : public OpDef {
public:
    explicit FollowProbe(const char *name) : OpDef(name) {
        Input("x").DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_NCHW});
        Output("y").Follow("x");
        Output("idx").DataType({ge::DT_INT32, ge::DT_INT32}).Follow("x", FollowType::FORMAT);
        AICore().SetTiling(optiling::ProbeTiling).AddConfig("ascend910b");
    }
};
OP_ADD(FollowProbe);
}  // namespace ops

// Success when `s` contains `sub`; the failure prints both.
static ::testing::AssertionResult Contains(const std::string& s, const std::string& sub)
{
    if (s.find(sub) != std::string::npos)
        return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "\"" << s << "\" does not contain \"" << sub << "\"";
}

TEST(OpdefRegistry, records_declaration_order_and_lists)
{
    EXPECT_TRUE(ops::OpDefFactory::Exists("RegistryProbe"));
    ops::OpDef op = ops::OpDefFactory::OpDefCreate("RegistryProbe");
    EXPECT_EQ(std::string(op.GetOpType().GetString()), "RegistryProbe");
    EXPECT_EQ(op.GetInputs().size(), 2);
    EXPECT_EQ(std::string(op.GetInputs()[0].GetParamName().GetString()), "x");
    EXPECT_EQ(std::string(op.GetInputs()[1].GetParamName().GetString()), "bias");
    EXPECT_EQ(op.GetInputs()[1].GetParamType(), ops::OPTIONAL);
    EXPECT_TRUE(op.GetInputs()[0].GetAutoContiguous());
    EXPECT_FALSE(op.GetInputs()[1].GetAutoContiguous());
    EXPECT_EQ(op.GetInputs()[0].GetDataTypes().size(), 3);
    EXPECT_EQ(op.GetInputs()[0].GetDataTypes()[2], ge::DT_BF16);
    EXPECT_EQ(op.GetOutputs().size(), 1);
    // Attr order is the order of Attr() calls, interleaved Output() calls do not count.
    EXPECT_EQ(op.GetAttrs().size(), 4);
    EXPECT_EQ(std::string(op.GetAttrs()[0].GetName().GetString()), "kernel_size");
    EXPECT_EQ(std::string(op.GetAttrs()[2].GetName().GetString()), "modulated");
    EXPECT_EQ(op.GetAttrs()[0].GetKind(), ops::OpAttrDef::Kind::LIST_INT);
    EXPECT_TRUE(op.GetAttrs()[0].IsRequired());
    EXPECT_EQ(op.GetAttrs()[1].GetDefaultInt(), 1);
    EXPECT_EQ(op.GetAttrs()[2].GetDefaultBool(), true);
    EXPECT_EQ(op.GetAttrs()[3].GetDefaultFloat(), 0.5f);
    EXPECT_EQ(op.GetInferShape(), ge::ProbeInferShape);
    EXPECT_EQ(op.GetInferDataType(), nullptr);
    EXPECT_EQ(op.AICore().GetTiling(), optiling::ProbeTiling);
    EXPECT_EQ(op.AICore().GetConfigOrder().size(), 2);
    EXPECT_TRUE(twin_host::ValidateOpDef(op).empty());
}

TEST(OpdefRegistry, enum_values_match_cann)
{
    EXPECT_EQ(ops::IGNORE, 0);
    EXPECT_EQ(ops::OPTIONAL, 1);
    EXPECT_EQ(ops::REQUIRED, 2);
    EXPECT_EQ(ops::DYNAMIC, 3);
    EXPECT_EQ(ops::VIRTUAL, 4);
    EXPECT_EQ(ge::DT_FLOAT, 0);
    EXPECT_EQ(ge::DT_FLOAT16, 1);
    EXPECT_EQ(ge::DT_INT32, 3);
    EXPECT_EQ(ge::DT_INT64, 9);
    EXPECT_EQ(ge::DT_BF16, 27);
    EXPECT_EQ(ge::FORMAT_NCHW, 0);
    EXPECT_EQ(ge::FORMAT_NHWC, 1);
    EXPECT_EQ(ge::FORMAT_ND, 2);
    EXPECT_EQ(ge::FORMAT_NCDHW, 30);
    EXPECT_EQ(ge::GRAPH_SUCCESS, 0u);
    EXPECT_EQ(ge::GRAPH_FAILED, 0xFFFFFFFFu);
}

TEST(OpdefRegistry, soc_config_overrides_params)
{
    ops::OpDef op = ops::OpDefFactory::OpDefCreate("RegistryProbe");
    std::vector<ops::OpParamDef> ins, outs;
    EXPECT_TRUE(twin_host::ParamsForComputeUnit(op, "ascend910_93", ins, outs));
    ASSERT_EQ(ins.size(), 2u);
    EXPECT_EQ(ins[0].GetDataTypes()[0], ge::DT_FLOAT);
    EXPECT_TRUE(twin_host::ParamsForComputeUnit(op, "ascend910b", ins, outs));
    EXPECT_EQ(ins[0].GetDataTypes()[0], ge::DT_FLOAT16);
    EXPECT_FALSE(twin_host::ParamsForComputeUnit(op, "ascend310p", ins, outs));
    EXPECT_EQ(twin_host::ComputeUnitOfSoc("Ascend910B2"), "ascend910b");
    EXPECT_EQ(twin_host::ComputeUnitOfSoc("Ascend910_9392"), "ascend910_93");
}

TEST(OpdefRegistry, positional_list_lengths_are_checked)
{
    ops::OpDef op = ops::OpDefFactory::OpDefCreate("MismatchedLists");
    const std::string err = twin_host::ValidateOpDef(op);
    EXPECT_TRUE(Contains(err, "input 'x'"));
    EXPECT_TRUE(Contains(err, "Format list has 2 entries, expected 3"));
}

TEST(OpdefRegistry, optional_attr_needs_default)
{
    ops::OpDef op = ops::OpDefFactory::OpDefCreate("OptionalAttrNoDefault");
    const std::string err = twin_host::ValidateOpDef(op);
    EXPECT_TRUE(Contains(err, "attr 'eps'"));
    EXPECT_TRUE(Contains(err, "OPTIONAL"));
}

TEST(OpdefRegistry, follow_copies_lists)
{
    ops::OpDef op = ops::OpDefFactory::OpDefCreate("FollowProbe");
    EXPECT_TRUE(twin_host::ValidateOpDef(op).empty());
    std::vector<ops::OpParamDef> ins, outs;
    EXPECT_TRUE(twin_host::ParamsForComputeUnit(op, "ascend910b", ins, outs));
    ASSERT_EQ(outs.size(), 2u);
    ASSERT_EQ(outs[0].GetDataTypes().size(), 2u);
    EXPECT_EQ(outs[0].GetDataTypes()[1], ge::DT_FLOAT16);
    ASSERT_EQ(outs[0].GetFormats().size(), 2u);
    EXPECT_EQ(outs[0].GetFormats()[1], ge::FORMAT_NCHW);
    ASSERT_GE(outs[1].GetFormats().size(), 2u);
    EXPECT_EQ(outs[1].GetDataTypes()[0], ge::DT_INT32);
    EXPECT_EQ(outs[1].GetFormats()[1], ge::FORMAT_NCHW);
}

TEST(OpdefRegistry, format_matching_rules)
{
    ops::OpParamDef nd("x");
    nd.DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_NCHW});
    EXPECT_TRUE(twin_host::AcceptsDtype(nd, 0, ge::DT_FLOAT));
    EXPECT_FALSE(twin_host::AcceptsDtype(nd, 0, ge::DT_FLOAT16));
    EXPECT_TRUE(twin_host::AcceptsFormat(nd, 0, ge::FORMAT_NCHW));        // ND accepts plain formats
    EXPECT_FALSE(twin_host::AcceptsFormat(nd, 0, ge::FORMAT_FRACTAL_NZ)); // but not private ones
    EXPECT_TRUE(twin_host::AcceptsFormat(nd, 1, ge::FORMAT_NCHW));
    EXPECT_FALSE(twin_host::AcceptsFormat(nd, 1, ge::FORMAT_NHWC)); // NCHW is exact
}
