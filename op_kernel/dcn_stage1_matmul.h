// Stage 1 (cube, driven from the vector cores through the Matmul high-level API), one pixel chunk
// (DcnParams cN0.., SetChunk; rows r = image-in-chunk * qLen + pixel-in-chunk, R = cR rows):
//   G[i][g]  = GO_g[n]^T x Wp_g   : [qLen, K*CinG] fp32 for image n = cN0+i, A = gradOutput[n][g*CoutG..][q0..]
//                                   stored [CoutG][HoWo] (transposed A), B = wp[g] [CoutG][K*CinG]
//   gw[s][g] (+)= GOt_g[s]^T x Dcol_g[s] : [CoutG, CinG*K] fp32 over Ka chunk s of the chunk's R rows, A = got[g]
//                                   rows of chunk s stored [rows][CoutG] (transposed A), B = dcol[g] rows of
//                                   chunk s [rows][CinG*K]; every slot s is written by chunk 0 (always full,
//                                   so it has all wSplitK Ka chunks) and added to by later chunks
//                                   (IterateAll enAtomic = 1), in chunk order; stage 3 sums the slots once
// Output tiles (gTileM x gTileN, wTileM x wTileN x wChunkK) are fixed by the shape; each tile is computed
// by exactly one core over its full K range, so every output element has one fixed accumulation order
// (the chunks, in order, separated by SyncAll). End() is the caller's, after the last chunk.
// Overlap with the vector stages (Stage1Feed): the G tiles of chunk c are requested during the vector phase
// that folds chunk c-1 and rearranges chunk c (they read gradOutput and wp only; wp is written by the
// prologue), or with two G regions during chunk c-1's sampling (they write the region that phase does not
// read); the grad_weight tiles of chunk c during chunk c's sampling (they read got/dcol, which that
// phase does not touch, and write gw, which it does not read). Requests are asynchronous
// (IterateAll<false>(..., waitIterateAll = true)); a vector core has at most one pending request per
// Matmul object (so up to two when both run in one phase, Chain) and waits for it (WaitIterateAll) before
// its next request on that object and before the phase's SyncAll.
// Which core computes which tile does not depend on timing, so results stay bitwise.
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

// The Matmul tiles of one phase: G tiles (kind kG) or grad_weight tiles (kind kW) of the chunk that `p`
// describes. Tile u of the phase goes to the vector core whose CubeLane is u % usedVecCores, so
// consecutive tiles go to different cube cores.
enum class Stage1Kind : int32_t { kG = 0, kW = 1 };

__aicore__ inline int64_t Stage1Tiles(const DcnParams& p, Stage1Kind kind)
{
    const int64_t kcg = p.k * p.cinG;
    if (kind == Stage1Kind::kG) {
        return p.cImgs * p.groups * CeilDiv(p.cQLen, p.gTileM) * CeilDiv(kcg, p.gTileN);
    }
    return p.groups * CeilDiv(p.coutG, p.wTileM) * CeilDiv(kcg, p.wTileN) * CeilDiv(p.cR, p.wChunkK);
}

