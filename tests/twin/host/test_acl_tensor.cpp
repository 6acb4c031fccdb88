// aclCreateTensor / aclCreateIntArray of the twin nnopbase and aclGetRecentErrMsg.
#include <string>
#include "aclnn/aclnn_base.h"
#include "aclnn/opdev/op_errno.h"
#include "check.h"

static bool MsgHas(const char *sub) { return std::string(aclGetRecentErrMsg()).find(sub) != std::string::npos; }

TEST_CASE(enum_values) {
    CHECK(ACL_FLOAT == 0 && ACL_FLOAT16 == 1 && ACL_INT8 == 2 && ACL_INT32 == 3 && ACL_UINT8 == 4);
    CHECK(ACL_INT64 == 9 && ACL_DOUBLE == 11 && ACL_BOOL == 12 && ACL_BF16 == 27);
    CHECK(ACL_FORMAT_NCHW == 0 && ACL_FORMAT_NHWC == 1 && ACL_FORMAT_ND == 2);
    CHECK(ACLNN_ERR_PARAM_NULLPTR == 161001 && ACLNN_ERR_PARAM_INVALID == 161002);
    CHECK(ACLNN_ERR_RUNTIME_ERROR == 361001 && ACLNN_ERR_INNER_TILING_ERROR == 561002);
}

TEST_CASE(create_and_query_tensor) {
    float storage[24] = {};
    const int64_t view[2] = {3, 4};
    const int64_t strides[2] = {4, 1};
    const int64_t sdims[1] = {24};
    aclTensor *t = aclCreateTensor(view, 2, ACL_FLOAT, strides, 8, ACL_FORMAT_ND, sdims, 1, storage);
    CHECK(t != nullptr);
    aclDataType dt = ACL_DT_UNDEFINED;
    aclFormat fmt = ACL_FORMAT_UNDEFINED;
    CHECK(aclGetDataType(t, &dt) == 0 && dt == ACL_FLOAT);
    CHECK(aclGetFormat(t, &fmt) == 0 && fmt == ACL_FORMAT_ND);
    int64_t *dims = nullptr;
    uint64_t n = 0;
    CHECK(aclGetViewShape(t, &dims, &n) == 0 && n == 2 && dims[0] == 3 && dims[1] == 4);
    delete[] dims;
    CHECK(aclDestroyTensor(t) == 0);
}

TEST_CASE(view_outside_storage_is_rejected) {
    float storage[12] = {};
    const int64_t view[2] = {3, 4};
    const int64_t strides[2] = {4, 1};
    const int64_t sdims[1] = {12};
    CHECK(aclCreateTensor(view, 2, ACL_FLOAT, strides, 1, ACL_FORMAT_ND, sdims, 1, storage) == nullptr);
    CHECK(MsgHas("exceeds the storage"));
    const int64_t neg[2] = {-1, 4};
    CHECK(aclCreateTensor(neg, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, sdims, 1, storage) == nullptr);
    CHECK(MsgHas("viewDims[0] is negative"));
    CHECK(aclCreateTensor(view, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, sdims, 1, storage) == nullptr);
    CHECK(MsgHas("stride is null"));
}

TEST_CASE(int_array) {
    const int64_t v[4] = {1, 2, 3, 4};
    aclIntArray *a = aclCreateIntArray(v, 4);
    CHECK(a != nullptr);
    uint64_t size = 0;
    CHECK(aclGetIntArraySize(a, &size) == 0 && size == 4);
    CHECK(aclDestroyIntArray(a) == 0);
    CHECK(aclCreateIntArray(nullptr, 2) == nullptr);
    CHECK(MsgHas("aclCreateIntArray"));
    aclIntArray *empty = aclCreateIntArray(nullptr, 0);
    CHECK(empty != nullptr);
    aclDestroyIntArray(empty);
}

TEST_MAIN()
