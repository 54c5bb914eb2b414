// The step estimate worked by hand on a four-section graph and a round-number
// chip, term by term, to 1e-9 relative: each section's compute, memory tiers,
// fill and collectives, the two-resource pipeline of a fused step (the memory
// stream one section ahead), a call per layer, a call per section, HBM
// exactly full and one byte over, a reservation, a chip without HBM, a
// verification step of T tokens and the speculative decoding cycle. The
// formulas are StepEstimate.h's, Speculative.h's and CollectiveModel.h's.
#include <catch2/catch.hpp>

#include <algorithm>

#include "arch/ArchSpec.h"
#include "estimate/Speculative.h"
#include "estimate/StepEstimate.h"
#include "unit/ir/SampleGraph.h"

using namespace dfc;
using estimate::Tier;

namespace {

constexpr int H = static_cast<int>(Tier::Hbm), D = static_cast<int>(Tier::Ddr);

Approx exact(double v) { return Approx(v).epsilon(1e-9).margin(1e-12); }

// One chip: 1 TFLOP/s (1e6 FLOP per us); HBM 100 GB/s at 50% sustained (5e4
// bytes per us); DDR 20 GB/s (2e4 bytes per us); a fill of 4 stages at 2 GHz
// (0.002 us per operator); chip link 10 GB/s (1e4 bytes per us), 0.5 us per message.
arch::ArchSpec chip() {
  arch::ArchSpec a;
  a.name = "exact";
  a.tiles = 1;
  a.pcusPerTile = 8;
  a.pmusPerTile = 8;
  a.pmuBytes = 1024;
  a.pcuLanes = 4;
  a.pcuStages = 4;
  a.clockGhz = 2;
  a.peakTflops = 1;
  a.ddrGbps = 20;
  a.hbmGbps = 100;
  a.hbmEfficiency = 0.5;
  a.pcieGbps = 5;
  a.hbmBytes = 1e9;
  a.ddrBytes = 1e12;
  a.chipLinkGbps = 10;
  a.chipLinkLatencyUs = 0.5;
  return a;
}

// S0 (layers.0)  a = x[64,128] @ x^T           2*64*64*128 = 1048576 FLOP; reads x, writes a
// S1 (layers.0)  r = relu(a)                   4096 FLOP; reads a, writes r (an output)
// S2 (layers.1)  y = z[1,64] @ W[64,4096]      524288 FLOP; W resident; y an output and read by S3
// S3 (layers.1)  u = y @ W2[4096,64]           524288 FLOP; W2 resident; u the first output
// Chip bytes at 2 bytes per element: x 16384, a 8192, r 8192, z 128, W 524288,
// y 8192, W2 524288, u 128.
struct Model {
  ir::Graph graph;
  partition::Plan plan;
};

Model fourSections() {
  using ir::DType;
  using ir::OpKind;
  Model m;
  ir::Graph& g = m.graph;
  const ir::Attributes plain{{"trans_a", int64_t{0}}, {"trans_b", int64_t{0}}};
  ir::ValueId x = g.addInput("x", {DType::F32, {64, 128}});
  ir::ValueId z = g.addInput("z", {DType::F32, {1, 64}});
  ir::ValueId w = g.addParam("w", ir::Tensor({DType::F32, {64, 4096}}));
  ir::ValueId w2 = g.addParam("w2", ir::Tensor({DType::F32, {4096, 64}}));
  ir::ValueId a = ir::test::add(g, OpKind::MatMul, "gram", {x, x}, {"a"},
                                {{"trans_a", int64_t{0}}, {"trans_b", int64_t{1}}})[0];
  ir::ValueId r = ir::test::add(g, OpKind::Relu, "relu", {a}, {"r"})[0];
  ir::ValueId y = ir::test::add(g, OpKind::MatMul, "up", {z, w}, {"y"}, plain)[0];
  ir::ValueId u = ir::test::add(g, OpKind::MatMul, "down", {y, w2}, {"u"}, plain)[0];
  g.outputs = {u, r, y};
  const char* layers[] = {"layers.0/attn", "layers.0/attn", "layers.1/mlp", "layers.1/mlp"};
  for (int i = 0; i < 4; ++i) {
    partition::Section s;
    s.id = i;
    s.name = "s" + std::to_string(i);
    s.nodes = {static_cast<ir::NodeId>(i)};
    s.hyperfunction = layers[i];
    s.hypersection = i;
    m.plan.sections.push_back(s);
    m.plan.hypersections.push_back({i, "hs" + std::to_string(i), {i}});
    m.plan.schedule.push_back(i);
  }
  return m;
}

// The draft of the speculative case: v = z[1,64] @ Wd[64,64], the same 64-token vocabulary.
Model draftModel() {
  using ir::DType;
  Model m;
  ir::Graph& g = m.graph;
  ir::ValueId z = g.addInput("z", {DType::F32, {1, 64}});
  ir::ValueId w = g.addParam("wd", ir::Tensor({DType::F32, {64, 64}}));
  g.outputs = {ir::test::add(g, ir::OpKind::MatMul, "head", {z, w}, {"v"},
                             {{"trans_a", int64_t{0}}, {"trans_b", int64_t{0}}})[0]};
  partition::Section s;
  s.name = "d0";
  s.nodes = {0};
  m.plan.sections.push_back(s);
  m.plan.hypersections.push_back({0, "hd0", {0}});
  m.plan.schedule = {0};
  return m;
}

estimate::StepEstimate run(const Model& m, const arch::ArchSpec& a, const estimate::EstimateOptions& o) {
  auto e = estimate::estimateStep(m.graph, m.plan, true, 1, a, o);
  if (!e) FAIL(e.error().message());
  return *e;
}

}  // namespace

