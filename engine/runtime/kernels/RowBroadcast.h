#pragma once
// numpy broadcasting as runs of contiguous output elements: the axes are
// merged where every input steps through them as one (size-1 axes dropped),
// and the last merged axis is a row each input reads either element by element
// (inner stride 1) or as one repeated element (inner stride 0). A kernel then
// loops flat over each run, which the compiler vectorizes, instead of paying
// the odometer per element: [N,C,H,W] x [1,C,1,1] becomes N*C rows of H*W with
// one scalar each, [B,T,D] + [D] B*T rows of a shared vector.
#include <algorithm>

#include "runtime/kernels/GeneralCommon.h"

namespace dfc::runtime::kernels {

template <size_t N>
class RowBroadcast {
 public:
  static RowBroadcast ofShapes(const ir::Shape& out, const std::array<ir::Shape, N>& inputs) {
    std::array<std::vector<int64_t>, N> full;
    for (size_t k = 0; k < N; ++k) full[k] = broadcastStrides(inputs[k], out);
    ir::Shape shape;  // merged axes, outermost first
    std::array<std::vector<int64_t>, N> strides;
    for (size_t d = 0; d < out.size(); ++d) {
      if (out[d] == 1) continue;
      if (!shape.empty() && mergesWithLast(full, strides, d, out[d])) {
        shape.back() *= out[d];
        for (size_t k = 0; k < N; ++k) strides[k].back() = full[k][d];
        continue;
      }
      shape.push_back(out[d]);
      for (size_t k = 0; k < N; ++k) strides[k].push_back(full[k][d]);
    }
    return RowBroadcast(std::move(shape), std::move(strides));
  }

  // Elements in one row (1 for a scalar output; 0 when the output is empty).
  int64_t rowLength() const { return m_row; }
  // Each input's step along a row: 1 (its elements) or 0 (one element repeated).
  const std::array<int64_t, N>& innerStrides() const { return m_inner; }

  // f(outIndex, offsets, count) for runs of `count` contiguous output
  // elements covering [begin, end); input k's run starts at offsets[k].
  template <typename F>
  void forEachRun(int64_t begin, int64_t end, F&& f) const {
    if (begin >= end || m_row <= 0) return;
    const int64_t firstRow = begin / m_row, lastRow = (end - 1) / m_row;
    m_rows.forEach(firstRow, lastRow + 1, [&](int64_t r, const std::array<int64_t, N>& rowOff) {
      const int64_t lo = std::max(begin, r * m_row), hi = std::min(end, (r + 1) * m_row);
      std::array<int64_t, N> off = rowOff;
      for (size_t k = 0; k < N; ++k) off[k] += (lo - r * m_row) * m_inner[k];
      f(lo, off, hi - lo);
    });
  }

 private:
  using Strides = std::array<std::vector<int64_t>, N>;

  // Output axis d (of size n) continues the last merged axis for every input.
  static bool mergesWithLast(const Strides& full, const Strides& merged, size_t d, int64_t n) {
    for (size_t k = 0; k < N; ++k)
      if (merged[k].back() != full[k][d] * n) return false;
    return true;
  }

  RowBroadcast(ir::Shape shape, Strides strides) : m_rows(Broadcast<N>::ofShapes({}, {})) {
    if (shape.empty()) {  // a scalar output: one row of one element
      shape.push_back(1);
      for (auto& s : strides) s.push_back(0);
    }
    m_row = shape.back();
    for (size_t k = 0; k < N; ++k) {
      m_inner[k] = strides[k].back();
      strides[k].pop_back();
    }
    shape.pop_back();
    m_rows = Broadcast<N>::withStrides(std::move(shape), std::move(strides));
  }

  int64_t m_row = 0;
  std::array<int64_t, N> m_inner{};
  Broadcast<N> m_rows;  // over the rows: the offset of each input's row start
};

}  // namespace dfc::runtime::kernels
