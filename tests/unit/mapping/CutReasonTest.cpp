// Why each section starts where it does (partition/CutReason.h): hand-built
// graphs that force every reason kind the decomposer, a decisions file and the
// mapper record, with the exact figures of the budget cuts worked by hand.
#include <catch2/catch.hpp>

#include "mapping/ApplyDecisions.h"
#include "mapping/Decisions.h"
#include "partition/FusionRules.h"
#include "unit/ir/SampleGraph.h"
#include "unit/mapping/MapFixture.h"

using namespace dfc;
using partition::CutKind;

namespace {

// x -> r0 -> r1 -> ... (relu on f32[1, 8]); ops[i] names the op of node i, scopes[i] its scope.
ir::Graph chain(const std::vector<ir::OpKind>& ops, const std::vector<std::string>& scopes = {},
                const std::vector<ir::NodeRole>& roles = {}) {
  ir::Graph g;
  ir::ValueId v = g.addInput("x", {ir::DType::F32, {1, 8}});
  for (size_t i = 0; i < ops.size(); ++i) {
    const std::string n = "r" + std::to_string(i);
    v = ir::test::add(g, ops[i], n, {v}, {n + ".out"}, {}, i < scopes.size() ? scopes[i] : "",
                      i < roles.size() ? roles[i] : ir::NodeRole::Forward)[0];
  }
  g.outputs.push_back(v);
  return g;
}

std::vector<ir::OpKind> relus(size_t n) { return std::vector<ir::OpKind>(n, ir::OpKind::Relu); }

// sn10 with one tile of `pcus` PCUs and `pmus` PMUs.
arch::ArchSpec tinyChip(int pcus, int pmus) {
  arch::ArchSpec a = test::preset("sn10");
  a.tiles = 1;
  a.pcusPerTile = pcus;
  a.pmusPerTile = pmus;
  return a;
}

partition::Plan mapWith(const ir::Graph& g, const std::vector<partition::Subgraph>& subgraphs, const arch::ArchSpec& a,
                        mapping::MappingOptions o = {}, partition::OptLevel level = partition::OptLevel::O3) {
  auto plan = mapping::mapSections(g, subgraphs, arch::CostModel(a), level, o);
  REQUIRE(plan.ok());
  return std::move(*plan);
}

std::vector<partition::Subgraph> decomposed(const ir::Graph& g, partition::DecomposeOptions d) {
  auto subs = partition::decompose(g, d);
  REQUIRE(subs.ok());
  return std::move(*subs);
}

partition::Plan mapO3(const ir::Graph& g, const arch::ArchSpec& a, mapping::MappingOptions o = {}) {
  return mapWith(g, decomposed(g, {}), a, o);
}

}  // namespace

TEST_CASE("a relu on f32[1, 8] takes 1 PCU and 4 PMUs (the figures below assume it)", "[mapping][why]") {
  const ir::Graph g = chain(relus(1));
  const arch::OpCost c = arch::CostModel(tinyChip(64, 64)).opCost(g, g.node(0));
  CHECK(c.pcus == 1);
  CHECK(c.pmus == 4);
}

TEST_CASE("a PCU budget cut records the open section's PCUs, the next operator's and the budget", "[mapping][why]") {
  // 3 PCUs a section: r0..r2 fill it (3), r3 would make 4.
  const partition::Plan p = mapO3(chain(relus(5)), tinyChip(3, 1000));
  REQUIRE(p.sections.size() == 2);
  CHECK(p.sections[0].cut.kind == CutKind::None);
  const partition::CutReason& c = p.sections[1].cut;
  CHECK(c.kind == CutKind::PcuBudget);
  CHECK(c.used == 3);
  CHECK(c.adding == 1);
  CHECK(c.limit == 3);
  CHECK(c.detail == "3 PCUs open + 1 for 'r3' (relu) > budget 3");
}

TEST_CASE("a PMU budget cut: exactly full is kept, one operator more is cut", "[mapping][why]") {
  // 8 PMUs a section: two relus (4 + 4) fill it exactly, the third would make 12.
  const partition::Plan p = mapO3(chain(relus(3)), tinyChip(64, 8));
  REQUIRE(p.sections.size() == 2);
  CHECK(p.sections[1].nodes.front() == 2);
  const partition::CutReason& c = p.sections[1].cut;
  CHECK(c.kind == CutKind::PmuBudget);
  CHECK(c.used == 8);
  CHECK(c.adding == 4);
  CHECK(c.limit == 8);
  CHECK(c.detail == "8 PMUs open + 4 for 'r2' (relu) > budget 8");
}

TEST_CASE("mapping.max_section_ops records the cap", "[mapping][why]") {
  mapping::MappingOptions o;
  o.maxSectionOps = 2;
  const partition::Plan p = mapO3(chain(relus(3)), tinyChip(64, 1000), o);
  REQUIRE(p.sections.size() == 2);
  const partition::CutReason& c = p.sections[1].cut;
  CHECK(c.kind == CutKind::SectionOps);
  CHECK(c.used == 2);
  CHECK(c.adding == 1);
  CHECK(c.limit == 2);
  CHECK(c.detail == "mapping.max_section_ops 2 reached before 'r2' (relu)");
}