TEST_CASE("exact estimate: each section's compute, tier bytes, fill and call time", "[estimate][exact]") {
  const Model m = fourSections();
  const auto e = run(m, chip(), {});
  REQUIRE(e.sections.size() == 4);
  const auto& s = e.sections;
  CHECK(s[0].flop == exact(1048576));
  CHECK(s[1].flop == exact(4096));
  CHECK(s[2].flop == exact(524288));
  CHECK(s[3].flop == exact(524288));
  // HBM bytes: activations in and out of the section plus its resident weights.
  CHECK(s[0].tierBytes[H] == exact(16384 + 8192));
  CHECK(s[1].tierBytes[H] == exact(8192 + 8192));
  CHECK(s[2].tierBytes[H] == exact(524288 + 128 + 8192));
  CHECK(s[3].tierBytes[H] == exact(524288 + 8192 + 128));
  for (const auto& c : s) CHECK(c.tierBytes[D] == 0);
  CHECK(s[0].computeUs == exact(1.048576));
  CHECK(s[0].memoryUs == exact(0.49152));
  CHECK(s[0].tierUs[H] == exact(0.49152));
  CHECK(s[1].memoryUs == exact(0.32768));
  CHECK(s[2].computeUs == exact(0.524288));
  CHECK(s[2].memoryUs == exact(10.65216));
  for (const auto& c : s) {
    CHECK(c.fillUs == exact(0.002));
    CHECK(c.commUs == 0);
    CHECK(c.linkBytes == 0);
  }
  CHECK(s[0].layer == "layers.0");
  CHECK(s[3].layer == "layers.1");
  // A call of its own: 5 us + max(compute, memory) + comm + fill.
  CHECK(s[0].callUs == exact(5 + 1.048576 + 0.002));
  CHECK(s[1].callUs == exact(5 + 0.32768 + 0.002));
  CHECK(s[2].callUs == exact(5 + 10.65216 + 0.002));
  // Resident bytes: both weights in HBM, nothing in DDR.
  CHECK(e.residentBytes[H] == exact(2 * 524288));
  CHECK(e.residentBytes[D] == 0);
  CHECK(e.tierCapacity[H] == 1e9);
  CHECK(e.tierCapacity[D] == 1e12);
  CHECK(e.tierCapacity[0] == exact(8 * 1024));
  CHECK(e.tierGbps[H] == 100);  // the pin rate; the sustained 50 GB/s is what the sections pay
  CHECK(e.tierGbps[D] == 20);
}

