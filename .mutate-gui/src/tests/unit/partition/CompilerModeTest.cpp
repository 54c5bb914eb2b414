#include <catch2/catch.hpp>

#include "autograd/Autograd.h"
#include "frontend/ModelZoo.h"
#include "partition/CompilerMode.h"
#include "partition/Decomposer.h"

using namespace dfc;

TEST_CASE("compiler modes: empty or nlp, anything else names the flag and the accepted values") {
  CHECK(*partition::parseCompilerMode("") == partition::CompilerMode::Default);
  CHECK(*partition::parseCompilerMode("nlp") == partition::CompilerMode::Nlp);
  auto bad = partition::parseCompilerMode("cv");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().message(), Catch::Contains("--compiler-mode") && Catch::Contains("'cv'") &&
                                        Catch::Contains("nlp"));
}

TEST_CASE("attention scopes of gpt2 and bert blocks") {
  CHECK(partition::attentionScope("h.3/attn") == "h.3/attn");
  CHECK(partition::attentionScope("h.3/attn/c_attn") == "h.3/attn");
  CHECK(partition::attentionScope("layer.0/attention") == "layer.0/attention");
  CHECK(partition::attentionScope("h.3/mlp").empty());
  CHECK(partition::attentionScope("attnx/y").empty());
}

TEST_CASE("nlp mode's -o1 rule list fuses gpt2-mini differently from the default list") {
  CHECK(partition::defaultO1RuleList(partition::CompilerMode::Default) == "default");
  CHECK(partition::defaultO1RuleList(partition::CompilerMode::Nlp) == "nlp");
  auto m = frontend::buildZooModel("gpt2-mini", 8, 7);
  REQUIRE(m.ok());
  auto tg = autograd::buildTrainingGraph(m->graph, m->image, m->logits, {});
  REQUIRE(tg.ok());
  auto fused = [&](partition::CompilerMode mode) {
    partition::DecomposeOptions o;
    o.level = partition::OptLevel::O1;
    o.o1RuleList = partition::defaultO1RuleList(mode);
    auto s = partition::decompose(tg->graph, o);
    REQUIRE(s.ok());
    return *s;
  };
  auto base = fused(partition::CompilerMode::Default);
  auto nlp = fused(partition::CompilerMode::Nlp);
  bool differ = base.size() != nlp.size();
  for (size_t i = 0; !differ && i < base.size(); ++i) differ = base[i].nodes != nlp[i].nodes || base[i].rule != nlp[i].rule;
  CHECK(differ);
}
