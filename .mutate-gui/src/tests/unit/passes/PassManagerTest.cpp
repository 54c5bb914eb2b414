#include <catch2/catch.hpp>

#include "ir/Parser.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "passes/GraphRewriter.h"
#include "passes/PassManager.h"

using namespace dfc;
using namespace dfc::passes;

namespace {

ir::Graph parse(const char* text) {
  auto g = ir::parseGraph(text, "test.dfir");
  if (!g) FAIL(g.error().message());
  return std::move(*g);
}

const char* kSmall = R"(graph g {
  input %x : f32[2,3]
  %a : f32[2,3] = relu(%x) name="r1"
  %b : f32[2,3] = relu(%x) name="r2"
  %c : f32[2,3] = add(%a, %b) name="sum"
  %d : f32[2,3] = scale(%x) {alpha = 3.0} name="dead"
  output %c
}
)";

// Breaks the graph on purpose: the first node reads a value defined after it.
class BreakingPass final : public Pass {
 public:
  std::string_view name() const override { return "break-order"; }
  Expected<bool> run(ir::Graph& g) override {
    g.nodes.front().inputs[0] = g.nodes.back().outputs[0];
    return true;
  }
};

}  // namespace

TEST_CASE("an unknown pass name is an error naming it", "[passes]") {
  auto pm = PassManager::create({"dce", "constant-fold", "cse"});
  REQUIRE_FALSE(pm.ok());
  CHECK_THAT(pm.error().message(), Catch::Contains("unknown pass 'constant-fold'"));
  CHECK_THAT(pm.error().message(), Catch::Contains("constant-folding"));  // lists the known ones
}

TEST_CASE("the default pipelines name only registered passes", "[passes]") {
  CHECK(PassManager::create(kDefaultTrainingPipeline).ok());
  CHECK(PassManager::create(kDefaultInferencePipeline).ok());
  CHECK(registeredPasses().size() >= 6);
}

TEST_CASE("verify after each pass catches a broken pass and names it", "[passes]") {
  ir::Graph g = parse(kSmall);
  auto pm = PassManager::create({"cse"});
  REQUIRE(pm.ok());
  pm->addPass(std::make_unique<BreakingPass>());
  auto st = pm->run(g);
  REQUIRE_FALSE(st.ok());
  CHECK_THAT(st.error().message(), Catch::Contains("after pass break-order"));
  REQUIRE(pm->records().size() == 2);
  CHECK(pm->records()[0].pass == "cse");
}

TEST_CASE("the pass manager records time and node counts and calls the dump hook", "[passes]") {
  ir::Graph g = parse(kSmall);
  std::vector<std::string> dumped;
  PassManagerOptions opts;
  opts.afterPass = [&](const ir::Graph& graph, int index, const std::string& pass) {
    dumped.push_back(std::to_string(index) + "-" + pass + ":" + std::to_string(graph.nodes.size()));
  };
  auto pm = PassManager::create({"cse", "dce", "dce"}, opts);
  REQUIRE(pm.ok());
  REQUIRE(pm->run(g).ok());
  const auto& r = pm->records();
  REQUIRE(r.size() == 3);
  CHECK(r[0].nodesBefore == 4);
  CHECK(r[0].nodesAfter == 3);  // r2 merged into r1
  CHECK(r[0].changed);
  CHECK(r[1].nodesAfter == 2);  // the dead scale
  CHECK_FALSE(r[2].changed);    // nothing left to do
  for (const auto& rec : r) CHECK(rec.ms >= 0.0);
  CHECK(dumped == std::vector<std::string>{"1-cse:3", "2-dce:2", "3-dce:2"});
}

TEST_CASE("graph rewriter renumbers ids and fixes every reference", "[passes][rewriter]") {
  ir::Graph g = parse(R"(graph g {
  input %x : f32[2]
  input %lr : f32[]
  param %w : f32[2]
  %a : f32[2] = relu(%x) name="a"
  %b : f32[2] = scale(%a) {alpha = 2.0} name="b"
  %c : f32[2] = mul(%b, %w) name="c"
  %w.new : f32[2] = sgd_update(%w, %c, %lr) {weight_decay = 0.0} role=optimizer name="u"
  output %c
  update %w <- %w.new
}
)");
  GraphRewriter rw(g);
  // c reads a instead of b; b goes; a new const and a node feeding c are inserted.
  rw.replaceAllUses(g.findValue("b"), g.findValue("a"));
  rw.eraseNode(g.findNode("b"));
  ir::Tensor two(ir::TensorType{ir::DType::F32, {2}});
  two.data<float>()[0] = two.data<float>()[1] = 2.f;
  ir::ValueId k = rw.addConst(g.findNode("c"), "k", two);
  ir::ValueId p = rw.addValue(g.findNode("c"), rw.uniqueValueName("a"), g.value(g.findValue("a")).type);
  CHECK(rw.value(p).name == "a.1");
  ir::Node n;
  n.op = ir::OpKind::Mul;
  n.name = "scaled";
  n.inputs = {g.findValue("a"), k};
  n.outputs = {p};
  rw.insertNode(g.findNode("c"), n);
  rw.node(g.findNode("c")).inputs[0] = p;
  auto out = rw.finish();
  REQUIRE(out.ok());
  CHECK(ir::printGraph(*out) == R"(graph g {
  input %x : f32[2]
  input %lr : f32[]
  param %w : f32[2]
  %a : f32[2] = relu(%x) name="a"
  const %k : f32[2] = [2, 2]
  %a.1 : f32[2] = mul(%a, %k) name="scaled"
  %c : f32[2] = mul(%a.1, %w) name="c"
  %w.new : f32[2] = sgd_update(%w, %c, %lr) {weight_decay = 0.0} role=optimizer name="u"
  output %c
  update %w <- %w.new
}
)");
  for (size_t i = 0; i < out->values.size(); ++i) CHECK(out->values[i].id == static_cast<ir::ValueId>(i));
  CHECK(out->value(out->findValue("c")).producer == out->findNode("c"));
  CHECK(out->initializers.count(out->findValue("k")) == 1);
  CHECK(ir::verifyGraph(*out, {.requireWeights = false}).ok());
}

TEST_CASE("graph rewriter refuses to drop a value someone still reads", "[passes][rewriter]") {
  ir::Graph g = parse(kSmall);
  GraphRewriter rw(g);
  rw.eraseNode(g.findNode("r1"));  // sum still reads %a
  auto out = rw.finish();
  REQUIRE_FALSE(out.ok());
  CHECK_THAT(out.error().message(), Catch::Contains("reads removed value 'a'"));
}

TEST_CASE("eraseDeadNodes follows chains of producers but keeps outputs", "[passes][rewriter]") {
  ir::Graph g = parse(kSmall);
  GraphRewriter rw(g);
  CHECK(rw.eraseDeadNodes({g.findNode("dead"), g.findNode("sum")}) == 1);
  CHECK(rw.isErased(g.findNode("dead")));
  CHECK_FALSE(rw.isErased(g.findNode("sum")));
}