TEST_CASE("exact estimate: a fused step is one pipelined call, the memory stream one section ahead", "[estimate][exact]") {
  const Model m = fourSections();
  const auto e = run(m, chip(), {});
  // S0: loads 0..0.49152, computes 0..1.050576 (compute + fill outlast the loads).
  // S1: loads from 0.49152 (the stream is free) to 0.8192; starts when S0's
  //     chain ends, 1.050576; ends at 1.056672.
  // S2: its loads wait for S1 to start (one section ahead): 1.050576 to
  //     11.702736; it computes from 1.056672 but finishes with its loads, 11.702736.
  // S3: loads 11.702736 to 22.354896, finishes with them.
  CHECK(e.calls == 1);
  CHECK(e.stepUs == exact(5 + 22.354896));
  CHECK(e.overheadUs == exact(5));
  CHECK(e.computeUs == exact(1.048576 + 0.004096 + 0.524288 + 0.524288 + 4 * 0.002));
  CHECK(e.memoryUs == exact(0.49152 + 0.32768 + 10.65216 + 10.65216));
  CHECK(e.tierUs[H] == exact(e.memoryUs));
  CHECK(e.tierUs[D] == 0);
  CHECK(e.commUs == 0);
  CHECK(e.bound == "memory (HBM)");
  CHECK(e.throughput == exact(1 / (27.354896e-6)));
  const double flop = 1048576 + 4096 + 524288 + 524288;
  CHECK(e.flopShare == exact(flop / (1e12 * 27.354896e-6)));
  const double bytes = 24576 + 16384 + 532608 + 532608;
  CHECK(e.tierShare[H] == exact(bytes / (100e9 * 27.354896e-6)));
  CHECK(e.tierShare[D] == 0);
  CHECK(e.linkShare == 0);
}

TEST_CASE("exact estimate: one call per layer drains between layers, one call per section adds them up", "[estimate][exact]") {
  const Model m = fourSections();
  estimate::EstimateOptions o;
  o.fusion = estimate::Fusion::Layer;
  const auto layer = run(m, chip(), o);
  // layers.0 = S0, S1: 1.056672 (as above); layers.1 = S2, S3 from an empty
  // pipeline: loads 0..10.65216 and 10.65216..21.30432, each finishing with its loads.
  CHECK(layer.calls == 2);
  CHECK(layer.stepUs == exact(5 + 1.056672 + 5 + 21.30432));
  CHECK(layer.overheadUs == exact(10));
  o.fusion = estimate::Fusion::Section;
  const auto section = run(m, chip(), o);
  CHECK(section.calls == 4);
  CHECK(section.stepUs == exact((5 + 1.048576 + 0.002) + (5 + 0.32768 + 0.002) + 2 * (5 + 10.65216 + 0.002)));
  CHECK(section.overheadUs == exact(20));
  CHECK(section.bound == "memory (HBM)");  // 22.12 us of HBM against 20 us of calls
}

TEST_CASE("exact estimate: HBM exactly full keeps every weight, one byte less spills the last to DDR", "[estimate][exact]") {
  const Model m = fourSections();
  arch::ArchSpec a = chip();
  a.hbmBytes = 2 * 524288;  // both weights, to the byte
  const auto full = run(m, a, {});
  CHECK(full.residentBytes[H] == exact(2 * 524288));
  CHECK(full.residentBytes[D] == 0);
  CHECK(full.stepUs == exact(5 + 22.354896));
  a.hbmBytes = 2 * 524288 - 1;
  const auto spilled = run(m, a, {});
  CHECK(spilled.residentBytes[H] == exact(524288));  // W, read first, stays
  CHECK(spilled.residentBytes[D] == exact(524288));  // W2 goes to DDR
  const auto& s3 = spilled.sections[3];
  CHECK(s3.tierBytes[H] == exact(8192 + 128));        // activations stay in the fastest tier
  CHECK(s3.tierBytes[D] == exact(524288));
  CHECK(s3.tierUs[D] == exact(524288 / 2e4));         // 26.2144 us at DDR's full 20 GB/s
  CHECK(s3.tierUs[H] == exact(8320 / 5e4));
  CHECK(s3.memoryUs == exact(26.2144));               // the tiers have their own channels: the max
  CHECK(spilled.tierUs[D] == exact(26.2144));
  CHECK(spilled.stepUs == exact(5 + 11.702736 + 26.2144));
  CHECK(spilled.bound == "memory (DDR)");
  // Another model's HBM taken first (a draft): one byte of it spills W2 as well.
  a.hbmBytes = 2 * 524288;
  estimate::EstimateOptions o;
  o.reservedHbmBytes = 1;
  const auto reserved = run(m, a, o);
  CHECK(reserved.residentBytes[D] == exact(524288));
  CHECK(reserved.residentBytes[H] == exact(524288 + 1));
  // A reservation beyond HBM fills it and no more: every weight goes to DDR.
  o.reservedHbmBytes = 1e12;
  const auto over = run(m, a, o);
  CHECK(over.residentBytes[H] == exact(2 * 524288));
  CHECK(over.residentBytes[D] == exact(2 * 524288));
}

