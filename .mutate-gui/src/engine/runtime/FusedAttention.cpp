#include "runtime/FusedAttention.h"

#include "runtime/kernels/FlashAttention.h"

namespace dfc::runtime {
namespace {

kernels::AttentionShape shapeOf(const AttentionPattern& p) {
  return {p.matrices, p.queries, p.keys, p.dim, p.alpha, p.causal};
}

class AttentionForwardKernel final : public Kernel {
 public:
  AttentionForwardKernel(const ir::Node& node, const AttentionPattern& p, std::vector<ir::Tensor>& storage,
                         ir::Tensor& stats)
      : Kernel(node), m_shape(shapeOf(p)), m_q(&storage[static_cast<size_t>(p.q)]), m_k(&storage[static_cast<size_t>(p.k)]),
        m_v(&storage[static_cast<size_t>(p.v)]), m_o(&storage[static_cast<size_t>(p.out)]), m_stats(&stats) {}
  Status run(ExecContext& ctx) override {
    return kernels::flashAttentionForward(ctx, m_shape, m_q->data<float>(), m_k->data<float>(), m_v->data<float>(),
                                          m_o->data<float>(), m_stats->data<float>());
  }

 private:
  kernels::AttentionShape m_shape;
  const ir::Tensor *m_q, *m_k, *m_v;
  ir::Tensor *m_o, *m_stats;
};

class AttentionBackwardKernel final : public Kernel {
 public:
  AttentionBackwardKernel(const ir::Graph& g, const AttentionPattern& p, std::vector<ir::Tensor>& storage,
                          const ir::Tensor& stats)
      : Kernel(g.node(p.dQuery)), m_shape(shapeOf(p)), m_stats(&stats) {
    auto at = [&](ir::ValueId v) { return &storage[static_cast<size_t>(v)]; };
    m_in = {at(p.q), at(p.k), at(p.v), at(p.out), at(p.dOut)};
    m_out = {at(g.node(p.dQuery).outputs[0]), at(g.node(p.dKey).outputs[0]), at(g.node(p.dValue).outputs[0])};
  }
  Status run(ExecContext& ctx) override {
    return kernels::flashAttentionBackward(ctx, m_shape, m_in[0]->data<float>(), m_in[1]->data<float>(),
                                           m_in[2]->data<float>(), m_in[3]->data<float>(), m_in[4]->data<float>(),
                                           m_stats->data<float>(), m_out[0]->data<float>(), m_out[1]->data<float>(),
                                           m_out[2]->data<float>());
  }

 private:
  kernels::AttentionShape m_shape;
  const ir::Tensor* m_stats;
  std::vector<const ir::Tensor*> m_in;  // q, k, v, o, dO
  std::vector<ir::Tensor*> m_out;       // dq, dk, dv
};

}  // namespace

Expected<KernelPtr> makeAttentionKernel(const ir::Graph& graph, const FusionGroup& group,
                                        std::vector<ir::Tensor>& storage, ir::Tensor& stats) {
  const AttentionPattern* p = group.attention.get();
  if (!p || stats.numElements() != p->matrices * p->queries || stats.empty())
    return internalError("fused attention at '" + graph.node(group.nodes.back()).name + "' has no row statistics");
  if (group.kind == FusionKind::AttentionForward)
    return KernelPtr(std::make_unique<AttentionForwardKernel>(graph.node(p->context), *p, storage, stats));
  return KernelPtr(std::make_unique<AttentionBackwardKernel>(graph, *p, storage, stats));
}

}  // namespace dfc::runtime
