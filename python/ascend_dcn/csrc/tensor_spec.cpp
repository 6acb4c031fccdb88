// Name tables and storage description for tensor arguments — see tensor_spec.h.
#include "tensor_spec.h"

#include <stdexcept>

namespace ascend_dcn {
namespace {

struct DtypeEntry {
    const char *name;
    int value;  // aclDataType == ge::DataType numbering for these entries
};

// Official numbers: ACL_FLOAT 0, ACL_FLOAT16 1, ACL_INT8 2, ACL_INT32 3, ACL_UINT8 4, ACL_INT16 6,
// ACL_INT64 9, ACL_DOUBLE 11, ACL_BOOL 12, ACL_BF16 27 (ge::DT_* use the same values).
const DtypeEntry kDtypes[] = {{"float32", 0}, {"float16", 1}, {"int8", 2},     {"int32", 3}, {"uint8", 4},
                              {"int16", 6},   {"int64", 9},   {"float64", 11}, {"bool", 12}, {"bfloat16", 27}};

struct FormatEntry {
    const char *name;
    int value;  // aclFormat == ge::Format numbering: NCHW 0, NHWC 1, ND 2
};
const FormatEntry kFormats[] = {{"NCHW", 0}, {"NHWC", 1}, {"ND", 2}};

int DtypeValue(const std::string &name)
{
    for (const auto &e : kDtypes) {
        if (name == e.name) {
            return e.value;
        }
    }
    throw std::invalid_argument("unknown dtype name '" + name +
                                "' (expected float32, float16, bfloat16, float64, int8, uint8, int16, int32, "
                                "int64 or bool)");
}

int FormatValue(const std::string &name)
{
    for (const auto &e : kFormats) {
        if (name == e.name) {
            return e.value;
        }
    }
    throw std::invalid_argument("unknown format name '" + name + "' (expected NCHW, NHWC or ND)");
}

}  // namespace

aclDataType AclDataTypeFromName(const std::string &name) { return static_cast<aclDataType>(DtypeValue(name)); }
aclFormat AclFormatFromName(const std::string &name) { return static_cast<aclFormat>(FormatValue(name)); }
ge::DataType GeDataTypeFromName(const std::string &name) { return static_cast<ge::DataType>(DtypeValue(name)); }
ge::Format GeFormatFromName(const std::string &name) { return static_cast<ge::Format>(FormatValue(name)); }

bool IsContiguous(const std::vector<int64_t> &shape, const std::vector<int64_t> &strides)
{
    if (shape.size() != strides.size()) {
        return false;
    }
    int64_t expected = 1;
    for (size_t i = shape.size(); i-- > 0;) {
        if (shape[i] != 1 && strides[i] != expected) {
            return false;
        }
        expected *= shape[i];
    }
    return true;
}

std::vector<int64_t> StorageDims(const std::vector<int64_t> &shape, const std::vector<int64_t> &strides)
{
    if (IsContiguous(shape, strides)) {
        return shape;
    }
    int64_t extent = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] == 0) {
            return {0};
        }
        extent += (shape[i] - 1) * strides[i];
    }
    return {extent};
}

}  // namespace ascend_dcn
