// CPU twin of register/op_def.h (hicann/metadef inc/external/asc/register/op_def.h), namespace ops.
// Records what an op_host OpDef constructor declares, in declaration order:
//   inputs / outputs (OpParamDef: ParamType, DataType list, Format list, AutoContiguous, Follow ...),
//   attrs (OpAttrDef: AttrType, kind, default), infer functions, AICore tiling function and SoC configs.
// DataType and Format lists are positional pairs (entry j of every param forms supported combination j);
// twin_host::ValidateOpDef() checks the list lengths. Internals are std::deque so references returned by
// Input()/Output()/Attr() stay valid while more params are declared.
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>
#include "exe_graph/runtime/infer_datatype_context.h"
#include "exe_graph/runtime/infer_shape_context.h"
#include "exe_graph/runtime/tiling_context.h"
#include "graph/ascend_string.h"
#include "graph/ge_error_codes.h"
#include "graph/types.h"
#include "register/op_impl_registry.h"

namespace ops {
enum Option { IGNORE = 0, OPTIONAL = 1, REQUIRED = 2, DYNAMIC = 3, VIRTUAL = 4 };
enum class FollowType : uint32_t { ALL = 0, DTYPE = 1, FORMAT = 2, SHAPE = 3, INVALID_TYPE };
enum class DependScope : uint32_t { ALL = 0, TILING = 1, INVALID_SCOPE };

class OpParamDef {
public:
    explicit OpParamDef(const char *name) : name_(name) {}
    OpParamDef &ParamType(Option paramType) { paramType_ = paramType; return *this; }
    OpParamDef &DataType(std::vector<ge::DataType> types) { dataTypes_ = std::move(types); dtypeIsList_ = false; return *this; }
    OpParamDef &DataTypeList(std::vector<ge::DataType> types) { dataTypes_ = std::move(types); dtypeIsList_ = true; return *this; }
    OpParamDef &Format(std::vector<ge::Format> formats) { formats_ = std::move(formats); formatIsList_ = false; return *this; }
    OpParamDef &FormatList(std::vector<ge::Format> formats) { formats_ = std::move(formats); formatIsList_ = true; return *this; }
    OpParamDef &UnknownShapeFormat(std::vector<ge::Format> formats) { unknownShapeFormats_ = std::move(formats); return *this; }
    OpParamDef &ValueDepend(Option valueDepend) { valueDepend_ = valueDepend; return *this; }
    OpParamDef &ValueDepend(Option valueDepend, DependScope) { valueDepend_ = valueDepend; return *this; }
    OpParamDef &IgnoreContiguous() { ignoreContiguous_ = true; return *this; }
    OpParamDef &AutoContiguous() { autoContiguous_ = true; return *this; }
    OpParamDef &Follow(const char *paramName) { follow_ = paramName; followType_ = FollowType::ALL; return *this; }
    OpParamDef &Follow(const char *paramName, FollowType ftype) { follow_ = paramName; followType_ = ftype; return *this; }
    OpParamDef &Comment(const char *comment) { comment_ = comment; return *this; }

