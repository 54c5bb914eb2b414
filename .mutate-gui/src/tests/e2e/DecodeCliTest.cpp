// dfc compile --decode and dfc run --decode as a user types them: the tokens
// and text printed, what inspect says, and bad combinations refused with one
// line naming the flag, exit status 2 and no PEF written.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "TestEnv.h"
#include "pef/Pef.h"

using namespace dfc;
using test::runDfc;

namespace {

// The last line of a command's output that starts with `prefix` ("" if none).
std::string lineStarting(const std::string& output, const std::string& prefix) {
  std::string found;
  size_t from = 0;
  while (from < output.size()) {
    const size_t end = std::min(output.find('\n', from), output.size());
    if (output.compare(from, prefix.size(), prefix) == 0) found = output.substr(from, end - from);
    from = end + 1;
  }
  return found;
}

}  // namespace

TEST_CASE("dfc compile --decode and dfc run --decode generate text from a prompt", "[decode]") {
  test::ScratchDir dir("decode-cli");
  const std::string out = dir / "dec";
  auto r = runDfc("compile --model gpt2-mini --inference --decode --kv-cache-len 24 -b 1 --pef-name dec --db - "
                  "--output-folder " + out);
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK(lineStarting(r.output, "Decode step") ==
        "Decode step (one token per sequence): KV cache of 24 rows, 24.0 KiB of K and V caches");
  const std::string pef = out + "/dec.pef";

  r = runDfc("inspect " + pef);
  CHECK(r.status == 0);
  CHECK_THAT(lineStarting(r.output, "model "), Catch::Contains("inference decode step (KV cache 24 rows)"));
  CHECK_THAT(lineStarting(r.output, "decode step:"), Catch::Contains("4 caches (K and V per layer)"));

  r = runDfc("run --pef " + pef + " --decode --prompt 'Hi' --max-new-tokens 6 --db - --trace " + (dir / "t.json"));
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK(lineStarting(r.output, "Prompt: ") == "Prompt: 2 tokens [72,105] \"Hi\"");
  CHECK_THAT(lineStarting(r.output, "Generated: "), Catch::StartsWith("Generated: 6 tokens ["));
  CHECK_THAT(lineStarting(r.output, "Summary: "), Catch::StartsWith("Summary: 7 decode steps (2 prompt tokens"));

  // Sampling with a seed repeats; greedy is the default.
  const std::string sample = "run --pef " + pef + " --decode --prompt-tokens 1,2 --max-new-tokens 8 --temperature 1.5 "
                             "--seed 9 --db - --trace " + (dir / "s.json");
  CHECK(lineStarting(runDfc(sample).output, "Generated: ") == lineStarting(runDfc(sample).output, "Generated: "));
}

TEST_CASE("decode flags refused with exit status 2, one line naming the flag, no PEF written", "[decode]") {
  test::ScratchDir dir("decode-cli-bad");
  const std::string out = dir / "bad";
  struct Case {
    std::string args, culprit;
  };
  const Case cases[] = {
      {"compile --model llama-tiny --decode --kv-cache-len 8", "--inference"},
      {"compile --model llama-tiny --inference --decode", "--kv-cache-len"},
      {"compile --model llama-tiny --inference --decode --kv-cache-len 0", "--kv-cache-len"},
      {"compile --model lenet --inference --decode --kv-cache-len 8", "not a decoder"},
      {"compile --model llama-tiny --inference --kv-cache-len 8", "--kv-cache-len needs --decode"},
      {"compile --model llama-tiny --inference --decode --kv-cache-len 8 --decode-tokens 9", "--decode-tokens 9"},
      {"compile --model llama-tiny --inference --decode-tokens 2", "--decode-tokens needs --decode"},
      {"compile --model llama-tiny -b 64 --inference --decode --kv-cache-len 2000000000 --max-memory 1G", "--kv-cache-len"},
  };
  for (const Case& c : cases) {
    auto r = runDfc(c.args + " --db - --output-folder " + out);
    INFO(c.args << "\n" << r.output);
    CHECK(r.status == 2);
    CHECK_THAT(r.output, Catch::Contains(c.culprit));
    CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
    CHECK_FALSE(std::filesystem::exists(out + "/llama-tiny.pef"));
  }
  auto r = runDfc("run --pef " + (dir / "x.pef") + " --prompt 'hi'");
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::Contains("--prompt needs --decode"));
  r = runDfc("run --pef " + (dir / "x.pef") + " --draft-pef " + (dir / "y.pef"));
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::Contains("--draft-pef needs --decode"));
}

