// Golden values of the cost model (arch/CostModel.h), derived by hand from its
// documented formulas. Each case names the figures it uses; a change to the
// model that moves one of these numbers must come with a new derivation.
//
// The toy arch keeps the arithmetic small:
//   lanes L = 8, stages S = 4, clock 1 GHz: a PCU does 2*L*S = 64 FLOP/cycle,
//   64'000 FLOP/us; kTargetCycles T = 4096, so one PCU is sized for 64*4096 =
//   262'144 FLOP (GEMM) or L*T = 32'768 elements per stage group (elementwise).
//   100 PCUs, 100 PMUs of 1 KiB; one op takes at most 100/4 = 25 PCUs.
//   peak 1 TFLOP/s, DDR 10 GB/s, no HBM, PCIe 2 GB/s, network link 5 GB/s.
//   Fan-in bound: 4 links * 8 tracks / 3 = 10 nets per unit (arch/FanIn.h).
#include <catch2/catch.hpp>

#include "arch/CostModel.h"
#include "frontend/GraphBuilder.h"

using namespace dfc;
using ir::OpKind;

namespace {

const char* kToyArch = R"(
name: toy
tiles: 1
pcus_per_tile: 100
pmus_per_tile: 100
pmu_bytes: 1024
pcu_lanes: 8
pcu_stages: 4
clock_ghz: 1
peak_tflops: 1
ddr_gbps: 10
pcie_gbps: 2
network_link_gbps: 5
)";

arch::ArchSpec toyArch(int chips = 1, double hbmGbps = 0) {
  auto a = arch::parseArchYaml(kToyArch, "toy.yaml");
  REQUIRE(a);
  a->hbmGbps = hbmGbps;
  auto scaled = arch::scaleArch(*a, chips, 0);
  REQUIRE(scaled);
  return *scaled;
}

arch::ArchSpec preset(const std::string& name) {
  auto a = arch::loadArch(name);
  REQUIRE(a);
  return *a;
}

ir::TensorType f32(ir::Shape shape) { return {ir::DType::F32, std::move(shape)}; }

ir::Attributes convAttrs() {
  return {{"stride", std::vector<int64_t>{1, 1}}, {"pad", std::vector<int64_t>{1, 1}}};
}

// A graph under construction and the node that produced a value.
struct Built {
  ir::Graph g;
  frontend::GraphBuilder b{g};
  const ir::Node& producer(ir::ValueId v) const { return g.node(g.value(v).producer); }
  ir::NodeId node(ir::ValueId v) const { return g.value(v).producer; }
};

}  // namespace

TEST_CASE("cost golden: a matmul with a resident weight on the toy arch", "[cost]") {
  Built t;
  ir::ValueId x = t.b.input("x", f32({64, 64}));
  ir::ValueId w = t.b.paramUniform("w", {64, 64}, 0.1);
  ir::ValueId y = t.b.matmul(x, w);
  t.g.outputs = {y};
  REQUIRE(t.b.status());
  arch::CostModel cost(toyArch());
  arch::OpCost c = cost.opCost(t.g, t.producer(y));
  // FLOP = 2*M*N*K = 2*64^3; bytes: three 64x64 f32 tensors of 16 KiB.
  CHECK(c.flop == 524288);
  CHECK(c.bytes == 49152);
  CHECK(c.cls == arch::OpClass::Gemm);
  // PCUs = ceil(524'288 / 262'144) = 2, under min(8x8 output tiles, 25).
  CHECK(c.pcus == 2);
  CHECK(c.minPcus == 1);
  // x streamed (2 double-buffered PMUs), w resident (16 KiB / 1 KiB = 16), y streamed (2).
  CHECK(c.inputPmus == std::vector<int>{2, 16});
  CHECK(c.outputPmus == std::vector<int>{2});
  CHECK(c.inputResident == std::vector<bool>{false, true});
  // Trees: each of the 2 PCUs reads 1 + 8 buffers (<= 10); each output PMU is fed by 1 PCU.
  CHECK(c.treePcus == 0);
  CHECK(c.treePmus == 0);
  CHECK(c.pmus == 20);

  // As a section of its own:
  //   compute = 524'288 / (2 PCUs * 64'000) = 4.096 us (peak bound 0.524 us is lower)
  //   DDR     = x + w + y = 49'152 B / 10 GB/s = 4.9152 us
  //   fill    = 1 op * 4 stages / 1 GHz = 0.004 us
  partition::SectionEstimate e = cost.sectionEstimate(t.g, {t.node(y)});
  CHECK(e.flop == 524288);
  CHECK(e.pcus == 2);
  CHECK(e.pmus == 20);
  CHECK(e.ddrBytes == 49152);
  CHECK(e.computeUs == Approx(4.096));
  CHECK(e.memoryUs == Approx(4.9152));
  CHECK(e.latencyUs == Approx(4.9192));

  // With HBM (40 GB/s) off-chip traffic goes there: 49'152 B / 40 GB/s = 1.2288 us < compute.
  arch::CostModel hbm(toyArch(1, 40));
  partition::SectionEstimate h = hbm.sectionEstimate(t.g, {t.node(y)});
  CHECK(h.memoryUs == Approx(1.2288));
  CHECK(h.latencyUs == Approx(4.096 + 0.004));
}

