// op_host of the twin's toy operator ToyAddCustom: z = (x + y) * scale, fp32/fp16, ND, AIV only.
// Test hooks: attr fault_mode = 1 makes the kernel write out of bounds, 2 makes TilingFunc fail.
// Element counts must be multiples of 16 (32 bytes of fp16) — otherwise TilingFunc fails.
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "toy_add_custom_tiling.h"

namespace optiling {
static ge::graphStatus ToyAddTilingFunc(gert::TilingContext *context) {
    const gert::StorageShape *xShape = context->GetInputShape(0);
    const gert::RuntimeAttrs *attrs = context->GetAttrs();
    if (xShape == nullptr || attrs == nullptr) { return ge::GRAPH_FAILED; }
    const float *scale = attrs->GetFloat(0);
    const int64_t *faultMode = attrs->GetInt(1);
    if (scale == nullptr || faultMode == nullptr || *faultMode == 2) { return ge::GRAPH_FAILED; }
    const int64_t total = xShape->GetStorageShape().GetShapeSize();
    if (total <= 0 || total % 16 != 0) { return ge::GRAPH_FAILED; }
    platform_ascendc::PlatformAscendC platform(context->GetPlatformInfo());
    const int64_t tile = 256;
    const int64_t tiles = (total + tile - 1) / tile;
    const int64_t cores = std::min<int64_t>(platform.GetCoreNumAiv(), tiles);
    const int64_t tilesPerCore = (tiles + cores - 1) / cores;
    const int64_t usedCores = (tiles + tilesPerCore - 1) / tilesPerCore;
    ToyAddCustomTilingData tiling;
    tiling.set_totalLength(static_cast<uint32_t>(total));
    tiling.set_blockLength(static_cast<uint32_t>(tilesPerCore * tile));
    tiling.set_tileLength(static_cast<uint32_t>(tile));
    tiling.set_scale(*scale);
    tiling.set_faultMode(static_cast<int32_t>(*faultMode));
    context->SetBlockDim(static_cast<uint32_t>(usedCores));
    context->SetTilingKey(context->GetInputDesc(0)->GetDataType() == ge::DT_FLOAT16 ? 1 : 0);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t *workspace = context->GetWorkspaceSizes(1);
    workspace[0] = 1024;  // unused by the kernel; exercises the workspace checks of the runtime
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static graphStatus ToyAddInferShape(gert::InferShapeContext *context) {
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}
static graphStatus ToyAddInferDataType(gert::InferDataTypeContext *context) {
    return context->SetOutputDataType(0, context->GetInputDataType(0));
}
}  // namespace ge

namespace ops {
class ToyAddCustom : public OpDef {
public:
    explicit ToyAddCustom(const char *name) : OpDef(name) {
        Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND}).AutoContiguous();
        Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        Attr("scale").AttrType(OPTIONAL).Float(1.0f);
        Attr("fault_mode").AttrType(OPTIONAL).Int(0);
        SetInferShape(ge::ToyAddInferShape).SetInferDataType(ge::ToyAddInferDataType);
        AICore().SetTiling(optiling::ToyAddTilingFunc).AddConfig("ascend910b").AddConfig("ascend910_93");
    }
};
OP_ADD(ToyAddCustom);
}  // namespace ops
