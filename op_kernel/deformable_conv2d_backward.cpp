// DeformableConv2dBackward kernel entry (AscendC, MIX mode AIC:AIV = 1:2).
//
// Scheme (fp32 accumulation throughout; T = I/O dtype chosen by the tiling key (dcn_tiling_constants.h): float, half, bfloat16):
//   stage 0 (vector) rearrange inputs into the user workspace, zero the grad_input accumulator
//                    (dcn_stage0_rearrange.h)
//   stage 1 (cube)   G = GO^T x Wp per (image, conv group), grad_weight partials = GOt^T x Dcol per
//                    (conv group, Ka chunk), via the Matmul high-level API called from AIV code
//                    (dcn_stage1_matmul.h)
//   stage 2 (vector) bilinear scatter into the grad_input accumulator (one fp32 plane per output-pixel
//                    band) and per-block offset/mask partials (dcn_stage2_sample.h)
//   stage 3 (vector) combine partials / band planes in fixed order, transpose, cast (dcn_stage3_finalize.h)
// Stages are separated by SyncAll() over the vector cores.
// Event IDs: the Matmul client of REGIST_MATMUL_OBJ owns an MTE3_S event ID and its flag for the
// lifetime of its scope (MatmulStages); TPipe::Reset frees all IDs. Rule for kernel code: no TPipe::Reset
// followed by an MTE3_S FetchEventID/AllocEventID while the client lives (see MatmulStages).
//
// Determinism: every stage's work units are a function of the shape only (tile sizes and block sizes
// come from the tiling, never from the core count); vector core i processes units i, i+usedVecCores, ...;
// every unit writes a disjoint output range, and every reduction (matmul K loop, scatter into one
// (band plane, channel block) of grad_input, block / band / Ka-chunk partial sums) runs inside one unit
// in a fixed order. The only atomic adds (stage 2, grad_input) target addresses owned by the issuing
// unit alone and are issued in program order. Hence results are bitwise identical across runs and
// core counts (tests/python/test_determinism.py: 1, 2, 7 and 48 vector cores).
// Idle vector cores: a block always has two vector cores, but the tiling may give work to fewer
// (usedVecCores < 2*blockDim when the platform exposes an odd or reduced count); a vector core with
// GetBlockIdx() >= usedVecCores does no unit work but joins every SyncAll and ends both matmuls.
//
// Limits beyond the contract's validation: N*Ho*Wo <= INT32_MAX (matmul tiling fields are int32);
// UB per vector core >= ~181 KiB + 8 KiB reserve (stage 2 with K >= 64 and 64-channel blocks; A2/A3: 192 KiB).
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "dcn_common.h"
#include "dcn_stage0_rearrange.h"
#include "dcn_stage1_matmul.h"
#include "dcn_stage2_sample.h"
#include "dcn_stage3_finalize.h"

namespace dcn_kernel {

template <typename T, typename TilingT>
class DeformableConv2dBackwardKernel {
public:
    __aicore__ inline void Init(GM_ADDR input, GM_ADDR gradOutput, GM_ADDR offsetOut, GM_ADDR weight, GM_ADDR offset,
                                GM_ADDR gradInput, GM_ADDR gradWeight, GM_ADDR gradOffset, GM_ADDR gradBias,
                                GM_ADDR userWs, const TilingT *td)
    {
        td_ = td;
        LoadParams(*td, p_);
        const uint64_t hw = p_.h * p_.w;
        const uint64_t offCh = p_.offsetBlocks * p_.dg * p_.k;
        t_.input.SetGlobalBuffer(reinterpret_cast<__gm__ T *>(input), p_.n * p_.cin * hw);
        t_.gradOutput.SetGlobalBuffer(reinterpret_cast<__gm__ T *>(gradOutput), p_.n * p_.cout * p_.howo);
        t_.offsetOut.SetGlobalBuffer(reinterpret_cast<__gm__ T *>(offsetOut), p_.n * p_.cin * p_.howo * p_.k);
        t_.weight.SetGlobalBuffer(reinterpret_cast<__gm__ T *>(weight), p_.cout * p_.cinG * p_.k);
        t_.offset.SetGlobalBuffer(reinterpret_cast<__gm__ T *>(offset), p_.n * offCh * p_.howo);
        t_.gradInput.SetGlobalBuffer(reinterpret_cast<__gm__ T *>(gradInput), p_.n * p_.cin * hw);
        t_.gradWeight.SetGlobalBuffer(reinterpret_cast<__gm__ T *>(gradWeight), p_.cout * p_.cinG * p_.k);
        t_.gradOffset.SetGlobalBuffer(reinterpret_cast<__gm__ T *>(gradOffset), p_.n * offCh * p_.howo);
        t_.gradBias.SetGlobalBuffer(reinterpret_cast<__gm__ T *>(gradBias), p_.cout);
        t_.xt.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(userWs + td->wsXt), p_.n * hw * p_.cin);
        t_.giacc.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(userWs + td->wsGiacc), p_.pixelBands * p_.giaccPlane);
        t_.g.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(userWs + td->wsG), p_.n * p_.howo * p_.k * p_.cin);
        t_.wp.SetGlobalBuffer(reinterpret_cast<__gm__ T *>(userWs + td->wsWp), p_.cout * p_.cinG * p_.k);
        t_.got.SetGlobalBuffer(reinterpret_cast<__gm__ T *>(userWs + td->wsGot), p_.n * p_.howo * p_.cout);
        t_.dcol.SetGlobalBuffer(reinterpret_cast<__gm__ T *>(userWs + td->wsDcol), p_.n * p_.howo * p_.cin * p_.k);
        t_.gw.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(userWs + td->wsGw), p_.wSplitK * p_.cout * p_.cinG * p_.k);
        t_.part.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(userWs + td->wsPart),
                                p_.n * p_.numBlocks * 3 * p_.k * p_.howo);
    }

    __aicore__ inline void Process()
    {
        MatmulStages();
        if ASCEND_IS_AIC {
            return;
        }
        AscendC::SyncAll();
        if (active_) {
            Stage2Sample<T> s2;
            s2.Run(pipe_, p_, t_, idx_);
        }
        AscendC::SyncAll();
        if (active_) {
            Stage3Finalize<T> s3;
            s3.Run(pipe_, p_, t_, idx_);
        }
    }

