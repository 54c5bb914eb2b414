#include "driver/run/SpeculativeRun.h"

#include <algorithm>

#include "driver/decode/DecodeStep.h"
#include "driver/run/DecodeRun.h"
#include "driver/run/RunStages.h"

namespace dfc::driver {
namespace {

int64_t argmax(std::span<const float> logits) {
  return std::max_element(logits.begin(), logits.end()) - logits.begin();
}

// The draft as a one-token step of batch 1 over the target's vocabulary.
Status checkDraft(const RunState& s, const DecodeSignature& draft) {
  const std::string& path = s.opts.draftPefPath;
  if (draft.tokensPerStep != 1 || draft.batch != 1)
    return makeError("--draft-pef " + path + ": the draft must be a one-token decode step of batch 1, this one takes " +
                     std::to_string(draft.tokensPerStep) + " token(s) of " + std::to_string(draft.batch) +
                     " sequence(s)");
  if (draft.vocab != s.decode.vocab)
    return makeError("--draft-pef " + path + ": the draft's vocabulary (" + std::to_string(draft.vocab) +
                     " tokens) differs from the target's (" + std::to_string(s.decode.vocab) + ")");
  return {};
}

// A cycle writes K rows past its latest token: the prompt, the new tokens and K more.
Status checkRows(const RunState& s, const DecodeSignature& draft) {
  const int64_t k = s.decode.tokensPerStep - 1, prompt = static_cast<int64_t>(s.result.promptTokens.size());
  const int64_t n = s.opts.maxNewTokens;
  if (n < 1 || n > (int64_t{1} << 31)) return makeError("--max-new-tokens " + std::to_string(n) + ": expected at least 1");
  const int64_t rows = prompt + n + k - 1;
  for (const auto& [sig, path] : {std::pair{&s.decode, s.opts.pefPath}, std::pair{&draft, s.opts.draftPefPath}})
    if (rows > sig->cacheLen)
      return makeError("--max-new-tokens " + std::to_string(n) + " after a prompt of " + std::to_string(prompt) +
                       " tokens, " + std::to_string(k) + " draft tokens a cycle, needs " + std::to_string(rows) +
                       " KV cache rows; " + path + " has " + std::to_string(sig->cacheLen) +
                       " (recompile with a larger --kv-cache-len)");
  return {};
}

// One draft step (no section calls in the trace: they belong to the draft's PEF), timed as a top-row slice.
Expected<int64_t> draftStep(RunState& s, int64_t token, int64_t position) {
  const auto start = RunState::Clock::now();
  DFC_TRY(runDecodeStep(*s.draftExec, s.draftDecode, std::vector<int64_t>{token}, position));
  const double us = s.usSince(start);
  s.result.draftMs += us / 1e3;
  if (s.traced())
    s.trace->addStepSlice("draft step", s.usAt(start), us,
                          {{"position", static_cast<double>(position)}, {"token", static_cast<double>(token)},
                           {"est_latency_us", estimatedStepUs(s.draftPef)}, {"measured_us", us}});
  return argmax(decodeLogits(*s.draftExec, s.draftDecode, 0));
}

// The prompt but its last token through both models: the target T tokens a
// step (the last chunk padded with the prompt's last token: its rows lie
// where the first verification writes), the draft one at a time.
Status prefill(RunState& s) {
  const std::vector<int64_t>& prompt = s.result.promptTokens;
  const int64_t t = s.decode.tokensPerStep, known = static_cast<int64_t>(prompt.size()) - 1;
  for (int64_t c0 = 0; c0 < known; c0 += t) {
    if (s.cancelled()) return makeError("run cancelled");
    std::vector<int64_t> chunk(static_cast<size_t>(t), prompt.back());
    for (int64_t i = 0; i < t && c0 + i < known; ++i) chunk[static_cast<size_t>(i)] = prompt[static_cast<size_t>(c0 + i)];
    DFC_TRY(tracedDecodeStep(s, chunk, c0, "prefill chunk"));
  }
  for (int64_t p = 0; p < known; ++p)
    if (auto d = draftStep(s, prompt[static_cast<size_t>(p)], p); !d) return d.error();
  return {};
}

// One cycle from the latest token `x` at `position`: K drafts, one
// verification, the kept drafts and the target's next token appended to `out`.
Status cycle(RunState& s, int64_t x, int64_t position, std::vector<int64_t>& out) {
  const int64_t k = s.decode.tokensPerStep - 1;
  std::vector<int64_t> fed = {x};
  for (int64_t i = 0; i < k; ++i) {
    auto d = draftStep(s, fed.back(), position + i);
    if (!d) return d.error();
    fed.push_back(*d);
  }
  const auto start = RunState::Clock::now();
  DFC_TRY(tracedDecodeStep(s, fed, position, "verify step"));
  s.result.verifyMs += s.usSince(start) / 1e3;
  int64_t kept = 0;
  while (kept < k && argmax(decodeLogits(*s.exec, s.decode, 0, kept)) == fed[static_cast<size_t>(kept + 1)]) ++kept;
  out.insert(out.end(), fed.begin() + 1, fed.begin() + 1 + kept);
  out.push_back(argmax(decodeLogits(*s.exec, s.decode, 0, kept)));
  if (kept == k)  // every draft kept: the draft has not yet seen its last one
    if (auto d = draftStep(s, fed.back(), position + k); !d) return d.error();
  s.result.drafted += k;
  s.result.accepted += kept;
  s.result.rejected += kept < k;
  ++s.result.verifications;
  return {};
}

}  // namespace

Status prepareSpeculative(RunState& s) {
  const RunOptions& o = s.opts;
  if (s.decode.tokensPerStep < 2)
    return makeError("--draft-pef: " + o.pefPath + " takes one token a step; the target of speculative decoding checks "
                     "K draft tokens a step: compile it with --decode-tokens K+1");
  if (o.temperature != 0) return makeError("--draft-pef: speculative decoding runs greedy here; drop --temperature");
  if (s.decode.batch != 1)
    return makeError("--draft-pef: speculative decoding takes batch 1; " + o.pefPath + " has batch " +
                     std::to_string(s.decode.batch));
  auto draft = pef::readPef(o.draftPefPath);
  if (!draft) return draft.error().withContext("--draft-pef");
  auto sig = decodeSignature(*draft, o.draftPefPath);
  if (!sig) return sig.error().withContext("--draft-pef");
  DFC_TRY(checkDraft(s, *sig));
  DFC_TRY(checkRows(s, *sig));
  runtime::ExecutorOptions options;
  options.threads = s.exec->threads();
  options.convAlgo = o.convAlgo;
  options.splitWidth = s.result.splitWidth;
  auto exec = runtime::Executor::create(draft->graph, draft->plan, options);
  if (!exec) return exec.error().withContext(o.draftPefPath);
  s.draftPef = std::move(*draft);
  s.draftDecode = *sig;
  s.draftExec.emplace(std::move(*exec));
  s.result.draftTokens = s.decode.tokensPerStep - 1;
  return {};
}

Status speculativeStage(RunState& s) {
  RunResult& r = s.result;
  const auto prefillStart = RunState::Clock::now();
  DFC_TRY(prefill(s));
  r.prefillMs = s.usSince(prefillStart) / 1e3;
  s.trace->addStepSlice("prefill", s.usAt(prefillStart), r.prefillMs * 1e3,
                        {{"tokens", static_cast<double>(r.promptTokens.size())}});
  r.draftMs = 0;
  r.generated.assign(1, {});
  std::vector<int64_t>& out = r.generated.front();
  const auto decodeStart = RunState::Clock::now();
  int64_t position = static_cast<int64_t>(r.promptTokens.size()) - 1;
  while (static_cast<int64_t>(out.size()) < s.opts.maxNewTokens) {
    if (s.cancelled()) return makeError("run cancelled");
    const int64_t x = out.empty() ? r.promptTokens.back() : out.back();
    const size_t before = out.size();
    DFC_TRY(cycle(s, x, position, out));
    position += static_cast<int64_t>(out.size() - before);
  }
  out.resize(static_cast<size_t>(s.opts.maxNewTokens));
  r.decodeMs = s.usSince(decodeStart) / 1e3;
  r.tokensPerSecond = r.decodeMs > 0 ? static_cast<double>(out.size()) / (r.decodeMs / 1e3) : 0.0;
  r.estUsPerToken = estimatedStepUs(s.pef);
  r.evalSteps = s.step;
  reportDecodeTokens(s);
  const double rate = r.acceptance();
  const double perVerification =
      r.verifications > 0 ? static_cast<double>(out.size()) / static_cast<double>(r.verifications) : 0.0;
  s.say("Speculative: " + std::to_string(r.draftTokens) + " draft tokens a verification, " + std::to_string(r.accepted) +
        " of " + std::to_string(r.drafted) + " accepted, " + std::to_string(r.rejected) + " rejected (acceptance " +
        std::to_string(rate).substr(0, 5) + " per checked draft, as dfc estimate --acceptance takes it), " +
        std::to_string(r.verifications) + " verifications, " + std::to_string(perVerification).substr(0, 5) +
        " tokens each");
  s.pendingMetrics.push_back({s.step, 0, "prefill_ms", r.prefillMs});
  s.pendingMetrics.push_back({s.step, 0, "decode_tokens_per_s", r.tokensPerSecond});
  s.pendingMetrics.push_back({s.step, 0, "acceptance_rate", rate});
  s.pendingMetrics.push_back({s.step, 0, "tokens_per_verification", perVerification});
  return s.flush();
}

}  // namespace dfc::driver
