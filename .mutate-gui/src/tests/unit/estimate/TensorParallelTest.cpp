// The tensor-parallel annotation on llama-tiny (2 layers, 4 heads, 2 KV
// heads): Megatron's collectives and splits, and nothing at one chip.
#include <catch2/catch.hpp>

#include "estimate/TensorParallel.h"
#include "frontend/ModelZoo.h"

using namespace dfc;
using estimate::Collective;

namespace {

ir::Graph tinyLlama() {
  frontend::ZooOptions o;
  o.batchSize = 1;
  auto m = frontend::buildZooModel("llama-tiny", o);
  REQUIRE(m);
  return std::move(m->graph);
}

struct Counts {
  int allReduce = 0, allGather = 0;
};

Counts count(const estimate::TensorParallelPlan& p) {
  Counts c;
  for (const auto& n : p.nodes)
    for (const auto& k : n.collectives) (k.kind == Collective::Kind::AllReduce ? c.allReduce : c.allGather)++;
  return c;
}

int weightShare(const ir::Graph& g, const estimate::TensorParallelPlan& p, const std::string& weightName) {
  for (const ir::Node& n : g.nodes)
    for (size_t i = 0; i < n.inputs.size(); ++i)
      if (g.value(n.inputs[i]).name.find(weightName) != std::string::npos) return p.nodes[static_cast<size_t>(n.id)].inputShare[i];
  return 0;
}

}  // namespace

TEST_CASE("tensor parallel: an all-reduce after each attention output and MLP down projection, heads split") {
  ir::Graph g = tinyLlama();
  auto p = estimate::planTensorParallel(g, 2);
  Counts c = count(p);
  CHECK(c.allReduce == 2 * 2 + 1);  // two per layer, one after the vocabulary-parallel embedding
  CHECK(c.allGather == 1);          // the logits
  CHECK(weightShare(g, p, "layers.0/self_attn/q_proj") == 2);
  CHECK(weightShare(g, p, "layers.0/self_attn/o_proj") == 2);
  CHECK(weightShare(g, p, "layers.0/mlp/down_proj") == 2);
  CHECK(weightShare(g, p, "lm_head") == 2);
  CHECK(weightShare(g, p, "input_layernorm") == 1);  // norm weights stay whole on every chip
}

TEST_CASE("tensor parallel: KV projections split over at most the KV heads") {
  ir::Graph g = tinyLlama();
  auto p = estimate::planTensorParallel(g, 4);  // 4 query heads, 2 KV heads
  CHECK(weightShare(g, p, "layers.0/self_attn/q_proj") == 4);
  CHECK(weightShare(g, p, "layers.0/self_attn/k_proj") == 2);
  CHECK(weightShare(g, p, "layers.0/self_attn/v_proj") == 2);
}

TEST_CASE("tensor parallel over one chip: no split, no collective") {
  ir::Graph g = tinyLlama();
  auto p = estimate::planTensorParallel(g, 1);
  Counts c = count(p);
  CHECK(c.allReduce + c.allGather == 0);
  for (const auto& n : p.nodes) CHECK(n.flopShare == 1);
}
