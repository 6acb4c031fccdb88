// CPU twin of exe_graph/runtime/tensor.h: gert::Tensor as TilingContext/InferShapeContext hand it out.
// GetAddr()/GetData<T>() are non-null only for inputs declared ValueDepend (their data is on the host in
// CANN); for every other tensor the address is a device address that host code must not read, which
// the twin models as nullptr.
#pragma once
#include <cstddef>
#include <cstdint>
#include "exe_graph/runtime/storage_format.h"
#include "exe_graph/runtime/storage_shape.h"
#include "graph/types.h"

namespace gert {
class Tensor {
public:
    int64_t GetShapeSize() const { return shape_.GetStorageShape().GetShapeSize(); }
    template <class T>
    const T *GetData() const { return static_cast<const T *>(addr_); }
    const void *GetAddr() const { return addr_; }
    size_t GetSize() const { return size_; }
    ge::DataType GetDataType() const { return dtype_; }
    const Shape &GetStorageShape() const { return shape_.GetStorageShape(); }
    const Shape &GetOriginShape() const { return shape_.GetOriginShape(); }
    const StorageShape &GetShape() const { return shape_; }
    ge::Format GetStorageFormat() const { return format_.GetStorageFormat(); }
    ge::Format GetOriginFormat() const { return format_.GetOriginFormat(); }
    const StorageFormat &GetFormat() const { return format_; }

    // Twin: filled by the aclnn runtime.
    void TwinSet(const StorageShape &shape, ge::DataType dtype, ge::Format format, const void *hostAddr, size_t bytes) {
        shape_ = shape;
        dtype_ = dtype;
        format_ = StorageFormat(format, format);
        addr_ = hostAddr;
        size_ = hostAddr == nullptr ? 0 : bytes;
    }

private:
    StorageShape shape_;
    ge::DataType dtype_ = ge::DT_UNDEFINED;
    StorageFormat format_;
    const void *addr_ = nullptr;
    size_t size_ = 0;
};
}  // namespace gert
