// Second aclnn phase of the twin nnopbase (generated aclnnXxx calls TwinNnopbaseRunWithWorkspace):
// kernel registry, GM registration of every buffer, launch on the twin kernel runtime, cost counters
// of the last launch, and the twinSetPlatform knob. A kernel fault -> ACLNN_ERR_RUNTIME_ERROR 361001.
#include <cstring>
#include <memory>
#include <string>
#include <vector>
#include "aclnn/opdev/op_errno.h"
#include "executor.h"
#ifdef TWIN_HAVE_KERNEL_RUNTIME  // set by twin/CMakeLists.txt when twin/src/kernel is built
#include "twin/kernel/core_scheduler.h"
#include "twin/kernel/cost_table.h"
#include "twin/kernel/pipe_timeline.h"
#include "twin/launch.h"
#include "twin/platform.h"
#define TWIN_HAVE_LAUNCHER 1
#endif

using twin_rt::Destroy;
using twin_rt::Fail;
using twin_rt::IsLive;
using twin_rt::KernelInfo;
using twin_rt::Kernels;
using twin_rt::ParamName;
using twin_rt::RegistryMutex;

namespace {
#ifdef TWIN_HAVE_KERNEL_RUNTIME
// Result of the last kernel launch made by aclnnXxx on this thread (cost counters for tests/benchmarks).
thread_local twin::LaunchResult g_lastLaunch;
#endif

#ifdef TWIN_HAVE_KERNEL_RUNTIME
// One counter of a twin::PipeCounters by field name; false for an unknown name.
bool ReadCounter(const twin::PipeCounters &c, const std::string &n, uint64_t &v) {
    return twin::cost::CounterByName(c, n, v);   // names: twin/kernel/cost_table.cpp
}
#endif

// Copies a strided view into a dense row-major buffer (what AutoContiguous does before the kernel).
// Rows along the last dim are copied with one memcpy when that dim has stride 1.
std::vector<uint8_t> MakeContiguous(const aclTensor *t) {
    const size_t es = static_cast<size_t>(twin_rt::DataTypeBytes(t->dtype));
    const int64_t numel = t->Numel();
    std::vector<uint8_t> out(static_cast<size_t>(numel) * es);
    const size_t rank = t->viewDims.size();
    if (numel == 0) { return out; }
    if (rank == 0) {
        std::memcpy(out.data(), static_cast<const uint8_t *>(t->data) + t->offset * es, es);
        return out;
    }
    const int64_t rowLen = t->strides[rank - 1] == 1 ? t->viewDims[rank - 1] : 1;
    const size_t outerRank = rowLen > 1 ? rank - 1 : rank;
    std::vector<int64_t> idx(outerRank, 0);
    const uint8_t *src = static_cast<const uint8_t *>(t->data);
    for (int64_t n = 0; n < numel; n += rowLen) {
        int64_t off = t->offset;
        for (size_t d = 0; d < outerRank; ++d) { off += idx[d] * t->strides[d]; }
        std::memcpy(out.data() + n * es, src + off * es, rowLen * es);
        for (size_t d = outerRank; d-- > 0;) {
            if (++idx[d] < t->viewDims[d]) { break; }
            idx[d] = 0;
        }
    }
    return out;
}
}  // namespace

