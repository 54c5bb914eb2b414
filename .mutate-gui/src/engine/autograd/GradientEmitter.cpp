#include "autograd/GradientEmitter.h"

#include "ir/ShapeInference.h"

namespace dfc::autograd {

using ir::ValueId;

// Sized for the graph to about double (autograd does).
GradientEmitter::GradientEmitter(ir::Graph& graph)
    : m_graph(graph), m_valueNames(graph.values.size() * 2), m_nodeNames(graph.nodes.size() * 2) {
  for (const ir::Value& v : graph.values) m_valueNames.insert(v.name);
  for (const ir::Node& n : graph.nodes) m_nodeNames.insert(n.name);
}

void GradientEmitter::setContext(std::string scope, ir::NodeRole role, std::string namePrefix) {
  m_scope = std::move(scope);
  m_role = role;
  m_prefix = std::move(namePrefix);
}

std::string GradientEmitter::unique(std::string base, support::StringSet& taken) {
  if (taken.insert(base)) return base;
  for (int i = 1;; ++i) {
    std::string name = base + "_" + std::to_string(i);
    if (taken.insert(name)) return name;
  }
}

Expected<std::vector<ValueId>> GradientEmitter::emitMulti(ir::OpKind op, std::vector<ValueId> inputs,
                                                          ir::Attributes attrs, const std::string& suffix) {
  ir::Node probe;
  probe.op = op;
  probe.name = m_prefix + "." + suffix;
  probe.inputs = std::move(inputs);  // handed on to the node below
  probe.attrs = std::move(attrs);
  auto types = ir::inferOutputTypes(m_graph, probe);
  if (!types) return types.error().withContext("autograd");
  std::string nodeName = unique(std::move(probe.name), m_nodeNames);
  std::vector<ValueId> outs;
  outs.reserve(types->size());
  for (size_t i = 0; i < types->size(); ++i) {
    std::string valueName = types->size() == 1 ? nodeName : nodeName + "." + std::to_string(i);
    outs.push_back(m_graph.addValue(unique(std::move(valueName), m_valueNames), std::move((*types)[i]),
                                    ir::ValueKind::Intermediate));
  }
  m_graph.addNode(op, std::move(nodeName), std::move(probe.inputs), outs, std::move(probe.attrs), m_scope, m_role);
  return outs;
}

Expected<ValueId> GradientEmitter::emit(ir::OpKind op, std::vector<ValueId> inputs, ir::Attributes attrs,
                                        const std::string& suffix) {
  auto outs = emitMulti(op, std::move(inputs), std::move(attrs), suffix);
  if (!outs) return outs.error();
  return outs->front();
}

ValueId GradientEmitter::constant(const std::string& suffix, ir::Tensor data) {
  return m_graph.addConst(unique(m_prefix + "." + suffix, m_valueNames), std::move(data));
}

ValueId GradientEmitter::filled(const std::string& suffix, const ir::Shape& shape, float value) {
  ir::Tensor t(ir::TensorType{ir::DType::F32, shape});
  for (float& x : t.span<float>()) x = value;
  return constant(suffix, std::move(t));
}

}  // namespace dfc::autograd
