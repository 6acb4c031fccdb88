// Contract validation of aclnnDeformableConv2dBackward (op-semantics.md §6.5, steps 1-6).
//
// One C++ implementation, used by the TilingFunc (through ArgsFromTilingContext) and exposed to
// Python through ascend_dcn._C.check_backward_args. Its rules are kept identical to
// python/ascend_dcn/validation.py (tests/python/test_aclnn_validation.py runs both on the same
// battery of invalid argument sets and compares status code and argument name).
//
// Invariants / conventions:
//   * Steps run in the contract's order; the first failing rule wins:
//       1 not-null (161001)  2 dtype  3 format  4 attrs  5 dimensions  6 shapes   (161002)
//     Step 0 of the built-in (arch == DAV_3510) is deliberately skipped: this package exists to
//     run on Atlas A2/A3.
//   * Our extension: modulated == false is allowed; offset and gradOffset then have
//     2*dg*KH*KW channels ([dx | dy]) instead of 3*dg*KH*KW ([dx | dy | mask]).
//   * Empty tensors (any dimension 0) are rejected with 161002 "empty tensors are not supported"
//     at the start of step 6, tensors in the order of step 5 then gradBias (the built-in documents
//     "不支持空Tensor" — empty tensors unsupported — for every tensor).
//   * Message format: "<argument>: <rule>; expected <x>, got <y>" using the aclnn parameter names
//     (input, gradOutput, offsetOut, weight, offset, kernelSize, stride, padding, dilation, groups,
//     deformableGroups, modulated, gradInput, gradWeight, gradOffset, gradBias).
//   * Shapes are logical (view) shapes, NCHW order for 4-D tensors; attrs are in the aclnn order:
//     stride/dilation [1, 1, H, W], padding [top, bottom, left, right], kernelSize [KH, KW].
#ifndef DEFORMABLE_CONV2D_BACKWARD_CHECK_H
#define DEFORMABLE_CONV2D_BACKWARD_CHECK_H

#include <cstdint>
#include <string>
#include <vector>

#include "graph/types.h"

namespace gert {
class TilingContext;
}

namespace dcn {

constexpr int32_t kStatusSuccess = 0;
constexpr int32_t kStatusParamNullptr = 161001;  // ACLNN_ERR_PARAM_NULLPTR
constexpr int32_t kStatusParamInvalid = 161002;  // ACLNN_ERR_PARAM_INVALID

struct TensorDesc {
    bool present = false;
    ge::DataType dtype = ge::DT_FLOAT;
    ge::Format format = ge::FORMAT_NCHW;
    std::vector<int64_t> shape;
};

struct BackwardArgs {
    TensorDesc input, gradOutput, offsetOut, weight, offset, gradInput, gradWeight, gradOffset, gradBias;
    bool hasKernelSize = false, hasStride = false, hasPadding = false, hasDilation = false;
    std::vector<int64_t> kernelSize, stride, padding, dilation;
    int64_t groups = 1, deformableGroups = 1;
    bool modulated = true;
};

struct CheckResult {
    int32_t status = kStatusSuccess;
    std::string argument;
    std::string message;
    bool ok() const { return status == 0; }
};

// Runs steps 1-6 in order; returns the first violation (status 161001/161002) or success.
CheckResult CheckBackwardArgs(const BackwardArgs &a);

// Builds BackwardArgs from a tiling context of the DeformableConv2dBackward OpDef:
// inputs 0..4 = input, grad_output, offset_out, weight, offset; outputs 0..3 = grad_input,
// grad_weight, grad_offset, grad_bias; attrs by declaration index 0..6 = kernel_size, stride,
// padding, dilation, groups, deformable_groups, modulated. A tensor whose desc or shape is
// unavailable is "not present"; a ListInt attr that is unavailable is "not given".
BackwardArgs ArgsFromTilingContext(gert::TilingContext *ctx);

// Output spatial size of the contract (op-semantics §4); may be <= 0 for invalid geometry.
int64_t OutputExtent(int64_t in, int64_t padBefore, int64_t padAfter, int64_t kernel, int64_t dilation,
                     int64_t stride);

}  // namespace dcn

#endif  // DEFORMABLE_CONV2D_BACKWARD_CHECK_H
