// CPU twin of exe_graph/runtime/infer_shape_context.h: GetInputShape(i) (instance index) -> input
// shape; GetOutputShape(i) -> writable output shape; attrs via GetAttrs().
#pragma once
#include <cstddef>
#include "exe_graph/runtime/extended_kernel_context.h"
#include "exe_graph/runtime/shape.h"
#include "exe_graph/runtime/tensor.h"

namespace gert {
class InferShapeContext : public ExtendedKernelContext {
public:
    using ExtendedKernelContext::ExtendedKernelContext;
    const Shape *GetInputShape(size_t index) const;
    const Shape *GetOptionalInputShape(size_t irIndex) const;
    const Shape *GetRequiredInputShape(size_t irIndex) const;
    Shape *GetOutputShape(size_t index);
    const Tensor *GetInputTensor(size_t index) const;
    const Tensor *GetOptionalInputTensor(size_t irIndex) const;
};
}  // namespace gert
