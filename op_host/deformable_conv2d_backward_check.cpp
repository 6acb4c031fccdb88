// Contract validation of aclnnDeformableConv2dBackward — see the header for the rules' order,
// our extensions and the message format. Arithmetic on user-supplied sizes is done in 128-bit
// integers (attributes) or with dcn_checked_math.h (tensor sizes) so that absurd values give a clear
// 161002, never an overflow.
// This file depends only on graph/types.h (header-only enums), so the Python binding compiles it
// directly (ascend_dcn._C.check_backward_args) without linking CANN or the twin;
// ArgsFromTilingContext lives in deformable_conv2d_backward_check_context.cpp.
#include "deformable_conv2d_backward_check.h"

#include <limits>

#include "dcn_checked_math.h"
#include <sstream>


namespace dcn {
namespace {

using Wide = __int128;

constexpr int64_t kMaxKernelPoints = 2048;   // kH * kW
constexpr int64_t kMaxMatmulK = 65535;       // kH * kW * inC / groups
constexpr int64_t kMaxInputPlane = 2147483647;  // inH * inW

int64_t Saturate(Wide v)
{
    if (v > static_cast<Wide>(std::numeric_limits<int64_t>::max())) {
        return std::numeric_limits<int64_t>::max();
    }
    if (v < static_cast<Wide>(std::numeric_limits<int64_t>::min())) {
        return std::numeric_limits<int64_t>::min();
    }
    return static_cast<int64_t>(v);
}

// Floor division (Python's //), b > 0.
Wide FloorDiv(Wide a, Wide b)
{
    Wide q = a / b;
    if ((a % b != 0) && (a < 0)) {
        --q;
    }
    return q;
}

std::string DtypeName(ge::DataType t)
{
    switch (t) {
        case ge::DT_FLOAT: return "float32";
        case ge::DT_FLOAT16: return "float16";
        case ge::DT_BF16: return "bfloat16";
        default: return "dtype(" + std::to_string(static_cast<int>(t)) + ")";
    }
}

int64_t DtypeBytes(ge::DataType t)
{
    return t == ge::DT_FLOAT ? 4 : 2;  // only called after step 2 (float32, float16, bfloat16)
}

std::string FormatName(ge::Format f)
{
    switch (f) {
        case ge::FORMAT_NCHW: return "NCHW";
        case ge::FORMAT_NHWC: return "NHWC";
        case ge::FORMAT_ND: return "ND";
        default: return "format(" + std::to_string(static_cast<int>(f)) + ")";
    }
}

std::string ListText(const std::vector<int64_t> &v)
{
    std::ostringstream os;
    os << '[';
    for (size_t i = 0; i < v.size(); ++i) {
        os << (i ? ", " : "") << v[i];
    }
    os << ']';
    return os.str();
}

CheckResult Fail(int32_t status, const std::string &argument, const std::string &rule,
                 const std::string &expected, const std::string &got)
{
    CheckResult r;
    r.status = status;
    r.argument = argument;
    r.message = argument + ": " + rule + "; expected " + expected + ", got " + got;
    return r;
}

CheckResult Invalid(const std::string &argument, const std::string &rule, const std::string &expected,
                    const std::string &got)
{
    return Fail(kStatusParamInvalid, argument, rule, expected, got);
}

struct NamedTensor {
    const char *name;
    const TensorDesc *desc;
};

// Step 1: CheckNotNull, in the built-in's order.
CheckResult CheckNotNull(const BackwardArgs &a)
{
    const NamedTensor tensors[] = {{"gradOutput", &a.gradOutput}, {"input", &a.input},
                                   {"weight", &a.weight},         {"offsetOut", &a.offsetOut},
                                   {"offset", &a.offset},         {"gradInput", &a.gradInput},
                                   {"gradWeight", &a.gradWeight}, {"gradBias", &a.gradBias},
                                   {"gradOffset", &a.gradOffset}};
    for (const auto &t : tensors) {
        if (!t.desc->present) {
            return Fail(kStatusParamNullptr, t.name, "must not be null", "a tensor", "nullptr");
        }
    }
    const std::pair<const char *, bool> lists[] = {{"kernelSize", a.hasKernelSize},
                                                   {"stride", a.hasStride},
                                                   {"padding", a.hasPadding},
                                                   {"dilation", a.hasDilation}};
    for (const auto &l : lists) {
        if (!l.second) {
            return Fail(kStatusParamNullptr, l.first, "must not be null", "an int array", "nullptr");
        }
    }
    return {};
}

// Step 2: CheckDtypeValid.
CheckResult CheckDtype(const BackwardArgs &a)
{
    const ge::DataType t = a.input.dtype;
    if (t != ge::DT_FLOAT && t != ge::DT_FLOAT16 && t != ge::DT_BF16) {
        return Invalid("input", "dtype must be float32, float16 or bfloat16", "float32, float16 or bfloat16",
                       DtypeName(t));
    }
    const NamedTensor sameAsInput[] = {{"gradInput", &a.gradInput}, {"gradWeight", &a.gradWeight},
                                       {"gradOffset", &a.gradOffset}, {"weight", &a.weight},
                                       {"offsetOut", &a.offsetOut}, {"offset", &a.offset},
                                       {"gradOutput", &a.gradOutput}};
    for (const auto &n : sameAsInput) {
        if (n.desc->dtype != t) {
            return Invalid(n.name, "dtype must equal the dtype of input", DtypeName(t), DtypeName(n.desc->dtype));
        }
    }
    if (a.gradBias.dtype != a.gradOutput.dtype) {
        return Invalid("gradBias", "dtype must equal the dtype of gradOutput", DtypeName(a.gradOutput.dtype),
                       DtypeName(a.gradBias.dtype));
    }
    return {};
}

// Step 3: CheckFormat.
CheckResult CheckFormat(const BackwardArgs &a)
{
    if (a.gradOutput.format != ge::FORMAT_NCHW) {
        return Invalid("gradOutput", "format must be NCHW", "NCHW", FormatName(a.gradOutput.format));
    }
    if (a.input.format != ge::FORMAT_NCHW) {
        return Invalid("input", "format must be NCHW", "NCHW", FormatName(a.input.format));
    }
    struct Pair {
        const char *name;
        const TensorDesc *desc;
        const char *refName;
        const TensorDesc *ref;
    };
    const Pair pairs[] = {{"weight", &a.weight, "input", &a.input},
                          {"offsetOut", &a.offsetOut, "input", &a.input},
                          {"offset", &a.offset, "input", &a.input},
                          {"gradInput", &a.gradInput, "input", &a.input},
                          {"gradWeight", &a.gradWeight, "weight", &a.weight},
                          {"gradOffset", &a.gradOffset, "offsetOut", &a.offsetOut}};
    for (const auto &p : pairs) {
        if (p.desc->format != p.ref->format) {
            return Invalid(p.name, std::string("format must equal the format of ") + p.refName,
                           FormatName(p.ref->format), FormatName(p.desc->format));
        }
    }
    if (a.gradBias.format != ge::FORMAT_ND) {
        return Invalid("gradBias", "format must be ND", "ND", FormatName(a.gradBias.format));
    }
    return {};
}

// Step 4: CheckAttrs.
CheckResult CheckAttrs(const BackwardArgs &a)
{
    if (a.kernelSize.size() != 2) {
        return Invalid("kernelSize", "must have 2 elements [kH, kW]", "2 elements",
                       std::to_string(a.kernelSize.size()) + " elements");
    }
    const std::pair<const char *, const std::vector<int64_t> *> fours[] = {
        {"stride", &a.stride}, {"padding", &a.padding}, {"dilation", &a.dilation}};
    for (const auto &f : fours) {
        if (f.second->size() != 4) {
            return Invalid(f.first, "must have 4 elements", "4 elements",
                           std::to_string(f.second->size()) + " elements");
        }
    }
    const int64_t kH = a.kernelSize[0];
    const int64_t kW = a.kernelSize[1];
    if (kH <= 0 || kW <= 0) {
        return Invalid("kernelSize", "all elements must be greater than 0", "kH > 0 and kW > 0",
                       ListText(a.kernelSize));
    }
    if (static_cast<Wide>(kH) * kW > kMaxKernelPoints) {
        return Invalid("kernelSize", "kH * kW must not exceed 2048", "kH * kW <= 2048",
                       std::to_string(Saturate(static_cast<Wide>(kH) * kW)));
    }
    auto allAtLeast = [](const std::vector<int64_t> &v, int64_t lo) {
        for (int64_t x : v) {
            if (x < lo) {
                return false;
            }
        }
        return true;
    };
    if (a.stride[0] != 1 || a.stride[1] != 1 || !allAtLeast(a.stride, 1)) {
        return Invalid("stride", "stride[0] and stride[1] must be 1 and every element >= 1", "[1, 1, >=1, >=1]",
                       ListText(a.stride));
    }
    if (!allAtLeast(a.padding, 0)) {
        return Invalid("padding", "every element must be >= 0", "[>=0, >=0, >=0, >=0]", ListText(a.padding));
    }
    if (a.dilation[0] != 1 || a.dilation[1] != 1 || !allAtLeast(a.dilation, 1)) {
        return Invalid("dilation", "dilation[0] and dilation[1] must be 1 and every element >= 1",
                       "[1, 1, >=1, >=1]", ListText(a.dilation));
    }
    if (a.groups <= 0) {
        return Invalid("groups", "must be greater than 0", "> 0", std::to_string(a.groups));
    }
    if (a.deformableGroups <= 0) {
        return Invalid("deformableGroups", "must be greater than 0", "> 0", std::to_string(a.deformableGroups));
    }
    // modulated: any value is accepted (our extension; the built-in requires true).
    return {};
}

// Step 5: CheckDimension.
CheckResult CheckDimension(const BackwardArgs &a)
{
    const NamedTensor fourD[] = {{"gradOutput", &a.gradOutput}, {"input", &a.input},
                                 {"weight", &a.weight},         {"offsetOut", &a.offsetOut},
                                 {"offset", &a.offset},         {"gradInput", &a.gradInput},
                                 {"gradWeight", &a.gradWeight}, {"gradOffset", &a.gradOffset}};
    for (const auto &t : fourD) {
        if (t.desc->shape.size() != 4) {
            return Invalid(t.name, "must be a 4-D tensor", "4 dimensions",
                           std::to_string(t.desc->shape.size()) + " dimensions");
        }
    }
    if (a.gradBias.shape.size() != 1) {
        return Invalid("gradBias", "must be a 1-D tensor", "1 dimension",
                       std::to_string(a.gradBias.shape.size()) + " dimensions");
    }
    return {};
}

CheckResult ShapeEquals(const char *name, const std::vector<int64_t> &got, const std::vector<int64_t> &expected,
                        const std::string &rule)
{
    if (got != expected) {
        return Invalid(name, rule, ListText(expected), ListText(got));
    }
    return {};
}

// Step 6: CheckShape (preceded by our empty-tensor rule).
CheckResult CheckShape(const BackwardArgs &a)
{
    // Same tensor order as step 5 (CheckDimension), then gradBias.
    const NamedTensor all[] = {{"gradOutput", &a.gradOutput}, {"input", &a.input},
                               {"weight", &a.weight},         {"offsetOut", &a.offsetOut},
                               {"offset", &a.offset},         {"gradInput", &a.gradInput},
                               {"gradWeight", &a.gradWeight}, {"gradOffset", &a.gradOffset},
                               {"gradBias", &a.gradBias}};
    for (const auto &t : all) {
        for (int64_t d : t.desc->shape) {
            if (d == 0) {
                return Invalid(t.name, "empty tensors are not supported", "every dimension > 0",
                               ListText(t.desc->shape));
            }
            if (d < 0) {  // only reachable from C (aclCreateTensor with negative dims)
                return Invalid(t.name, "dimensions must not be negative", "every dimension > 0",
                               ListText(t.desc->shape));
            }
        }
    }
    // Our size rule: every tensor's element count and byte size fit in int64, so no size derived from
    // them below (tiling, workspace, kernel offsets) starts from a wrapped value. Only reachable from C
    // (torch cannot create such tensors); the tiling bounds the workspace by the device memory.
    for (const auto &t : all) {
        int64_t numel = 0;
        int64_t bytes = 0;
        if (!CheckedProduct(t.desc->shape, &numel) || !CheckedMul(numel, DtypeBytes(t.desc->dtype), &bytes)) {
            return Invalid(t.name, "element count and byte size must fit in int64",
                           "at most 9223372036854775807 bytes", ListText(t.desc->shape) + " of " +
                           DtypeName(t.desc->dtype));
        }
    }
    const int64_t n = a.input.shape[0];
    const int64_t inC = a.input.shape[1];
    const int64_t inH = a.input.shape[2];
    const int64_t inW = a.input.shape[3];
    const int64_t outC = a.weight.shape[0];
    const int64_t groups = a.groups;
    const int64_t dg = a.deformableGroups;
    if (inC % dg != 0) {
        return Invalid("deformableGroups", "inC must be divisible by deformableGroups",
                       "a divisor of inC=" + std::to_string(inC), std::to_string(dg));
    }
    if (inC % groups != 0 || outC % groups != 0) {
        return Invalid("groups", "inC and outC must be divisible by groups",
                       "a divisor of inC=" + std::to_string(inC) + " and outC=" + std::to_string(outC),
                       std::to_string(groups));
    }
    if (static_cast<Wide>(inH) * inW > kMaxInputPlane) {
        return Invalid("input", "inH * inW must not exceed 2147483647", "inH * inW <= 2147483647",
                       std::to_string(Saturate(static_cast<Wide>(inH) * inW)));
    }
    const int64_t kH = a.kernelSize[0];
    const int64_t kW = a.kernelSize[1];
    const int64_t outH = OutputExtent(inH, a.padding[0], a.padding[1], kH, a.dilation[2], a.stride[2]);
    const int64_t outW = OutputExtent(inW, a.padding[2], a.padding[3], kW, a.dilation[3], a.stride[3]);
    const int64_t blocks = a.modulated ? 3 : 2;
    const std::vector<int64_t> weightShape = {outC, inC / groups, kH, kW};
    const std::vector<int64_t> offsetShape = {n, Saturate(static_cast<Wide>(blocks) * dg * kH * kW), outH, outW};
    const std::vector<int64_t> gradOutputShape = {n, outC, outH, outW};
    const std::vector<int64_t> offsetOutShape = {n, inC, Saturate(static_cast<Wide>(outH) * kH),
                                                 Saturate(static_cast<Wide>(outW) * kW)};
    const std::string offsetRule = a.modulated ? "shape must be [N, 3*deformableGroups*kH*kW, outH, outW]"
                                               : "shape must be [N, 2*deformableGroups*kH*kW, outH, outW] "
                                                 "(modulated=false)";
    CheckResult r;
    if (!(r = ShapeEquals("weight", a.weight.shape, weightShape, "shape must be [outC, inC/groups, kH, kW]")).ok()) {
        return r;
    }
    if (!(r = ShapeEquals("offset", a.offset.shape, offsetShape, offsetRule)).ok()) {
        return r;
    }
    if (!(r = ShapeEquals("gradOutput", a.gradOutput.shape, gradOutputShape, "shape must be [N, outC, outH, outW]"))
             .ok()) {
        return r;
    }
    if (!(r = ShapeEquals("offsetOut", a.offsetOut.shape, offsetOutShape,
                          "shape must be [N, inC, outH*kH, outW*kW]"))
             .ok()) {
        return r;
    }
    if (!(r = ShapeEquals("gradInput", a.gradInput.shape, a.input.shape, "shape must equal the shape of input"))
             .ok()) {
        return r;
    }
    if (!(r = ShapeEquals("gradWeight", a.gradWeight.shape, a.weight.shape, "shape must equal the shape of weight"))
             .ok()) {
        return r;
    }
    if (!(r = ShapeEquals("gradOffset", a.gradOffset.shape, a.offset.shape, "shape must equal the shape of offset"))
             .ok()) {
        return r;
    }
    if (!(r = ShapeEquals("gradBias", a.gradBias.shape, {outC}, "shape must be [outC]")).ok()) {
        return r;
    }
    const Wide matmulK = static_cast<Wide>(kH) * kW * inC / groups;
    if (matmulK > kMaxMatmulK) {
        return Invalid("kernelSize", "kH * kW * inC / groups must not exceed 65535", "<= 65535",
                       std::to_string(Saturate(matmulK)));
    }
    return {};
}

}  // namespace

int64_t OutputExtent(int64_t in, int64_t padBefore, int64_t padAfter, int64_t kernel, int64_t dilation,
                     int64_t stride)
{
    if (stride <= 0) {
        return 0;
    }
    const Wide span = (static_cast<Wide>(kernel) - 1) * dilation + 1;
    const Wide numer = static_cast<Wide>(in) + padBefore + padAfter - span;
    return Saturate(FloorDiv(numer, stride) + 1);
}

CheckResult CheckBackwardArgs(const BackwardArgs &a)
{
    CheckResult r;
    if (!(r = CheckNotNull(a)).ok()) {
        return r;
    }
    if (!(r = CheckDtype(a)).ok()) {
        return r;
    }
    if (!(r = CheckFormat(a)).ok()) {
        return r;
    }
    if (!(r = CheckAttrs(a)).ok()) {
        return r;
    }
    if (!(r = CheckDimension(a)).ok()) {
        return r;
    }
    return CheckShape(a);
}

}  // namespace dcn