template <typename T>
__aicore__ inline void SetStage1Tile(
    typename DcnMatmulTypes<T>::Mm& mm, const DcnParams& p, const DcnTensors<T>& t, Stage1Kind kind, int64_t u,
    uint8_t& accumulate, AscendC::GlobalTensor<float>& out)
{
    const int64_t kcg = p.k * p.cinG;
    accumulate = 0;
    if (kind == Stage1Kind::kG) {
        const int64_t gTm = CeilDiv(p.cQLen, p.gTileM), gTn = CeilDiv(kcg, p.gTileN);
        int64_t ni = u % gTn, r = u / gTn;
        int64_t mi = r % gTm;
        r /= gTm;
        int64_t g = r % p.groups, n = p.cN0 + r / p.groups;
        int64_t m0 = mi * p.gTileM, n0 = ni * p.gTileN;
        mm.SetTail(
            static_cast<int>(MinI(p.gTileM, p.cQLen - m0)), static_cast<int>(MinI(p.gTileN, kcg - n0)),
            static_cast<int>(p.coutG));
        mm.SetTensorA(t.gradOutput[(n * p.cout + g * p.coutG) * p.howo + p.cQ0 + m0], true);
        mm.SetTensorB(t.wp[g * p.coutG * kcg + n0], false);
        out = t.g[ChunkGRow(p, n, g, p.cQ0 + m0) * kcg + n0];
        return;
    }
    const int64_t ka = p.cR;
    const int64_t splitK = CeilDiv(ka, p.wChunkK);
    const int64_t wTm = CeilDiv(p.coutG, p.wTileM), wTn = CeilDiv(kcg, p.wTileN);
    int64_t s = u % splitK, r = u / splitK;
    int64_t ni = r % wTn;
    r /= wTn;
    int64_t mi = r % wTm, g = r / wTm;
    int64_t m0 = mi * p.wTileM, n0 = ni * p.wTileN, k0 = s * p.wChunkK;
    mm.SetTail(
        static_cast<int>(MinI(p.wTileM, p.coutG - m0)), static_cast<int>(MinI(p.wTileN, kcg - n0)),
        static_cast<int>(MinI(p.wChunkK, ka - k0)));
    mm.SetTensorA(t.got[(g * p.chunkRows + k0) * p.coutG + m0], true);
    mm.SetTensorB(t.dcol[(g * p.chunkRows + k0) * kcg + n0], false);
    accumulate = p.cIdx > 0 ? 1 : 0; // every slot sums its Ka chunk over the pixel chunks (chunk 0 is full: all slots)
    out = t.gw[(s * p.cout + g * p.coutG + m0) * kcg + n0];
}

// One vector core's share of a phase's Matmul tiles, requested asynchronously and spread over the phase's
// vector work units: Begin (the first request), Tick(i, n) before vector unit i of the core's n units
// (requests tile j once i >= j*n/M, M = the core's tile count, after waiting for the previous one),
// Finish (the remaining requests, then the wait for the last). Nothing is requested by an idle core.
template <typename T>
class Stage1Feed {
public:
    using Mm = typename DcnMatmulTypes<T>::Mm;

    __aicore__ inline void Begin(Mm& mm, const DcnParams& p, const DcnTensors<T>& t, Stage1Kind kind, int64_t aivIdx)
    {
        mm_ = &mm;
        p_ = p;
        t_ = &t;
        kind_ = kind;
        const int64_t total = Stage1Tiles(p, kind);
        first_ = CubeLane(aivIdx, p.usedVecCores);
        step_ = p.usedVecCores;
        mine_ = first_ < total ? CeilDiv(total - first_, step_) : 0;
        issued_ = 0;
        pending_ = false;
        next_ = nullptr;
        IssueNext();
    }

    // A second feed (another Matmul object) that this one's Tick and Finish drive too.
    __aicore__ inline void Chain(Stage1Feed* next) { next_ = next; }

    __aicore__ inline void Tick(int64_t unit, int64_t units)
    {
        while (issued_ < mine_ && unit * mine_ >= issued_ * units) {
            IssueNext();
        }
        if (next_ != nullptr) {
            next_->Tick(unit, units);
        }
    }

    __aicore__ inline void Finish()
    {
        while (issued_ < mine_) {
            IssueNext();
        }
        WaitPending();
        if (next_ != nullptr) {
            next_->Finish();
        }
    }

private:
    __aicore__ inline void WaitPending()
    {
        if (pending_) {
            mm_->WaitIterateAll();
            pending_ = false;
        }
    }

    __aicore__ inline void IssueNext()
    {
        if (issued_ >= mine_) {
            return;
        }
        WaitPending();
        uint8_t accumulate = 0;
        AscendC::GlobalTensor<float> out;
        SetStage1Tile<T>(*mm_, p_, *t_, kind_, first_ + issued_ * step_, accumulate, out);
        mm_->template IterateAll<false>(out, accumulate, false, true);
        pending_ = true;
        ++issued_;
    }

    Mm* mm_ = nullptr;
    DcnParams p_;
    const DcnTensors<T>* t_ = nullptr;
    Stage1Kind kind_ = Stage1Kind::kG;
    Stage1Feed* next_ = nullptr;
    int64_t first_ = 0, step_ = 1, mine_ = 0, issued_ = 0;
    bool pending_ = false;
};

}  // namespace dcn_kernel

#endif  // DCN_STAGE1_MATMUL_H
