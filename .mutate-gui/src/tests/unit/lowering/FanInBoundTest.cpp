#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "arch/FanIn.h"
#include "kernelc/Placer.h"
#include "kernelc/Router.h"
#include "lowering/FanInBound.h"
#include "lowering/Lowerer.h"
#include "unit/mapping/MapFixture.h"

using namespace dfc;
using lowering::KernelRole;
using lowering::UnitKind;

namespace {

// gpt2 as `dfc compile -m gpt2 --hidden-size 256 --num-heads 4 --seq-len 128
// --vocab-size 1000 -b 4`, two layers: its sections fed single units from
// more nets than their links carry.
ir::Graph smallGpt2(int64_t batch = 4, int64_t seqLen = 128, int64_t vocab = 1000) {
  frontend::ZooOptions o;
  o.batchSize = batch;
  o.params = {{"num_layers", 2}, {"hidden_size", 256}, {"num_heads", 4}, {"seq_len", seqLen}, {"vocab_size", vocab}};
  auto m = frontend::buildZooModel("gpt2", o);
  REQUIRE(m.ok());
  auto tg = autograd::buildTrainingGraph(m->graph, m->image, m->logits, {});
  REQUIRE(tg.ok());
  return std::move(tg->graph);
}

struct Lowered {
  std::string name;
  lowering::KernelGraph bounded, unbounded;
};

// Every section of the mapped graph lowered as the linker does (under its PCU budget), with and without the bound.
std::vector<Lowered> lowerAll(const ir::Graph& g, const arch::ArchSpec& a) {
  auto plan = test::mapGraph(g, a, 1.0);
  REQUIRE(plan.ok());
  arch::CostModel cost(a);
  std::vector<Lowered> out;
  for (const auto& s : plan->sections)
    out.push_back({s.name, lowering::lowerSection(g, s.nodes, cost, a.totalPcus()),
                   lowering::lowerSection(g, s.nodes, cost, a.totalPcus(), 0)});
  return out;
}

kernelc::Routing placeAndRoute(const lowering::KernelGraph& kg, const arch::ArchSpec& a) {
  auto p = kernelc::Placer(a).place(kg);
  REQUIRE(p.ok());
  kernelc::Grid grid(a, p->tiles);
  kernelc::RouterOptions o;
  o.linkTracks = arch::linkTracks(a);
  return kernelc::Router(grid).route(kg, p->sites, o);
}

bool isTreeUnit(const lowering::KernelOp& op) { return op.role == KernelRole::Reduce || op.role == KernelRole::Staging; }

// Every edge of `before` (the graph without trees) is still a path in `after`,
// through tree units only; `after` is `before` with tree units inserted.
void checkConnectivityKept(const lowering::KernelGraph& before, const lowering::KernelGraph& after) {
  std::vector<int> original;  // after's id of each of before's ops
  for (const auto& op : after.ops)
    if (!isTreeUnit(op)) original.push_back(op.id);
  REQUIRE(original.size() == before.ops.size());
  for (size_t k = 0; k < before.ops.size(); ++k) {
    const auto& x = before.ops[k];
    const auto& y = after.ops[static_cast<size_t>(original[k])];
    CHECK((x.unit == y.unit && x.role == y.role && x.node == y.node && x.slice == y.slice));
  }
  std::vector<std::vector<int>> out(after.ops.size());
  for (const auto& e : after.edges) {
    CHECK(e.from < e.to);  // lowering order kept (the critical path relies on it)
    out[static_cast<size_t>(e.from)].push_back(e.to);
  }
  for (const auto& e : before.edges) {
    int from = original[static_cast<size_t>(e.from)], to = original[static_cast<size_t>(e.to)];
    std::vector<int> stack{from};
    bool reached = false;
    while (!stack.empty() && !reached) {
      int k = stack.back();
      stack.pop_back();
      for (int n : out[static_cast<size_t>(k)]) {
        reached = reached || n == to;
        if (isTreeUnit(after.ops[static_cast<size_t>(n)])) stack.push_back(n);
      }
    }
    CHECK(reached);
  }
}

}  // namespace

