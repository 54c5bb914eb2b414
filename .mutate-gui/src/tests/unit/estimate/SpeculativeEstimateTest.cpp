// Speculative decoding in the estimate and the per-layer call schedule: a
// verification of T tokens reads the weights and cache once but does T
// tokens' arithmetic; a cycle's tokens follow Leviathan et al.'s formula;
// the best draft length is the fastest; a layer-per-call step sits between
// the whole-step pipeline and a call per section; bad pairs are refused.
#include <catch2/catch.hpp>
#include <numeric>

#include "driver/compile/CompileToPlan.h"
#include "driver/compile/Compiler.h"
#include "e2e/TestEnv.h"
#include "estimate/PefEstimate.h"
#include "estimate/Speculative.h"

using namespace dfc;
using estimate::Tier;

namespace {

constexpr int H = static_cast<int>(Tier::Hbm);

driver::CompileOptions decodeCompile(const test::ScratchDir& dir, const std::string& name, int64_t vocab = 256,
                                     partition::OptLevel level = partition::OptLevel::O3) {
  driver::CompileOptions o;
  o.level = level;
  o.model = "llama-tiny";
  o.pefName = name;
  o.inference = true;
  o.decode = true;
  o.kvCacheLen = 64;
  o.batchSize = 1;
  o.modelParams = {{"vocab_size", vocab}};
  o.outputFolder = dir / name;
  o.dbPath = "-";
  o.arch = "sn40l";
  o.args = o.toArgs();
  return o;
}

pef::Pef decodeStep(const test::ScratchDir& dir, const std::string& name, int64_t vocab = 256,
                    partition::OptLevel level = partition::OptLevel::O3) {
  auto p = driver::compileToPlan(decodeCompile(dir, name, vocab, level));
  if (!p) FAIL(p.error().message());
  return std::move(*p);
}

estimate::EstimateOptions decodeOptions(int chips, int tokens = 1) {
  estimate::EstimateOptions o;
  o.chips = chips;
  o.decode = true;
  o.tokensPerStep = tokens;
  return o;
}

double sum(const estimate::StepEstimate& e, double estimate::SectionCost::*field) {
  return std::accumulate(e.sections.begin(), e.sections.end(), 0.0,
                         [&](double a, const estimate::SectionCost& c) { return a + c.*field; });
}

}  // namespace

TEST_CASE("a verification step of T tokens does T tokens' arithmetic but reads weights and cache once") {
  test::ScratchDir dir("spec-verify");
  const pef::Pef p = decodeStep(dir, "step");
  auto arch = arch::loadArch("sn40l");
  REQUIRE(arch);
  auto one = estimate::estimateStep(p.graph, p.plan, true, 1, *arch, decodeOptions(2, 1));
  auto five = estimate::estimateStep(p.graph, p.plan, true, 1, *arch, decodeOptions(2, 5));
  REQUIRE(one);
  REQUIRE(five);
  CHECK(sum(*five, &estimate::SectionCost::flop) == Approx(5 * sum(*one, &estimate::SectionCost::flop)));
  CHECK(sum(*five, &estimate::SectionCost::linkBytes) == Approx(5 * sum(*one, &estimate::SectionCost::linkBytes)));
  CHECK(five->residentBytes[H] == one->residentBytes[H]);
  // HBM traffic: the resident bytes once, only the activations five times over.
  double hbm1 = 0, hbm5 = 0;
  for (const auto& c : one->sections) hbm1 += c.tierBytes[H];
  for (const auto& c : five->sections) hbm5 += c.tierBytes[H];
  CHECK(hbm5 > hbm1);
  CHECK(hbm5 < 1.5 * hbm1);
  CHECK(five->stepUs < 5 * one->stepUs);
  CHECK(five->tokensPerStep == 5);
  // Only a decode step verifies several tokens.
  auto plain = decodeOptions(1, 3);
  plain.decode = false;
  auto refused = estimate::estimateStep(p.graph, p.plan, true, 1, *arch, plain);
  REQUIRE_FALSE(refused);
  CHECK_THAT(refused.error().message(), Catch::Contains("not a decode step"));
}

