// OpDef API bodies, the OP_ADD factory and the twin's OpDef validation (see register/op_def.h).
#include <map>
#include <set>
#include "op_def_validate.h"
#include "register/op_def_factory.h"

namespace ops {
namespace {
OpParamDef &GetOrAdd(std::deque<OpParamDef> &params, const char *name) {
    for (auto &p : params) {
        if (p.GetParamName() == ge::AscendString(name)) { return p; }
    }
    params.emplace_back(name);
    return params.back();
}
}  // namespace

OpParamDef &OpAICoreConfig::Input(const char *name) { return GetOrAdd(inputs_, name); }
OpParamDef &OpAICoreConfig::Output(const char *name) { return GetOrAdd(outputs_, name); }

OpAICoreDef &OpAICoreDef::AddConfig(const char *soc) {
    OpAICoreConfig cfg(soc);
    return AddConfig(soc, cfg);
}
OpAICoreDef &OpAICoreDef::AddConfig(const char *soc, OpAICoreConfig &aicoreConfig) {
    if (configs_.find(soc) == configs_.end()) { configOrder_.emplace_back(soc); }
    configs_[soc] = aicoreConfig;
    return *this;
}

OpParamDef &OpDef::Input(const char *name) { return GetOrAdd(inputs_, name); }
OpParamDef &OpDef::Output(const char *name) { return GetOrAdd(outputs_, name); }
OpAttrDef &OpDef::Attr(const char *name) {
    for (auto &a : attrs_) {
        if (a.GetName() == ge::AscendString(name)) { return a; }
    }
    attrs_.emplace_back(name);
    return attrs_.back();
}

namespace {
struct FactoryState {
    std::map<std::string, OpDefCreator> creators;
    std::vector<ge::AscendString> order;
    std::vector<std::string> duplicates;
};
FactoryState &State() {
    static FactoryState s;
    return s;
}
}  // namespace

int OpDefFactory::OpDefRegister(const char *name, OpDefCreator creator) {
    auto &s = State();
    if (s.creators.count(name) != 0) {
        s.duplicates.emplace_back(name);
        return 0;
    }
    s.creators[name] = creator;
    s.order.emplace_back(name);
    return 0;
}
std::vector<ge::AscendString> &OpDefFactory::GetAllOp() { return State().order; }
bool OpDefFactory::Exists(const char *name) { return State().creators.count(name) != 0; }
OpDef OpDefFactory::OpDefCreate(const char *name) {
    auto it = State().creators.find(name);
    if (it == State().creators.end()) { return OpDef(name); }
    return it->second(name);
}
}  // namespace ops

