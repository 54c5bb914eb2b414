// Golden cuts of the section mapper and orders of the scheduler on graphs
// small enough to work out by hand (cost figures: CostModelGoldenTest.cpp).
#include <catch2/catch.hpp>

#include "frontend/GraphBuilder.h"
#include "mapping/Scheduler.h"
#include "mapping/SectionMapper.h"
#include "partition/Decomposer.h"

using namespace dfc;

namespace {

// 100 PCUs and `pmus` PMUs of 1 KiB in one tile; lanes 8, stages 4, 1 GHz; a
// grid of about two cells per unit (the arch loader refuses more than four).
arch::ArchSpec toyArch(int pmus) {
  const std::string yaml = "name: toy\ntiles: 1\npcus_per_tile: 100\npmus_per_tile: " + std::to_string(pmus) +
                           "\npmu_bytes: 1024\npcu_lanes: 8\npcu_stages: 4\nclock_ghz: 1\npeak_tflops: 1\n"
                           "ddr_gbps: 10\npcie_gbps: 2\ngrid_rows: 20\ngrid_cols: " + std::to_string((100 + pmus) / 10 + 1) + "\n";
  auto a = arch::parseArchYaml(yaml, "toy.yaml");
  REQUIRE(a);
  return *a;
}

ir::TensorType f32(ir::Shape shape) { return {ir::DType::F32, std::move(shape)}; }

mapping::MappingOptions scaled(double scale) {
  mapping::MappingOptions o;
  o.forwardScale = o.backwardScale = o.optimizerScale = scale;
  return o;
}

std::vector<size_t> sectionSizes(const partition::Plan& plan) {
  std::vector<size_t> sizes;
  for (const auto& s : plan.sections) sizes.push_back(s.nodes.size());
  return sizes;
}

// `n` chained relus on [32, 1024]: 32'768 elements, one PCU and 4 PMUs each.
ir::Graph reluChain(int n) {
  ir::Graph g;
  frontend::GraphBuilder b(g);
  ir::ValueId v = b.input("x", f32({32, 1024}));
  for (int i = 0; i < n; ++i) v = b.relu(v);
  g.outputs = {v};
  REQUIRE(b.status());
  return g;
}

}  // namespace

TEST_CASE("mapper golden: a section takes ops while their PCUs fit floor(PCUs * scale)", "[mapping]") {
  // Scale 0.045 of 100 PCUs: floor(4.5) = 4 PCUs a section (PMUs: 45, never the bound).
  // Ten one-PCU relus: 4 + 4 + 2.
  ir::Graph g = reluChain(10);
  arch::CostModel cost(toyArch(1000));
  auto subs = partition::decompose(g, {});
  REQUIRE(subs);
  auto plan = mapping::mapSections(g, *subs, cost, partition::OptLevel::O3, scaled(0.045));
  REQUIRE(plan);
  CHECK(sectionSizes(*plan) == std::vector<size_t>{4, 4, 2});
  for (const auto& s : plan->sections) CHECK(s.estimate.pcus <= 4);
  CHECK(plan->schedule == std::vector<int>{0, 1, 2});
  // Scale 0.05: exactly 5 PCUs; 5 + 5.
  auto five = mapping::mapSections(g, *subs, cost, partition::OptLevel::O3, scaled(0.05));
  REQUIRE(five);
  CHECK(sectionSizes(*five) == std::vector<size_t>{5, 5});
}