TEST_CASE("the fan-in bound comes from the arch's links: a third of a switch's incoming tracks") {
  auto a = test::preset("sn30");
  CHECK(arch::unitFanInBound(a) == arch::kUnitLinks * arch::linkTracks(a) / arch::kFanInMargin);
  CHECK(arch::unitFanInBound(a) == 10);
  a.networkLinkTracks = 32;
  CHECK(arch::unitFanInBound(a) == 42);
  CHECK(arch::combineTreeUnits(10, 10) == 0);
  CHECK(arch::combineTreeUnits(160, 10) == 16 + 2);
}

TEST_CASE("combine trees: partial sums go through Reduce PCUs, gathers through Staging PMUs, every source still arrives") {
  // 37 replicas of a reduction write partial sums into one buffer; 230 resident slices feed one PCU.
  lowering::KernelGraph ordered;
  std::vector<int> partials;
  for (int p = 0; p < 37; ++p) partials.push_back(ordered.add(UnitKind::Pcu, KernelRole::Stage, 1, 1, p));
  int sum = ordered.add(UnitKind::Pmu, KernelRole::OutBuffer, 1);
  for (int p : partials) ordered.connect(p, sum);
  std::vector<int> slices;
  for (int w = 0; w < 230; ++w) slices.push_back(ordered.add(UnitKind::Pmu, KernelRole::Weights, 2, 0, w));
  int gather = ordered.add(UnitKind::Pcu, KernelRole::Gemm, 2, 6);
  for (int w : slices) ordered.connect(w, gather);
  ordered.connect(slices[0], gather);  // a second edge between the same units is one net
  std::vector<bool> partial(ordered.ops.size(), false);
  partial[static_cast<size_t>(sum)] = true;

  lowering::KernelGraph after = ordered;
  int added = lowering::boundFanIn(after, 10, partial);
  CHECK(added == arch::combineTreeUnits(37, 10) + arch::combineTreeUnits(230, 10));
  CHECK(after.ops.size() == ordered.ops.size() + static_cast<size_t>(added));
  auto in = lowering::fanIn(after);
  CHECK(*std::max_element(in.begin(), in.end()) <= 10);
  int reduce = 0, staging = 0;
  for (const auto& op : after.ops) {
    reduce += op.role == KernelRole::Reduce && op.unit == UnitKind::Pcu && op.node == 1;
    staging += op.role == KernelRole::Staging && op.unit == UnitKind::Pmu && op.node == 2;
  }
  CHECK(reduce == arch::combineTreeUnits(37, 10));  // 4
  CHECK(staging == arch::combineTreeUnits(230, 10));  // 23 + 3
  checkConnectivityKept(ordered, after);
  // Under the bound: nothing changes.
  lowering::KernelGraph same = ordered;
  CHECK(lowering::boundFanIn(same, 300, partial) == 0);
  CHECK(same.edges.size() == ordered.edges.size());
}

TEST_CASE("lowered sections of real models feed no unit from more nets than the bound, and keep every route") {
  auto a = test::preset("sn30");
  const int bound = arch::unitFanInBound(a);
  int treed = 0;
  for (const std::string model : {"lenet", "gpt2-mini"}) {
    ir::Graph g = test::trainingGraph(model, 32);
    for (const auto& l : lowerAll(g, a)) {
      INFO(model << " " << l.name);
      auto in = lowering::fanIn(l.bounded);
      CHECK(*std::max_element(in.begin(), in.end()) <= bound);
      checkConnectivityKept(l.unbounded, l.bounded);
      treed += l.bounded.ops.size() > l.unbounded.ops.size();
      CHECK(kernelc::Placer(a).tilesFor(l.bounded).ok());
    }
  }
  CHECK(treed >= 1);
}

