// The memory tiers in the arch files and the estimate that charges them:
// old files load with defaults, bad figures are refused, weights spill from
// HBM to DDR when HBM is full and then cost DDR time, fusion choices differ.
#include <catch2/catch.hpp>

#include "arch/ArchSpec.h"
#include "driver/compile/CompileToPlan.h"
#include "e2e/TestEnv.h"
#include "estimate/MemoryTiers.h"
#include "estimate/PefEstimate.h"

using namespace dfc;
using estimate::Tier;

namespace {

const char* kOldArch =
    "tiles: 1\npcus_per_tile: 8\npmus_per_tile: 8\npmu_bytes: 1024\npcu_lanes: 4\npcu_stages: 2\n"
    "clock_ghz: 1\npeak_tflops: 1\nddr_gbps: 10\npcie_gbps: 5\n";

pef::Pef tinyDecodePlan(const test::ScratchDir& dir) {
  driver::CompileOptions o;
  o.model = "llama-tiny";
  o.inference = true;
  o.batchSize = 1;
  o.modelParams = {{"seq_len", 1}};
  o.outputFolder = dir / "out";
  o.dbPath = "-";
  o.arch = "sn40l";
  auto p = driver::compileToPlan(o);
  if (!p) FAIL(p.error().message());
  return std::move(*p);
}

}  // namespace

TEST_CASE("an arch file without the tier keys loads with defaults, bad tier figures are refused") {
  auto old = arch::parseArchYaml(kOldArch, "old.yaml");
  REQUIRE(old);
  CHECK(old->hbmBytes == 0);
  CHECK(old->ddrBytes == 0);
  CHECK(old->chipLinkGbpsOrPcie() == 5);
  CHECK(old->chipLinkLatencyUs == 1);
  auto bad = arch::parseArchYaml(std::string(kOldArch) + "hbm_bytes: -1\n", "bad.yaml");
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error().message(), Catch::Contains("hbm_bytes"));
  auto noHbm = arch::parseArchYaml(std::string(kOldArch) + "hbm_bytes: 1e9\n", "nohbm.yaml");
  REQUIRE_FALSE(noHbm);
  CHECK_THAT(noHbm.error().message(), Catch::Contains("hbm_gbps"));
  auto sn40l = arch::loadArch("sn40l");
  REQUIRE(sn40l);
  CHECK(sn40l->hbmBytes == 64e9);
  CHECK(sn40l->ddrBytes == 1.5e12);
}

TEST_CASE("tiers: HBM first, DDR when HBM is full, an error naming the tensor when both are") {
  auto a = arch::parseArchYaml(std::string(kOldArch) + "hbm_gbps: 100\nhbm_bytes: 1000\nddr_bytes: 3000\n", "t.yaml");
  REQUIRE(a);
  estimate::MemoryTiers tiers(*a);
  CHECK(*tiers.place("w0", 800) == Tier::Hbm);
  CHECK(*tiers.place("w1", 800) == Tier::Ddr);
  CHECK(*tiers.place("w2", 150) == Tier::Hbm);
  auto full = tiers.place("w3", 2500);
  REQUIRE_FALSE(full);
  CHECK_THAT(full.error().message(), Catch::Contains("w3"));
}

TEST_CASE("weights that spill to DDR are charged at DDR bandwidth, per-section calls cost more than a fused block") {
  test::ScratchDir dir("estimate-tiers");
  pef::Pef p = tinyDecodePlan(dir);
  auto a = arch::loadArch("sn40l");
  REQUIRE(a);
  estimate::EstimateOptions o;
  o.kvCacheLen = 32;
  auto inHbm = estimate::estimateStep(p.graph, p.plan, true, 1, *a, o);
  if (!inHbm) FAIL(inHbm.error().message());
  CHECK(inHbm->residentBytes[static_cast<int>(Tier::Ddr)] == 0);
  CHECK(inHbm->tierUs[static_cast<int>(Tier::Ddr)] == 0);
  arch::ArchSpec small = *a;
  small.hbmBytes = 1000;  // nothing of size fits
  auto spilled = estimate::estimateStep(p.graph, p.plan, true, 1, small, o);
  REQUIRE(spilled);
  CHECK(spilled->residentBytes[static_cast<int>(Tier::Ddr)] > 0);
  CHECK(spilled->tierUs[static_cast<int>(Tier::Ddr)] > 0);
  CHECK(spilled->stepUs > inHbm->stepUs);
  o.fusion = estimate::Fusion::Section;
  auto perSection = estimate::estimateStep(p.graph, p.plan, true, 1, *a, o);
  REQUIRE(perSection);
  CHECK(perSection->stepUs > inHbm->stepUs);
  CHECK(perSection->overheadUs == Approx(o.sectionCallUs * static_cast<double>(p.plan.schedule.size())));
}

TEST_CASE("the KV cache is read every decode step: a longer context costs more memory time") {
  test::ScratchDir dir("estimate-kv");
  pef::Pef p = tinyDecodePlan(dir);
  auto a = arch::loadArch("sn40l");
  REQUIRE(a);
  estimate::EstimateOptions shortCtx, longCtx;
  shortCtx.kvCacheLen = 16;
  longCtx.kvCacheLen = 4096;
  auto s = estimate::estimateStep(p.graph, p.plan, true, 1, *a, shortCtx);
  auto l = estimate::estimateStep(p.graph, p.plan, true, 1, *a, longCtx);
  REQUIRE(s);
  REQUIRE(l);
  // llama-tiny: 2 layers x 2 KV heads x 32 head dim x (K and V) x 2 bytes per position.
  const double perPosition = 2.0 * 2 * 32 * 2 * 2;
  CHECK(l->residentBytes[static_cast<int>(Tier::Hbm)] - s->residentBytes[static_cast<int>(Tier::Hbm)] ==
        Approx(perPosition * (4096 - 16)));
  CHECK(l->memoryUs > s->memoryUs);
  CHECK(l->kind == "decode");
}

TEST_CASE("a training graph is estimated on one chip, asking for more is refused") {
  test::ScratchDir dir("estimate-train");
  driver::CompileOptions o;
  o.model = "mlp";
  o.batchSize = 8;
  o.outputFolder = dir / "out";
  o.dbPath = "-";
  auto p = driver::compileToPlan(o);
  REQUIRE(p);
  auto a = arch::loadArch("sn30");
  REQUIRE(a);
  estimate::EstimateOptions e;
  auto one = estimate::estimateStep(p->graph, p->plan, false, 8, *a, e);
  REQUIRE(one);
  CHECK(one->kind == "training");
  CHECK(one->unit == "samples/s");
  CHECK(one->throughput == Approx(8 / (one->stepUs * 1e-6)));
  e.chips = 2;
  auto two = estimate::estimateStep(p->graph, p->plan, false, 8, *a, e);
  REQUIRE_FALSE(two);
  CHECK_THAT(two.error().message(), Catch::Contains("--n-chips"));
}