TEST_CASE("one call per layer: between the whole-step pipeline and a call per section") {
  test::ScratchDir dir("spec-layer");
  const pef::Pef p = decodeStep(dir, "step", 256, partition::OptLevel::O0);  // a section per operator
  auto arch = arch::loadArch("sn40l");
  REQUIRE(arch);
  auto with = [&](estimate::Fusion f) {
    auto o = decodeOptions(4);
    o.fusion = f;
    auto e = estimate::estimateStep(p.graph, p.plan, true, 1, *arch, o);
    if (!e) FAIL(e.error().message());
    return *e;
  };
  const auto block = with(estimate::Fusion::Block), layer = with(estimate::Fusion::Layer),
             section = with(estimate::Fusion::Section);
  CHECK(block.calls == 1);
  CHECK(section.calls == static_cast<int>(section.sections.size()));
  // llama-tiny has 2 layers: at least their 2 calls plus the embedding's and the head's.
  CHECK(layer.calls >= 4);
  CHECK(layer.calls < section.calls);
  CHECK(block.stepUs < layer.stepUs);
  CHECK(layer.stepUs < section.stepUs);
  CHECK(layer.overheadUs == Approx(layer.calls * 5.0));
  CHECK(std::string(estimate::fusionName(estimate::Fusion::Layer)) == "layer");
  CHECK(estimate::fusionFromName("layer") == estimate::Fusion::Layer);
  CHECK_FALSE(estimate::fusionFromName("Layer"));
}

TEST_CASE("speculative decoding: tokens per cycle, the fastest draft length, both models resident") {
  CHECK(estimate::expectedTokensPerCycle(0, 4) == 1);
  CHECK(estimate::expectedTokensPerCycle(1, 4) == 5);
  CHECK(estimate::expectedTokensPerCycle(0.5, 2) == Approx(1.75));
  CHECK(estimate::expectedTokensPerCycle(0.8, 5) == Approx((1 - std::pow(0.8, 6)) / 0.2));

  test::ScratchDir dir("spec-pair");
  const pef::Pef target = decodeStep(dir, "target"), draft = decodeStep(dir, "draft");
  auto arch = arch::loadArch("sn40l");
  REQUIRE(arch);
  const auto opts = decodeOptions(2);
  auto s = estimate::estimateSpeculative({target.graph, target.plan, 1}, {draft.graph, draft.plan, 1}, *arch, opts,
                                         {0.9, 0});
  if (!s) FAIL(s.error().message());
  REQUIRE(s->sweep.size() == static_cast<size_t>(estimate::kMaxDraftTokens));
  CHECK(s->chosen);
  for (const auto& p : s->sweep) CHECK(p.throughput <= s->throughput);
  const auto& best = s->sweep[static_cast<size_t>(s->draftTokens - 1)];
  CHECK(best.throughput == s->throughput);
  CHECK(s->cycleUs == Approx(s->draftTokens * s->draft.stepUs + s->verify.stepUs));
  CHECK(s->throughput == Approx(s->tokensPerCycle / (s->cycleUs * 1e-6)));
  CHECK(s->verify.tokensPerStep == s->draftTokens + 1);
  // The target shares the chips' HBM with the draft.
  CHECK(s->target.residentBytes[H] == Approx(2 * s->draft.residentBytes[H]));
  // A draft as large as the target never pays at acceptance 0: every cycle yields one token.
  auto none = estimate::estimateSpeculative({target.graph, target.plan, 1}, {draft.graph, draft.plan, 1}, *arch, opts,
                                            {0.0, 3});
  REQUIRE(none);
  CHECK(none->draftTokens == 3);
  CHECK_FALSE(none->chosen);
  CHECK(none->tokensPerCycle == 1);
  CHECK(none->throughput < none->target.throughput);
}

