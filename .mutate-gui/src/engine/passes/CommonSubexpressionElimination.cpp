// cse: two nodes with the same op, attributes, inputs and role compute the
// same thing; the later one's uses move to the earlier one. Optimizer updates
// are never merged (each writes its own state), nor are nodes whose outputs
// the runtime hands back by name (graph outputs, updates).
#include <unordered_map>

#include "passes/GraphRewriter.h"
#include "passes/Pass.h"

namespace dfc::passes {
namespace {

size_t mix(size_t h, size_t v) { return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)); }

// Op, role and (resolved) inputs: cheap, and nearly always tells nodes apart;
// attributes are compared only between nodes that share this hash.
size_t shapeHash(const ir::Node& n, const std::vector<ir::ValueId>& inputs) {
  size_t h = mix(static_cast<size_t>(n.op), static_cast<size_t>(n.role));
  for (ir::ValueId in : inputs) h = mix(h, static_cast<size_t>(in));
  return h;
}

class CommonSubexpressionElimination final : public Pass {
 public:
  std::string_view name() const override { return "cse"; }

  Expected<bool> run(ir::Graph& g) override {
    GraphRewriter rw(std::move(g));
    const ir::Graph& rg = rw.graph();
    // Nodes seen so far by hash; resolvedInputs[id]: a node's inputs as it was keyed.
    std::unordered_map<size_t, std::vector<ir::NodeId>> seen;
    seen.reserve(rg.nodes.size());
    std::vector<std::vector<ir::ValueId>> resolvedInputs(rg.nodes.size());
    std::vector<ir::ValueId> inputs;
    for (const ir::Node& n : rg.nodes) {
      if (!ir::roleInfo(n.role).mergeable || n.op == ir::OpKind::SgdUpdate || n.op == ir::OpKind::MomentumUpdate)
        continue;
      inputs.clear();
      for (ir::ValueId in : n.inputs) inputs.push_back(rw.resolve(in));
      std::vector<ir::NodeId>& bucket = seen[shapeHash(n, inputs)];
      ir::NodeId match = ir::kNoNode;
      for (ir::NodeId c : bucket) {
        const ir::Node& cand = rg.node(c);
        if (cand.op == n.op && cand.role == n.role && resolvedInputs[static_cast<size_t>(c)] == inputs &&
            cand.attrs == n.attrs) {
          match = c;
          break;
        }
      }
      if (match == ir::kNoNode) {
        bucket.push_back(n.id);
        resolvedInputs[static_cast<size_t>(n.id)] = inputs;
        continue;
      }
      const ir::Node& first = rg.node(match);
      bool pinned = false;
      for (ir::ValueId o : n.outputs) pinned = pinned || rw.isPinned(o);
      if (pinned || first.outputs.size() != n.outputs.size()) continue;
      for (size_t k = 0; k < n.outputs.size(); ++k) rw.replaceAllUses(n.outputs[k], first.outputs[k]);
      rw.eraseNode(n.id);
    }
    return rw.commitTo(g);
  }
};

}  // namespace

std::unique_ptr<Pass> createCsePass() { return std::make_unique<CommonSubexpressionElimination>(); }

}  // namespace dfc::passes