TEST_CASE("cost golden: convolution and both its gradients are the same GEMM work", "[cost]") {
  // x[2,3,8,8] * w[4,3,3,3], stride 1, pad 1 -> y[2,4,8,8].
  //   conv2d:             M = N*Ho*Wo = 128, N = Co = 4, K = Ci*3*3 = 27
  //   conv2d_grad_input:  M = N*H*W = 128,   N = Ci = 3, K = Co*3*3 = 36 (the weight's output axis)
  //   conv2d_grad_weight: M = Co = 4, N = Ci*3*3 = 27,   K = N*Ho*Wo = 128
  // Each is 2*128*4*27 = 2*128*3*36 = 27'648 FLOP: one PCU (< 262'144).
  Built t;
  ir::ValueId x = t.b.input("x", f32({2, 3, 8, 8}));
  ir::ValueId w = t.b.paramUniform("w", {4, 3, 3, 3}, 0.1);
  ir::ValueId dy = t.b.input("dy", f32({2, 4, 8, 8}));
  ir::ValueId y = t.b.conv2d(x, w, {1, 1}, {1, 1});
  ir::Attributes gi = convAttrs(), gw = convAttrs();
  gi["input_shape"] = std::vector<int64_t>{2, 3, 8, 8};
  gw["weight_shape"] = std::vector<int64_t>{4, 3, 3, 3};
  auto dx = t.b.op(OpKind::Conv2dGradInput, {dy, w}, gi);
  auto dw = t.b.op(OpKind::Conv2dGradWeight, {dy, x}, gw);
  REQUIRE(t.b.status());
  REQUIRE(dx.size() == 1);
  REQUIRE(dw.size() == 1);
  arch::CostModel cost(toyArch());
  arch::OpCost fwd = cost.opCost(t.g, t.producer(y));
  arch::OpCost gin = cost.opCost(t.g, t.producer(dx[0]));
  arch::OpCost gwt = cost.opCost(t.g, t.producer(dw[0]));
  CHECK(fwd.flop == 27648);
  CHECK(gin.flop == 27648);
  CHECK(gwt.flop == 27648);
  for (const arch::OpCost* c : {&fwd, &gin, &gwt}) {
    CHECK(c->cls == arch::OpClass::Gemm);
    CHECK(c->pcus == 1);
  }
  // conv2d: x streamed 2, w resident (432 B -> 1 PMU), y 2.
  CHECK(fwd.inputPmus == std::vector<int>{2, 1});
  CHECK(fwd.pmus == 5);
  // grad_input: dy streamed, w resident; grad_weight: both streamed, dw accumulates
  // resident in its output buffer (432 B -> 1 PMU).
  CHECK(gin.inputPmus == std::vector<int>{2, 1});
  CHECK(gwt.inputPmus == std::vector<int>{2, 2});
  CHECK(gwt.outputPmus == std::vector<int>{1});
  CHECK(gwt.pmus == 5);
  // Bytes: x 1536 + w 432 + y 2048; dy 2048 + w 432 + dx 1536; dy 2048 + x 1536 + dw 432.
  CHECK(fwd.bytes == 4016);
  CHECK(gin.bytes == 4016);
  CHECK(gwt.bytes == 4016);
}

