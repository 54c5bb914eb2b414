// pattern-fusion: an exported graph (ONNX from PyTorch) spells some of the
// IR's own ops out in primitives; this pass puts the ops back, so the runtime
// runs one kernel instead of a chain and finds the patterns it fuses further
// (the attention chain of ir/AttentionPattern.h wants scale and causal_mask):
//   0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))  -> gelu(x)
//   x * c, c * x, x / c (1/c exact: a power of two)          -> scale(x, c)
//   where(j > i, fill, x) or where(j <= i, x, fill)           -> causal_mask(x, fill)
//   x * sigmoid(x) (SiLU, EfficientNet's activation)          -> unary silu(x)
// scale and causal_mask compute the same float ops (the same bits); gelu and
// silu are the same functions within their kernels' float tanh and exp. A chain's inner values
// must be read by nothing else. The last node of a match is rewritten in
// place (its output keeps its name); the rest goes when nobody reads it.
#include <cmath>
#include <optional>
#include <set>

#include "passes/GraphRewriter.h"
#include "passes/Pass.h"

namespace dfc::passes {
namespace {

using ir::NodeId;
using ir::OpKind;
using ir::ValueId;

constexpr double kSqrt2OverPi = 0.7978845608028654;

class Matcher {
 public:
  explicit Matcher(GraphRewriter& rw) : m_rw(rw), m_users(rw.graph().computeUsers()) {}

  bool fuseGelu(const ir::Node& tanhNode);
  bool toScale(ir::Node& n);
  bool toCausalMask(ir::Node& n);
  bool toSilu(ir::Node& n);
  std::set<NodeId>& orphans() { return m_orphans; }

 private:
  // The node computing v, if it is `fn` (a native op or the general form).
  const ir::Node* producer(ValueId v, OpKind native, const char* fn) const;
  const ir::Node* soleUser(ValueId v, OpKind native, const char* fn) const;
  bool onlyReadOnce(ValueId v) const {
    const auto& us = m_users[static_cast<size_t>(v)];
    return !m_rw.isPinned(v) && us.size() == 1;
  }
  std::optional<float> scalar(ValueId v) const;
  // n reads a scalar const near `want` and one other value (returned).
  std::optional<ValueId> besideConst(const ir::Node& n, double want) const;
  bool isCubeOf(ValueId cube, ValueId x, std::vector<NodeId>& chain) const;
  bool geluHead(ValueId u, ValueId& x, std::vector<NodeId>& chain) const;
  const ir::Node* geluTail(ValueId t, ValueId x, std::vector<NodeId>& chain) const;
  void rewrite(ir::Node& n, OpKind op, ValueId x, ir::Attributes attrs);

