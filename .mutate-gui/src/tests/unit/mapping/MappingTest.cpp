#include <catch2/catch.hpp>

#include <map>

#include "mapping/Scheduler.h"
#include "unit/mapping/MapFixture.h"

using namespace dfc;

TEST_CASE("a smaller resource scaling factor gives more sections and a higher total latency") {
  ir::Graph g = test::trainingGraph("lenet", 32);
  auto a = test::preset("sn30");
  auto full = test::mapGraph(g, a, 1.0);
  auto tight = test::mapGraph(g, a, 0.05);
  REQUIRE(full.ok());
  REQUIRE(tight.ok());
  CHECK(tight->sections.size() > full->sections.size());
  CHECK(test::totalLatency(*tight) > test::totalLatency(*full));
  for (const auto& s : tight->sections) CHECK(s.estimate.pcus <= a.totalPcus() * 0.05 + 1);
}

TEST_CASE("a smaller arch gives at least as many sections and slower estimates") {
  ir::Graph g = test::trainingGraph("lenet", 32);
  auto sn10 = test::mapGraph(g, test::preset("sn10"), 0.1);
  auto sn40l = test::mapGraph(g, test::preset("sn40l"), 0.1);
  REQUIRE(sn10.ok());
  REQUIRE(sn40l.ok());
  CHECK(sn10->sections.size() > sn40l->sections.size());
  CHECK(test::totalLatency(*sn10) > test::totalLatency(*sn40l));
}

TEST_CASE("more chips give fewer sections, fewer tiles give more") {
  ir::Graph g = test::trainingGraph("lenet", 32);
  auto one = test::mapGraph(g, test::preset("sn10"), 0.1);
  auto four = test::mapGraph(g, test::preset("sn10", 4), 0.1);
  auto tile = test::mapGraph(g, test::preset("sn10", 1, 1), 0.1);
  REQUIRE(one.ok());
  REQUIRE(four.ok());
  REQUIRE(tile.ok());
  CHECK(four->sections.size() < one->sections.size());
  CHECK(tile->sections.size() > one->sections.size());
}

TEST_CASE("n-chips multiplies and num-tiles limits the resources") {
  auto a = test::preset("sn10");
  CHECK(test::preset("sn10", 2).totalPcus() == 2 * a.totalPcus());
  CHECK(test::preset("sn10", 1, 1).totalPmus() == a.totalPmus() / 4);
  CHECK(test::preset("sn10", 1, 2).peakTflops == Approx(a.peakTflops / 2));
  auto tooMany = arch::scaleArch(a, 1, 8);
  REQUIRE_FALSE(tooMany.ok());
  CHECK_THAT(tooMany.error().message(), Catch::Contains("--num-tiles 8") && Catch::Contains("4 tiles"));
  CHECK_FALSE(arch::scaleArch(a, 9, 0).ok());
  CHECK_FALSE(arch::scaleArch(a, 1, 3).ok());
}

TEST_CASE("a graph that cannot fit names the operator, the resource and a remedy") {
  ir::Graph g = test::trainingGraph("mlp", 32);
  auto plan = test::mapGraph(g, test::preset("sn10"), 0.002);
  REQUIRE_FALSE(plan.ok());
  const std::string& msg = plan.error().message();
  CHECK_THAT(msg, Catch::Contains("operator '") && Catch::Contains("PMUs") &&
                      Catch::Contains("resource scaling factor to at least") && Catch::Contains("--n-chips"));
}

TEST_CASE("resource scaling factors take 3 or 4 values above 0 and at most 1") {
  auto three = mapping::parseScalingFactors({"0.5", "0.25", "1"});
  REQUIRE(three.ok());
  CHECK(three->forwardScale == 0.5);
  CHECK(three->backwardScale == 0.25);
  CHECK(three->optimizerScale == 1.0);
  CHECK(three->gradNormScale < 0);
  auto four = mapping::parseScalingFactors({"0.5", "0.25", "0.1", "0.75"});
  REQUIRE(four.ok());
  CHECK(four->gradNormScale == 0.1);
  CHECK(four->optimizerScale == 0.75);
  CHECK_THAT(mapping::parseScalingFactors({"1", "1"}).error().message(), Catch::Contains("3 values"));
  CHECK_THAT(mapping::parseScalingFactors({"1", "x", "1"}).error().message(), Catch::Contains("'x'"));
  CHECK_THAT(mapping::parseScalingFactors({"1", "1.5", "1"}).error().message(), Catch::Contains("'1.5'"));
}

TEST_CASE("the backward scaling factor only changes backward sections") {
  ir::Graph g = test::trainingGraph("lenet", 32);
  auto a = test::preset("sn30");
  auto subgraphs = partition::decompose(g, {partition::OptLevel::O3});
  REQUIRE(subgraphs.ok());
  auto count = [&](const partition::Plan& p, ir::NodeRole r) {
    int n = 0;
    for (const auto& s : p.sections) n += s.type == r;
    return n;
  };
  mapping::MappingOptions o;
  auto base = mapping::mapSections(g, *subgraphs, arch::CostModel(a), partition::OptLevel::O3, o);
  o.backwardScale = 0.05;
  auto tight = mapping::mapSections(g, *subgraphs, arch::CostModel(a), partition::OptLevel::O3, o);
  REQUIRE(base.ok());
  REQUIRE(tight.ok());
  CHECK(count(*tight, ir::NodeRole::Backward) > count(*base, ir::NodeRole::Backward));
  CHECK(count(*tight, ir::NodeRole::Forward) == count(*base, ir::NodeRole::Forward));
}

