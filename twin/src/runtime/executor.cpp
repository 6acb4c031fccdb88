// Registries shared by the two aclnn phases, executor lifetime (aclSetAclOpExecutorRepeatable,
// aclDestroyAclOpExecutor, the leak report at process exit) and the tensor-liveness check (see executor.h).
#include "executor.h"
#include <cstdio>
#include <set>
#include "aclnn/opdev/op_errno.h"

namespace twin_rt {
namespace {
std::set<aclOpExecutor *> &LiveExecutors() {
    static std::set<aclOpExecutor *> s;
    return s;
}
// Reports executors still live at process exit: created by aclnnXxxGetWorkspaceSize, then neither run
// by aclnnXxx nor (after aclSetAclOpExecutorRepeatable) destroyed by aclDestroyAclOpExecutor. CANN has
// no other way to free them, so each one is a leak. Constructed after LiveExecutors() and the registry
// mutex, so it is destroyed before them.
struct ExecutorLeakReporter {
    ~ExecutorLeakReporter() {
        std::lock_guard<std::mutex> lock(RegistryMutex());
        const auto &live = LiveExecutors();
        if (live.empty()) { return; }
        std::fprintf(stderr,
                     "twin nnopbase: %zu aclOpExecutor(s) leaked at process exit (never executed by aclnnXxx; "
                     "to drop an executor that will not run, call aclSetAclOpExecutorRepeatable after "
                     "GetWorkspaceSize and then aclDestroyAclOpExecutor):",
                     live.size());
        for (const aclOpExecutor *ex : live) {
            std::fprintf(stderr, " %s%s", ex->opType.c_str(), ex->repeatable ? "(repeatable, not destroyed)" : "");
        }
        std::fprintf(stderr, "\n");
    }
};
}  // namespace

std::mutex &RegistryMutex() {
    static std::mutex m;
    return m;
}
std::map<std::string, KernelInfo> &Kernels() {
    static std::map<std::string, KernelInfo> k;
    return k;
}
void MarkLive(aclOpExecutor *ex) {
    std::lock_guard<std::mutex> lock(RegistryMutex());
    LiveExecutors().insert(ex);
    static ExecutorLeakReporter reporter;
    (void)reporter;
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

aclnnStatus CheckTensorsLive(const aclOpExecutor *ex, const char *api) {
    for (int g = 0; g < 2; ++g) {
        const auto &tensors = g == 0 ? ex->inputs : ex->outputs;
        const auto &serials = g == 0 ? ex->inputSerials : ex->outputSerials;
        const auto &defs = g == 0 ? ex->op->GetInputs() : ex->op->GetOutputs();
        for (size_t i = 0; i < tensors.size(); ++i) {
            if (tensors[i] == nullptr || TensorSerialIfLive(tensors[i]) == serials[i]) { continue; }
            return Fail(ACLNN_ERR_PARAM_INVALID, std::string(api) + ": " + (g == 0 ? "input '" : "output '") +
                                                     ParamName(defs[i]) + "' of " + ex->opType +
                                                     " was destroyed by aclDestroyTensor after GetWorkspaceSize "
                                                     "(use after free); keep every aclTensor until the executor has run");
        }
    }
    return ACLNN_SUCCESS;
}
}  // namespace twin_rt

extern "C" {
aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor) {
    using twin_rt::Fail;
    if (executor == nullptr) { return Fail(ACLNN_ERR_INNER_NULLPTR, "aclSetAclOpExecutorRepeatable: executor is null"); }
    if (!twin_rt::IsLive(executor)) {
        return Fail(ACLNN_ERR_PARAM_INVALID, "aclSetAclOpExecutorRepeatable: not a live executor (already run or destroyed)");
    }
    if (!executor->tiled) {
        return Fail(ACLNN_ERR_PARAM_INVALID, "aclSetAclOpExecutorRepeatable: the executor was not prepared by GetWorkspaceSize");
    }
    executor->repeatable = true;
    return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor) {
    using twin_rt::Fail;
    if (executor == nullptr) { return Fail(ACLNN_ERR_INNER_NULLPTR, "aclDestroyAclOpExecutor: executor is null"); }
    if (!twin_rt::IsLive(executor)) {
        return Fail(ACLNN_ERR_PARAM_INVALID, "aclDestroyAclOpExecutor: not a live executor (already run or destroyed)");
    }
    if (!executor->repeatable) {
        return Fail(ACLNN_ERR_PARAM_INVALID, "aclDestroyAclOpExecutor: only an executor made repeatable by "
                                             "aclSetAclOpExecutorRepeatable may be destroyed (CANN docs); call it first");
    }
    twin_rt::Destroy(executor);
    return ACLNN_SUCCESS;
}
}  // extern "C"
