// fold-batch-norm (inference pipeline only): a batch_norm normalizing by its
// running statistics right after a convolution is an affine map per output
// channel, k = gamma / sqrt(var + eps), y = conv(x, w) * k + (b - mean) * k + beta,
// so the convolution's weights take k (w'[o] = w[o] * k[o]) and the batch_norm
// becomes bias_add(conv(x, w'), b') with b' = (b - mean) * k + beta (b: the
// convolution's own bias, 0 without one). The new weights and bias overwrite
// w's and beta's initializers (both read by nothing else), so the PEF carries
// no extra tensor. Training graphs keep their batch_norms: the statistics move.
#include <cmath>
#include <set>

#include "passes/GraphRewriter.h"
#include "passes/Pass.h"

namespace dfc::passes {
namespace {

using ir::OpKind;
using ir::ValueId;

// One conv [-> bias_add] -> batch_norm chain that can fold.
struct Chain {
  ir::NodeId conv = ir::kNoNode, bias = ir::kNoNode, norm = ir::kNoNode;
  std::vector<ValueId> dropped;  // weights and statistics only the chain read
};

class Folder {
 public:
  explicit Folder(const ir::Graph& g) : m_g(g), m_users(g.computeUsers()) {
    for (ValueId v : g.outputs) m_pinned.insert(v);
    for (const ir::StateUpdate& u : g.updates) m_pinned.insert(u.target), m_pinned.insert(u.newValue);
  }

  // The chain ending at batch_norm `n`, or none (norm == kNoNode).
  Chain match(const ir::Node& n) const {
    if (n.op != OpKind::BatchNorm || n.inputs.size() != 5 || n.intAttr("training", 0) != 0) return {};
    for (size_t k = 1; k < 5; ++k)
      if (!channelData(n.inputs[k])) return {};
    if (!soleUse(n.inputs[2]) || !unread(n.outputs, 1)) return {};
    Chain c;
    c.norm = n.id;
    ir::NodeId p = m_g.value(n.inputs[0]).producer;
    if (p != ir::kNoNode && m_g.node(p).op == OpKind::BiasAdd && soleUse(m_g.node(p).outputs[0]) &&
        channelData(m_g.node(p).inputs[1]) && soleUse(m_g.node(p).inputs[1])) {
      c.bias = p;
      p = m_g.value(m_g.node(p).inputs[0]).producer;
    }
    if (p == ir::kNoNode || (m_g.node(p).op != OpKind::Conv2d && m_g.node(p).op != OpKind::Conv)) return {};
    const ir::Node& conv = m_g.node(p);
    const ValueId w = conv.inputs[1];
    if (!soleUse(conv.outputs[0]) || !soleUse(w) || !hasData(w) || m_g.value(w).type.shape.empty()) return {};
    if (m_g.value(w).type.shape[0] != m_g.value(n.inputs[1]).type.shape[0]) return {};
    c.conv = p;
    for (size_t k : {1, 3, 4})
      if (soleUse(n.inputs[k])) c.dropped.push_back(n.inputs[k]);
    if (c.bias != ir::kNoNode) c.dropped.push_back(m_g.node(c.bias).inputs[1]);
    return c;
  }

 private:
  bool hasData(ValueId v) const {
    const ir::Value& val = m_g.value(v);
    return (val.kind == ir::ValueKind::Param || val.kind == ir::ValueKind::Const) && !m_pinned.count(v) &&
           m_g.initializers.count(v) && val.type.dtype == ir::DType::F32;
  }
  bool channelData(ValueId v) const { return hasData(v) && m_g.value(v).type.shape.size() == 1; }
  bool soleUse(ValueId v) const { return !m_pinned.count(v) && m_users[static_cast<size_t>(v)].size() == 1; }
  bool unread(const std::vector<ValueId>& outs, size_t from) const {
    for (size_t i = from; i < outs.size(); ++i)
      if (m_pinned.count(outs[i]) || !m_users[static_cast<size_t>(outs[i])].empty()) return false;
    return true;
  }

  const ir::Graph& m_g;
  std::vector<std::vector<ir::NodeId>> m_users;
  std::set<ValueId> m_pinned;
};

// w[o] *= k[o]; beta[o] = (b[o] - mean[o]) * k[o] + beta[o], in double, stored back as f32.
// Every tensor is cloned first: a zoo weight may be a recipe with no data yet,
// and copies of a graph share their tensors' storage.
void foldData(ir::Graph& g, const Chain& c) {
  const ir::Node& norm = g.node(c.norm);
  auto data = [&](ValueId v) { return g.initializers.at(v).clone(); };
  const double eps = norm.floatAttr("epsilon", 1e-5);
  const ir::Tensor gamma = data(norm.inputs[1]), mean = data(norm.inputs[3]), var = data(norm.inputs[4]);
  const ir::Tensor bias = c.bias == ir::kNoNode ? ir::Tensor() : data(g.node(c.bias).inputs[1]);
  ir::Tensor beta = data(norm.inputs[2]), w = data(g.node(c.conv).inputs[1]);
  const int64_t channels = w.shape()[0], per = w.numElements() / channels;
  for (int64_t o = 0; o < channels; ++o) {
    const double k = gamma.data<float>()[o] / std::sqrt(static_cast<double>(var.data<float>()[o]) + eps);
    float* row = w.data<float>() + o * per;
    for (int64_t i = 0; i < per; ++i) row[i] = static_cast<float>(row[i] * k);
    const double b = bias.empty() ? 0.0 : bias.data<float>()[o];
    beta.data<float>()[o] = static_cast<float>((b - mean.data<float>()[o]) * k + beta.data<float>()[o]);
  }
  g.initializers[norm.inputs[2]] = std::move(beta);
  g.initializers[g.node(c.conv).inputs[1]] = std::move(w);
}

class FoldBatchNorm final : public Pass {
 public:
  std::string_view name() const override { return "fold-batch-norm"; }

  Expected<bool> run(ir::Graph& g) override {
    std::vector<Chain> chains;
    {
      Folder folder(g);
      for (const ir::Node& n : g.nodes)
        if (Chain c = folder.match(n); c.norm != ir::kNoNode) chains.push_back(c);
    }
    for (const Chain& c : chains) foldData(g, c);
    GraphRewriter rw(std::move(g));
    if (chains.empty()) return rw.commitTo(g, false);
    std::set<ir::NodeId> dead;
    for (const Chain& c : chains) rewire(rw, c, dead);
    rw.eraseDeadNodes(dead);
    for (const Chain& c : chains)
      for (ValueId v : c.dropped) rw.eraseValue(v);
    return rw.commitTo(g, true);
  }

 private:
  // batch_norm -> bias_add(conv output, beta), writing the batch_norm's own
  // output value (a graph output keeps its name); the old bias_add goes.
  static void rewire(GraphRewriter& rw, const Chain& c, std::set<ir::NodeId>& dead) {
    const ir::Node norm = rw.graph().node(c.norm);
    ir::Node add;
    add.op = OpKind::BiasAdd;
    add.name = rw.uniqueNodeName(norm.name + ".folded");
    add.inputs = {rw.graph().node(c.conv).outputs[0], norm.inputs[2]};
    add.outputs = {norm.outputs[0]};
    add.scope = norm.scope;
    add.role = norm.role;
    rw.eraseNode(c.norm);
    rw.insertNode(c.norm, std::move(add));
    if (c.bias != ir::kNoNode) dead.insert(c.bias);
  }
};

}  // namespace

std::unique_ptr<Pass> createFoldBatchNormPass() { return std::make_unique<FoldBatchNorm>(); }

}  // namespace dfc::passes
