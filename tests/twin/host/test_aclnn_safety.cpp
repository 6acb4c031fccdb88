// Careless and hostile callers of the C API (issue 18 points 2-4), through the twin's generated aclnn
// layer of the toy op ToyAddCustom (z = (x + y) * scale): aclCreateTensor refuses sizes that overflow
// and non-enumerator dtypes/formats; outputs aliasing inputs beyond the contract are 161002 naming both;
// an aclTensor destroyed between the phases is reported instead of being read (heap-use-after-free
// under ASan without the check); executors are released the CANN way (aclSetAclOpExecutorRepeatable +
// aclDestroyAclOpExecutor) and one never released is reported at process exit.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include "aclnn/aclnn_base.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnn_toy_add_custom.h"
#include "check.h"

namespace {
std::string Msg() { return aclGetRecentErrMsg(); }
bool MsgHas(const std::string &s) {
    const bool ok = Msg().find(s) != std::string::npos;
    if (!ok) { std::fprintf(stderr, "  recent error message: %s\n", Msg().c_str()); }
    return ok;
}

// A 1-D float32 view of `n` elements at element `offset` of `storage`.
aclTensor *View(std::vector<float> &storage, int64_t n, int64_t offset = 0) {
    const int64_t dims[1] = {n}, strides[1] = {1}, sdims[1] = {static_cast<int64_t>(storage.size())};
    return aclCreateTensor(dims, 1, ACL_FLOAT, strides, offset, ACL_FORMAT_ND, sdims, 1, storage.data());
}

aclnnStatus Phase1(aclTensor *x, aclTensor *y, aclTensor *z, uint64_t *ws, aclOpExecutor **ex) {
    return aclnnToyAddCustomGetWorkspaceSize(x, y, 1.0, 0, z, ws, ex);
}
}  // namespace

TEST_CASE(executor_never_run_is_reported_at_exit) {
    // A child process makes an executor, drops it and exits; the twin reports the leak on stderr.
    int fds[2];
    CHECK(pipe(fds) == 0);
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 2);
        std::vector<float> a(64), b(64), c(64);
        uint64_t ws = 0;
        aclOpExecutor *ex = nullptr;
        const bool ok = Phase1(View(a, 64), View(b, 64), View(c, 64), &ws, &ex) == ACLNN_SUCCESS;
        std::exit(ok ? 0 : 3);  // runs static destructors: the leak report
    }
    close(fds[1]);
    std::string err;
    char buf[512];
    for (ssize_t n; (n = read(fds[0], buf, sizeof(buf))) > 0;) { err.append(buf, static_cast<size_t>(n)); }
    close(fds[0]);
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(err.find("1 aclOpExecutor(s) leaked at process exit") != std::string::npos);
    CHECK(err.find("ToyAddCustom") != std::string::npos);
    if (err.find("leaked") == std::string::npos) { std::fprintf(stderr, "  child stderr: %s\n", err.c_str()); }
}

TEST_CASE(create_tensor_refuses_overflow_and_bad_enums) {
    std::vector<float> s(16);
    const int64_t huge[2] = {int64_t(1) << 40, int64_t(1) << 40}, hugeStrides[2] = {1, 1};
    const int64_t small[1] = {16}, one[1] = {1};
    CHECK(aclCreateTensor(huge, 2, ACL_FLOAT, hugeStrides, 0, ACL_FORMAT_ND, small, 1, s.data()) == nullptr);
    CHECK(MsgHas("view's element count overflows int64"));
    CHECK(aclCreateTensor(small, 1, ACL_FLOAT, one, 0, ACL_FORMAT_ND, huge, 2, s.data()) == nullptr);
    CHECK(MsgHas("storage's element count or byte size overflows int64"));
    const int64_t bigBytes[1] = {int64_t(1) << 62};  // 2^62 float elements: 2^64 bytes
    CHECK(aclCreateTensor(small, 1, ACL_FLOAT, one, 0, ACL_FORMAT_ND, bigBytes, 1, s.data()) == nullptr);
    CHECK(MsgHas("byte size overflows int64"));
    const int64_t two[1] = {2}, wildStride[1] = {INT64_MAX};
    CHECK(aclCreateTensor(two, 1, ACL_FLOAT, wildStride, 1, ACL_FORMAT_ND, small, 1, s.data()) == nullptr);
    CHECK(MsgHas("last element index overflows int64"));
    aclDataType badDtype;
    const int32_t raw = 1000;
    std::memcpy(&badDtype, &raw, sizeof(raw));  // an int the enum has no enumerator for
    CHECK(aclCreateTensor(small, 1, badDtype, one, 0, ACL_FORMAT_ND, small, 1, s.data()) == nullptr);
    CHECK(MsgHas("dataType 1000 is not an aclDataType value"));
    aclFormat badFormat;
    std::memcpy(&badFormat, &raw, sizeof(raw));
    CHECK(aclCreateTensor(small, 1, ACL_FLOAT, one, 0, badFormat, small, 1, s.data()) == nullptr);
    CHECK(MsgHas("format 1000 is not an aclFormat value"));
    aclTensor *t = aclCreateTensor(small, 1, ACL_FLOAT, one, 0, ACL_FORMAT_ND, small, 1, s.data());
    CHECK(t != nullptr);
    CHECK(aclDestroyTensor(t) == ACLNN_SUCCESS);
    CHECK(aclDestroyTensor(t) == ACLNN_ERR_PARAM_INVALID);  // twice: refused, never freed again
    CHECK(MsgHas("not a live aclTensor"));
}

