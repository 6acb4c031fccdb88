// Stand-ins for the few ACL runtime calls the example uses (aclInit, aclrtSetDevice, streams,
// aclrtMalloc/Free/Memcpy) with CANN's signatures and enum values (acl/acl_rt.h). Used ONLY when
// the twin's acl/acl.h does not provide them yet (examples/CMakeLists.txt checks and force-includes
// this header); "device" memory is host memory and the stream is a dummy: the twin's
// aclnnDeformableConv2dBackward runs synchronously.
#ifndef DCN_EXAMPLE_TWIN_ACL_RT_FALLBACK_H
#define DCN_EXAMPLE_TWIN_ACL_RT_FALLBACK_H

#include <cstddef>
#include <cstdint>

#include "acl/acl_base.h"

extern "C" {
typedef enum aclrtMemMallocPolicy {
    ACL_MEM_MALLOC_HUGE_FIRST = 0,
    ACL_MEM_MALLOC_HUGE_ONLY = 1,
    ACL_MEM_MALLOC_NORMAL_ONLY = 2
} aclrtMemMallocPolicy;

typedef enum aclrtMemcpyKind {
    ACL_MEMCPY_HOST_TO_HOST = 0,
    ACL_MEMCPY_HOST_TO_DEVICE = 1,
    ACL_MEMCPY_DEVICE_TO_HOST = 2,
    ACL_MEMCPY_DEVICE_TO_DEVICE = 3
} aclrtMemcpyKind;

aclError aclInit(const char *configPath);
aclError aclFinalize();
aclError aclrtSetDevice(int32_t deviceId);
aclError aclrtResetDevice(int32_t deviceId);
aclError aclrtCreateStream(aclrtStream *stream);
aclError aclrtDestroyStream(aclrtStream stream);
aclError aclrtSynchronizeStream(aclrtStream stream);
aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
aclError aclrtFree(void *devPtr);
aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind);
}

#endif  // DCN_EXAMPLE_TWIN_ACL_RT_FALLBACK_H
