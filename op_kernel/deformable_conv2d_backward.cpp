// DeformableConv2dBackward kernel entry (AscendC, MIX mode AIC:AIV = 1:2).
//
// Scheme (fp32 accumulation throughout; T = I/O dtype chosen by the tiling key (dcn_tiling_constants.h): float, half,
// bfloat16). The output pixels are cut into pixel chunks (tiling "pixel chunks": images x output rows, a function of
// the shape and a fixed workspace budget), so the workspace holds one chunk of G, dcol, got and partials.
// For each chunk c, in order:
// (first a prologue rearranges the weight into wp, then SyncAll)
//   phase A (vector) fold chunk c-1 (its offset/mask partials -> grad_offset; dcn_stage3_finalize.h) and
//                    rearrange chunk c's inputs into the user workspace (dcn_stage0_rearrange.h), the two
//                    interleaved on each core (dcn_phase_a.h) unless the fold also writes an image group's
//                    grad_input; each chunk also copies a slice of the next image group's input (chunk 0
//                    also all of group 0's: Stage0Rearrange::XtTiles); with shared fronts (recTiles > 0)
//                    chunk c's stage-2 records, interleaved with the others when their buffers fit the UB
//                    (tiling ubBytes; RecordSlotsBeside), else after them
//      (cube)        meanwhile G = GO^T x Wp per (image, conv group) of chunk c, via the Matmul high-level
//                    API called asynchronously from AIV code (dcn_stage1_matmul.h, Stage1Feed)
//   phase C (vector) bilinear scatter into the grad_input accumulator (one fp32 plane per pixel band of a
//                    chunk) and per-block offset/mask partials (dcn_stage2_sample.h)
//      (cube)        meanwhile Ka slot s += GOt^T x Dcol per (conv group, Ka chunk s) of chunk c (chunk 0 writes)
// With two G regions (tiling gRegions = 2; chunk c's G in region c % 2, ChunkG) the G GEMM of chunk c+1 runs in
// chunk c's phase C instead (it reads gradOutput and wp only and writes the region stage 2 does not read),
// so only chunk 0's runs in phase A.
// With image-local accumulator planes (tiling accImgs < N: one image per chunk, planes of one image) the fold of an
// image's last chunk (phase A of the next chunk) also writes that image's grad_input from its planes and zeroes them.
// then stage 3 (vector): fold the last chunk, sum the Ka slots in slot order, combine band planes in fixed
// order, transpose, cast
// (dcn_stage3_finalize.h). Every phase ends with SyncAll() over the vector cores, after each core has waited
// for its own Matmul requests.
// Event IDs: the Matmul client of REGIST_MATMUL_OBJ owns an MTE3_S event ID and its flag for the
// lifetime of its scope (ChunkLoop); TPipe::Reset frees all IDs. Rule for kernel code: no TPipe::Reset
// followed by an MTE3_S FetchEventID/AllocEventID while the client lives (see ChunkLoop).
//
// Determinism: every stage's work units are a function of the shape only (chunks, tile sizes and block sizes
// come from the tiling, never from the core count); vector core i processes its units in snake order (SnakeUnit:
// i, 2*usedVecCores-1-i, ...; stage 3: i, i+usedVecCores, ...; stage 1: from its CubeLane, so that consecutive units
// go to distinct cube cores);
// every unit writes a disjoint output range within its phase, and every reduction (matmul K loop, scatter
// into one (band plane, channel block) of grad_input, block / band / Ka-chunk partial sums) runs inside one
// unit in a fixed order; accumulations across chunks (grad_input band planes, the grad_weight Ka
// slots) run in chunk order, one phase per chunk. The only atomic adds (stage 2 grad_input, the
// matmul's grad_weight accumulation) target addresses owned by the issuing unit alone within the phase
// and are issued in program order. Hence results are bitwise identical across runs and core counts
// (tests/python/test_determinism.py: 1, 2, 7 and 48 vector cores).
// Idle vector cores: a block always has two vector cores, but the tiling may give work to fewer
// (usedVecCores < 2*blockDim when the platform exposes an odd or reduced count); a vector core with
// GetBlockIdx() >= usedVecCores does no unit work but joins every SyncAll and ends both matmuls.
//
// Limits beyond the contract's validation: Ho*Wo and one chunk's rows <= INT32_MAX (matmul tiling fields are
// int32); UB per vector core >= ~181 KiB + 8 KiB reserve (stage 2 with K >= 64 and 64-channel blocks; A2/A3: 192 KiB).
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "dcn_common.h"
#include "dcn_stage0_rearrange.h"
#include "dcn_stage1_matmul.h"
#include "dcn_stage2_sample.h"
#include "dcn_stage3_finalize.h"
#include "dcn_phase_a.h"

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
        // the input copy ([N,H,W,Cin] in T) lives in the grad_input output until stage 3 (its region is empty)
        t_.xt.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(gradInput), p_.n * hw * p_.cin);
        t_.giacc.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(userWs + td->wsGiacc), p_.pixelBands * p_.giaccPlane);
        t_.gEven.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(userWs + td->wsG), p_.chunkRows * p_.k * p_.cin);
        t_.gOdd.SetGlobalBuffer(
            reinterpret_cast<__gm__ float*>(userWs + (p_.gRegions > 1 ? td->wsG2 : td->wsG)),
            p_.chunkRows * p_.k * p_.cin);
        t_.g = t_.gEven;
        // the rearranged weight lives in the grad_weight output until stage 3
        t_.wp.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(gradWeight), p_.cout * p_.cinG * p_.k);
        t_.got.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(userWs + td->wsGot), p_.chunkRows * p_.cout);
        t_.dcol.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(userWs + td->wsDcol), p_.chunkRows * p_.cin * p_.k);
        t_.gw.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(userWs + td->wsGw), p_.wSplitK * p_.cout * p_.cinG * p_.k);
        t_.zeroed.SetGlobalBuffer(
            reinterpret_cast<__gm__ int32_t*>(userWs + td->wsZeroed), p_.pixelBands * p_.accImgs * p_.numBlocks);
        t_.rec.SetGlobalBuffer(
            reinterpret_cast<__gm__ float*>(userWs + td->wsRec),
            p_.chunkImgs * p_.pixelBands * p_.dg * p_.recTiles * p_.recFloats);
        t_.part.SetGlobalBuffer(
            reinterpret_cast<__gm__ float*>(userWs + td->wsPart), p_.chunkRows * p_.numBlocks * 3 * p_.k);
    }

    __aicore__ inline void Process()
    {
        ChunkLoop();
        if ASCEND_IS_AIC {
            return;
        }
        if (active_) {
            Stage3Finalize<T> s3;
            s3.Run(pipe_, p_, t_, idx_, true); // p_ still describes the last chunk
        }
    }

