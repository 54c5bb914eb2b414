#include "runtime/kernels/FlashAttention.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "runtime/kernels/FastMath.h"
#include "runtime/kernels/RowReduce.h"
#include "runtime/kernels/Sgemm.h"

namespace dfc::runtime::kernels {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Row-major c = alpha * op(a) @ op(b) + beta * c on the calling thread (its
// library time on the profiler's clock, support/LibraryClock.h). Every call
// runs inside a pool task, which turns the exception into the step's error.
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda, const float* b,
          int64_t ldb, float beta, float* c, int64_t ldc) {
  if (Status s = sgemmOnThisThread({ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc}); !s)
    throw std::runtime_error(s.error().message());
}

// Of the keys [j0, j0 + bc), how many query i sees: all, or (causal) those <= i.
int64_t visibleKeys(const AttentionShape& s, int64_t i, int64_t j0, int64_t bc) {
  return s.causal ? std::clamp<int64_t>(i - j0 + 1, 0, bc) : bc;
}

// Zeros in `rows` rows of `width` floats, `stride` apart.
void fillRows(float* p, int64_t rows, int64_t width, int64_t stride) {
  for (int64_t r = 0; r < rows; ++r) std::fill(p + r * stride, p + r * stride + width, 0.0f);
}

// The row strides of one matrix of each tensor; dO, dQ, dK, dV as O, Q, K, V.
struct RowStrides {
  int64_t q, k, v, o;
};

// row[c] = exp(row[c] - shift) for the first n entries, 0 for the masked rest.
DFC_WIDE_CLONES void expRow(float* __restrict row, int64_t n, int64_t width, float shift) {
  for (int64_t c = 0; c < n; ++c) row[c] = fastExp(row[c] - shift);
  for (int64_t c = n; c < width; ++c) row[c] = 0.0f;
}

void scaleRow(float* __restrict row, int64_t n, float factor) {
  for (int64_t c = 0; c < n; ++c) row[c] *= factor;
}

// Scratch of one task: a score tile and the running row statistics.
struct ForwardScratch {
  float* scores;  // kQueryBlock x kKeyBlock
  float* max;     // kQueryBlock
  float* sum;     // kQueryBlock
  static constexpr int64_t kFloats = kQueryBlock * kKeyBlock + 2 * kQueryBlock;
  explicit ForwardScratch(float* p) : scores(p), max(p + kQueryBlock * kKeyBlock), sum(max + kQueryBlock) {}
};

// Online softmax over one key tile: rescale the rows' running sums and outputs
// to the new row maxima, then add this tile's probabilities times V.
void forwardKeyTile(const AttentionShape& s, const RowStrides& ld, const float* k, const float* v, const float* qBlock,
                    float* oBlock, int64_t i0, int64_t br, int64_t j0, int64_t keyEnd, ForwardScratch& w) {
  const int64_t d = s.dim, bc = std::min(kKeyBlock, keyEnd - j0);
  gemm(false, true, br, bc, d, s.scale, qBlock, ld.q, k + j0 * ld.k, ld.k, 0.0f, w.scores, bc);
  for (int64_t r = 0; r < br; ++r) {
    float* row = w.scores + r * bc;
    const int64_t n = visibleKeys(s, i0 + r, j0, bc);
    const float mx = rowMaxLanes(row, n, w.max[r]);
    if (mx == kNegInf) {  // nothing visible yet in this row
      expRow(row, 0, bc, 0.0f);
      continue;
    }
    expRow(row, n, bc, mx);
    const float correction = fastExp(w.max[r] - mx);  // 0 for the first visible tile (e^-inf is 0; sums are 0)
    w.sum[r] = w.sum[r] * correction + rowSumLanes<float>(row, n);
    w.max[r] = mx;
    scaleRow(oBlock + r * ld.o, d, correction);
  }
  gemm(false, false, br, d, bc, 1.0f, w.scores, bc, v + j0 * ld.v, ld.v, 1.0f, oBlock, ld.o);
}

// One matrix: query blocks in order, each against the key tiles it may see.
void forwardMatrix(const AttentionShape& s, const RowStrides& ld, const float* q, const float* k, const float* v,
                   float* o, float* lse, ForwardScratch& w) {
  const int64_t d = s.dim;
  for (int64_t i0 = 0; i0 < s.queries; i0 += kQueryBlock) {
    const int64_t br = std::min(kQueryBlock, s.queries - i0);
    float* oBlock = o + i0 * ld.o;
    fillRows(oBlock, br, d, ld.o);
    std::fill(w.max, w.max + br, kNegInf);
    std::fill(w.sum, w.sum + br, 0.0f);
    const int64_t keyEnd = s.causal ? std::min(s.keys, i0 + br) : s.keys;
    for (int64_t j0 = 0; j0 < keyEnd; j0 += kKeyBlock)
      forwardKeyTile(s, ld, k, v, q + i0 * ld.q, oBlock, i0, br, j0, keyEnd, w);
    for (int64_t r = 0; r < br; ++r) {
      const bool empty = w.sum[r] == 0.0f;  // a row that sees no key: zeros, as no reference defines it
      scaleRow(oBlock + r * ld.o, d, empty ? 0.0f : 1.0f / w.sum[r]);
      lse[i0 + r] = empty ? kNegInf : w.max[r] + std::log(w.sum[r]);
    }
  }
}

// Scratch of one backward task: the probability and dP tiles, and D = rowsum(dO * O).
struct BackwardScratch {
  float* p;      // kQueryBlock x kKeyBlock
  float* dp;     // kQueryBlock x kKeyBlock
  float* delta;  // Tq
  static int64_t floats(const AttentionShape& s) { return 2 * kQueryBlock * kKeyBlock + s.queries; }
  explicit BackwardScratch(float* base)
      : p(base), dp(base + kQueryBlock * kKeyBlock), delta(dp + kQueryBlock * kKeyBlock) {}
};

// One query tile against key tile j0: P rebuilt from the scores and the saved
// log-sum-exp, then dV += P^T dO, dS = P (dO V^T - D), dQ += scale dS K, dK += scale dS^T Q.
void backwardTile(const AttentionShape& s, const RowStrides& ld, const float* q, const float* k, const float* v,
                  const float* dO, const float* lse, float* dq, float* dk, float* dv, int64_t i0, int64_t j0,
                  BackwardScratch& w) {
  const int64_t d = s.dim, br = std::min(kQueryBlock, s.queries - i0);
  // Causal: keys past the block's last query get no probability, so the tile stops there.
  const int64_t bc = std::min(kKeyBlock, (s.causal ? std::min(s.keys, i0 + br) : s.keys) - j0);
  gemm(false, true, br, bc, d, s.scale, q + i0 * ld.q, ld.q, k + j0 * ld.k, ld.k, 0.0f, w.p, bc);
  for (int64_t r = 0; r < br; ++r) {
    const int64_t n = visibleKeys(s, i0 + r, j0, bc);
    expRow(w.p + r * bc, lse[i0 + r] == kNegInf ? 0 : n, bc, lse[i0 + r]);
  }
  gemm(true, false, bc, d, br, 1.0f, w.p, bc, dO + i0 * ld.o, ld.o, 1.0f, dv + j0 * ld.v, ld.v);
  gemm(false, true, br, bc, d, 1.0f, dO + i0 * ld.o, ld.o, v + j0 * ld.v, ld.v, 0.0f, w.dp, bc);
  for (int64_t r = 0; r < br; ++r) {
    const float* __restrict p = w.p + r * bc;
    float* __restrict ds = w.dp + r * bc;
    const float delta = w.delta[i0 + r];
    for (int64_t c = 0; c < bc; ++c) ds[c] = p[c] * (ds[c] - delta);
  }
  gemm(false, false, br, d, bc, s.scale, w.dp, bc, k + j0 * ld.k, ld.k, 1.0f, dq + i0 * ld.q, ld.q);
  gemm(true, false, bc, d, br, s.scale, w.dp, bc, q + i0 * ld.q, ld.q, 1.0f, dk + j0 * ld.k, ld.k);
}

// One matrix, key tiles outer (their dK, dV rows finish in one sweep), query tiles inner.
void backwardMatrix(const AttentionShape& s, const RowStrides& ld, const float* q, const float* k, const float* v,
                    const float* o, const float* dO, const float* lse, float* dq, float* dk, float* dv,
                    BackwardScratch& w) {
  const int64_t d = s.dim;
  for (int64_t i = 0; i < s.queries; ++i) w.delta[i] = rowDotLanes<float>(dO + i * ld.o, o + i * ld.o, d);
  fillRows(dq, s.queries, d, ld.q);
  fillRows(dk, s.keys, d, ld.k);
  fillRows(dv, s.keys, d, ld.v);
  for (int64_t j0 = 0; j0 < s.keys; j0 += kKeyBlock) {
    // Causal: query tiles wholly above the diagonal see none of these keys.
    const int64_t first = s.causal ? (j0 / kQueryBlock) * kQueryBlock : 0;
    for (int64_t i0 = first; i0 < s.queries; i0 += kQueryBlock)
      backwardTile(s, ld, q, k, v, dO, lse, dq, dk, dv, i0, j0, w);
  }
}

// Tasks: one per pool thread (at most one per matrix); task t takes matrices
// t, t + tasks, ... with its own slice of the context's scratch.
template <typename Fn>
Status forEachMatrix(ExecContext& ctx, int64_t matrices, int64_t scratchPerTask, Fn&& fn) {
  const int64_t tasks = std::max<int64_t>(1, std::min<int64_t>(matrices, ctx.pool().threads()));
  float* scratch = ctx.scratch(static_cast<size_t>(tasks * scratchPerTask));
  return ctx.pool().parallelFor(0, tasks, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t t = lo; t < hi; ++t)
      for (int64_t m = t; m < matrices; m += tasks) fn(m, scratch + t * scratchPerTask);
  });
}

}  // namespace

