// CPU twin of exe_graph/runtime/tiling_context.h: what TilingFunc sees and sets.
// SetBlockDim is an alias of SetSimdNumBlocks (CANN marks SetBlockDim deprecated). GetWorkspaceSizes(n)
// enforces CANN's documented limit of one workspace block: n != 1 returns nullptr and records the
// violation (the twin runtime then reports it). Shapes: GetInputShape(i) uses the instance index,
// GetOptionalInputShape(ir)/GetRequiredInputShape(ir) the declaration index. GetInputTensor: see tensor.h.
#pragma once
#include <cstddef>
#include <cstdint>
#include "exe_graph/runtime/extended_kernel_context.h"
#include "exe_graph/runtime/storage_shape.h"
#include "exe_graph/runtime/tensor.h"
#include "exe_graph/runtime/tiling_data.h"
#include "graph/ge_error_codes.h"

namespace fe { class PlatFormInfos; }

namespace gert {
class TilingContext : public ExtendedKernelContext {
public:
    using ExtendedKernelContext::ExtendedKernelContext;

    const StorageShape *GetInputShape(size_t index) const;
    const StorageShape *GetOptionalInputShape(size_t irIndex) const;
    const StorageShape *GetRequiredInputShape(size_t irIndex) const;
    const StorageShape *GetOutputShape(size_t index) const;
    const Tensor *GetInputTensor(size_t index) const;
    const Tensor *GetOptionalInputTensor(size_t irIndex) const;
    const Tensor *GetRequiredInputTensor(size_t irIndex) const;

    ge::graphStatus SetTilingKey(uint64_t tilingKey);
    uint64_t GetTilingKey() const;
    ge::graphStatus SetBlockDim(uint32_t blockDim) { return SetSimdNumBlocks(blockDim); }
    ge::graphStatus SetSimdNumBlocks(uint32_t numBlocks);
    uint32_t GetBlockDim() const;
    ge::graphStatus SetScheduleMode(uint32_t scheduleMode);
    uint32_t GetScheduleMode() const;
    ge::graphStatus SetNeedAtomic(bool atomic);
    bool NeedAtomic() const;

    TilingData *GetRawTilingData();
    template <typename T>
    auto GetTilingData() -> T * {
        TilingData *raw = GetRawTilingData();
        if (raw == nullptr || raw->GetCapacity() < sizeof(T)) { return nullptr; }
        raw->SetDataSize(sizeof(T));
        return static_cast<T *>(raw->GetData());
    }
    size_t *GetWorkspaceSizes(size_t workspaceCount);
    size_t GetWorkspaceNum() const;
    fe::PlatFormInfos *GetPlatformInfo() const;
};
}  // namespace gert
