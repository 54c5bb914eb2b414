#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include "arch/FanIn.h"
#include "kernelc/Placer.h"
#include "kernelc/Router.h"
#include "lowering/Lowerer.h"
#include "unit/mapping/MapFixture.h"

using namespace dfc;
using lowering::UnitKind;

namespace {

const std::string kTinyArch = "tiles: 2\npcus_per_tile: 12\npmus_per_tile: 12\npmu_bytes: 1024\npcu_lanes: 8\n"
                              "pcu_stages: 4\nclock_ghz: 1\npeak_tflops: 1\nddr_gbps: 10\npcie_gbps: 8\n"
                              "grid_rows: 5\ngrid_cols: 6\n";

// A graph whose kernels sit on the given cells of one tile (the router looks at cells only).
struct Fixed {
  lowering::KernelGraph g;
  std::vector<kernelc::Site> sites;
  int at(int row, int col) {
    sites.push_back({row, col, 0, 0});
    return g.add(UnitKind::Pcu, lowering::KernelRole::Stage, 0, 1);
  }
};

// Nets per directed link, recounted from the route trees.
std::map<std::pair<int, int>, int> linkUse(const kernelc::Routing& r) {
  std::map<std::pair<int, int>, int> use;
  for (const auto& tree : r.trees)
    for (size_t i = 1; i < tree.size(); ++i) ++use[{tree[static_cast<size_t>(tree[i].parent)].cell, tree[i].cell}];
  return use;
}

int maxUse(const kernelc::Routing& r) {
  int m = 0;
  for (const auto& [link, n] : linkUse(r)) m = std::max(m, n);
  return m;
}

// Every edge's path runs switch to adjacent switch from its source's cell to its sink's.
void checkConnected(const lowering::KernelGraph& g, const std::vector<kernelc::Site>& sites, const kernelc::Grid& grid,
                    const kernelc::Routing& r) {
  REQUIRE(r.edgeHops.size() == g.edges.size());
  for (size_t e = 0; e < g.edges.size(); ++e) {
    const auto& from = sites[static_cast<size_t>(g.edges[e].from)];
    const auto& to = sites[static_cast<size_t>(g.edges[e].to)];
    auto path = r.path(e);
    REQUIRE(!path.empty());
    CHECK(path.front() == from.row * grid.cols() + from.col);
    CHECK(path.back() == to.row * grid.cols() + to.col);
    for (size_t i = 1; i < path.size(); ++i) {
      int a = path[i - 1], b = path[i];
      CHECK(std::abs(a / grid.cols() - b / grid.cols()) + std::abs(a % grid.cols() - b % grid.cols()) == 1);
      CHECK(grid.chipAt(b / grid.cols(), b % grid.cols()) >= 0);
    }
    CHECK(r.edgeHops[e] == static_cast<int>(path.size()) - 1);  // one chip: a hop per link
    CHECK(r.edgeHops[e] >= grid.hops(from, to));
  }
}

}  // namespace

TEST_CASE("routes of a placed section run from each source's switch to each sink's, within capacity") {
  auto a = test::preset("sn30");
  ir::Graph g = test::trainingGraph("lenet", 32);
  auto plan = test::mapGraph(g, a, 0.5);
  REQUIRE(plan.ok());
  arch::CostModel cost(a);
  int routed = 0;
  for (const auto& s : plan->sections) {
    auto kg = lowering::lowerSection(g, s.nodes, cost, 0);
    if (kg.ops.size() < 20) continue;
    auto p = kernelc::Placer(a).place(kg);
    REQUIRE(p.ok());
    kernelc::Grid grid(a, p->tiles);
    kernelc::RouterOptions options;
    options.linkTracks = arch::linkTracks(a);
    auto r = kernelc::Router(grid).route(kg, p->sites, options);
    checkConnected(kg, p->sites, grid, r);
    CHECK(r.manhattanLength == p->totalHops);
    CHECK(r.wireLength >= r.manhattanLength);
    CHECK(r.linksUsed <= r.wireLength);  // sinks of one net share links
    CHECK(r.overusedLinks == 0);
    CHECK(maxUse(r) <= r.capacity);
    CHECK(r.maxLinkUse == maxUse(r));
    CHECK(r.criticalPathHops >= p->criticalPathHops);
    ++routed;
  }
  CHECK(routed >= 2);
}

