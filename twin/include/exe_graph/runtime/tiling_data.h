// CPU twin of exe_graph/runtime/tiling_data.h: the raw tiling buffer handed to TilingFunc.
// Invariant: GetDataSize() <= GetCapacity(); SetDataSize beyond capacity is recorded as an error
// (the twin runtime then fails GetWorkspaceSize with ACLNN_ERR_INNER_TILING_ERROR).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include "graph/ge_error_codes.h"

namespace gert {
class TilingData {
public:
    TilingData(void *data, size_t capacity) : data_(data), capacity_(capacity) {}
    TilingData(const TilingData &) = delete;
    TilingData &operator=(const TilingData &) = delete;

    size_t GetCapacity() const { return capacity_; }
    size_t GetDataSize() const { return dataSize_; }
    void SetDataSize(const size_t size) {
        if (size > capacity_) { overflow_ = true; return; }
        dataSize_ = size;
    }
    void *GetData() { return data_; }
    const void *GetData() const { return data_; }

    template <typename T, typename std::enable_if<std::is_standard_layout<T>::value, int>::type = 0>
    ge::graphStatus Append(const T &value) { return Append(&value, 1); }
    template <typename T, typename std::enable_if<std::is_standard_layout<T>::value, int>::type = 0>
    ge::graphStatus Append(const T *values, size_t count) {
        const size_t bytes = sizeof(T) * count;
        if (dataSize_ + bytes > capacity_) { overflow_ = true; return ge::GRAPH_FAILED; }
        std::memcpy(static_cast<uint8_t *>(data_) + dataSize_, values, bytes);
        dataSize_ += bytes;
        return ge::GRAPH_SUCCESS;
    }
    // Twin only: true when SetDataSize/Append exceeded the capacity.
    bool TwinOverflowed() const { return overflow_; }

private:
    void *data_;
    size_t capacity_;
    size_t dataSize_ = 0;
    bool overflow_ = false;
};
}  // namespace gert
