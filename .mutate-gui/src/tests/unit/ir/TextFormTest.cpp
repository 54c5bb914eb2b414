#include <catch2/catch.hpp>

#include "ir/Parser.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "unit/ir/SampleGraph.h"

using namespace dfc::ir;
using dfc::ir::test::graphDiff;
using dfc::ir::test::sampleGraph;

TEST_CASE("sample graph uses every op and verifies", "[ir][text]") {
  Graph g = sampleGraph();
  std::vector<bool> used(static_cast<size_t>(numOpKinds()), false);
  for (const Node& n : g.nodes) used[static_cast<size_t>(n.op)] = true;
  for (int k = 0; k < numOpKinds(); ++k) CHECK(used[static_cast<size_t>(k)]);
  auto st = verifyGraph(g);
  INFO((st ? "" : st.error().message()));
  CHECK(st.ok());
}

TEST_CASE("print-parse round trip with weights is exact", "[ir][text]") {
  Graph g = sampleGraph();
  std::string text = printGraph(g, {.withWeights = true});
  auto parsed = parseGraph(text, "every_op.dfir");
  INFO(text);
  REQUIRE(parsed.ok());
  CHECK(graphDiff(g, *parsed, true) == "");
  CHECK(printGraph(*parsed, {.withWeights = true}) == text);
  CHECK(verifyGraph(*parsed).ok());
}

TEST_CASE("print without weights keeps consts and drops param data", "[ir][text]") {
  Graph g = sampleGraph();
  std::string text = printGraph(g);
  auto parsed = parseGraph(text, "every_op.dfir");
  REQUIRE(parsed.ok());
  CHECK(graphDiff(g, *parsed, false) == "");
  CHECK(printGraph(*parsed) == text);
  ValueId w = parsed->findValue("conv1.weight");
  ValueId vel = parsed->findValue("fc.weight.velocity");
  CHECK(parsed->initializers.count(w) == 0);
  REQUIRE(parsed->initializers.count(vel) == 1);
  CHECK(dfc::ir::test::sameTensor(parsed->initializers.at(vel), g.initializers.at(vel)));
  CHECK_FALSE(verifyGraph(*parsed).ok());
  CHECK(verifyGraph(*parsed, {.requireWeights = false}).ok());
}

TEST_CASE("text form reads like the documented syntax", "[ir][text]") {
  std::string text = printGraph(sampleGraph());
  CHECK(text.rfind("graph every_op {\n", 0) == 0);
  CHECK(text.find("  input %data/x_0 : f32[2,1,6,6]\n") != std::string::npos);
  CHECK(text.find("  param %conv1.weight : f32[3,1,3,3]\n") != std::string::npos);
  CHECK(text.find("%conv1.out : f32[2,3,6,6] = conv2d(%data/x_0, %conv1.weight) {note = \"say \\\"hi\\\"\\n\", pad = [1, 1], "
                  "stride = [1, 1]} @\"features/conv1\" name=\"conv1.conv\"\n") != std::string::npos);
  CHECK(text.find("{alpha = -0.5, exact = 1.0, tiny = 1e-300}") != std::string::npos);
  CHECK(text.find("role=optimizer") != std::string::npos);
  CHECK(text.find("  output %loss, %logits\n") != std::string::npos);
  CHECK(text.find("  update %conv1.weight <- %conv1.weight.new\n") != std::string::npos);
}

TEST_CASE("value ids survive out-of-order definitions and odd names", "[ir][text]") {
  Graph g;
  g.name = "odd graph";
  ValueId x = g.addInput("x y", {DType::F32, {2}});
  ValueId late = g.addValue("late", {DType::F32, {2}}, ValueKind::Intermediate);
  ValueId early = g.addValue("early", {DType::F32, {2}}, ValueKind::Intermediate);
  g.addNode(OpKind::Relu, "first", {x}, {early});
  g.addNode(OpKind::Relu, "second", {early}, {late});
  ValueId in2 = g.addInput("in2", {DType::F32, {2}});
  g.inputs = {in2, x};  // feed order differs from declaration order
  g.outputs = {late};
  std::string text = printGraph(g);
  auto parsed = parseGraph(text, "odd.dfir");
  INFO(text);
  REQUIRE(parsed.ok());
  CHECK(graphDiff(g, *parsed, true) == "");
  CHECK(printGraph(*parsed) == text);
  CHECK(verifyGraph(*parsed).ok());
}