TEST_CASE("with one track per link, crossing routes detour until no link is overused") {
  auto a = arch::parseArchYaml(kTinyArch, "tiny.yaml");
  REQUIRE(a.ok());
  kernelc::Grid grid(*a, 1);
  Fixed f;
  // Three nets along row 2; their straight paths share links (2,1)->(2,2)->(2,3).
  int s1 = f.at(2, 0), t1 = f.at(2, 4);
  int s2 = f.at(2, 1), t2 = f.at(2, 3);
  int s3 = f.at(1, 1), t3 = f.at(3, 4);
  f.g.connect(s1, t1);
  f.g.connect(s2, t2);
  f.g.connect(s3, t3);
  kernelc::RouterOptions wide;
  wide.linkTracks = 3;
  auto straight = kernelc::Router(grid).route(f.g, f.sites, wide);
  CHECK(straight.wireLength == straight.manhattanLength);
  CHECK(straight.iterations == 1);

  kernelc::RouterOptions narrow;
  narrow.linkTracks = 1;
  auto r = kernelc::Router(grid).route(f.g, f.sites, narrow);
  checkConnected(f.g, f.sites, grid, r);
  CHECK(r.overusedLinks == 0);
  CHECK(r.forcedLinks == 0);
  CHECK(maxUse(r) == 1);
  CHECK(r.iterations > 1);
  CHECK(r.wireLength > r.manhattanLength);  // someone went round
  // Deterministic: the same routing again.
  auto again = kernelc::Router(grid).route(f.g, f.sites, narrow);
  CHECK(again.edgeHops == r.edgeHops);
  for (size_t e = 0; e < f.g.edges.size(); ++e) CHECK(again.path(e) == r.path(e));
}

TEST_CASE("sinks of one net share its links, and a unit fed by too many nets is routed and its overuse reported") {
  auto a = arch::parseArchYaml(kTinyArch, "tiny.yaml");
  REQUIRE(a.ok());
  kernelc::Grid grid(*a, 1);
  Fixed fan;
  int src = fan.at(0, 0);
  fan.g.connect(src, fan.at(0, 4));
  fan.g.connect(src, fan.at(0, 5));
  kernelc::RouterOptions one;
  one.linkTracks = 1;
  auto shared = kernelc::Router(grid).route(fan.g, fan.sites, one);
  CHECK(shared.overusedLinks == 0);
  CHECK(shared.linksUsed == 5);  // (0,0) .. (0,5): the far sink branches off the near one's route
  CHECK(shared.wireLength == 4 + 5);

  // Six nets into one unit in a corner (two incoming links of one track): four must overuse.
  Fixed in;
  int sink = in.at(0, 0);
  for (auto [r, c] : {std::pair{0, 3}, {1, 2}, {2, 1}, {3, 0}, {2, 3}, {4, 4}}) in.g.connect(in.at(r, c), sink);
  auto r = kernelc::Router(grid).route(in.g, in.sites, one);
  checkConnected(in.g, in.sites, grid, r);
  CHECK(r.forcedLinks == 2);
  CHECK(r.overusedLinks >= 2);
  CHECK(r.maxLinkUse >= 3);
}

TEST_CASE("network_link_tracks sets the routes per link, or if absent the router's default") {
  auto given = arch::parseArchYaml(kTinyArch + "network_link_tracks: 3\n", "tiny.yaml");
  REQUIRE(given.ok());
  CHECK(arch::linkTracks(*given) == 3);
  auto absent = arch::parseArchYaml(kTinyArch, "tiny.yaml");
  REQUIRE(absent.ok());
  CHECK(arch::linkTracks(*absent) == arch::kDefaultLinkTracks);
  auto bad = arch::parseArchYaml(kTinyArch + "network_link_tracks: -2\n", "tiny.yaml");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().message(), Catch::Contains("tiny.yaml") && Catch::Contains("network_link_tracks"));
}

TEST_CASE("a router past its deadline stops after the pass it is in and says so") {
  // Issue 36: one track a link and 1000 passes hung a compile; routing is now bounded in time.
  auto a = arch::parseArchYaml(kTinyArch, "tiny.yaml");
  REQUIRE(a.ok());
  kernelc::Grid grid(*a, 1);
  Fixed f;
  int s1 = f.at(2, 0), t1 = f.at(2, 4);
  int s2 = f.at(2, 1), t2 = f.at(2, 3);
  f.g.connect(s1, t1);
  f.g.connect(s2, t2);
  kernelc::RouterOptions late;
  late.linkTracks = 1;
  late.deadline = std::chrono::steady_clock::now();  // already past when the first pass ends
  auto stopped = kernelc::Router(grid).route(f.g, f.sites, late);
  CHECK(stopped.iterations == 1);  // the first pass always runs: a routing exists to report
  CHECK(stopped.timedOut);
  CHECK(stopped.overusedLinks > 0);  // the first pass ignores congestion: both nets on row 2
  checkConnected(f.g, f.sites, grid, stopped);
  kernelc::RouterOptions patient = late;
  patient.deadline = std::chrono::steady_clock::time_point::max();
  auto legal = kernelc::Router(grid).route(f.g, f.sites, patient);
  CHECK(legal.iterations > 1);
  CHECK_FALSE(legal.timedOut);
  CHECK(legal.overusedLinks == 0);
}
