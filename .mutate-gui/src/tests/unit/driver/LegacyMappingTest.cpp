// --mac-v2: the legacy mapping path compiles and runs to the same losses as
// the current one (a run's numbers never depend on the mapping), and differs
// where a user can see it: hypersections of split layers and the placement.
#include <algorithm>
#include <catch2/catch.hpp>

#include "driver/compile/Compiler.h"
#include "driver/run/Runner.h"
#include "e2e/TestEnv.h"
#include "pef/Pef.h"

using namespace dfc;

namespace {

struct Compiled {
  driver::CompileResult result;
  pef::Pef pef;
};

// gpt2-mini at -o3 with hypersections, on 5% of the chip: each layer is cut into several sections.
driver::CompileOptions splitLayers(const test::ScratchDir& dir, bool macV2) {
  driver::CompileOptions o;
  o.model = "gpt2-mini";
  o.modelParams = {{"seq_len", 16}};
  o.batchSize = 4;
  o.enableHypersection = true;
  o.scalingFactors = {"0.05", "0.05", "0.05"};
  o.macV2 = macV2;
  o.dbPath = "-";
  o.outputFolder = dir / (macV2 ? "legacy" : "current");
  o.args = o.toArgs();  // as dfc records it
  return o;
}

Compiled compileOrFail(const driver::CompileOptions& o) {
  auto r = driver::compile(o);
  if (!r) FAIL(r.error().message());
  auto pef = pef::readPef(r->pefPath);
  REQUIRE(pef.ok());
  return {*r, std::move(*pef)};
}

std::vector<std::vector<ir::NodeId>> sectionNodes(const pef::Pef& pef) {
  std::vector<std::vector<ir::NodeId>> out;
  for (const auto& s : pef.plan.sections) out.push_back(s.nodes);
  return out;
}

double trainLoss(const std::string& pefPath) {
  driver::RunOptions r;
  r.pefPath = pefPath;
  r.dbPath = "-";
  r.trainLimit = 4 * 6;
  r.testLimit = 4;
  auto result = driver::run(r);
  if (!result) FAIL(result.error().message());
  REQUIRE(result->steps == 6);
  REQUIRE(result->finalLoss.has_value());
  return *result->finalLoss;
}

}  // namespace

TEST_CASE(
    "the legacy mapping path (--mac-v2) compiles the same sections into other hypersections and placements, and trains "
    "alike",
    "[driver][legacy]") {
  test::ScratchDir dir("mac-v2");
  const Compiled current = compileOrFail(splitLayers(dir, false));
  const Compiled legacy = compileOrFail(splitLayers(dir, true));
  // The same cut: the runtime runs the same sections.
  REQUIRE(sectionNodes(current.pef) == sectionNodes(legacy.pef));
  REQUIRE(current.pef.plan.sections.size() > current.pef.plan.hypersections.size());  // repeats share
  // Split layers: the current mapper shares each layer's k-th piece, the legacy one compiles every piece.
  CHECK(legacy.pef.plan.hypersections.size() > current.pef.plan.hypersections.size());
  // The bounded annealing schedule places differently.
  CHECK(legacy.result.placedHops != current.result.placedHops);
  // The command line the PEF records says which path compiled it.
  auto& args = legacy.pef.meta.args;
  CHECK(std::find(args.begin(), args.end(), "--mac-v2") != args.end());
  CHECK(trainLoss(legacy.result.pefPath) == trainLoss(current.result.pefPath));
}