TEST_CASE("exact estimate: a chip without HBM streams weights and activations from DDR at its full rate", "[estimate][exact]") {
  const Model m = fourSections();
  arch::ArchSpec a = chip();
  a.hbmGbps = 0;
  a.hbmBytes = 0;
  const auto e = run(m, a, {});
  CHECK(e.tierCapacity[H] == 0);
  CHECK(e.residentBytes[D] == exact(2 * 524288));
  CHECK(e.sections[0].tierBytes[D] == exact(24576));
  CHECK(e.sections[0].tierBytes[H] == 0);
  CHECK(e.sections[0].memoryUs == exact(24576 / 2e4));
  CHECK(e.sections[3].memoryUs == exact(532608 / 2e4));
  CHECK(e.tierUs[H] == 0);
  CHECK(e.bound == "memory (DDR)");
}

TEST_CASE("exact estimate: four chips tensor parallel, an all-gather and a pipelined-tree all-reduce", "[estimate][exact]") {
  const Model m = fourSections();
  estimate::EstimateOptions o;
  o.chips = 4;
  const auto e = run(m, chip(), o);
  REQUIRE(e.chips == 4);
  const auto& s = e.sections;
  // S0 and S1 have no weight: replicated, whole on every chip.
  CHECK(s[0].flop == exact(1048576));
  CHECK(s[0].commUs == 0);
  // S2 column parallel: a quarter of W and of the FLOP; y leaves sharded (a
  // quarter per chip) and, a graph output, is all-gathered: 3 steps of
  // 0.5 us + 2048 bytes at 1e4 bytes/us.
  CHECK(s[2].flop == exact(131072));
  CHECK(s[2].tierBytes[H] == exact(131072 + 128 + 2048));
  CHECK(s[2].commUs == exact(3 * (0.5 + 2048 / 1e4)));
  CHECK(s[2].linkBytes == exact(0.75 * 8192));
  // S3 row parallel: a quarter of y and W2, partial sums all-reduced (128
  // bytes): ring 6 x 0.5 + 1.5 x 128 / 1e4 = 3.0192; pipelined double tree of
  // one 64-byte chunk per half, depth 2, two children: 2 x 2 x (0.5 + 128 / 1e4) = 2.0512; the tree is taken.
  CHECK(s[3].flop == exact(131072));
  CHECK(s[3].tierBytes[H] == exact(131072 + 2048 + 128));
  CHECK(s[3].commUs == exact(2.0512));
  CHECK(s[3].linkBytes == exact(2.0 * 3 / 4 * 128));
  CHECK(e.commUs == exact(2.1144 + 2.0512));
  CHECK(e.residentBytes[H] == exact(2 * 131072));
  // The pipeline: S2's collectives follow its loads (they sit on the activations' path).
  // S2 loads 1.050576..3.715536, chain ends 3.715536 + 2.1144 = 5.829936;
  // S3 loads 3.715536..6.380496, starts at 5.829936, ends max(5.962, 6.380496) + 2.0512.
  CHECK(e.stepUs == exact(5 + 6.380496 + 2.0512));
  const double link = 0.75 * 8192 + 1.5 * 128;
  CHECK(e.linkShare == exact(link / (10e9 * e.stepUs * 1e-6)));
}

TEST_CASE("exact estimate: a verification of T tokens reads the weights once and does T tokens' work", "[estimate][exact]") {
  const Model m = fourSections();
  estimate::EstimateOptions o;
  o.decode = true;
  o.tokensPerStep = 3;
  const auto e = run(m, chip(), o);
  CHECK(e.kind == "decode");
  CHECK(e.unit == "tokens/s");
  CHECK(e.sections[0].flop == exact(3 * 1048576.0));
  CHECK(e.sections[0].tierBytes[H] == exact(3 * 24576.0));
  CHECK(e.sections[2].tierBytes[H] == exact(524288 + 3 * (128 + 8192.0)));
  CHECK(e.stepUs == exact(30.117648));
  CHECK(e.throughput == exact(3 / 30.117648e-6));
  o.tokensPerStep = 1;
  const auto one = run(m, chip(), o);
  CHECK(one.throughput == exact(1 / 27.354896e-6));  // decode tokens/s: one token a step
}

