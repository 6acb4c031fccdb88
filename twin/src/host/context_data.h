// Twin-internal: the data behind gert::TilingContext / InferShapeContext / InferDataTypeContext and
// gert::RuntimeAttrs. Filled by the twin aclnn runtime (twin/src/runtime) and by tests.
// Tensor slots are kept in OpDef declaration (IR) order; absent optional tensors have present=false
// and are skipped by instance indices (GetInputShape(i), GetInputDesc(i)).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>
#include "exe_graph/runtime/continuous_vector.h"
#include "exe_graph/runtime/extended_kernel_context.h"
#include "exe_graph/runtime/runtime_attrs.h"
#include "exe_graph/runtime/storage_shape.h"
#include "exe_graph/runtime/tensor.h"
#include "exe_graph/runtime/tiling_data.h"
#include "platform/platform_infos_def.h"
#include "register/op_def.h"

namespace twin_host {
struct AttrValue {
    ops::OpAttrDef::Kind kind = ops::OpAttrDef::Kind::UNSET;
    std::string name;
    bool b = false;
    int64_t i = 0;
    float f = 0.0f;
    std::string s;
    gert::TypedContinuousVector<int64_t> listInt;
    gert::TypedContinuousVector<float> listFloat;
};

struct AttrStore {
    std::vector<std::unique_ptr<AttrValue>> values;  // declaration order
    mutable std::string *errorSink = nullptr;        // where misuse (wrong getter type) is reported
};

struct TensorSlot {
    bool present = false;
    std::string name;
    gert::StorageShape shape;
    gert::CompileTimeTensorDesc desc;
    gert::Tensor tensor;  // data address only for ValueDepend inputs
};

struct ContextData {
    std::string nodeType;
    std::string nodeName;
    std::vector<TensorSlot> inputs;   // IR order
    std::vector<TensorSlot> outputs;  // IR order
    AttrStore attrStore;
    std::unique_ptr<gert::RuntimeAttrs> attrs;
    // Tiling results.
    uint64_t tilingKey = 0;
    uint32_t blockDim = 0;
    uint32_t scheduleMode = 0;
    bool needAtomic = false;
    std::unique_ptr<gert::TilingData> tilingData;
    gert::TypedContinuousVector<size_t> workspaces{std::vector<size_t>(1, 0)};
    bool workspaceRequested = false;
    fe::PlatFormInfos platform;
    // Infer-shape / infer-dtype views (IR order, as slots above).
    std::vector<gert::Shape> outputShapes;
    std::vector<ge::DataType> outputDtypes;
    // First rule violation detected while operator host code ran (empty if none).
    std::string error;

    ContextData() { attrStore.errorSink = &error; }
    void InitAttrs() { attrs.reset(new gert::RuntimeAttrs(&attrStore)); }
    const TensorSlot *InputByInstance(size_t index) const;
    const TensorSlot *OutputByInstance(size_t index) const;
    void RecordError(const std::string &msg) { if (error.empty()) { error = msg; } }
};

// Fills ctx.platform from the active twin platform (twin::CurrentPlatform()).
fe::PlatFormInfos SnapshotPlatform();
// The ASCEND_COMPUTE_UNIT name of a SoC ("Ascend910B2" -> "ascend910b", "Ascend910_9392" -> "ascend910_93").
std::string ComputeUnitOfSoc(const std::string &soc);
}  // namespace twin_host