TEST_CASE("a role change starts a section at every level", "[mapping][why]") {
  const auto B = ir::NodeRole::Backward;
  const ir::Graph g = chain(relus(2), {}, {ir::NodeRole::Forward, B});
  for (auto level : {partition::OptLevel::O0, partition::OptLevel::O3}) {
    const partition::Plan p = mapWith(g, decomposed(g, {level}), tinyChip(64, 1000), {}, level);
    REQUIRE(p.sections.size() == 2);
    CHECK(p.sections[1].cut.kind == CutKind::RoleChange);
    CHECK(p.sections[1].cut.detail == "forward -> backward");
  }
}

TEST_CASE("cut reasons: -o0 records one operator per section", "[mapping][why]") {
  const ir::Graph g = chain(relus(2));
  const partition::Plan p = mapWith(g, decomposed(g, {partition::OptLevel::O0}), tinyChip(64, 1000));
  REQUIRE(p.sections.size() == 2);
  CHECK(p.sections[1].cut.kind == CutKind::OperatorMode);
  CHECK(p.sections[1].cut.detail == "-o0: 'r1' (relu) in a section of its own");
}

TEST_CASE("cut reasons: -o1 records the rule whose match ends and the operator no rule fused, and why", "[mapping][why]") {
  auto rules = partition::parseFusionRules(R"(
- name: pair
  priority: 10
  pattern:
    a: {op_type: relu, child: b}
    b: {op_type: relu}
)",
                                           "<test>");
  REQUIRE(rules.ok());
  partition::DecomposeOptions d{partition::OptLevel::O1};
  d.rules = &*rules;
  using K = ir::OpKind;
  // [r0 r1] pair, [r2 r3] pair, [r4] gelu (no rule takes it), [r5] relu (no neighbour to pair with).
  const ir::Graph g = chain({K::Relu, K::Relu, K::Relu, K::Relu, K::Gelu, K::Relu});
  const std::vector<partition::Subgraph> subs = decomposed(g, d);
  REQUIRE(subs.size() == 4);
  CHECK(subs[1].cut.kind == CutKind::FusionRule);
  CHECK(subs[1].cut.detail == "rule 'pair' match ends at 'r1' (relu), rule 'pair' match starts at 'r2' (relu)");
  CHECK(subs[2].cut.kind == CutKind::Unfused);
  CHECK(subs[2].cut.detail == "'r4' (gelu) fused with nothing: no rule of the list takes gelu");
  CHECK(subs[3].cut.kind == CutKind::Unfused);
  CHECK(subs[3].cut.detail ==
        "'r5' (relu) fused with nothing: rules taking relu (first 'pair') match none of its "
        "neighbours");
  const partition::Plan p = mapWith(g, subs, tinyChip(64, 1000), {}, partition::OptLevel::O1);
  REQUIRE(p.sections.size() == 4);
  for (size_t i = 1; i < 4; ++i) CHECK(p.sections[i].cut.detail == subs[i].cut.detail);
}

TEST_CASE("cut reasons: -o3 with hypersections records the hyperfunction that starts", "[mapping][why]") {
  const ir::Graph g = chain(relus(2), {"h.0/mlp", "h.1"});
  partition::DecomposeOptions d;
  d.enableHypersection = true;
  const std::vector<partition::Subgraph> subs = decomposed(g, d);
  REQUIRE(subs.size() == 2);
  CHECK(subs[1].cut.kind == CutKind::Hyperfunction);
  CHECK(subs[1].cut.detail == "hyperfunction 'h.0' -> 'h.1'");
}

TEST_CASE("fusion.max_subgraph_ops records the cap on each later piece", "[mapping][why]") {
  partition::DecomposeOptions d;
  d.maxSubgraphOps = 2;
  const std::vector<partition::Subgraph> subs = decomposed(chain(relus(5)), d);
  REQUIRE(subs.size() == 3);
  for (size_t i = 1; i < 3; ++i) {
    CHECK(subs[i].cut.kind == CutKind::SubgraphOps);
    CHECK(subs[i].cut.limit == 2);
  }
}

TEST_CASE("an attention block that fits only alone records the open section's PCUs", "[mapping][why]") {
  // r0 (1 PCU) is open; the block r1..r3 takes 3 PCUs, the budget is 3.
  const ir::Graph g = chain(relus(4), {"h.0", "h.0/attn", "h.0/attn", "h.0/attn"});
  mapping::MappingOptions o;
  o.keepAttentionBlocks = true;
  const partition::Plan p = mapO3(g, tinyChip(3, 1000), o);
  REQUIRE(p.sections.size() == 2);
  CHECK(p.sections[1].nodes.front() == 1);
  const partition::CutReason& c = p.sections[1].cut;
  CHECK(c.kind == CutKind::AttentionBlock);
  CHECK(c.used == 1);
  CHECK(c.limit == 3);
  CHECK(c.detail == "attention block 'h.0/attn' fits a section alone, not beside the open 1 PCUs / 4 PMUs");
}

