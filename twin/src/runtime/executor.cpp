// Registries shared by the two aclnn phases (see executor.h).
#include "executor.h"
#include <set>

namespace twin_rt {
std::mutex &RegistryMutex() {
    static std::mutex m;
    return m;
}
std::map<std::string, KernelInfo> &Kernels() {
    static std::map<std::string, KernelInfo> k;
    return k;
}
static std::set<aclOpExecutor *> &LiveExecutors() {
    static std::set<aclOpExecutor *> s;
    return s;
}
void MarkLive(aclOpExecutor *ex) {
    std::lock_guard<std::mutex> lock(RegistryMutex());
    LiveExecutors().insert(ex);
}
bool IsLive(aclOpExecutor *ex) {
    std::lock_guard<std::mutex> lock(RegistryMutex());
    return ex != nullptr && LiveExecutors().count(ex) != 0;
}
void Destroy(aclOpExecutor *ex) {
    {
        std::lock_guard<std::mutex> lock(RegistryMutex());
        if (LiveExecutors().erase(ex) == 0) { return; }
    }
    delete ex;
}
aclnnStatus Fail(aclnnStatus status, const std::string &msg) {
    SetErrMsg(msg);
    return status;
}
}  // namespace twin_rt
