// Decode equals prefill on the host (issue 18): a zoo decoder compiled as a
// decode step with a KV cache generates, greedily, the same 32 tokens as
// running the whole growing sequence through the ordinary --inference graph
// and taking the argmax of its last position, with logits that agree to float
// tolerance at every step.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>

#include "DecodeTestUtil.h"
#include "driver/decode/DecodeStep.h"
#include "ir/KvCache.h"

using namespace dfc;

namespace {

constexpr int64_t kSteps = 32;
const std::vector<int64_t> kPrompt = {72, 101, 108, 108, 111};  // "Hello"

pef::Pef compileDecoder(const test::ScratchDir& dir, const std::string& model, int64_t cacheLen) {
  // The prefill graph takes the longest sequence the test feeds it.
  return test::compileDecoderPef(dir, model, cacheLen, static_cast<int64_t>(kPrompt.size()) + kSteps);
}

runtime::Executor executorFor(const pef::Pef& pef) {
  runtime::ExecutorOptions options;
  options.threads = 1;  // one BLAS thread: the same rounding in both graphs on any machine
  auto exec = runtime::Executor::create(pef.graph, pef.plan, options);
  if (!exec) FAIL(exec.error().message());
  return std::move(*exec);
}

// The prefill graph's logits for the last of `tokens` (the rest of its sequence is padding the causal mask hides).
std::vector<float> prefillLogits(runtime::Executor& exec, const pef::Pef& pef, const std::vector<int64_t>& tokens) {
  const ir::ValueId ids = pef.graph.findValue(pef.meta.imageInput), logits = pef.graph.findValue(pef.meta.logitsOutput);
  ir::Tensor in(pef.graph.value(ids).type);
  std::copy(tokens.begin(), tokens.end(), in.data<int64_t>());
  REQUIRE(exec.setInput(ids, in).ok());
  REQUIRE(exec.step(true).ok());
  const int64_t vocab = pef.graph.value(logits).type.shape[2];
  const float* row = exec.tensor(logits).data<float>() + (static_cast<int64_t>(tokens.size()) - 1) * vocab;
  return {row, row + vocab};
}

int64_t argmax(std::span<const float> v) { return std::max_element(v.begin(), v.end()) - v.begin(); }

// The prompt through the decode step, then kSteps greedy tokens, each checked against the prefill graph.
void checkDecodeEqualsPrefill(const std::string& model) {
  test::ScratchDir dir("decode-" + model);
  const pef::Pef prefill = compileDecoder(dir, model, 0);
  const pef::Pef decode = compileDecoder(dir, model, 64);
  auto sig = driver::decodeSignature(decode, model);
  REQUIRE(sig.ok());
  runtime::Executor prefillExec = executorFor(prefill), decodeExec = executorFor(decode);

  std::vector<int64_t> tokens, generated, expected;
  double worst = 0;
  for (int64_t step = 0; step < static_cast<int64_t>(kPrompt.size()) + kSteps - 1; ++step) {
    const int64_t token = step < static_cast<int64_t>(kPrompt.size()) ? kPrompt[static_cast<size_t>(step)] : generated.back();
    tokens.push_back(token);
    REQUIRE(driver::runDecodeStep(decodeExec, *sig, std::vector<int64_t>{token}, step).ok());
    if (step + 1 < static_cast<int64_t>(kPrompt.size())) continue;
    const std::span<const float> got = driver::decodeLogits(decodeExec, *sig, 0);
    const std::vector<float> want = prefillLogits(prefillExec, prefill, tokens);
    for (size_t v = 0; v < want.size(); ++v) worst = std::max(worst, static_cast<double>(std::abs(got[v] - want[v])));
    generated.push_back(argmax(got));
    expected.push_back(argmax(want));
  }
  INFO(model << ": largest logit difference " << worst);
  CHECK(generated.size() == static_cast<size_t>(kSteps));
  CHECK(generated == expected);
  CHECK(worst < 1e-4);
}

}  // namespace

