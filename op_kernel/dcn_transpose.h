// Tiled GM->GM transpose with optional dtype cast, on the vector unit (Gather in UB).
//
// Job: dst[c*dstRowStride + r*E + e] = Cast<DstT>(sum_{q < planes, in order} src[q*planeStride + r*srcRowStride + c*E + e])
//      for r < R, c < C, e < E (E = contiguous element group, e.g. KW for the offsetOut rearrangement;
//      planes > 1 only for float sources: the banded grad_input accumulator).
// Tiles are fixed by the job shape (TR x TC), so the tiling of a job never depends on the core count.
// UB use: in/out queues (double-buffered), a gather buffer, an offset table and a plane buffer, CAP
// elements of up to 4 bytes each: 7 * CAP * 4 = 112 KiB. Rows inside UB are padded to 16 elements (32 B for 2- and 4-byte
// types). Requires E <= CAP (tiling guarantees KW <= 2048).
#ifndef DCN_TRANSPOSE_H
#define DCN_TRANSPOSE_H

#include "dcn_common.h"

namespace dcn_kernel {


struct TransposeJob {
    uint64_t srcOffset;      // element offset of r=0,c=0 in the source GM tensor
    uint64_t dstOffset;      // element offset of c=0,r=0 in the destination GM tensor
    int64_t rows, cols, group;
    int64_t srcRowStride, dstRowStride;
    int64_t planes;          // >= 1; planes > 1 only for float sources
    uint64_t planeStride;    // elements between planes
};

__aicore__ inline void TransposeTileShape(const TransposeJob &j, int64_t &tr, int64_t &tc)
{
    tr = MinI(j.rows, MaxI(1, 64 / j.group));
    int64_t rowOutPad = RoundUp(tr * j.group, dcn_tiling::kTransposeRowAlign);
    int64_t byIn = ((dcn_tiling::kTransposeCap / tr) / dcn_tiling::kTransposeRowAlign * dcn_tiling::kTransposeRowAlign) / j.group;
    tc = MinI(j.cols, MinI(MaxI(1, byIn), dcn_tiling::kTransposeCap / rowOutPad));
}

__aicore__ inline int64_t TransposeTileCount(const TransposeJob &j)
{
    int64_t tr, tc;
    TransposeTileShape(j, tr, tc);
    return CeilDiv(j.rows, tr) * CeilDiv(j.cols, tc);
}

class TransposeRunner {
public:
    __aicore__ inline void Init(AscendC::TPipe &pipe)
    {
        pipe.InitBuffer(inQue_, 2, dcn_tiling::kTransposeCap * 4);
        pipe.InitBuffer(outQue_, 2, dcn_tiling::kTransposeCap * 4);
        pipe.InitBuffer(gatherBuf_, dcn_tiling::kTransposeCap * 4);
        pipe.InitBuffer(tableBuf_, dcn_tiling::kTransposeCap * 4);
        pipe.InitBuffer(planeBuf_, dcn_tiling::kTransposeCap * 4);
        cacheRt_ = -1; cacheCt_ = -1; cacheE_ = -1; cacheElt_ = -1;
    }