namespace {
std::string parseError(const std::string& text) {
  auto r = parseGraph(text, "bad.dfir");
  return r ? std::string("<parsed>") : r.error().message();
}
}  // namespace

TEST_CASE("parse errors name the file, line and column", "[ir][text]") {
  const std::string head = "graph g {\n  input %x : f32[2]\n";
  CHECK(parseError(head + "  %y : f32[2] = frobnicate(%x) name=\"n\"\n}\n") ==
        "bad.dfir:3:17: unknown op 'frobnicate'");
  CHECK(parseError(head + "  %y : f32[2] = relu(%z) name=\"n\"\n}\n") == "bad.dfir:3:22: unknown value '%z'");
  CHECK(parseError(head + "  input %x : f32[3]\n}\n") ==
        "bad.dfir:3:9: duplicate name: value '%x' is already defined");
  CHECK(parseError(head + "  %y : f32[2] = relu(%x) name=\"n\"\n  %z : f32[2] = relu(%x) name=\"n\"\n}\n") ==
        "bad.dfir:4:31: duplicate name: node 'n' is already defined");
  CHECK(parseError(head + "  param %w : f16[2]\n}\n") ==
        "bad.dfir:3:14: bad type: expected f32, i64, i32 or bool, found 'f16'");
  CHECK(parseError(head + "  %y : f32[2] = scale(%x) {alpha = %x} name=\"n\"\n}\n") ==
        "bad.dfir:3:36: bad attribute value '%x'");
  CHECK(parseError(head + "  const %c : f32[3] = [1, 2]\n}\n") ==
        "bad.dfir:3:23: data has 2 elements, type f32[3] needs 3");
  CHECK(parseError(head + "  %y : f32[2] = relu(%x) role=sideways name=\"n\"\n}\n") ==
        "bad.dfir:3:31: bad role 'sideways': expected forward, backward, reduce, optimizer or accumulate");
  CHECK(parseError(head) == "bad.dfir:3:1: missing '}' at end of graph");
  CHECK(parseError(head + "  input %s : f32[1] \"unterminated\n}\n").rfind("bad.dfir:3:21: unterminated string", 0) == 0);
}

TEST_CASE("parser refuses garbage without crashing", "[ir][text]") {
  std::string text = printGraph(sampleGraph(), {.withWeights = true});
  // Every prefix is either refused cleanly or (only the full text) accepted.
  for (size_t len = 0; len < text.size(); len += 7) {
    auto r = parseGraph(std::string_view(text).substr(0, len), "cut.dfir");
    CHECK_FALSE(r.ok());
  }
  CHECK_FALSE(parseGraph("graph g { input %x : f32[-1] }", "neg.dfir").ok());
  CHECK_FALSE(parseGraph("graph g { input %x : f32[4294967296,4294967296] }", "huge.dfir").ok());
  CHECK_FALSE(parseGraph("graph g { %y : f32[1] = add() name=\"a\" } trailing", "t.dfir").ok());
}

TEST_CASE("parser and verifier survive random edits of a valid text", "[ir][text]") {
  std::string text = printGraph(sampleGraph(), {.withWeights = true});
  const std::string alphabet = "%@{}()[],:=<-\"\\ \n0123456789.-eabcfix_/";
  uint32_t seed = 99;
  auto rnd = [&] { return seed = seed * 1664525u + 1013904223u; };
  int parsed = 0;
  for (int i = 0; i < 1000; ++i) {  // about 1 in 150 edited texts still parses
    std::string t = text;
    for (int k = 0; k < 3; ++k) t[rnd() % t.size()] = alphabet[rnd() % alphabet.size()];
    auto g = parseGraph(t, "fuzz.dfir");
    if (!g) {
      CHECK(g.error().message().rfind("fuzz.dfir:", 0) == 0);
      continue;
    }
    ++parsed;
    (void)verifyGraph(*g);           // must not crash whatever the edit did
    CHECK(printGraph(parseGraph(printGraph(*g, {.withWeights = true}), "again").value(), {.withWeights = true}) ==
          printGraph(*g, {.withWeights = true}));
  }
  CHECK(parsed > 0);  // some edits (inside data, say) still parse
}