TEST_CASE("decode equals prefill: llama-tiny, 32 greedy steps", "[decode]") { checkDecodeEqualsPrefill("llama-tiny"); }
TEST_CASE("decode equals prefill: gpt2-mini, 32 greedy steps", "[decode]") { checkDecodeEqualsPrefill("gpt2-mini"); }
TEST_CASE("decode equals prefill: bloom-tiny, 32 greedy steps", "[decode]") { checkDecodeEqualsPrefill("bloom-tiny"); }
TEST_CASE("decode equals prefill: neox-tiny, 32 greedy steps", "[decode]") { checkDecodeEqualsPrefill("neox-tiny"); }

TEST_CASE("a decode PEF holds a K and a V cache per layer as its only state", "[decode]") {
  test::ScratchDir dir("decode-state");
  const pef::Pef pef = compileDecoder(dir, "llama-tiny", 48);
  const auto caches = ir::kvCacheValues(pef.graph);
  REQUIRE(caches.size() == 4);  // 2 layers x K and V
  CHECK(pef.graph.updates.size() == caches.size());
  for (ir::ValueId c : caches) {
    CHECK(pef.graph.value(c).type == ir::TensorType{ir::DType::F32, {1, 2, 48, 32}});  // [B, KVH, N, Dh]
    CHECK(pef.graph.initializers.at(c).isDeferred());  // zero-initialised, a recipe
  }
  CHECK(ir::kvCacheBytes(pef.graph) == 4 * 2 * 48 * 32 * 4);
  CHECK(pef.meta.kvCacheLen == 48);
  CHECK(pef.reportJson.find("\"kv_cache_len\":48") != std::string::npos);
}

TEST_CASE("decode compiles refuse bad combinations with one line naming the flag", "[decode]") {
  auto refuse = [](driver::CompileOptions o) {
    auto st = o.validate();
    REQUIRE_FALSE(st.ok());
    return st.error().message();
  };
  driver::CompileOptions o;
  o.model = "llama-tiny";
  o.decode = true;
  o.kvCacheLen = 16;
  CHECK_THAT(refuse(o), Catch::Contains("--inference"));
  o.inference = true;
  CHECK(o.validate().ok());
  o.kvCacheLen = 0;
  CHECK_THAT(refuse(o), Catch::Contains("--kv-cache-len"));
  o.kvCacheLen = 16;
  o.model = "bert";
  CHECK_THAT(refuse(o), Catch::Contains("not a decoder"));
  o.model = "llama-tiny";
  o.decode = false;
  CHECK_THAT(refuse(o), Catch::Contains("--kv-cache-len needs --decode"));
}

TEST_CASE("a decode PEF whose meta disagrees with its KV caches is refused on read", "[decode]") {
  test::ScratchDir dir("decode-meta");
  const pef::Pef good = compileDecoder(dir, "gpt2-mini", 16);
  auto readBack = [&](const std::function<void(pef::Pef&)>& mutate) {
    pef::Pef p = good;
    mutate(p);
    const std::string path = dir / "mutated.pef";
    REQUIRE(pef::writePef(p, path).ok());
    auto r = pef::readPef(path);
    return r ? std::string("<ok>") : r.error().message();
  };
  CHECK(readBack([](pef::Pef&) {}) == "<ok>");
  CHECK_THAT(readBack([](pef::Pef& p) { p.meta.kvCacheLen = 0; }), Catch::Contains("field 'kv_cache_len' is absent"));
  CHECK_THAT(readBack([](pef::Pef& p) { p.meta.positionInput = "input_ids"; }),
             Catch::Contains("field 'position_input' 'input_ids' is not an i64[1] graph input"));
  CHECK_THAT(readBack([](pef::Pef& p) { p.meta.inference = false; }), Catch::Contains("not for inference"));
}