TEST_CASE("a tiled operator records its PMUs against what an operator may hold, and the section after it",
          "[mapping][why]") {
  ir::Graph g;
  const ir::ValueId x = g.addInput("x", {ir::DType::F32, {64, 4096}});
  const ir::ValueId r = ir::test::add(g, ir::OpKind::Relu, "pre", {x}, {"pre.out"})[0];
  const ir::ValueId w = g.addParam("w", ir::Tensor({ir::DType::F32, {4096, 1024}}));
  const ir::ValueId y =
      ir::test::add(g, ir::OpKind::MatMul, "mm", {r, w}, {"y"}, {{"trans_a", int64_t{0}}, {"trans_b", int64_t{0}}})[0];
  g.outputs.push_back(ir::test::add(g, ir::OpKind::Relu, "post", {y}, {"post.out"})[0]);
  const arch::ArchSpec a = test::smallPmuPreset();
  const partition::Plan p = mapO3(g, a);
  REQUIRE(p.sections.size() == 3);
  REQUIRE(p.sections[1].tiling.size() == 1);
  const int whole = arch::CostModel(a).opCost(g, g.node(1)).pmus;
  const int perOperator = a.tiles * a.pmusPerTile;  // one chip's PMUs: an operator's data stays on one chip
  const partition::CutReason& c = p.sections[1].cut;
  CHECK(c.kind == CutKind::TiledOperator);
  CHECK(c.adding == whole);
  CHECK(c.limit == perOperator);
  CHECK(c.detail == "'mm' (matmul) needs " + std::to_string(whole) + " PMUs > " + std::to_string(perOperator) +
                        " an operator may hold: tiled by " + p.sections[1].tiling[0].dim + " in " +
                        std::to_string(p.sections[1].tiling[0].passes) + " passes");
  CHECK(p.sections[2].cut.kind == CutKind::AfterTiled);
  CHECK(p.sections[2].cut.detail ==
        "after tiled 'mm' (matmul), which runs alone in " + std::to_string(p.sections[1].tiling[0].passes) + " passes");
}

TEST_CASE("decisions record their file and line: a together group, the run after it, a cut_before", "[mapping][why]") {
  const ir::Graph g = chain(relus(5));
  auto file = mapping::parseDecisions("- together: [r1, r2]\n- cut_before: r4\n", "d.yaml");
  REQUIRE(file.ok());
  std::vector<partition::Subgraph> subs = decomposed(g, {});
  auto applied = mapping::applyDecisions(g, subs, *file, arch::CostModel(tinyChip(64, 1000)), {}, {});
  REQUIRE(applied.ok());
  // The group goes first, where its first operator's subgraph was: [r1 r2] [r0] [r3] [r4].
  REQUIRE(subs.size() == 4);
  CHECK(subs[0].nodes == std::vector<ir::NodeId>{1, 2});
  for (size_t i = 0; i < 4; ++i) CHECK(subs[i].cut.kind == CutKind::Decision);
  CHECK(subs[0].cut.detail == "d.yaml:1: the together group [r1, r2]");
  CHECK(subs[1].cut.detail == "d.yaml:1: apart from the together group [r1, r2]");
  CHECK(subs[2].cut.detail == "d.yaml:1: apart from the together group [r1, r2]");
  CHECK(subs[3].cut.detail == "d.yaml:2: cut_before 'r4'");
}

TEST_CASE("a cut_before where -o0 cuts anyway records the decision, not the operator mode", "[mapping][why]") {
  const ir::Graph g = chain(relus(4));
  auto file = mapping::parseDecisions("- cut_before: r2\n", "d.yaml");
  REQUIRE(file.ok());
  std::vector<partition::Subgraph> subs = decomposed(g, {partition::OptLevel::O0});
  auto applied = mapping::applyDecisions(g, subs, *file, arch::CostModel(tinyChip(64, 1000)), {}, {});
  REQUIRE(applied.ok());
  REQUIRE(subs.size() == 4);  // one operator each, as without the decision
  CHECK(subs[2].cut.kind == CutKind::Decision);
  CHECK(subs[2].cut.detail == "d.yaml:1: cut_before 'r2'");
  for (size_t i : {1, 3}) CHECK(subs[i].cut.kind == CutKind::OperatorMode);
}

TEST_CASE("cut reasons: --model-parallel records the chips on either side", "[mapping][why]") {
  const ir::Graph g = chain(relus(5));
  auto file = mapping::parseDecisions("- nodes: [r2, r3]\n  chip: 1\n", "d.yaml");
  REQUIRE(file.ok());
  std::vector<partition::Subgraph> subs = decomposed(g, {});
  auto applied = mapping::applyDecisions(g, subs, *file, arch::CostModel(tinyChip(64, 1000)), {}, {true, 2});
  REQUIRE(applied.ok());
  REQUIRE(subs.size() == 3);  // [r0 r1] [r2 r3] [r4]
  CHECK(subs[1].cut.kind == CutKind::Chip);
  CHECK(subs[1].cut.detail == "chip 0 -> chip 1 at 'r2'");
  CHECK(subs[2].cut.kind == CutKind::Chip);
  CHECK(subs[2].cut.detail == "chip 1 -> chip 0 at 'r4'");
}
