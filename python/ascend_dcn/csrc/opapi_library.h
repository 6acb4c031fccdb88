// Run-time loading of an aclnn operator library and the runtime it needs (dlopen/dlsym only).
//
// The same code serves both worlds:
//   * CPU twin: runtime = the twin's libnnopbase.so, op library = the twin-built libcust_opapi.so;
//   * Ascend host: runtime = CANN's libraries (libascendcl.so, libnnopbase.so, ...), op library =
//     the installed vendor package's op_api/lib/libcust_opapi.so.
// Nothing here links against either: the types and prototypes come from aclnn/acl_meta.h (the
// twin's stand-in or CANN's) and every function is resolved with dlsym.
//
// Load order: every runtime library with RTLD_NOW | RTLD_GLOBAL (so the op library's undefined
// symbols resolve against them), then the op library with RTLD_NOW | RTLD_LOCAL (its
// aclnnDeformableConv2dBackward* must not interpose CANN's built-in libopapi.so symbol of the same
// name). Runtime functions (aclCreateTensor, ...) are looked up in the runtime libraries first, then
// in the op library and its dependencies. Libraries are never unloaded (executors and kernel
// threads may outlive any Python object; dlopen reference counts repeated loads).
// Every library is checked by RequireTrustedLibrary (library_trust.h) before it is loaded; the
// resolved path is what gets dlopen'ed.
// Executors: when the runtime exports aclSetAclOpExecutorRepeatable + aclDestroyAclOpExecutor (CANN
// does), the caller marks each executor repeatable right after phase 1 and destroys it when it will
// not run again (executed or dropped) — CANN's only way to release an executor that never runs.
#ifndef ASCEND_DCN_OPAPI_LIBRARY_H
#define ASCEND_DCN_OPAPI_LIBRARY_H

#include <cstdint>
#include <string>
#include <vector>

#include "aclnn/acl_meta.h"

namespace ascend_dcn {

// Exactly the C signature of CANN's aclnnDeformableConv2dBackwardGetWorkspaceSize (cann-conventions
// §2.5); the stream of the second phase is aclrtStream (= void *).
using GetWorkspaceSizeFn = aclnnStatus (*)(const aclTensor *input, const aclTensor *gradOutput,
                                           const aclTensor *offsetOut, const aclTensor *weight,
                                           const aclTensor *offset, const aclIntArray *kernelSize,
                                           const aclIntArray *stride, const aclIntArray *padding,
                                           const aclIntArray *dilation, int64_t groups, int64_t deformableGroups,
                                           bool modulated, aclTensor *gradInput, aclTensor *gradWeight,
                                           aclTensor *gradOffset, aclTensor *gradBias, uint64_t *workspaceSize,
                                           aclOpExecutor **executor);
using ExecuteFn = aclnnStatus (*)(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, void *stream);

using CreateTensorFn = decltype(&aclCreateTensor);
using DestroyTensorFn = decltype(&aclDestroyTensor);
using CreateIntArrayFn = decltype(&aclCreateIntArray);
using DestroyIntArrayFn = decltype(&aclDestroyIntArray);
using GetRecentErrMsgFn = const char *(*)();
using TwinSetPlatformFn = void (*)(const char *soc, uint32_t aivCores);
using ExecutorFn = aclnnStatus (*)(aclOpExecutor *executor);

struct OpApiFunctions {
    CreateTensorFn createTensor = nullptr;
    DestroyTensorFn destroyTensor = nullptr;
    CreateIntArrayFn createIntArray = nullptr;
    DestroyIntArrayFn destroyIntArray = nullptr;
    GetRecentErrMsgFn getRecentErrMsg = nullptr;   // optional: "" when absent
    TwinSetPlatformFn twinSetPlatform = nullptr;   // optional: only the twin runtime has it
    ExecutorFn setExecutorRepeatable = nullptr;    // optional: aclSetAclOpExecutorRepeatable
    ExecutorFn destroyExecutor = nullptr;          // optional: aclDestroyAclOpExecutor
    GetWorkspaceSizeFn getWorkspaceSize = nullptr;
    ExecuteFn execute = nullptr;
};

class OpApiLibrary {
public:
    // Throws std::runtime_error naming the library and the dlerror() text, or the missing symbol.
    OpApiLibrary(const std::string &opapiPath, const std::vector<std::string> &runtimePaths);

    const OpApiFunctions &Functions() const { return fns_; }
    const std::string &OpApiPath() const { return opapiPath_; }
    const std::vector<std::string> &RuntimePaths() const { return runtimePaths_; }
    std::string RecentErrorMessage() const;
    // True when executors can be released without running (both optional functions exist).
    bool CanReleaseExecutors() const { return fns_.setExecutorRepeatable && fns_.destroyExecutor; }
    // The file (dladdr) that defines the bound aclnnDeformableConv2dBackward: which symbol we call.
    std::string ExecuteSymbolFile() const;

private:
    void *Lookup(const char *symbol, bool required) const;

    std::string opapiPath_;
    std::vector<std::string> runtimePaths_;
    std::vector<void *> runtimeHandles_;
    void *opapiHandle_ = nullptr;
    OpApiFunctions fns_;
};

}  // namespace ascend_dcn

#endif  // ASCEND_DCN_OPAPI_LIBRARY_H
