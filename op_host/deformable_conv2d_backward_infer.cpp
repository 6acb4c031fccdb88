// Graph-mode shape and dtype inference of DeformableConv2dBackward (not used by the aclnn path).
//   inputs : 0 input [N,Cin,H,W], 1 grad_output [N,Cout,Ho,Wo], 2 offset_out, 3 weight
//            [Cout,Cin/groups,KH,KW], 4 offset [N,(3|2)*dg*KH*KW,Ho,Wo]
//   outputs: 0 grad_input = shape of input, 1 grad_weight = shape of weight,
//            2 grad_offset = shape of offset, 3 grad_bias = [Cout] (Cout = weight dim 0)
//   dtypes : outputs 0..2 take the dtype of input, grad_bias takes the dtype of grad_output.
// The contract checks themselves run in the TilingFunc (deformable_conv2d_backward_check.h).
#include "register/op_def_registry.h"

namespace ge {

constexpr size_t kInputIdx = 0;
constexpr size_t kGradOutputIdx = 1;
constexpr size_t kWeightIdx = 3;
constexpr size_t kOffsetIdx = 4;
constexpr size_t kGradInputIdx = 0;
constexpr size_t kGradWeightIdx = 1;
constexpr size_t kGradOffsetIdx = 2;
constexpr size_t kGradBiasIdx = 3;

graphStatus InferShapeDeformableConv2dBackward(gert::InferShapeContext *context)
{
    if (context == nullptr) {
        return GRAPH_FAILED;
    }
    const gert::Shape *input = context->GetInputShape(kInputIdx);
    const gert::Shape *weight = context->GetInputShape(kWeightIdx);
    const gert::Shape *offset = context->GetInputShape(kOffsetIdx);
    gert::Shape *gradInput = context->GetOutputShape(kGradInputIdx);
    gert::Shape *gradWeight = context->GetOutputShape(kGradWeightIdx);
    gert::Shape *gradOffset = context->GetOutputShape(kGradOffsetIdx);
    gert::Shape *gradBias = context->GetOutputShape(kGradBiasIdx);
    if (input == nullptr || weight == nullptr || offset == nullptr || gradInput == nullptr ||
        gradWeight == nullptr || gradOffset == nullptr || gradBias == nullptr) {
        return GRAPH_FAILED;
    }
    if (weight->GetDimNum() < 1) {
        return GRAPH_FAILED;  // Cout is weight dim 0
    }
    *gradInput = *input;
    *gradWeight = *weight;
    *gradOffset = *offset;
    gradBias->SetDimNum(1);
    gradBias->SetDim(0, weight->GetDim(0));
    return GRAPH_SUCCESS;
}

graphStatus InferDataTypeDeformableConv2dBackward(gert::InferDataTypeContext *context)
{
    if (context == nullptr) {
        return GRAPH_FAILED;
    }
    const DataType inputType = context->GetInputDataType(kInputIdx);
    const DataType gradOutputType = context->GetInputDataType(kGradOutputIdx);
    const size_t sameAsInput[] = {kGradInputIdx, kGradWeightIdx, kGradOffsetIdx};
    for (size_t idx : sameAsInput) {
        if (context->SetOutputDataType(idx, inputType) != GRAPH_SUCCESS) {
            return GRAPH_FAILED;
        }
    }
    return context->SetOutputDataType(kGradBiasIdx, gradOutputType);
}

}  // namespace ge
