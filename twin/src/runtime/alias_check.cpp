// Aliasing rule of the twin's first aclnn phase: an output may not share memory with another output,
// nor with an input, except as an in-place pair the operator's contract allows — and then only as the
// identical view (same address, offset, shape, strides, dtype). A tensor's memory is the byte range
// from its first to one past its last element (for a strided input a superset of what it reads, so a
// disjoint interleaving is refused too: conservative). CANN's generated aclnn layer checks nothing of
// this; the twin enforces the contracts it knows (docs/contract-safety.md).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>
#include "aclnn/opdev/op_errno.h"
#include "executor.h"

namespace twin_rt {
namespace {
struct InPlacePair {
    const char *op;
    const char *output;
    const char *input;
};
// The in-place pairs operator contracts allow (OpDef parameter names).
constexpr InPlacePair kInPlacePairs[] = {
    {"DeformableConv2dBackward", "grad_input", "input"},
    {"DeformableConv2dBackward", "grad_offset", "offset"},
};

struct Extent {
    uintptr_t begin = 0;
    uintptr_t end = 0;  // one past the last byte; begin == end: no memory (empty or absent)
};

// Sizes fit in int64 by aclCreateTensor's checks; the address range is computed in uintptr_t.
Extent ExtentOf(const aclTensor *t) {
    if (t == nullptr || t->data == nullptr || t->Numel() == 0) { return {}; }
    const auto es = static_cast<uintptr_t>(DataTypeBytes(t->dtype));
    int64_t last = t->offset;
    for (size_t i = 0; i < t->viewDims.size(); ++i) { last += (t->viewDims[i] - 1) * t->strides[i]; }
    const uintptr_t base = reinterpret_cast<uintptr_t>(t->data);
    return {base + static_cast<uintptr_t>(t->offset) * es, base + static_cast<uintptr_t>(last + 1) * es};
}

bool Overlap(const Extent &a, const Extent &b) {
    return a.begin < a.end && b.begin < b.end && a.begin < b.end && b.begin < a.end;
}

bool SameView(const aclTensor *a, const aclTensor *b) {
    return a->data == b->data && a->offset == b->offset && a->viewDims == b->viewDims && a->strides == b->strides &&
           a->dtype == b->dtype;
}

bool InPlaceAllowed(const std::string &op, const std::string &output, const std::string &input) {
    for (const auto &p : kInPlacePairs) {
        if (op == p.op && output == p.output && input == p.input) { return true; }
    }
    return false;
}

std::string AllowedText(const std::string &op) {
    std::string s;
    for (const auto &p : kInPlacePairs) {
        if (op == p.op) { s += (s.empty() ? "" : ", ") + std::string(p.output) + " = " + p.input; }
    }
    return s.empty() ? "none" : s + " (identical views only)";
}
}  // namespace

aclnnStatus CheckAliasing(const aclOpExecutor *ex) {
    const auto &inDefs = ex->op->GetInputs();
    const auto &outDefs = ex->op->GetOutputs();
    for (size_t o = 0; o < ex->outputs.size(); ++o) {
        const aclTensor *out = ex->outputs[o];
        const Extent eo = ExtentOf(out);
        const std::string oName = ParamName(outDefs[o]);
        for (size_t p = 0; p < o; ++p) {
            if (Overlap(eo, ExtentOf(ex->outputs[p]))) {
                return Fail(ACLNN_ERR_PARAM_INVALID, ex->opType + ": outputs '" + ParamName(outDefs[p]) + "' and '" + oName +
                                                         "' overlap in memory; outputs must not alias each other");
            }
        }
        for (size_t i = 0; i < ex->inputs.size(); ++i) {
            const aclTensor *in = ex->inputs[i];
            if (!Overlap(eo, ExtentOf(in))) { continue; }
            const std::string iName = ParamName(inDefs[i]);
            if (InPlaceAllowed(ex->opType, oName, iName) && SameView(out, in)) { continue; }
            return Fail(ACLNN_ERR_PARAM_INVALID, ex->opType + ": output '" + oName + "' overlaps input '" + iName +
                                                     "' in memory; in-place outputs this operator allows: " +
                                                     AllowedText(ex->opType));
        }
    }
    return ACLNN_SUCCESS;
}
}  // namespace twin_rt
