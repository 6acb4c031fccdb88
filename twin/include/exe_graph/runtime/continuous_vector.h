// CPU twin of exe_graph/runtime/continuous_vector.h: a fixed-capacity vector (GetSize <= GetCapacity).
// CANN stores it as one contiguous blob; the twin keeps an owned buffer (same API).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>
#include "graph/ge_error_codes.h"

namespace gert {
template <typename T>
class TypedContinuousVector {
public:
    TypedContinuousVector() = default;
    explicit TypedContinuousVector(std::vector<T> values) : data_(std::move(values)), size_(data_.size()) {}
    size_t GetSize() const { return size_; }
    size_t GetCapacity() const { return data_.size(); }
    ge::graphStatus SetSize(size_t size) {
        if (size > data_.size()) { return ge::GRAPH_FAILED; }
        size_ = size;
        return ge::GRAPH_SUCCESS;
    }
    const T *GetData() const { return data_.data(); }
    T *MutableData() { return data_.data(); }
private:
    std::vector<T> data_;
    size_t size_ = 0;
};
}  // namespace gert
