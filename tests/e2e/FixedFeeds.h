#pragma once
// Fixed inputs for one step of a compiled PEF: floats in [0, 1), integer ids
// and labels in [0, classes) (the logits' last axis), the learning rate 0.01.
#include <map>
#include <random>

#include "pef/Pef.h"

namespace dfc::test {

inline std::map<ir::ValueId, ir::Tensor> fixedFeeds(const pef::Pef& pef, unsigned seed = 7) {
  const ir::Graph& g = pef.graph;
  const int64_t classes = g.value(g.findValue(pef.meta.logitsOutput)).type.shape.back();
  std::mt19937 rng(seed);
  std::map<ir::ValueId, ir::Tensor> feeds;
  for (ir::ValueId id : g.inputs) {
    ir::Tensor t(g.value(id).type);
    if (g.value(id).name == pef.meta.lrInput)
      t.data<float>()[0] = 0.01f;
    else if (t.dtype() == ir::DType::I64)
      for (int64_t& v : t.span<int64_t>()) v = static_cast<int64_t>(rng() % static_cast<uint64_t>(classes));
    else
      for (float& v : t.span<float>()) v = std::uniform_real_distribution<float>(0.0f, 1.0f)(rng);
    feeds.emplace(id, std::move(t));
  }
  return feeds;
}

}  // namespace dfc::test
