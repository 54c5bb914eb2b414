#include "ir/Verifier.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "ir/GeneralOps.h"
#include "ir/ShapeInference.h"
#include "support/NameSet.h"

namespace dfc::ir {
namespace {

class GraphVerifier {
 public:
  GraphVerifier(const Graph& g, const VerifyOptions& opts) : m_g(g), m_opts(opts) {}
  Status run();

 private:
  bool inRange(ValueId v) const { return v >= 0 && static_cast<size_t>(v) < m_g.values.size(); }
  std::string valueRef(ValueId v) const {
    return inRange(v) ? "'%" + m_g.values[static_cast<size_t>(v)].name + "'" : "#" + std::to_string(v);
  }
  Error valueError(ValueId v, const std::string& msg) const {
    if (m_opts.culprit && inRange(v)) m_opts.culprit->value = v;
    return makeError("value " + valueRef(v) + ": " + msg);
  }
  Error nodeError(const Node& n, const std::string& msg) const {
    if (m_opts.culprit && n.id >= 0 && static_cast<size_t>(n.id) < m_g.nodes.size()) m_opts.culprit->node = n.id;
    return makeError("node '" + n.name + "' (" + std::string(opName(n.op)) + "): " + msg);
  }
  Status checkIdsAndNames();
  Status checkNode(const Node& n, std::vector<bool>& defined);
  Status checkValues();
  Status checkInitializers();
  Status checkInterface(const std::vector<bool>& defined);

  const Graph& m_g;
  const VerifyOptions& m_opts;
};

Status GraphVerifier::checkIdsAndNames() {
  support::NameSet names(m_g.values.size());  // views into the graph: no copies
  for (size_t i = 0; i < m_g.values.size(); ++i) {
    const Value& v = m_g.values[i];
    if (v.id != static_cast<ValueId>(i))
      return makeError("value '%" + v.name + "': id " + std::to_string(v.id) + " does not match its index " + std::to_string(i));
    if (v.name.empty()) return makeError("value #" + std::to_string(i) + ": has no name");
    if (!names.insert(v.name)) return valueError(v.id, "duplicate value name");
    for (int64_t d : v.type.shape)
      if (d < 0) return valueError(v.id, "negative dimension in type " + v.type.toString());
  }
  support::NameSet nodeNames(m_g.nodes.size());
  for (size_t i = 0; i < m_g.nodes.size(); ++i) {
    const Node& n = m_g.nodes[i];
    if (static_cast<int>(n.op) >= numOpKinds())
      return makeError("node '" + n.name + "': unknown op kind " + std::to_string(static_cast<int>(n.op)));
    if (n.id != static_cast<NodeId>(i))
      return nodeError(n, "id " + std::to_string(n.id) + " does not match its index " + std::to_string(i));
    if (n.name.empty()) return nodeError(n, "has no name");
    if (!nodeNames.insert(n.name)) return nodeError(n, "duplicate node name");
  }
  return {};
}

Status GraphVerifier::checkNode(const Node& n, std::vector<bool>& defined) {
  const OpInfo& info = opInfo(n.op);
  if (info.numInputs >= 0 && static_cast<int>(n.inputs.size()) != info.numInputs)
    return nodeError(n, "expects " + std::to_string(info.numInputs) + " inputs, has " + std::to_string(n.inputs.size()));
  if (info.numOutputs >= 0 && static_cast<int>(n.outputs.size()) != info.numOutputs)
    return nodeError(n, "expects " + std::to_string(info.numOutputs) + " outputs, has " + std::to_string(n.outputs.size()));
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    ValueId in = n.inputs[i];
    if (!inRange(in)) return nodeError(n, "input " + std::to_string(i) + " refers to unknown value #" + std::to_string(in));
    if (!defined[static_cast<size_t>(in)])
      return nodeError(n, "input " + valueRef(in) + " is used before it is defined");
    // Everything computes in f32 except reshape/transpose (any dtype), class labels, embedding ids and
    // a decode step's position (its shape rule wants i64).
    bool labels = i == 1 && (n.op == OpKind::SoftmaxCrossEntropy || n.op == OpKind::SoftmaxCrossEntropyGrad ||
                             n.op == OpKind::Embedding || n.op == OpKind::EmbeddingGrad);
    labels = labels || (n.op == OpKind::KvCacheWrite && i == 2) || (n.op == OpKind::DecodeAttention && i == 3);
    DType dt = m_g.values[static_cast<size_t>(in)].type.dtype;
    if (n.op != OpKind::Reshape && n.op != OpKind::Transpose && !isGeneralOp(n.op) && !labels && dt != DType::F32)
      return nodeError(n, "input " + valueRef(in) + " must be f32, is " + std::string(dtypeName(dt)));
  }
  for (ValueId out : n.outputs) {
    if (!inRange(out)) return nodeError(n, "output refers to unknown value #" + std::to_string(out));
    const Value& v = m_g.values[static_cast<size_t>(out)];
    if (v.kind != ValueKind::Intermediate)
      return nodeError(n, "output " + valueRef(out) + " is not an intermediate value (an input, param or const cannot be produced)");
    if (defined[static_cast<size_t>(out)]) return nodeError(n, "output " + valueRef(out) + " is produced twice");
    if (v.producer != n.id)
      return nodeError(n, "output " + valueRef(out) + " names node #" + std::to_string(v.producer) + " as its producer");
  }
  auto types = inferOutputTypes(m_g, n);
  if (!types) {
    // Shape inference prefixes "op 'name': "; say it once, our way.
    std::string msg = types.error().message();
    std::string prefix = std::string(opName(n.op)) + " '" + n.name + "': ";
    if (msg.rfind(prefix, 0) == 0) msg = msg.substr(prefix.size());
    return nodeError(n, msg);
  }
  if (types->size() != n.outputs.size())
    return nodeError(n, "shape inference gives " + std::to_string(types->size()) + " outputs, node has " +
                            std::to_string(n.outputs.size()));
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    const TensorType& stored = m_g.values[static_cast<size_t>(n.outputs[i])].type;
    if (!(stored == (*types)[i]))
      return nodeError(n, "output " + valueRef(n.outputs[i]) + " is stored as " + stored.toString() + " but the op gives " +
                              (*types)[i].toString());
  }
  for (ValueId out : n.outputs) defined[static_cast<size_t>(out)] = true;
  return {};
}

