// Twin-internal: the aclOpExecutor of the twin nnopbase and the registries shared by the two phases
// (op_runner.cpp: executor building + TilingFunc; kernel_launch.cpp: kernel registry + launch).
// An executor is live from TwinNnopbaseCreateExecutor until it is destroyed (failed GetWorkspaceSize,
// aclnnXxx unless it is repeatable, or aclDestroyAclOpExecutor for a repeatable one); only live executors
// are dereferenced. Executors still live at process exit are reported on stderr as leaks.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>
#include "acl_objects.h"
#include "register/op_def.h"
#include "runtime_api.h"

namespace twin_rt {
struct KernelInfo {
    std::string name;
    int type = 0;
    TwinKernelEntry entry = nullptr;
    size_t numArgs = 0;
};

struct AttrArg {
    bool set = false;
    bool isNull = false;
    int64_t i = 0;
    bool b = false;
    double f = 0.0;
    std::string s;
    std::vector<int64_t> listInt;
    std::vector<float> listFloat;
};

std::mutex &RegistryMutex();                      // guards Kernels() and the live-executor set
std::map<std::string, KernelInfo> &Kernels();     // OpType -> kernel
void MarkLive(aclOpExecutor *ex);
bool IsLive(aclOpExecutor *ex);
void Destroy(aclOpExecutor *ex);                  // no-op for an executor that is not live
aclnnStatus Fail(aclnnStatus status, const std::string &msg);  // sets aclGetRecentErrMsg, returns status
// 161002 naming both tensors when outputs overlap each other or an input beyond the operator's allowed
// in-place pairs (alias_check.cpp).
aclnnStatus CheckAliasing(const aclOpExecutor *ex);
// 161002 naming the tensor when an aclTensor the executor uses was destroyed (aclDestroyTensor) after
// it was added in the first phase; never dereferences a destroyed tensor.
aclnnStatus CheckTensorsLive(const aclOpExecutor *ex, const char *api);
inline std::string ParamName(const ops::OpParamDef &p) { return p.GetParamName().GetString(); }
}  // namespace twin_rt

struct aclOpExecutor {
    std::string opType;
    std::unique_ptr<ops::OpDef> op;
    std::vector<const aclTensor *> inputs;
    std::vector<const aclTensor *> outputs;
    std::vector<twin_rt::AttrArg> attrs;
    bool tiled = false;
    std::vector<uint8_t> tiling;
    uint64_t workspaceSize = 0;
    uint32_t blockDim = 0;
    uint64_t tilingKey = 0;
    uint32_t scheduleMode = 0;  // TilingContext::SetScheduleMode (1 = batch)
    std::vector<uint64_t> inputSerials;   // aclTensor::serial of each input when it was added (0: none)
    std::vector<uint64_t> outputSerials;
    bool repeatable = false;    // aclSetAclOpExecutorRepeatable: survives aclnnXxx, freed by aclDestroyAclOpExecutor
};
