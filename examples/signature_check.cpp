// Compile-time proof that the generated aclnn declarations have exactly the C signature of CANN's
// built-in aclnnDeformableConv2dBackward (cann-conventions §2.5): same parameter types, same order
// (inputs -> attrs -> outputs -> workspaceSize, executor), outputs as non-const aclTensor *.
// Part of the twin build of the example only (an older CANN opbuild may emit `const aclTensor *`
// outputs, which is ABI-identical in C but a different C++ type).
#include <type_traits>

#include "aclnn_deformable_conv2d_backward.h"

namespace {
using BuiltinGetWorkspaceSize = aclnnStatus (*)(const aclTensor *input, const aclTensor *gradOutput,
                                                const aclTensor *offsetOut, const aclTensor *weight,
                                                const aclTensor *offset, const aclIntArray *kernelSize,
                                                const aclIntArray *stride, const aclIntArray *padding,
                                                const aclIntArray *dilation, int64_t groups,
                                                int64_t deformableGroups, bool modulated, aclTensor *gradInput,
                                                aclTensor *gradWeight, aclTensor *gradOffset, aclTensor *gradBias,
                                                uint64_t *workspaceSize, aclOpExecutor **executor);
using BuiltinExecute = aclnnStatus (*)(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       aclrtStream stream);

static_assert(std::is_same<decltype(&aclnnDeformableConv2dBackwardGetWorkspaceSize), BuiltinGetWorkspaceSize>::value,
              "generated aclnnDeformableConv2dBackwardGetWorkspaceSize differs from the built-in's C signature");
static_assert(std::is_same<decltype(&aclnnDeformableConv2dBackward), BuiltinExecute>::value,
              "generated aclnnDeformableConv2dBackward differs from the built-in's C signature");
}  // namespace