TEST_CASE("small gpt2: sections with forced overuse before the combine trees route within capacity with them") {
  auto a = test::preset("sn30");
  const int bound = arch::unitFanInBound(a);
  ir::Graph g = smallGpt2();
  arch::CostModel cost(a);
  int forcedBefore = 0, sections = 0, compared = 0;
  for (const auto& l : lowerAll(g, a)) {
    INFO(l.name);
    auto in = lowering::fanIn(l.bounded);
    CHECK(*std::max_element(in.begin(), in.end()) <= bound);
    auto before = lowering::fanIn(l.unbounded);
    if (*std::max_element(before.begin(), before.end()) <= arch::kUnitLinks * arch::linkTracks(a)) continue;
    ++sections;
    checkConnectivityKept(l.unbounded, l.bounded);
    if (compared < 3) {  // routing the unbounded graphs is the slow part: a few are enough
      forcedBefore += placeAndRoute(l.unbounded, a).forcedLinks > 0;
      ++compared;
    }
    auto r = placeAndRoute(l.bounded, a);
    CHECK(r.forcedLinks == 0);
    CHECK(r.overusedLinks == 0);
    CHECK(r.maxLinkUse <= r.capacity);
  }
  CHECK(sections >= 3);
  CHECK(forcedBefore == compared);
}

TEST_CASE("the cost model counts the combine tree units the lowering adds") {
  auto a = test::preset("sn30");
  ir::Graph g = smallGpt2();
  auto plan = test::mapGraph(g, a, 1.0);
  REQUIRE(plan.ok());
  arch::CostModel cost(a);
  int withTrees = 0;
  for (const auto& s : plan->sections) {
    INFO(s.name);
    auto kg = lowering::lowerSection(g, s.nodes, cost, a.totalPcus());
    auto plain = lowering::lowerSection(g, s.nodes, cost, a.totalPcus(), 0);
    int treePcus = kg.pcus() - plain.pcus(), treePmus = kg.pmus() - plain.pmus();
    withTrees += treePcus + treePmus > 0;
    CHECK(kg.pcus() <= a.totalPcus());  // the shares left room for the Reduce PCUs
    // Per op, treeUnits follows the lowering's wiring; shared buffers make the section's figure an upper bound.
    int estPcus = 0, estPmus = 0;
    auto shares = cost.pcuShares(g, s.nodes, a.totalPcus());
    for (size_t i = 0; i < s.nodes.size(); ++i) {
      auto t = cost.treeUnits(cost.opCost(g, g.node(s.nodes[i])), shares[i]);
      estPcus += t.pcus;
      estPmus += t.pmus;
    }
    CHECK(estPcus == treePcus);
    CHECK(estPmus >= treePmus);
    CHECK(s.estimate.pmus >= kg.pmus());
    // Deterministic.
    auto again = lowering::lowerSection(g, s.nodes, cost, a.totalPcus());
    REQUIRE(again.edges.size() == kg.edges.size());
    for (size_t e = 0; e < kg.edges.size(); ++e)
      CHECK((again.edges[e].from == kg.edges[e].from && again.edges[e].to == kg.edges[e].to));
  }
  CHECK(withTrees >= 3);
}

TEST_CASE("under a PCU cap, an op's share leaves room for the Reduce PCUs that add its partial results") {
  auto a = test::preset("sn30");
  ir::Graph g = smallGpt2(8, 512, 4000);  // the loss reads 8 x 512 x 4000 logits: over a hundred replicas
  arch::CostModel cost(a);
  ir::NodeId loss = ir::kNoNode;
  for (const auto& n : g.nodes)
    if (n.op == ir::OpKind::SoftmaxCrossEntropy) loss = n.id;
  REQUIRE(loss != ir::kNoNode);
  arch::OpCost c = cost.opCost(g, g.node(loss));
  REQUIRE(c.treePcus > 0);
  auto free = lowering::lowerSection(g, {loss}, cost);
  CHECK(free.pcus() == c.pcus + c.treePcus);
  auto capped = lowering::lowerSection(g, {loss}, cost, c.pcus);
  CHECK(capped.pcus() <= c.pcus);
  CHECK(capped.pcus() >= c.pcus - 2 * c.treePcus);
  CHECK(cost.sectionEstimate(g, {loss}, c.pcus).pcus == capped.pcus());
  int reduce = 0;
  for (const auto& op : capped.ops) reduce += op.role == KernelRole::Reduce;
  CHECK(reduce > 0);
  auto in = lowering::fanIn(capped);
  CHECK(*std::max_element(in.begin(), in.end()) <= arch::unitFanInBound(a));
}