    const ge::AscendString &GetParamName() const { return name_; }
    Option GetParamType() const { return paramType_; }
    const std::vector<ge::DataType> &GetDataTypes() const { return dataTypes_; }
    const std::vector<ge::Format> &GetFormats() const { return formats_; }
    const std::vector<ge::Format> &GetUnknownShapeFormats() const { return unknownShapeFormats_; }
    bool IsDtypeList() const { return dtypeIsList_; }
    bool IsFormatList() const { return formatIsList_; }
    bool GetAutoContiguous() const { return autoContiguous_; }
    bool GetIgnoreContiguous() const { return ignoreContiguous_; }
    const ge::AscendString &GetFollowName() const { return follow_; }
    FollowType GetFollowType() const { return followType_; }
    bool IsValueDepend() const { return valueDepend_ != IGNORE; }

private:
    ge::AscendString name_;
    Option paramType_ = REQUIRED;
    std::vector<ge::DataType> dataTypes_;
    std::vector<ge::Format> formats_;
    std::vector<ge::Format> unknownShapeFormats_;
    bool dtypeIsList_ = false;
    bool formatIsList_ = false;
    bool autoContiguous_ = false;
    bool ignoreContiguous_ = false;
    Option valueDepend_ = IGNORE;
    ge::AscendString follow_;
    FollowType followType_ = FollowType::INVALID_TYPE;
    ge::AscendString comment_;
};

class OpAttrDef {
public:
    // Kind of value the attr holds (twin bookkeeping; CANN keeps the same information as strings).
    enum class Kind { UNSET, BOOL, FLOAT, INT, STRING, LIST_BOOL, LIST_FLOAT, LIST_INT };
    explicit OpAttrDef(const char *name) : name_(name) {}
    OpAttrDef &AttrType(Option attrType) { attrType_ = attrType; return *this; }
    OpAttrDef &Bool() { kind_ = Kind::BOOL; return *this; }
    OpAttrDef &Bool(bool v) { kind_ = Kind::BOOL; hasDefault_ = true; defBool_ = v; return *this; }
    OpAttrDef &Float() { kind_ = Kind::FLOAT; return *this; }
    OpAttrDef &Float(float v) { kind_ = Kind::FLOAT; hasDefault_ = true; defFloat_ = v; return *this; }
    OpAttrDef &Int() { kind_ = Kind::INT; return *this; }
    OpAttrDef &Int(int64_t v) { kind_ = Kind::INT; hasDefault_ = true; defInt_ = v; return *this; }
    OpAttrDef &String() { kind_ = Kind::STRING; return *this; }
    OpAttrDef &String(const char *v) { kind_ = Kind::STRING; hasDefault_ = true; defString_ = v; return *this; }
    OpAttrDef &ListBool() { kind_ = Kind::LIST_BOOL; return *this; }
    OpAttrDef &ListBool(std::vector<bool> v) { kind_ = Kind::LIST_BOOL; hasDefault_ = true; defListBool_ = std::move(v); return *this; }
    OpAttrDef &ListFloat() { kind_ = Kind::LIST_FLOAT; return *this; }
    OpAttrDef &ListFloat(std::vector<float> v) { kind_ = Kind::LIST_FLOAT; hasDefault_ = true; defListFloat_ = std::move(v); return *this; }
    OpAttrDef &ListInt() { kind_ = Kind::LIST_INT; return *this; }
    OpAttrDef &ListInt(std::vector<int64_t> v) { kind_ = Kind::LIST_INT; hasDefault_ = true; defListInt_ = std::move(v); return *this; }
    OpAttrDef &Version(uint32_t version) { version_ = version; return *this; }
    OpAttrDef &Comment(const char *comment) { comment_ = comment; return *this; }

