// Decode kernels: the KV cache write and the attention of a step's queries
// over the cache rows written so far (ops documented in Ops.def). The host
// copies the whole cache into the write's output (the graph is functional; the
// step's state update copies it back); attention reads only rows 0..pos+t.
#include <cmath>
#include <cstring>
#include <string>

#include "runtime/kernels/KernelFamilies.h"

namespace dfc::runtime::kernels {
namespace {

struct CacheDims {
  int64_t batch = 0, heads = 0, rows = 0, dim = 0;  // [B, KVH, N, Dh]
};

CacheDims cacheDims(const ir::Tensor& cache) {
  const ir::Shape& s = cache.shape();
  return {s[0], s[1], s[2], s[3]};
}

// The step's position, or "" when rows pos..pos+count-1 fit in `len`.
std::string badPosition(int64_t pos, int64_t count, int64_t len) {
  if (pos >= 0 && pos + count <= len) return {};
  return "position " + std::to_string(pos) + " with " + std::to_string(count) + " new rows is outside the cache of " +
         std::to_string(len);
}

class KvCacheWriteKernel final : public Kernel {
 public:
  explicit KvCacheWriteKernel(const KernelArgs& a)
      : Kernel(a.node), m_cache(a.in[0]), m_rows(a.in[1]), m_pos(a.in[2]), m_out(a.out[0]), m_dims(cacheDims(*a.in[0])),
        m_newRows(a.in[1]->shape()[2]) {}
  Status run(ExecContext&) override {
    const int64_t pos = m_pos->data<int64_t>()[0];
    if (std::string bad = badPosition(pos, m_newRows, m_dims.rows); !bad.empty()) return fail(bad);
    if (m_out->bytes() != m_cache->bytes()) std::memcpy(m_out->bytes(), m_cache->bytes(), m_cache->byteSize());
    const size_t rowBytes = static_cast<size_t>(m_newRows * m_dims.dim) * sizeof(float);
    for (int64_t bh = 0; bh < m_dims.batch * m_dims.heads; ++bh)
      std::memcpy(m_out->data<float>() + (bh * m_dims.rows + pos) * m_dims.dim,
                  m_rows->data<float>() + bh * m_newRows * m_dims.dim, rowBytes);
    return {};
  }

 private:
  const ir::Tensor *m_cache, *m_rows, *m_pos;
  ir::Tensor* m_out;
  CacheDims m_dims;
  int64_t m_newRows;
};

// One task per (batch, head, query row): scores over the cache rows it sees,
// a softmax, then the weighted sum of value rows. Scratch: one score row per task.
class DecodeAttentionKernel final : public Kernel {
 public:
  DecodeAttentionKernel(const KernelArgs& a, double scale)
      : Kernel(a.node), m_q(a.in[0]), m_k(a.in[1]), m_v(a.in[2]), m_pos(a.in[3]),
        m_slopes(a.in.size() > 4 ? a.in[4] : nullptr), m_out(a.out[0]), m_cache(cacheDims(*a.in[1])),
        m_heads(a.in[0]->shape()[1]), m_queries(a.in[0]->shape()[2]), m_scale(static_cast<float>(scale)) {}

  Status run(ExecContext& ctx) override {
    const int64_t pos = m_pos->data<int64_t>()[0];
    if (std::string bad = badPosition(pos, m_queries, m_cache.rows); !bad.empty()) return fail(bad);
    const int64_t tasks = m_cache.batch * m_heads * m_queries;
    float* scratch = ctx.scratch(static_cast<size_t>(tasks * m_cache.rows));
    return ctx.pool().parallelFor(0, tasks, grainOf(m_cache.rows * m_cache.dim * 2), [&](int64_t lo, int64_t hi) {
      for (int64_t task = lo; task < hi; ++task) attendRow(task, pos, scratch + task * m_cache.rows);
    });
  }

 private:
  void attendRow(int64_t task, int64_t pos, float* score) const {
    const int64_t dh = m_cache.dim, i = task % m_queries, h = (task / m_queries) % m_heads, b = task / (m_queries * m_heads);
    const int64_t kvh = h / (m_heads / m_cache.heads), seen = pos + i + 1;
    const float* q = m_q->data<float>() + task * dh;
    const float* k = m_k->data<float>() + (b * m_cache.heads + kvh) * m_cache.rows * dh;
    const float* v = m_v->data<float>() + (b * m_cache.heads + kvh) * m_cache.rows * dh;
    const float slope = m_slopes ? m_slopes->data<float>()[h] : 0.0f;
    float top = -INFINITY;
    for (int64_t j = 0; j < seen; ++j) {
      float dot = 0;
      for (int64_t d = 0; d < dh; ++d) dot += q[d] * k[j * dh + d];
      score[j] = dot * m_scale + slope * static_cast<float>(j);
      top = std::max(top, score[j]);
    }
    float sum = 0;
    for (int64_t j = 0; j < seen; ++j) sum += (score[j] = std::exp(score[j] - top));
    float* out = m_out->data<float>() + task * dh;
    std::memset(out, 0, static_cast<size_t>(dh) * sizeof(float));
    for (int64_t j = 0; j < seen; ++j) {
      const float w = score[j] / sum;
      for (int64_t d = 0; d < dh; ++d) out[d] += w * v[j * dh + d];
    }
  }

  const ir::Tensor *m_q, *m_k, *m_v, *m_pos, *m_slopes;
  ir::Tensor* m_out;
  CacheDims m_cache;
  int64_t m_heads, m_queries;
  float m_scale;
};

}  // namespace

Made DecodeKernels::KvCacheWrite(const KernelArgs& a) {
  if (a.in[0]->shape().size() != 4 || a.in[1]->shape().size() != 4 || a.in[2]->dtype() != ir::DType::I64)
    return a.fail("expects (f32[B,KVH,N,Dh], f32[B,KVH,T,Dh], i64[1])");
  return make<KvCacheWriteKernel>(a);
}

Made DecodeKernels::DecodeAttention(const KernelArgs& a) {
  if (a.in.size() < 4 || a.in[0]->shape().size() != 4 || a.in[1]->shape().size() != 4 || a.in[3]->dtype() != ir::DType::I64)
    return a.fail("expects (f32[B,H,T,Dh], f32[B,KVH,N,Dh] twice, i64[1] [, f32[H]])");
  const double dh = static_cast<double>(a.in[0]->shape()[3]);
  return make<DecodeAttentionKernel>(a, a.node.floatAttr("scale", 1.0 / std::sqrt(dh)));
}

}  // namespace dfc::runtime::kernels
