#pragma once
// Fused attention, FlashAttention-2 style: O = softmax(scale * Q K^T [+ causal
// mask]) V computed tile by tile (blocks of kQueryBlock queries against blocks
// of kKeyBlock keys) with an online softmax, so the T x T score matrix is never
// stored; the forward keeps each query row's log-sum-exp, from which the
// backward rebuilds a score tile's probabilities and produces dQ, dK, dV.
// Tiles go through Sgemm.h on the task's thread; (batch x head)
// matrices split over the pool. The causal mask hides key j from query i when
// j > i, as causal_mask does (its -1e9 fill gives exactly zero probability).
#include <cstdint>

#include "runtime/Kernel.h"

namespace dfc::runtime::kernels {

constexpr int64_t kQueryBlock = 64;
// Keys per tile: 128 (against 64) halves the GEMM calls at short sequences,
// where their fixed cost showed (seq 128: x1.06 -> x1.17 over op by op).
constexpr int64_t kKeyBlock = 128;

struct AttentionShape {
  int64_t matrices = 1;  // batch x heads: independent attentions laid out back to back
  int64_t queries = 0;   // Tq
  int64_t keys = 0;      // Tk (== Tq when causal)
  int64_t dim = 0;       // head dimension of Q, K and V
  float scale = 1.0f;
  bool causal = false;
};

// Where each matrix of a tensor lies: matrix m = b * heads + h starts at
// b * batchStride + h * headStride floats, its rows rowStride apart. So the
// kernel reads q, k, v straight from a fused projection's [B, T, 3, H, D]
// (heads H, batchStride T*3*H*D, headStride D, rowStride 3*H*D) and writes o
// as [B, T, H, D], with no transpose; contiguous [M, T, D] is heads 1,
// batchStride T*D, rowStride D.
struct MatrixLayout {
  int64_t heads = 1, batchStride = 0, headStride = 0, rowStride = 0;
  int64_t offset(int64_t m) const { return (m / heads) * batchStride + (m % heads) * headStride; }
};
// dO, dQ, dK, dV are laid out as O, Q, K, V.
struct AttentionLayouts {
  MatrixLayout q, k, v, o;
};
AttentionLayouts contiguousLayouts(const AttentionShape& s);

Status flashAttentionForward(ExecContext& ctx, const AttentionShape& s, const AttentionLayouts& layouts, const float* q,
                             const float* k, const float* v, float* o, float* lse);
Status flashAttentionBackward(ExecContext& ctx, const AttentionShape& s, const AttentionLayouts& layouts,
                              const float* q, const float* k, const float* v, const float* o, const float* dO,
                              const float* lse, float* dq, float* dk, float* dv);

// Contiguous: q [M, Tq, D], k and v [M, Tk, D] -> o [M, Tq, D], lse [M, Tq].
Status flashAttentionForward(ExecContext& ctx, const AttentionShape& s, const float* q, const float* k,
                             const float* v, float* o, float* lse);

// The gradients from dO [M, Tq, D] and what the forward kept (o, lse):
// dq [M, Tq, D], dk and dv [M, Tk, D].
Status flashAttentionBackward(ExecContext& ctx, const AttentionShape& s, const float* q, const float* k,
                              const float* v, const float* o, const float* dO, const float* lse, float* dq, float* dk,
                              float* dv);

}  // namespace dfc::runtime::kernels
