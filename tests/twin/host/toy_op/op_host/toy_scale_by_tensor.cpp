// op_host of the twin's second toy operator ToyScaleByTensor: y = x * factor[0], fp32, where `factor` is a
// ValueDepend input — TilingFunc reads its value on the host (TilingContext::GetInputTensor) and passes it
// to the kernel through the tiling data. With the first toy op it also makes the toy package multi-op.
// Declared for ascend910b only.
#include "register/op_def_registry.h"
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ToyScaleByTensorTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(float, factor);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ToyScaleByTensor, ToyScaleByTensorTilingData)

static ge::graphStatus ToyScaleTilingFunc(gert::TilingContext *context) {
    const gert::StorageShape *xShape = context->GetInputShape(0);
    const gert::Tensor *factor = context->GetInputTensor(1);
    if (xShape == nullptr || factor == nullptr || factor->GetData<float>() == nullptr || factor->GetShapeSize() < 1) {
        return ge::GRAPH_FAILED;
    }
    const int64_t total = xShape->GetStorageShape().GetShapeSize();
    if (total <= 0 || total % 8 != 0) { return ge::GRAPH_FAILED; }
    ToyScaleByTensorTilingData tiling;
    tiling.set_totalLength(static_cast<uint32_t>(total));
    tiling.set_factor(factor->GetData<float>()[0]);
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class ToyScaleByTensor : public OpDef {
public:
    explicit ToyScaleByTensor(const char *name) : OpDef(name) {
        Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        Input("factor").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND}).ValueDepend(REQUIRED);
        Output("y").ParamType(REQUIRED).Follow("x");
        AICore().SetTiling(optiling::ToyScaleTilingFunc).AddConfig("ascend910b");  // A2 only (the tests check 910_93 refuses it)
    }
};
OP_ADD(ToyScaleByTensor);
}  // namespace ops
