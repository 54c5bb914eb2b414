// --mac-human-decision files: what they say, and bad ones refused naming the
// file, the line and the key.
#include <catch2/catch.hpp>

#include "mapping/Decisions.h"

using namespace dfc;
using mapping::DecisionKind;

namespace {

std::string parseError(const std::string& text) {
  auto f = mapping::parseDecisions(text, "d.yaml");
  REQUIRE(!f);
  CHECK(f.error().kind() == ErrorKind::BadInput);
  return f.error().message();
}

}  // namespace

TEST_CASE("a decisions file lists together groups, cuts and chips with their lines", "[mapping][decisions]") {
  auto f = mapping::parseDecisions("# pins\n"
                                   "- together: h.0/mlp/*\n"
                                   "  role: forward\n"
                                   "- cut_before: [h.1/attn/matmul, h.2/attn/matmul]\n"
                                   "- nodes: h.2/*\n"
                                   "  chip: 1\n"
                                   "- together: [ln_f/*, lm_head/*]\n"
                                   "  chip: 0\n",
                                   "d.yaml");
  REQUIRE(f.ok());
  REQUIRE(f->decisions.size() == 4);
  const auto& d = f->decisions;
  CHECK(d[0].kind == DecisionKind::Together);
  CHECK(d[0].line == 2);
  CHECK(d[0].role == ir::NodeRole::Forward);
  CHECK(d[0].chip == -1);
  CHECK(d[1].kind == DecisionKind::CutBefore);
  CHECK(d[1].patterns == std::vector<std::string>{"h.1/attn/matmul", "h.2/attn/matmul"});
  CHECK(d[1].line == 4);
  CHECK(d[2].kind == DecisionKind::Chip);
  CHECK(d[2].chip == 1);
  CHECK(d[3].chip == 0);
  CHECK(f->where(d[3]) == "d.yaml:7");
  CHECK(mapping::patternText(d[3]) == "[ln_f/*, lm_head/*]");
  CHECK(mapping::parseDecisions("", "e.yaml")->empty());
}

TEST_CASE("bad decisions files name the file, line and key", "[mapping][decisions]") {
  CHECK(parseError("- together: a\n- togther: b\n").find("d.yaml:2: unknown key 'togther' (known: together,") !=
        std::string::npos);
  CHECK(parseError("- nodes: a/*\n  chip: 9\n").find("d.yaml:2: key 'chip': expected a chip number in [0, 7], got '9'") !=
        std::string::npos);
  CHECK(parseError("- nodes: a/*\n").find("d.yaml:1: key 'nodes': needs 'chip: N'") != std::string::npos);
  CHECK(parseError("- cut_before: a\n  chip: 1\n").find("d.yaml:1: key 'chip'") != std::string::npos);
  CHECK(parseError("\n- together: a\n  cut_before: b\n").find("d.yaml:3: key 'cut_before': one decision per entry") !=
        std::string::npos);
  CHECK(parseError("- together: []\n").find("d.yaml:1: key 'together'") != std::string::npos);
  CHECK(parseError("- together: a\n  role: sideways\n").find("d.yaml:2: key 'role': expected forward") !=
        std::string::npos);
  CHECK(parseError("- chip: 1\n").find("d.yaml:1: a decision needs one of") != std::string::npos);
  CHECK(parseError("together: a\n").find("d.yaml:1: expected a list of decisions") != std::string::npos);
  CHECK(parseError("- together: [a\n").find("d.yaml:") != std::string::npos);  // YAML syntax
  CHECK(parseError("- 3\n").find("d.yaml:1: expected a decision") != std::string::npos);
}

