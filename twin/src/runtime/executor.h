// Twin-internal: the aclOpExecutor of the twin nnopbase and the registries shared by the two phases
// (op_runner.cpp: executor building + TilingFunc; kernel_launch.cpp: kernel registry + launch).
// An executor is live from TwinNnopbaseCreateExecutor until it is destroyed (failed GetWorkspaceSize,
// or aclnnXxx in every case); only live executors are dereferenced.
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
};
