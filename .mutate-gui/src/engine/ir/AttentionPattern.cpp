#include "ir/AttentionPattern.h"

#include <algorithm>

namespace dfc::ir {
namespace {

// Below this fill a masked score's probability is exactly 0 in float, as the kernel treats it.
constexpr double kHidingFill = -1e6;

class Matcher {
 public:
  Matcher(const Graph& g, const std::vector<std::vector<NodeId>>& users, const std::vector<bool>& leavesStep)
      : m_g(g), m_users(users), m_leavesStep(leavesStep) {}

  bool matchForward(const Node& softmax, AttentionPattern& p) const;
  bool matchBackward(AttentionPattern& p) const;

 private:
  // The one node reading `v` inside the step (v leaves no step), else kNoNode.
  NodeId soleUser(ValueId v) const {
    const auto& us = m_users[static_cast<size_t>(v)];
    if (m_leavesStep[static_cast<size_t>(v)] || us.empty()) return kNoNode;
    return std::all_of(us.begin(), us.end(), [&](NodeId u) { return u == us[0]; }) ? us[0] : kNoNode;
  }
  bool isBmm(NodeId n, bool ta, bool tb) const {
    if (n == kNoNode) return false;
    const Node& node = m_g.node(n);
    return node.op == OpKind::BatchMatMul && (node.intAttr("trans_a") != 0) == ta && (node.intAttr("trans_b") != 0) == tb;
  }
  NodeId producer(ValueId v) const { return m_g.value(v).producer; }
  bool shapes(AttentionPattern& p) const;
  bool scaleAndMask(NodeId& at, ValueId& x, AttentionPattern& p) const;