TEST_CASE("decision patterns are names or globs over whole names", "[mapping][decisions]") {
  CHECK(mapping::globMatch("h.0/mlp/*", "h.0/mlp/matmul"));
  CHECK(mapping::globMatch("h.0/mlp/*", "h.0/mlp/matmul_1.grad_a"));
  CHECK_FALSE(mapping::globMatch("h.0/mlp/*", "h.10/mlp/matmul"));
  CHECK(mapping::globMatch("h.?/attn/matmul", "h.3/attn/matmul"));
  CHECK_FALSE(mapping::globMatch("h.?/attn/matmul", "h.13/attn/matmul"));
  CHECK(mapping::globMatch("*", ""));
  CHECK(mapping::globMatch("*relu*", "fc1/relu.grad"));
  CHECK_FALSE(mapping::globMatch("fc1/relu", "fc1/relu.grad"));
  CHECK(mapping::globMatch("a*b*c", "aXbYbZc"));
  CHECK_FALSE(mapping::globMatch("a*b*c", "aXbYbZ"));
}

TEST_CASE("a decisions file written by formatDecisions reads back the same", "[mapping][decisions]") {
  mapping::DecisionFile file{"out.yaml", {}};
  mapping::Decision together;
  together.patterns = {"h.0/mlp/matmul", "h.0/mlp/gelu: odd # name"};
  together.role = ir::NodeRole::Forward;
  mapping::Decision cut;
  cut.kind = DecisionKind::CutBefore;
  cut.patterns = {"h.1/*"};
  mapping::Decision chip;
  chip.kind = DecisionKind::Chip;
  chip.patterns = {"h.2/*", "h.3/*"};
  chip.chip = 1;
  file.decisions = {together, cut, chip};
  const std::string text = *mapping::formatDecisions(file, "written by dfstudio\nsecond line");
  CHECK(text.rfind("# written by dfstudio\n# second line\n", 0) == 0);
  auto back = mapping::parseDecisions(text, "out.yaml");
  REQUIRE(back.ok());
  REQUIRE(back->decisions.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(back->decisions[i].kind == file.decisions[i].kind);
    CHECK(back->decisions[i].patterns == file.decisions[i].patterns);
    CHECK(back->decisions[i].chip == file.decisions[i].chip);
    CHECK(back->decisions[i].role == file.decisions[i].role);
  }
  CHECK(mapping::parseDecisions(*mapping::formatDecisions({"e.yaml", {}}), "e.yaml")->empty());
  // A header line with a carriage return or bytes that are not UTF-8 stays one comment line.
  auto odd = mapping::formatDecisions(file, "pef x\ry: \xff\xfe - together: z");
  REQUIRE(odd.ok());
  REQUIRE(mapping::parseDecisions(*odd, "out.yaml").ok());
  CHECK(mapping::parseDecisions(*odd, "out.yaml")->decisions.size() == 3);
  file.decisions[1].patterns = {"fc1/matmul \xff\xff"};
  CHECK(!mapping::formatDecisions(file));
  CHECK(parseError("- cut_before: \"fc1/matmul \xff\"\n").find("d.yaml:1: key 'cut_before': the pattern is not valid UTF-8") !=
        std::string::npos);
}

TEST_CASE("the pattern limit counts every use through an alias, over the whole file", "[mapping][decisions][hostile]") {
  // Issue 36: the 100,000-pattern limit was per entry, so aliases of one list multiplied it without bound.
  std::string names;
  for (int i = 0; i < 1000; ++i) names += (i ? ", n" : "n") + std::to_string(i);
  auto file = [&](int uses) {
    std::string text = "- together: &p [" + names + "]\n";
    for (int i = 1; i < uses; ++i) text += "- together: *p\n";
    return text;
  };
  auto exactlyFull = mapping::parseDecisions(file(100), "d.yaml");  // 100 x 1000 = the limit, exactly
  REQUIRE(exactlyFull.ok());
  CHECK(exactlyFull->decisions.size() == 100);
  CHECK(exactlyFull->decisions.back().patterns.size() == 1000);
  const std::string over = parseError(file(101));  // one list more
  CHECK_THAT(over, Catch::StartsWith("d.yaml:1: ") && Catch::Contains("more than 100000 patterns") &&
                       Catch::Contains("aliases count each use"));
  // Few long patterns: the bytes count too (16 MiB).
  std::string text = "- together: &p \"" + std::string(1 << 20, 'x') + "\"\n";
  for (int i = 1; i < 17; ++i) text += "- together: *p\n";
  CHECK_THAT(parseError(text), Catch::Contains("16 MiB"));
}
