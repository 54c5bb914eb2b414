#include "ir/Graph.h"

namespace dfc::ir {

int64_t Node::intAttr(const std::string& key, int64_t fallback) const {
  auto it = attrs.find(key);
  if (it == attrs.end()) return fallback;
  if (auto* v = std::get_if<int64_t>(&it->second)) return *v;
  if (auto* d = std::get_if<double>(&it->second)) return static_cast<int64_t>(*d);
  return fallback;
}

double Node::floatAttr(const std::string& key, double fallback) const {
  auto it = attrs.find(key);
  if (it == attrs.end()) return fallback;
  if (auto* d = std::get_if<double>(&it->second)) return *d;
  if (auto* v = std::get_if<int64_t>(&it->second)) return static_cast<double>(*v);
  return fallback;
}

std::vector<int64_t> Node::intsAttr(const std::string& key) const {
  auto it = attrs.find(key);
  if (it == attrs.end()) return {};
  if (auto* v = std::get_if<std::vector<int64_t>>(&it->second)) return *v;
  return {};
}

ValueId Graph::addValue(std::string valueName, TensorType type, ValueKind kind) {
  Value v;
  v.id = static_cast<ValueId>(values.size());
  v.name = std::move(valueName);
  v.type = std::move(type);
  v.kind = kind;
  values.push_back(std::move(v));
  return values.back().id;
}

ValueId Graph::addInput(std::string valueName, TensorType type) {
  ValueId id = addValue(std::move(valueName), std::move(type), ValueKind::Input);
  inputs.push_back(id);
  return id;
}

ValueId Graph::addParam(std::string valueName, Tensor initial) {
  ValueId id = addValue(std::move(valueName), initial.type(), ValueKind::Param);
  initializers[id] = std::move(initial);
  return id;
}

ValueId Graph::addConst(std::string valueName, Tensor data) {
  ValueId id = addValue(std::move(valueName), data.type(), ValueKind::Const);
  initializers[id] = std::move(data);
  return id;
}

NodeId Graph::addNode(OpKind op, std::string nodeName, std::vector<ValueId> in,
                      std::vector<ValueId> out, Attributes attrs, std::string scope,
                      NodeRole role) {
  Node n;
  n.id = static_cast<NodeId>(nodes.size());
  n.op = op;
  n.name = std::move(nodeName);
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  n.attrs = std::move(attrs);
  n.scope = std::move(scope);
  n.role = role;
  for (ValueId o : n.outputs) value(o).producer = n.id;
  nodes.push_back(std::move(n));
  return nodes.back().id;
}

ValueId Graph::findValue(const std::string& valueName) const {
  for (const Value& v : values)
    if (v.name == valueName) return v.id;
  return kNoValue;
}

NodeId Graph::findNode(const std::string& nodeName) const {
  for (const Node& n : nodes)
    if (n.name == nodeName) return n.id;
  return kNoNode;
}

std::vector<ValueId> Graph::params() const {
  std::vector<ValueId> out;
  for (const Value& v : values)
    if (v.kind == ValueKind::Param) out.push_back(v.id);
  return out;
}

std::vector<std::vector<NodeId>> Graph::computeUsers() const {
  std::vector<std::vector<NodeId>> users(values.size());
  for (const Node& n : nodes)
    for (ValueId in : n.inputs)
      if (in >= 0 && static_cast<size_t>(in) < values.size()) users[static_cast<size_t>(in)].push_back(n.id);
  return users;
}

}  // namespace dfc::ir
