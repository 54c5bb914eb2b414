#pragma once
// Shared by the general-op kernels (General*.cpp): the fn attribute and the
// numpy-broadcast odometer.
#include <array>
#include <string>

#include "runtime/kernels/KernelFamilies.h"

namespace dfc::runtime::kernels {

inline std::string fnAttr(const ir::Node& n) {
  auto it = n.attrs.find("fn");
  const std::string* s = it == n.attrs.end() ? nullptr : std::get_if<std::string>(&it->second);
  return s ? *s : std::string();
}

// Element strides of `in` laid over `out` (0 on broadcast axes), rank of out.
inline std::vector<int64_t> broadcastStrides(const ir::Shape& in, const ir::Shape& out) {
  std::vector<int64_t> st(out.size(), 0);
  int64_t stride = 1;
  for (size_t i = in.size(); i-- > 0;) {
    size_t o = i + (out.size() - in.size());
    st[o] = in[i] == 1 ? 0 : stride;
    stride *= in[i];
  }
  return st;
}

// N inputs laid over an output shape through per-axis element strides,
// computed once; forEach walks any range of output elements.
template <size_t N>
class Broadcast {
 public:
  using Strides = std::array<std::vector<int64_t>, N>;
  // numpy broadcasting of each input shape to `out`.
  static Broadcast ofShapes(const ir::Shape& out, const std::array<ir::Shape, N>& inputs) {
    Strides strides;
    for (size_t k = 0; k < N; ++k) strides[k] = broadcastStrides(inputs[k], out);
    return Broadcast(out, std::move(strides));
  }
  // Given strides, one per output axis for each input.
  static Broadcast withStrides(ir::Shape out, Strides strides) { return Broadcast(std::move(out), std::move(strides)); }

  // f(outIndex, offsets) for output elements [begin, end), offsets per input.
  template <typename F>
  void forEach(int64_t begin, int64_t end, F&& f) const {
    const size_t rank = m_out.size();
    AxisIndex idx(rank);
    std::array<int64_t, N> off{};
    int64_t rest = begin;
    for (size_t d = rank; d-- > 0 && begin < end;) {
      idx[d] = rest % m_out[d];
      rest /= m_out[d];
      for (size_t k = 0; k < N; ++k) off[k] += idx[d] * m_strides[k][d];
    }
    for (int64_t i = begin; i < end; ++i) {
      f(i, off);
      for (size_t d = rank; d-- > 0;) {
        ++idx[d];
        for (size_t k = 0; k < N; ++k) off[k] += m_strides[k][d];
        if (idx[d] < m_out[d]) break;
        for (size_t k = 0; k < N; ++k) off[k] -= m_strides[k][d] * idx[d];
        idx[d] = 0;
      }
    }
  }

 private:
  Broadcast(ir::Shape out, Strides strides) : m_out(std::move(out)), m_strides(std::move(strides)) {}
  ir::Shape m_out;
  Strides m_strides;
};

}  // namespace dfc::runtime::kernels
