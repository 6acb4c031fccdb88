// TensorFlow graph-mode parser plugin for DeformableConv2dBackward (msOpGen convention).
//
// A TF graph node whose op type is "DeformableConv2dBackward" is mapped 1:1 onto our OpType.
// AutoMappingByOpFn copies the node's inputs, outputs and attributes by name, so the TF op must
// use the OpDef names (op_host/deformable_conv2d_backward_def.cpp):
//   inputs  input, grad_output, offset_out, weight, offset
//   attrs   kernel_size, stride, padding, dilation (list(int)), groups, deformable_groups (int),
//           modulated (bool)
//   outputs grad_input, grad_weight, grad_offset, grad_bias
// Built only on Ascend hosts (needs CANN's register/register.h); not part of the CPU twin.
#include "register/register.h"

namespace domi {
REGISTER_CUSTOM_OP("DeformableConv2dBackward")
    .FrameworkType(TENSORFLOW)
    .OriginOpType("DeformableConv2dBackward")
    .ParseParamsByOperatorFn(AutoMappingByOpFn);
}  // namespace domi
