// CPU twin of exe_graph/runtime/runtime_attrs.h. Attr index = position among the OpDef's Attr
// declarations. Typed getters return nullptr (and record a twin error on the context) when the
// attr at that index was declared with another type or the index is out of range.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>
#include "exe_graph/runtime/continuous_vector.h"

namespace twin_host { struct AttrStore; }

namespace gert {
class RuntimeAttrs {
public:
    explicit RuntimeAttrs(const twin_host::AttrStore *store) : store_(store) {}
    RuntimeAttrs(const RuntimeAttrs &) = delete;
    RuntimeAttrs &operator=(const RuntimeAttrs &) = delete;

    template <typename T>
    const T *GetAttrPointer(size_t index) const { return static_cast<const T *>(GetPointerByIndex(index)); }
    const int64_t *GetInt(size_t index) const;
    const bool *GetBool(size_t index) const;
    const float *GetFloat(size_t index) const;
    const char *GetStr(size_t index) const;
    const TypedContinuousVector<int64_t> *GetListInt(size_t index) const;
    const TypedContinuousVector<float> *GetListFloat(size_t index) const;
    size_t GetAttrNum() const;
    const void *GetPointerByIndex(size_t index) const;

private:
    const twin_host::AttrStore *store_;
};
}  // namespace gert
