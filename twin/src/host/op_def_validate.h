// Twin-internal: checks of an OpDef as the CANN opbuild would make them, and the merged view of the
// params for one SoC (OpAICoreConfig overrides replace op-level params of the same name).
#pragma once
#include <string>
#include <vector>
#include "register/op_def.h"

namespace twin_host {
// "" when valid; otherwise the first problem, naming the op, the param and the rule.
std::string ValidateOpDef(ops::OpDef &op);
// Params effective on a compute unit (e.g. "ascend910b"); false if the op has no AddConfig for it.
bool ParamsForComputeUnit(ops::OpDef &op, const std::string &computeUnit, std::vector<ops::OpParamDef> &inputs,
                          std::vector<ops::OpParamDef> &outputs);
// Number of supported dtype/format combinations (length of the positional lists; 1 when all empty).
size_t CombinationCount(const std::vector<ops::OpParamDef> &inputs, const std::vector<ops::OpParamDef> &outputs);
// Whether combination j of a param accepts a dtype / format. DataTypeList/FormatList params accept any
// entry of their list in every combination; no Format list means FORMAT_ND. A declared FORMAT_ND accepts
// every plain (non-fractal) format, as nnopbase does for ND ops (twin rule, see twin/README.md).
bool AcceptsDtype(const ops::OpParamDef &p, size_t j, ge::DataType dtype);
bool AcceptsFormat(const ops::OpParamDef &p, size_t j, ge::Format format);
bool IsPlainFormat(ge::Format format);
// Every OpDef registered with OP_ADD that was declared more than once (registration conflicts).
const std::vector<std::string> &DuplicateOpRegistrations();
}  // namespace twin_host
