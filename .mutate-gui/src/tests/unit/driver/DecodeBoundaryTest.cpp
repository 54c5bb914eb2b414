// Decode at its boundaries (driver/decode/DecodeStep.h): a KV cache filled to its
// last row, one token and two tokens a step, every step's logits those of
// the prefill graph over the same tokens, and the step past the cache
// refused naming its positions; the next token the lowest id of tied
// maxima; byte tokens from exactly 256 tokens of vocabulary.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>

#include "DecodeTestUtil.h"
#include "driver/decode/DecodeStep.h"

using namespace dfc;

namespace {

constexpr int64_t kCache = 8;
const std::vector<int64_t> kTokens = {72, 101, 108, 108, 111, 44, 32, 119};  // 8 tokens: the cache exactly

runtime::Executor executorFor(const pef::Pef& pef) {
  runtime::ExecutorOptions options;
  options.threads = 1;
  auto exec = runtime::Executor::create(pef.graph, pef.plan, options);
  if (!exec) FAIL(exec.error().message());
  return std::move(*exec);
}

// The prefill graph's logits at every position of `tokens`.
std::vector<std::vector<float>> prefillLogits(const pef::Pef& pef, const std::vector<int64_t>& tokens) {
  runtime::Executor exec = executorFor(pef);
  const ir::ValueId ids = pef.graph.findValue(pef.meta.imageInput), logits = pef.graph.findValue(pef.meta.logitsOutput);
  ir::Tensor in(pef.graph.value(ids).type);
  std::copy(tokens.begin(), tokens.end(), in.data<int64_t>());
  REQUIRE(exec.setInput(ids, in).ok());
  REQUIRE(exec.step(true).ok());
  const int64_t vocab = pef.graph.value(logits).type.shape[2];
  std::vector<std::vector<float>> out;
  for (size_t t = 0; t < tokens.size(); ++t) {
    const float* row = exec.tensor(logits).data<float>() + static_cast<int64_t>(t) * vocab;
    out.emplace_back(row, row + vocab);
  }
  return out;
}

double largestDifference(std::span<const float> got, const std::vector<float>& want) {
  double worst = 0;
  for (size_t v = 0; v < want.size(); ++v) worst = std::max(worst, static_cast<double>(std::abs(got[v] - want[v])));
  return worst;
}

}  // namespace

TEST_CASE("decode boundaries: a cache filled to its last row, one and two tokens a step, equals prefill", "[decode][boundary]") {
  test::ScratchDir dir("decode-full");
  const pef::Pef prefill = test::compileDecoderPef(dir, "llama-tiny", 0, kCache);
  const auto want = prefillLogits(prefill, kTokens);
  for (int64_t perStep : {1, 2}) {
    INFO(perStep << " token(s) a step");
    const pef::Pef decode = test::compileDecoderPef(dir, "llama-tiny", kCache, 0, perStep);
    auto sig = driver::decodeSignature(decode, "decode");
    REQUIRE(sig.ok());
    REQUIRE(sig->cacheLen == kCache);
    REQUIRE(sig->tokensPerStep == perStep);
    runtime::Executor exec = executorFor(decode);
    for (int64_t pos = 0; pos + perStep <= kCache; pos += perStep) {
      const std::vector<int64_t> step(kTokens.begin() + pos, kTokens.begin() + pos + perStep);
      REQUIRE(driver::runDecodeStep(exec, *sig, step, pos).ok());
      for (int64_t t = 0; t < perStep; ++t) {
        INFO("position " << pos + t);
        CHECK(largestDifference(driver::decodeLogits(exec, *sig, 0, t), want[static_cast<size_t>(pos + t)]) < 1e-4);
      }
      // The default token is the step's last.
      CHECK(driver::decodeLogits(exec, *sig, 0).data() == driver::decodeLogits(exec, *sig, 0, perStep - 1).data());
    }
    // One row past the cache: refused, naming the positions and the cache.
    const std::vector<int64_t> more(static_cast<size_t>(perStep), 1);
    const int64_t past = kCache - perStep + 1;
    auto refused = driver::runDecodeStep(exec, *sig, more, past);
    REQUIRE_FALSE(refused.ok());
    CHECK_THAT(refused.error().message(), Catch::Contains("positions " + std::to_string(past)) &&
                                              Catch::Contains("outside the KV cache of 8 rows"));
    CHECK_FALSE(driver::runDecodeStep(exec, *sig, more, -1).ok());
    // The wrong number of tokens.
    const std::vector<int64_t> wrong(static_cast<size_t>(perStep + 1), 1);
    CHECK_FALSE(driver::feedDecodeStep(exec, *sig, wrong, 0).ok());
  }
}

TEST_CASE("decode boundaries: the next token is the lowest id among tied maxima, byte tokens need 256", "[decode][boundary]") {
  std::mt19937_64 rng(1);
  const std::vector<float> tied{1.0f, 3.0f, 3.0f, 2.0f, 3.0f};
  CHECK(driver::pickToken(tied, 0, rng) == 1);
  const std::vector<float> last{0.0f, 0.0f, 0.0f, 5.0f};
  CHECK(driver::pickToken(last, 0, rng) == 3);
  const std::vector<float> first{5.0f, 0.0f, 0.0f};
  CHECK(driver::pickToken(first, 0, rng) == 0);
  // A temperature draws; a logit far above the others is drawn every time.
  const float low = -1e4f;
  const std::vector<float> sure{low, low, 0.0f, low};
  for (int i = 0; i < 20; ++i) CHECK(driver::pickToken(sure, 1.0, rng) == 2);
  // Equal logits at a temperature: every id comes up.
  std::vector<int> seen(4, 0);
  const std::vector<float> flat(4, 0.0f);
  for (int i = 0; i < 400; ++i) ++seen[static_cast<size_t>(driver::pickToken(flat, 0.7, rng))];
  for (int n : seen) CHECK(n > 40);
  auto bytes = driver::byteTokens("A\xff", 256);
  REQUIRE(bytes.ok());
  CHECK(*bytes == std::vector<int64_t>{65, 255});
  CHECK_FALSE(driver::byteTokens("A", 255).ok());
  CHECK(driver::bytesText(std::vector<int64_t>{72, 105, 10, 255}) .find("Hi") == 0);
}
