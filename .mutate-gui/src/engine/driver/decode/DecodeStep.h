#pragma once
// Driving a decode PEF (dfc compile --inference --decode) on the host: its
// interface checked once, one token per sequence fed at the running position,
// the next token picked from the logits. A step runs the executor's full step
// (Executor::step(false)), which applies the graph's state updates: the KV
// caches keep the rows written so far. Shared by `dfc run --decode`
// (driver/run/DecodeRun.cpp) and the tests that compare decode with prefill.
#include <cstdint>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "pef/Pef.h"
#include "runtime/Executor.h"

namespace dfc::driver {

struct DecodeSignature {
  ir::ValueId tokens = ir::kNoValue;    // i64 [B, T]
  ir::ValueId position = ir::kNoValue;  // i64 [1]: the first token's position
  ir::ValueId logits = ir::kNoValue;    // f32 [B, T, V]
  int64_t batch = 0, cacheLen = 0, vocab = 0;
  int64_t tokensPerStep = 1;            // T (dfc compile --decode-tokens)
};

// The PEF's decode interface; an error naming the PEF when it is not a decode step.
Expected<DecodeSignature> decodeSignature(const pef::Pef& pef, const std::string& pefPath);

// Sets the step's inputs: tokens[b * T + t] for token t of sequence b at `position` + t.
Status feedDecodeStep(runtime::Executor& exec, const DecodeSignature& sig, std::span<const int64_t> tokens,
                      int64_t position);
// feedDecodeStep, then the executor's step. `onSection` as for Executor::step.
Status runDecodeStep(runtime::Executor& exec, const DecodeSignature& sig, std::span<const int64_t> tokens,
                     int64_t position, const std::function<void(const runtime::SectionCall&)>& onSection = {});

// Sequence b's logits after a step, at its token `token` (-1: the step's last).
std::span<const float> decodeLogits(const runtime::Executor& exec, const DecodeSignature& sig, int64_t sequence,
                                    int64_t token = -1);

// The next token: the argmax (lowest id on ties) when temperature is 0, else a
// draw from softmax(logits / temperature).
int64_t pickToken(std::span<const float> logits, double temperature, std::mt19937_64& rng);

// Token ids of a prompt text for a byte-level vocabulary (each byte a token); an error when vocab < 256.
Expected<std::vector<int64_t>> byteTokens(const std::string& text, int64_t vocab);
// Byte tokens as printable text (other bytes as \xNN).
std::string bytesText(std::span<const int64_t> tokens);

}  // namespace dfc::driver
