#pragma once
// The graph IR. Values and nodes live in vectors and refer to each other by
// index (ValueId / NodeId): a Graph is a plain value that copies cheaply and
// serializes directly. Nodes are kept in topological order (the verifier checks).
#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "ir/Op.h"
#include "ir/Role.h"
#include "ir/Tensor.h"

namespace dfc::ir {

using ValueId = int32_t;
using NodeId = int32_t;
constexpr ValueId kNoValue = -1;
constexpr NodeId kNoNode = -1;

// Attribute values: int, float, list of ints, or string.
using Attribute = std::variant<int64_t, double, std::vector<int64_t>, std::string>;
using Attributes = std::map<std::string, Attribute>;  // sorted: deterministic text form

enum class ValueKind : uint8_t {
  Input,         // fed by the runtime each step (images, labels, learning rate)
  Param,         // trainable weight, initial data in Graph::initializers
  Const,         // constant, data in Graph::initializers
  Intermediate,  // produced by a node
};

// Where a node belongs in a training step (NodeRole): ir/Role.h, a row per role in ir/Roles.def.

struct Value {
  ValueId id = kNoValue;
  std::string name;  // unique within the graph
  TensorType type;
  ValueKind kind = ValueKind::Intermediate;
  NodeId producer = kNoNode;
};

struct Node {
  NodeId id = kNoNode;
  OpKind op{};
  std::string name;  // unique within the graph
  std::vector<ValueId> inputs;
  std::vector<ValueId> outputs;
  Attributes attrs;
  // Hyperfunction scope path, '/'-separated ("conv1", "layer3/attn"); empty: top level.
  std::string scope;
  NodeRole role = NodeRole::Forward;

  int64_t intAttr(const std::string& key, int64_t fallback = 0) const;
  double floatAttr(const std::string& key, double fallback = 0.0) const;
  std::vector<int64_t> intsAttr(const std::string& key) const;  // empty if absent
};

// After a training step the runtime copies `newValue` into `target` (a Param or
// an optimizer-state Const), so the next step sees the updated weights.
struct StateUpdate {
  ValueId target = kNoValue;
  ValueId newValue = kNoValue;
};

class Graph {
 public:
  std::string name;
  std::vector<Value> values;
  std::vector<Node> nodes;          // topological order
  std::vector<ValueId> inputs;      // runtime-fed values, in feed order
  std::vector<ValueId> outputs;     // results the runtime returns (logits, loss, ...)
  std::vector<StateUpdate> updates; // param/state write-backs at the end of a step
  std::map<ValueId, Tensor> initializers;  // data for Param and Const values

  // Building. Names must be unique; addNode sets producers of its outputs.
  ValueId addValue(std::string name, TensorType type, ValueKind kind);
  ValueId addInput(std::string name, TensorType type);
  ValueId addParam(std::string name, Tensor initial);
  ValueId addConst(std::string name, Tensor data);
  NodeId addNode(OpKind op, std::string name, std::vector<ValueId> inputs,
                 std::vector<ValueId> outputs, Attributes attrs = {}, std::string scope = {},
                 NodeRole role = NodeRole::Forward);

  Value& value(ValueId id) { return values.at(static_cast<size_t>(id)); }
  const Value& value(ValueId id) const { return values.at(static_cast<size_t>(id)); }
  Node& node(NodeId id) { return nodes.at(static_cast<size_t>(id)); }
  const Node& node(NodeId id) const { return nodes.at(static_cast<size_t>(id)); }

  ValueId findValue(const std::string& name) const;  // kNoValue if absent
  NodeId findNode(const std::string& name) const;    // kNoNode if absent
  std::vector<ValueId> params() const;               // all Param values in id order

  // users[v] = nodes that read value v, in node order.
  std::vector<std::vector<NodeId>> computeUsers() const;
};

}  // namespace dfc::ir
