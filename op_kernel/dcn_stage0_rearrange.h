// Stage 0 (vector): rearrange the inputs into the user workspace and zero the grad_input accumulator.
//   xt    [N,H,W,Cin] fp32      <- input [N,Cin,H,W]            (per image: [Cin][HW] -> [HW][Cin], cast)
//   wp    [groups][CoutG][K][CinG] <- weight [Cout][CinG][K]     (per oc: [CinG][K] -> [K][CinG])
//   got   [groups][N*HoWo][CoutG]  <- gradOutput [N][Cout][HoWo] (per (n,g): [CoutG][HoWo] -> [HoWo][CoutG])
//   dcol  [groups][N*HoWo][CinG*K] <- offsetOut [N][Cin][Ho][KH][Wo][KW]
//                                    (per (n,c,ho): [KH][Wo][KW] -> [Wo][KH*KW] in row (n*HoWo+ho*Wo), col cl*K)
//   giacc [pixelBands][N,H,W,Cin] fp32 = 0
// Work units: tiles of those transposes and 4096-element zero chunks, enumerated in that order; vector
// core i takes units i, i+usedVecCores, ... Every unit writes a disjoint GM range, so the result is
// independent of the assignment.
#ifndef DCN_STAGE0_REARRANGE_H
#define DCN_STAGE0_REARRANGE_H

#include "dcn_transpose.h"

namespace dcn_kernel {


template <typename T>
class Stage0Rearrange {
public:
    __aicore__ inline void Run(AscendC::TPipe &pipe, const DcnParams &p, const DcnTensors<T> &t, int64_t aivIdx)
    {
        runner_.Init(pipe);
        pipe.InitBuffer(zeroBuf_, dcn_tiling::kZeroChunk * 4);
        AscendC::LocalTensor<float> zeros = zeroBuf_.Get<float>();
        AscendC::Duplicate(zeros, 0.0f, static_cast<int32_t>(dcn_tiling::kZeroChunk));
        PipeSync<AscendC::HardEvent::V_MTE3>();

        TransposeJob jx = XtJob(p, 0), jw = WpJob(p, 0), jg = GotJob(p, 0, 0), jd = DcolJob(p, 0, 0, 0);
        const int64_t tx = TransposeTileCount(jx), tw = TransposeTileCount(jw);
        const int64_t tg = TransposeTileCount(jg), td = TransposeTileCount(jd);
        const int64_t nX = p.n * tx, nW = p.cout * tw, nG = p.n * p.groups * tg, nD = p.n * p.cin * p.ho * td;
        const int64_t accElems = p.pixelBands * p.giaccPlane;  // every band plane
        const int64_t nZ = CeilDiv(accElems, dcn_tiling::kZeroChunk);
        const int64_t total = nX + nW + nG + nD + nZ;

        for (int64_t u = aivIdx; u < total; u += p.usedVecCores) {
            int64_t v = u;
            if (v < nX) {
                runner_.RunTile(t.input, t.xt, XtJob(p, v / tx), v % tx);
                continue;
            }
            v -= nX;
            if (v < nW) {
                runner_.RunTile(t.weight, t.wp, WpJob(p, v / tw), v % tw);
                continue;
            }
            v -= nW;
            if (v < nG) {
                int64_t m = v / tg;
                runner_.RunTile(t.gradOutput, t.got, GotJob(p, m / p.groups, m % p.groups), v % tg);
                continue;
            }
            v -= nG;
            if (v < nD) {
                int64_t m = v / td;
                int64_t ho = m % p.ho;
                int64_t nc = m / p.ho;
                runner_.RunTile(t.offsetOut, t.dcol, DcolJob(p, nc / p.cin, nc % p.cin, ho), v % td);
                continue;
            }
            v -= nD;
            int64_t start = v * dcn_tiling::kZeroChunk;
            int64_t cnt = MinI(dcn_tiling::kZeroChunk, accElems - start);
            AscendC::DataCopyExtParams cp;
            cp.blockCount = 1;
            cp.blockLen = static_cast<uint32_t>(cnt * 4);
            cp.srcStride = 0; cp.dstStride = 0; cp.rsv = 0;
            AscendC::DataCopyPad(t.giacc[start], zeros, cp);
        }
        AscendC::PipeBarrier<PIPE_ALL>();
        pipe.Reset();
    }

private:
    __aicore__ static inline TransposeJob XtJob(const DcnParams &p, int64_t n)
    {
        const int64_t hw = p.h * p.w;
        TransposeJob j;
        j.planes = 1; j.planeStride = 0;
        j.srcOffset = n * p.cin * hw; j.dstOffset = n * hw * p.cin;
        j.rows = p.cin; j.cols = hw; j.group = 1; j.srcRowStride = hw; j.dstRowStride = p.cin;
        return j;
    }
    __aicore__ static inline TransposeJob WpJob(const DcnParams &p, int64_t oc)
    {
        TransposeJob j;
        j.planes = 1; j.planeStride = 0;
        j.srcOffset = oc * p.cinG * p.k; j.dstOffset = oc * p.k * p.cinG;
        j.rows = p.cinG; j.cols = p.k; j.group = 1; j.srcRowStride = p.k; j.dstRowStride = p.cinG;
        return j;
    }
    __aicore__ static inline TransposeJob GotJob(const DcnParams &p, int64_t n, int64_t g)
    {
        TransposeJob j;
        j.planes = 1; j.planeStride = 0;
        j.srcOffset = (n * p.cout + g * p.coutG) * p.howo;
        j.dstOffset = (g * p.n + n) * p.howo * p.coutG;
        j.rows = p.coutG; j.cols = p.howo; j.group = 1; j.srcRowStride = p.howo; j.dstRowStride = p.coutG;
        return j;
    }
    __aicore__ static inline TransposeJob DcolJob(const DcnParams &p, int64_t n, int64_t c, int64_t ho)
    {
        const int64_t gc = c / p.cinG, cl = c - gc * p.cinG;
        const int64_t rowLen = p.cinG * p.k;
        TransposeJob j;
        j.planes = 1; j.planeStride = 0;
        j.srcOffset = ((n * p.cin + c) * p.ho + ho) * p.kh * p.wo * p.kw;
        j.dstOffset = (gc * p.n * p.howo + n * p.howo + ho * p.wo) * rowLen + cl * p.k;
        j.rows = p.kh; j.cols = p.wo; j.group = p.kw; j.srcRowStride = p.wo * p.kw; j.dstRowStride = rowLen;
        return j;
    }

    TransposeRunner runner_;
    AscendC::TBuf<AscendC::TPosition::VECCALC> zeroBuf_;
};

}  // namespace dcn_kernel

#endif  // DCN_STAGE0_REARRANGE_H
