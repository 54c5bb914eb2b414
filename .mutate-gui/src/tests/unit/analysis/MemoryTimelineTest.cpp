// Memory over the schedule (analysis/MemoryTimeline.h) on a hand-built step of
// three section calls, every byte count worked by hand:
//   x  input f32[2,4]  32 B   read by calls 0 and 1
//   w  param f32[4,4]  64 B   whole step
//   m  const f32[4]    16 B   optimizer state (rewritten by the step), whole step
//   a = x @ w          32 B   made and read in call 0: SRAM
//   b = relu(a)        32 B   made in call 0, read in call 1: off-chip
//   g = b + x          32 B   backward, a graph output: calls 1..2
//   n = m + m          16 B   optimizer, the new state of m: call 2
#include <catch2/catch.hpp>

#include "analysis/MemoryTimeline.h"
#include "unit/ir/SampleGraph.h"

using namespace dfc;
using analysis::MemKind;
using analysis::MemTier;

namespace {

struct Step {
  ir::Graph graph;
  partition::Plan plan;
};

Step handStep() {
  Step s;
  ir::Graph& g = s.graph;
  const ir::ValueId x = g.addInput("x", {ir::DType::F32, {2, 4}});
  const ir::ValueId w = g.addParam("w", ir::Tensor({ir::DType::F32, {4, 4}}));
  const ir::ValueId m = g.addConst("m", ir::Tensor({ir::DType::F32, {4}}));
  const ir::ValueId a =
      ir::test::add(g, ir::OpKind::MatMul, "mm", {x, w}, {"a"}, {{"trans_a", int64_t{0}}, {"trans_b", int64_t{0}}})[0];
  const ir::ValueId b = ir::test::add(g, ir::OpKind::Relu, "act", {a}, {"b"})[0];
  const ir::ValueId gr = ir::test::add(g, ir::OpKind::Add, "grad", {b, x}, {"g"}, {}, "", ir::NodeRole::Backward)[0];
  const ir::ValueId n = ir::test::add(g, ir::OpKind::Add, "upd", {m, m}, {"n"}, {}, "", ir::NodeRole::Optimizer)[0];
  g.outputs.push_back(gr);
  g.updates.push_back({m, n});
  const std::vector<std::vector<ir::NodeId>> nodes = {{0, 1}, {2}, {3}};
  for (int i = 0; i < 3; ++i) {
    partition::Section sec;
    sec.estimate.pmus = 3 - i;  // 3, 2, 1
    sec.id = i;
    sec.name = "s" + std::to_string(i);
    sec.nodes = nodes[static_cast<size_t>(i)];
    s.plan.sections.push_back(sec);
  }
  s.plan.schedule = {0, 1, 2};
  return s;
}

// HBM of `hbmBytes` (w is read first, then m).
arch::ArchSpec withHbm(double hbmBytes) {
  arch::ArchSpec a;
  a.name = "hand";
  a.hbmGbps = 100;
  a.ddrGbps = 10;
  a.hbmBytes = hbmBytes;
  a.pmuBytes = 1000;
  return a;
}

int64_t at(const analysis::MemoryTimeline& t, int call, MemTier tier, MemKind kind) {
  return t.points.at(static_cast<size_t>(call)).bytes[static_cast<size_t>(tier)][static_cast<size_t>(kind)];
}

int64_t total(const analysis::MemoryTimeline& t, int call, MemTier tier) {
  return t.points.at(static_cast<size_t>(call)).tierTotal(tier);
}

// The sum of the tensors of `tier` live at `call`, from the tensor list.
int64_t liveSum(const analysis::MemoryTimeline& t, int call, MemTier tier) {
  int64_t sum = 0;
  for (const analysis::LiveTensor& l : t.tensors)
    if (l.tier == tier && l.first <= call && call <= l.last) sum += l.bytes;
  return sum;
}

}  // namespace

