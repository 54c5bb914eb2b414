// Decode runs at the KV cache's length (driver/run/DecodeRun.cpp and
// SpeculativeRun.h): a plain decode may use every row (the prompt, then one
// per generated token but the last), a speculative one every row its last
// cycle writes (K more past its latest token); exactly full runs and writes
// the target's greedy text, one token more is refused naming the rows needed.
#include <catch2/catch.hpp>

#include "DecodeTestUtil.h"
#include "driver/run/Runner.h"

using namespace dfc;

namespace {

constexpr int64_t kCache = 16;  // the prompt "The " is 4 byte tokens

driver::RunOptions decodeRun(const std::string& pef, const std::string& draft, int64_t newTokens) {
  driver::RunOptions r;
  r.pefPath = pef;
  r.draftPefPath = draft;
  r.decode = true;
  r.promptText = "The ";
  r.maxNewTokens = newTokens;
  r.dbPath = "-";
  r.threads = 1;
  return r;
}

std::vector<int64_t> generated(const driver::RunOptions& o) {
  auto r = driver::run(o);
  if (!r) FAIL(r.error().message());
  REQUIRE(r->generated.size() == 1);
  return r->generated[0];
}

std::string refusal(const driver::RunOptions& o) {
  auto r = driver::run(o);
  REQUIRE_FALSE(r);
  return r.error().message();
}

}  // namespace

TEST_CASE("decode boundaries: a plain and a speculative run fill the KV cache exactly, one more token is refused", "[decode][speculative][boundary]") {
  test::ScratchDir dir("spec-full");
  const std::string target1 = test::compileDecoderFile(dir, "llama-tiny", kCache, 0);
  const std::string target4 = test::compileDecoderFile(dir, "llama-tiny", kCache, 0, "-", 4);
  const std::string other = test::compileDecoderFile(dir, "llama-tiny", kCache, 0, "-", 1, 7);
  // Plain: 4 + 13 - 1 = 16 rows.
  const auto plain = generated(decodeRun(target1, "", 13));
  CHECK(plain.size() == 13);
  CHECK_THAT(refusal(decodeRun(target1, "", 14)), Catch::Contains("needs 17 KV cache rows"));
  // Speculative, K = 3: 4 + 10 + 3 - 1 = 16 rows; any draft gives the target's text.
  for (const std::string& draft : {target1, other}) {
    for (int64_t n : {1, 2, 9, 10}) {
      INFO((draft == other ? "other draft, " : "same draft, ") << n << " new tokens");
      const auto spec = generated(decodeRun(target4, draft, n));
      CHECK(spec == std::vector<int64_t>(plain.begin(), plain.begin() + n));
    }
    CHECK_THAT(refusal(decodeRun(target4, draft, 11)), Catch::Contains("needs 17 KV cache rows"));
  }
}
