// OpDef registry of the twin: declaration order, dtype/format lists, attrs, SoC configs, validation.
#include <string>
#include "check.h"
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

static bool Contains(const std::string &s, const std::string &sub) { return s.find(sub) != std::string::npos; }

TEST_CASE(records_declaration_order_and_lists) {
    CHECK(ops::OpDefFactory::Exists("RegistryProbe"));
    ops::OpDef op = ops::OpDefFactory::OpDefCreate("RegistryProbe");
    CHECK(std::string(op.GetOpType().GetString()) == "RegistryProbe");
    CHECK(op.GetInputs().size() == 2);
    CHECK(std::string(op.GetInputs()[0].GetParamName().GetString()) == "x");
    CHECK(std::string(op.GetInputs()[1].GetParamName().GetString()) == "bias");
    CHECK(op.GetInputs()[1].GetParamType() == ops::OPTIONAL);
    CHECK(op.GetInputs()[0].GetAutoContiguous());
    CHECK(!op.GetInputs()[1].GetAutoContiguous());
    CHECK(op.GetInputs()[0].GetDataTypes().size() == 3);
    CHECK(op.GetInputs()[0].GetDataTypes()[2] == ge::DT_BF16);
    CHECK(op.GetOutputs().size() == 1);
    // Attr order is the order of Attr() calls, interleaved Output() calls do not count.
    CHECK(op.GetAttrs().size() == 4);
    CHECK(std::string(op.GetAttrs()[0].GetName().GetString()) == "kernel_size");
    CHECK(std::string(op.GetAttrs()[2].GetName().GetString()) == "modulated");
    CHECK(op.GetAttrs()[0].GetKind() == ops::OpAttrDef::Kind::LIST_INT);
    CHECK(op.GetAttrs()[0].IsRequired());
    CHECK(op.GetAttrs()[1].GetDefaultInt() == 1);
    CHECK(op.GetAttrs()[2].GetDefaultBool() == true);
    CHECK(op.GetAttrs()[3].GetDefaultFloat() == 0.5f);
    CHECK(op.GetInferShape() == ge::ProbeInferShape);
    CHECK(op.GetInferDataType() == nullptr);
    CHECK(op.AICore().GetTiling() == optiling::ProbeTiling);
    CHECK(op.AICore().GetConfigOrder().size() == 2);
    CHECK(twin_host::ValidateOpDef(op).empty());
}

TEST_CASE(enum_values_match_cann) {
    CHECK(ops::IGNORE == 0 && ops::OPTIONAL == 1 && ops::REQUIRED == 2 && ops::DYNAMIC == 3 && ops::VIRTUAL == 4);
    CHECK(ge::DT_FLOAT == 0 && ge::DT_FLOAT16 == 1 && ge::DT_INT32 == 3 && ge::DT_INT64 == 9 && ge::DT_BF16 == 27);
    CHECK(ge::FORMAT_NCHW == 0 && ge::FORMAT_NHWC == 1 && ge::FORMAT_ND == 2 && ge::FORMAT_NCDHW == 30);
    CHECK(ge::GRAPH_SUCCESS == 0u && ge::GRAPH_FAILED == 0xFFFFFFFFu);
}

TEST_CASE(soc_config_overrides_params) {
    ops::OpDef op = ops::OpDefFactory::OpDefCreate("RegistryProbe");
    std::vector<ops::OpParamDef> ins, outs;
    CHECK(twin_host::ParamsForComputeUnit(op, "ascend910_93", ins, outs));
    CHECK(ins.size() == 2 && ins[0].GetDataTypes()[0] == ge::DT_FLOAT);
    CHECK(twin_host::ParamsForComputeUnit(op, "ascend910b", ins, outs));
    CHECK(ins[0].GetDataTypes()[0] == ge::DT_FLOAT16);
    CHECK(!twin_host::ParamsForComputeUnit(op, "ascend310p", ins, outs));
    CHECK(twin_host::ComputeUnitOfSoc("Ascend910B2") == "ascend910b");
    CHECK(twin_host::ComputeUnitOfSoc("Ascend910_9392") == "ascend910_93");
}

TEST_CASE(positional_list_lengths_are_checked) {
    ops::OpDef op = ops::OpDefFactory::OpDefCreate("MismatchedLists");
    const std::string err = twin_host::ValidateOpDef(op);
    CHECK(Contains(err, "input 'x'"));
    CHECK(Contains(err, "Format list has 2 entries, expected 3"));
}

TEST_CASE(optional_attr_needs_default) {
    ops::OpDef op = ops::OpDefFactory::OpDefCreate("OptionalAttrNoDefault");
    const std::string err = twin_host::ValidateOpDef(op);
    CHECK(Contains(err, "attr 'eps'"));
    CHECK(Contains(err, "OPTIONAL"));
}

TEST_CASE(follow_copies_lists) {
    ops::OpDef op = ops::OpDefFactory::OpDefCreate("FollowProbe");
    CHECK(twin_host::ValidateOpDef(op).empty());
    std::vector<ops::OpParamDef> ins, outs;
    CHECK(twin_host::ParamsForComputeUnit(op, "ascend910b", ins, outs));
    CHECK(outs[0].GetDataTypes().size() == 2 && outs[0].GetDataTypes()[1] == ge::DT_FLOAT16);
    CHECK(outs[0].GetFormats().size() == 2 && outs[0].GetFormats()[1] == ge::FORMAT_NCHW);
    CHECK(outs[1].GetDataTypes()[0] == ge::DT_INT32 && outs[1].GetFormats()[1] == ge::FORMAT_NCHW);
}

TEST_CASE(format_matching_rules) {
    ops::OpParamDef nd("x");
    nd.DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_NCHW});
    CHECK(twin_host::AcceptsDtype(nd, 0, ge::DT_FLOAT));
    CHECK(!twin_host::AcceptsDtype(nd, 0, ge::DT_FLOAT16));
    CHECK(twin_host::AcceptsFormat(nd, 0, ge::FORMAT_NCHW));          // ND accepts plain formats
    CHECK(!twin_host::AcceptsFormat(nd, 0, ge::FORMAT_FRACTAL_NZ));   // but not private ones
    CHECK(twin_host::AcceptsFormat(nd, 1, ge::FORMAT_NCHW));
    CHECK(!twin_host::AcceptsFormat(nd, 1, ge::FORMAT_NHWC));         // NCHW is exact
}

TEST_MAIN()
