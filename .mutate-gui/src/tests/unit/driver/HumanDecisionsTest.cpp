// --mac-human-decision and --model-parallel: decisions are honoured in the
// plan and recorded in the PEF, the numbers a run computes do not change, and
// a decision that cannot be honoured is refused naming its file and line.
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>

#include "driver/compile/Compiler.h"
#include "driver/compile/HumanDecisions.h"
#include "driver/run/Runner.h"
#include "e2e/TestEnv.h"
#include "pef/Pef.h"

using namespace dfc;

namespace {

driver::CompileOptions lenet(const test::ScratchDir& dir, const std::string& name, partition::OptLevel level) {
  driver::CompileOptions o;
  o.model = "lenet";
  o.level = level;
  o.batchSize = 4;
  o.dbPath = "-";
  o.outputFolder = dir / name;
  return o;
}

pef::Pef compileAndRead(const driver::CompileOptions& o) {
  auto compiled = driver::compile(o);
  if (!compiled) FAIL(compiled.error().message());
  auto pef = pef::readPef(compiled->pefPath);
  REQUIRE(pef.ok());
  return std::move(*pef);
}

const partition::Section& sectionOf(const pef::Pef& p, const std::string& node) {
  ir::NodeId id = p.graph.findNode(node);
  REQUIRE(id != ir::kNoNode);
  for (const auto& s : p.plan.sections)
    if (std::find(s.nodes.begin(), s.nodes.end(), id) != s.nodes.end()) return s;
  FAIL("no section holds " + node);
  return p.plan.sections.front();
}

std::string compileError(const driver::CompileOptions& o) {
  auto r = driver::compile(o);
  REQUIRE(!r);
  CHECK(r.error().kind() == ErrorKind::BadInput);
  return r.error().message();
}

}  // namespace

TEST_CASE("at -o0 a together group becomes one section", "[driver][decisions]") {
  test::ScratchDir dir("decide-together");
  auto o = lenet(dir, "o0", partition::OptLevel::O0);
  const pef::Pef plain = compileAndRead(o);
  CHECK(sectionOf(plain, "conv1/conv2d").id != sectionOf(plain, "conv1/relu").id);
  o.macHumanDecision = dir.write("d.yaml", "- together: [conv1/conv2d, conv1/bias_add, conv1/relu]\n");
  const pef::Pef decided = compileAndRead(o);
  const auto& s = sectionOf(decided, "conv1/conv2d");
  CHECK(s.nodes.size() == 3);
  CHECK(sectionOf(decided, "conv1/relu").id == s.id);
  CHECK(decided.plan.sections.size() == plain.plan.sections.size() - 2);
  CHECK(decided.meta.decisions.find("\"kind\":\"together\"") != std::string::npos);
  const auto lines = driver::describeDecisions(decided.meta.decisions);
  REQUIRE(lines.size() == 2);
  CHECK(lines[1].find("together") != std::string::npos);
  CHECK(lines[1].find("3 operators, sections " + std::to_string(s.id)) != std::string::npos);
}

TEST_CASE("at -o3 a forced cut starts a section at the operator named", "[driver][decisions]") {
  test::ScratchDir dir("decide-cut");
  auto o = lenet(dir, "o3", partition::OptLevel::O3);
  const pef::Pef plain = compileAndRead(o);
  CHECK(sectionOf(plain, "fc1/matmul").nodes.front() != plain.graph.findNode("fc1/matmul"));
  o.macHumanDecision = dir.write("d.yaml", "- cut_before: fc1/matmul\n- cut_before: fc*.grad_a\n  role: backward\n");
  const pef::Pef decided = compileAndRead(o);
  CHECK(sectionOf(decided, "fc1/matmul").nodes.front() == decided.graph.findNode("fc1/matmul"));
  for (const char* n : {"fc1/matmul.grad_a", "fc2/matmul.grad_a", "fc3/matmul.grad_a"})
    CHECK(sectionOf(decided, n).nodes.front() == decided.graph.findNode(n));
  CHECK(decided.plan.sections.size() == plain.plan.sections.size() + 4);
}

