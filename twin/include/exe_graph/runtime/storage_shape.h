// CPU twin of exe_graph/runtime/storage_shape.h: origin shape (the user's logical shape) and
// storage shape (the shape of the data as laid out in device memory; equal for ND/NCHW tensors).
#pragma once
#include "exe_graph/runtime/shape.h"

namespace gert {
struct StorageShape {
    StorageShape() = default;
    StorageShape(std::initializer_list<int64_t> origin, std::initializer_list<int64_t> storage)
        : originShape_(origin), storageShape_(storage) {}
    const Shape &GetOriginShape() const { return originShape_; }
    const Shape &GetStorageShape() const { return storageShape_; }
    Shape &MutableOriginShape() { return originShape_; }
    Shape &MutableStorageShape() { return storageShape_; }
    bool operator==(const StorageShape &o) const {
        return originShape_ == o.originShape_ && storageShape_ == o.storageShape_;
    }
private:
    Shape originShape_;
    Shape storageShape_;
};
}  // namespace gert
