// Decision files at their edges (mapping/Decisions.h, ApplyDecisions.h): a
// glob's `*` matching nothing at either end, `?` exactly one character, a
// name one character longer or shorter than its pattern; after mapping, the
// chip-to-chip transfers worked by hand (each value once per reading section
// on another chip, bytes / pcie_gbps added to that section), and a plan that
// does not keep a decision (a together group split, a cut that is not a
// section's first operator) reported naming the file and line.
#include <catch2/catch.hpp>

#include "mapping/ApplyDecisions.h"
#include "mapping/Decisions.h"
#include "unit/ir/SampleGraph.h"

using namespace dfc;

TEST_CASE("decision globs at their edges", "[mapping][decisions][boundary]") {
  using mapping::globMatch;
  CHECK(globMatch("conv1/*", "conv1/"));  // `*` may match nothing
  CHECK(globMatch("*conv1", "conv1"));
  CHECK(globMatch("a**b", "ab"));
  CHECK(globMatch("conv1", "conv1"));
  CHECK_FALSE(globMatch("conv1", "conv12"));  // a name one longer
  CHECK_FALSE(globMatch("conv12", "conv1"));  // one shorter
  CHECK_FALSE(globMatch("conv1?", "conv1"));  // `?` is exactly one character
  CHECK(globMatch("conv1?", "conv1x"));
  CHECK_FALSE(globMatch("conv1?", "conv1xy"));
  CHECK(globMatch("?", "a"));
  CHECK_FALSE(globMatch("?", ""));
  CHECK_FALSE(globMatch("", "a"));
  CHECK(globMatch("", ""));
  CHECK(globMatch("*a", "aaa"));
  CHECK_FALSE(globMatch("*a", "aab"));
  CHECK(globMatch("*/relu", "fc1/x/relu"));  // `*` crosses '/'
  CHECK(globMatch("a*?", "ab"));
  CHECK_FALSE(globMatch("a*?", "a"));
}

namespace {

// Four sections of one node each: s0 a = relu(x) on chip 0; s1 b = a + a on
// chip 1; s2 c = a + b on chip 1; s3 d = c + x on chip 0. Values are [4, 8]
// f32 (128 bytes). Crossing chips: a into s1 (once, read twice), a into s2
// (b is on its chip), c into s3 (x is an input: never a crossing).
struct ChipCase {
  ir::Graph g;
  partition::Plan plan;
  mapping::DecisionFile file;
  mapping::AppliedDecisions applied;
};

ChipCase chipCase() {
  ChipCase k;
  ir::Graph& g = k.g;
  const ir::ValueId x = g.addInput("x", {ir::DType::F32, {4, 8}});
  const ir::ValueId a = ir::test::add(g, ir::OpKind::Relu, "a", {x}, {"a.out"})[0];
  const ir::ValueId b = ir::test::add(g, ir::OpKind::Add, "b", {a, a}, {"b.out"})[0];
  const ir::ValueId c = ir::test::add(g, ir::OpKind::Add, "c", {a, b}, {"c.out"})[0];
  g.outputs = {ir::test::add(g, ir::OpKind::Add, "d", {c, x}, {"d.out"})[0]};
  for (int i = 0; i < 4; ++i) {
    partition::Section s;
    s.id = i;
    s.name = "s" + std::to_string(i);
    s.nodes = {static_cast<ir::NodeId>(i)};
    s.estimate.latencyUs = 10;
    k.plan.sections.push_back(s);
    k.plan.schedule.push_back(i);
  }
  k.file.path = "chips.yaml";
  mapping::Decision d;
  d.kind = mapping::DecisionKind::Chip;
  d.patterns = {"b", "c"};
  d.chip = 1;
  d.line = 1;
  k.file.decisions = {d};
  k.applied.matched = {{1, 2}};
  k.applied.nodeChip = {0, 1, 1, 0};
  return k;
}

}  // namespace

TEST_CASE("chip-to-chip transfers worked by hand: once per value and reading section", "[mapping][decisions][boundary]") {
  ChipCase k = chipCase();
  auto placed = mapping::finishDecisions(k.g, k.plan, k.file, k.applied, 16);  // 16 GB/s: 128 B take 0.008 us
  if (!placed) FAIL(placed.error().message());
  CHECK(placed->sectionChip == std::vector<int>{0, 1, 1, 0});
  CHECK(placed->crossings == 3);
  CHECK(placed->transferBytes == 3 * 128);
  CHECK(placed->transferUs == Approx(3 * 0.008).epsilon(1e-12));
  CHECK(k.plan.sections[0].estimate.latencyUs == 10);
  CHECK(k.plan.sections[1].estimate.latencyUs == Approx(10.008).epsilon(1e-12));
  CHECK(k.plan.sections[2].estimate.latencyUs == Approx(10.008).epsilon(1e-12));
  CHECK(k.plan.sections[3].estimate.latencyUs == Approx(10.008).epsilon(1e-12));
  const std::string json = mapping::decisionsJson(k.file, k.applied, k.plan, *placed, {true, 2});
  CHECK(json.find("\"section_chips\":[0,1,1,0]") != std::string::npos);
  CHECK(json.find("\"crossings\":3") != std::string::npos);
  CHECK(json.find("\"sections\":[1,2]") != std::string::npos);
  CHECK(json.find("\"operators\":2") != std::string::npos);
  // No PCIe figure: crossings counted, no time charged.
  ChipCase free = chipCase();
  auto unpriced = mapping::finishDecisions(free.g, free.plan, free.file, free.applied, 0);
  REQUIRE(unpriced);
  CHECK(unpriced->crossings == 3);
  CHECK(unpriced->transferUs == 0);
  CHECK(free.plan.sections[1].estimate.latencyUs == 10);
  // Every node on one chip: nothing crosses.
  ChipCase one = chipCase();
  one.applied.nodeChip = {1, 1, 1, 1};
  auto none = mapping::finishDecisions(one.g, one.plan, one.file, one.applied, 16);
  REQUIRE(none);
  CHECK(none->crossings == 0);
  CHECK(none->transferBytes == 0);
}

