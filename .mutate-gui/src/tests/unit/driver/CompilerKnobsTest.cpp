// The compiler knob table (--compiler-configs-file): every group beyond the
// placer and router changes something a user sees in the compile, values out
// of range are refused naming file:line:key, the effective configuration
// round-trips through the PEF, and docs/cli.md lists every knob.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "driver/compile/Compiler.h"
#include "driver/compile/CompilerConfig.h"
#include "e2e/TestEnv.h"
#include "pef/Pef.h"

using namespace dfc;

namespace {

std::string writeFile(const test::ScratchDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir / name;
  std::ofstream(path) << text;
  return path;
}

// `model` at `level` with the knobs in `yaml` ("" = the defaults); the compile must succeed.
driver::CompileResult compileModel(const test::ScratchDir& dir, const std::string& name, const std::string& yaml,
                                   partition::OptLevel level, const std::string& model) {
  driver::CompileOptions o;
  o.model = model;
  if (model == "gpt2-mini") {
    o.modelParams = {{"seq_len", 16}};
    o.o1RuleList = "gpt2";
  }
  o.level = level;
  o.batchSize = 4;
  o.dbPath = "-";
  o.outputFolder = dir / name;
  if (!yaml.empty()) o.compilerConfigsFile = writeFile(dir, name + ".yaml", yaml);
  auto r = driver::compile(o);
  if (!r) FAIL(r.error().message());
  return *r;
}

driver::CompileResult compileLenet(const test::ScratchDir& dir, const std::string& name, const std::string& yaml) {
  return compileModel(dir, name, yaml, partition::OptLevel::O3, "lenet");
}

}  // namespace

TEST_CASE("section-size caps give more sections", "[driver][config]") {
  test::ScratchDir dir("knobs-caps");
  const auto plain = compileLenet(dir, "plain", "");
  const auto fewOps = compileLenet(dir, "ops", "mapping:\n  max_section_ops: 3\n");
  CHECK(fewOps.numSections > plain.numSections);
  CHECK(fewOps.numSections >= (fewOps.numNodes + 2) / 3);
  const auto fewPcus = compileLenet(dir, "pcus", "mapping.max_section_pcus: 8\n");
  CHECK(fewPcus.numSections > plain.numSections);
}

TEST_CASE("fusion limits split subgraphs and bound the -o1 search", "[driver][config]") {
  test::ScratchDir dir("knobs-fusion");
  const auto o3 = compileLenet(dir, "o3", "");
  const auto split = compileLenet(dir, "split", "fusion.max_subgraph_ops: 2\n");
  CHECK(split.numSections >= (split.numNodes + 1) / 2);
  CHECK(split.numSections > o3.numSections);
  const auto o1 = compileModel(dir, "o1", "", partition::OptLevel::O1, "gpt2-mini");
  const auto o0 = compileModel(dir, "o0", "", partition::OptLevel::O0, "gpt2-mini");
  REQUIRE(o1.numSections < o0.numSections);
  // No rule can match in one step: every operator alone, as at -o0.
  const auto starved =
      compileModel(dir, "o1-starved", "fusion.match_steps_per_anchor: 1\n", partition::OptLevel::O1, "gpt2-mini");
  CHECK(starved.numSections == o0.numSections);
}

TEST_CASE("cost-model constants change the estimate", "[driver][config]") {
  test::ScratchDir dir("knobs-cost");
  const auto plain = compileLenet(dir, "plain", "");
  // Ops sized to finish in 16x the cycles take fewer PCUs: slower sections.
  const auto slow = compileLenet(dir, "slow", "cost.target_cycles: 65536\n");
  CHECK(slow.estLatencyUs > plain.estLatencyUs);
  const auto narrow = compileLenet(dir, "narrow", "cost:\n  max_op_share: 1024\n");
  CHECK(narrow.estLatencyUs != plain.estLatencyUs);
}

TEST_CASE("allreduce bucket knobs change the data-parallel buckets", "[driver][config]") {
  test::ScratchDir dir("knobs-allreduce");
  auto reduceSections = [&](const std::string& name, const std::string& yaml) {
    driver::CompileOptions o;
    o.model = "lenet";
    o.batchSize = 4;
    o.dbPath = "-";
    o.dataParallel = true;
    o.worldSize = 2;
    o.outputFolder = dir / name;
    if (!yaml.empty()) o.compilerConfigsFile = writeFile(dir, name + ".yaml", yaml);
    auto r = driver::compile(o);
    if (!r) FAIL(r.error().message());
    return r->sections(ir::NodeRole::Reduce);
  };
  const int chosen = reduceSections("chosen", "");
  CHECK(reduceSections("small", "allreduce.bucket_kb: 4\n") > chosen);
  CHECK(reduceSections("share", "allreduce.bandwidth_share: 0.01\n") >= chosen);
}