TEST_CASE(outputs_aliasing_inputs_are_refused_naming_both) {
    std::vector<float> buf(192), b(64);
    aclTensor *x = View(buf, 64, 0), *y = View(b, 64);
    aclTensor *zPartial = View(buf, 64, 32);  // overlaps x's second half
    aclTensor *zSame = View(buf, 64, 0);      // identical to x: in-place, which the toy's contract does not allow
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    CHECK(Phase1(x, y, zPartial, &ws, &ex) == ACLNN_ERR_PARAM_INVALID);
    CHECK(MsgHas("output 'z' overlaps input 'x'") && MsgHas("allows: none"));
    CHECK(Phase1(x, y, zSame, &ws, &ex) == ACLNN_ERR_PARAM_INVALID);
    CHECK(MsgHas("output 'z' overlaps input 'x'"));
    aclTensor *zApart = View(buf, 64, 64);   // adjacent, not overlapping: fine
    CHECK(Phase1(x, y, zApart, &ws, &ex) == ACLNN_SUCCESS);
    std::vector<uint8_t> w(ws);
    CHECK(aclnnToyAddCustom(w.data(), ws, ex, nullptr) == ACLNN_SUCCESS);
    for (aclTensor *t : {x, y, zPartial, zSame, zApart}) { aclDestroyTensor(t); }
}

TEST_CASE(tensor_destroyed_between_the_phases_is_reported) {
    std::vector<float> a(64), b(64), c(64);
    aclTensor *x = View(a, 64), *y = View(b, 64), *z = View(c, 64);
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    CHECK(Phase1(x, y, z, &ws, &ex) == ACLNN_SUCCESS);
    aclDestroyTensor(x);
    // Given to the first phase right after being destroyed (before any new tensor can take its
    // address, which allocators without ASan's quarantine do at once): refused there.
    uint64_t ws2 = 0;
    aclOpExecutor* ex2 = nullptr;
    CHECK(Phase1(x, y, z, &ws2, &ex2) == ACLNN_ERR_PARAM_INVALID);
    CHECK(MsgHas("input 0 is not a live aclTensor"));
    std::vector<aclTensor *> reuse;  // new tensors may land at x's old address: still refused
    for (int i = 0; i < 4; ++i) { reuse.push_back(View(a, 64)); }
    std::vector<uint8_t> w(ws);
    CHECK(aclnnToyAddCustom(w.data(), ws, ex, nullptr) == ACLNN_ERR_PARAM_INVALID);
    CHECK(MsgHas("aclnnToyAddCustom: input 'x' of ToyAddCustom was destroyed by aclDestroyTensor"));
    for (aclTensor *t : reuse) { aclDestroyTensor(t); }
    aclDestroyTensor(y);
    aclDestroyTensor(z);
}

TEST_CASE(repeatable_executor_runs_again_and_is_destroyed) {
    std::vector<float> a(64, 1.0f), b(64, 2.0f), c(64);
    aclTensor *x = View(a, 64), *y = View(b, 64), *z = View(c, 64);
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    CHECK(aclSetAclOpExecutorRepeatable(nullptr) == ACLNN_ERR_INNER_NULLPTR);
    CHECK(aclDestroyAclOpExecutor(nullptr) == ACLNN_ERR_INNER_NULLPTR);
    CHECK(Phase1(x, y, z, &ws, &ex) == ACLNN_SUCCESS);
    CHECK(aclDestroyAclOpExecutor(ex) == ACLNN_ERR_PARAM_INVALID);  // not repeatable: CANN's docs pair the two
    CHECK(MsgHas("aclSetAclOpExecutorRepeatable"));
    CHECK(aclSetAclOpExecutorRepeatable(ex) == ACLNN_SUCCESS);
    std::vector<uint8_t> w(ws);
    CHECK(aclnnToyAddCustom(w.data(), ws, ex, nullptr) == ACLNN_SUCCESS);
    CHECK(c[5] == 3.0f);
    a[5] = 10.0f;
    CHECK(aclnnToyAddCustom(w.data(), ws, ex, nullptr) == ACLNN_SUCCESS);  // runs again
    CHECK(c[5] == 12.0f);
    CHECK(aclDestroyAclOpExecutor(ex) == ACLNN_SUCCESS);
    CHECK(aclDestroyAclOpExecutor(ex) == ACLNN_ERR_PARAM_INVALID);  // already destroyed: refused, not freed twice
    // The way to drop an executor that will never run.
    CHECK(Phase1(x, y, z, &ws, &ex) == ACLNN_SUCCESS);
    CHECK(aclSetAclOpExecutorRepeatable(ex) == ACLNN_SUCCESS && aclDestroyAclOpExecutor(ex) == ACLNN_SUCCESS);
    for (aclTensor *t : {x, y, z}) { aclDestroyTensor(t); }
}

TEST_MAIN()
