// Place and route over several chips (issue 37): chips are separate meshes
// joined by modelled links, each math op's kernels stay on one chip, and a
// graph that cannot route stops after as many retry passes as its first
// routing took.
#include <catch2/catch.hpp>

#include <set>

#include "../mapping/MapFixture.h"
#include "kernelc/ChipPartition.h"
#include "kernelc/LinkSteps.h"
#include "kernelc/Router.h"

using namespace dfc;
using lowering::KernelRole;
using lowering::UnitKind;

namespace {

// 2 tiles a chip of 4 PCUs and 4 PMUs each (a 4 x 2 checkerboard per tile), 2 chips.
arch::ArchSpec twoChips() {
  auto a = arch::parseArchYaml("tiles: 2\npcus_per_tile: 4\npmus_per_tile: 4\npmu_bytes: 1024\npcu_lanes: 8\n"
                               "pcu_stages: 4\nclock_ghz: 1\npeak_tflops: 1\nddr_gbps: 10\npcie_gbps: 8\n"
                               "grid_rows: 2\ngrid_cols: 4\n",
                               "tiny.yaml");
  REQUIRE(a.ok());
  auto s = arch::scaleArch(*a, 2, 0);
  REQUIRE(s.ok());
  return *s;
}

}  // namespace

TEST_CASE("each op's kernels go to one chip, ops in dataflow order, a chip filled before the next") {
  const arch::ArchSpec a = twoChips();
  kernelc::Grid grid(a, 4);  // both chips: 8 PCUs and 8 PMUs each
  lowering::KernelGraph kg;
  auto op = [&](ir::NodeId node, int pcus, int pmus) {
    std::vector<int> ids;
    for (int i = 0; i < pcus; ++i) ids.push_back(kg.add(UnitKind::Pcu, KernelRole::Stage, node, 1, i));
    for (int i = 0; i < pmus; ++i) ids.push_back(kg.add(UnitKind::Pmu, KernelRole::OutBuffer, node, 0, i));
    return ids;
  };
  auto a0 = op(0, 5, 2), a1 = op(1, 3, 2), a2 = op(2, 4, 4);  // 8 PCUs a chip: the third op goes to chip 1
  std::vector<int> order;
  for (const auto* ids : {&a0, &a1, &a2}) order.insert(order.end(), ids->begin(), ids->end());
  const std::vector<int> chip = kernelc::partitionByChip(kg, order, grid);
  for (int k : a0) CHECK(chip[static_cast<size_t>(k)] == 0);
  for (int k : a1) CHECK(chip[static_cast<size_t>(k)] == 0);  // 5 + 3 PCUs: chip 0 exactly full
  for (int k : a2) CHECK(chip[static_cast<size_t>(k)] == 1);
  // One chip: everything on it.
  kernelc::Grid one(a, 2);
  for (int c : kernelc::partitionByChip(kg, order, one)) CHECK(c == 0);
}

TEST_CASE("an edge between chips takes no mesh link: its path is empty, its hops the grid's") {
  const arch::ArchSpec a = twoChips();
  kernelc::Grid grid(a, 4);
  lowering::KernelGraph kg;
  std::vector<kernelc::Site> sites;
  for (const kernelc::Site& s : {grid.sites(UnitKind::Pcu).front(), grid.sites(UnitKind::Pcu).back()}) {
    sites.push_back(s);
    kg.add(UnitKind::Pcu, KernelRole::Stage, 0, 1);
  }
  REQUIRE(sites[0].chip != sites[1].chip);
  kg.connect(0, 1);
  kernelc::RouterOptions options;
  options.linkTracks = 1;
  const kernelc::Routing r = kernelc::Router(grid).route(kg, sites, options);
  CHECK(r.chipLinkEdges == 1);
  CHECK(r.path(0).empty());
  CHECK(r.edgeHops[0] == grid.hops(sites[0], sites[1]));
  CHECK(r.edgeHops[0] > kernelc::Grid::kChipHops);
  CHECK(r.linksUsed == 0);
  CHECK(r.overusedLinks == 0);
}

TEST_CASE("a graph that cannot route gives up after as many retry passes as its first routing") {
  // Lowered for sn10's 8 tracks a link (combine trees of 10 feeders), routed on one: lenet's sections cannot all
  // route; the retries stop within the first routing's passes.
  arch::ArchSpec a = test::preset("sn10");
  ir::Graph g = test::trainingGraph("lenet", 8);
  auto plan = test::mapGraph(g, a, 1.0);
  REQUIRE(plan.ok());
  arch::CostModel cost(a);
  kernelc::LinkOptions link;
  link.threads = 1;
  link.router.linkTracks = 1;
  link.router.maxIterations = 3;       // a first routing too short to converge: retries get 3 passes in all
  link.router.stallIterations = 1000;  // no early stop: the passes run to their budget
  const kernelc::LoweredPlan lowered = kernelc::lowerPlan(g, *plan, cost, {});
  auto placed = kernelc::placeGraphs(a, lowered, link);
  REQUIRE(placed.ok());
  kernelc::routeGraphs(a, lowered, link, *placed);
  int congested = 0;
  for (size_t i : lowered.distinct()) {
    const kernelc::PlacedGraph& p = (*placed)[i];
    CHECK(p.retryPasses <= p.firstPasses);
    if (p.retried) CHECK(p.retryPasses == p.firstPasses);  // the whole budget, and not a pass more
    congested += p.retried ? 1 : 0;
  }
  CHECK(congested > 0);
  const kernelc::LinkResult result = kernelc::assembleLink(g, *plan, cost, {}, lowered, *placed, link);
  REQUIRE(result.overusedLinks > 0);
  const std::string why = kernelc::describeOveruse(result, link);
  CHECK_THAT(why, Catch::Contains("links over capacity (1 routes per link)") && Catch::Contains("in section s"));
}
