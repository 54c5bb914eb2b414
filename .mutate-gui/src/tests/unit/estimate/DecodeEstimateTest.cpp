// Issue 18 must-holds: Llama 3.1 8B and 70B decode on 16 sn40l chips, the
// estimate as served (8B plain, 70B speculative with the 8B drafting) printed
// beside the published figure and within +-35% of it, and no section of
// either model, nor of the 70B's verification step, estimated beyond a
// physical bound (peak FLOP/s, each tier's bandwidth, the chip link's).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <map>

#include "driver/decode/DecodeCases.h"
#include "e2e/TestEnv.h"
#include "estimate/PefEstimate.h"

using namespace dfc;
using estimate::Tier;

namespace {

constexpr int H = static_cast<int>(Tier::Hbm), D = static_cast<int>(Tier::Ddr);
constexpr double kSlack = 1 + 1e-9;  // rounding only

// Every section: FLOP within peak x its compute time, each tier's bytes
// within its bandwidth x its time, link bytes within the link x its comm time.
void checkSectionBounds(const estimate::StepEstimate& e, const arch::ArchSpec& a) {
  for (const auto& c : e.sections) {
    INFO(c.name);
    CHECK(c.flop <= a.peakTflops * 1e6 * c.computeUs * kSlack);
    CHECK(c.tierBytes[H] <= a.hbmGbps * a.hbmEfficiency * 1e3 * c.tierUs[H] * kSlack);
    CHECK(c.tierBytes[D] <= a.ddrGbps * 1e3 * c.tierUs[D] * kSlack);
    CHECK(c.memoryUs >= std::max(c.tierUs[H], c.tierUs[D]));
    CHECK(c.linkBytes <= a.chipLinkGbpsOrPcie() * 1e3 * c.commUs * kSlack);
  }
}

// The step: no resource is used beyond its figure over the whole step, and
// the pipelined step is never shorter than its busiest resource.
void checkStepBounds(const estimate::StepEstimate& e) {
  CHECK(e.flopShare <= 1);
  CHECK(e.tierShare[H] <= 1);
  CHECK(e.tierShare[D] <= 1);
  CHECK(e.linkShare <= 1);
  CHECK(e.stepUs >= e.memoryUs);
  CHECK(e.stepUs >= e.computeUs + e.commUs);
  CHECK(e.residentBytes[H] <= e.tierCapacity[H]);
  CHECK(e.residentBytes[D] <= e.tierCapacity[D]);
}

}  // namespace

TEST_CASE("Llama 3.1 8B and 70B decode on 16 sn40l: estimate beside the published tokens/s, within physical bounds") {
  test::ScratchDir dir("decode-estimate");
  auto arch = arch::loadArch("sn40l");
  REQUIRE(arch);
  std::map<std::string, pef::Pef> pefs;
  for (const auto& c : driver::publishedDecodeCases()) {
    auto pef = driver::compileDecodeCase(c, dir / c.label);
    if (!pef) FAIL(pef.error().message());
    pefs.emplace(c.label, std::move(*pef));
  }
  for (const auto& c : driver::publishedDecodeCases()) {
    auto served = driver::estimateServed(c, pefs, *arch, driver::decodeEstimateOptions());
    if (!served) FAIL(served.error().message());
    const estimate::StepEstimate* e = &served->plain;
    const double error = served->tokensPerS / c.publishedTokensPerS - 1;
    std::printf("%s: estimated %.1f tokens/s as served (%s), published %.1f (%+.1f%%); alone: compute %.3f ms, memory "
                "%.3f ms, communication %.3f ms per token, bound %s\n",
                c.label.c_str(), served->tokensPerS, served->speculative ? "speculative" : "plain",
                c.publishedTokensPerS, error * 100, e->computeUs / 1e3, e->memoryUs / 1e3, e->commUs / 1e3,
                e->bound.c_str());
    CHECK(std::abs(error) <= 0.35);
    CHECK(served->speculative.has_value() == !c.draft.empty());
    if (served->speculative) {  // the verification step and the draft obey the bounds too
      checkSectionBounds(served->speculative->verify, *arch);
      checkStepBounds(served->speculative->verify);
      checkStepBounds(served->speculative->draft);
      CHECK(served->speculative->verify.residentBytes[H] ==
            Approx(e->residentBytes[H] + served->speculative->draft.residentBytes[H]));
    }
    CHECK(e->kind == "decode");
    CHECK(e->unit == "tokens/s");
    CHECK(e->sections.size() >= static_cast<size_t>(c.layers));
    checkSectionBounds(*e, *arch);
    checkStepBounds(*e);
    // Per chip, bf16: embedding, head, attention and MLP weights split 16
    // ways; KV projections and the KV cache 8 ways (8 KV heads).
    const double chips = driver::kDecodeChips, kvShare = c.kvHeads, dh = double(c.hidden) / c.heads;
    const double kvWidth = c.kvHeads * dh;
    const double split16 = 2.0 * c.vocab * c.hidden + c.layers * (2.0 * c.hidden * c.hidden + 3.0 * c.hidden * c.intermediate);
    const double split8 = c.layers * 2.0 * c.hidden * kvWidth;
    const double cache = c.layers * 2.0 * kvWidth * driver::kDecodeContext;
    const double expected = 2 * (split16 / chips + (split8 + cache) / kvShare);
    CHECK(e->residentBytes[H] == Approx(expected).epsilon(0.01));  // norm weights on top
    CHECK(e->residentBytes[D] == 0);
  }
}

TEST_CASE("dfc compile of the 8B decode case for 16 sn40l routes, and its PEF estimates as the plan alone does") {
  // Issue 37: one source of truth. The full compile (placed, routed, written) and the plan-only compile of
  // bench_decode_estimate give the same plan, so the same estimate, to the last bit.
  test::ScratchDir dir("decode-pef-estimate");
  const driver::DecodeCase c = driver::publishedDecodeCases().front();
  auto planned = driver::compileDecodeCase(c, dir / "plan");
  if (!planned) FAIL(planned.error().message());
  const std::string flags = "--model llama --num-layers " + std::to_string(c.layers) + " --hidden-size " +
                            std::to_string(c.hidden) + " --num-heads " + std::to_string(c.heads) + " --num-kv-heads " +
                            std::to_string(c.kvHeads) + " --intermediate-size " + std::to_string(c.intermediate) +
                            " --vocab-size " + std::to_string(c.vocab);
  auto r = test::runDfc("compile " + flags + " --inference --decode --kv-cache-len 2048 -b 1 --arch sn40l --n-chips 16 "
                        "-o3 --enable-hypersection --db - --pef-name full --output-folder " + dir / "full");
  INFO(r.output);
  REQUIRE(r.status == 0);  // routed legally: a PEF is written only then
  auto full = pef::readPef(dir / "full/full.pef", pef::PefUse::View);
  REQUIRE(full.ok());
  auto arch = arch::loadArch("sn40l");
  REQUIRE(arch);
  const estimate::EstimateOptions options = driver::decodeEstimateOptions();
  auto fromPlan = estimate::estimateStep(planned->graph, planned->plan, true, 1, *arch, options);
  estimate::PefEstimateRequest request;
  auto fromPef = estimate::estimatePef(*full, request);
  REQUIRE(fromPlan.ok());
  REQUIRE(fromPef.ok());
  CHECK(fromPef->stepUs == fromPlan->stepUs);
  CHECK(fromPef->throughput == fromPlan->throughput);
  CHECK(fromPef->chips == 16);
}
