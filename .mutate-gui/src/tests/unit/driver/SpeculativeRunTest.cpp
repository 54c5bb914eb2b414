// dfc run --decode --draft-pef: greedy speculative decoding writes exactly the
// target's own greedy text, whatever the draft; a draft with the target's
// weights has every draft accepted (K + 1 tokens a verification), another one
// fewer; the trace shows the draft and verify steps; what cannot work is
// refused naming the flag.
#include <catch2/catch.hpp>

#include "DecodeTestUtil.h"
#include "driver/run/Runner.h"
#include "profile/ChromeTrace.h"

using namespace dfc;

namespace {

constexpr int64_t kNew = 23;

struct Pefs {
  std::string target1, target4, sameDraft, otherDraft;
};

Pefs compileAll(const test::ScratchDir& dir, const std::string& model) {
  Pefs p;
  p.target1 = test::compileDecoderFile(dir, model, 48, 0);
  p.target4 = test::compileDecoderFile(dir, model, 48, 0, "-", 4);
  p.sameDraft = p.target1;  // the target's own weights as a one-token step
  p.otherDraft = test::compileDecoderFile(dir, model, 48, 0, "-", 1, 7);  // other weights (seed 7)
  return p;
}

driver::RunOptions decodeRun(const std::string& pef, const std::string& draft, const test::ScratchDir& dir) {
  driver::RunOptions r;
  r.pefPath = pef;
  r.draftPefPath = draft;
  r.decode = true;
  r.promptText = "The ";
  r.maxNewTokens = kNew;
  r.dbPath = "-";
  r.threads = 1;
  r.tracePath = dir / ("trace-" + std::to_string(std::hash<std::string>{}(pef + draft)) + ".json");
  return r;
}

driver::RunResult runOk(const driver::RunOptions& o) {
  auto r = driver::run(o);
  if (!r) FAIL(r.error().message());
  return *r;
}

}  // namespace

TEST_CASE("speculative decoding writes the target's greedy text, any draft", "[decode][speculative]") {
  for (const char* model : {"llama-tiny", "gpt2-mini"}) {
    INFO(model);
    test::ScratchDir dir(std::string("spec-run-") + model);
    const Pefs p = compileAll(dir, model);
    const auto plain = runOk(decodeRun(p.target1, "", dir));
    REQUIRE(plain.generated.size() == 1);
    REQUIRE(plain.generated[0].size() == static_cast<size_t>(kNew));

    const auto same = runOk(decodeRun(p.target4, p.sameDraft, dir));
    CHECK(same.generated == plain.generated);
    CHECK(same.draftTokens == 3);
    CHECK(same.accepted == same.drafted);  // the draft is the target: every draft kept
    CHECK(same.rejected == 0);
    CHECK(same.acceptance() == 1.0);
    CHECK(same.verifications == (kNew + 3) / 4);  // K + 1 = 4 tokens a verification

    const auto other = runOk(decodeRun(p.target4, p.otherDraft, dir));
    CHECK(other.generated == plain.generated);
    CHECK(other.accepted < other.drafted);
    CHECK(other.verifications > same.verifications);
    CHECK(other.verifications * 3 == other.drafted);
    // alpha counts the drafts the target checked: a verification checks its kept drafts and, unless it
    // kept all K, the one it rejected; drafts after a rejection are never checked
    CHECK(other.rejected <= other.verifications);
    CHECK(other.accepted >= 3 * (other.verifications - other.rejected));  // the cycles that kept all three
    CHECK(other.acceptance() >= static_cast<double>(other.accepted) / static_cast<double>(other.drafted));

    auto trace = profile::readChromeTrace(same.tracePath);
    REQUIRE(trace.ok());
    int drafts = 0, verifies = 0;
    for (const auto& e : trace->events) {
      drafts += e.name == "draft step";
      verifies += e.name == "verify step";
    }
    CHECK(verifies == same.verifications);
    CHECK(drafts >= 3 * same.verifications);
  }
}

TEST_CASE("speculative decoding refuses what cannot work, naming the flag", "[decode][speculative]") {
  test::ScratchDir dir("spec-run-bad");
  const Pefs p = compileAll(dir, "llama-tiny");
  const std::string otherVocab = [&] {
    driver::CompileOptions o;
    o.model = "llama-tiny";
    o.batchSize = 1;
    o.inference = o.decode = true;
    o.kvCacheLen = 48;
    o.modelParams = {{"vocab_size", 300}};
    o.pefName = "vocab300";
    o.outputFolder = dir / "vocab300";
    o.dbPath = "-";
    auto r = driver::compile(o);
    if (!r) FAIL(r.error().message());
    return r->pefPath;
  }();
  auto refused = [&](driver::RunOptions o) {
    auto r = driver::run(o);
    REQUIRE_FALSE(r);
    return r.error().message();
  };
  CHECK_THAT(refused(decodeRun(p.target4, "", dir)), Catch::Contains("takes 4 tokens a step"));
  CHECK_THAT(refused(decodeRun(p.target1, p.sameDraft, dir)), Catch::Contains("--decode-tokens K+1"));
  CHECK_THAT(refused(decodeRun(p.target4, p.target4, dir)), Catch::Contains("one-token decode step of batch 1"));
  CHECK_THAT(refused(decodeRun(p.target4, otherVocab, dir)), Catch::Contains("vocabulary (300 tokens)"));
  auto sampled = decodeRun(p.target4, p.sameDraft, dir);
  sampled.temperature = 0.7;
  CHECK_THAT(refused(sampled), Catch::Contains("drop --temperature"));
  auto tooLong = decodeRun(p.target4, p.sameDraft, dir);
  tooLong.maxNewTokens = 44;  // 4 prompt + 44 + 3 - 1 rows > 48
  CHECK_THAT(refused(tooLong), Catch::Contains("needs 50 KV cache rows"));
  auto missing = decodeRun(p.target4, dir / "none.pef", dir);
  CHECK_THAT(refused(missing), Catch::StartsWith("--draft-pef"));
}