TEST_CASE("a plan that does not keep a decision is reported with its file and line", "[mapping][decisions][boundary]") {
  ChipCase k = chipCase();
  // A together group of b and c, which the plan keeps in two sections.
  mapping::Decision together;
  together.kind = mapping::DecisionKind::Together;
  together.patterns = {"b", "c"};
  together.line = 3;
  k.file.decisions = {together};
  k.applied.matched = {{1, 2}};
  auto split = mapping::finishDecisions(k.g, k.plan, k.file, k.applied, 16);
  REQUIRE_FALSE(split);
  CHECK_THAT(split.error().message(), Catch::Contains("chips.yaml:3") && Catch::Contains("'c'"));
  // The same group in one section: kept.
  ChipCase merged = chipCase();
  merged.file.decisions = {together};
  merged.applied.matched = {{1, 2}};
  merged.plan.sections[1].nodes = {1, 2};
  merged.plan.sections.erase(merged.plan.sections.begin() + 2);
  merged.plan.sections[2].id = 2;
  merged.plan.schedule = {0, 1, 2};
  merged.applied.nodeChip = {0, 1, 1, 0};
  CHECK(mapping::finishDecisions(merged.g, merged.plan, merged.file, merged.applied, 16).ok());
  // A cut before c: kept when c starts its section, reported when it is the second operator of one.
  mapping::Decision cut;
  cut.kind = mapping::DecisionKind::CutBefore;
  cut.patterns = {"c"};
  cut.line = 5;
  ChipCase kept = chipCase();
  kept.file.decisions = {cut};
  kept.applied.matched = {{2}};
  CHECK(mapping::finishDecisions(kept.g, kept.plan, kept.file, kept.applied, 16).ok());
  merged.file.decisions = {cut};
  merged.applied.matched = {{2}};
  auto notFirst = mapping::finishDecisions(merged.g, merged.plan, merged.file, merged.applied, 16);
  REQUIRE_FALSE(notFirst);
  CHECK_THAT(notFirst.error().message(), Catch::Contains("chips.yaml:5"));
  // A section holding nodes of two chips.
  merged.file.decisions = {};
  merged.applied.matched = {};
  merged.applied.nodeChip = {0, 0, 1, 0};
  auto spans = mapping::finishDecisions(merged.g, merged.plan, merged.file, merged.applied, 16);
  REQUIRE_FALSE(spans);
  CHECK_THAT(spans.error().message(), Catch::Contains("spans chips 0 and 1"));
}

TEST_CASE("decision files: chips 0 and 7 are accepted, -1 and 8 refused, patterns at the printable edges", "[mapping][decisions][boundary]") {
  for (int chip : {0, 7}) {
    auto f = mapping::parseDecisions("- nodes: fc*\n  chip: " + std::to_string(chip) + "\n", "d.yaml");
    REQUIRE(f.ok());
    CHECK(f->decisions.at(0).chip == chip);
    CHECK(f->decisions.at(0).kind == mapping::DecisionKind::Chip);
  }
  for (const char* chip : {"-1", "8", "1.5"}) {
    auto f = mapping::parseDecisions(std::string("- nodes: fc*\n  chip: ") + chip + "\n", "d.yaml");
    REQUIRE_FALSE(f.ok());
    CHECK_THAT(f.error().message(), Catch::Contains("d.yaml:2: key 'chip': expected a chip number in [0, 7]"));
  }
  // '~' (0x7e) and U+00A0 are printable; DEL (0x7f) and U+0085 are not.
  CHECK(mapping::parseDecisions("- together: \"a~b\"\n", "d.yaml").ok());
  CHECK(mapping::parseDecisions("- together: \"a\\u00a0b\"\n", "d.yaml").ok());
  CHECK_FALSE(mapping::parseDecisions("- together: \"a\\x7fb\"\n", "d.yaml").ok());
  CHECK_FALSE(mapping::parseDecisions("- together: \"a\\u0085b\"\n", "d.yaml").ok());
  // Lines are 1-based, counted in the file as written.
  auto lines = mapping::parseDecisions("# header\n\n- together: a\n- cut_before: b\n", "d.yaml");
  REQUIRE(lines.ok());
  CHECK(lines->decisions.at(0).line == 3);
  CHECK(lines->decisions.at(1).line == 4);
  CHECK(lines->where(lines->decisions.at(1)) == "d.yaml:4");
}
