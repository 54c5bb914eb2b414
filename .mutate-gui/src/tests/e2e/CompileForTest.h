#pragma once
// A PEF compiled in a scratch folder for a test (no run store), data parallel
// for `worldSize` ranks when it is above 0; a failed compile fails the test.
#include <catch2/catch.hpp>
#include <string>

#include "TestEnv.h"
#include "driver/compile/Compiler.h"

namespace dfc::test {

inline std::string compilePef(const ScratchDir& dir, const std::string& model, int64_t batch, int worldSize,
                              const std::string& name, int64_t bucketKb = 0) {
  driver::CompileOptions c;
  c.model = model;
  c.batchSize = batch;
  c.pefName = name;
  c.outputFolder = dir / name;
  c.dbPath = "-";
  c.dataParallel = worldSize > 0;
  c.worldSize = worldSize;
  c.allreduceBucketKb = bucketKb;
  auto r = driver::compile(c);
  if (!r) FAIL(r.error().message());
  return r->pefPath;
}

}  // namespace dfc::test
