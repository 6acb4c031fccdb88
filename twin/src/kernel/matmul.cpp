// Matmul registration rules and shape validation of the twin (see twin/kernel/matmul.h).
#include "lib/matmul_intf.h"

#include <exception>

#include "twin/kernel/sync_sys.h"

namespace twin {
namespace kernel {

void MatmulRegisterBegin(const char *api, void *workspace) {
    auto &c = Core(api);
    if (c.launchType != KernelType::MIX_AIC_1_2 && c.launchType != KernelType::MIX_AIC_1_1)
        Violation(api, std::string("the Matmul API needs cube cores: launch as KERNEL_TYPE_MIX_AIC_1_2 (or 1_1); launched as ") + KernelTypeName(c.launchType));
    if (!c.isAic && c.initBufferCalled)
        Violation(api, "REGIST_MATMUL_OBJ must be called before TPipe::InitBuffer in separated mode");
    if (workspace == nullptr)
        Violation(api, "system workspace is nullptr: pass GetSysWorkSpacePtr() and have the host request GetLibApiWorkSpaceSize() bytes");
    {
        HzGmSuppress hzOff(c);   // the KFC message protocol's workspace (not modelled as GM accesses)
        CheckGm(api, c, workspace, kLibApiWorkspaceBytes, true);
    }
    c.matmulRegistered = true;
}

void MatmulCountObject(const char *api) {
    auto &c = Core(api);
    if (++c.matmulObjects > kMaxMatmulObjects) Violation(api, "more than 4 Matmul objects registered in one kernel");
}

void CheckMatmulCaller(const char *api) {
    auto &c = Core(api);
    if (c.isAic) Violation(api, "Matmul API calls must be made from AIV code in separated mode (the AIC serves them)");
    if (!c.matmulRegistered) Violation(api, "REGIST_MATMUL_OBJ was not called on this core");
}

void MatmulShape::Init(const char *api, const TCubeTiling *t) {
    if (t == nullptr) Violation(api, "cubeTiling is nullptr");
    const struct { const char *name; int v; } pos[] = {{"M", t->M}, {"N", t->N}, {"Ka", t->Ka}, {"Kb", t->Kb}, {"singleCoreM", t->singleCoreM},
                                                      {"singleCoreN", t->singleCoreN}, {"singleCoreK", t->singleCoreK}, {"baseM", t->baseM},
                                                      {"baseN", t->baseN}, {"baseK", t->baseK}};
    for (const auto &f : pos)
        if (f.v <= 0) Violation(api, std::string("TCubeTiling.") + f.name + " must be > 0; got " + std::to_string(f.v) + " (host GetTiling failed?)");
    orgM = t->M;
    orgN = t->N;
    orgKa = t->Ka;
    orgKb = t->Kb;
    orgKc = 0;
    singleM = t->singleCoreM;
    singleN = t->singleCoreN;
    singleK = t->singleCoreK;
    baseM = t->baseM;
    baseN = t->baseN;
    baseK = t->baseK;
    costTiling.stepM = static_cast<uint64_t>(t->stepM > 0 ? t->stepM : 1);
    costTiling.stepN = static_cast<uint64_t>(t->stepN > 0 ? t->stepN : 1);
    costTiling.depthA1 = static_cast<uint64_t>(t->depthA1 > 0 ? t->depthA1 : 1);
    costTiling.depthB1 = static_cast<uint64_t>(t->depthB1 > 0 ? t->depthB1 : 1);
    costTiling.iterateOrder = t->iterateOrder;
    inited = true;
}

void MatmulShape::SetOrgShape(int m, int n, int ka, int kb, int kc) {
    if (m <= 0 || n <= 0 || ka <= 0 || kb <= 0 || kc < 0)
        Violation("Matmul::SetOrgShape", "orgM, orgN, orgKa, orgKb must be > 0 and orgKc >= 0");
    orgM = m; orgN = n; orgKa = ka; orgKb = kb; orgKc = kc;
}

void MatmulShape::SetSingleShape(int m, int n, int k) {
    if (m <= 0 || n <= 0 || k <= 0) Violation("Matmul::SetSingleShape", "singleM, singleN, singleK must be > 0");
    singleM = m; singleN = n; singleK = k;
}

void MatmulShape::SetTail(int m, int n, int k) {
    if (m == 0 || n == 0 || k == 0 || m < -1 || n < -1 || k < -1) Violation("Matmul::SetTail", "tail sizes must be > 0 (or -1 = unchanged)");
    if (m > 0) singleM = m;
    if (n > 0) singleN = n;
    if (k > 0) singleK = k;
}

void MatmulShape::Validate(const char *api, bool transA, bool transB, bool intrinsicsCheck) const {
    if (singleM > orgM || singleN > orgN || singleK > orgKa || singleK > orgKb)
        Violation(api, "single-core shape (" + std::to_string(singleM) + ", " + std::to_string(singleN) + ", " + std::to_string(singleK) +
                           ") exceeds the original shape (M " + std::to_string(orgM) + ", N " + std::to_string(orgN) + ", Ka " +
                           std::to_string(orgKa) + ", Kb " + std::to_string(orgKb) + ")");
    if (orgKc != 0 && orgKc < singleN) Violation(api, "orgKc (C row length) is smaller than singleN");
    // ND source row width (inner axis) of A and B: at 65535 elements or more the GM->L1 ND2NZ copy
    // needs MatmulConfig.intrinsicsCheck (MatmulConfig docs: ">= 65535"; the TCubeTiling docs say
    // "> 65535"; dav_c220 CopyND2NZ loops row by row only when intrinsicsCheck && gCol >= UINT16_MAX,
    // so the stricter reading is the chip's).
    if (!intrinsicsCheck) {
        const int lim = 65535;
        if (!transA && orgKa >= lim) Violation(api, "ND A not transposed with Ka >= 65535 needs MatmulConfig.intrinsicsCheck; Ka = " + std::to_string(orgKa));
        if (transA && orgM >= lim) Violation(api, "ND A transposed with M >= 65535 needs MatmulConfig.intrinsicsCheck; M = " + std::to_string(orgM));
        if (!transB && orgN >= lim) Violation(api, "ND B not transposed with N >= 65535 needs MatmulConfig.intrinsicsCheck; N = " + std::to_string(orgN));
        if (transB && orgKb >= lim) Violation(api, "ND B transposed with Kb >= 65535 needs MatmulConfig.intrinsicsCheck; Kb = " + std::to_string(orgKb));
    }
}

}  // namespace kernel
}  // namespace twin