TEST_CASE("exact estimate: a speculative cycle is k draft steps plus a verification of k + 1 tokens", "[estimate][exact]") {
  const Model target = fourSections();
  const Model draft = draftModel();
  arch::ArchSpec a = chip();
  estimate::SpeculativeOptions sp;
  sp.acceptance = 0.5;
  sp.draftTokens = 3;
  auto r = estimate::estimateSpeculative({target.graph, target.plan, 1}, {draft.graph, draft.plan, 1}, a, {}, sp);
  if (!r) FAIL(r.error().message());
  // Draft step: 8192 FLOP, 8192 + 128 + 128 bytes of HBM: 5 + 0.16896 us.
  CHECK(r->draft.stepUs == exact(5.16896));
  CHECK(r->target.stepUs == exact(27.354896));
  CHECK(r->verify.stepUs == exact(31.499024));
  CHECK(r->draftTokens == 3);
  CHECK_FALSE(r->chosen);
  CHECK(r->tokensPerCycle == exact(1.875));  // (1 - 0.5^4) / 0.5
  CHECK(r->cycleUs == exact(3 * 5.16896 + 31.499024));
  CHECK(r->throughput == exact(1.875 / (47.005904e-6)));
  REQUIRE(r->sweep.size() == 1);
  // The target's weights go to HBM after the draft's: HBM for draft + target to the byte keeps all in HBM.
  a.hbmBytes = 8192 + 2 * 524288;
  auto fits = estimate::estimateSpeculative({target.graph, target.plan, 1}, {draft.graph, draft.plan, 1}, a, {}, sp);
  REQUIRE(fits);
  CHECK(fits->verify.residentBytes[D] == 0);
  CHECK(fits->verify.stepUs == exact(31.499024));
  a.hbmBytes -= 1;
  auto spills = estimate::estimateSpeculative({target.graph, target.plan, 1}, {draft.graph, draft.plan, 1}, a, {}, sp);
  REQUIRE(spills);
  CHECK(spills->draft.residentBytes[H] == exact(8192));
  CHECK(spills->verify.residentBytes[D] == exact(524288));
  CHECK(spills->target.residentBytes[D] == exact(524288));
}

TEST_CASE("exact estimate: the chosen draft length is the fastest point of the sweep, each point a full cycle", "[estimate][exact]") {
  const Model target = fourSections();
  const Model draft = draftModel();
  estimate::SpeculativeOptions sp;
  sp.acceptance = 0.5;
  auto r = estimate::estimateSpeculative({target.graph, target.plan, 1}, {draft.graph, draft.plan, 1}, chip(), {}, sp);
  REQUIRE(r);
  CHECK(r->chosen);
  REQUIRE(r->sweep.size() == static_cast<size_t>(estimate::kMaxDraftTokens));
  // k = 1: verify 2 tokens, 28.736272 us; E = 1.5.
  CHECK(r->sweep[0].draftTokens == 1);
  CHECK(r->sweep[0].verifyUs == exact(28.736272));
  CHECK(r->sweep[0].cycleUs == exact(5.16896 + 28.736272));
  CHECK(r->sweep[0].tokensPerCycle == exact(1.5));
  CHECK(r->sweep[2].cycleUs == exact(47.005904));
  double best = 0;
  int bestK = 0;
  for (const auto& p : r->sweep) {
    CHECK(p.tokensPerCycle == exact(estimate::expectedTokensPerCycle(0.5, p.draftTokens)));
    CHECK(p.throughput == exact(p.tokensPerCycle / (p.cycleUs * 1e-6)));
    if (p.throughput > best) best = p.throughput, bestK = p.draftTokens;
  }
  CHECK(r->draftTokens == bestK);
  CHECK(r->throughput == exact(best));
  CHECK(bestK == 1);  // at a = 0.5 the 5 us draft call outweighs what a longer guess saves
  // Every guess accepted: k + 1 tokens a cycle.
  CHECK(estimate::expectedTokensPerCycle(1, 4) == 5);
  CHECK(estimate::expectedTokensPerCycle(0, 4) == 1);
  CHECK(estimate::expectedTokensPerCycle(0.5, 16) == exact((1 - std::pow(0.5, 17)) / 0.5));
}

