// CPU twin of exe_graph/runtime/extended_kernel_context.h (+ CompileTimeTensorDesc from
// compute_node_info.h). Index conventions as in CANN:
//   GetInputDesc(i)/GetOutputDesc(i)  -> i = instance index (present tensors only, absent optional skipped)
//   GetOptionalInputDesc(ir)/GetRequiredInputDesc(ir) -> ir = declaration index of the OpDef Input
// Out-of-range indices and absent optional inputs return nullptr.
#pragma once
#include <cstddef>
#include <cstdint>
#include "exe_graph/runtime/runtime_attrs.h"
#include "exe_graph/runtime/storage_format.h"
#include "graph/ge_error_codes.h"
#include "graph/types.h"

namespace twin_host { struct ContextData; }

namespace gert {
class CompileTimeTensorDesc {
public:
    ge::DataType GetDataType() const { return dtype_; }
    ge::Format GetStorageFormat() const { return format_.GetStorageFormat(); }
    ge::Format GetOriginFormat() const { return format_.GetOriginFormat(); }
    const StorageFormat &GetFormat() const { return format_; }
    void SetDataType(ge::DataType t) { dtype_ = t; }
    void SetStorageFormat(ge::Format f) { format_.SetStorageFormat(f); }
    void SetOriginFormat(ge::Format f) { format_.SetOriginFormat(f); }
private:
    ge::DataType dtype_ = ge::DT_UNDEFINED;
    StorageFormat format_;
};

class ExtendedKernelContext {
public:
    explicit ExtendedKernelContext(twin_host::ContextData *data) : data_(data) {}
    ExtendedKernelContext(const ExtendedKernelContext &) = delete;
    ExtendedKernelContext &operator=(const ExtendedKernelContext &) = delete;

    const CompileTimeTensorDesc *GetInputDesc(size_t index) const;
    const CompileTimeTensorDesc *GetOptionalInputDesc(size_t irIndex) const;
    const CompileTimeTensorDesc *GetRequiredInputDesc(size_t irIndex) const;
    const CompileTimeTensorDesc *GetOutputDesc(size_t index) const;
    size_t GetComputeNodeInputNum() const;
    size_t GetComputeNodeOutputNum() const;
    const RuntimeAttrs *GetAttrs() const;
    const ge::char_t *GetNodeType() const;
    const ge::char_t *GetNodeName() const;

    twin_host::ContextData *TwinData() const { return data_; }  // twin only

protected:
    twin_host::ContextData *data_;
};
}  // namespace gert
