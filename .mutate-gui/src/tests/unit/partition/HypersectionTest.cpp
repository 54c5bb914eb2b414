#include <catch2/catch.hpp>

#include <map>

#include "arch/ArchSpec.h"
#include "arch/CostModel.h"
#include "frontend/GraphBuilder.h"
#include "mapping/SectionMapper.h"
#include "partition/Decomposer.h"
#include "partition/Hypersections.h"

using namespace dfc;
using namespace dfc::partition;

namespace {

// `layers` identical blocks "h.0".."h.N" (linear + relu + residual add), then a head.
ir::Graph repeatedGraph(int layers, int64_t width = 16, uint64_t seed = 42) {
  ir::Graph g;
  frontend::GraphBuilder b(g, seed);
  ir::ValueId x = b.input("x", {ir::DType::F32, {4, width}});
  for (int i = 0; i < layers; ++i) {
    auto s = b.scope("h." + std::to_string(i));
    x = b.add(x, b.relu(b.linear(x, width, width)));
  }
  {
    auto s = b.scope("head");
    x = b.linear(x, width, 3);
  }
  g.outputs = {x};
  REQUIRE(b.status());
  return g;
}

std::map<int, int> callsPerHypersection(const std::vector<Subgraph>& subs) {
  std::map<int, int> calls;
  for (const auto& s : subs) ++calls[s.hypersection];
  return calls;
}

}  // namespace

TEST_CASE("hypersections: 12 identical layers give one hypersection called 12 times", "[partition]") {
  ir::Graph g = repeatedGraph(12);
  DecomposeOptions o;
  o.enableHypersection = true;
  auto subs = decompose(g, o);
  REQUIRE(subs);
  REQUIRE(subs->size() == 13);  // h.0 .. h.11, head
  for (int i = 0; i < 12; ++i) CHECK((*subs)[static_cast<size_t>(i)].hyperfunction == "h." + std::to_string(i));
  auto calls = callsPerHypersection(*subs);
  CHECK(calls.size() == 2);
  CHECK(calls[(*subs)[0].hypersection] == 12);
  CHECK(calls[(*subs)[12].hypersection] == 1);
  // Without the flag -o3 keeps the whole graph as one subgraph.
  auto whole = decompose(g, {});
  REQUIRE(whole);
  CHECK(whole->size() == 1);
}

TEST_CASE("hypersections: the hash ignores names and weights but not shapes or wiring", "[partition]") {
  ir::Graph a = repeatedGraph(1, 16, 1);
  ir::Graph b = repeatedGraph(1, 16, 2);  // other weights
  ir::Graph c = repeatedGraph(1, 32, 1);  // other shapes
  auto formOf = [](const ir::Graph& g) {
    std::vector<ir::NodeId> layer;
    for (const auto& n : g.nodes)
      if (n.scope == "h.0") layer.push_back(n.id);
    return canonicalForm(g, layer, g.computeUsers());
  };
  CHECK(formOf(a) == formOf(b));
  CHECK(formOf(a) != formOf(c));

  auto wired = [](bool swap) {
    ir::Graph g;
    frontend::GraphBuilder bld(g);
    ir::ValueId x = bld.input("x", {ir::DType::F32, {2, 2}});
    ir::ValueId r = bld.relu(x);
    g.outputs = {swap ? bld.sub(r, x) : bld.sub(x, r)};
    std::vector<ir::NodeId> all{0, 1};
    return canonicalForm(g, all, g.computeUsers());
  };
  CHECK(wired(false) != wired(true));
}

TEST_CASE("hypersections: the mapper maps each hypersection once and instances reuse it", "[partition]") {
  ir::Graph g = repeatedGraph(12);
  DecomposeOptions o;
  o.enableHypersection = true;
  auto subs = decompose(g, o);
  REQUIRE(subs);
  auto spec = arch::loadArch("sn30");
  REQUIRE(spec);
  arch::CostModel cost(*spec);
  auto fresh = mapping::mapSections(g, *subs, cost, OptLevel::O3);
  REQUIRE(fresh);
  HypersectionCache<MappedSubgraph> cache;
  mapping::MappingOptions mo;
  mo.cache = &cache;
  auto reused = mapping::mapSections(g, *subs, cost, OptLevel::O3, mo);
  REQUIRE(reused);
  CHECK(cache.stats().computed == 2);
  CHECK(cache.stats().reused == 11);
  REQUIRE(reused->sections.size() == fresh->sections.size());
  for (size_t i = 0; i < fresh->sections.size(); ++i) {
    CHECK(reused->sections[i].nodes == fresh->sections[i].nodes);
    CHECK(reused->sections[i].estimate.latencyUs == Approx(fresh->sections[i].estimate.latencyUs));
    CHECK(reused->sections[i].estimate.pcus == fresh->sections[i].estimate.pcus);
  }
  CHECK(reused->hypersections.size() == 2);
  CHECK(reused->hypersections[0].sections.size() == 12);
}

TEST_CASE("hypersections: forms whose hashes collide keep their own ids", "[partition]") {
  // Every form hashes alike, so all subgraphs share one bucket: only the full
  // comparison of canonical forms tells the 12 layers from the head.
  ir::Graph g = repeatedGraph(12);
  DecomposeOptions o;
  o.enableHypersection = true;
  auto subs = decompose(g, o);
  REQUIRE(subs);
  for (auto& s : *subs) s.hypersection = -1;
  auto summary = assignHypersections(g, *subs, [](const std::string&) -> size_t { return 7; });
  CHECK(summary.unique == 2);
  CHECK(summary.instances == 13);
  for (int i = 1; i < 12; ++i) CHECK((*subs)[static_cast<size_t>(i)].hypersection == (*subs)[0].hypersection);
  CHECK((*subs)[12].hypersection != (*subs)[0].hypersection);
}