TEST_CASE("exact estimate: a section of two operators fills the pipeline twice, keeps its inner value on chip", "[estimate][exact]") {
  Model m = fourSections();
  // S0 and S1 as one section: a never leaves it.
  m.plan.sections[0].nodes = {0, 1};
  m.plan.sections.erase(m.plan.sections.begin() + 1);
  m.plan.hypersections.pop_back();
  for (int i = 0; i < 3; ++i) m.plan.sections[static_cast<size_t>(i)].id = i;
  m.plan.schedule = {0, 1, 2};
  estimate::EstimateOptions o;
  o.fusion = estimate::Fusion::Section;
  const auto e = run(m, chip(), o);
  REQUIRE(e.sections.size() == 3);
  const auto& s = e.sections[0];
  CHECK(s.flop == exact(1048576 + 4096));
  CHECK(s.tierBytes[H] == exact(16384 + 8192));  // x in, r out; a stays on chip
  CHECK(s.fillUs == exact(2 * 0.002));
  CHECK(s.callUs == exact(5 + 1.052672 + 0.004));
  CHECK(e.stepUs == exact((5 + 1.052672 + 0.004) + 2 * (5 + 10.65216 + 0.002)));
}

TEST_CASE("exact estimate: a one-token attention reads its whole KV cache every step", "[estimate][exact]") {
  // q, k, v [1, 2, 1, 8] (two heads, one position, 8 wide; 32 chip bytes each);
  // s = q @ k^T, o = s @ v, one section. With a 100-position cache each GEMM
  // reads 100 positions of its k or v (3200 bytes) and does 100 times its FLOP.
  using ir::DType;
  Model m;
  ir::Graph& g = m.graph;
  const ir::ValueId q = g.addInput("q", {DType::F32, {1, 2, 1, 8}});
  const ir::ValueId k = g.addInput("k", {DType::F32, {1, 2, 1, 8}});
  const ir::ValueId v = g.addInput("v", {DType::F32, {1, 2, 1, 8}});
  const ir::ValueId s = ir::test::add(g, ir::OpKind::BatchMatMul, "qk", {q, k}, {"s"},
                                      {{"trans_a", int64_t{0}}, {"trans_b", int64_t{1}}})[0];
  g.outputs = {ir::test::add(g, ir::OpKind::BatchMatMul, "av", {s, v}, {"o"},
                             {{"trans_a", int64_t{0}}, {"trans_b", int64_t{0}}})[0]};
  partition::Section sec;
  sec.name = "attn";
  sec.nodes = {0, 1};
  m.plan.sections = {sec};
  m.plan.hypersections = {{0, "hs", {0}}};
  m.plan.schedule = {0};
  estimate::EstimateOptions o;
  o.kvCacheLen = 100;
  const auto e = run(m, chip(), o);
  REQUIRE(e.sections.size() == 1);
  const auto& c = e.sections[0];
  CHECK(c.flop == exact(100 * 32 + 100 * 32));
  CHECK(c.tierBytes[H] == exact(2 * 3200 + 4 * 32));  // two caches, then q, k, v in and o out
  CHECK(e.residentBytes[H] == exact(2 * 3200));       // the caches are resident
  CHECK(c.memoryUs == exact(6528 / 5e4));
  CHECK(e.stepUs == exact(5 + 6528 / 5e4));  // memory-bound: compute 0.0064 + fill 0.004 hide under it
  CHECK(e.kind == "decode");
  CHECK(e.kvCacheLen == 100);
  CHECK(e.throughput == exact(1 / ((5 + 6528 / 5e4) * 1e-6)));
  // The cache one position longer: 2 x 32 bytes more.
  o.kvCacheLen = 101;
  CHECK(run(m, chip(), o).residentBytes[H] == exact(2 * 3232));
}

