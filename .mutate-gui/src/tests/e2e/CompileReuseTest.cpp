// Compile-time savings that must not change the result. Zoo weights and
// optimizer state travel as init recipes: the PEF stays small
// however large the model, and the runtime makes exactly the builder's numbers.
#include <catch2/catch.hpp>
#include <filesystem>

#include "TestEnv.h"
#include "driver/compile/Compiler.h"
#include "frontend/ModelZoo.h"
#include "pef/Bitfile.h"
#include "pef/Pef.h"

using namespace dfc;

TEST_CASE("a gpt2 PEF carries weight recipes, not megabytes, and they materialize to the zoo's numbers") {
  test::ScratchDir dir("recipes");
  driver::CompileOptions c;
  c.model = "gpt2";
  c.modelParams = {{"num_layers", 2}, {"hidden_size", 128}, {"num_heads", 2}, {"seq_len", 32}, {"vocab_size", 512}};
  c.batchSize = 2;
  c.optimizer = "adam";
  c.outputFolder = dir / "out";
  c.dbPath = "-";
  auto compiled = driver::compile(c);
  if (!compiled) FAIL(compiled.error().message());

  auto pef = pef::readPef(compiled->pefPath);
  REQUIRE(pef.ok());
  size_t paramBytes = 0, deferred = 0, params = 0;
  for (ir::ValueId p : pef->graph.params()) {
    ++params;
    paramBytes += pef->graph.value(p).type.byteSize();
    deferred += pef->graph.initializers.at(p).isDeferred();
  }
  CHECK(deferred == params);
  // Weights plus Adam's two moments would be 3x paramBytes; the PEF holds none of it.
  CHECK(std::filesystem::file_size(compiled->pefPath) * 10 < paramBytes);
  ir::ValueId m = pef->graph.findValue("h.1/mlp/c_fc.weight.adam_m");
  REQUIRE(m != ir::kNoValue);
  CHECK(pef->graph.initializers.at(m).recipe()->kind == ir::InitRecipe::Kind::Zeros);

  frontend::ZooOptions zoo;
  zoo.batchSize = 2;
  zoo.params = c.modelParams;
  auto model = frontend::buildZooModel("gpt2", zoo);
  REQUIRE(model.ok());
  for (const char* name : {"embeddings/wte", "h.1/mlp/c_fc.weight", "h.0/attn/ln_1.weight"}) {
    INFO(name);
    ir::ValueId inPef = pef->graph.findValue(name), inZoo = model->graph.findValue(name);
    REQUIRE((inPef != ir::kNoValue && inZoo != ir::kNoValue));
    ir::Tensor a = pef->graph.initializers.at(inPef).clone(), b = model->graph.initializers.at(inZoo).clone();
    REQUIRE(a.byteSize() == b.byteSize());
    CHECK(std::equal(a.span<float>().begin(), a.span<float>().end(), b.span<float>().begin()));
  }
}

namespace {

// Compiles `c` into `folder`, reusing hypersection results or compiling every instance again.
std::pair<driver::CompileResult, pef::Pef> compileWith(driver::CompileOptions c, const test::ScratchDir& dir,
                                                       bool reuse) {
  c.reuseHypersections = reuse;
  c.outputFolder = dir / (reuse ? "reuse" : "every");
  c.dbPath = "-";
  auto r = driver::compile(c);
  if (!r) FAIL(r.error().message());
  auto pef = pef::readPef(r->pefPath);
  REQUIRE(pef.ok());
  return std::make_pair(*r, std::move(*pef));
}

}  // namespace

TEST_CASE("reusing hypersection results gives the same bitfiles as compiling every instance") {
  test::ScratchDir dir("reuse");
  driver::CompileOptions c;
  c.model = "gpt2-mini";
  c.level = partition::OptLevel::O1;
  c.o1RuleList = "gpt2";
  auto [reused, a] = compileWith(c, dir, true);
  auto [every, b] = compileWith(c, dir, false);
  CHECK(reused.compileMsSavedEstimate > 0);
  CHECK(reused.placedHops == every.placedHops);
  CHECK(reused.routedHops == every.routedHops);
  CHECK(pef::encodeBitfiles(a.bitfiles) == pef::encodeBitfiles(b.bitfiles));
}

// SambaFlow: "By default, hypersections are enabled in o0 and o1 mode": each
// operator repeated across the layers compiles once, and compiling every
// instance again gives the very same bitfiles.
TEST_CASE("gpt2 with 4 layers at o0 compiles far fewer hypersections than sections, with the same bitfiles") {
  test::ScratchDir dir("o0-hypersections");
  driver::CompileOptions c;
  c.model = "gpt2";
  c.modelParams = {{"num_layers", 4}, {"hidden_size", 64}, {"num_heads", 2}, {"seq_len", 16}, {"vocab_size", 256}};
  c.batchSize = 2;
  c.level = partition::OptLevel::O0;
  auto [reused, a] = compileWith(c, dir, true);
  INFO(reused.numSections << " sections, " << reused.hypersectionsUnique << " hypersections");
  CHECK(reused.numSections == static_cast<int>(a.graph.nodes.size()));  // still one operator per section
  CHECK(reused.hypersectionsUnique * 3 < reused.numSections);
  CHECK(static_cast<int>(a.bitfiles.size()) == reused.hypersectionsUnique);
  // The same operator of layers 0 and 3 is one hypersection.
  auto hypersectionOf = [&](const std::string& scope, ir::OpKind op) {
    for (const auto& s : a.plan.sections) {
      const ir::Node& n = a.graph.node(s.nodes.front());
      if (n.scope == scope && n.op == op && n.role == ir::NodeRole::Forward) return s.hypersection;
    }
    return -1;
  };
  int first = hypersectionOf("h.0/mlp", ir::OpKind::Gelu);
  REQUIRE(first >= 0);
  CHECK(hypersectionOf("h.3/mlp", ir::OpKind::Gelu) == first);
  auto [every, b] = compileWith(c, dir, false);
  CHECK(every.numSections == reused.numSections);
  CHECK(pef::encodeBitfiles(a.bitfiles) == pef::encodeBitfiles(b.bitfiles));
}
