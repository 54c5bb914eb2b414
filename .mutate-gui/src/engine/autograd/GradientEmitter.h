#pragma once
// GradientEmitter: appends nodes to an existing graph for autograd, with
// unique names, inferred output types, and the scope/role of the forward node
// being differentiated (so backward work groups with its hyperfunction).
#include <string>
#include <vector>

#include "ir/Graph.h"
#include "support/Error.h"
#include "support/NameSet.h"

namespace dfc::autograd {

class GradientEmitter {
 public:
  explicit GradientEmitter(ir::Graph& graph);

  ir::Graph& graph() { return m_graph; }
  // Scope, role and name prefix for the nodes emitted next.
  void setContext(std::string scope, ir::NodeRole role, std::string namePrefix);

  // Emits one node named "<prefix>.<suffix>"; returns its outputs.
  Expected<std::vector<ir::ValueId>> emitMulti(ir::OpKind op, std::vector<ir::ValueId> inputs, ir::Attributes attrs,
                                               const std::string& suffix);
  Expected<ir::ValueId> emit(ir::OpKind op, std::vector<ir::ValueId> inputs, ir::Attributes attrs,
                             const std::string& suffix);
  // A Const named "<prefix>.<suffix>" (made unique).
  ir::ValueId constant(const std::string& suffix, ir::Tensor data);
  ir::ValueId filled(const std::string& suffix, const ir::Shape& shape, float value);

  std::string uniqueValueName(const std::string& base) { return unique(base, m_valueNames); }

 private:
  std::string unique(std::string base, support::StringSet& taken);

  ir::Graph& m_graph;
  support::StringSet m_valueNames;
  support::StringSet m_nodeNames;
  std::string m_scope;
  std::string m_prefix;
  ir::NodeRole m_role = ir::NodeRole::Backward;
};

}  // namespace dfc::autograd