TEST_CASE("exact estimate: options at their limits are taken, one step past them refused naming the option", "[estimate][exact][boundary]") {
  const Model m = fourSections();
  auto refusal = [&](const estimate::EstimateOptions& o, bool inference = true) {
    auto e = estimate::estimateStep(m.graph, m.plan, inference, 1, chip(), o);
    REQUIRE_FALSE(e);
    return e.error().message();
  };
  estimate::EstimateOptions o;
  o.chips = arch::kMaxInferenceChips;  // 16: W's 4096 columns split 16 ways
  auto sixteen = estimate::estimateStep(m.graph, m.plan, true, 1, chip(), o);
  REQUIRE(sixteen);
  CHECK(sixteen->chips == 16);
  CHECK(sixteen->sections[2].flop == exact(524288.0 / 16));
  o.chips = arch::kMaxInferenceChips + 1;
  CHECK_THAT(refusal(o), Catch::Contains("--n-chips 17"));
  o.chips = 0;
  CHECK_THAT(refusal(o), Catch::Contains("--n-chips 0"));
  o.chips = 2;
  CHECK_THAT(refusal(o, false), Catch::Contains("--n-chips 2"));  // training: one chip
  o = {};
  o.decode = true;
  o.tokensPerStep = estimate::kMaxTokensPerStep;
  auto most = estimate::estimateStep(m.graph, m.plan, true, 1, chip(), o);
  REQUIRE(most);
  CHECK(most->sections[0].flop == exact(64 * 1048576.0));
  o.tokensPerStep = estimate::kMaxTokensPerStep + 1;
  CHECK_THAT(refusal(o), Catch::Contains("tokens per step 65"));
  o.tokensPerStep = 0;
  CHECK_THAT(refusal(o), Catch::Contains("tokens per step 0"));
  o = {};
  o.elementBytes = 8;  // doubles: the host's f32 bytes times 2
  auto wide = estimate::estimateStep(m.graph, m.plan, true, 1, chip(), o);
  REQUIRE(wide);
  CHECK(wide->sections[0].tierBytes[H] == exact(4 * (16384 + 8192)));
  o.elementBytes = 8.5;
  CHECK_THAT(refusal(o), Catch::Contains("--element-bytes"));
  o.elementBytes = 0;
  CHECK_THAT(refusal(o), Catch::Contains("--element-bytes"));
  o = {};
  o.tokensPerStep = 2;  // not a decode step
  CHECK_THAT(refusal(o), Catch::Contains("speculative decoding"));
  o = {};
  o.reservedHbmBytes = -1;
  CHECK_THAT(refusal(o), Catch::Contains("reserved HBM"));
}

TEST_CASE("exact estimate: what bounds the step is its largest share, compute or communication alike", "[estimate][exact]") {
  const Model m = fourSections();
  arch::ArchSpec slow = chip();
  slow.peakTflops = 0.01;  // 1e4 FLOP a us: 210.13 us of compute against 22.12 us of HBM
  const auto compute = run(m, slow, {});
  CHECK(compute.bound == "compute");
  CHECK(compute.computeUs == exact((1048576 + 4096 + 524288 + 524288) / 1e4 + 0.008));
  arch::ArchSpec thin = chip();
  thin.chipLinkGbps = 0.001;  // 1 byte a us: the collectives dominate
  estimate::EstimateOptions o;
  o.chips = 4;
  const auto comm = run(m, thin, o);
  CHECK(comm.bound == "communication");
  // All-gather: 3 x (0.5 + 2048); all-reduce: the ring 6 x 0.5 + 1.5 x 128 against the tree 4 x (0.5 + 128).
  CHECK(comm.commUs == exact(3 * (0.5 + 2048) + (3 + 192)));
}

TEST_CASE("exact estimate: speculative options at their limits", "[estimate][exact][boundary]") {
  const Model target = fourSections();
  const Model draft = draftModel();
  auto spec = [&](double a, int k) {
    estimate::SpeculativeOptions sp;
    sp.acceptance = a;
    sp.draftTokens = k;
    return estimate::estimateSpeculative({target.graph, target.plan, 1}, {draft.graph, draft.plan, 1}, chip(), {}, sp);
  };
  auto most = spec(1.0, estimate::kMaxDraftTokens);
  REQUIRE(most);
  CHECK(most->tokensPerCycle == 17);
  CHECK(most->verify.tokensPerStep == 17);
  auto none = spec(0.0, 1);
  REQUIRE(none);
  CHECK(none->tokensPerCycle == 1);
  auto tooMany = spec(0.5, estimate::kMaxDraftTokens + 1);
  REQUIRE_FALSE(tooMany);
  CHECK_THAT(tooMany.error().message(), Catch::Contains("--draft-tokens 17"));
  CHECK_FALSE(spec(1.0000001, 1));
  CHECK_FALSE(spec(-0.0001, 1));
  CHECK_FALSE(spec(0.5, -1));
  // Another batch or vocabulary is refused.
  REQUIRE_FALSE(estimate::estimateSpeculative({target.graph, target.plan, 2}, {draft.graph, draft.plan, 1}, chip(), {}, {}));
}
