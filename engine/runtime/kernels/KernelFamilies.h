#pragma once
// Internal to the runtime: one kernel factory per op, grouped by the family
// column of Ops.def. The declarations and the table in Kernels.cpp are
// generated from Ops.def and name <Family>Kernels::<Op> for every op, so an op
// added there without its kernel does not link. A factory decodes the node's attributes,
// checks the tensors and returns a typed Kernel bound to them. (Member names
// are the OpKind enumerators, hence PascalCase.)
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ir/OpFamilies.gen.h"
#include "runtime/Kernel.h"

namespace dfc::runtime::kernels {

using Inputs = std::span<const ir::Tensor* const>;
using Outputs = std::span<ir::Tensor* const>;
using Made = Expected<KernelPtr>;

// A node and its tensors, checked for arity and storage.
struct KernelArgs {
  const ir::Node& node;
  Inputs in;
  Outputs out;

  Error fail(const std::string& what) const {  // "conv2d 'conv1': <what>"
    return makeError(std::string(ir::opName(node.op)) + " '" + node.name + "': " + what);
  }
  bool allF32() const;  // every input and output
};

using KernelFactory = Made (*)(const KernelArgs&);

template <typename K, typename... Args>
Made make(Args&&... args) {
  return KernelPtr(std::make_unique<K>(std::forward<Args>(args)...));
}

// Attribute pair ("stride", "pad", "kernel") with the same fallback as shape inference.
inline std::vector<int64_t> pairAttr(const ir::Node& node, const char* key, int64_t fallback) {
  auto v = node.intsAttr(key);
  if (v.size() != 2) v = {fallback, fallback};
  return v;
}

// Elements per parallel chunk for streaming loops (64 KB of floats, a few
// microseconds against about 1 us a chunk costs the pool): smaller tensors stay
// on one core. At 64K elements MobileNetV3's squeeze-excite products (47-94K)
// ran on one thread of two, reading the half the other core had written: 15 us
// on one thread, 37-141 us on two.
constexpr int64_t kElementGrain = int64_t{1} << 14;
// Grain in units of `unit` elements each (rows, planes), at least 1.
inline int64_t grainOf(int64_t unit) { return unit > 0 ? std::max<int64_t>(1, kElementGrain / unit) : 1; }

// A float sum (global_avg_pool, batch_norm statistics) in 16 interleaved
// lanes, lane l summing elements l, l + 16, ... in order, then the lanes and
// the tail in a fixed order: vectorized, and the same bits on any CPU. In
// index order, one add waited for the last: 17 pools took 1.3 ms of an
// EfficientNet-B0 step.
inline float sumLoop(const float* __restrict x, int64_t n) {
  constexpr int64_t kLanes = 16;
  float lane[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t l = 0; l < kLanes; ++l) lane[l] += x[i + l];
  float acc = 0;
  for (int64_t l = 0; l < kLanes; ++l) acc += lane[l];
  for (; i < n; ++i) acc += x[i];
  return acc;
}

// A multi-index for odometer loops, inline up to kInline axes.
class AxisIndex {
 public:
  explicit AxisIndex(size_t rank) : m_rank(rank) {
    if (rank > kInline) m_heap.assign(rank, 0);
  }
  int64_t& operator[](size_t d) { return m_rank > kInline ? m_heap[d] : m_inline[d]; }

 private:
  static constexpr size_t kInline = 8;
  size_t m_rank;
  std::array<int64_t, kInline> m_inline{};
  std::vector<int64_t> m_heap;
};

// y = loop(in0, in1) over the elements, split over the pool in chunks of
// kElementGrain; in1 is absent (null) for one-input loops.
using StreamLoop = void (*)(const float*, const float*, float*, int64_t);
class StreamKernel final : public TileKernel {
 public:
  StreamKernel(const KernelArgs& a, StreamLoop loop)
      : TileKernel(a.node), m_a(a.in[0]), m_b(a.in.size() > 1 ? a.in[1] : nullptr), m_y(a.out[0]), m_loop(loop) {}
  Status run(ExecContext& ctx) override {
    const float* a = m_a->data<float>();
    const float* b = m_b ? m_b->data<float>() : nullptr;
    float* y = m_y->data<float>();
    return ctx.pool().parallelFor(0, m_y->numElements(), kElementGrain, [&](int64_t lo, int64_t hi) {
      m_loop(a + lo, b ? b + lo : nullptr, y + lo, hi - lo);
    });
  }
  void runTile(const float* const* in, float* out, int64_t n) const override {
    m_loop(in[0], m_b ? in[1] : nullptr, out, n);
  }

 private:
  const ir::Tensor *m_a, *m_b;
  ir::Tensor* m_y;
  StreamLoop m_loop;
};

// The first of `count` ids outside [0, bound), as "<what> <id> at <where> <i> is
// outside [0,<bound>)"; empty when all are inside.
std::string firstOutOfRange(const int64_t* ids, int64_t count, int64_t bound, const char* what, const char* where);

// Geometry of one 2-D window op (conv or pool), NCHW.
struct Window {
  int64_t n = 0, c = 0, h = 0, w = 0;  // input
  int64_t kh = 0, kw = 0, sh = 1, sw = 1, ph = 0, pw = 0;
  int64_t oh = 0, ow = 0;  // output
};

// One struct per family, <Family>Kernels, with a factory per op of the family:
// declared from Ops.def (OpFamilies.gen.h), defined in kernels/<Family>.cpp
// (linalg: Gemm.cpp; general: General*.cpp and Collective.cpp).
#define DFC_KERNEL_FACTORY(Op) static Made Op(const KernelArgs& a);
DFC_FAMILY_STRUCTS(Kernels, DFC_KERNEL_FACTORY)
#undef DFC_KERNEL_FACTORY

}  // namespace dfc::runtime::kernels
