// peephole: local algebraic identities. x*1 -> x, x+0 / x-0 -> x, scale 1 -> x,
// scale(scale(x)) -> one scale, reshape to the same shape -> x, reshape of
// reshape -> one reshape, transpose of transpose -> one transpose (or x when
// the permutations cancel). Values the runtime returns by name are never
// replaced (only rewritten in place); producers left unused are removed.
#include <set>

#include "passes/GraphRewriter.h"
#include "passes/Pass.h"

namespace dfc::passes {
namespace {

using ir::OpKind;
using ir::ValueId;

bool allEqual(const ir::Tensor* t, float value) {
  if (!t || t->dtype() != ir::DType::F32) return false;
  for (float x : t->span<float>())
    if (x != value) return false;
  return true;
}

class Peephole final : public Pass {
 public:
  std::string_view name() const override { return "peephole"; }

  Expected<bool> run(ir::Graph& g) override {
    GraphRewriter rw(std::move(g));
    std::set<ir::NodeId> orphans;  // nodes that may have lost their last user
    bool edited = false;           // a node rewritten in place
    const size_t numNodes = rw.graph().nodes.size();
    for (size_t i = 0; i < numNodes; ++i) {
      ir::Node& n = rw.node(static_cast<ir::NodeId>(i));
      if (n.outputs.size() != 1) continue;
      ValueId out = n.outputs[0];
      auto forward = [&](ValueId x) {  // out is just x
        if (rw.isPinned(out) || !(rw.value(x).type == rw.value(out).type)) return;
        rw.replaceAllUses(out, x);
        orphans.insert(n.id);
      };
      auto producerOf = [&](ValueId v, OpKind op) -> ir::Node* {
        ir::NodeId p = rw.value(rw.resolve(v)).producer;
        if (p == ir::kNoNode || rw.isErased(p) || rw.node(p).op != op) return nullptr;
        return &rw.node(p);
      };
      auto rewire = [&](ir::Node& inner) {  // n now reads inner's input instead of inner
        n.inputs[0] = rw.resolve(inner.inputs[0]);
        orphans.insert(inner.id);
        edited = true;
      };
      switch (n.op) {
        case OpKind::Mul: {
          ValueId a = rw.resolve(n.inputs[0]), b = rw.resolve(n.inputs[1]);
          if (allEqual(rw.constData(b), 1.f)) forward(a);
          else if (allEqual(rw.constData(a), 1.f)) forward(b);
          break;
        }
        case OpKind::Add: {
          ValueId a = rw.resolve(n.inputs[0]), b = rw.resolve(n.inputs[1]);
          if (allEqual(rw.constData(b), 0.f)) forward(a);
          else if (allEqual(rw.constData(a), 0.f)) forward(b);
          break;
        }
        case OpKind::Sub:
          if (allEqual(rw.constData(rw.resolve(n.inputs[1])), 0.f)) forward(rw.resolve(n.inputs[0]));
          break;
        case OpKind::Scale: {
          if (ir::Node* inner = producerOf(n.inputs[0], OpKind::Scale)) {
            n.attrs["alpha"] = inner->floatAttr("alpha", 1.0) * n.floatAttr("alpha", 1.0);
            rewire(*inner);
          }
          if (n.floatAttr("alpha", 1.0) == 1.0) forward(rw.resolve(n.inputs[0]));
          break;
        }
        case OpKind::Reshape: {
          if (ir::Node* inner = producerOf(n.inputs[0], OpKind::Reshape)) {
            rewire(*inner);
          }
          forward(rw.resolve(n.inputs[0]));
          break;
        }
        case OpKind::Transpose: {
          if (ir::Node* inner = producerOf(n.inputs[0], OpKind::Transpose)) {
            auto p1 = inner->intsAttr("perm"), p2 = n.intsAttr("perm");
            if (p1.size() == p2.size()) {
              std::vector<int64_t> composed;
              for (int64_t k : p2) composed.push_back(p1[static_cast<size_t>(k)]);
              n.attrs["perm"] = composed;
              rewire(*inner);
              }
          }
          auto perm = n.intsAttr("perm");
          bool identity = true;
          for (size_t k = 0; k < perm.size(); ++k) identity = identity && perm[k] == static_cast<int64_t>(k);
          if (identity) forward(rw.resolve(n.inputs[0]));
          break;
        }
        default: break;
      }
    }
    rw.eraseDeadNodes(orphans);
    return rw.commitTo(g, rw.changed() || edited);
  }
};

}  // namespace

std::unique_ptr<Pass> createPeepholePass() { return std::make_unique<Peephole>(); }

}  // namespace dfc::passes
