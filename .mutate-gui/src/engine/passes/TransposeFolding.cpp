// transpose-folding: GEMM reads its operands transposed for free, so a
// transpose that swaps the two matrix axes and feeds matmul (or batch_matmul)
// becomes the consumer's trans_a / trans_b flag. The transpose goes when
// nothing else reads it.
#include <set>

#include "passes/GraphRewriter.h"
#include "passes/Pass.h"

namespace dfc::passes {
namespace {

using ir::OpKind;

// perm swaps the last two axes and keeps the others in place.
bool swapsLastTwo(const std::vector<int64_t>& perm) {
  size_t r = perm.size();
  if (r < 2) return false;
  for (size_t k = 0; k + 2 < r; ++k)
    if (perm[k] != static_cast<int64_t>(k)) return false;
  return perm[r - 2] == static_cast<int64_t>(r - 1) && perm[r - 1] == static_cast<int64_t>(r - 2);
}

class TransposeFolding final : public Pass {
 public:
  std::string_view name() const override { return "transpose-folding"; }

  Expected<bool> run(ir::Graph& g) override {
    GraphRewriter rw(std::move(g));
    std::set<ir::NodeId> folded;
    const size_t numNodes = rw.graph().nodes.size();
    for (size_t i = 0; i < numNodes; ++i) {
      ir::Node& n = rw.node(static_cast<ir::NodeId>(i));
      bool batched = n.op == OpKind::BatchMatMul;
      if (n.op != OpKind::MatMul && !batched) continue;
      for (size_t k = 0; k < 2; ++k) {
        ir::NodeId p = rw.value(n.inputs[k]).producer;
        if (p == ir::kNoNode) continue;
        const ir::Node& t = rw.node(p);
        if (t.op != OpKind::Transpose || !swapsLastTwo(t.intsAttr("perm"))) continue;
        if (!batched && t.intsAttr("perm").size() != 2) continue;
        const char* flag = k == 0 ? "trans_a" : "trans_b";
        n.attrs[flag] = int64_t{n.intAttr(flag) != 0 ? 0 : 1};
        n.inputs[k] = t.inputs[0];
        folded.insert(p);
      }
    }
    if (folded.empty()) return rw.commitTo(g, false);
    rw.eraseDeadNodes(folded);
    return rw.commitTo(g, true);
  }
};

}  // namespace

std::unique_ptr<Pass> createTransposeFoldingPass() { return std::make_unique<TransposeFolding>(); }

}  // namespace dfc::passes
