#pragma once
// The element count of a range of a shape's dimensions: importers, kernels and
// gradient rules flatten tensors to [outer, inner] views with it.
#include <algorithm>
#include <cstdint>

#include "ir/Tensor.h"

namespace dfc::ir {

// The product of dims [from, to) of `s` (`to` clamped to its rank); 1 for an empty range.
inline int64_t dimProduct(const Shape& s, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < std::min(to, s.size()); ++i) p *= s[i];
  return p;
}

}  // namespace dfc::ir
