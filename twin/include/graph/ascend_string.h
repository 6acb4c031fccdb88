// CPU twin of graph/ascend_string.h: ge::AscendString, an owning string used by the OpDef API.
#pragma once
#include <string>

namespace ge {
class AscendString {
public:
    AscendString() = default;
    AscendString(const char *s) : s_(s == nullptr ? "" : s) {}  // NOLINT: implicit like CANN's
    const char *GetString() const { return s_.c_str(); }
    size_t GetLength() const { return s_.size(); }
    bool operator<(const AscendString &o) const { return s_ < o.s_; }
    bool operator==(const AscendString &o) const { return s_ == o.s_; }
    bool operator!=(const AscendString &o) const { return s_ != o.s_; }
private:
    std::string s_;
};
}  // namespace ge