namespace twin {
namespace kernel {

void KfcClient::Register(const char *api) {
    auto &c = Core(api);
    AscendC::TPipe *pipe = ::GetTPipePtr();
    if (pipe == nullptr) Violation(api, "the Matmul client needs a TPipe (GetTPipePtr() is nullptr; construct the TPipe before REGIST_MATMUL_OBJ)");
    eventId_ = pipe->AllocEventIDImpl(AscendC::HardEvent::MTE3_S);
    FlagSet("REGIST_MATMUL_OBJ (Matmul client, holds this flag between its messages)", c, AscendC::HardEvent::MTE3_S, eventId_);
    active_ = true;
}

void KfcClient::Message(const char *api) {
    auto &c = Core(api);
    if (!active_) Violation(api, "Matmul call after its REGIST_MATMUL_OBJ client left scope (the client sent its quit message)");
    FlagWait(api, c, AscendC::HardEvent::MTE3_S, eventId_);
    AscendC::TPipe *pipe = ::GetTPipePtr();
    if (pipe == nullptr) Violation(api, "the Matmul client's TPipe is gone (GetTPipePtr() is nullptr)");
    const AscendC::TEventID s = pipe->FetchEventIDImpl(AscendC::HardEvent::S_MTE3);
    FlagSet(api, c, AscendC::HardEvent::S_MTE3, s);
    FlagWait(api, c, AscendC::HardEvent::S_MTE3, s);
    FlagSet("REGIST_MATMUL_OBJ (Matmul client, holds this flag between its messages)", c, AscendC::HardEvent::MTE3_S, eventId_);
}

// The quit message at the end of the client's scope waits the flag (AllocMessage) and does not set it.
KfcClient::~KfcClient() noexcept(false) {
    if (!active_) return;
    active_ = false;
    CoreContext *c = CurrentCore();
    if (c == nullptr) return;
    if (std::uncaught_exceptions() > 0) {
        FlagWaitQuiet(*c, AscendC::HardEvent::MTE3_S, eventId_);
        return;
    }
    FlagWait("REGIST_MATMUL_OBJ (Matmul client quit at the end of its scope)", *c, AscendC::HardEvent::MTE3_S, eventId_);
}

}  // namespace kernel
}  // namespace twin