namespace twin_host {
const std::vector<std::string> &DuplicateOpRegistrations() { return ops::State().duplicates; }

namespace {
std::string Where(ops::OpDef &op, const char *kind, const ops::OpParamDef &p) {
    return std::string(op.GetOpType().GetString()) + " " + kind + " '" + p.GetParamName().GetString() + "'";
}
}  // namespace

bool AcceptsDtype(const ops::OpParamDef &p, size_t j, ge::DataType dtype) {
    const auto &t = p.GetDataTypes();
    if (p.IsDtypeList()) {
        for (auto d : t) { if (d == dtype) { return true; } }
        return false;
    }
    return j < t.size() && t[j] == dtype;
}
bool IsPlainFormat(ge::Format f) {
    switch (f) {
        case ge::FORMAT_ND: case ge::FORMAT_NCHW: case ge::FORMAT_NHWC: case ge::FORMAT_NCDHW: case ge::FORMAT_NDHWC:
        case ge::FORMAT_NCL: case ge::FORMAT_NC: case ge::FORMAT_CN: case ge::FORMAT_HWCN: case ge::FORMAT_CHWN:
        case ge::FORMAT_DHWCN: case ge::FORMAT_DHWNC: case ge::FORMAT_MD: return true;
        default: return false;
    }
}
bool AcceptsFormat(const ops::OpParamDef &p, size_t j, ge::Format format) {
    const auto &f = p.GetFormats();
    auto match = [format](ge::Format declared) {
        return declared == format || (declared == ge::FORMAT_ND && IsPlainFormat(format));
    };
    if (f.empty()) { return match(ge::FORMAT_ND); }
    if (p.IsFormatList()) {
        for (auto d : f) { if (match(d)) { return true; } }
        return false;
    }
    return j < f.size() && match(f[j]);
}

size_t CombinationCount(const std::vector<ops::OpParamDef> &inputs, const std::vector<ops::OpParamDef> &outputs) {
    size_t n = 1;
    for (const auto *group : {&inputs, &outputs}) {
        for (const auto &p : *group) {
            if (!p.IsDtypeList() && p.GetDataTypes().size() > n) { n = p.GetDataTypes().size(); }
            if (!p.IsFormatList() && p.GetFormats().size() > n) { n = p.GetFormats().size(); }
        }
    }
    return n;
}

// Follow(name[, type]): a param without its own lists takes the dtype (ALL/DTYPE) and format (ALL/FORMAT)
// lists of the param it follows (searched among inputs, then outputs).
static std::string ResolveFollow(ops::OpDef &op, std::vector<ops::OpParamDef> &inputs,
                                 std::vector<ops::OpParamDef> &outputs) {
    auto find = [&](const ge::AscendString &name) -> const ops::OpParamDef * {
        for (const auto *group : {&inputs, &outputs}) {
            for (const auto &p : *group) {
                if (p.GetParamName() == name) { return &p; }
            }
        }
        return nullptr;
    };
    for (int pass = 0; pass < 4; ++pass) {  // follow chains up to 4 deep
        for (auto *group : {&inputs, &outputs}) {
            for (auto &p : *group) {
                if (p.GetFollowType() == ops::FollowType::INVALID_TYPE) { continue; }
                const ops::OpParamDef *src = find(p.GetFollowName());
                if (src == nullptr || src == &p) {
                    return std::string(op.GetOpType().GetString()) + " param '" + p.GetParamName().GetString() +
                           "': Follow(\"" + p.GetFollowName().GetString() + "\") names no input or output";
                }
                const bool dt = p.GetFollowType() == ops::FollowType::ALL || p.GetFollowType() == ops::FollowType::DTYPE;
                const bool fm = p.GetFollowType() == ops::FollowType::ALL || p.GetFollowType() == ops::FollowType::FORMAT;
                if (dt && p.GetDataTypes().empty() && !src->GetDataTypes().empty()) {
                    if (src->IsDtypeList()) { p.DataTypeList(src->GetDataTypes()); } else { p.DataType(src->GetDataTypes()); }
                }
                if (fm && p.GetFormats().empty() && !src->GetFormats().empty()) {
                    if (src->IsFormatList()) { p.FormatList(src->GetFormats()); } else { p.Format(src->GetFormats()); }
                }
            }
        }
    }
    return "";
}

static std::string ValidateParams(ops::OpDef &op, const std::vector<ops::OpParamDef> &inputs,
                                  const std::vector<ops::OpParamDef> &outputs) {
    const size_t n = CombinationCount(inputs, outputs);
    const char *kinds[2] = {"input", "output"};
    const std::vector<ops::OpParamDef> *groups[2] = {&inputs, &outputs};
    for (int g = 0; g < 2; ++g) {
        for (const auto &p : *groups[g]) {
            if (p.GetDataTypes().empty()) {
                return Where(op, kinds[g], p) + ": DataType list is empty; every input/output needs DataType({...})";
            }
            if (!p.IsDtypeList() && p.GetDataTypes().size() != n) {
                return Where(op, kinds[g], p) + ": DataType list has " + std::to_string(p.GetDataTypes().size()) +
                       " entries, expected " + std::to_string(n) +
                       " (dtype and format lists are positional pairs and must have the same length for all params)";
            }
            if (!p.GetFormats().empty() && !p.IsFormatList() && p.GetFormats().size() != n) {
                return Where(op, kinds[g], p) + ": Format list has " + std::to_string(p.GetFormats().size()) +
                       " entries, expected " + std::to_string(n) + " (one format per DataType entry)";
            }
            if (p.GetParamType() != ops::REQUIRED && p.GetParamType() != ops::OPTIONAL) {
                return Where(op, kinds[g], p) + ": ParamType DYNAMIC/VIRTUAL/IGNORE is not supported by the twin";
            }
        }
    }
    return "";
}

std::string ValidateOpDef(ops::OpDef &op) {
    std::vector<ops::OpParamDef> ins(op.GetInputs().begin(), op.GetInputs().end());
    std::vector<ops::OpParamDef> outs(op.GetOutputs().begin(), op.GetOutputs().end());
    if (outs.empty()) { return std::string(op.GetOpType().GetString()) + ": an op needs at least one Output"; }
    std::string err = ResolveFollow(op, ins, outs);
    if (!err.empty()) { return err; }
    err = ValidateParams(op, ins, outs);
    if (!err.empty()) { return err; }
    std::set<std::string> names;
    for (const auto *group : {&ins, &outs}) {
        for (const auto &p : *group) {
            if (!names.insert(p.GetParamName().GetString()).second) {
                return std::string(op.GetOpType().GetString()) + ": param name '" + p.GetParamName().GetString() +
                       "' is used by both an input and an output (Ref params are not supported by the twin)";
            }
        }
    }
    for (const auto &a : op.GetAttrs()) {
        const std::string where = std::string(op.GetOpType().GetString()) + " attr '" + a.GetName().GetString() + "'";
        if (a.GetKind() == ops::OpAttrDef::Kind::UNSET) { return where + ": no value type (Bool/Int/Float/ListInt/...) declared"; }
        if (a.GetAttrType() == ops::OPTIONAL && !a.HasDefault()) {
            return where + ": an OPTIONAL attr must set a default value (CANN: \"属性类型设置为OPTIONAL时必须调用该类接口设置默认值\")";
        }
        if (!names.insert(a.GetName().GetString()).second) { return where + ": name already used by a param or attr"; }
    }
    if (op.AICore().GetTiling() == nullptr) { return std::string(op.GetOpType().GetString()) + ": AICore().SetTiling(...) missing"; }
    if (op.AICore().GetConfigOrder().empty()) {
        return std::string(op.GetOpType().GetString()) + ": AICore().AddConfig(<soc>) missing (e.g. \"ascend910b\")";
    }
    for (const auto &soc : op.AICore().GetConfigOrder()) {
        std::vector<ops::OpParamDef> ci, co;
        ParamsForComputeUnit(op, soc.GetString(), ci, co);
        err = ValidateParams(op, ci, co);
        if (!err.empty()) { return err + " [AddConfig " + soc.GetString() + "]"; }
    }
    return "";
}

bool ParamsForComputeUnit(ops::OpDef &op, const std::string &computeUnit, std::vector<ops::OpParamDef> &inputs,
                          std::vector<ops::OpParamDef> &outputs) {
    auto &cfgs = op.AICore().GetAICoreConfigs();
    auto it = cfgs.find(computeUnit.c_str());
    inputs.assign(op.GetInputs().begin(), op.GetInputs().end());
    outputs.assign(op.GetOutputs().begin(), op.GetOutputs().end());
    if (it == cfgs.end()) { return false; }
    auto merge = [](std::vector<ops::OpParamDef> &base, const std::deque<ops::OpParamDef> &over) {
        for (const auto &o : over) {
            for (auto &b : base) {
                if (b.GetParamName() == o.GetParamName()) { b = o; }
            }
        }
    };
    merge(inputs, it->second.GetInputs());
    merge(outputs, it->second.GetOutputs());
    ResolveFollow(op, inputs, outputs);
    return true;
}
}  // namespace twin_host
