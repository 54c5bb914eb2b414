#include "DecodeFlags.h"

#include <cstdio>

#include "Commands.h"

namespace dfc::cli {
namespace {

// "1,2,3" -> {1, 2, 3}; the error names the flag and the bad item.
Expected<std::vector<int64_t>> parseTokenList(const std::string& flag, const std::string& text) {
  std::vector<int64_t> tokens;
  size_t from = 0;
  while (from <= text.size()) {
    const size_t comma = std::min(text.find(',', from), text.size());
    auto v = parseInt(flag, text.substr(from, comma - from));
    if (!v) return v.error();
    tokens.push_back(*v);
    from = comma + 1;
  }
  return tokens;
}

constexpr const char* kDecodeOnly[] = {"--prompt", "--prompt-tokens", "--max-new-tokens", "--temperature", "--draft-pef"};

}  // namespace

void addDecodeRunFlags(ArgParser& p) {
  p.add({{"--decode"}, "", 0,
         "generate tokens with a decode PEF (dfc compile --inference --decode): the prompt runs token by token "
         "through the step (prefill), then --max-new-tokens tokens are picked and fed back; prints the ids (and the "
         "text for byte-level vocabularies); the trace shows prefill and each decode step"});
  p.add({{"--prompt"}, "TEXT", 1, "--decode: the prompt as text, one token per byte (vocabularies of 256 or more)"});
  p.add({{"--prompt-tokens"}, "ID,ID,...", 1, "--decode: the prompt as token ids"});
  p.add({{"--max-new-tokens"}, "K", 1, "--decode: tokens to generate (default 16)"});
  p.add({{"--temperature"}, "T", 1,
         "--decode: 0 picks the most likely token (greedy, the default); T > 0 samples from softmax(logits / T) "
         "with --seed"});
  p.add({{"--seed"}, "N", 1, "--decode: the sampling seed; --input NAME=random: the data's seed (default 1)"});
  p.add({{"--draft-pef"}, "FILE", 1,
         "--decode: greedy speculative decoding: this one-token decode step drafts K tokens a cycle and the --pef, "
         "compiled with --decode-tokens K+1, checks them in one step; the text is the --pef's own greedy decode; "
         "prints the acceptance (sampling with --temperature is not built)"});
}

Status decodeOptionsFrom(const ArgParser& p, driver::RunOptions& o) {
  o.decode = p.has("--decode");
  for (const char* flag : kDecodeOnly)
    if (p.has(flag) && !o.decode) return makeError(std::string(flag) + " needs --decode");
  if (p.has("--seed") && !o.decode && !p.has("--input"))
    return makeError("--seed needs --decode or --input NAME=random");
  if (!o.decode) return {};
  if (p.has("--inference") || p.has("--data-parallel") || p.has("--data-folder"))
    return makeError("--decode generates from a prompt: drop --inference, --data-parallel and --data-folder");
  o.promptText = p.get("--prompt");
  o.draftPefPath = p.get("--draft-pef");
  if (p.has("--prompt-tokens")) {
    auto tokens = parseTokenList("--prompt-tokens", p.get("--prompt-tokens"));
    if (!tokens) return tokens.error();
    o.promptTokens = std::move(*tokens);
  }
  if (p.has("--max-new-tokens")) {
    auto k = parseInt("--max-new-tokens", p.get("--max-new-tokens"));
    if (!k) return k.error();
    o.maxNewTokens = *k;
  }
  if (p.has("--temperature")) {
    auto t = parseDouble("--temperature", p.get("--temperature"));
    if (!t) return t.error();
    o.temperature = *t;
  }
  if (p.has("--seed")) {
    auto seed = parseInt("--seed", p.get("--seed"));
    if (!seed) return seed.error();
    if (*seed < 0) return makeError("--seed must be 0 or more");
    o.seed = static_cast<uint64_t>(*seed);
  }
  return {};
}

void printDecodeSummary(const driver::RunResult& r) {
  if (r.draftTokens > 0) {
    std::printf("Summary: speculative decoding, %lld draft tokens a verification: %lld verifications for %zu tokens, "
                "%lld of %lld drafts accepted (acceptance %.3f); prefill %.1f ms, %.1f tokens/s generating on the host "
                "(draft steps %.1f ms, verifications %.1f ms); estimated chip time %.1f us per verification\n",
                static_cast<long long>(r.draftTokens), static_cast<long long>(r.verifications),
                r.generated.empty() ? size_t{0} : r.generated.front().size(), static_cast<long long>(r.accepted),
                static_cast<long long>(r.drafted), r.acceptance(), r.prefillMs, r.tokensPerSecond, r.draftMs,
                r.verifyMs, r.estUsPerToken);
    return;
  }
  const size_t steps = r.promptTokens.size() + (r.generated.empty() ? 0 : r.generated.front().size()) - 1;
  std::printf("Summary: %zu decode steps (%zu prompt tokens through the step, KV cache of %lld rows): prefill %.1f ms, "
              "%.1f tokens/s generating on the host; estimated chip time %.1f us per token\n",
              steps, r.promptTokens.size(), static_cast<long long>(r.kvCacheLen), r.prefillMs, r.tokensPerSecond,
              r.estUsPerToken);
}

}  // namespace dfc::cli