TEST_CASE("dfc run --decode --draft-pef: a 4-token target checks a one-token draft's tokens, same text", "[decode]") {
  test::ScratchDir dir("decode-cli-spec");
  auto compile = [&](const std::string& name, const std::string& extra) {
    auto r = runDfc("compile --model llama-tiny --inference --decode --kv-cache-len 40 -b 1 --db - --pef-name " + name +
                    " --output-folder " + (dir / name) + " " + extra);
    INFO(r.output);
    REQUIRE(r.status == 0);
    return r.output;
  };
  CHECK(lineStarting(compile("target", "--decode-tokens 4"), "Decode step") ==
        "Decode step (4 tokens per sequence): KV cache of 40 rows, 40.0 KiB of K and V caches");
  compile("draft", "");
  const std::string target = (dir / "target") + "/target.pef", draft = (dir / "draft") + "/draft.pef";
  auto plain = runDfc("run --pef " + draft + " --decode --prompt 'Hi' --max-new-tokens 12 --db - --trace " +
                      (dir / "p.json"));
  auto spec = runDfc("run --pef " + target + " --draft-pef " + draft + " --decode --prompt 'Hi' --max-new-tokens 12 "
                     "--db - --trace " + (dir / "s.json"));
  INFO(spec.output);
  REQUIRE(spec.status == 0);
  // The draft is the target's own weights as a one-token step: the same text, every draft kept.
  CHECK(lineStarting(spec.output, "Generated: ") == lineStarting(plain.output, "Generated: "));
  CHECK_THAT(lineStarting(spec.output, "Summary: "),
             Catch::StartsWith("Summary: speculative decoding, 3 draft tokens a verification: 3 verifications for 12 "
                               "tokens, 9 of 9 drafts accepted (acceptance 1.000)"));
  auto alone = runDfc("run --pef " + target + " --decode --prompt 'Hi' --db -");
  CHECK(alone.status == 2);
  CHECK_THAT(alone.output, Catch::Contains("takes 4 tokens a step"));
}

TEST_CASE("a decode PEF whose kv_cache_len lies is refused by run --decode and estimate, exit status 2",
          "[decode][hostile]") {
  test::ScratchDir dir("decode-cli-lying-meta");
  const std::string out = dir / "dec";
  auto r = runDfc("compile --model llama-tiny --inference --decode --kv-cache-len 8 -b 1 --pef-name dec --db - "
                  "--output-folder " + out);
  REQUIRE(r.status == 0);
  auto good = pef::readPef(out + "/dec.pef");
  REQUIRE(good.ok());
  // 2^40 rows: the meta promised a cache the graph does not have (the run took
  // positions up to it); 0 and negative lengths leave the field out.
  for (int64_t len : {int64_t{1} << 40, int64_t{0}, int64_t{-1}}) {
    pef::Pef p = *good;
    p.meta.kvCacheLen = len;
    const std::string lying = dir / ("lying" + std::to_string(len) + ".pef");
    REQUIRE(pef::writePef(p, lying).ok());
    for (const std::string& command : {"run --pef " + lying + " --decode --prompt-tokens 1,2 --max-new-tokens 100 --db -",
                                       "estimate --pef " + lying}) {
      r = runDfc(command);
      INFO(command << "\n" << r.output);
      CHECK(r.status == 2);
      CHECK_THAT(r.output, Catch::Contains("kv_cache_len") && Catch::Contains(lying));
      CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
    }
  }
}