extern "C" {
int TwinRegisterKernel(const char *opType, const char *kernelName, int kernelType, TwinKernelEntry entry,
                       size_t numArgs) {
    std::lock_guard<std::mutex> lock(RegistryMutex());
    Kernels()[opType] = KernelInfo{kernelName, kernelType, entry, numArgs};
    return 0;
}


aclnnStatus TwinNnopbaseRunWithWorkspace(aclOpExecutor *ex, aclrtStream stream, void *workspace,
                                         uint64_t workspaceSize) {
    (void)stream;  // the twin runs synchronously on the calling thread's virtual cores
    if (ex == nullptr) { return Fail(ACLNN_ERR_PARAM_NULLPTR, "executor != nullptr"); }
    if (!IsLive(ex)) { return Fail(ACLNN_ERR_PARAM_INVALID, "executor is not live (executors are single-use)"); }
    // A repeatable executor (aclSetAclOpExecutorRepeatable) survives the run; every other one is freed.
    std::unique_ptr<aclOpExecutor, void (*)(aclOpExecutor *)> guard(ex->repeatable ? nullptr : ex,
                                                                    [](aclOpExecutor *e) { Destroy(e); });
    if (!ex->tiled) { return Fail(ACLNN_ERR_PARAM_INVALID, ex->opType + ": executor was not prepared by GetWorkspaceSize"); }
    const std::string api = "aclnn" + ex->opType;
    if (aclnnStatus st = twin_rt::CheckTensorsLive(ex, api.c_str()); st != ACLNN_SUCCESS) { return st; }
    if (ex->workspaceSize > 0 && workspace == nullptr) {
        return Fail(ACLNN_ERR_PARAM_NULLPTR, ex->opType + ": workspace is null but " +
                                                 std::to_string(ex->workspaceSize) + " bytes are required");
    }
    if (workspaceSize < ex->workspaceSize) {
        return Fail(ACLNN_ERR_PARAM_INVALID, ex->opType + ": workspaceSize " + std::to_string(workspaceSize) +
                                                 " < required " + std::to_string(ex->workspaceSize));
    }
    KernelInfo kernel;
    {
        std::lock_guard<std::mutex> lock(RegistryMutex());
        auto it = Kernels().find(ex->opType);
        if (it == Kernels().end()) {
            return Fail(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, ex->opType + ": no kernel registered for this op type");
        }
        kernel = it->second;
    }
    const size_t nIn = ex->inputs.size(), nOut = ex->outputs.size();
    if (kernel.numArgs != nIn + nOut + 2) {
        return Fail(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, ex->opType + ": kernel " + kernel.name + " takes " +
                                                           std::to_string(kernel.numArgs) + " arguments, the OpDef needs " +
                                                           std::to_string(nIn + nOut + 2));
    }
#ifdef TWIN_HAVE_LAUNCHER
    std::vector<std::vector<uint8_t>> temps;  // contiguous copies of non-contiguous inputs
    temps.reserve(nIn);
    std::vector<void *> args(nIn + nOut + 2, nullptr);
    struct Region { const void *base; size_t bytes; std::string name; };
    std::vector<Region> regions;
    auto addRegion = [&regions](const void *base, size_t bytes, const std::string &name) {
        if (base == nullptr || bytes == 0) { return; }
        for (auto &r : regions) {
            if (r.base == base) {  // same buffer passed twice (e.g. in-place): one region, the larger size
                r.bytes = bytes > r.bytes ? bytes : r.bytes;
                return;
            }
        }
        regions.push_back({base, bytes, name});
    };
    const auto &inDefs = ex->op->GetInputs();
    const auto &outDefs = ex->op->GetOutputs();
    for (size_t i = 0; i < nIn + nOut; ++i) {
        const bool isIn = i < nIn;
        const aclTensor *t = isIn ? ex->inputs[i] : ex->outputs[i - nIn];
        if (t == nullptr) { continue; }
        const std::string name = ParamName(isIn ? inDefs[i] : outDefs[i - nIn]);
        const size_t bytes = static_cast<size_t>(t->Numel()) * twin_rt::DataTypeBytes(t->dtype);
        void *p;
        if (t->IsContiguous()) {
            p = static_cast<uint8_t *>(t->data) + t->offset * twin_rt::DataTypeBytes(t->dtype);
        } else {
            temps.push_back(MakeContiguous(t));
            p = temps.back().data();
        }
        args[i] = p;
        addRegion(p, bytes, name);
    }
    std::vector<uint8_t> tilingGm(ex->tiling.empty() ? 8 : ex->tiling.size(), 0);
    std::memcpy(tilingGm.data(), ex->tiling.data(), ex->tiling.size());
    args[nIn + nOut] = ex->workspaceSize > 0 ? workspace : nullptr;
    args[nIn + nOut + 1] = tilingGm.data();
    addRegion(args[nIn + nOut], ex->workspaceSize, "workspace");
    addRegion(tilingGm.data(), ex->tiling.size(), "tiling");

    twin::LaunchOptions opt{};
    opt.blockDim = ex->blockDim;
    opt.tilingKey = ex->tilingKey;
    opt.scheduleMode = static_cast<int32_t>(ex->scheduleMode);
    opt.workspace = args[nIn + nOut];  // GetSysWorkSpacePtr() in the kernel
    switch (kernel.type) {
        case 0: opt.type = twin::KernelType::AIV_ONLY; break;
        case 1: opt.type = twin::KernelType::AIC_ONLY; break;
        case 2: opt.type = twin::KernelType::MIX_AIV_1_0; break;
        case 3: opt.type = twin::KernelType::MIX_AIC_1_1; break;
        case 4: opt.type = twin::KernelType::MIX_AIC_1_2; break;
        default:
            return Fail(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, ex->opType + ": unsupported kernel type " + std::to_string(kernel.type));
    }
    for (const auto &r : regions) { twin::RegisterGm(r.base, r.bytes, r.name.c_str()); }
    TwinKernelEntry entry = kernel.entry;
    void **argv = args.data();
    const twin::LaunchResult res = twin::Launch(opt, [entry, argv]() { entry(argv); });
    for (const auto &r : regions) { twin::UnregisterGm(r.base); }
    g_lastLaunch = res;
    if (!res.ok) {
        return Fail(ACLNN_ERR_RUNTIME_ERROR, ex->opType + ": kernel " + kernel.name + " failed: " + res.error);
    }
    twin_rt::ClearErrMsg();
    return ACLNN_SUCCESS;
#else
    (void)workspace;
    return Fail(ACLNN_ERR_RUNTIME_ERROR, ex->opType + ": the twin kernel launcher (twin/launch.h) is not built yet");
#endif
}

uint32_t twinLastLaunchCores() {
#ifdef TWIN_HAVE_KERNEL_RUNTIME
    return static_cast<uint32_t>(g_lastLaunch.cores.size());
#else
    return 0;
#endif
}

double twinLastLaunchWallSeconds() {
#ifdef TWIN_HAVE_KERNEL_RUNTIME
    return g_lastLaunch.wallSeconds;
#else
    return 0.0;
#endif
}

int twinLastLaunchCounter(const char *counter, uint64_t *total) {
    if (counter == nullptr || total == nullptr) { return -1; }
    *total = 0;
#ifdef TWIN_HAVE_KERNEL_RUNTIME
    const bool isMax = std::string(counter) == "ubPeakBytes";
    for (const auto &c : g_lastLaunch.cores) {
        uint64_t v = 0;
        if (!ReadCounter(c, counter, v)) { return -1; }
        *total = isMax ? (v > *total ? v : *total) : *total + v;
    }
    if (g_lastLaunch.cores.empty()) {
        uint64_t v = 0;
        return ReadCounter(twin::PipeCounters{}, counter, v) ? 0 : -1;
    }
    return 0;
#else
    return -1;
#endif
}

int twinLastLaunchCoreIsAic(uint32_t core) {
#ifdef TWIN_HAVE_KERNEL_RUNTIME
    if (core >= g_lastLaunch.cores.size()) { return -1; }
    return g_lastLaunch.cores[core].isAic ? 1 : 0;
#else
    (void)core;
    return -1;
#endif
}

int twinLastLaunchCoreCounter(uint32_t core, const char *counter, uint64_t *value) {
    if (counter == nullptr || value == nullptr) { return -1; }
#ifdef TWIN_HAVE_KERNEL_RUNTIME
    if (core >= g_lastLaunch.cores.size()) { return -1; }
    return ReadCounter(g_lastLaunch.cores[core], counter, *value) ? 0 : -1;
#else
    (void)core;
    return -1;
#endif
}

int twinLastLaunchCoreSyncAllCount(uint32_t core) {
#ifdef TWIN_HAVE_KERNEL_RUNTIME
    if (core >= g_lastLaunch.cores.size()) { return -1; }
    return static_cast<int>(g_lastLaunch.cores[core].atSyncAll.size());
#else
    (void)core;
    return -1;
#endif
}

int twinLastLaunchCoreSyncAllCounter(uint32_t core, uint32_t syncIndex, const char *counter, uint64_t *value) {
    if (counter == nullptr || value == nullptr) { return -1; }
#ifdef TWIN_HAVE_KERNEL_RUNTIME
    if (core >= g_lastLaunch.cores.size() || syncIndex >= g_lastLaunch.cores[core].atSyncAll.size()) { return -1; }
    return ReadCounter(g_lastLaunch.cores[core].atSyncAll[syncIndex], counter, *value) ? 0 : -1;
#else
    (void)core;
    (void)syncIndex;
    return -1;
#endif
}

int twinCostConstant(uint32_t index, const char **name, double *value, int *assumed, const char **unit, const char **source) {
#ifdef TWIN_HAVE_KERNEL_RUNTIME
    size_t n = 0;
    const twin::cost::Constant *k = twin::cost::Constants(n);
    if (index >= n || name == nullptr || value == nullptr || assumed == nullptr || unit == nullptr || source == nullptr) { return -1; }
    *name = k[index].name;
    *value = k[index].value;
    *assumed = k[index].assumed ? 1 : 0;
    *unit = k[index].unit;
    *source = k[index].source;
    return 0;
#else
    (void)index; (void)name; (void)value; (void)assumed; (void)unit; (void)source;
    return -1;
#endif
}

int twinCostPipeTerm(uint32_t index, const char **pipe, const char **counter, const char **constant) {
#ifdef TWIN_HAVE_KERNEL_RUNTIME
    size_t n = 0;
    const twin::cost::PipeTerm *t = twin::cost::PipeTerms(n);
    if (index >= n || pipe == nullptr || counter == nullptr || constant == nullptr) { return -1; }
    *pipe = t[index].pipe;
    *counter = t[index].counter;
    *constant = t[index].constant;   // nullptr: the counter is in cycles
    return 0;
#else
    (void)index; (void)pipe; (void)counter; (void)constant;
    return -1;
#endif
}

int twinCostVariant(uint32_t index, const char** constant, double* factor)
{
#ifdef TWIN_HAVE_KERNEL_RUNTIME
    if (index >= twin::kernel::TlVariants() || constant == nullptr || factor == nullptr) {
        return -1;
    }
    *constant = twin::kernel::TlVariantConstant(index);
    *factor = twin::kernel::TlVariantFactor(index);
    return 0;
#else
    (void)index;
    (void)constant;
    (void)factor;
    return -1;
#endif
}

int twinLastLaunchCoreTimelineStages(uint32_t core)
{
#ifdef TWIN_HAVE_KERNEL_RUNTIME
    if (core >= g_lastLaunch.cores.size()) {
        return -1;
    }
    return static_cast<int>(g_lastLaunch.cores[core].stageTimeline.size());
#else
    (void)core;
    return -1;
#endif
}

int twinLastLaunchCoreTimeline(uint32_t core, uint32_t stage, uint32_t variant, double* cycles)
{
#ifdef TWIN_HAVE_KERNEL_RUNTIME
    if (cycles == nullptr || core >= g_lastLaunch.cores.size()) {
        return -1;
    }
    const auto& st = g_lastLaunch.cores[core].stageTimeline;
    if (stage >= st.size() || variant >= st[stage].size()) {
        return -1;
    }
    *cycles = st[stage][variant];
    return 0;
#else
    (void)core;
    (void)stage;
    (void)variant;
    (void)cycles;
    return -1;
#endif
}

int twinLastLaunchCoreTimelineBusy(uint32_t core, uint32_t stage, const char* pipe, double* cycles)
{
#ifdef TWIN_HAVE_KERNEL_RUNTIME
    if (cycles == nullptr || pipe == nullptr || core >= g_lastLaunch.cores.size()) {
        return -1;
    }
    const auto& st = g_lastLaunch.cores[core].stageBusy;
    const int p = twin::kernel::TlPipeFromName(pipe);
    if (p < 0 || stage >= st.size() || static_cast<size_t>(p) >= st[stage].size()) {
        return -1;
    }
    *cycles = st[stage][static_cast<size_t>(p)];
    return 0;
#else
    (void)core;
    (void)stage;
    (void)pipe;
    (void)cycles;
    return -1;
#endif
}

void twinSetThreads(uint32_t threads) {
#ifdef TWIN_HAVE_KERNEL_RUNTIME
    twin::kernel::SetCoreThreadBudget(threads);
#else
    (void)threads;
#endif
}

void twinSetPlatform(const char *soc, uint32_t aivCores) {
#ifdef TWIN_HAVE_LAUNCHER
    twin::SetPlatform(soc == nullptr ? std::string("Ascend910B2") : std::string(soc), aivCores);
#else
    (void)soc;
    (void)aivCores;
#endif
}
}  // extern "C"
