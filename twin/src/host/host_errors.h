// Twin-internal: a per-thread sink for errors raised by host-side twin APIs that have no context to
// report to (e.g. TilingDef::SaveToBuffer with too small a buffer). The aclnn runtime clears it
// before TilingFunc and turns a non-empty sink into ACLNN_ERR_INNER_TILING_ERROR.
#pragma once
#include <string>

namespace twin_host {
void ReportHostError(const std::string &msg);  // keeps the first message
std::string TakeHostError();                   // returns and clears
}  // namespace twin_host
