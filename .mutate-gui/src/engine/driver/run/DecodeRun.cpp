#include "driver/run/DecodeRun.h"

#include <spdlog/spdlog.h>

#include <cmath>
#include <random>

#include "driver/decode/DecodeStep.h"
#include "driver/run/RunStages.h"
#include "driver/run/SpeculativeRun.h"

namespace dfc::driver {
namespace {

// rows used: the prompt's P positions, then one per generated token but the last.
Status checkLength(const RunState& s, const DecodeSignature& sig, int64_t promptLen) {
  const int64_t k = s.opts.maxNewTokens;
  if (k < 1 || k > (int64_t{1} << 31)) return makeError("--max-new-tokens " + std::to_string(k) + ": expected at least 1");
  if (promptLen + k - 1 > sig.cacheLen)
    return makeError("--max-new-tokens " + std::to_string(k) + " after a prompt of " + std::to_string(promptLen) +
                     " tokens needs " + std::to_string(promptLen + k - 1) + " KV cache rows; " + s.opts.pefPath +
                     " has " + std::to_string(sig.cacheLen) + " (recompile with a larger --kv-cache-len)");
  return {};
}

Expected<std::vector<int64_t>> promptOf(const RunState& s, const DecodeSignature& sig) {
  const RunOptions& o = s.opts;
  if (o.promptTokens.empty() == o.promptText.empty())
    return makeError("--decode needs a prompt: --prompt TEXT or --prompt-tokens ID,ID,... (one of them)");
  if (!o.promptText.empty()) return byteTokens(o.promptText, sig.vocab);
  for (int64_t t : o.promptTokens)
    if (t < 0 || t >= sig.vocab)
      return makeError("--prompt-tokens: token " + std::to_string(t) + " is outside the vocabulary [0, " +
                       std::to_string(sig.vocab) + ")");
  return o.promptTokens;
}

}  // namespace

// Chip latency of one step: the schedule's section estimates.
double estimatedStepUs(const pef::Pef& pef) {
  double us = 0;
  for (int id : pef.plan.schedule) us += pef.plan.sections.at(static_cast<size_t>(id)).estimate.latencyUs;
  return us;
}

// One step of every sequence at `position`, as a slice on the top row around its section calls.
Status tracedDecodeStep(RunState& s, const std::vector<int64_t>& tokens, int64_t position, const char* name) {
  const auto start = RunState::Clock::now();
  const bool traced = s.traced();
  const int64_t index = s.step;
  DFC_TRY(feedDecodeStep(*s.exec, s.decode, tokens, position));
  s.hostPhase(host::kFeed, start);
  DFC_TRY(s.runStep(false));  // a full step: the state updates keep the caches' new rows
  const double us = s.usSince(start);
  s.trace->addHostPhase(host::kStep, s.usAt(start), us, traced, s.stepArgs(index));
  if (traced)
    s.trace->addStepSlice(name, s.usAt(start), us,
                          {{"step", static_cast<double>(index)},
                           {"position", static_cast<double>(position)},
                           {"token", static_cast<double>(tokens.front())},
                           {"est_latency_us", estimatedStepUs(s.pef)},
                           {"measured_us", us}});
  return {};
}

namespace {

// Each sequence's next token from the step's logits.
std::vector<int64_t> pickAll(const RunState& s, std::mt19937_64& rng) {
  std::vector<int64_t> next;
  for (int64_t b = 0; b < s.decode.batch; ++b)
    next.push_back(pickToken(decodeLogits(*s.exec, s.decode, b), s.opts.temperature, rng));
  return next;
}

}  // namespace

void reportDecodeTokens(RunState& s) {
  const RunResult& r = s.result;
  auto ids = [](const std::vector<int64_t>& tokens) {
    std::string out;
    for (int64_t t : tokens) out += (out.empty() ? "" : ",") + std::to_string(t);
    return out;
  };
  s.say("Prompt: " + std::to_string(r.promptTokens.size()) + " tokens [" + ids(r.promptTokens) + "]" +
        (r.byteLevel ? " \"" + bytesText(r.promptTokens) + "\"" : ""));
  for (size_t b = 0; b < r.generated.size(); ++b)
    s.say("Generated" + (r.generated.size() > 1 ? " (sequence " + std::to_string(b) + ")" : std::string()) + ": " +
          std::to_string(r.generated[b].size()) + " tokens [" + ids(r.generated[b]) + "]" +
          (r.byteLevel ? " \"" + bytesText(r.generated[b]) + "\"" : ""));
}

Status prepareDecode(RunState& s) {
  auto sig = decodeSignature(s.pef, s.opts.pefPath);
  if (!sig) return sig.error();
  auto prompt = promptOf(s, *sig);
  if (!prompt) return prompt.error();
  if (prompt->empty()) return makeError("--prompt: the prompt is empty");
  if (s.opts.draftPefPath.empty()) DFC_TRY(checkLength(s, *sig, static_cast<int64_t>(prompt->size())));
  if (s.opts.temperature < 0 || !std::isfinite(s.opts.temperature))
    return makeError("--temperature must be 0 (greedy) or positive");
  s.decode = *sig;
  s.input = sig->tokens;
  s.logits = sig->logits;
  s.result.promptTokens = std::move(*prompt);
  s.result.kvCacheLen = sig->cacheLen;
  s.result.byteLevel = sig->vocab == 256;
  if (!s.opts.draftPefPath.empty()) return prepareSpeculative(s);
  if (sig->tokensPerStep > 1)
    return makeError(s.opts.pefPath + " takes " + std::to_string(sig->tokensPerStep) +
                     " tokens a step: it generates as the target of speculative decoding (--draft-pef DRAFT.pef, a "
                     "one-token decode step); compile it with --decode-tokens 1 to decode on its own");
  return {};
}

Status decodeStage(RunState& s) {
  if (!s.opts.decode) return {};
  if (s.draftExec) return speculativeStage(s);
  RunResult& r = s.result;
  std::mt19937_64 rng(s.opts.seed);
  const auto prefillStart = RunState::Clock::now();
  int64_t position = 0;
  for (int64_t token : r.promptTokens) {
    if (s.cancelled()) return makeError("run cancelled");
    DFC_TRY(tracedDecodeStep(s, std::vector<int64_t>(static_cast<size_t>(s.decode.batch), token), position++,
                             "prefill token"));
  }
  r.prefillMs = s.usSince(prefillStart) / 1e3;
  s.trace->addStepSlice("prefill", s.usAt(prefillStart), r.prefillMs * 1e3,
                        {{"tokens", static_cast<double>(r.promptTokens.size())}});
  r.generated.assign(static_cast<size_t>(s.decode.batch), {});
  const auto decodeStart = RunState::Clock::now();
  for (int64_t i = 0; i < s.opts.maxNewTokens; ++i) {
    if (s.cancelled()) return makeError("run cancelled");
    const std::vector<int64_t> next = pickAll(s, rng);
    for (size_t b = 0; b < next.size(); ++b) r.generated[b].push_back(next[b]);
    if (i + 1 < s.opts.maxNewTokens) DFC_TRY(tracedDecodeStep(s, next, position++, "decode step"));
  }
  r.decodeMs = s.usSince(decodeStart) / 1e3;
  const double steps = static_cast<double>(s.opts.maxNewTokens - 1);
  r.tokensPerSecond = r.decodeMs > 0 ? steps * static_cast<double>(s.decode.batch) / (r.decodeMs / 1e3) : 0.0;
  r.estUsPerToken = estimatedStepUs(s.pef);
  r.evalSteps = s.step;
  reportDecodeTokens(s);
  s.pendingMetrics.push_back({s.step, 0, "prefill_ms", r.prefillMs});
  s.pendingMetrics.push_back({s.step, 0, "decode_tokens_per_s", r.tokensPerSecond});
  s.pendingMetrics.push_back({s.step, 0, "est_us_per_token", r.estUsPerToken});
  return s.flush();
}

}  // namespace dfc::driver
