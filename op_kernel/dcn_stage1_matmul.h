// Stage 1 (cube, driven from the vector cores through the Matmul high-level API), one pixel chunk
// (DcnParams cN0.., SetChunk; rows r = image-in-chunk * qLen + pixel-in-chunk, R = cR rows):
//   G[i][g]  = GO_g[n]^T x Wp_g   : [qLen, K*CinG] fp32 for image n = cN0+i, A = gradOutput[n][g*CoutG..][q0..]
//                                   stored [CoutG][HoWo] (transposed A), B = wp[g] [CoutG][K*CinG]
//   gw[s][g] (+)= GOt_g[s]^T x Dcol_g[s] : [CoutG, CinG*K] fp32 over Ka chunk s of the chunk's R rows, A = got[g]
//                                   rows of chunk s stored [rows][CoutG] (transposed A), B = dcol[g] rows of
//                                   chunk s [rows][CinG*K]; slot 0 is the grad_weight accumulator: chunk 0
//                                   writes it, later chunks add to it (IterateAll enAtomic = 1; the previous
//                                   chunk's slots >= 1 were added in the phase before, stage 3's fold)
// Output tiles (gTileM x gTileN, wTileM x wTileN x wChunkK) are fixed by the shape; each tile is computed
// by exactly one core over its full K range, so every output element has one fixed accumulation order
// (the chunks, in order, separated by SyncAll). End() is the caller's, after the last chunk.
#ifndef DCN_STAGE1_MATMUL_H
#define DCN_STAGE1_MATMUL_H

#include "dcn_common.h"

namespace dcn_kernel {

// intrinsicsCheck: A's ND row width is Ho*Wo (G) and B's is K*Cin/groups (G and W); either may reach
// 65535 elements, where the GM->L1 copy must loop row by row (MatmulConfig docs, ">= 65535").
constexpr MatmulConfig kDcnMatmulCfg = GetNormalConfig(true);

template <typename T>
struct DcnMatmulTypes {
    using AType = AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, T, true>;
    using BType = AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, T, false>;
    using CType = AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>;
    using BiasType = AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>;
    using Mm = AscendC::Matmul<AType, BType, CType, BiasType, kDcnMatmulCfg>;
};

template <typename T>
class Stage1Matmul {
public:
    using Mm = typename DcnMatmulTypes<T>::Mm;

    __aicore__ inline void Run(Mm &mmG, Mm &mmW, const DcnParams &p, const DcnTensors<T> &t, int64_t aivIdx)
    {
        const int64_t kcg = p.k * p.cinG;
        const int64_t gTm = CeilDiv(p.cQLen, p.gTileM), gTn = CeilDiv(kcg, p.gTileN);
        const int64_t nG = p.cImgs * p.groups * gTm * gTn;
        const int64_t ka = p.cR;
        const int64_t splitK = CeilDiv(ka, p.wChunkK);
        const int64_t wTm = CeilDiv(p.coutG, p.wTileM), wTn = CeilDiv(kcg, p.wTileN);
        const int64_t nW = p.groups * wTm * wTn * splitK;
        const int64_t total = nG + nW;
        for (int64_t u = CubeLane(aivIdx, p.usedVecCores); u < total; u += p.usedVecCores) {
            if (u < nG) {
                int64_t ni = u % gTn, r = u / gTn;
                int64_t mi = r % gTm; r /= gTm;
                int64_t g = r % p.groups, n = p.cN0 + r / p.groups;
                int64_t m0 = mi * p.gTileM, n0 = ni * p.gTileN;
                mmG.SetTail(
                    static_cast<int>(MinI(p.gTileM, p.cQLen - m0)), static_cast<int>(MinI(p.gTileN, kcg - n0)),
                    static_cast<int>(p.coutG));
                mmG.SetTensorA(t.gradOutput[(n * p.cout + g * p.coutG) * p.howo + p.cQ0 + m0], true);
                mmG.SetTensorB(t.wp[g * p.coutG * kcg + n0], false);
                mmG.IterateAll(t.g[ChunkGRow(p, n, g, p.cQ0 + m0) * kcg + n0]);
            } else {
                int64_t v = u - nG;
                int64_t s = v % splitK, r = v / splitK;
                int64_t ni = r % wTn; r /= wTn;
                int64_t mi = r % wTm, g = r / wTm;
                int64_t m0 = mi * p.wTileM, n0 = ni * p.wTileN, k0 = s * p.wChunkK;
                mmW.SetTail(static_cast<int>(MinI(p.wTileM, p.coutG - m0)), static_cast<int>(MinI(p.wTileN, kcg - n0)),
                            static_cast<int>(MinI(p.wChunkK, ka - k0)));
                mmW.SetTensorA(t.got[(g * p.chunkRows + k0) * p.coutG + m0], true);
                mmW.SetTensorB(t.dcol[(g * p.chunkRows + k0) * kcg + n0], false);
                const uint8_t accumulate = (s == 0 && p.cIdx > 0) ? 1 : 0;
                mmW.IterateAll(t.gw[(s * p.cout + g * p.coutG + m0) * kcg + n0], accumulate);
            }
        }
    }
};

}  // namespace dcn_kernel

#endif  // DCN_STAGE1_MATMUL_H