TEST_CASE("knob values out of range are refused naming the file, line and key", "[driver][config]") {
  test::ScratchDir dir("knobs-range");
  auto refused = [&](const std::string& name, const std::string& yaml) {
    auto c = driver::loadCompilerConfig(writeFile(dir, name, yaml));
    REQUIRE(!c);
    return c.error().message();
  };
  CHECK(refused("a.yaml", "cost:\n  max_op_share: 0\n")
            .find("a.yaml:2: key 'cost.max_op_share': expected a whole "
                  "number in [1, 1024], got '0'") != std::string::npos);
  CHECK(refused("b.yaml", "allreduce.bandwidth_share: 1\n").find("b.yaml:1: key 'allreduce.bandwidth_share'") !=
        std::string::npos);
  CHECK(refused("c.yaml", "mapping.max_section_ops: -1\n").find("c.yaml:1: key 'mapping.max_section_ops'") !=
        std::string::npos);
  CHECK(refused("d.yaml", "fusion:\n  max_ops: 3\n").find("known: fusion.match_steps_per_anchor") != std::string::npos);
}

TEST_CASE("the effective configuration round-trips through the PEF", "[driver][config]") {
  test::ScratchDir dir("knobs-roundtrip");
  const auto r = compileLenet(dir, "set",
                              "fusion.max_subgraph_ops: 7\nmapping: {max_section_ops: 5, max_section_pcus: 64}\n"
                              "cost.target_cycles: 2048\nallreduce.bucket_kb: 256\nplacer.seed: 9\n");
  auto pef = pef::readPef(r.pefPath);
  REQUIRE(pef.ok());
  const std::string& stored = pef->meta.compilerConfig;
  auto back = driver::parseCompilerConfig(stored, "stored");
  REQUIRE(back.ok());
  CHECK(back->fusion.maxSubgraphOps == 7);
  CHECK(back->mapping.maxSectionOps == 5);
  CHECK(back->mapping.maxSectionPcus == 64);
  CHECK(back->cost.targetCycles == 2048);
  CHECK(back->allreduce.bucketKb == 256);
  CHECK(back->link.placer.seed == 9);
  CHECK(driver::compilerConfigJson(*back) == stored);
  for (const auto& k : driver::compilerKnobs()) CHECK(stored.find("\"" + k.key + "\":") != std::string::npos);
}

TEST_CASE("the knob table is whole: defaults in range, documented, and listed in docs/cli.md", "[driver][config]") {
  std::ifstream readme(std::string(DFC_TEST_DATA_DIR) + "/../../docs/cli.md");
  REQUIRE(readme);
  std::stringstream text;
  text << readme.rdbuf();
  const auto knobs = driver::compilerKnobs();
  CHECK(knobs.size() >= 26);
  for (const auto& k : knobs) {
    INFO(k.key);
    CHECK(!k.doc.empty());
    CHECK(k.defaultValue >= k.min);
    CHECK(k.defaultValue <= k.max);
    CHECK(text.str().find("`" + k.key + "`") != std::string::npos);
    CHECK(driver::compilerKnobTable().find(k.key) != std::string::npos);
  }
}

TEST_CASE("the bounded schedule's effort knobs reach --mac-v2's placer", "[driver][config][legacy]") {
  test::ScratchDir dir("knobs-bounded");
  auto hops = [&](const std::string& name, const std::string& yaml) {
    driver::CompileOptions o;
    o.model = "lenet";
    o.level = partition::OptLevel::O0;
    o.batchSize = 4;
    o.dbPath = "-";
    o.macV2 = true;
    o.outputFolder = dir / name;
    if (!yaml.empty()) o.compilerConfigsFile = writeFile(dir, name + ".yaml", yaml);
    auto r = driver::compile(o);
    if (!r) FAIL(r.error().message());
    return r->placedHops;
  };
  const int64_t annealed = hops("bounded", "");
  CHECK(hops("seeded", "placer.bounded_moves_per_kernel: 0\n") > annealed);  // greedy seeding only: longer wires
  CHECK(hops("capped", "placer.bounded_max_moves: 0\n") > annealed);
}
