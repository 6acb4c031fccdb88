// Tiling data of the twin's toy operator ToyAddCustom (z = (x + y) * scale), macro style.
#pragma once
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ToyAddCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);  // elements of x
TILING_DATA_FIELD_DEF(uint32_t, blockLength);  // elements per core (multiple of tileLength except the last core)
TILING_DATA_FIELD_DEF(uint32_t, tileLength);   // elements per UB tile, 32-byte multiple
TILING_DATA_FIELD_DEF(float, scale);
TILING_DATA_FIELD_DEF(int32_t, faultMode);     // 1: the kernel writes one tile past the end of z
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ToyAddCustom, ToyAddCustomTilingData)
}  // namespace optiling
