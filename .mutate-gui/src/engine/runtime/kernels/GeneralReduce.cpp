// The general reductions (reduce with an fn) and the block copies concat and
// gather. Attributes, strides and accumulators are set up at prepare; these
// run on one thread (reductions keep one summation order).
#include <cmath>
#include <cstring>
#include <limits>

#include "ir/ShapeProduct.h"
#include "runtime/kernels/GeneralCommon.h"

namespace dfc::runtime::kernels {
namespace {

enum class ReduceFn { Sum, Mean, Max, Min, Prod, L1, L2, SumSquare, LogSumExp, LogSum };

bool parseReduceFn(const std::string& fn, ReduceFn& out) {
  static const std::pair<const char*, ReduceFn> kFns[] = {
      {"sum", ReduceFn::Sum}, {"mean", ReduceFn::Mean}, {"max", ReduceFn::Max}, {"min", ReduceFn::Min},
      {"prod", ReduceFn::Prod}, {"l1", ReduceFn::L1}, {"l2", ReduceFn::L2}, {"sum_square", ReduceFn::SumSquare},
      {"log_sum_exp", ReduceFn::LogSumExp}, {"log_sum", ReduceFn::LogSum}};
  for (const auto& [name, value] : kFns)
    if (fn == name) {
      out = value;
      return true;
    }
  return false;
}

double initialValue(ReduceFn fn) {
  switch (fn) {
    case ReduceFn::Max: return -std::numeric_limits<double>::infinity();
    case ReduceFn::Min: return std::numeric_limits<double>::infinity();
    case ReduceFn::Prod: return 1.0;
    default: return 0.0;
  }
}

double accumulate(ReduceFn fn, double r, double v, double max) {
  switch (fn) {
    case ReduceFn::Max: return std::max(r, v);
    case ReduceFn::Min: return std::min(r, v);
    case ReduceFn::Prod: return r * v;
    case ReduceFn::L1: return r + std::fabs(v);
    case ReduceFn::L2:
    case ReduceFn::SumSquare: return r + v * v;
    case ReduceFn::LogSumExp: return r + std::exp(v - max);
    default: return r + v;
  }
}

double finish(ReduceFn fn, double r, int64_t reduced, double max) {
  switch (fn) {
    case ReduceFn::Mean: return r / static_cast<double>(reduced);
    case ReduceFn::L2: return std::sqrt(r);
    case ReduceFn::LogSum: return std::log(r);
    case ReduceFn::LogSumExp: return std::log(r) + max;
    default: return r;
  }
}

// x's elements mapped onto the kept (size-1) axes of the output by broadcast strides.
class ReduceKernel final : public Kernel {
 public:
  ReduceKernel(const KernelArgs& a, ReduceFn fn, const ir::Shape& kept)
      : Kernel(a.node), m_x(a.in[0]), m_y(a.out[0]), m_fn(fn), m_bc(Broadcast<1>::withStrides(a.in[0]->shape(), {broadcastStrides(kept, a.in[0]->shape())})),
        m_acc(static_cast<size_t>(a.out[0]->numElements())),
        m_max(fn == ReduceFn::LogSumExp ? m_acc.size() : 0) {}
  Status run(ExecContext&) override {
    const float* px = m_x->data<float>();
    const int64_t total = m_x->numElements(), outCount = m_y->numElements();
    std::fill(m_acc.begin(), m_acc.end(), initialValue(m_fn));
    if (m_fn == ReduceFn::LogSumExp) {  // subtract the max so exp cannot overflow
      std::fill(m_max.begin(), m_max.end(), -std::numeric_limits<double>::infinity());
      m_bc.forEach(0, total, [&](int64_t i, const std::array<int64_t, 1>& o) {
        double& mx = m_max[static_cast<size_t>(o[0])];
        mx = std::max(mx, static_cast<double>(px[i]));
      });
    }
    m_bc.forEach(0, total, [&](int64_t i, const std::array<int64_t, 1>& o) {
      const size_t k = static_cast<size_t>(o[0]);
      m_acc[k] = accumulate(m_fn, m_acc[k], px[i], m_max.empty() ? 0.0 : m_max[k]);
    });
    const int64_t reduced = outCount > 0 ? total / outCount : 0;
    float* py = m_y->data<float>();
    for (int64_t i = 0; i < outCount; ++i) {
      const size_t k = static_cast<size_t>(i);
      py[i] = static_cast<float>(finish(m_fn, m_acc[k], reduced, m_max.empty() ? 0.0 : m_max[k]));
    }
    return {};
  }

