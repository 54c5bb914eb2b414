#include "runtime/AttentionLayouts.h"

#include <algorithm>
#include <set>

namespace dfc::runtime {
namespace {

using ir::NodeId;
using ir::OpKind;
using ir::ValueId;

const std::vector<int64_t> kHeadsFirst5{2, 0, 3, 1, 4};  // [B, T, 3, H, D] -> [3, B, H, T, D]
const std::vector<int64_t> kHeadsLast5{1, 3, 0, 2, 4};   // its inverse
const std::vector<int64_t> kSwap12{0, 2, 1, 3};          // [B, H, T, D] <-> [B, T, H, D]

struct Matcher {
  const ir::Graph& g;
  const std::vector<std::vector<NodeId>>& users;
  const std::vector<bool>& leavesStep;

  // v's producer when it is an `op` (with `perm`, when given), else kNoNode.
  NodeId producer(ValueId v, OpKind op, const std::vector<int64_t>* perm = nullptr) const {
    const NodeId n = g.value(v).producer;
    if (n == ir::kNoNode || g.node(n).op != op) return ir::kNoNode;
    return !perm || g.node(n).intsAttr("perm") == *perm ? n : ir::kNoNode;
  }
  // v stays inside the step and every reader is one of `readers`.
  bool onlyReadBy(ValueId v, const std::set<NodeId>& readers) const {
    const auto& u = users[static_cast<size_t>(v)];
    return !leavesStep[static_cast<size_t>(v)] && !u.empty() &&
           std::all_of(u.begin(), u.end(), [&](NodeId n) { return readers.count(n) > 0; });
  }
  // v's only reader, when it is an `op` (with `perm`, when given) and v stays inside the step.
  NodeId soleReader(ValueId v, OpKind op, const std::vector<int64_t>* perm = nullptr) const {
    const auto& u = users[static_cast<size_t>(v)];
    if (leavesStep[static_cast<size_t>(v)] || u.size() != 1 || g.node(u[0]).op != op) return ir::kNoNode;
    return !perm || g.node(u[0]).intsAttr("perm") == *perm ? u[0] : ir::kNoNode;
  }
  const ir::Shape& shape(ValueId v) const { return g.value(v).type.shape; }
  ValueId out(NodeId n) const { return g.node(n).outputs[0]; }
  ValueId in(NodeId n) const { return g.node(n).inputs[0]; }
};

// Part i of the packed [3, B, H, T, D]: slice(axis 0, [i, i + 1)).
bool slicesPart(const ir::Node& n, int64_t i) {
  return n.intAttr("axis", -1) == 0 && n.intAttr("start", -1) == i && n.intAttr("end", -1) == i + 1;
}

// q, k, v = reshape(slice(transpose(x, kHeadsFirst5), 0, i)), read by the attention only.
bool matchPackedQkv(const Matcher& m, const std::set<NodeId>& attention, AttentionPlan& p) {
  const ValueId parts[3] = {p.q, p.k, p.v};
  std::vector<NodeId> slices, reshapes;
  NodeId transpose = ir::kNoNode;
  for (int64_t i = 0; i < 3; ++i) {
    const NodeId r = m.producer(parts[i], OpKind::Reshape);
    if (r == ir::kNoNode || !m.onlyReadBy(parts[i], attention)) return false;
    const NodeId s = m.producer(m.in(r), OpKind::Slice);
    if (s == ir::kNoNode || !slicesPart(m.g.node(s), i) || !m.onlyReadBy(m.out(s), {r})) return false;
    const NodeId t = m.producer(m.in(s), OpKind::Transpose, &kHeadsFirst5);
    if (t == ir::kNoNode || (transpose != ir::kNoNode && t != transpose)) return false;
    transpose = t;
    slices.push_back(s);
    reshapes.push_back(r);
  }
  if (!m.onlyReadBy(m.out(transpose), {slices.begin(), slices.end()})) return false;
  const ir::Shape& x = m.shape(m.in(transpose));  // [B, T, 3, H, D]
  if (x.size() != 5 || x[2] != 3 || x[0] * x[3] != p.matrices || x[1] != p.queries || x[1] != p.keys || x[4] != p.dim)
    return false;
  p.heads = x[3];
  p.packedQkv = m.in(transpose);
  p.inputNodes = {transpose};
  p.inputNodes.insert(p.inputNodes.end(), slices.begin(), slices.end());
  p.inputNodes.insert(p.inputNodes.end(), reshapes.begin(), reshapes.end());
  return true;
}

// dq, dk, dv -> reshape -> slice_grad(axis 0, start i) -> two adds -> transpose(kHeadsLast5): x's layout.
bool matchPackedGrad(const Matcher& m, const AttentionPlan& p, std::vector<NodeId>& nodes, ValueId& dx) {
  const NodeId producers[3] = {p.dQuery, p.dKey, p.dValue};
  std::vector<NodeId> reshapes, grads;
  for (int64_t i = 0; i < 3; ++i) {
    const NodeId r = m.soleReader(m.out(producers[i]), OpKind::Reshape);
    const NodeId sg = r == ir::kNoNode ? r : m.soleReader(m.out(r), OpKind::SliceGrad);
    if (sg == ir::kNoNode || m.g.node(sg).intAttr("axis", -1) != 0 || m.g.node(sg).intAttr("start", -1) != i)
      return false;
    reshapes.push_back(r);
    grads.push_back(sg);
  }
  // The sum: first = add(two slice grads), second = add(first, the third) (either operand order).
  std::set<NodeId> adds;
  for (NodeId sg : grads) adds.insert(m.soleReader(m.out(sg), OpKind::Add));
  if (adds.size() != 2 || adds.count(ir::kNoNode)) return false;
  NodeId first = *adds.begin(), second = *adds.rbegin();
  if (m.soleReader(m.out(first), OpKind::Add) != second) std::swap(first, second);
  if (m.soleReader(m.out(first), OpKind::Add) != second) return false;
  const NodeId t = m.soleReader(m.out(second), OpKind::Transpose, &kHeadsLast5);
  if (t == ir::kNoNode || m.shape(m.out(t)) != m.shape(p.packedQkv)) return false;
  nodes = reshapes;
  nodes.insert(nodes.end(), grads.begin(), grads.end());
  nodes.insert(nodes.end(), {first, second, t});
  dx = m.out(t);
  return true;
}

bool inSection(const std::vector<int>& sectionOf, const std::vector<NodeId>& nodes, int s) {
  return std::all_of(nodes.begin(), nodes.end(), [&](NodeId n) { return sectionOf[static_cast<size_t>(n)] == s; });
}

}  // namespace

void absorbLayouts(const ir::Graph& graph, const std::vector<int>& sectionOf,
                   const std::vector<std::vector<ir::NodeId>>& users, const std::vector<bool>& leavesStep,
                   AttentionPlan& p) {
  const Matcher m{graph, users, leavesStep};
  const std::vector<NodeId> fw = p.forwardNodes(), bw = p.hasBackward() ? p.backwardNodes() : std::vector<NodeId>{};
  const int fwSection = sectionOf[static_cast<size_t>(fw[0])];
  const int bwSection = bw.empty() ? -1 : sectionOf[static_cast<size_t>(bw[0])];
  std::set<NodeId> attention(fw.begin(), fw.end());
  attention.insert(bw.begin(), bw.end());
  // Inputs and their gradients share one layout: both absorbed or neither (training).
  AttentionPlan packed = p;
  std::vector<NodeId> gradNodes;
  ValueId dx = ir::kNoValue;
  if (matchPackedQkv(m, attention, packed) && inSection(sectionOf, packed.inputNodes, fwSection) &&
      (bw.empty() || (matchPackedGrad(m, packed, gradNodes, dx) && inSection(sectionOf, gradNodes, bwSection)))) {
    p = packed;
    p.gradNodes = gradNodes;
    p.packedGrad = dx;
  }
  // o and dO likewise share one layout.
  const ir::Shape& o = m.shape(p.out);
  const NodeId outT = m.soleReader(p.out, OpKind::Transpose, &kSwap12);
  if (outT == ir::kNoNode || o.size() != 4 || o[0] * o[1] != p.matrices ||
      (p.packedQkv != ir::kNoValue && o[1] != p.heads) || !inSection(sectionOf, {outT}, fwSection))
    return;
  NodeId gradT = ir::kNoNode;
  if (!bw.empty()) {
    gradT = m.producer(p.dOut, OpKind::Transpose, &kSwap12);
    if (gradT == ir::kNoNode || !m.onlyReadBy(p.dOut, {p.dProbs, p.dValue}) ||
        !inSection(sectionOf, {gradT}, bwSection))
      return;
    p.gradTranspose = gradT;
    p.headsLastGrad = m.in(gradT);
  }
  p.heads = o[1];
  p.outTranspose = outT;
  p.headsLastOut = m.out(outT);
}

std::vector<NodeId> AttentionPlan::forwardGroup() const {
  std::vector<NodeId> nodes = inputNodes, fw = forwardNodes();
  nodes.insert(nodes.end(), fw.begin(), fw.end());
  if (outTranspose != ir::kNoNode) nodes.push_back(outTranspose);
  return nodes;
}

std::vector<NodeId> AttentionPlan::backwardGroup() const {
  std::vector<NodeId> nodes, bw = backwardNodes();
  if (gradTranspose != ir::kNoNode) nodes.push_back(gradTranspose);
  nodes.insert(nodes.end(), bw.begin(), bw.end());
  nodes.insert(nodes.end(), gradNodes.begin(), gradNodes.end());
  return nodes;
}

std::vector<ValueId> AttentionPlan::forwardResults() const {
  return {headsLastOut != ir::kNoValue ? headsLastOut : out};
}

std::vector<ValueId> AttentionPlan::backwardResults(const ir::Graph& g) const {
  if (packedGrad != ir::kNoValue) return {packedGrad};
  return {g.node(dQuery).outputs[0], g.node(dKey).outputs[0], g.node(dValue).outputs[0]};
}

std::vector<ValueId> AttentionPlan::backwardReads() const {
  std::vector<ValueId> reads = forwardResults();
  if (packedQkv != ir::kNoValue) reads.push_back(packedQkv);
  return reads;
}

}  // namespace dfc::runtime
