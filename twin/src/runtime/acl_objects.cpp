// aclCreateTensor & co. and aclGetRecentErrMsg of the twin nnopbase (see acl_objects.h).
#include "acl_objects.h"
#include <string>
#include "aclnn/aclnn_base.h"
#include "aclnn/opdev/op_errno.h"

namespace twin_rt {
namespace {
thread_local std::string g_recentErr;
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
    if (viewDimsNum > 0 && viewDims == nullptr) { return fail("viewDims is null but viewDimsNum > 0"); }
    if (viewDimsNum > 0 && stride == nullptr) { return fail("stride is null but viewDimsNum > 0"); }
    if (storageDimsNum > 0 && storageDims == nullptr) { return fail("storageDims is null but storageDimsNum > 0"); }
    if (viewDimsNum > 25 || storageDimsNum > 25) { return fail("at most 25 dims are supported"); }
    if (offset < 0) { return fail("offset must be >= 0, got " + std::to_string(offset)); }
    auto *t = new aclTensor;
    t->viewDims.assign(viewDims, viewDims + viewDimsNum);
    t->strides.assign(stride, stride + viewDimsNum);
    t->storageDims.assign(storageDims, storageDims + storageDimsNum);
    t->offset = offset;
    t->dtype = dataType;
    t->format = format;
    t->data = tensorData;
    for (size_t i = 0; i < t->viewDims.size(); ++i) {
        if (t->viewDims[i] < 0) { delete t; return fail("viewDims[" + std::to_string(i) + "] is negative"); }
        if (t->strides[i] < 0) { delete t; return fail("stride[" + std::to_string(i) + "] is negative"); }
    }
    for (size_t i = 0; i < t->storageDims.size(); ++i) {
        if (t->storageDims[i] < 0) { delete t; return fail("storageDims[" + std::to_string(i) + "] is negative"); }
    }
    if (t->Numel() > 0) {
        int64_t last = t->offset;
        for (size_t i = 0; i < t->viewDims.size(); ++i) { last += (t->viewDims[i] - 1) * t->strides[i]; }
        if (last >= t->StorageNumel()) {
            const std::string m = "the view (offset " + std::to_string(t->offset) + ", last element " +
                                  std::to_string(last) + ") exceeds the storage of " +
                                  std::to_string(t->StorageNumel()) + " elements";
            delete t;
            return fail(m);
        }
    }
    return t;
}

aclnnStatus aclDestroyTensor(const aclTensor *tensor) {
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
