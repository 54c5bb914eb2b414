// dce: a node is live when one of its outputs reaches a graph output or a
// state update (backwards from those roots). Dead nodes go; Consts nothing
// reads go with their data. Params and Inputs stay: they are the model's
// interface (weights in the PEF, feeds of the runtime).
#include "passes/GraphRewriter.h"
#include "passes/Pass.h"

namespace dfc::passes {
namespace {

class DeadCodeElimination final : public Pass {
 public:
  std::string_view name() const override { return "dce"; }

  Expected<bool> run(ir::Graph& g) override {
    std::vector<bool> live(g.values.size(), false);
    for (ir::ValueId v : g.outputs) live[static_cast<size_t>(v)] = true;
    for (const ir::StateUpdate& u : g.updates) {
      live[static_cast<size_t>(u.target)] = true;
      live[static_cast<size_t>(u.newValue)] = true;
    }
    GraphRewriter rw(std::move(g));
    const ir::Graph& rg = rw.graph();
    for (auto it = rg.nodes.rbegin(); it != rg.nodes.rend(); ++it) {
      bool needed = false;
      for (ir::ValueId o : it->outputs) needed = needed || live[static_cast<size_t>(o)];
      if (!needed) {
        rw.eraseNode(it->id);
        continue;
      }
      for (ir::ValueId in : it->inputs) live[static_cast<size_t>(in)] = true;
    }
    for (const ir::Value& v : rg.values)
      if (v.kind == ir::ValueKind::Const && !live[static_cast<size_t>(v.id)]) rw.eraseValue(v.id);
    return rw.commitTo(g);
  }
};

}  // namespace

std::unique_ptr<Pass> createDeadCodeEliminationPass() { return std::make_unique<DeadCodeElimination>(); }

}  // namespace dfc::passes