private:
    // Stages 0 and 1 run inside the scope of the Matmul client that REGIST_MATMUL_OBJ declares (on the
    // AIC the macro serves the matmuls and returns from here). The client takes an MTE3_S event ID from
    // the pipe at registration and holds its flag set between messages until this scope ends.
    // TPipe::Reset frees every event ID, the client's included, so after stage 0's pipe.Reset() nothing
    // may take an MTE3_S ID (FetchEventID/AllocEventID, e.g. PipeSync<MTE3_S>) until the client is gone:
    // stage 1 sends only Matmul messages, and stage 2 (which uses PipeSync<MTE3_S>) starts after the
    // client's quit at the end of this function.
    __aicore__ inline void MatmulStages()
    {
        typename Stage1Matmul<T>::Mm mmG;
        typename Stage1Matmul<T>::Mm mmW;
        // Separated mode: must precede every InitBuffer; on the AIC this serves the matmuls and returns.
        REGIST_MATMUL_OBJ(&pipe_, GetSysWorkSpacePtr(), mmG, &td_->gMatmul, mmW, &td_->wMatmul);
        idx_ = AscendC::GetBlockIdx();
        active_ = idx_ < p_.usedVecCores;
        if (active_) {
            Stage0Rearrange<T> s0;
            s0.Run(pipe_, p_, t_, idx_);
        }
        AscendC::SyncAll();
        Stage1Matmul<T> s1;
        if (active_) {
            s1.Run(mmG, mmW, p_, t_, idx_);
        } else {
            mmG.End();
            mmW.End();
        }
    }

    AscendC::TPipe pipe_;
    const TilingT *td_;
    int64_t idx_ = 0;
    bool active_ = false;
    DcnParams p_;
    DcnTensors<T> t_;
};

template <typename T, typename TilingT>
__aicore__ inline void RunDcnBackward(GM_ADDR input, GM_ADDR gradOutput, GM_ADDR offsetOut, GM_ADDR weight,
                                      GM_ADDR offset, GM_ADDR gradInput, GM_ADDR gradWeight, GM_ADDR gradOffset,
                                      GM_ADDR gradBias, GM_ADDR userWs, const TilingT *td)
{
    DeformableConv2dBackwardKernel<T, TilingT> op;
    op.Init(input, gradOutput, offsetOut, weight, offset, gradInput, gradWeight, gradOffset, gradBias, userWs, td);
    op.Process();
}

}  // namespace dcn_kernel

extern "C" __global__ __aicore__ void deformable_conv2d_backward(GM_ADDR input, GM_ADDR grad_output, GM_ADDR offset_out,
                                                                 GM_ADDR weight, GM_ADDR offset, GM_ADDR grad_input,
                                                                 GM_ADDR grad_weight, GM_ADDR grad_offset,
                                                                 GM_ADDR grad_bias, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    GET_TILING_DATA(tilingData, tiling);
    GM_ADDR userWs = AscendC::GetUserWorkspace(workspace);
    if (TILING_KEY_IS(DCN_TILING_KEY_FLOAT32)) {
        dcn_kernel::RunDcnBackward<float>(input, grad_output, offset_out, weight, offset, grad_input, grad_weight,
                                          grad_offset, grad_bias, userWs, &tilingData);
    } else if (TILING_KEY_IS(DCN_TILING_KEY_FLOAT16)) {
        dcn_kernel::RunDcnBackward<half>(input, grad_output, offset_out, weight, offset, grad_input, grad_weight,
                                         grad_offset, grad_bias, userWs, &tilingData);
    } else if (TILING_KEY_IS(DCN_TILING_KEY_BFLOAT16)) {
        dcn_kernel::RunDcnBackward<bfloat16_t>(input, grad_output, offset_out, weight, offset, grad_input,
                                               grad_weight, grad_offset, grad_bias, userWs, &tilingData);
    }
}