Status GraphVerifier::checkValues() {
  for (const Value& v : m_g.values) {
    if (v.kind == ValueKind::Intermediate) {
      if (v.producer == kNoNode) return valueError(v.id, "intermediate value is never produced");
      if (v.producer < 0 || static_cast<size_t>(v.producer) >= m_g.nodes.size())
        return valueError(v.id, "producer #" + std::to_string(v.producer) + " does not exist");
      const auto& outs = m_g.nodes[static_cast<size_t>(v.producer)].outputs;
      if (std::find(outs.begin(), outs.end(), v.id) == outs.end())
        return valueError(v.id, "producer '" + m_g.nodes[static_cast<size_t>(v.producer)].name + "' does not list it as an output");
    } else if (v.producer != kNoNode) {
      return valueError(v.id, "an input, param or const cannot have a producer");
    }
  }
  return {};
}

Status GraphVerifier::checkInitializers() {
  for (const auto& [id, t] : m_g.initializers) {
    if (!inRange(id)) return makeError("initializer for unknown value #" + std::to_string(id));
    const Value& v = m_g.values[static_cast<size_t>(id)];
    if (v.kind != ValueKind::Param && v.kind != ValueKind::Const)
      return valueError(id, "has initial data but is not a param or const");
    if (t.empty()) return valueError(id, "initializer has no data");
    if (!(t.type() == v.type))
      return valueError(id, "initializer type " + t.type().toString() + " differs from value type " + v.type.toString());
  }
  auto init = m_g.initializers.begin();  // both in id order: one walk, no lookups
  for (const Value& v : m_g.values) {
    while (init != m_g.initializers.end() && init->first < v.id) ++init;
    bool has = init != m_g.initializers.end() && init->first == v.id;
    if (v.kind == ValueKind::Const && !has) return valueError(v.id, "const has no data");
    if (v.kind == ValueKind::Param && !has && m_opts.requireWeights) return valueError(v.id, "param has no initial data");
  }
  return {};
}

Status GraphVerifier::checkInterface(const std::vector<bool>& defined) {
  std::vector<char> fed(m_g.values.size(), 0), targets(m_g.values.size(), 0);  // by value id
  for (ValueId in : m_g.inputs) {
    if (!inRange(in)) return makeError("graph input #" + std::to_string(in) + " does not exist");
    if (m_g.values[static_cast<size_t>(in)].kind != ValueKind::Input)
      return valueError(in, "is a graph input but not an input value");
    if (std::exchange(fed[static_cast<size_t>(in)], 1)) return valueError(in, "is listed twice as a graph input");
  }
  for (const Value& v : m_g.values)
    if (v.kind == ValueKind::Input && !fed[static_cast<size_t>(v.id)])
      return valueError(v.id, "input value is not in the graph's input list");
  for (ValueId out : m_g.outputs) {
    if (!inRange(out)) return makeError("graph output #" + std::to_string(out) + " does not exist");
    if (!defined[static_cast<size_t>(out)]) return valueError(out, "graph output is never defined");
  }
  for (const StateUpdate& u : m_g.updates) {
    if (!inRange(u.target)) return makeError("update target #" + std::to_string(u.target) + " does not exist");
    if (!inRange(u.newValue)) return valueError(u.target, "update source #" + std::to_string(u.newValue) + " does not exist");
    const Value& t = m_g.values[static_cast<size_t>(u.target)];
    const Value& nv = m_g.values[static_cast<size_t>(u.newValue)];
    if (t.kind != ValueKind::Param && t.kind != ValueKind::Const)
      return valueError(u.target, "update target must be a param or const");
    if (!(t.type == nv.type))
      return valueError(u.target, "update from " + valueRef(u.newValue) + " has type " + nv.type.toString() + ", target is " +
                                      t.type.toString());
    if (!defined[static_cast<size_t>(u.newValue)]) return valueError(u.newValue, "update source is never defined");
    if (std::exchange(targets[static_cast<size_t>(u.target)], 1)) return valueError(u.target, "is updated twice");
    // A KV cache is updated in place (ir/KvCache.h): a cache write's output replaces the cache it read.
    const NodeId producer = nv.producer;
    if (producer != kNoNode && m_g.nodes[static_cast<size_t>(producer)].op == OpKind::KvCacheWrite &&
        m_g.nodes[static_cast<size_t>(producer)].inputs[0] != u.target)
      return valueError(u.target, "is updated from kv_cache_write " + valueRef(u.newValue) + " of another cache");
  }
  return {};
}

Status GraphVerifier::run() {
  DFC_TRY(checkIdsAndNames());
  std::vector<bool> defined(m_g.values.size(), false);
  for (const Value& v : m_g.values) defined[static_cast<size_t>(v.id)] = v.kind != ValueKind::Intermediate;
  for (const Node& n : m_g.nodes) DFC_TRY(checkNode(n, defined));
  DFC_TRY(checkValues());
  DFC_TRY(checkInitializers());
  DFC_TRY(checkInterface(defined));
  return {};
}

}  // namespace

Status verifyGraph(const Graph& g, const VerifyOptions& opts) { return GraphVerifier(g, opts).run(); }

}  // namespace dfc::ir
