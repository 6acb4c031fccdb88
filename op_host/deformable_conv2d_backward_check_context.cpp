// dcn::ArgsFromTilingContext: reads the DeformableConv2dBackward tiling context into BackwardArgs
// (indices: see deformable_conv2d_backward_check.h). Kept apart from the rules so that the rules
// compile without the gert runtime (they are also linked into the Python binding).
#include "deformable_conv2d_backward_check.h"

#include "exe_graph/runtime/tiling_context.h"

namespace dcn {
namespace {

TensorDesc InputDesc(gert::TilingContext *ctx, size_t index)
{
    TensorDesc d;
    const auto *desc = ctx->GetInputDesc(index);
    const auto *shape = ctx->GetInputShape(index);
    if (desc == nullptr || shape == nullptr) {
        return d;
    }
    d.present = true;
    d.dtype = desc->GetDataType();
    d.format = desc->GetStorageFormat();
    const auto &s = shape->GetOriginShape();
    for (size_t i = 0; i < s.GetDimNum(); ++i) {
        d.shape.push_back(s.GetDim(i));
    }
    return d;
}

TensorDesc OutputDesc(gert::TilingContext *ctx, size_t index)
{
    TensorDesc d;
    const auto *desc = ctx->GetOutputDesc(index);
    const auto *shape = ctx->GetOutputShape(index);
    if (desc == nullptr || shape == nullptr) {
        return d;
    }
    d.present = true;
    d.dtype = desc->GetDataType();
    d.format = desc->GetStorageFormat();
    const auto &s = shape->GetOriginShape();
    for (size_t i = 0; i < s.GetDimNum(); ++i) {
        d.shape.push_back(s.GetDim(i));
    }
    return d;
}

bool ListAttr(const gert::RuntimeAttrs *attrs, size_t index, std::vector<int64_t> &out)
{
    if (attrs == nullptr) {
        return false;
    }
    const auto *list = attrs->GetListInt(index);
    if (list == nullptr) {
        return false;
    }
    const int64_t *data = list->GetData();
    out.assign(data, data + list->GetSize());
    return true;
}

}  // namespace

BackwardArgs ArgsFromTilingContext(gert::TilingContext *ctx)
{
    BackwardArgs a;
    if (ctx == nullptr) {
        return a;  // nothing present: CheckBackwardArgs reports 161001
    }
    a.input = InputDesc(ctx, 0);
    a.gradOutput = InputDesc(ctx, 1);
    a.offsetOut = InputDesc(ctx, 2);
    a.weight = InputDesc(ctx, 3);
    a.offset = InputDesc(ctx, 4);
    a.gradInput = OutputDesc(ctx, 0);
    a.gradWeight = OutputDesc(ctx, 1);
    a.gradOffset = OutputDesc(ctx, 2);
    a.gradBias = OutputDesc(ctx, 3);
    const gert::RuntimeAttrs *attrs = ctx->GetAttrs();
    a.hasKernelSize = ListAttr(attrs, 0, a.kernelSize);
    a.hasStride = ListAttr(attrs, 1, a.stride);
    a.hasPadding = ListAttr(attrs, 2, a.padding);
    a.hasDilation = ListAttr(attrs, 3, a.dilation);
    if (attrs != nullptr) {
        if (const int64_t *g = attrs->GetInt(4)) {
            a.groups = *g;
        }
        if (const int64_t *dg = attrs->GetInt(5)) {
            a.deformableGroups = *dg;
        }
        if (const bool *m = attrs->GetBool(6)) {
            a.modulated = *m;
        }
    }
    return a;
}

}  // namespace dcn
