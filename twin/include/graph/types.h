// CPU twin of CANN's graph/types.h (hicann/metadef inc/external/graph/types.h + c_types.h):
// ge::DataType and ge::Format with CANN's numeric values, and GetSizeByDataType.
// Only the values below are listed; their numbers are the official ones (DT_BF16 = 27, FORMAT_ND = 2).
#pragma once
#include <cstdint>

namespace ge {
enum DataType {
    DT_FLOAT = 0, DT_FLOAT16 = 1, DT_INT8 = 2, DT_INT32 = 3, DT_UINT8 = 4, DT_INT16 = 6, DT_UINT16 = 7,
    DT_UINT32 = 8, DT_INT64 = 9, DT_UINT64 = 10, DT_DOUBLE = 11, DT_BOOL = 12, DT_STRING = 13,
    DT_DUAL_SUB_INT8 = 14, DT_DUAL_SUB_UINT8 = 15, DT_COMPLEX64 = 16, DT_COMPLEX128 = 17, DT_QINT8 = 18,
    DT_QINT16 = 19, DT_QINT32 = 20, DT_QUINT8 = 21, DT_QUINT16 = 22, DT_RESOURCE = 23, DT_STRING_REF = 24,
    DT_DUAL = 25, DT_VARIANT = 26, DT_BF16 = 27, DT_UNDEFINED = 28, DT_INT4 = 29, DT_UINT1 = 30, DT_INT2 = 31,
    DT_UINT2 = 32, DT_COMPLEX32 = 33, DT_HIFLOAT8 = 34, DT_FLOAT8_E5M2 = 35, DT_FLOAT8_E4M3FN = 36,
    DT_FLOAT8_E8M0 = 37, DT_MAX
};

enum Format {
    FORMAT_NCHW = 0, FORMAT_NHWC = 1, FORMAT_ND = 2, FORMAT_NC1HWC0 = 3, FORMAT_FRACTAL_Z = 4,
    FORMAT_NC1HWC0_C04 = 12, FORMAT_FRACTAL_Z_C04 = 13, FORMAT_CHWN = 14, FORMAT_HWCN = 16,
    FORMAT_MD = 26, FORMAT_NDHWC = 27, FORMAT_FRACTAL_ZZ = 28, FORMAT_FRACTAL_NZ = 29, FORMAT_NCDHW = 30,
    FORMAT_DHWCN = 31, FORMAT_NDC1HWC0 = 32, FORMAT_FRACTAL_Z_3D = 33, FORMAT_CN = 34, FORMAT_NC = 35,
    FORMAT_DHWNC = 36, FORMAT_RESERVED = 40, FORMAT_ALL = 41, FORMAT_NULL = 42, FORMAT_NCL = 47,
    FORMAT_END = 55, FORMAT_MAX = 0xff
};

// Bytes per element; -1 for types without a fixed byte size (strings, sub-byte types).
inline int GetSizeByDataType(DataType t) {
    switch (t) {
        case DT_FLOAT: case DT_INT32: case DT_UINT32: case DT_QINT32: case DT_COMPLEX32: return 4;
        case DT_FLOAT16: case DT_BF16: case DT_INT16: case DT_UINT16: case DT_QINT16: case DT_QUINT16: return 2;
        case DT_INT8: case DT_UINT8: case DT_BOOL: case DT_QINT8: case DT_QUINT8: case DT_HIFLOAT8:
        case DT_FLOAT8_E5M2: case DT_FLOAT8_E4M3FN: case DT_FLOAT8_E8M0: return 1;
        case DT_INT64: case DT_UINT64: case DT_DOUBLE: case DT_COMPLEX64: return 8;
        case DT_COMPLEX128: return 16;
        default: return -1;
    }
}
}  // namespace ge