    template <typename SrcT, typename DstT>
    __aicore__ inline void RunTile(const AscendC::GlobalTensor<SrcT> &src, const AscendC::GlobalTensor<DstT> &dst,
                                   const TransposeJob &j, int64_t tile)
    {
        int64_t tr, tc;
        TransposeTileShape(j, tr, tc);
        int64_t nTc = CeilDiv(j.cols, tc);
        int64_t r0 = (tile / nTc) * tr;
        int64_t c0 = (tile % nTc) * tc;
        int64_t rt = MinI(tr, j.rows - r0);
        int64_t ct = MinI(tc, j.cols - c0);
        int64_t e = j.group;
        int64_t sin = RoundUp(ct * e, dcn_tiling::kTransposeRowAlign);
        int64_t sout = RoundUp(rt * e, dcn_tiling::kTransposeRowAlign);
        const int64_t srcElt = sizeof(SrcT);
        const int64_t dstElt = sizeof(DstT);

        AscendC::LocalTensor<SrcT> in = inQue_.AllocTensor<SrcT>();
        AscendC::DataCopyExtParams cpIn;
        cpIn.blockCount = static_cast<uint16_t>(rt);
        cpIn.blockLen = static_cast<uint32_t>(ct * e * srcElt);
        cpIn.srcStride = static_cast<uint32_t>((j.srcRowStride - ct * e) * srcElt);
        cpIn.dstStride = static_cast<uint32_t>((sin * srcElt - RoundUp(ct * e * srcElt, dcn_tiling::kUbBlockBytes)) / dcn_tiling::kUbBlockBytes);
        cpIn.rsv = 0;
        AscendC::DataCopyPadExtParams<SrcT> noPad;
        AscendC::DataCopyPad(in, src[j.srcOffset + r0 * j.srcRowStride + c0 * e], cpIn, noPad);
        inQue_.EnQue(in);

        AscendC::LocalTensor<uint32_t> table = tableBuf_.Get<uint32_t>();
        if (rt != cacheRt_ || ct != cacheCt_ || e != cacheE_ || srcElt != cacheElt_) {
            // The offset table (bytes into the UB source tile) is rebuilt only when the tile shape changes.
            PipeSync<AscendC::HardEvent::V_S>();
            for (int64_t c = 0; c < ct; ++c) {
                for (int64_t q = 0; q < sout; ++q) {
                    uint32_t off = 0;
                    if (q < rt * e) {
                        int64_t r = q / e;
                        off = static_cast<uint32_t>((r * sin + c * e + (q - r * e)) * srcElt);
                    }
                    table.SetValue(static_cast<uint32_t>(c * sout + q), off);
                }
            }
            PipeSync<AscendC::HardEvent::S_V>();
            cacheRt_ = rt; cacheCt_ = ct; cacheE_ = e; cacheElt_ = srcElt;
        }

        in = inQue_.DeQue<SrcT>();
        if constexpr (IsSameType<SrcT, float>::value) {
            // further planes are added in plane order (fixed summation order); the V_MTE2/MTE2_V round trip
            // of each plane orders the previous plane's adds before this plane's
            AscendC::LocalTensor<float> extra = planeBuf_.Get<float>();
            for (int64_t q = 1; q < j.planes; ++q) {
                PipeSync<AscendC::HardEvent::V_MTE2>();
                AscendC::DataCopyPad(extra, src[j.srcOffset + q * j.planeStride + r0 * j.srcRowStride + c0 * e], cpIn,
                                     noPad);
                PipeSync<AscendC::HardEvent::MTE2_V>();
                for (int64_t r = 0; r < rt; ++r) {  // only the loaded part of each row (padding is unwritten)
                    AscendC::Add(in[r * sin], in[r * sin], extra[r * sin], static_cast<int32_t>(ct * e));
                }
            }
        }
        if (j.planes > 1 || !IsSameType<SrcT, DstT>::value) {
            // the plane adds have written in; the previous tile's Cast has read gathered
            AscendC::PipeBarrier<PIPE_V>();
        }
        AscendC::LocalTensor<DstT> out = outQue_.AllocTensor<DstT>();
        uint32_t count = static_cast<uint32_t>(ct * sout);
        if constexpr (IsSameType<SrcT, DstT>::value) {
            AscendC::Gather(out, in, table, 0, count);
        } else {
            AscendC::LocalTensor<SrcT> gathered = gatherBuf_.Get<SrcT>();
            AscendC::Gather(gathered, in, table, 0, count);
            AscendC::PipeBarrier<PIPE_V>();
            if constexpr (IsSameType<DstT, float>::value) {
                AscendC::Cast(out, gathered, AscendC::RoundMode::CAST_NONE, count);
            } else {
                AscendC::Cast(out, gathered, AscendC::RoundMode::CAST_RINT, count);
            }
        }
        inQue_.FreeTensor(in);
        outQue_.EnQue(out);

        out = outQue_.DeQue<DstT>();
        AscendC::DataCopyExtParams cpOut;
        cpOut.blockCount = static_cast<uint16_t>(ct);
        cpOut.blockLen = static_cast<uint32_t>(rt * e * dstElt);
        cpOut.srcStride = static_cast<uint32_t>((sout * dstElt - RoundUp(rt * e * dstElt, dcn_tiling::kUbBlockBytes)) / dcn_tiling::kUbBlockBytes);
        cpOut.dstStride = static_cast<uint32_t>((j.dstRowStride - rt * e) * dstElt);
        cpOut.rsv = 0;
        AscendC::DataCopyPad(dst[j.dstOffset + c0 * j.dstRowStride + r0 * e], out, cpOut);
        outQue_.FreeTensor(out);
    }

private:
    AscendC::TQue<AscendC::TPosition::VECIN, 2> inQue_;
    AscendC::TQue<AscendC::TPosition::VECOUT, 2> outQue_;
    AscendC::TBuf<AscendC::TPosition::VECCALC> gatherBuf_;
    AscendC::TBuf<AscendC::TPosition::VECCALC> tableBuf_;
    AscendC::TBuf<AscendC::TPosition::VECCALC> planeBuf_;
    int64_t cacheRt_, cacheCt_, cacheE_, cacheElt_;
};

}  // namespace dcn_kernel

#endif  // DCN_TRANSPOSE_H