  GraphRewriter& m_rw;
  std::vector<std::vector<NodeId>> m_users;
  std::set<NodeId> m_orphans;   // may have lost their last reader
  std::set<NodeId> m_consumed;  // inside a match: no second match starts there
};

bool isFn(const ir::Node& n, OpKind native, const char* fn) {
  if (n.op == native && native != OpKind::Binary && native != OpKind::Unary) return true;
  if (n.op != OpKind::Binary && n.op != OpKind::Unary) return false;
  auto it = n.attrs.find("fn");
  const std::string* s = it == n.attrs.end() ? nullptr : std::get_if<std::string>(&it->second);
  return s && *s == fn;
}

const ir::Node* Matcher::producer(ValueId v, OpKind native, const char* fn) const {
  const NodeId p = m_rw.value(v).producer;
  if (p == ir::kNoNode || m_rw.isErased(p) || m_consumed.count(p)) return nullptr;
  const ir::Node& n = m_rw.graph().node(p);
  return isFn(n, native, fn) ? &n : nullptr;
}

const ir::Node* Matcher::soleUser(ValueId v, OpKind native, const char* fn) const {
  if (!onlyReadOnce(v)) return nullptr;
  const ir::Node& n = m_rw.graph().node(m_users[static_cast<size_t>(v)][0]);
  return isFn(n, native, fn) && !m_consumed.count(n.id) ? &n : nullptr;
}

std::optional<float> Matcher::scalar(ValueId v) const {
  const ir::Tensor* t = m_rw.constData(v);
  if (!t || t->dtype() != ir::DType::F32 || t->numElements() != 1) return std::nullopt;
  return t->data<float>()[0];
}

std::optional<ValueId> Matcher::besideConst(const ir::Node& n, double want) const {
  if (n.inputs.size() != 2) return std::nullopt;
  for (size_t k = 0; k < 2; ++k) {
    auto c = scalar(n.inputs[k]);
    if (c && std::abs(*c - want) <= 1e-6 * std::abs(want)) return n.inputs[1 - k];
  }
  return std::nullopt;
}

void Matcher::rewrite(ir::Node& n, OpKind op, ValueId x, ir::Attributes attrs) {
  for (ValueId in : n.inputs)
    if (NodeId p = m_rw.value(in).producer; p != ir::kNoNode) m_orphans.insert(p);
  n.op = op;
  n.inputs = {x};
  n.attrs = std::move(attrs);
}

// cube = x * (x * x), (x * x) * x or pow(x, 3).
bool Matcher::isCubeOf(ValueId cube, ValueId x, std::vector<NodeId>& chain) const {
  if (!onlyReadOnce(cube)) return false;
  if (const ir::Node* p = producer(cube, OpKind::Binary, "pow")) {
    chain.push_back(p->id);
    return p->inputs[0] == x && scalar(p->inputs[1]) == 3.0f;
  }
  const ir::Node* m = producer(cube, OpKind::Mul, "mul");
  if (!m) return false;
  chain.push_back(m->id);
  for (size_t k = 0; k < 2; ++k) {
    const ValueId sq = m->inputs[1 - k];
    const ir::Node* s = producer(sq, OpKind::Mul, "mul");
    if (m->inputs[k] == x && s && onlyReadOnce(sq) && s->inputs[0] == x && s->inputs[1] == x) {
      chain.push_back(s->id);
      return true;
    }
  }
  return false;
}

// u = sqrt(2/pi) * (x + 0.044715 * x^3): finds x.
bool Matcher::geluHead(ValueId u, ValueId& x, std::vector<NodeId>& chain) const {
  const ir::Node* outer = producer(u, OpKind::Mul, "mul");
  auto inner = outer && onlyReadOnce(u) ? besideConst(*outer, kSqrt2OverPi) : std::nullopt;
  const ir::Node* sum = inner && onlyReadOnce(*inner) ? producer(*inner, OpKind::Add, "add") : nullptr;
  if (!sum) return false;
  chain.insert(chain.end(), {outer->id, sum->id});
  for (size_t k = 0; k < 2; ++k) {
    x = sum->inputs[k];
    const ValueId r = sum->inputs[1 - k];
    const ir::Node* m = onlyReadOnce(r) ? producer(r, OpKind::Mul, "mul") : nullptr;
    auto cube = m ? besideConst(*m, 0.044715) : std::nullopt;
    std::vector<NodeId> tried = chain;
    tried.push_back(m ? m->id : ir::kNoNode);
    if (cube && isCubeOf(*cube, x, tried)) {
      chain = std::move(tried);
      return true;
    }
  }
  return false;
}

// t = tanh(u) read as 0.5 * (x * (1 + t)) or (0.5 * x) * (1 + t): the last node.
const ir::Node* Matcher::geluTail(ValueId t, ValueId x, std::vector<NodeId>& chain) const {
  const ir::Node* plus = soleUser(t, OpKind::Add, "add");
  if (!plus || besideConst(*plus, 1.0) != t) return nullptr;
  const ValueId a = plus->outputs[0];
  const ir::Node* times = soleUser(a, OpKind::Mul, "mul");
  if (!times) return nullptr;
  chain.push_back(plus->id);
  const ValueId other = times->inputs[0] == a ? times->inputs[1] : times->inputs[0];
  if (other == x) {  // 0.5 * (x * (1 + t))
    const ir::Node* half = soleUser(times->outputs[0], OpKind::Mul, "mul");
    if (!half || besideConst(*half, 0.5) != times->outputs[0]) return nullptr;
    chain.push_back(times->id);
    return half;
  }
  const ir::Node* half = onlyReadOnce(other) ? producer(other, OpKind::Mul, "mul") : nullptr;
  if (!half || besideConst(*half, 0.5) != x) return nullptr;
  chain.push_back(half->id);
  return times;
}

bool Matcher::fuseGelu(const ir::Node& tanhNode) {
  if (!isFn(tanhNode, OpKind::Unary, "tanh") || m_consumed.count(tanhNode.id)) return false;
  std::vector<NodeId> chain{tanhNode.id};
  ValueId x = ir::kNoValue;
  if (!geluHead(tanhNode.inputs[0], x, chain)) return false;
  const ir::Node* last = geluTail(tanhNode.outputs[0], x, chain);
  if (!last || !(m_rw.value(x).type == m_rw.value(last->outputs[0]).type)) return false;
  if (m_rw.value(x).type.dtype != ir::DType::F32) return false;
  m_consumed.insert(chain.begin(), chain.end());
  m_orphans.insert(chain.begin(), chain.end());
  rewrite(m_rw.node(last->id), OpKind::Gelu, x, {});
  return true;
}

// 1/c exact: c a power of two whose reciprocal is a normal float.
std::optional<float> exactReciprocal(float c) {
  int e = 0;
  if (!std::isfinite(c) || std::frexp(c, &e) != 0.5f) return std::nullopt;
  const float r = 1.0f / c;
  return std::isnormal(r) && r * c == 1.0f ? std::optional<float>(r) : std::nullopt;
}

bool Matcher::toScale(ir::Node& n) {
  const bool mul = isFn(n, OpKind::Mul, "mul"), div = isFn(n, OpKind::Binary, "div");
  if ((!mul && !div) || n.inputs.size() != 2 || m_consumed.count(n.id)) return false;
  const ir::TensorType& out = m_rw.value(n.outputs[0]).type;
  for (size_t k = 0; k < 2; ++k) {
    if (div && k == 0) continue;  // c / x is no scale
    const ValueId x = n.inputs[1 - k];
    std::optional<float> c = scalar(n.inputs[k]);
    if (c && div) c = exactReciprocal(*c);
    if (!c || !(m_rw.value(x).type == out) || out.dtype != ir::DType::F32) continue;
    rewrite(n, OpKind::Scale, x, {{"alpha", static_cast<double>(*c)}});
    return true;
  }
  return false;
}

// cond [1.., T, T] holds (j > i) (upper) or (j <= i) (!upper) everywhere.
bool isTriangle(const ir::Tensor& cond, int64_t t, bool upper) {
  for (int64_t i = 0; i < t; ++i)
    for (int64_t j = 0; j < t; ++j)
      if (cond.data<bool>()[i * t + j] != ((j > i) == upper)) return false;
  return true;
}

bool Matcher::toCausalMask(ir::Node& n) {
  if (n.op != OpKind::Where || n.inputs.size() != 3) return false;
  const ir::Tensor* cond = m_rw.constData(n.inputs[0]);
  const ir::TensorType& out = m_rw.value(n.outputs[0]).type;
  const size_t r = out.shape.size();
  if (!cond || cond->dtype() != ir::DType::Bool || out.dtype != ir::DType::F32 || r < 2) return false;
  const int64_t t = out.shape[r - 1];
  if (out.shape[r - 2] != t || cond->numElements() != t * t || cond->shape().size() > r) return false;
  for (size_t k = 0; k < 2; ++k) {  // k = 0: where(upper, fill, x); k = 1: where(lower, x, fill)
    const ValueId x = n.inputs[2 - k];
    const std::optional<float> fill = scalar(n.inputs[1 + k]);
    if (!fill || !(m_rw.value(x).type == out) || !isTriangle(*cond, t, k == 0)) continue;
    rewrite(n, OpKind::CausalMask, x, {{"fill", static_cast<double>(*fill)}});
    return true;
  }
  return false;
}

bool Matcher::toSilu(ir::Node& n) {
  if (!isFn(n, OpKind::Mul, "mul") || n.inputs.size() != 2 || m_consumed.count(n.id)) return false;
  const ir::TensorType& out = m_rw.value(n.outputs[0]).type;
  for (size_t k = 0; k < 2; ++k) {
    const ValueId x = n.inputs[1 - k], s = n.inputs[k];
    const ir::Node* sigmoid = onlyReadOnce(s) ? producer(s, OpKind::Unary, "sigmoid") : nullptr;
    if (!sigmoid || sigmoid->inputs[0] != x || !(m_rw.value(x).type == out) || out.dtype != ir::DType::F32) continue;
    m_consumed.insert(sigmoid->id);
    rewrite(n, OpKind::Unary, x, {{"fn", std::string("silu")}});
    return true;
  }
  return false;
}

class PatternFusion final : public Pass {
 public:
  std::string_view name() const override { return "pattern-fusion"; }

  Expected<bool> run(ir::Graph& g) override {
    GraphRewriter rw(std::move(g));
    Matcher match(rw);
    bool edited = false;
    const size_t numNodes = rw.graph().nodes.size();
    for (size_t i = 0; i < numNodes; ++i)  // gelu first: its constants would become scales
      edited = match.fuseGelu(rw.graph().nodes[i]) || edited;
    for (size_t i = 0; i < numNodes; ++i) {
      ir::Node& n = rw.node(static_cast<NodeId>(i));
      edited = match.toSilu(n) || match.toScale(n) || match.toCausalMask(n) || edited;
    }
    rw.eraseDeadNodes(match.orphans());
    return rw.commitTo(g, rw.changed() || edited);
  }
};

}  // namespace

std::unique_ptr<Pass> createPatternFusionPass() { return std::make_unique<PatternFusion>(); }

}  // namespace dfc::passes
