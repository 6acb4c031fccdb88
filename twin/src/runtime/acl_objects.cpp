// aclCreateTensor & co. and aclGetRecentErrMsg of the twin nnopbase (see acl_objects.h).
#include "acl_objects.h"
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include "aclnn/aclnn_base.h"
#include "aclnn/opdev/op_errno.h"

namespace {
bool CheckedMul(int64_t a, int64_t b, int64_t *out) { return !__builtin_mul_overflow(a, b, out); }
bool CheckedAdd(int64_t a, int64_t b, int64_t *out) { return !__builtin_add_overflow(a, b, out); }
bool CheckedProduct(const std::vector<int64_t> &dims, int64_t *out) {  // dims are non-negative here
    int64_t p = 1;
    for (int64_t d : dims) {
        if (!CheckedMul(p, d, &p)) { return false; }
    }
    *out = p;
    return true;
}
}  // namespace

namespace twin_rt {
namespace {
thread_local std::string g_recentErr;

std::mutex &LiveTensorsMutex() {
    static std::mutex m;
    return m;
}
std::map<const aclTensor *, uint64_t> &LiveTensors() {  // live aclTensor -> its serial
    static std::map<const aclTensor *, uint64_t> m;
    return m;
}
uint64_t g_nextSerial = 1;  // guarded by LiveTensorsMutex()

uint64_t RegisterLiveTensor(const aclTensor *t) {
    std::lock_guard<std::mutex> lock(LiveTensorsMutex());
    const uint64_t serial = g_nextSerial++;
    LiveTensors()[t] = serial;
    return serial;
}
bool UnregisterLiveTensor(const aclTensor *t) {
    std::lock_guard<std::mutex> lock(LiveTensorsMutex());
    return LiveTensors().erase(t) != 0;
}

bool IsDataTypeEnumerator(int32_t v) {
    switch (v) {
        case ACL_DT_UNDEFINED: case ACL_FLOAT: case ACL_FLOAT16: case ACL_INT8: case ACL_INT32: case ACL_UINT8:
        case ACL_INT16: case ACL_UINT16: case ACL_UINT32: case ACL_INT64: case ACL_UINT64: case ACL_DOUBLE:
        case ACL_BOOL: case ACL_STRING: case ACL_COMPLEX64: case ACL_COMPLEX128: case ACL_BF16: case ACL_INT4:
        case ACL_UINT1: case ACL_COMPLEX32: return true;
        default: return false;
    }
}
bool IsFormatEnumerator(int32_t v) {
    switch (v) {
        case ACL_FORMAT_UNDEFINED: case ACL_FORMAT_NCHW: case ACL_FORMAT_NHWC: case ACL_FORMAT_ND:
        case ACL_FORMAT_NC1HWC0: case ACL_FORMAT_FRACTAL_Z: case ACL_FORMAT_NC1HWC0_C04: case ACL_FORMAT_HWCN:
        case ACL_FORMAT_NDHWC: case ACL_FORMAT_FRACTAL_NZ: case ACL_FORMAT_NCDHW: case ACL_FORMAT_NDC1HWC0:
        case ACL_FRACTAL_Z_3D: case ACL_FORMAT_NC: case ACL_FORMAT_NCL: return true;
        default: return false;
    }
}
}  // namespace

uint64_t TensorSerialIfLive(const aclTensor *t) {
    std::lock_guard<std::mutex> lock(LiveTensorsMutex());
    auto it = LiveTensors().find(t);
    return it == LiveTensors().end() ? 0 : it->second;
}
void SetErrMsg(const std::string &msg) { g_recentErr = msg; }
void ClearErrMsg() { g_recentErr.clear(); }

int DataTypeBytes(aclDataType t) {
    switch (t) {
        case ACL_FLOAT: case ACL_INT32: case ACL_UINT32: case ACL_COMPLEX32: return 4;
        case ACL_FLOAT16: case ACL_BF16: case ACL_INT16: case ACL_UINT16: return 2;
        case ACL_INT8: case ACL_UINT8: case ACL_BOOL: return 1;
        case ACL_INT64: case ACL_UINT64: case ACL_DOUBLE: case ACL_COMPLEX64: return 8;
        case ACL_COMPLEX128: return 16;
        default: return 0;
    }
}
const char *DataTypeName(aclDataType t) {
    switch (t) {
        case ACL_FLOAT: return "FLOAT"; case ACL_FLOAT16: return "FLOAT16"; case ACL_BF16: return "BF16";
        case ACL_INT8: return "INT8"; case ACL_INT16: return "INT16"; case ACL_INT32: return "INT32";
        case ACL_INT64: return "INT64"; case ACL_UINT8: return "UINT8"; case ACL_UINT16: return "UINT16";
        case ACL_UINT32: return "UINT32"; case ACL_UINT64: return "UINT64"; case ACL_DOUBLE: return "DOUBLE";
        case ACL_BOOL: return "BOOL"; case ACL_COMPLEX64: return "COMPLEX64"; case ACL_COMPLEX128: return "COMPLEX128";
        default: return "UNSUPPORTED";
    }
}
const char *FormatName(aclFormat f) {
    switch (f) {
        case ACL_FORMAT_NCHW: return "NCHW"; case ACL_FORMAT_NHWC: return "NHWC"; case ACL_FORMAT_ND: return "ND";
        case ACL_FORMAT_NC1HWC0: return "NC1HWC0"; case ACL_FORMAT_FRACTAL_Z: return "FRACTAL_Z";
        case ACL_FORMAT_NDHWC: return "NDHWC"; case ACL_FORMAT_FRACTAL_NZ: return "FRACTAL_NZ";
        case ACL_FORMAT_NCDHW: return "NCDHW"; case ACL_FORMAT_NC: return "NC"; case ACL_FORMAT_NCL: return "NCL";
        case ACL_FORMAT_HWCN: return "HWCN"; default: return "UNSUPPORTED";
    }
}
}  // namespace twin_rt