TEST_CASE("cost golden: elementwise ops are stage groups replicated to the target time", "[cost]") {
  Built t;
  ir::ValueId x = t.b.input("x", f32({64, 1024}));  // 65'536 elements: 2 groups of 32'768
  ir::ValueId s = t.b.add(x, x);
  auto gelu = t.b.op(OpKind::Gelu, {x});
  REQUIRE(t.b.status());
  arch::CostModel cost(toyArch());
  // add: 1 stage -> a group is 1 PCU; 2 groups; FLOP = 65'536 * 1.
  arch::OpCost add = cost.opCost(t.g, t.producer(s));
  CHECK(add.flop == 65536);
  CHECK(add.stages == 1);
  CHECK(add.minPcus == 1);
  CHECK(add.pcus == 2);
  CHECK(add.pmus == 6);  // two streamed operands and one result, 2 PMUs each
  // gelu: 6 stages -> ceil(6/4) = 2 PCUs a group; 2 groups = 4 PCUs; FLOP = 65'536 * 6.
  arch::OpCost g = cost.opCost(t.g, t.producer(gelu[0]));
  CHECK(g.flop == 393216);
  CHECK(g.stages == 6);
  CHECK(g.minPcus == 2);
  CHECK(g.pcus == 4);
  CHECK(g.pmus == 4);
  CHECK(g.bytes == 524288);
}

TEST_CASE("cost golden: a parameter operand of an elementwise op is resident", "[cost]") {
  // bias_add(x[64,1024], b[1024]): b is 4 KiB = 4 PMUs held whole; x and the
  // result stream through 2 each. 2 groups of 1 PCU; each reads 1 + 2 buffers.
  Built t;
  ir::ValueId x = t.b.input("x", f32({64, 1024}));
  ir::ValueId y = t.b.biasAdd(x, t.b.paramUniform("b", {1024}, 0.1));
  REQUIRE(t.b.status());
  arch::OpCost c = arch::CostModel(toyArch()).opCost(t.g, t.producer(y));
  CHECK(c.inputResident == std::vector<bool>{false, true});
  CHECK(c.inputPmus == std::vector<int>{2, 4});
  CHECK(c.pcus == 2);
  CHECK(c.pmus == 8);
}

TEST_CASE("cost golden: a wide reduction over rows needs a tree of Reduce PCUs", "[cost]") {
  // reduce_sum over axis 0 of [98'304, 8]: 786'432 elements = 24 groups of one PCU
  // (1 stage), each summing a share of the rows: partial results. Each of the 2
  // output PMUs is fed by 24/2 = 12 replicas > 10: a tree of ceil(12/10) = 2
  // Reduce PCUs each, 4 in all. Reading the input: 2 buffers over 24 PCUs, 1 each.
  Built t;
  ir::ValueId x = t.b.input("x", f32({98304, 8}));
  ir::ValueId r = t.b.reduceSum(x, {0});
  REQUIRE(t.b.status());
  arch::CostModel cost(toyArch());
  arch::OpCost c = cost.opCost(t.g, t.producer(r));
  CHECK(c.pcus == 24);
  CHECK(c.outputPartial == std::vector<bool>{true});
  CHECK(c.treePcus == 4);
  CHECK(c.treePmus == 0);
  CHECK(c.pmus == 4);
  partition::SectionEstimate e = cost.sectionEstimate(t.g, {t.node(r)});
  CHECK(e.pcus == 28);  // the tree's PCUs come on top
}

TEST_CASE("cost golden: layout ops use no PCU, reshape is a view without buffers", "[cost]") {
  Built t;
  ir::ValueId x = t.b.input("x", f32({64, 32}));
  auto tr = t.b.op(OpKind::Transpose, {x}, {{"perm", std::vector<int64_t>{1, 0}}});
  ir::ValueId rs = t.b.reshape(x, {2048});
  REQUIRE(t.b.status());
  arch::CostModel cost(toyArch());
  arch::OpCost c = cost.opCost(t.g, t.producer(tr[0]));
  CHECK(c.flop == 0);
  CHECK(c.pcus == 0);
  CHECK(c.pmus == 4);
  CHECK(c.bytes == 16384);
  arch::OpCost v = cost.opCost(t.g, t.producer(rs));
  CHECK(v.pcus == 0);
  CHECK(v.pmus == 0);
}