 private:
  const ir::Tensor* m_x;
  ir::Tensor* m_y;
  ReduceFn m_fn;
  Broadcast<1> m_bc;
  std::vector<double> m_acc, m_max;  // per output element
};

// Inputs laid side by side along `axis`: each contributes one block per outer index.
class ConcatKernel final : public Kernel {
 public:
  ConcatKernel(const KernelArgs& a, int64_t outer, int64_t rowBytes, std::vector<int64_t> chunkBytes)
      : Kernel(a.node), m_in(a.in.begin(), a.in.end()), m_y(a.out[0]), m_outer(outer), m_rowBytes(rowBytes),
        m_chunkBytes(std::move(chunkBytes)) {}
  Status run(ExecContext&) override {
    int64_t at = 0;
    for (size_t k = 0; k < m_in.size(); ++k) {
      const int64_t chunk = m_chunkBytes[k];
      for (int64_t o = 0; o < m_outer; ++o)
        std::memcpy(m_y->bytes() + o * m_rowBytes + at, m_in[k]->bytes() + o * chunk, static_cast<size_t>(chunk));
      at += chunk;
    }
    return {};
  }

 private:
  std::vector<const ir::Tensor*> m_in;
  ir::Tensor* m_y;
  int64_t m_outer, m_rowBytes;
  std::vector<int64_t> m_chunkBytes;
};

// ONNX Gather: y[a..., j..., b...] = x[a..., idx[j...], b...]; negative indices count from the end.
class GatherKernel final : public Kernel {
 public:
  GatherKernel(const KernelArgs& a, int64_t outer, int64_t len, int64_t innerBytes)
      : Kernel(a.node), m_x(a.in[0]), m_idx(a.in[1]), m_y(a.out[0]), m_outer(outer), m_len(len), m_innerBytes(innerBytes) {}
  Status run(ExecContext&) override {
    const int64_t count = m_idx->numElements();
    const bool wide = m_idx->dtype() == ir::DType::I64;
    for (int64_t o = 0; o < m_outer; ++o)
      for (int64_t j = 0; j < count; ++j) {
        int64_t k = wide ? m_idx->data<int64_t>()[j] : m_idx->data<int32_t>()[j];
        if (k < 0) k += m_len;
        if (k < 0 || k >= m_len)
          return fail("index " + std::to_string(k) + " out of range [0, " + std::to_string(m_len) + ")");
        std::memcpy(m_y->bytes() + (o * count + j) * m_innerBytes, m_x->bytes() + (o * m_len + k) * m_innerBytes,
                    static_cast<size_t>(m_innerBytes));
      }
    return {};
  }

 private:
  const ir::Tensor *m_x, *m_idx;
  ir::Tensor* m_y;
  int64_t m_outer, m_len, m_innerBytes;
};

// The axis attribute, checked against `rank`.
Expected<size_t> axisOf(const KernelArgs& a, size_t rank) {
  const int64_t axis = a.node.intAttr("axis");
  if (axis < 0 || axis >= static_cast<int64_t>(rank)) return a.fail("axis out of range");
  return static_cast<size_t>(axis);
}

}  // namespace

Made GeneralKernels::Reduce(const KernelArgs& a) {
  const std::string fnName = fnAttr(a.node);
  ReduceFn fn{};
  if (!parseReduceFn(fnName, fn)) return a.fail("unknown reduce fn '" + fnName + "'");
  ir::Shape kept = a.in[0]->shape();
  for (int64_t ax : a.node.intsAttr("axes")) {
    if (ax < 0 || ax >= static_cast<int64_t>(kept.size())) return a.fail("axis out of range");
    kept[static_cast<size_t>(ax)] = 1;
  }
  return make<ReduceKernel>(a, fn, kept);
}

Made GeneralKernels::Concat(const KernelArgs& a) {
  const ir::Shape& ys = a.out[0]->shape();
  auto axis = axisOf(a, ys.size());
  if (!axis) return axis.error();
  const int64_t inner = ir::dimProduct(ys, *axis + 1, ys.size());
  const int64_t es = static_cast<int64_t>(ir::dtypeSize(a.out[0]->dtype()));
  std::vector<int64_t> chunkBytes;
  for (const ir::Tensor* t : a.in) chunkBytes.push_back(t->shape()[*axis] * inner * es);
  return make<ConcatKernel>(a, ir::dimProduct(ys, 0, *axis), ys[*axis] * inner * es, std::move(chunkBytes));
}

Made GeneralKernels::Gather(const KernelArgs& a) {
  const ir::Shape& xs = a.in[0]->shape();
  auto axis = axisOf(a, xs.size());
  if (!axis) return axis.error();
  const int64_t es = static_cast<int64_t>(ir::dtypeSize(a.in[0]->dtype()));
  return make<GatherKernel>(a, ir::dimProduct(xs, 0, *axis), xs[*axis], ir::dimProduct(xs, *axis + 1, xs.size()) * es);
}

}  // namespace dfc::runtime::kernels
