// Host-memory stand-ins for the ACL runtime calls of the example — see twin_acl_rt_fallback.h.
#include "twin_acl_rt_fallback.h"

#include <cstdlib>
#include <cstring>

extern "C" {

aclError aclInit(const char *) { return ACL_SUCCESS; }
aclError aclFinalize() { return ACL_SUCCESS; }
aclError aclrtSetDevice(int32_t deviceId) { return deviceId == 0 ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM; }
aclError aclrtResetDevice(int32_t deviceId) { return deviceId == 0 ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM; }

aclError aclrtCreateStream(aclrtStream *stream)
{
    static int dummyStream;
    if (stream == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    *stream = &dummyStream;
    return ACL_SUCCESS;
}

aclError aclrtDestroyStream(aclrtStream stream) { return stream ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM; }
aclError aclrtSynchronizeStream(aclrtStream stream) { return stream ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM; }

aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy)
{
    if (devPtr == nullptr || size == 0) {
        return ACL_ERROR_INVALID_PARAM;
    }
    // 64-byte aligned like a device allocation would be (at least 32 B for the kernel's DataCopy).
    *devPtr = std::aligned_alloc(64, (size + 63) / 64 * 64);
    return *devPtr ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM;
}

aclError aclrtFree(void *devPtr)
{
    std::free(devPtr);
    return ACL_SUCCESS;
}

aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind)
{
    if (dst == nullptr || src == nullptr || count > destMax) {
        return ACL_ERROR_INVALID_PARAM;
    }
    std::memcpy(dst, src, count);
    return ACL_SUCCESS;
}

}  // extern "C"