private:
    // The chunk loop runs inside the scope of the Matmul client that REGIST_MATMUL_OBJ declares (on the
    // AIC the macro serves the matmuls and returns from here). The client takes an MTE3_S event ID from
    // the pipe at registration and holds its flag set between messages until this scope ends.
    // TPipe::Reset frees every event ID, the client's included, so after the first stage's pipe.Reset()
    // nothing may take an MTE3_S ID (FetchEventID/AllocEventID, e.g. PipeSync<MTE3_S>) until the client is
    // gone: the stages inside the loop synchronise with V_MTE3 / MTE3_V / V_S / S_V / V_MTE2 / MTE2_V only,
    // and both matmuls end after the last chunk.
    __aicore__ inline void ChunkLoop()
    {
        typename DcnMatmulTypes<T>::Mm mmG;
        typename DcnMatmulTypes<T>::Mm mmW;
        // Separated mode: must precede every InitBuffer; on the AIC this serves the matmuls and returns.
        REGIST_MATMUL_OBJ(&pipe_, GetSysWorkSpacePtr(), mmG, &td_->gMatmul, mmW, &td_->wMatmul);
        idx_ = AscendC::GetBlockIdx();
        active_ = idx_ < p_.usedVecCores;
        SetChunk(p_, 0); // the prologue's job shapes are those of the first chunk
        if (active_) {
            Stage0Rearrange<T> s0;
            s0.Run(pipe_, p_, t_, idx_, Stage0Part::kWeight, nullptr); // wp: read by every G GEMM
        }
        AscendC::SyncAll();
        const bool gAhead = p_.gRegions > 1; // chunk c+1's G GEMM runs during chunk c's phase C
        for (int64_t c = 0; c < p_.numChunks; ++c) {
            // phase A: chunk c-1 is folded and chunk c rearranged; the G GEMM of chunk c runs meanwhile unless
            // it ran during chunk c-1's phase C
            if (active_) {
                Stage1Feed<T> feedG;
                DcnParams cur = p_;
                SetChunk(cur, c);
                const bool gHere = c == 0 || !gAhead;
                DcnTensors<T> tg = t_;
                tg.g = ChunkG(cur, t_, c);
                if (gHere) {
                    feedG.Begin(mmG, cur, tg, Stage1Kind::kG, idx_);
                }
                // chunk c-1's fold beside chunk c's rearrangement, unless the fold also writes an image group's
                // grad_input (its planes' transposes take the runner's buffers)
                const bool beside = c > 0 && !AccFlushAfter(p_);
                if (c > 0 && !beside) {
                    Stage3Finalize<T> fold;
                    fold.Run(pipe_, p_, t_, idx_, false); // p_ still describes chunk c-1
                }
                const DcnParams prev = p_;
                SetChunk(p_, c);
                t_.g = tg.g;
                // the chunk's shared stage-2 fronts (its phase C loads them; the SyncAll below orders the records'
                // last vector work before the next stage's scalar writes): beside the rearrangement when they fit
                Stage2Sample<T> fronts;
                const int64_t recordSlots = RecordSlotsBeside<T>(p_, fronts);
                if (beside || recordSlots > 0) {
                    RunPhaseA<T>(
                        pipe_, beside ? &prev : nullptr, p_, t_, idx_, gHere ? &feedG : nullptr, fronts, recordSlots);
                } else {
                    Stage0Rearrange<T> s0;
                    s0.Run(pipe_, p_, t_, idx_, Stage0Part::kChunk, gHere ? &feedG : nullptr);
                }
                if (p_.recTiles > 0 && recordSlots == 0) {
                    fronts.Run(pipe_, p_, t_, idx_, nullptr, Stage2Mode::kRecords);
                }
                if (gHere) {
                    feedG.Finish();
                }
            } else {
                SetChunk(p_, c);
            }
            AscendC::SyncAll();
            // phase C: the grad_weight GEMM of chunk c (and the G GEMM of chunk c+1) run while chunk c is sampled
            if (active_) {
                Stage1Feed<T> feedW;
                feedW.Begin(mmW, p_, t_, Stage1Kind::kW, idx_);
                Stage1Feed<T> feedG;
                DcnParams next = p_;
                DcnTensors<T> tg = t_;
                if (gAhead && c + 1 < p_.numChunks) {
                    SetChunk(next, c + 1);
                    tg.g = ChunkG(next, t_, c + 1);
                    feedG.Begin(mmG, next, tg, Stage1Kind::kG, idx_);
                    feedW.Chain(&feedG);
                }
                Stage2Sample<T> s2;
                s2.Run(pipe_, p_, t_, idx_, &feedW);
                feedW.Finish();
            }
            AscendC::SyncAll();
        }
        mmG.End();
        mmW.End();
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
