// decompose-composites: ops that frontends produce but the chip has no kernel
// for become primitive ops. linear(x, w, b) = bias_add(matmul(x, w, trans_b=1), b).
// The composite's output value keeps its name and id slot (the bias_add now
// produces it), so graph outputs and later users are untouched.
#include "passes/GraphRewriter.h"
#include "passes/Pass.h"

namespace dfc::passes {
namespace {

using ir::OpKind;

class DecomposeComposites final : public Pass {
 public:
  std::string_view name() const override { return "decompose-composites"; }

  Expected<bool> run(ir::Graph& g) override {
    GraphRewriter rw(std::move(g));
    const size_t numNodes = rw.graph().nodes.size();
    for (size_t i = 0; i < numNodes; ++i) {
      const ir::Node& n = rw.graph().nodes[i];  // valid until the inserts below
      if (n.op != OpKind::Linear) continue;
      const ir::NodeId id = n.id;
      ir::ValueId y = n.outputs[0];
      ir::ValueId t = rw.addValue(n.id, rw.uniqueValueName(rw.value(y).name + ".matmul"), rw.value(y).type);
      ir::Node mm;
      mm.op = OpKind::MatMul;
      mm.name = rw.uniqueNodeName(n.name + ".matmul");
      mm.inputs = {n.inputs[0], n.inputs[1]};
      mm.outputs = {t};
      mm.attrs = {{"trans_a", int64_t{0}}, {"trans_b", int64_t{1}}};
      mm.scope = n.scope;
      mm.role = n.role;
      ir::Node bias = mm;
      bias.op = OpKind::BiasAdd;
      bias.name = rw.uniqueNodeName(n.name + ".bias_add");
      bias.inputs = {t, n.inputs[2]};
      bias.outputs = {y};
      bias.attrs = {};
      rw.eraseNode(id);
      rw.insertNode(id, std::move(mm));
      rw.insertNode(id, std::move(bias));
    }
    return rw.commitTo(g);
  }
};

}  // namespace

std::unique_ptr<Pass> createDecomposeCompositesPass() { return std::make_unique<DecomposeComposites>(); }

}  // namespace dfc::passes