  const Graph& m_g;
  const std::vector<std::vector<NodeId>>& m_users;
  const std::vector<bool>& m_leavesStep;
};

// q [..., Tq, D], k and v [..., Tk, D], all f32 with the same leading axes.
bool Matcher::shapes(AttentionPattern& p) const {
  const auto& q = m_g.value(p.q).type;
  const auto& k = m_g.value(p.k).type;
  const auto& v = m_g.value(p.v).type;
  for (const auto* t : {&q, &k, &v})
    if (t->dtype != DType::F32 || t->shape.size() < 3) return false;
  const size_t r = q.shape.size();
  if (k.shape != v.shape || k.shape.size() != r || q.shape[r - 1] != k.shape[r - 1]) return false;
  if (!std::equal(q.shape.begin(), q.shape.end() - 2, k.shape.begin())) return false;
  p.queries = q.shape[r - 2];
  p.keys = k.shape[r - 2];
  p.dim = q.shape[r - 1];
  p.matrices = p.queries * p.dim > 0 ? q.numElements() / (p.queries * p.dim) : 0;
  return p.matrices > 0 && p.keys > 0 && (!p.causal || p.queries == p.keys);
}

// Walks back from the softmax input over an optional causal_mask and an optional scale.
bool Matcher::scaleAndMask(NodeId& at, ValueId& x, AttentionPattern& p) const {
  if (at != kNoNode && m_g.node(at).op == OpKind::CausalMask) {
    if (m_g.node(at).floatAttr("fill", -1e9) > kHidingFill) return false;
    p.mask = at;
    p.causal = true;
    x = m_g.node(at).inputs[0];
    at = producer(x);
  }
  if (at != kNoNode && m_g.node(at).op == OpKind::Scale) {
    p.scale = at;
    p.alpha = static_cast<float>(m_g.node(at).floatAttr("alpha", 1.0));
    x = m_g.node(at).inputs[0];
    at = producer(x);
  }
  return true;
}

bool Matcher::matchForward(const Node& softmax, AttentionPattern& p) const {
  if (softmax.op != OpKind::Softmax) return false;
  p.softmax = softmax.id;
  ValueId x = softmax.inputs[0];
  NodeId at = producer(x);
  if (!scaleAndMask(at, x, p) || !isBmm(at, false, true)) return false;
  p.scores = at;
  // Each score value feeds only the next op of the chain.
  for (NodeId n : {p.scores, p.scale, p.mask})
    if (n != kNoNode && soleUser(m_g.node(n).outputs[0]) == kNoNode) return false;
  p.q = m_g.node(p.scores).inputs[0];
  p.k = m_g.node(p.scores).inputs[1];
  p.probs = softmax.outputs[0];
  if (m_leavesStep[static_cast<size_t>(p.probs)]) return false;
  for (NodeId u : m_users[static_cast<size_t>(p.probs)])
    if (isBmm(u, false, false) && m_g.node(u).inputs[0] == p.probs && m_g.node(u).inputs[1] != p.probs) p.context = u;
  if (p.context == kNoNode) return false;
  p.v = m_g.node(p.context).inputs[1];
  p.out = m_g.node(p.context).outputs[0];
  return shapes(p);
}

// The autograd chain of the forward in `p`.
bool Matcher::matchBackward(AttentionPattern& p) const {
  for (NodeId u : m_users[static_cast<size_t>(p.probs)]) {
    if (u == p.context) continue;
    const Node& n = m_g.node(u);
    if (n.op == OpKind::SoftmaxGrad && n.inputs[1] == p.probs && n.inputs[0] != p.probs) p.dSoftmax = u;
    else if (isBmm(u, true, false) && n.inputs[0] == p.probs && n.inputs[1] != p.probs) p.dValue = u;
    else return false;
  }
  if (p.dSoftmax == kNoNode || p.dValue == kNoNode) return false;
  p.dOut = m_g.node(p.dValue).inputs[1];
  const ValueId dp = m_g.node(p.dSoftmax).inputs[0];
  p.dProbs = producer(dp);
  if (!isBmm(p.dProbs, false, true) || m_g.node(p.dProbs).inputs[0] != p.dOut || m_g.node(p.dProbs).inputs[1] != p.v ||
      soleUser(dp) != p.dSoftmax)
    return false;
  ValueId ds = m_g.node(p.dSoftmax).outputs[0];
  // Optional causal_mask (fill 0) then optional scale, mirroring the forward.
  for (NodeId* slot : {&p.dMask, &p.dScale}) {
    const bool wanted = slot == &p.dMask ? p.causal : p.scale != kNoNode;
    if (!wanted) continue;
    const NodeId n = soleUser(ds);
    const OpKind op = slot == &p.dMask ? OpKind::CausalMask : OpKind::Scale;
    if (n == kNoNode || m_g.node(n).op != op) return false;
    if (op == OpKind::CausalMask && m_g.node(n).floatAttr("fill", -1e9) != 0.0) return false;
    if (op == OpKind::Scale && static_cast<float>(m_g.node(n).floatAttr("alpha", 1.0)) != p.alpha) return false;
    *slot = n;
    ds = m_g.node(n).outputs[0];
  }
  if (m_leavesStep[static_cast<size_t>(ds)]) return false;
  for (NodeId u : m_users[static_cast<size_t>(ds)]) {
    const Node& n = m_g.node(u);
    if (isBmm(u, false, false) && n.inputs[0] == ds && n.inputs[1] == p.k && p.dQuery == kNoNode) p.dQuery = u;
    else if (isBmm(u, true, false) && n.inputs[0] == ds && n.inputs[1] == p.q && p.dKey == kNoNode) p.dKey = u;
    else return false;
  }
  if (p.dQuery == kNoNode || p.dKey == kNoNode) return false;
  for (NodeId n : {p.dSoftmax, p.dMask})
    if (n != kNoNode && soleUser(m_g.node(n).outputs[0]) == kNoNode) return false;
  return true;
}

}  // namespace

std::vector<NodeId> AttentionPattern::forwardNodes() const {
  std::vector<NodeId> nodes;
  for (NodeId n : {scores, scale, mask, softmax, context})
    if (n != kNoNode) nodes.push_back(n);
  return nodes;
}

std::vector<NodeId> AttentionPattern::backwardNodes() const {
  std::vector<NodeId> nodes;
  for (NodeId n : {dProbs, dSoftmax, dMask, dScale, dQuery, dKey, dValue})
    if (n != kNoNode) nodes.push_back(n);
  return nodes;
}

bool matchAttentionForward(const Graph& graph, const Node& softmax, const std::vector<std::vector<NodeId>>& users,
                           const std::vector<bool>& leavesStep, AttentionPattern& p) {
  return Matcher(graph, users, leavesStep).matchForward(softmax, p);
}

bool matchAttentionBackward(const Graph& graph, const std::vector<std::vector<NodeId>>& users,
                            const std::vector<bool>& leavesStep, AttentionPattern& p) {
  return Matcher(graph, users, leavesStep).matchBackward(p);
}

}  // namespace dfc::ir