Status flashAttentionForward(ExecContext& ctx, const AttentionShape& s, const AttentionLayouts& l, const float* q,
                             const float* k, const float* v, float* o, float* lse) {
  const RowStrides ld{l.q.rowStride, l.k.rowStride, l.v.rowStride, l.o.rowStride};
  return forEachMatrix(ctx, s.matrices, ForwardScratch::kFloats, [&](int64_t m, float* scratch) {
    ForwardScratch w(scratch);
    forwardMatrix(s, ld, q + l.q.offset(m), k + l.k.offset(m), v + l.v.offset(m), o + l.o.offset(m),
                  lse + m * s.queries, w);
  });
}

Status flashAttentionBackward(ExecContext& ctx, const AttentionShape& s, const AttentionLayouts& l, const float* q,
                              const float* k, const float* v, const float* o, const float* dO, const float* lse,
                              float* dq, float* dk, float* dv) {
  const RowStrides ld{l.q.rowStride, l.k.rowStride, l.v.rowStride, l.o.rowStride};
  return forEachMatrix(ctx, s.matrices, BackwardScratch::floats(s), [&](int64_t m, float* scratch) {
    BackwardScratch w(scratch);
    backwardMatrix(s, ld, q + l.q.offset(m), k + l.k.offset(m), v + l.v.offset(m), o + l.o.offset(m),
                   dO + l.o.offset(m), lse + m * s.queries, dq + l.q.offset(m), dk + l.k.offset(m), dv + l.v.offset(m),
                   w);
  });
}

AttentionLayouts contiguousLayouts(const AttentionShape& s) {
  const MatrixLayout queries{1, s.queries * s.dim, 0, s.dim}, keys{1, s.keys * s.dim, 0, s.dim};
  return {queries, keys, keys, queries};
}

Status flashAttentionForward(ExecContext& ctx, const AttentionShape& s, const float* q, const float* k, const float* v,
                             float* o, float* lse) {
  return flashAttentionForward(ctx, s, contiguousLayouts(s), q, k, v, o, lse);
}

Status flashAttentionBackward(ExecContext& ctx, const AttentionShape& s, const float* q, const float* k, const float* v,
                              const float* o, const float* dO, const float* lse, float* dq, float* dk, float* dv) {
  return flashAttentionBackward(ctx, s, contiguousLayouts(s), q, k, v, o, dO, lse, dq, dk, dv);
}

}  // namespace dfc::runtime::kernels