TEST_CASE("memory per tier and kind at each call, HBM exactly full", "[analysis][memory]") {
  const Step s = handStep();
  const analysis::MemoryTimeline t = analysis::memoryTimeline(s.graph, s.plan, withHbm(80));  // w 64 + m 16 = 80
  REQUIRE(t.points.size() == 3);
  CHECK(at(t, 0, MemTier::Hbm, MemKind::Weights) == 64);
  CHECK(at(t, 0, MemTier::Hbm, MemKind::OptimizerState) == 16);
  CHECK(at(t, 0, MemTier::Hbm, MemKind::Activations) == 64);  // x, b
  CHECK(total(t, 0, MemTier::Hbm) == 144);
  CHECK(at(t, 1, MemTier::Hbm, MemKind::Activations) == 64);  // x (read last here), b
  CHECK(at(t, 1, MemTier::Hbm, MemKind::Gradients) == 32);    // g
  CHECK(total(t, 1, MemTier::Hbm) == 176);
  CHECK(at(t, 2, MemTier::Hbm, MemKind::OptimizerState) == 32);  // m, n
  CHECK(total(t, 2, MemTier::Hbm) == 128);
  CHECK(total(t, 0, MemTier::Sram) == 32);  // a
  CHECK(total(t, 1, MemTier::Sram) == 0);
  CHECK(total(t, 0, MemTier::Host) == 64);  // a, b
  CHECK(total(t, 1, MemTier::Host) == 64);  // b, g
  CHECK(total(t, 2, MemTier::Host) == 48);  // g, n
  for (int c = 0; c < 3; ++c) CHECK(total(t, c, MemTier::Ddr) == 0);
  for (int c = 0; c < 3; ++c)
    for (MemTier tier : {MemTier::Sram, MemTier::Hbm, MemTier::Ddr, MemTier::Host})
      CHECK(total(t, c, tier) == liveSum(t, c, tier));
}

TEST_CASE("the peak per tier is its first largest call, its tensors largest first", "[analysis][memory]") {
  const Step s = handStep();
  const analysis::MemoryTimeline t = analysis::memoryTimeline(s.graph, s.plan, withHbm(80));
  const analysis::TierPeak& hbm = t.peaks[static_cast<size_t>(MemTier::Hbm)];
  CHECK(hbm.call == 1);
  CHECK(hbm.bytes == 176);
  std::vector<std::string> names;
  for (size_t i : hbm.tensors) names.push_back(s.graph.value(t.tensors[i].value).name);
  CHECK(names == std::vector<std::string>{"w", "x", "b", "g", "m"});
  CHECK(t.peaks[static_cast<size_t>(MemTier::Sram)].bytes == 32);
  CHECK(t.peaks[static_cast<size_t>(MemTier::Host)].call == 0);
  CHECK(t.peaks[static_cast<size_t>(MemTier::Ddr)].call == -1);  // holds nothing
}

TEST_CASE("each call holds its section's PMUs x the bytes per PMU on chip", "[analysis][memory]") {
  const Step s = handStep();
  const analysis::MemoryTimeline t = analysis::memoryTimeline(s.graph, s.plan, withHbm(80));
  CHECK(t.points[0].pmus == 3);
  CHECK(t.points[0].pmuBytes == 3000);
  CHECK(t.points[2].pmuBytes == 1000);
  CHECK(t.pmuPeakCall == 0);
  CHECK(t.capacity[static_cast<size_t>(MemTier::Hbm)] == 80);
  CHECK_THAT(analysis::formatMemory(t, s.graph, s.plan),
             Catch::Contains("on-chip PMU buffers: most at call 0 (s0): 3 PMUs, 3000 B\n"));
}

TEST_CASE("state that no longer fits HBM goes to DDR for the whole step", "[analysis][memory]") {
  const Step s = handStep();
  const analysis::MemoryTimeline t = analysis::memoryTimeline(s.graph, s.plan, withHbm(79));  // one byte short for m
  for (int c = 0; c < 3; ++c) {
    CHECK(at(t, c, MemTier::Ddr, MemKind::OptimizerState) == 16);
    CHECK(at(t, c, MemTier::Hbm, MemKind::Weights) == 64);
  }
  CHECK(t.peaks[static_cast<size_t>(MemTier::Hbm)].bytes == 160);
  CHECK(t.peaks[static_cast<size_t>(MemTier::Ddr)].bytes == 16);
  CHECK(t.peaks[static_cast<size_t>(MemTier::Ddr)].call == 0);
}

TEST_CASE("without HBM every off-chip tensor lives in DDR", "[analysis][memory]") {
  const Step s = handStep();
  arch::ArchSpec a = withHbm(0);
  a.hbmGbps = 0;
  const analysis::MemoryTimeline t = analysis::memoryTimeline(s.graph, s.plan, a);
  CHECK(total(t, 0, MemTier::Ddr) == 144);
  CHECK(total(t, 0, MemTier::Hbm) == 0);
}

TEST_CASE("the memory CSV has a row per call and tier with the kinds and the total", "[analysis][memory]") {
  const Step s = handStep();
  const std::string csv = analysis::memoryCsv(analysis::memoryTimeline(s.graph, s.plan, withHbm(80)), s.plan);
  CHECK(csv.starts_with("call,section,tier,weights,activations,gradients,optimizer_state,kv_cache,total\n"));
  CHECK_THAT(csv, Catch::Contains("\n0,s0,hbm,64,64,0,16,0,144\n"));
  CHECK_THAT(csv, Catch::Contains("\n1,s1,hbm,64,64,32,16,0,176\n"));
  CHECK_THAT(csv, Catch::Contains("\n2,s2,host,0,0,32,16,0,48\n"));
}
