// CPU twin of exe_graph/runtime/shape.h (hicann/metadef): gert::Shape, at most kMaxDimNum (25) dims.
// GetShapeSize() is the product of the dims (1 for a scalar), kInvalidDimValue on int64 overflow;
// GetDim(i) with i >= kMaxDimNum returns kInvalidDimValue.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>

namespace gert {
class Shape {
public:
    static constexpr size_t kMaxDimNum = 25;
    static constexpr int64_t kInvalidDimValue = std::numeric_limits<int64_t>::min();

    Shape() = default;
    Shape(std::initializer_list<int64_t> dims) {
        if (dims.size() > kMaxDimNum) { return; }
        for (int64_t d : dims) { dims_[dimNum_++] = d; }
    }
    bool operator==(const Shape &o) const {
        if (dimNum_ != o.dimNum_) { return false; }
        for (size_t i = 0; i < dimNum_; ++i) { if (dims_[i] != o.dims_[i]) { return false; } }
        return true;
    }
    bool operator!=(const Shape &o) const { return !(*this == o); }

    size_t GetDimNum() const { return dimNum_; }
    void SetDimNum(size_t n) { dimNum_ = n > kMaxDimNum ? kMaxDimNum : n; }
    int64_t GetDim(size_t idx) const { return idx >= kMaxDimNum ? kInvalidDimValue : dims_[idx]; }
    void SetDim(size_t idx, int64_t v) { if (idx < kMaxDimNum) { dims_[idx] = v; } }
    Shape &AppendDim(int64_t v) {
        if (dimNum_ < kMaxDimNum) { dims_[dimNum_++] = v; }
        return *this;
    }
    bool IsScalar() const { return dimNum_ == 0; }
    void SetScalar() { dimNum_ = 0; }
    int64_t GetShapeSize() const {
        int64_t size = 1;
        for (size_t i = 0; i < dimNum_; ++i) {
            if (__builtin_mul_overflow(size, dims_[i], &size)) { return kInvalidDimValue; }
        }
        return size;
    }
    const int64_t &operator[](size_t idx) const { return dims_[idx]; }
    int64_t &operator[](size_t idx) { return dims_[idx]; }

private:
    size_t dimNum_ = 0;
    int64_t dims_[kMaxDimNum] = {};
};
}  // namespace gert