int64_t aclTensor::Numel() const {
    int64_t n = 1;
    for (int64_t d : viewDims) { n *= d; }
    return n;
}
int64_t aclTensor::StorageNumel() const {
    int64_t n = 1;
    for (int64_t d : storageDims) { n *= d; }
    return n;
}
bool aclTensor::IsContiguous() const {
    int64_t expect = 1;
    for (size_t i = viewDims.size(); i-- > 0;) {
        if (viewDims[i] != 1 && strides[i] != expect) { return false; }
        expect *= viewDims[i];
    }
    return true;
}

namespace {
// The aclCreate*Array family: copy `size` values (null only when size == 0); null + message on misuse.
template <typename Array, typename T>
Array *CreateArray(const char *api, const T *value, uint64_t size) {
    if (size > 0 && value == nullptr) {
        twin_rt::SetErrMsg(std::string(api) + ": value is null but size > 0");
        return nullptr;
    }
    auto *a = new Array;
    a->values.assign(value, value + size);
    return a;
}
}  // namespace

extern "C" {
aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType, const int64_t *stride,
                           int64_t offset, aclFormat format, const int64_t *storageDims, uint64_t storageDimsNum,
                           void *tensorData) {
    auto fail = [](const std::string &m) -> aclTensor * {
        twin_rt::SetErrMsg("aclCreateTensor: " + m);
        return nullptr;
    };
    // Read the enums as integers: a caller may pass any int, and loading an out-of-range enum is UB.
    int32_t rawDtype = 0;
    int32_t rawFormat = 0;
    static_assert(sizeof(dataType) == sizeof(rawDtype) && sizeof(format) == sizeof(rawFormat), "enum size");
    std::memcpy(&rawDtype, &dataType, sizeof(rawDtype));
    std::memcpy(&rawFormat, &format, sizeof(rawFormat));
    if (!twin_rt::IsDataTypeEnumerator(rawDtype)) { return fail("dataType " + std::to_string(rawDtype) + " is not an aclDataType value"); }
    if (!twin_rt::IsFormatEnumerator(rawFormat)) { return fail("format " + std::to_string(rawFormat) + " is not an aclFormat value"); }
    if (viewDimsNum > 0 && viewDims == nullptr) { return fail("viewDims is null but viewDimsNum > 0"); }
    if (viewDimsNum > 0 && stride == nullptr) { return fail("stride is null but viewDimsNum > 0"); }
    if (storageDimsNum > 0 && storageDims == nullptr) { return fail("storageDims is null but storageDimsNum > 0"); }
    if (viewDimsNum > 25 || storageDimsNum > 25) { return fail("at most 25 dims are supported"); }
    if (offset < 0) { return fail("offset must be >= 0, got " + std::to_string(offset)); }
    auto t = std::make_unique<aclTensor>();
    t->viewDims.assign(viewDims, viewDims + viewDimsNum);
    t->strides.assign(stride, stride + viewDimsNum);
    t->storageDims.assign(storageDims, storageDims + storageDimsNum);
    t->offset = offset;
    t->dtype = static_cast<aclDataType>(rawDtype);
    t->format = static_cast<aclFormat>(rawFormat);
    t->data = tensorData;
    for (size_t i = 0; i < t->viewDims.size(); ++i) {
        if (t->viewDims[i] < 0) { return fail("viewDims[" + std::to_string(i) + "] is negative"); }
        if (t->strides[i] < 0) { return fail("stride[" + std::to_string(i) + "] is negative"); }
    }
    for (size_t i = 0; i < t->storageDims.size(); ++i) {
        if (t->storageDims[i] < 0) { return fail("storageDims[" + std::to_string(i) + "] is negative"); }
    }
    // Every size below is overflow-checked: later code (Numel, StorageNumel, byte offsets) relies on it.
    int64_t numel = 0;
    int64_t storageNumel = 0;
    int64_t storageBytes = 0;
    if (!CheckedProduct(t->viewDims, &numel)) { return fail("the view's element count overflows int64"); }
    if (!CheckedProduct(t->storageDims, &storageNumel) ||
        !CheckedMul(storageNumel, std::max<int64_t>(1, twin_rt::DataTypeBytes(t->dtype)), &storageBytes)) {
        return fail("the storage's element count or byte size overflows int64");
    }
    if (numel > 0) {
        int64_t last = t->offset;
        for (size_t i = 0; i < t->viewDims.size(); ++i) {
            int64_t step = 0;
            if (!CheckedMul(t->viewDims[i] - 1, t->strides[i], &step) || !CheckedAdd(last, step, &last)) {
                return fail("the view's last element index overflows int64");
            }
        }
        if (last >= storageNumel) {
            return fail("the view (offset " + std::to_string(t->offset) + ", last element " + std::to_string(last) +
                        ") exceeds the storage of " + std::to_string(storageNumel) + " elements");
        }
    }
    t->serial = twin_rt::RegisterLiveTensor(t.get());
    return t.release();
}