TEST_CASE("mapper golden: PMUs cut a section too", "[mapping]") {
  // Two 64x64 matmuls with resident 16 KiB weights: 2 PCUs and 20 PMUs each.
  // Scale 0.3 of 100 PMUs: 30 a section, so one matmul each; with 1000 PMUs both fit.
  ir::Graph g;
  frontend::GraphBuilder b(g);
  ir::ValueId h = b.matmul(b.input("x", f32({64, 64})), b.paramUniform("w1", {64, 64}, 0.1));
  g.outputs = {b.matmul(h, b.paramUniform("w2", {64, 64}, 0.1))};
  REQUIRE(b.status());
  auto subs = partition::decompose(g, {});
  REQUIRE(subs);
  auto tight = mapping::mapSections(g, *subs, arch::CostModel(toyArch(100)), partition::OptLevel::O3, scaled(0.3));
  REQUIRE(tight);
  CHECK(sectionSizes(*tight) == std::vector<size_t>{1, 1});
  CHECK(tight->sections[0].estimate.pmus == 20);
  auto roomy = mapping::mapSections(g, *subs, arch::CostModel(toyArch(1000)), partition::OptLevel::O3, scaled(0.3));
  REQUIRE(roomy);
  CHECK(sectionSizes(*roomy) == std::vector<size_t>{2});
}

TEST_CASE("mapper golden: each piece of a repeated layer is its own hypersection", "[mapping][hypersection]") {
  // Four layers of six relus; at 4 PCUs a section each layer is cut 4 + 2: two
  // hypersections (first pieces, second pieces), four calls each.
  ir::Graph g;
  frontend::GraphBuilder b(g);
  ir::ValueId v = b.input("x", f32({32, 1024}));
  for (int layer = 0; layer < 4; ++layer) {
    auto s = b.scope("h." + std::to_string(layer));
    for (int i = 0; i < 6; ++i) v = b.relu(v);
  }
  g.outputs = {v};
  REQUIRE(b.status());
  partition::DecomposeOptions d;
  d.enableHypersection = true;
  auto subs = partition::decompose(g, d);
  REQUIRE(subs);
  REQUIRE(subs->size() == 4);
  auto plan = mapping::mapSections(g, *subs, arch::CostModel(toyArch(1000)), partition::OptLevel::O3, scaled(0.045));
  REQUIRE(plan);
  CHECK(sectionSizes(*plan) == std::vector<size_t>{4, 2, 4, 2, 4, 2, 4, 2});
  REQUIRE(plan->hypersections.size() == 2);
  CHECK(plan->hypersections[0].sections == std::vector<int>{0, 2, 4, 6});
  CHECK(plan->hypersections[1].sections == std::vector<int>{1, 3, 5, 7});
}

TEST_CASE("scheduler golden: dependencies first, then forward before backward, then graph order", "[mapping]") {
  // n0 = relu(x), n1 = relu(y), n2 = add(n0, n1), n3 = relu(y).
  ir::Graph g;
  frontend::GraphBuilder b(g);
  ir::ValueId x = b.input("x", f32({4})), y = b.input("y", f32({4}));
  ir::ValueId r0 = b.relu(x);
  ir::ValueId r1 = b.relu(y);
  g.outputs = {b.add(r0, r1), b.relu(y)};
  REQUIRE(b.status());
  auto section = [](int id, std::vector<ir::NodeId> nodes, ir::NodeRole role) {
    partition::Section s;
    s.id = id;
    s.name = "s" + std::to_string(id);
    s.nodes = std::move(nodes);
    s.type = role;
    return s;
  };
  using R = ir::NodeRole;
  // Section 0 = {n0, n2} starts first in the graph but reads n1 (section 1): 1 runs first.
  auto order = mapping::scheduleSections(g, {section(0, {0, 2}, R::Forward), section(1, {1}, R::Forward),
                                             section(2, {3}, R::Forward)});
  REQUIRE(order);
  CHECK(*order == std::vector<int>{1, 0, 2});
  // Ready together, a forward section goes before a backward one that starts
  // earlier in the graph, and that before an optimizer one; section 2 waits for 0 and 1.
  order = mapping::scheduleSections(g, {section(0, {0}, R::Backward), section(1, {1}, R::Forward),
                                        section(2, {2}, R::Forward), section(3, {3}, R::Optimizer)});
  REQUIRE(order);
  CHECK(*order == std::vector<int>{1, 0, 2, 3});
}
