// Naive host reference of the DeformableConv2dBackward contract (op-semantics §4-§6), used by the
// aclnn example to check what the operator returned. Plain loops, double accumulation; sampling
// coordinates are rounded to float32 once (integer base + offset), like the contract.
// Layouts (NCHW, contiguous): input [N,Cin,H,W], weight [Cout,Cin/groups,KH,KW],
// offset [N,3*dg*KH*KW,Ho,Wo] = [dx | dy | mask] (modulated), offsetOut [N,Cin,Ho*KH,Wo*KW],
// gradOutput [N,Cout,Ho,Wo]. Attrs: stride/dilation [1,1,H,W], padding [top,bottom,left,right].
#ifndef DCN_EXAMPLE_NAIVE_REFERENCE_H
#define DCN_EXAMPLE_NAIVE_REFERENCE_H

#include <cstdint>
#include <vector>

namespace example {

struct Problem {
    int64_t n, cin, h, w, cout, kh, kw;
    int64_t stride[4], padding[4], dilation[4];
    int64_t groups, deformableGroups;
    int64_t OutH() const;
    int64_t OutW() const;
};

// offsetOut of the forward (deformOut, mask multiplied in).
std::vector<double> DeformSample(const Problem &p, const std::vector<float> &input, const std::vector<float> &offset);

struct Gradients {
    std::vector<double> gradInput, gradWeight, gradOffset, gradBias;
};

Gradients Backward(const Problem &p, const std::vector<float> &input, const std::vector<float> &gradOutput,
                   const std::vector<float> &offsetOut, const std::vector<float> &weight,
                   const std::vector<float> &offset);

}  // namespace example

#endif  // DCN_EXAMPLE_NAIVE_REFERENCE_H
