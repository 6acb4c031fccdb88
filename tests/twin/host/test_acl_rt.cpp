// ACL runtime calls of the twin (acl/acl_rt.h).
#include <cstring>
#include <string>
#include "acl/acl.h"
#include "check.h"

TEST_CASE(device_stream_memory) {
    CHECK(aclInit(nullptr) == ACL_SUCCESS);
    CHECK(aclrtSetDevice(0) == ACL_SUCCESS);
    CHECK(aclrtSetDevice(1) == ACL_ERROR_INVALID_PARAM);
    aclrtStream stream = nullptr;
    CHECK(aclrtCreateStream(&stream) == ACL_SUCCESS && stream != nullptr);
    void *dev = nullptr;
    CHECK(aclrtMalloc(&dev, 100, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CHECK(reinterpret_cast<uintptr_t>(dev) % 64 == 0);
    const char host[16] = "twin-device";
    CHECK(aclrtMemcpy(dev, 100, host, sizeof(host), ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
    char back[16] = {};
    CHECK(aclrtMemcpy(back, sizeof(back), dev, sizeof(back), ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
    CHECK(std::strcmp(back, "twin-device") == 0);
    CHECK(aclrtMemcpy(back, 8, dev, 16, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_ERROR_INVALID_PARAM);
    CHECK(std::string(aclGetRecentErrMsg()).find("destMax 8 < count 16") != std::string::npos);
    CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS);
    CHECK(aclrtFree(dev) == ACL_SUCCESS);
    CHECK(aclrtDestroyStream(stream) == ACL_SUCCESS);
    CHECK(aclrtResetDevice(0) == ACL_SUCCESS);
    CHECK(aclFinalize() == ACL_SUCCESS);
}

TEST_MAIN()