TEST_CASE("cost golden: values passed inside a section stay on chip, values read elsewhere go to DDR", "[cost]") {
  // mm = x @ w; y = relu(mm), a graph output. Section {mm, relu}:
  //   FLOP  = 524'288 + 4'096 (relu, 1 stage) = 528'384
  //   PCUs  = 2 (mm) + 1 (relu: one group) = 3; PMUs 20 + 4 = 24
  //   DDR   = x + w + y = 49'152 B -> 4.9152 us; mm's 16 KiB stays inside:
  //   on-chip = 16'384 B / (5 GB/s * 3 PCUs) = 1.0923 us
  //   compute = max(4.096, 4'096 / 64'000) = 4.096 us; fill = 2 * 4 / 1 GHz = 0.008 us
  Built t;
  ir::ValueId x = t.b.input("x", f32({64, 64}));
  ir::ValueId w = t.b.paramUniform("w", {64, 64}, 0.1);
  ir::ValueId mm = t.b.matmul(x, w);
  ir::ValueId y = t.b.relu(mm);
  t.g.outputs = {y};
  REQUIRE(t.b.status());
  arch::CostModel cost(toyArch());
  std::vector<ir::NodeId> section{t.node(mm), t.node(y)};
  partition::SectionEstimate e = cost.sectionEstimate(t.g, section);
  CHECK(e.flop == 528384);
  CHECK(e.pcus == 3);
  CHECK(e.pmus == 24);
  CHECK(e.ddrBytes == 49152);
  CHECK(e.computeUs == Approx(4.096));
  CHECK(e.memoryUs == Approx(4.9152));
  CHECK(e.latencyUs == Approx(4.9232));

  SECTION("a result also read by another section crosses the boundary") {
    ir::ValueId later = t.b.scale(mm, 2.0);  // outside the section: mm must be written out
    t.g.outputs.push_back(later);
    REQUIRE(t.b.status());
    partition::SectionEstimate out = cost.sectionEstimate(t.g, section);
    CHECK(out.ddrBytes == 65536);
    CHECK(out.memoryUs == Approx(6.5536));
  }
  SECTION("a graph output that is also used inside crosses the boundary") {
    t.g.outputs.push_back(mm);
    CHECK(cost.sectionEstimate(t.g, section).ddrBytes == 65536);
  }
}

TEST_CASE("cost golden: a section of layout ops is bound by its on-chip traffic", "[cost]") {
  // x[64,32] -> transpose -> transpose -> transpose: no PCU (the traffic is
  // spread over at least one), 4 PMUs each.
  //   DDR     = x + result = 16'384 B / 10 GB/s = 1.6384 us
  //   on-chip = two 8 KiB intermediates = 16'384 B / (5 GB/s * 1) = 3.2768 us: the bound
  //   fill    = 3 * 4 / 1 GHz = 0.012 us
  Built t;
  ir::ValueId v = t.b.input("x", f32({64, 32}));
  std::vector<ir::NodeId> section;
  for (int i = 0; i < 3; ++i) {
    v = t.b.op(OpKind::Transpose, {v}, {{"perm", std::vector<int64_t>{1, 0}}}).at(0);
    section.push_back(t.node(v));
  }
  t.g.outputs = {v};
  REQUIRE(t.b.status());
  partition::SectionEstimate e = arch::CostModel(toyArch()).sectionEstimate(t.g, section);
  CHECK(e.flop == 0);
  CHECK(e.pcus == 0);
  CHECK(e.pmus == 12);
  CHECK(e.ddrBytes == 16384);
  CHECK(e.computeUs == 0);
  CHECK(e.memoryUs == Approx(3.2768));
  CHECK(e.latencyUs == Approx(3.2888));
}