TEST_CASE("model parallel puts sections on the chips named and charges what crosses chips",
          "[driver][decisions][model-parallel]") {
  test::ScratchDir dir("decide-chips");
  auto o = lenet(dir, "mp", partition::OptLevel::O3);
  o.nChips = 2;
  o.modelParallel = true;
  o.macHumanDecision = dir.write("d.yaml", "- nodes: [fc*, loss/*]\n  chip: 1\n");
  const pef::Pef decided = compileAndRead(o);
  const std::string& m = decided.meta.decisions;
  CHECK(m.find("\"model_parallel\":true") != std::string::npos);
  // Forward: conv on chip 0, fc on chip 1; the record lists each section's chip.
  const int conv = sectionOf(decided, "conv2/maxpool2d").id, fc = sectionOf(decided, "fc1/matmul").id;
  CHECK(conv != fc);
  std::string chips = m.substr(m.find("\"section_chips\":"));
  chips = chips.substr(chips.find('[') + 1, chips.find(']') - chips.find('[') - 1);
  std::vector<int> perSection;
  for (char c : chips)
    if (c == '0' || c == '1') perSection.push_back(c - '0');
  REQUIRE(perSection.size() == decided.plan.sections.size());
  CHECK(perSection[static_cast<size_t>(conv)] == 0);
  CHECK(perSection[static_cast<size_t>(fc)] == 1);
  CHECK(m.find("\"crossings\":0,") == std::string::npos);  // fc reads conv's output over PCIe
  auto lines = driver::describeDecisions(m);
  CHECK(lines.front().find("model parallel over 2 chips") != std::string::npos);
  CHECK(lines.back().find("values cross chips") != std::string::npos);

  o.modelParallel = false;
  CHECK(compileError(o).find("d.yaml:1: key 'chip': assigning chips needs --model-parallel") != std::string::npos);
  o.modelParallel = true;
  o.macHumanDecision = dir.write("far.yaml", "- together: conv1/*\n  role: forward\n- nodes: fc*\n  chip: 2\n");
  CHECK(compileError(o).find("far.yaml:3: key 'chip': chip 2, but --n-chips is 2") != std::string::npos);
  o.macHumanDecision.clear();
  CHECK(compileError(o).find("--model-parallel requires a human decision file") != std::string::npos);
}

TEST_CASE("a decision that cannot be honoured is refused naming it and why", "[driver][decisions]") {
  test::ScratchDir dir("decide-bad");
  auto o = lenet(dir, "bad", partition::OptLevel::O0);
  o.macHumanDecision = dir.write("none.yaml", "- together: conv1/*\n  role: forward\n- cut_before: conv9/*\n");
  CHECK(compileError(o).find("none.yaml:3: key 'cut_before': 'conv9/*' matches no operator") != std::string::npos);
  o.macHumanDecision = dir.write("gap.yaml", "\n- together: [conv1/conv2d, conv1/relu]\n");
  CHECK(compileError(o).find("gap.yaml:2: 'together' group [conv1/conv2d, conv1/relu] cannot be one section: "
                             "'conv1/bias_add', not in the group, lies between its operators") != std::string::npos);
  o.macHumanDecision = dir.write("roles.yaml", "- together: fc3/*\n");
  CHECK(compileError(o).find("roles.yaml:1: 'together' group fc3/* holds forward 'fc3/matmul' and backward") !=
        std::string::npos);
  o.macHumanDecision = dir.write("cut.yaml", "- together: conv1/*\n  role: forward\n- cut_before: conv1/relu\n");
  CHECK(compileError(o).find("cut.yaml:3: 'cut_before' 'conv1/relu' would cut the together group at line 1") !=
        std::string::npos);
  o.scalingFactors = {"0.01", "1", "1"};
  o.macHumanDecision = dir.write("big.yaml", "- together: conv*\n  role: forward\n");
  const std::string big = compileError(o);
  CHECK(big.find("big.yaml:1: 'together' group conv* (8 operators) needs ") != std::string::npos);
  CHECK(big.find(", a section may use ") != std::string::npos);
  CHECK(big.find(" on sn30 (1 chip(s))") != std::string::npos);
  o.macHumanDecision = dir.write("syntax.yaml", "- together: conv1/*\n  colour: red\n");
  CHECK(compileError(o).find("syntax.yaml:2: unknown key 'colour'") != std::string::npos);
}

TEST_CASE("decisions change where sections are cut, not what a run computes", "[driver][decisions][run]") {
  test::ScratchDir dir("decide-run");
  auto losses = [&](const std::string& name, const std::string& decisions) {
    auto o = lenet(dir, name, partition::OptLevel::O3);
    if (!decisions.empty()) {
      o.nChips = 2;
      o.modelParallel = true;
      o.macHumanDecision = dir.write(name + ".yaml", decisions);
    }
    auto compiled = driver::compile(o);
    if (!compiled) FAIL(compiled.error().message());
    driver::RunOptions r;
    r.pefPath = compiled->pefPath;
    r.dataFolder = test::kFashionMnist;
    r.dbPath = "-";
    r.trainLimit = 48;
    r.testLimit = 16;
    r.tracePath = dir / (name + ".json");
    auto run = driver::run(r);
    if (!run) FAIL(run.error().message());
    REQUIRE(run->finalLoss.has_value());
    return std::make_pair(*run->firstLoss, *run->finalLoss);
  };
  const auto plain = losses("plain", "");
  const auto decided = losses("decided", "- together: [conv2/conv2d, conv2/bias_add, conv2/relu]\n"
                                         "- cut_before: fc2/matmul\n"
                                         "- nodes: [fc*, loss/*]\n  chip: 1\n");
  CHECK(decided.first == Approx(plain.first).epsilon(1e-5));
  CHECK(decided.second == Approx(plain.second).epsilon(1e-5));
  CHECK(plain.second != plain.first);  // it trained
}
