// ACL runtime calls of the twin (acl/acl_rt.h): one device, host memory, synchronous streams.
#include <cstdlib>
#include <cstring>
#include <string>
#include "acl/acl.h"
#include "acl_objects.h"

namespace {
struct TwinStream { uint32_t magic = 0x5354524d; };
aclError Invalid(const std::string &msg) {
    twin_rt::SetErrMsg(msg);
    return ACL_ERROR_INVALID_PARAM;
}
bool IsStream(aclrtStream s) { return s != nullptr && static_cast<TwinStream *>(s)->magic == 0x5354524d; }
}  // namespace

extern "C" {
aclError aclInit(const char *) { return ACL_SUCCESS; }
aclError aclFinalize() { return ACL_SUCCESS; }
aclError aclrtSetDevice(int32_t deviceId) {
    return deviceId == 0 ? ACL_SUCCESS : Invalid("aclrtSetDevice: the twin has one device (id 0), got " + std::to_string(deviceId));
}
aclError aclrtResetDevice(int32_t deviceId) {
    return deviceId == 0 ? ACL_SUCCESS : Invalid("aclrtResetDevice: the twin has one device (id 0), got " + std::to_string(deviceId));
}
aclError aclrtCreateStream(aclrtStream *stream) {
    if (stream == nullptr) { return Invalid("aclrtCreateStream: stream is null"); }
    *stream = new TwinStream;
    return ACL_SUCCESS;
}
aclError aclrtDestroyStream(aclrtStream stream) {
    if (!IsStream(stream)) { return Invalid("aclrtDestroyStream: not a stream"); }
    delete static_cast<TwinStream *>(stream);
    return ACL_SUCCESS;
}
aclError aclrtSynchronizeStream(aclrtStream stream) {
    return IsStream(stream) ? ACL_SUCCESS : Invalid("aclrtSynchronizeStream: not a stream");
}
aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy) {
    if (devPtr == nullptr) { return Invalid("aclrtMalloc: devPtr is null"); }
    if (size == 0) { return Invalid("aclrtMalloc: size is 0"); }
    const size_t rounded = (size + 63) / 64 * 64;
    *devPtr = std::aligned_alloc(64, rounded);
    if (*devPtr == nullptr) { return Invalid("aclrtMalloc: out of memory"); }
    return ACL_SUCCESS;
}
aclError aclrtFree(void *devPtr) {
    if (devPtr == nullptr) { return Invalid("aclrtFree: devPtr is null"); }
    std::free(devPtr);
    return ACL_SUCCESS;
}
aclError aclrtMallocHost(void **hostPtr, size_t size) { return aclrtMalloc(hostPtr, size, ACL_MEM_MALLOC_HUGE_FIRST); }
aclError aclrtFreeHost(void *hostPtr) { return aclrtFree(hostPtr); }
aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind) {
    if (dst == nullptr || src == nullptr) { return Invalid("aclrtMemcpy: dst or src is null"); }
    if (destMax < count) {
        return Invalid("aclrtMemcpy: destMax " + std::to_string(destMax) + " < count " + std::to_string(count));
    }
    if (kind < ACL_MEMCPY_HOST_TO_HOST || kind > ACL_MEMCPY_DEVICE_TO_DEVICE) { return Invalid("aclrtMemcpy: bad kind"); }
    std::memmove(dst, src, count);
    return ACL_SUCCESS;
}
aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count) {
    if (devPtr == nullptr) { return Invalid("aclrtMemset: devPtr is null"); }
    if (maxCount < count) { return Invalid("aclrtMemset: maxCount < count"); }
    std::memset(devPtr, value, count);
    return ACL_SUCCESS;
}
}  // extern "C"