TEST_CASE("cost golden: a section wider than a chip pays PCIe for the cut share of its internal traffic", "[cost]") {
  // Two toy chips: 200 PCUs, 100 per chip; one op takes at most 200/4 = 50.
  // Three chained gelus on [800, 1024] (819'200 elements = 25 groups of 32'768;
  // a gelu group is 2 PCUs): 50 PCUs each, 150 in all, spanning 2 chips.
  //   internal = two 3'276'800 B intermediates = 6'553'600 B
  //   PCIe     = 6'553'600 * (2-1)/2 / 2 GB/s = 1638.4 us
  //   DDR      = x + result = 6'553'600 B / (10 GB/s * 2 chips) = 327.68 us
  //   on-chip  = 6'553'600 / (5 GB/s * 150) = 8.738 us; compute: peak 2 TFLOP/s for
  //              3 * 4'915'200 FLOP = 7.3728 us (> 4'915'200 / (50 * 64'000) = 1.536)
  //   fill     = 3 * 4 / 1 GHz = 0.012 us
  //   latency  = 327.68 + 0.012 + 1638.4 = 1966.092 us
  Built t;
  ir::ValueId x = t.b.input("x", f32({800, 1024}));
  ir::ValueId v = x;
  std::vector<ir::NodeId> section;
  for (int i = 0; i < 3; ++i) {
    v = t.b.op(OpKind::Gelu, {v}).at(0);
    section.push_back(t.node(v));
  }
  t.g.outputs = {v};
  REQUIRE(t.b.status());
  arch::CostModel two(toyArch(2));
  CHECK(two.opCost(t.g, t.g.node(section[0])).pcus == 50);
  partition::SectionEstimate e = two.sectionEstimate(t.g, section);
  CHECK(e.pcus == 150);
  CHECK(e.ddrBytes == 6553600);
  CHECK(e.computeUs == Approx(7.3728));
  CHECK(e.memoryUs == Approx(327.68));
  CHECK(e.latencyUs == Approx(1966.092));
  // On one chip an op takes at most 25 PCUs: 12 gelu groups = 24 each, 72 in all,
  // no PCIe share. DDR 6'553'600 B / 10 GB/s = 655.36 us; + fill 0.012.
  partition::SectionEstimate one = arch::CostModel(toyArch(1)).sectionEstimate(t.g, section);
  CHECK(one.pcus == 72);
  CHECK(one.latencyUs == Approx(655.372));
}

TEST_CASE("cost golden: a 1024^3 matmul on each preset", "[cost]") {
  // x[1024,1024] (streamed) @ w[1024,1024] (resident, 4 MiB = 8 PMUs of 512 KiB):
  // FLOP = 2 * 1024^3 = 2'147'483'648; DDR = 3 * 4 MiB = 12'582'912 B.
  // Lanes 32, stages 6 on every preset: 384 FLOP/cycle, 1'572'864 FLOP per PCU
  // and call: 1366 PCUs wanted, 1024 output tiles; capped at a quarter of the chip.
  // Trees: each of the 2 output PMUs is fed by pcus/2 replicas (bound 10):
  //   80 -> 8 staging PMUs; 160 -> 16 + 2 = 18; 130 -> 13 + 2 = 15.
  struct Golden {
    const char* arch;
    int pcus, pmus;
    double computeUs, memoryUs, latencyUs;
  };
  // sn10: 640 PCUs -> 160; 1.25 GHz: 480'000 FLOP/us per PCU -> 27.962 us;
  //       DDR 150 GB/s -> 83.886 us; fill 6 / 1.25 GHz = 0.0048 us.
  // sn30: 1280 PCUs -> 320 -> 13.981 us; DDR 300 GB/s -> 41.943 us.
  // sn40l: 1040 PCUs -> 260; 1.6 GHz: 614'400 FLOP/us -> 13.443 us; HBM 1.6 TB/s
  //       -> 7.864 us: compute-bound; fill 6 / 1.6 GHz = 0.00375 us.
  const Golden golden[] = {
      {"sn10", 160, 12 + 16, 27.962027, 83.88608, 83.89088},
      {"sn30", 320, 12 + 36, 13.981013, 41.94304, 41.94784},
      {"sn40l", 260, 12 + 30, 13.443282, 7.86432, 13.447032},
  };
  Built t;
  ir::ValueId x = t.b.input("x", f32({1024, 1024}));
  ir::ValueId w = t.b.paramUniform("w", {1024, 1024}, 0.01);
  ir::ValueId y = t.b.matmul(x, w);
  t.g.outputs = {y};
  REQUIRE(t.b.status());
  for (const Golden& want : golden) {
    INFO(want.arch);
    arch::CostModel cost(preset(want.arch));
    arch::OpCost c = cost.opCost(t.g, t.producer(y));
    CHECK(c.flop == 2147483648.0);
    CHECK(c.pcus == want.pcus);
    CHECK(c.inputPmus == std::vector<int>{2, 8});
    CHECK(c.pmus == want.pmus);
    partition::SectionEstimate e = cost.sectionEstimate(t.g, {t.node(y)});
    CHECK(e.ddrBytes == 12582912);
    CHECK(e.computeUs == Approx(want.computeUs));
    CHECK(e.memoryUs == Approx(want.memoryUs));
    CHECK(e.latencyUs == Approx(want.latencyUs));
  }
}

