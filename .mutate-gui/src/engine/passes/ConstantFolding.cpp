// constant-folding: a node whose inputs are all constants is evaluated now,
// with the runtime's own kernel (so folding gives bit-identical numbers), and
// its outputs become Consts with the same names. Skipped: results over
// kMaxElements (they would bloat the PEF), kernels that refuse (composites),
// and values the runtime hands back (graph outputs, updates).
#include "passes/GraphRewriter.h"
#include "passes/Pass.h"
#include "runtime/Kernels.h"

namespace dfc::passes {
namespace {

constexpr int64_t kMaxElements = 1 << 20;

class ConstantFolding final : public Pass {
 public:
  std::string_view name() const override { return "constant-folding"; }

  Expected<bool> run(ir::Graph& g) override {
    GraphRewriter rw(std::move(g));
    const size_t numNodes = rw.graph().nodes.size();  // folding adds values, never nodes
    for (size_t i = 0; i < numNodes; ++i) {
      const ir::Node& n = rw.graph().nodes[i];
      if (n.inputs.empty() || !foldable(rw, n)) continue;
      std::vector<const ir::Tensor*> ins;
      for (ir::ValueId in : n.inputs) ins.push_back(rw.constData(rw.resolve(in)));
      std::vector<ir::Tensor> results;
      for (ir::ValueId o : n.outputs) results.emplace_back(rw.value(o).type);
      std::vector<ir::Tensor*> outs;
      for (ir::Tensor& t : results) outs.push_back(&t);
      if (!runtime::runKernel(n, ins, outs)) continue;  // no kernel (e.g. a composite): leave it
      ir::NodeId id = n.id;
      std::vector<ir::ValueId> outputs = n.outputs;
      rw.eraseNode(id);
      for (size_t k = 0; k < outputs.size(); ++k) {
        // The Const takes the output's name: the old value disappears with its node.
        ir::ValueId c = rw.addConst(id, rw.value(outputs[k]).name, std::move(results[k]));
        rw.replaceAllUses(outputs[k], c);
      }
    }
    return rw.commitTo(g);
  }

 private:
  static bool foldable(const GraphRewriter& rw, const ir::Node& n) {
    for (ir::ValueId in : n.inputs)
      if (!rw.constData(rw.resolve(in))) return false;
    for (ir::ValueId o : n.outputs)
      if (rw.isPinned(o) || rw.value(o).type.numElements() > kMaxElements) return false;
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> createConstantFoldingPass() { return std::make_unique<ConstantFolding>(); }

}  // namespace dfc::passes