TEST_CASE("speculative decoding refuses a draft with another vocabulary and bad numbers") {
  test::ScratchDir dir("spec-bad");
  const pef::Pef target = decodeStep(dir, "target"), other = decodeStep(dir, "other", 300);
  auto arch = arch::loadArch("sn40l");
  REQUIRE(arch);
  const auto opts = decodeOptions(1);
  auto vocab = estimate::estimateSpeculative({target.graph, target.plan, 1}, {other.graph, other.plan, 1}, *arch, opts,
                                             {0.8, 0});
  REQUIRE_FALSE(vocab);
  CHECK_THAT(vocab.error().message(), Catch::Contains("vocabulary (300 tokens) differs from the target's (256)"));
  auto alpha = estimate::estimateSpeculative({target.graph, target.plan, 1}, {target.graph, target.plan, 1}, *arch,
                                             opts, {1.5, 0});
  REQUIRE_FALSE(alpha);
  CHECK_THAT(alpha.error().message(), Catch::StartsWith("--acceptance"));
  auto k = estimate::estimateSpeculative({target.graph, target.plan, 1}, {target.graph, target.plan, 1}, *arch, opts,
                                         {0.5, 17});
  REQUIRE_FALSE(k);
  CHECK_THAT(k.error().message(), Catch::StartsWith("--draft-tokens"));
}

TEST_CASE("dfc estimate --draft-pef: the speculative breakdown, and its flags refused alone or out of range") {
  test::ScratchDir dir("spec-cli");
  auto compiled = driver::compile(decodeCompile(dir, "target"));
  if (!compiled) FAIL(compiled.error().message());
  const std::string target = compiled->pefPath;
  auto r = test::runDfc("estimate " + target + " --draft-pef " + target + " --acceptance 0.8 --n-chips 2");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains("speculative decoding: acceptance 0.8"));
  CHECK_THAT(r.output, Catch::Contains("(the best of 1..16)"));
  CHECK_THAT(r.output, Catch::Contains("draft tokens: 1: "));
  auto json =
      test::runDfc("estimate " + target + " --draft-pef " + target + " --acceptance 0.8 --draft-tokens 3 --json");
  REQUIRE(json.status == 0);
  CHECK_THAT(json.output, Catch::Contains("\"draft_tokens\":3"));
  CHECK_THAT(json.output, Catch::Contains("\"chosen\":false"));
  // A step compiled for 4 tokens a sequence counts them; the speculative estimate wants one-token steps.
  auto options = decodeCompile(dir, "four");
  options.decodeTokens = 4;
  options.args = options.toArgs();
  auto four = driver::compile(options);
  if (!four) FAIL(four.error().message());
  auto fourText = test::runDfc("estimate " + four->pefPath);
  CHECK(fourText.status == 0);
  CHECK_THAT(fourText.output, Catch::Contains("(batch 1, 4 tokens a step)"));
  auto fourSpec = test::runDfc("estimate " + four->pefPath + " --draft-pef " + target + " --acceptance 0.5");
  CHECK(fourSpec.status == 2);
  CHECK_THAT(fourSpec.output, Catch::Contains("takes several tokens a step (--decode-tokens)"));
  auto layer = test::runDfc("estimate " + target + " --fusion layer");
  CHECK(layer.status == 0);
  CHECK_THAT(layer.output, Catch::Contains("fusion: layer"));
  for (const std::string& bad : std::vector<std::string>{
           "--acceptance 0.5", "--draft-tokens 2", "--draft-pef " + target, "--draft-pef " + target + " --acceptance 2",
           "--draft-pef " + target + " --acceptance 0.5 --draft-tokens 0",
           "--draft-pef /nonexistent.pef --acceptance 0.5"}) {
    auto b = test::runDfc("estimate " + target + " " + bad);
    INFO(bad << ": " << b.output);
    CHECK(b.status == 2);
    CHECK_THAT(b.output, Catch::StartsWith("dfc: error: "));
  }
}
