// OpDef of the custom operator DeformableConv2dBackward (Atlas A2 ascend910b / A3 ascend910_93).
//
// Declaration order is the ABI: the generated aclnnDeformableConv2dBackwardGetWorkspaceSize takes
// inputs -> attrs -> outputs in declaration order, giving exactly the signature of CANN's built-in
// (cann-conventions §2.5):
//   (input, gradOutput, offsetOut, weight, offset,
//    kernelSize, stride, padding, dilation, groups, deformableGroups, modulated,
//    gradInput, gradWeight, gradOffset, gradBias, workspaceSize, executor)
// Attr indices used by the TilingFunc / ArgsFromTilingContext: 0 kernel_size, 1 stride,
// 2 padding, 3 dilation, 4 groups, 5 deformable_groups, 6 modulated.
// Supported combinations (positional dtype/format pairs; one dtype per call for all tensors):
//   float32 / float16 / bfloat16  x  NCHW (4-D tensors) or ND; grad_bias is always ND.
// The contract's own format rule (input/gradOutput NCHW, gradBias ND) is enforced by the
// TilingFunc's validation (deformable_conv2d_backward_check.h); ND is declared so that the 1-D
// grad_bias and frameworks that tag 4-D tensors as ND reach that validation and get its clear
// error instead of a generic "unsupported combination".
// Inputs are AutoContiguous: non-contiguous aclTensors are made contiguous by the framework
// (the built-in documents non-contiguous support for every tensor).
//
// OpType collision check (CANN rule "自定义算子的OpType不能与内置算子重名" — a custom OpType must
// not share its name with a built-in operator):
//   Finding: no built-in OpType named DeformableConv2dBackward is registered in the public CANN op
//   sources. Searched hicann/ops-nn @ e5c3fa93 (all op_graph REG_OP protos, all op_host OP_ADD
//   defs, common/inc/op_graph/op_nn_proto_extend.h) and a public code index: the deformable
//   OpTypes are DeformableConv2D (graph proto), DeformableConv2d (AscendC forward), DeformableOffsets
//   and DeformableOffsetsGrad. The built-in aclnnDeformableConv2dBackward
//   (conv/convolution_backward/op_api/aclnn_convolution_backward.cpp) is composed of l0 ops
//   (Conv2DBackpropInput/Filter*, DeformableOffsetsGrad, Transpose, Contiguous, ...), not of an
//   OpType of that name. Closed-source opp packages cannot be searched here: run CANN's
//   `optype_collector --detect-conflicts <soc>` on a host after installing (UNCONFIRMED there).
//   Consequence: the OpType is allowed, but the aclnn *symbol* aclnnDeformableConv2dBackward is
//   also exported by CANN's libopapi.so (documented for Ascend 950 only). Loaders that search
//   custom vendors first (torch_npu op-plugin GetOpApiFuncAddr) resolve ours, so our signature and
//   semantics must stay identical to the built-in's. Details: docs/optype-collision.md.
#include <vector>

#include "register/op_def_registry.h"
#include "deformable_conv2d_backward_tiling.h"

namespace ge {
// Defined in deformable_conv2d_backward_infer.cpp.
graphStatus InferShapeDeformableConv2dBackward(gert::InferShapeContext *context);
graphStatus InferDataTypeDeformableConv2dBackward(gert::InferDataTypeContext *context);
}  // namespace ge

namespace ops {

class DeformableConv2dBackward : public OpDef {
public:
    explicit DeformableConv2dBackward(const char *name) : OpDef(name)
    {
        const std::vector<ge::DataType> dtypes = {ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16,
                                                  ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16};
        const std::vector<ge::Format> tensorFormats = {ge::FORMAT_NCHW, ge::FORMAT_NCHW, ge::FORMAT_NCHW,
                                                       ge::FORMAT_ND,   ge::FORMAT_ND,   ge::FORMAT_ND};
        const std::vector<ge::Format> biasFormats = {ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND,
                                                     ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND};

        const char *inputs[] = {"input", "grad_output", "offset_out", "weight", "offset"};
        for (const char *in : inputs) {
            this->Input(in).ParamType(REQUIRED).DataType(dtypes).Format(tensorFormats).AutoContiguous();
        }

        this->Attr("kernel_size").AttrType(REQUIRED).ListInt();
        this->Attr("stride").AttrType(REQUIRED).ListInt();
        this->Attr("padding").AttrType(REQUIRED).ListInt();
        this->Attr("dilation").AttrType(REQUIRED).ListInt();  // REQUIRED: null -> 161001, as the built-in
        this->Attr("groups").AttrType(OPTIONAL).Int(1);
        this->Attr("deformable_groups").AttrType(OPTIONAL).Int(1);
        this->Attr("modulated").AttrType(OPTIONAL).Bool(true);

        const char *tensorOutputs[] = {"grad_input", "grad_weight", "grad_offset"};
        for (const char *out : tensorOutputs) {
            this->Output(out).ParamType(REQUIRED).DataType(dtypes).Format(tensorFormats);
        }
        this->Output("grad_bias").ParamType(REQUIRED).DataType(dtypes).Format(biasFormats);

        this->SetInferShape(ge::InferShapeDeformableConv2dBackward)
            .SetInferDataType(ge::InferDataTypeDeformableConv2dBackward);

        this->AICore()
            .SetTiling(optiling::TilingDeformableConv2dBackward)
            .AddConfig("ascend910b")
            .AddConfig("ascend910_93");
    }
};

OP_ADD(DeformableConv2dBackward);

}  // namespace ops
