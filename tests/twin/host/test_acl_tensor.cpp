// aclCreateTensor / aclCreateIntArray of the twin nnopbase and aclGetRecentErrMsg.
#include <string>
#include <gtest/gtest.h>

#include "aclnn/aclnn_base.h"
#include "aclnn/opdev/op_errno.h"

// Success when the recent error message contains `sub`; the failure prints the message.
static ::testing::AssertionResult MsgHas(const char* sub)
{
    const std::string msg = aclGetRecentErrMsg();
    if (msg.find(sub) != std::string::npos)
        return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "recent error message \"" << msg << "\" does not contain \"" << sub << "\"";
}

TEST(AclTensor, enum_values)
{
    EXPECT_EQ(ACL_FLOAT, 0);
    EXPECT_EQ(ACL_FLOAT16, 1);
    EXPECT_EQ(ACL_INT8, 2);
    EXPECT_EQ(ACL_INT32, 3);
    EXPECT_EQ(ACL_UINT8, 4);
    EXPECT_EQ(ACL_INT64, 9);
    EXPECT_EQ(ACL_DOUBLE, 11);
    EXPECT_EQ(ACL_BOOL, 12);
    EXPECT_EQ(ACL_BF16, 27);
    EXPECT_EQ(ACL_FORMAT_NCHW, 0);
    EXPECT_EQ(ACL_FORMAT_NHWC, 1);
    EXPECT_EQ(ACL_FORMAT_ND, 2);
    EXPECT_EQ(ACLNN_ERR_PARAM_NULLPTR, 161001);
    EXPECT_EQ(ACLNN_ERR_PARAM_INVALID, 161002);
    EXPECT_EQ(ACLNN_ERR_RUNTIME_ERROR, 361001);
    EXPECT_EQ(ACLNN_ERR_INNER_TILING_ERROR, 561002);
}

TEST(AclTensor, create_and_query_tensor)
{
    float storage[24] = {};
    const int64_t view[2] = {3, 4};
    const int64_t strides[2] = {4, 1};
    const int64_t sdims[1] = {24};
    aclTensor *t = aclCreateTensor(view, 2, ACL_FLOAT, strides, 8, ACL_FORMAT_ND, sdims, 1, storage);
    EXPECT_NE(t, nullptr);
    aclDataType dt = ACL_DT_UNDEFINED;
    aclFormat fmt = ACL_FORMAT_UNDEFINED;
    EXPECT_EQ(aclGetDataType(t, &dt), 0);
    EXPECT_EQ(dt, ACL_FLOAT);
    EXPECT_EQ(aclGetFormat(t, &fmt), 0);
    EXPECT_EQ(fmt, ACL_FORMAT_ND);
    int64_t *dims = nullptr;
    uint64_t n = 0;
    ASSERT_EQ(aclGetViewShape(t, &dims, &n), 0);
    ASSERT_EQ(n, 2u);
    EXPECT_EQ(dims[0], 3);
    EXPECT_EQ(dims[1], 4);
    delete[] dims;
    EXPECT_EQ(aclDestroyTensor(t), 0);
}

TEST(AclTensor, view_outside_storage_is_rejected)
{
    float storage[12] = {};
    const int64_t view[2] = {3, 4};
    const int64_t strides[2] = {4, 1};
    const int64_t sdims[1] = {12};
    EXPECT_EQ(aclCreateTensor(view, 2, ACL_FLOAT, strides, 1, ACL_FORMAT_ND, sdims, 1, storage), nullptr);
    EXPECT_TRUE(MsgHas("exceeds the storage"));
    const int64_t neg[2] = {-1, 4};
    EXPECT_EQ(aclCreateTensor(neg, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, sdims, 1, storage), nullptr);
    EXPECT_TRUE(MsgHas("viewDims[0] is negative"));
    EXPECT_EQ(aclCreateTensor(view, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, sdims, 1, storage), nullptr);
    EXPECT_TRUE(MsgHas("stride is null"));
}

TEST(AclTensor, int_array)
{
    const int64_t v[4] = {1, 2, 3, 4};
    aclIntArray *a = aclCreateIntArray(v, 4);
    EXPECT_NE(a, nullptr);
    uint64_t size = 0;
    EXPECT_EQ(aclGetIntArraySize(a, &size), 0);
    EXPECT_EQ(size, 4);
    EXPECT_EQ(aclDestroyIntArray(a), 0);
    EXPECT_EQ(aclCreateIntArray(nullptr, 2), nullptr);
    EXPECT_TRUE(MsgHas("aclCreateIntArray"));
    aclIntArray *empty = aclCreateIntArray(nullptr, 0);
    EXPECT_NE(empty, nullptr);
    aclDestroyIntArray(empty);
}
