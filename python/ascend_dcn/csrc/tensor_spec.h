// Description of one tensor argument as the Python side passes it, and its mapping to aclnn.
//   (data_ptr, shape, strides, dtype_name, format_name)
//   data_ptr : address of element [0, 0, ...] (storage offset already applied), device or host;
//   shape    : view shape (logical), strides in ELEMENTS (torch convention), same length;
//   dtype    : "float32" | "float16" | "bfloat16" | "float64" | "int8" | "uint8" | "int16" |
//              "int32" | "int64" | "bool"  (values of aclDataType / ge::DataType, identical numbers);
//   format   : "NCHW" | "NHWC" | "ND".
// aclCreateTensor gets offset 0 and tensorData = data_ptr; storage dims = the view shape when the
// strides are the contiguous ones, else one dimension covering the furthest element the view
// reaches (the way torch_npu's op-plugin describes strided tensors).
#ifndef ASCEND_DCN_TENSOR_SPEC_H
#define ASCEND_DCN_TENSOR_SPEC_H

#include <cstdint>
#include <string>
#include <vector>

#include "aclnn/acl_meta.h"
#include "graph/types.h"

namespace ascend_dcn {

struct TensorSpec {
    uintptr_t data = 0;
    std::vector<int64_t> shape;
    std::vector<int64_t> strides;
    std::string dtype;
    std::string format;
};

// Throw std::invalid_argument naming the unknown value.
aclDataType AclDataTypeFromName(const std::string &name);
aclFormat AclFormatFromName(const std::string &name);
ge::DataType GeDataTypeFromName(const std::string &name);
ge::Format GeFormatFromName(const std::string &name);

bool IsContiguous(const std::vector<int64_t> &shape, const std::vector<int64_t> &strides);
// Storage dims handed to aclCreateTensor (see the header comment).
std::vector<int64_t> StorageDims(const std::vector<int64_t> &shape, const std::vector<int64_t> &strides);

}  // namespace ascend_dcn

#endif  // ASCEND_DCN_TENSOR_SPEC_H