TEST_CASE("the schedule runs producers first, forward before backward before optimizer") {
  ir::Graph g = test::trainingGraph("lenet", 8);
  auto plan = test::mapGraph(g, test::preset("sn10"), 0.05, partition::OptLevel::O0);
  REQUIRE(plan.ok());
  REQUIRE(plan->schedule.size() == plan->sections.size());
  std::map<ir::ValueId, size_t> producedAt;
  std::map<int, size_t> position;
  for (size_t i = 0; i < plan->schedule.size(); ++i) position[plan->schedule[i]] = i;
  for (const auto& s : plan->sections)
    for (ir::NodeId n : s.nodes)
      for (ir::ValueId v : g.node(n).outputs) producedAt[v] = position[s.id];
  int lastRole = 0;
  bool rolesMonotone = true;
  for (size_t i = 0; i < plan->schedule.size(); ++i) {
    const auto& s = plan->sections[static_cast<size_t>(plan->schedule[i])];
    for (ir::NodeId n : s.nodes)
      for (ir::ValueId v : g.node(n).inputs)
        if (producedAt.count(v)) CHECK(producedAt[v] <= i);
    rolesMonotone &= static_cast<int>(s.type) >= lastRole;
    lastRole = static_cast<int>(s.type);
  }
  CHECK(rolesMonotone);
  // Reversing the sections' order changes nothing: the order comes from the data.
  auto reversed = plan->sections;
  std::reverse(reversed.begin(), reversed.end());
  auto again = mapping::scheduleSections(g, reversed);
  REQUIRE(again.ok());
  CHECK(*again == plan->schedule);
}

TEST_CASE("repeated layers cut into several sections share one hypersection per piece") {
  ir::Graph g = test::trainingGraph("gpt2-mini", 8);
  partition::DecomposeOptions d;
  d.level = partition::OptLevel::O3;
  d.enableHypersection = true;
  auto subgraphs = partition::decompose(g, d);
  REQUIRE(subgraphs.ok());
  mapping::MappingOptions o;
  o.forwardScale = o.backwardScale = o.optimizerScale = 0.02;
  auto plan = mapping::mapSections(g, *subgraphs, arch::CostModel(test::preset("sn30")), d.level, o);
  REQUIRE(plan.ok());
  CHECK(plan->hypersections.size() < plan->sections.size());
  int shared = 0;
  for (const auto& hs : plan->hypersections) {
    const auto& first = plan->sections[static_cast<size_t>(hs.sections.front())];
    for (int id : hs.sections) {
      const auto& s = plan->sections[static_cast<size_t>(id)];
      CHECK(s.nodes.size() == first.nodes.size());
      CHECK(s.estimate.flop == first.estimate.flop);
      for (size_t i = 0; i < s.nodes.size(); ++i) CHECK(g.node(s.nodes[i]).op == g.node(first.nodes[i]).op);
    }
    shared += hs.sections.size() > 1;
  }
  CHECK(shared >= 2);  // more than one piece of the layer is shared
}

TEST_CASE("arch files give the unit grid and network figures, or a grid is derived") {
  const std::string base = "tiles: 2\npcus_per_tile: 12\npmus_per_tile: 12\npmu_bytes: 1024\npcu_lanes: 8\n"
                           "pcu_stages: 4\nclock_ghz: 1\npeak_tflops: 1\nddr_gbps: 10\npcie_gbps: 8\n";
  auto derived = arch::parseArchYaml(base, "tiny.yaml");
  REQUIRE(derived.ok());
  CHECK(derived->gridRows * derived->gridCols >= 24);
  auto given = arch::parseArchYaml(base + "grid_rows: 4\ngrid_cols: 6\nnetwork_link_gbps: 32\n", "tiny.yaml");
  REQUIRE(given.ok());
  CHECK(given->gridRows == 4);
  CHECK(given->networkLinkGbps == 32);
  auto small = arch::parseArchYaml(base + "grid_rows: 3\ngrid_cols: 6\n", "tiny.yaml");
  REQUIRE_FALSE(small.ok());
  CHECK_THAT(small.error().message(), Catch::Contains("tiny.yaml") && Catch::Contains("3x6 grid cannot hold"));
  auto half = arch::parseArchYaml(base + "grid_rows: 4\n", "tiny.yaml");
  REQUIRE_FALSE(half.ok());
  CHECK_THAT(half.error().message(), Catch::Contains("grid_cols"));
  for (const auto& name : arch::archPresetNames()) {
    auto a = arch::loadArch(name);
    REQUIRE(a.ok());
    CHECK(a->networkLinkGbps > 0);
    CHECK(a->networkHopNs > 0);
    // Peak TFLOP/s in the file agrees with PCUs x lanes x stages x 2 x clock within 10%.
    CHECK(a->totalPcus() * a->pcuFlopPerCycle() * a->clockGhz / 1e3 == Approx(a->peakTflops).epsilon(0.1));
  }
}
