// cse: two nodes with the same op, attributes, inputs and role compute the
// same thing; the later one's uses move to the earlier one. Optimizer updates
// are never merged (each writes its own state), nor are nodes whose outputs
// the runtime hands back by name (graph outputs, updates).
#include <map>
#include <tuple>

#include "passes/GraphRewriter.h"
#include "passes/Pass.h"

namespace dfc::passes {
namespace {

class CommonSubexpressionElimination final : public Pass {
 public:
  std::string_view name() const override { return "cse"; }

  Expected<bool> run(ir::Graph& g) override {
    using Key = std::tuple<ir::OpKind, ir::NodeRole, std::vector<ir::ValueId>, ir::Attributes>;
    std::map<Key, ir::NodeId> seen;
    GraphRewriter rw(g);
    for (const ir::Node& n : g.nodes) {
      if (n.role == ir::NodeRole::Optimizer || n.op == ir::OpKind::SgdUpdate || n.op == ir::OpKind::MomentumUpdate)
        continue;
      std::vector<ir::ValueId> inputs;
      for (ir::ValueId in : n.inputs) inputs.push_back(rw.resolve(in));
      auto [it, inserted] = seen.emplace(Key{n.op, n.role, inputs, n.attrs}, n.id);
      if (inserted) continue;
      const ir::Node& first = g.node(it->second);
      bool pinned = false;
      for (ir::ValueId o : n.outputs) pinned = pinned || rw.isPinned(o);
      if (pinned || first.outputs.size() != n.outputs.size()) continue;
      for (size_t k = 0; k < n.outputs.size(); ++k) rw.replaceAllUses(n.outputs[k], first.outputs[k]);
      rw.eraseNode(n.id);
    }
    if (!rw.changed()) return false;
    auto out = rw.finish();
    if (!out) return out.error();
    g = std::move(*out);
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> createCsePass() { return std::make_unique<CommonSubexpressionElimination>(); }

}  // namespace dfc::passes