TEST_CASE("cost golden: under a PCU cap every op keeps its minimum and shares the rest", "[cost]") {
  // Two adds of 2 PCUs each (min 1) and a gelu of 4 (min 2): 8 wanted, 4 minimum.
  // Cap 6: spare 6 - 4 = 2 shared in proportion to the extra wanted (1, 1, 2 of 4):
  // floor(1 * 2/4) = 0, 0, floor(2 * 2/4) = 1 -> {1, 1, 3}.
  Built t;
  ir::ValueId x = t.b.input("x", f32({64, 1024}));
  ir::ValueId a = t.b.add(x, x);
  ir::ValueId b = t.b.add(a, x);
  ir::ValueId g = t.b.op(OpKind::Gelu, {b}).at(0);
  t.g.outputs = {g};
  REQUIRE(t.b.status());
  arch::CostModel cost(toyArch());
  std::vector<ir::NodeId> nodes{t.node(a), t.node(b), t.node(g)};
  CHECK(cost.pcuShares(t.g, nodes, 0) == std::vector<int>{2, 2, 4});
  CHECK(cost.pcuShares(t.g, nodes, 6) == std::vector<int>{1, 1, 3});
  CHECK(cost.pcuShares(t.g, nodes, 8) == std::vector<int>{2, 2, 4});
  // Under the cap the gelu runs on 3 PCUs: 393'216 FLOP / (3 * 64'000) = 2.048 us.
  CHECK(cost.sectionEstimate(t.g, nodes, 6).computeUs == Approx(2.048));
}

TEST_CASE("cost golden: a row lookup streams the rows it reads, its table stays off chip", "[cost]") {
  // Issue 37: a 128256-row embedding held its table in PMUs and sized its PCUs by the table's elements.
  Built t;
  ir::ValueId table = t.b.paramUniform("table", {1000, 64}, 0.1);  // 256'000 B: 250 PMUs if it were resident
  ir::ValueId ids = t.b.input("ids", {ir::DType::I64, {2, 8}});    // 128 B
  ir::ValueId y = t.b.op(OpKind::Embedding, {table, ids}).front();  // [2, 8, 64]: 1'024 elements, 4'096 B
  t.g.outputs = {y};
  REQUIRE(t.b.status());
  arch::CostModel cost(toyArch());
  arch::OpCost c = cost.opCost(t.g, t.producer(y));
  // FLOP: the output's 1'024 elements x 1 stage; bytes: ids + the rows read + the output.
  CHECK(c.flop == 1024);
  CHECK(c.bytes == 128 + 4096 + 4096);
  CHECK(c.inputResident == std::vector<bool>{false, false});
  CHECK(c.inputPmus == std::vector<int>{2, 2});
  // One stage group: ceil(1'024 / (8 lanes x 4'096 cycles)) = 1 PCU.
  CHECK(c.pcus == 1);
  CHECK(c.pmus == 6);
  partition::SectionEstimate e = cost.sectionEstimate(t.g, {t.node(y)});
  CHECK(e.ddrBytes == 128 + 4096 + 4096);  // the table's rows read, not its 256'000 bytes
}

TEST_CASE("cost golden: one operator takes a share of the chips' PCUs, never more than one chip's", "[cost]") {
  CHECK(arch::CostModel(toyArch(1)).maxOpPcus() == 25);    // 100 / 4
  CHECK(arch::CostModel(toyArch(4)).maxOpPcus() == 100);   // 400 / 4 = one chip exactly
  CHECK(arch::CostModel(toyArch(8)).maxOpPcus() == 100);   // 800 / 4, capped at one chip
}
