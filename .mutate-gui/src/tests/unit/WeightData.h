#pragma once
// Weights are init recipes until the runtime loads them; tests that look at the
// numbers materialize them with clone(), as the runtime does.
#include <vector>

#include "ir/Graph.h"

inline std::vector<float> weightData(const dfc::ir::Graph& g, dfc::ir::ValueId v) {
  dfc::ir::Tensor t = g.initializers.at(v).clone();
  auto s = t.span<float>();
  return {s.begin(), s.end()};
}
