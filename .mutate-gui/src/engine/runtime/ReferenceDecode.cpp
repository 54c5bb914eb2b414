// Reference semantics of the decode family: naive loops over the definitions
// in Ops.def, double precision, no code shared with kernels/.
#include <cmath>
#include <string>
#include <vector>

#include "runtime/ReferenceFamilies.h"

namespace dfc::runtime::reference {
namespace {

using ir::Tensor;

// pos, checked so that rows pos..pos+rows-1 lie in a cache of `len` rows.
Expected<int64_t> positionOf(const RefArgs& a, const Tensor& pos, int64_t rows, int64_t len) {
  const int64_t p = pos.data<int64_t>()[0];
  if (p < 0 || p + rows > len)
    return a.fail("position " + std::to_string(p) + " with " + std::to_string(rows) + " new rows is outside the cache of " +
                  std::to_string(len));
  return p;
}

}  // namespace

Status DecodeReference::KvCacheWrite(const RefArgs& a) {
  const Tensor &cache = *a.in[0], &rows = *a.in[1];
  const ir::Shape& s = cache.shape();
  const int64_t n = s[2], dh = s[3], t = rows.shape()[2];
  auto at = positionOf(a, *a.in[2], t, n);
  if (!at) return at.error();
  const int64_t pos = *at;
  Tensor& y = a.out[0];
  for (int64_t o = 0; o < y.numElements(); ++o) {
    const Index idx = unravel(o, s);  // [b, h, row, d]
    const int64_t row = idx[2];
    const bool written = row >= pos && row < pos + t;
    const int64_t src = ((idx[0] * s[1] + idx[1]) * t + (row - pos)) * dh + idx[3];
    y.data<float>()[o] = written ? rows.data<float>()[src] : cache.data<float>()[o];
  }
  return {};
}

Status DecodeReference::DecodeAttention(const RefArgs& a) {
  const Tensor &q = *a.in[0], &k = *a.in[1], &v = *a.in[2];
  const ir::Shape &qs = q.shape(), &cs = k.shape();
  const int64_t batch = qs[0], heads = qs[1], t = qs[2], dh = qs[3], kvHeads = cs[1], n = cs[2];
  auto at = positionOf(a, *a.in[3], t, n);
  if (!at) return at.error();
  const int64_t pos = *at;
  const double scale = a.node.floatAttr("scale", 1.0 / std::sqrt(static_cast<double>(dh)));
  const float* slopes = a.in.size() > 4 ? a.in[4]->data<float>() : nullptr;
  auto qAt = [&](int64_t b, int64_t h, int64_t i, int64_t d) { return q.data<float>()[((b * heads + h) * t + i) * dh + d]; };
  auto cacheAt = [&](const Tensor& c, int64_t b, int64_t h, int64_t j, int64_t d) {
    return c.data<float>()[((b * kvHeads + h) * n + j) * dh + d];
  };
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t i = 0; i < t; ++i) {
        const int64_t kvh = h / (heads / kvHeads), last = pos + i;  // attends over rows 0..last
        std::vector<double> score(static_cast<size_t>(last + 1));
        double top = -INFINITY;
        for (int64_t j = 0; j <= last; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < dh; ++d) dot += static_cast<double>(qAt(b, h, i, d)) * cacheAt(k, b, kvh, j, d);
          score[static_cast<size_t>(j)] = dot * scale + (slopes ? slopes[h] * static_cast<double>(j) : 0.0);
          top = std::max(top, score[static_cast<size_t>(j)]);
        }
        double sum = 0;
        for (double& s : score) sum += (s = std::exp(s - top));
        for (int64_t d = 0; d < dh; ++d) {
          double acc = 0;
          for (int64_t j = 0; j <= last; ++j) acc += score[static_cast<size_t>(j)] * cacheAt(v, b, kvh, j, d);
          a.out[0].data<float>()[((b * heads + h) * t + i) * dh + d] = static_cast<float>(acc / sum);
        }
      }
  return {};
}

}  // namespace dfc::runtime::reference
