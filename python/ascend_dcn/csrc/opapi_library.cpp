// dlopen/dlsym loader of an aclnn operator library — see opapi_library.h for the load order.
#include "opapi_library.h"

#include "library_trust.h"

#include <dlfcn.h>

#include <stdexcept>

namespace ascend_dcn {
namespace {

void *OpenOrThrow(const std::string &path, int flags, const char *role)
{
    dlerror();
    std::string trusted;
    try {
        trusted = RequireTrustedLibrary(path);
    } catch (const std::runtime_error &e) {
        throw std::runtime_error(std::string("cannot load ") + role + " library '" + path + "': " + e.what());
    }
    void *h = dlopen(trusted.c_str(), flags);
    if (h == nullptr) {
        const char *err = dlerror();
        throw std::runtime_error(std::string("cannot load ") + role + " library '" + path +
                                 "': " + (err ? err : "unknown dlopen error"));
    }
    return h;
}

template <typename Fn>
Fn As(void *p)
{
    return reinterpret_cast<Fn>(p);
}

}  // namespace

OpApiLibrary::OpApiLibrary(const std::string &opapiPath, const std::vector<std::string> &runtimePaths)
    : opapiPath_(opapiPath), runtimePaths_(runtimePaths)
{
    for (const auto &p : runtimePaths_) {
        runtimeHandles_.push_back(OpenOrThrow(p, RTLD_NOW | RTLD_GLOBAL, "runtime"));
    }
    opapiHandle_ = OpenOrThrow(opapiPath_, RTLD_NOW | RTLD_LOCAL, "operator (op_api)");

    fns_.createTensor = As<CreateTensorFn>(Lookup("aclCreateTensor", true));
    fns_.destroyTensor = As<DestroyTensorFn>(Lookup("aclDestroyTensor", true));
    fns_.createIntArray = As<CreateIntArrayFn>(Lookup("aclCreateIntArray", true));
    fns_.destroyIntArray = As<DestroyIntArrayFn>(Lookup("aclDestroyIntArray", true));
    fns_.getRecentErrMsg = As<GetRecentErrMsgFn>(Lookup("aclGetRecentErrMsg", false));
    fns_.twinSetPlatform = As<TwinSetPlatformFn>(Lookup("twinSetPlatform", false));
    fns_.setExecutorRepeatable = As<ExecutorFn>(Lookup("aclSetAclOpExecutorRepeatable", false));
    fns_.destroyExecutor = As<ExecutorFn>(Lookup("aclDestroyAclOpExecutor", false));

    dlerror();
    fns_.getWorkspaceSize =
        As<GetWorkspaceSizeFn>(dlsym(opapiHandle_, "aclnnDeformableConv2dBackwardGetWorkspaceSize"));
    fns_.execute = As<ExecuteFn>(dlsym(opapiHandle_, "aclnnDeformableConv2dBackward"));
    if (fns_.getWorkspaceSize == nullptr || fns_.execute == nullptr) {
        throw std::runtime_error("operator library '" + opapiPath_ +
                                 "' does not export aclnnDeformableConv2dBackwardGetWorkspaceSize / "
                                 "aclnnDeformableConv2dBackward");
    }
}

void *OpApiLibrary::Lookup(const char *symbol, bool required) const
{
    for (void *h : runtimeHandles_) {
        if (void *p = dlsym(h, symbol)) {
            return p;
        }
    }
    if (void *p = dlsym(opapiHandle_, symbol)) {
        return p;
    }
    if (required) {
        std::string where;
        for (const auto &p : runtimePaths_) {
            where += "'" + p + "', ";
        }
        where += "'" + opapiPath_ + "'";
        throw std::runtime_error(std::string("symbol ") + symbol + " not found in " + where);
    }
    return nullptr;
}

std::string OpApiLibrary::ExecuteSymbolFile() const
{
    Dl_info info {};
    if (dladdr(reinterpret_cast<void *>(fns_.execute), &info) == 0 || info.dli_fname == nullptr) {
        return "";
    }
    return info.dli_fname;
}

std::string OpApiLibrary::RecentErrorMessage() const
{
    if (fns_.getRecentErrMsg == nullptr) {
        return "";
    }
    const char *msg = fns_.getRecentErrMsg();
    return msg ? std::string(msg) : std::string();
}

}  // namespace ascend_dcn