    const ge::AscendString &GetName() const { return name_; }
    bool IsRequired() const { return attrType_ == REQUIRED; }
    Option GetAttrType() const { return attrType_; }
    Kind GetKind() const { return kind_; }
    bool HasDefault() const { return hasDefault_; }
    bool GetDefaultBool() const { return defBool_; }
    float GetDefaultFloat() const { return defFloat_; }
    int64_t GetDefaultInt() const { return defInt_; }
    const std::string &GetDefaultString() const { return defString_; }
    const std::vector<int64_t> &GetDefaultListInt() const { return defListInt_; }
    const std::vector<float> &GetDefaultListFloat() const { return defListFloat_; }
    const std::vector<bool> &GetDefaultListBool() const { return defListBool_; }

private:
    ge::AscendString name_;
    Option attrType_ = REQUIRED;
    Kind kind_ = Kind::UNSET;
    bool hasDefault_ = false;
    bool defBool_ = false;
    float defFloat_ = 0.0f;
    int64_t defInt_ = 0;
    std::string defString_;
    std::vector<int64_t> defListInt_;
    std::vector<float> defListFloat_;
    std::vector<bool> defListBool_;
    uint32_t version_ = 0;
    ge::AscendString comment_;
};

// Per-SoC override of inputs/outputs (params declared here replace the OpDef's params of the same name).
class OpAICoreConfig {
public:
    OpAICoreConfig() = default;
    explicit OpAICoreConfig(const char *soc) : soc_(soc) {}
    OpParamDef &Input(const char *name);
    OpParamDef &Output(const char *name);
    OpAICoreConfig &DynamicCompileStaticFlag(bool f) { flags_["dynamicCompileStatic"] = f; return *this; }
    OpAICoreConfig &DynamicFormatFlag(bool f) { flags_["dynamicFormat"] = f; return *this; }
    OpAICoreConfig &DynamicRankSupportFlag(bool f) { flags_["dynamicRankSupport"] = f; return *this; }
    OpAICoreConfig &DynamicShapeSupportFlag(bool f) { flags_["dynamicShapeSupport"] = f; return *this; }
    OpAICoreConfig &NeedCheckSupportFlag(bool f) { flags_["needCheckSupport"] = f; return *this; }
    OpAICoreConfig &PrecisionReduceFlag(bool f) { flags_["precisionReduce"] = f; return *this; }
    OpAICoreConfig &ExtendCfgInfo(const char *key, const char *value) { ext_[key] = value; return *this; }
    const std::deque<OpParamDef> &GetInputs() const { return inputs_; }
    const std::deque<OpParamDef> &GetOutputs() const { return outputs_; }

private:
    ge::AscendString soc_;
    std::deque<OpParamDef> inputs_;
    std::deque<OpParamDef> outputs_;
    std::map<std::string, bool> flags_;
    std::map<std::string, std::string> ext_;
};

class OpAICoreDef {
public:
    OpAICoreDef &SetTiling(gert::OpImplRegisterV2::TilingKernelFunc func) { tiling_ = func; return *this; }
    OpAICoreDef &AddConfig(const char *soc);
    OpAICoreDef &AddConfig(const char *soc, OpAICoreConfig &aicoreConfig);
    gert::OpImplRegisterV2::TilingKernelFunc &GetTiling() { return tiling_; }
    std::map<ge::AscendString, OpAICoreConfig> &GetAICoreConfigs() { return configs_; }
    // Twin: SoC names in the order AddConfig was called.
    const std::vector<ge::AscendString> &GetConfigOrder() const { return configOrder_; }

private:
    gert::OpImplRegisterV2::TilingKernelFunc tiling_ = nullptr;
    std::map<ge::AscendString, OpAICoreConfig> configs_;
    std::vector<ge::AscendString> configOrder_;
};

class OpDef {
public:
    explicit OpDef(const char *type) : opType_(type) {}
    OpParamDef &Input(const char *name);
    OpParamDef &Output(const char *name);
    OpAttrDef &Attr(const char *name);
    OpDef &SetInferShape(gert::OpImplRegisterV2::InferShapeKernelFunc func) { inferShape_ = func; return *this; }
    OpDef &SetInferShapeRange(gert::OpImplRegisterV2::InferShapeRangeKernelFunc func) { inferShapeRange_ = func; return *this; }
    OpDef &SetInferDataType(gert::OpImplRegisterV2::InferDataTypeKernelFunc func) { inferDataType_ = func; return *this; }
    gert::OpImplRegisterV2::InferShapeKernelFunc &GetInferShape() { return inferShape_; }
    gert::OpImplRegisterV2::InferShapeRangeKernelFunc &GetInferShapeRange() { return inferShapeRange_; }
    gert::OpImplRegisterV2::InferDataTypeKernelFunc &GetInferDataType() { return inferDataType_; }
    OpAICoreDef &AICore() { return aicore_; }
    ge::AscendString &GetOpType() { return opType_; }
    const std::deque<OpParamDef> &GetInputs() const { return inputs_; }
    const std::deque<OpParamDef> &GetOutputs() const { return outputs_; }
    const std::deque<OpAttrDef> &GetAttrs() const { return attrs_; }

private:
    ge::AscendString opType_;
    std::deque<OpParamDef> inputs_;
    std::deque<OpParamDef> outputs_;
    std::deque<OpAttrDef> attrs_;
    gert::OpImplRegisterV2::InferShapeKernelFunc inferShape_ = nullptr;
    gert::OpImplRegisterV2::InferShapeRangeKernelFunc inferShapeRange_ = nullptr;
    gert::OpImplRegisterV2::InferDataTypeKernelFunc inferDataType_ = nullptr;
    OpAICoreDef aicore_;
};
}  // namespace ops
