// CPU twin of register/op_impl_registry.h: only the function-pointer types the OpDef API uses.
#pragma once
#include <cstdint>
#include "graph/ge_error_codes.h"

namespace gert {
class TilingContext;
class InferShapeContext;
class InferShapeRangeContext;
class InferDataTypeContext;
class OpImplRegisterV2 {
public:
    using TilingKernelFunc = ge::graphStatus (*)(TilingContext *);
    using InferShapeKernelFunc = uint32_t (*)(InferShapeContext *);
    using InferShapeRangeKernelFunc = uint32_t (*)(InferShapeRangeContext *);
    using InferDataTypeKernelFunc = uint32_t (*)(InferDataTypeContext *);
};
}  // namespace gert
