// ACL runtime calls of the twin (acl/acl_rt.h).
#include <cstring>
#include <string>
#include <gtest/gtest.h>

#include "acl/acl.h"

TEST(AclRt, device_stream_memory)
{
    EXPECT_EQ(aclInit(nullptr), ACL_SUCCESS);
    EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclrtSetDevice(1), ACL_ERROR_INVALID_PARAM);
    aclrtStream stream = nullptr;
    EXPECT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
    EXPECT_NE(stream, nullptr);
    void *dev = nullptr;
    EXPECT_EQ(aclrtMalloc(&dev, 100, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(dev) % 64, 0);
    const char host[16] = "twin-device";
    EXPECT_EQ(aclrtMemcpy(dev, 100, host, sizeof(host), ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    char back[16] = {};
    EXPECT_EQ(aclrtMemcpy(back, sizeof(back), dev, sizeof(back), ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    EXPECT_EQ(std::strcmp(back, "twin-device"), 0);
    EXPECT_EQ(aclrtMemcpy(back, 8, dev, 16, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_INVALID_PARAM);
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find("destMax 8 < count 16"), std::string::npos);
    EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    EXPECT_EQ(aclrtFree(dev), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}
