// A decode step of T tokens (dfc compile --decode-tokens T) computes what T
// one-token steps compute: fed a prompt T tokens at a time (the last chunk
// padded), its logits at every real position agree with the one-token step's
// on every zoo decoder family; bad T values are refused naming the flag.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "DecodeTestUtil.h"
#include "driver/decode/DecodeStep.h"

using namespace dfc;

namespace {

const std::vector<int64_t> kPrompt = {72, 101, 108, 108, 111, 44, 32, 119};  // "Hello, w"

runtime::Executor executorFor(const pef::Pef& pef) {
  runtime::ExecutorOptions options;
  options.threads = 1;
  auto exec = runtime::Executor::create(pef.graph, pef.plan, options);
  if (!exec) FAIL(exec.error().message());
  return std::move(*exec);
}

void checkChunksMatchTokens(const std::string& model, int64_t t) {
  test::ScratchDir dir("decode-tokens-" + model);
  const pef::Pef one = test::compileDecoderPef(dir, model, 32, 0, 1), many = test::compileDecoderPef(dir, model, 32, 0, t);
  auto sigOne = driver::decodeSignature(one, "one"), sigMany = driver::decodeSignature(many, "many");
  REQUIRE(sigOne.ok());
  REQUIRE(sigMany.ok());
  CHECK(sigMany->tokensPerStep == t);
  runtime::Executor execOne = executorFor(one), execMany = executorFor(many);
  std::vector<std::vector<float>> want;
  for (size_t p = 0; p < kPrompt.size(); ++p) {
    REQUIRE(driver::runDecodeStep(execOne, *sigOne, std::vector<int64_t>{kPrompt[p]}, static_cast<int64_t>(p)).ok());
    const auto row = driver::decodeLogits(execOne, *sigOne, 0);
    want.emplace_back(row.begin(), row.end());
  }
  double worst = 0;
  for (size_t c0 = 0; c0 < kPrompt.size(); c0 += static_cast<size_t>(t)) {
    std::vector<int64_t> chunk(static_cast<size_t>(t), kPrompt.back());  // padding past the prompt's end
    for (size_t i = 0; i < chunk.size() && c0 + i < kPrompt.size(); ++i) chunk[i] = kPrompt[c0 + i];
    REQUIRE(driver::runDecodeStep(execMany, *sigMany, chunk, static_cast<int64_t>(c0)).ok());
    for (int64_t i = 0; i < t && c0 + static_cast<size_t>(i) < kPrompt.size(); ++i) {
      const auto got = driver::decodeLogits(execMany, *sigMany, 0, i);
      const std::vector<float>& expected = want[c0 + static_cast<size_t>(i)];
      for (size_t v = 0; v < expected.size(); ++v)
        worst = std::max(worst, static_cast<double>(std::abs(got[v] - expected[v])));
    }
  }
  INFO(model << " T=" << t << ": largest logit difference " << worst);
  CHECK(worst < 1e-4);
}

}  // namespace

TEST_CASE("a 3-token decode step equals three one-token steps on every decoder family", "[decode]") {
  for (const char* model : {"llama-tiny", "gpt2-mini", "bloom-tiny", "neox-tiny"}) checkChunksMatchTokens(model, 3);
}

TEST_CASE("dfc compile --decode-tokens is refused out of range or without --decode", "[decode]") {
  driver::CompileOptions o;
  o.model = "llama-tiny";
  o.inference = true;
  o.decode = true;
  o.kvCacheLen = 8;
  o.batchSize = 1;
  o.dbPath = "-";
  o.decodeTokens = 0;
  auto zero = driver::compile(o);
  REQUIRE_FALSE(zero);
  CHECK_THAT(zero.error().message(), Catch::StartsWith("--decode-tokens 0: must be 1..64"));
  o.decodeTokens = 9;  // more tokens than cache rows
  test::ScratchDir dir("decode-tokens-bad");
  o.outputFolder = dir / "out";
  auto tooMany = driver::compile(o);
  REQUIRE_FALSE(tooMany);
  CHECK_THAT(tooMany.error().message(), Catch::Contains("--decode-tokens 9: must be 1..8"));
  o.decode = false;
  o.kvCacheLen = 0;
  o.decodeTokens = 2;
  auto noDecode = driver::compile(o);
  REQUIRE_FALSE(noDecode);
  CHECK_THAT(noDecode.error().message(), Catch::StartsWith("--decode-tokens needs --decode"));
}
