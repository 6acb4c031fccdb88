// CPU twin of exe_graph/runtime/infer_datatype_context.h. Out-of-range index -> DT_UNDEFINED / GRAPH_FAILED.
#pragma once
#include <cstddef>
#include "exe_graph/runtime/extended_kernel_context.h"
#include "graph/types.h"

namespace gert {
class InferDataTypeContext : public ExtendedKernelContext {
public:
    using ExtendedKernelContext::ExtendedKernelContext;
    ge::DataType GetInputDataType(size_t index) const;
    ge::DataType GetOptionalInputDataType(size_t irIndex) const;
    ge::DataType GetRequiredInputDataType(size_t irIndex) const;
    ge::DataType GetOutputDataType(size_t index) const;
    ge::graphStatus SetOutputDataType(size_t index, ge::DataType dataType);
};
}  // namespace gert
