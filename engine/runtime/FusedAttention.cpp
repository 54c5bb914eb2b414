#include "runtime/FusedAttention.h"

#include <array>

#include "runtime/kernels/FlashAttention.h"

namespace dfc::runtime {
namespace {

kernels::AttentionShape shapeOf(const AttentionPattern& p) {
  return {p.matrices, p.queries, p.keys, p.dim, p.alpha, p.causal};
}

// [B, H, T, D] (per head, rows of D), or with `packed` the [B, T, parts, H, D]
// of a fused projection or a heads-last output (parts 3 or 1).
kernels::MatrixLayout layoutOf(const AttentionPlan& p, int64_t rows, bool packed, int64_t parts) {
  const int64_t h = p.heads, d = p.dim;
  if (!packed) return {h, h * rows * d, rows * d, d};
  return {h, rows * parts * h * d, d, parts * h * d};
}

kernels::AttentionLayouts layoutsOf(const AttentionPlan& p) {
  const kernels::MatrixLayout q = layoutOf(p, p.queries, p.packedQkv != ir::kNoValue, 3),
                              k = layoutOf(p, p.keys, p.packedQkv != ir::kNoValue, 3),
                              o = layoutOf(p, p.queries, p.headsLastOut != ir::kNoValue, 1);
  return {q, k, k, o};
}

// Where q, k, v (or dq, dk, dv) start: three values, or parts 0, 1, 2 of one packed value.
std::array<float*, 3> threeParts(const AttentionPlan& p, std::vector<ir::Tensor>& storage, ir::ValueId packed,
                                 const std::array<ir::ValueId, 3>& apart) {
  std::array<float*, 3> at{};
  for (size_t i = 0; i < 3; ++i)
    at[i] = packed != ir::kNoValue
                ? storage[static_cast<size_t>(packed)].data<float>() + static_cast<int64_t>(i) * p.heads * p.dim
                : storage[static_cast<size_t>(apart[i])].data<float>();
  return at;
}

ir::Tensor& valueOr(std::vector<ir::Tensor>& storage, ir::ValueId preferred, ir::ValueId fallback) {
  return storage[static_cast<size_t>(preferred != ir::kNoValue ? preferred : fallback)];
}

// Tensors are bound by reference: their bytes are placed after the kernels are made.
class AttentionForwardKernel final : public Kernel {
 public:
  AttentionForwardKernel(const ir::Node& node, AttentionPatternPtr plan, std::vector<ir::Tensor>& storage,
                         ir::Tensor& stats)
      : Kernel(node), m_plan(std::move(plan)), m_p(*m_plan), m_storage(storage), m_stats(&stats) {}
  Status run(ExecContext& ctx) override {
    const auto qkv = threeParts(m_p, m_storage, m_p.packedQkv, {m_p.q, m_p.k, m_p.v});
    return kernels::flashAttentionForward(ctx, shapeOf(m_p), layoutsOf(m_p), qkv[0], qkv[1], qkv[2],
                                          valueOr(m_storage, m_p.headsLastOut, m_p.out).data<float>(),
                                          m_stats->data<float>());
  }

 private:
  AttentionPatternPtr m_plan;
  const AttentionPlan& m_p;
  std::vector<ir::Tensor>& m_storage;
  ir::Tensor* m_stats;
};

class AttentionBackwardKernel final : public Kernel {
 public:
  AttentionBackwardKernel(const ir::Graph& g, AttentionPatternPtr plan, std::vector<ir::Tensor>& storage,
                          const ir::Tensor& stats)
      : Kernel(g.node(plan->dQuery)),
        m_plan(std::move(plan)),
        m_p(*m_plan),
        m_storage(storage),
        m_stats(&stats),
        m_grads{g.node(m_p.dQuery).outputs[0], g.node(m_p.dKey).outputs[0], g.node(m_p.dValue).outputs[0]} {}
  Status run(ExecContext& ctx) override {
    const auto qkv = threeParts(m_p, m_storage, m_p.packedQkv, {m_p.q, m_p.k, m_p.v});
    const auto grads = threeParts(m_p, m_storage, m_p.packedGrad, m_grads);
    return kernels::flashAttentionBackward(ctx, shapeOf(m_p), layoutsOf(m_p), qkv[0], qkv[1], qkv[2],
                                           valueOr(m_storage, m_p.headsLastOut, m_p.out).data<float>(),
                                           valueOr(m_storage, m_p.headsLastGrad, m_p.dOut).data<float>(),
                                           m_stats->data<float>(), grads[0], grads[1], grads[2]);
  }

 private:
  AttentionPatternPtr m_plan;
  const AttentionPlan& m_p;
  std::vector<ir::Tensor>& m_storage;
  const ir::Tensor* m_stats;
  std::array<ir::ValueId, 3> m_grads;
};

}  // namespace

Expected<KernelPtr> makeAttentionKernel(const ir::Graph& graph, const FusionGroup& group,
                                        std::vector<ir::Tensor>& storage, ir::Tensor& stats) {
  const AttentionPlan* p = group.attention.get();
  if (!p || stats.numElements() != p->matrices * p->queries || stats.empty())
    return internalError("fused attention at '" + graph.node(group.nodes.back()).name + "' has no row statistics");
  if (group.kind == FusionKind::AttentionForward)
    return KernelPtr(std::make_unique<AttentionForwardKernel>(graph.node(p->context), group.attention, storage, stats));
  return KernelPtr(std::make_unique<AttentionBackwardKernel>(graph, group.attention, storage, stats));
}

}  // namespace dfc::runtime