aclnnStatus aclDestroyTensor(const aclTensor *tensor) {
    if (tensor == nullptr) { return ACLNN_SUCCESS; }
    if (!twin_rt::UnregisterLiveTensor(tensor)) {
        twin_rt::SetErrMsg("aclDestroyTensor: not a live aclTensor (destroyed twice, or never created by aclCreateTensor)");
        return ACLNN_ERR_PARAM_INVALID;
    }
    delete tensor;
    return ACLNN_SUCCESS;
}

aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size) {
    return CreateArray<aclIntArray>("aclCreateIntArray", value, size);
}
aclnnStatus aclDestroyIntArray(const aclIntArray *array) {
    delete array;
    return ACLNN_SUCCESS;
}
aclFloatArray *aclCreateFloatArray(const float *value, uint64_t size) {
    return CreateArray<aclFloatArray>("aclCreateFloatArray", value, size);
}
aclnnStatus aclDestroyFloatArray(const aclFloatArray *array) {
    delete array;
    return ACLNN_SUCCESS;
}
aclBoolArray *aclCreateBoolArray(const bool *value, uint64_t size) {
    return CreateArray<aclBoolArray>("aclCreateBoolArray", value, size);
}
aclnnStatus aclDestroyBoolArray(const aclBoolArray *array) {
    delete array;
    return ACLNN_SUCCESS;
}
aclnnStatus aclGetViewShape(const aclTensor *tensor, int64_t **viewDims, uint64_t *viewDimsNum) {
    if (tensor == nullptr || viewDims == nullptr || viewDimsNum == nullptr) { return ACLNN_ERR_PARAM_NULLPTR; }
    *viewDimsNum = tensor->viewDims.size();
    *viewDims = new int64_t[tensor->viewDims.size() + 1];  // caller frees with delete[] (as in CANN)
    for (size_t i = 0; i < tensor->viewDims.size(); ++i) { (*viewDims)[i] = tensor->viewDims[i]; }
    return ACLNN_SUCCESS;
}
aclnnStatus aclGetDataType(const aclTensor *tensor, aclDataType *dataType) {
    if (tensor == nullptr || dataType == nullptr) { return ACLNN_ERR_PARAM_NULLPTR; }
    *dataType = tensor->dtype;
    return ACLNN_SUCCESS;
}
aclnnStatus aclGetFormat(const aclTensor *tensor, aclFormat *format) {
    if (tensor == nullptr || format == nullptr) { return ACLNN_ERR_PARAM_NULLPTR; }
    *format = tensor->format;
    return ACLNN_SUCCESS;
}
aclnnStatus aclGetIntArraySize(const aclIntArray *array, uint64_t *size) {
    if (array == nullptr || size == nullptr) { return ACLNN_ERR_PARAM_NULLPTR; }
    *size = array->values.size();
    return ACLNN_SUCCESS;
}
const char *aclGetRecentErrMsg() { return twin_rt::g_recentErr.c_str(); }
aclnnStatus aclnnInit(const char *) { return ACLNN_SUCCESS; }
aclnnStatus aclnnFinalize() { return ACLNN_SUCCESS; }
}  // extern "C"
