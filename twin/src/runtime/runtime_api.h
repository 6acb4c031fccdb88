// Twin-internal C ABI between the code the twin opbuild generates (aclnn_<op>.cpp, kernel
// registration TU) and the twin nnopbase runtime. It plays the role of CANN's Nnopbase* functions
// (generated aclnn code calls NnopbaseAddInput/.../NnopbaseRunForWorkspace/NnopbaseRunWithWorkspace,
// e.g. JeffDing/AscendC_Code@7185a85 Sinh/SinhCustom/build_out/autogen/aclnn_sinh_custom.cpp).
// Indices: inputs/outputs by OpDef declaration (IR) index, attrs by Attr declaration index.
// Every function returns an aclnn status and sets aclGetRecentErrMsg() on failure.
#pragma once
#include <cstddef>
#include <cstdint>
#include "aclnn/acl_meta.h"

extern "C" {
// Kernel entry wrapper: args = inputs (IR order, nullptr when absent), outputs, workspace, tiling.
typedef void (*TwinKernelEntry)(void **args);
// kernelType: 0 AIV_ONLY, 1 AIC_ONLY, 2 MIX_AIV_1_0, 3 MIX_AIC_1_1, 4 MIX_AIC_1_2 (KERNEL_TYPE_*).
int TwinRegisterKernel(const char *opType, const char *kernelName, int kernelType, TwinKernelEntry entry,
                       size_t numArgs);

aclnnStatus TwinNnopbaseCreateExecutor(const char *opType, aclOpExecutor **executor);
aclnnStatus TwinNnopbaseAddInput(aclOpExecutor *executor, const aclTensor *tensor, uint32_t irIndex);
aclnnStatus TwinNnopbaseAddOutput(aclOpExecutor *executor, const aclTensor *tensor, uint32_t irIndex);
aclnnStatus TwinNnopbaseAddIntAttr(aclOpExecutor *executor, int64_t value, uint32_t attrIndex);
aclnnStatus TwinNnopbaseAddBoolAttr(aclOpExecutor *executor, bool value, uint32_t attrIndex);
aclnnStatus TwinNnopbaseAddFloatAttr(aclOpExecutor *executor, double value, uint32_t attrIndex);
aclnnStatus TwinNnopbaseAddStrAttr(aclOpExecutor *executor, const char *value, uint32_t attrIndex);
aclnnStatus TwinNnopbaseAddIntArrayAttr(aclOpExecutor *executor, const aclIntArray *value, uint32_t attrIndex);
aclnnStatus TwinNnopbaseAddFloatArrayAttr(aclOpExecutor *executor, const aclFloatArray *value, uint32_t attrIndex);
// Runs the op's TilingFunc; on failure the executor is destroyed.
aclnnStatus TwinNnopbaseRunForWorkspace(aclOpExecutor *executor, uint64_t *workspaceSize);
// Launches the kernel; the executor is destroyed in every case (single use).
aclnnStatus TwinNnopbaseRunWithWorkspace(aclOpExecutor *executor, aclrtStream stream, void *workspace,
                                         uint64_t workspaceSize);
void TwinNnopbaseDestroyExecutor(aclOpExecutor *executor);
// Reports a failure detected by generated code (e.g. a null required argument) to aclGetRecentErrMsg.
void TwinNnopbaseSetErrMsg(const char *message);

// Cost counters of the last kernel launched by aclnnXxx on the calling thread (twin::CoreCounters):
// number of virtual cores, wall time, and the sum over cores of one counter (max for ubPeakBytes).
// Counter names = the twin::PipeCounters fields: gmToUbBytes, ubToGmBytes, ubToUbBytes, gmAtomicBytes,
// gmToUbCopies, ubToGmCopies, vecElemOps, vecInstrs, vecCycles, vecUnlistedRepeats, cubeMacs, cubeCycles,
// mmadCalls, mte1Cycles, cubeGmReadBytes, cubeGmWriteBytes, cubeGmReadTransfers, cubeGmWriteTransfers,
// cubeMacsIssued, scalarGmOps, scalarUbOps, syncWaitNs, syncAllCount, ubPeakBytes (max over cores).
// Returns -1 for an unknown name.
uint32_t twinLastLaunchCores();
double twinLastLaunchWallSeconds();
int twinLastLaunchCounter(const char *counter, uint64_t *total);
// Per core (index into twin::LaunchResult::cores: AIC cores first, then AIV, each in block order):
// whether it is an AIC (1/0), one counter, and the counters snapshotted at each SyncAll arrival.
// All return -1 for an out-of-range core/index or an unknown counter name.
int twinLastLaunchCoreIsAic(uint32_t core);
int twinLastLaunchCoreCounter(uint32_t core, const char *counter, uint64_t *value);
int twinLastLaunchCoreSyncAllCount(uint32_t core);
int twinLastLaunchCoreSyncAllCounter(uint32_t core, uint32_t syncIndex, const char *counter, uint64_t *value);

// Cost model (twin/kernel/cost_table.h): constant `index` (name, value, 1 if assumed, unit, source) and
// pipe term `index` (pipe, counter, constant name or nullptr when the counter is in cycles). A pipe's
// cycles = sum of its terms' counter x constant. Return -1 past the end.
int twinCostConstant(uint32_t index, const char **name, double *value, int *assumed, const char **unit, const char **source);
int twinCostPipeTerm(uint32_t index, const char **pipe, const char **counter, const char **constant);
// Timeline (twin/kernel/pipe_timeline.h): cost variant `index` (0: the defaults, constant nullptr;
// else one assumed constant scaled by factor 0.5 or 2); per core the number of stages, a stage's
// timeline in cycles for a variant, and a stage's busy cycles on a pipe ("S", "V", "MTE2", "MTE3",
// "MTE1", "M", "FIX"; variant 0). Return -1 past the end / for an unknown pipe.
int twinCostVariant(uint32_t index, const char** constant, double* factor);
int twinLastLaunchCoreTimelineStages(uint32_t core);
int twinLastLaunchCoreTimeline(uint32_t core, uint32_t stage, uint32_t variant, double* cycles);
int twinLastLaunchCoreTimelineBusy(uint32_t core, uint32_t stage, const char* pipe, double* cycles);

// OS threads the virtual cores of a launch may use (0 = $TWIN_THREADS, else the hardware threads);
// the Python package sets torch's intra-op thread count.
void twinSetThreads(uint32_t threads);

// Test / binding knob: selects the active twin platform (soc preset name, optional AIV core count).
void twinSetPlatform(const char *soc, uint32_t aivCores);
}
