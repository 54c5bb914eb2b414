#include "driver/decode/DecodeStep.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ir/KvCache.h"

namespace dfc::driver {

Expected<DecodeSignature> decodeSignature(const pef::Pef& pef, const std::string& pefPath) {
  const pef::PefMeta& m = pef.meta;
  const ir::Graph& g = pef.graph;
  if (m.kvCacheLen < 1 || ir::kvCacheValues(g).empty())
    return makeError(pefPath + " is not a decode step (compile it with --inference --decode --kv-cache-len N)");
  DecodeSignature sig;
  sig.tokens = g.findValue(m.imageInput);
  sig.position = g.findValue(m.positionInput);
  sig.logits = g.findValue(m.logitsOutput);
  if (sig.tokens == ir::kNoValue || sig.position == ir::kNoValue || sig.logits == ir::kNoValue)
    return makeError(pefPath + ": the decode step's meta names values the graph lacks");
  const ir::TensorType &ids = g.value(sig.tokens).type, &logits = g.value(sig.logits).type;
  if (ids.dtype != ir::DType::I64 || ids.rank() != 2 || ids.shape[1] < 1 || ids.shape[1] > m.kvCacheLen ||
      logits.rank() != 3 || logits.shape[0] != ids.shape[0] || logits.shape[1] != ids.shape[1])
    return makeError(pefPath + ": a decode step takes i64 [B, T] tokens to f32 [B, T, V] logits, this one " +
                     ids.toString() + " to " + logits.toString());
  sig.batch = ids.shape[0];
  sig.tokensPerStep = ids.shape[1];
  sig.cacheLen = m.kvCacheLen;
  sig.vocab = logits.shape[2];
  return sig;
}

Status feedDecodeStep(runtime::Executor& exec, const DecodeSignature& sig, std::span<const int64_t> tokens,
                      int64_t position) {
  if (static_cast<int64_t>(tokens.size()) != sig.batch * sig.tokensPerStep)
    return makeError("a decode step takes " + std::to_string(sig.batch * sig.tokensPerStep) + " tokens, " +
                     std::to_string(sig.tokensPerStep) + " per sequence");
  if (position < 0 || position + sig.tokensPerStep > sig.cacheLen)
    return makeError("positions " + std::to_string(position) + ".." + std::to_string(position + sig.tokensPerStep - 1) +
                     " are outside the KV cache of " + std::to_string(sig.cacheLen) + " rows");
  ir::Tensor ids(ir::TensorType{ir::DType::I64, {sig.batch, sig.tokensPerStep}});
  std::copy(tokens.begin(), tokens.end(), ids.data<int64_t>());
  ir::Tensor pos(ir::TensorType{ir::DType::I64, {1}});
  pos.data<int64_t>()[0] = position;
  DFC_TRY(exec.setInput(sig.tokens, ids));
  return exec.setInput(sig.position, pos);
}

Status runDecodeStep(runtime::Executor& exec, const DecodeSignature& sig, std::span<const int64_t> tokens,
                     int64_t position, const std::function<void(const runtime::SectionCall&)>& onSection) {
  DFC_TRY(feedDecodeStep(exec, sig, tokens, position));
  // A full step, not forward-only: its state updates keep the KV caches' new rows.
  return exec.step(false, onSection);
}

std::span<const float> decodeLogits(const runtime::Executor& exec, const DecodeSignature& sig, int64_t sequence,
                                    int64_t token) {
  if (token < 0) token = sig.tokensPerStep - 1;
  const float* row = exec.tensor(sig.logits).data<float>() + (sequence * sig.tokensPerStep + token) * sig.vocab;
  return {row, static_cast<size_t>(sig.vocab)};
}

int64_t pickToken(std::span<const float> logits, double temperature, std::mt19937_64& rng) {
  const auto best = std::max_element(logits.begin(), logits.end());
  if (temperature <= 0) return best - logits.begin();
  std::vector<double> weights(logits.size());
  for (size_t i = 0; i < logits.size(); ++i) weights[i] = std::exp((static_cast<double>(logits[i]) - *best) / temperature);
  std::discrete_distribution<int64_t> draw(weights.begin(), weights.end());
  return draw(rng);
}

Expected<std::vector<int64_t>> byteTokens(const std::string& text, int64_t vocab) {
  if (vocab < 256)
    return makeError("--prompt: text needs a byte-level vocabulary (256 tokens or more), the PEF's has " +
                     std::to_string(vocab) + " (give --prompt-tokens)");
  std::vector<int64_t> tokens;
  for (unsigned char c : text) tokens.push_back(c);
  return tokens;
}

std::string bytesText(std::span<const int64_t> tokens) {
  std::string out;
  for (int64_t t : tokens) {
    if (t >= 0x20 && t < 0x7f) out += static_cast<char>(t);
    else if (t == '\n') out += "\\n";
    else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02llx", static_cast<unsigned long long>(t & 0xff));
      out += buf;
    }
  }
  return out;
}

}  // namespace dfc::driver
