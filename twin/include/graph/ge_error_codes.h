// CPU twin of graph/ge_error_codes.h / graph/error_codes.h (hicann/metadef inc/external/graph/error_codes.h):
// graphStatus is uint32_t, GRAPH_SUCCESS = 0, GRAPH_FAILED = 0xFFFFFFFF.
#pragma once
#include <cstdint>

namespace ge {
using graphStatus = uint32_t;
const graphStatus GRAPH_FAILED = 0xFFFFFFFF;
const graphStatus GRAPH_SUCCESS = 0;
using char_t = char;
}  // namespace ge
