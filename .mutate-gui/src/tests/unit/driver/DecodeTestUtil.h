#pragma once
// A zoo decoder compiled for a test in a scratch folder (no run store): the
// decode step with a KV cache of `cacheLen` rows, or with cacheLen 0 the
// ordinary --inference graph over `seqLen` tokens; `decodeTokens` tokens a
// decode step (dfc compile --decode-tokens). A failed compile fails the test.
#include <catch2/catch.hpp>
#include <string>

#include "driver/compile/Compiler.h"
#include "e2e/TestEnv.h"
#include "pef/Pef.h"

namespace dfc::test {

inline std::string compileDecoderFile(const ScratchDir& dir, const std::string& model, int64_t cacheLen, int64_t seqLen,
                                      const std::string& db = "-", int64_t decodeTokens = 1, uint64_t seed = 42) {
  driver::CompileOptions o;
  o.model = model;
  o.batchSize = 1;
  o.inference = true;
  o.decode = cacheLen > 0;
  o.kvCacheLen = cacheLen;
  o.decodeTokens = decodeTokens;
  o.seed = seed;
  if (cacheLen == 0) o.modelParams["seq_len"] = seqLen;
  o.pefName = model + (o.decode ? "-decode" : "-prefill") + (decodeTokens > 1 ? std::to_string(decodeTokens) : "") +
              (seed != 42 ? "-seed" + std::to_string(seed) : "");
  o.outputFolder = dir / o.pefName;
  o.dbPath = db;
  auto r = driver::compile(o);
  if (!r) FAIL(model << ": " << r.error().message());
  return r->pefPath;
}

inline pef::Pef compileDecoderPef(const ScratchDir& dir, const std::string& model, int64_t cacheLen, int64_t seqLen,
                                  int64_t decodeTokens = 1) {
  auto pef = pef::readPef(compileDecoderFile(dir, model, cacheLen, seqLen, "-", decodeTokens));
  if (!pef) FAIL(pef.error().message());
  return std::move(*pef);
}

}  // namespace dfc::test
