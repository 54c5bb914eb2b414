// Data movement and axis reductions: reshape, reduce_sum, transpose (any
// dtype), slice and its gradient. Strides and block sizes are computed once
// at prepare; copies are split over the pool by rows, reduce_sum stays on
// one thread (its sums keep one order).
#include <cstring>

#include "ir/ShapeProduct.h"
#include "runtime/kernels/KernelFamilies.h"

namespace dfc::runtime::kernels {
namespace {

class ReshapeKernel final : public Kernel {
 public:
  explicit ReshapeKernel(const KernelArgs& a) : Kernel(a.node), m_x(a.in[0]), m_y(a.out[0]) {}
  Status run(ExecContext&) override {
    if (m_y->bytes() != m_x->bytes())  // else a view (ArenaPlan.h): the bytes are already there
      std::memcpy(m_y->bytes(), m_x->bytes(), m_x->byteSize());
    return {};
  }

 private:
  const ir::Tensor* m_x;
  ir::Tensor* m_y;
};

// An odometer over the input with output strides that are zero on reduced
// axes, so any set of axes works; the innermost axis runs as a contiguous row.
class ReduceSumKernel final : public Kernel {
 public:
  ReduceSumKernel(const KernelArgs& a, std::vector<int64_t> outStride)
      : Kernel(a.node), m_x(a.in[0]), m_y(a.out[0]), m_outStride(std::move(outStride)) {}
  Status run(ExecContext&) override {
    const ir::Shape& xs = m_x->shape();
    const size_t rank = xs.size();
    float* py = m_y->data<float>();
    std::memset(py, 0, m_y->byteSize());
    const float* px = m_x->data<float>();
    const int64_t total = m_x->numElements();
    if (total == 0) return {};
    if (rank == 0) {
      py[0] = px[0];
      return {};
    }
    const int64_t inner = xs[rank - 1], innerStride = m_outStride[rank - 1];
    AxisIndex idx(rank);
    int64_t outBase = 0;
    for (int64_t i = 0; i < total; i += inner) {
      if (innerStride == 0) {
        float acc = 0;
        for (int64_t j = 0; j < inner; ++j) acc += px[i + j];
        py[outBase] += acc;
      } else {
        for (int64_t j = 0; j < inner; ++j) py[outBase + j] += px[i + j];
      }
      for (size_t d = rank - 1; d-- > 0;) {  // advance the odometer over the outer axes
        ++idx[d];
        outBase += m_outStride[d];
        if (idx[d] < xs[d]) break;
        outBase -= m_outStride[d] * idx[d];
        idx[d] = 0;
      }
    }
    return {};
  }

 private:
  const ir::Tensor* m_x;
  ir::Tensor* m_y;
  std::vector<int64_t> m_outStride;
};

// Gathers a contiguous output row from a strided input: the inner loop of transpose.
template <typename T>
void gatherRow(const T* __restrict x, int64_t stride, T* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i * stride];
}

// Output rows [rowBegin, rowEnd) of a transpose; outShape/srcStride are per output axis.
template <typename T>
void transposeRows(const std::byte* x, std::byte* y, const std::vector<int64_t>& outShape,
                   const std::vector<int64_t>& srcStride, int64_t rowBegin, int64_t rowEnd) {
  const size_t rank = outShape.size();
  const int64_t inner = outShape[rank - 1], innerStride = srcStride[rank - 1];
  AxisIndex idx(rank);
  int64_t src = 0, rest = rowBegin;
  for (size_t d = rank - 1; d-- > 0;) {
    idx[d] = rest % outShape[d];
    rest /= outShape[d];
    src += idx[d] * srcStride[d];
  }
  const T* px = reinterpret_cast<const T*>(x);
  T* py = reinterpret_cast<T*>(y);
  for (int64_t row = rowBegin; row < rowEnd; ++row) {
    gatherRow(px + src, innerStride, py + row * inner, inner);
    for (size_t d = rank - 1; d-- > 0;) {  // odometer over the outer output axes
      ++idx[d];
      src += srcStride[d];
      if (idx[d] < outShape[d]) break;
      src -= srcStride[d] * idx[d];
      idx[d] = 0;
    }
  }
}

using RowsFn = void (*)(const std::byte*, std::byte*, const std::vector<int64_t>&, const std::vector<int64_t>&, int64_t,
                        int64_t);

class TransposeKernel final : public Kernel {
 public:
  TransposeKernel(const KernelArgs& a, RowsFn rows, std::vector<int64_t> outShape, std::vector<int64_t> srcStride)
      : Kernel(a.node), m_x(a.in[0]), m_y(a.out[0]), m_rows(rows), m_outShape(std::move(outShape)),
        m_srcStride(std::move(srcStride)) {}
  Status run(ExecContext& ctx) override {
    const int64_t total = m_y->numElements();
    if (total == 0) return {};
    if (m_outShape.empty()) {  // a scalar
      std::memcpy(m_y->bytes(), m_x->bytes(), m_x->byteSize());
      return {};
    }
    const int64_t inner = m_outShape.back();
    return ctx.pool().parallelFor(0, total / inner, grainOf(inner), [&](int64_t lo, int64_t hi) {
      m_rows(m_x->bytes(), m_y->bytes(), m_outShape, m_srcStride, lo, hi);
    });
  }

 private:
  const ir::Tensor* m_x;
  ir::Tensor* m_y;
  RowsFn m_rows;
  std::vector<int64_t> m_outShape, m_srcStride;
};

// slice copies blocks [outer][start:start+len][inner] out of x; slice_grad
// writes them back into a zeroed tensor of the input shape, one outer row per task.
class SliceKernel final : public Kernel {
 public:
  SliceKernel(const KernelArgs& a, bool grad, int64_t outer, int64_t axisLen, int64_t start, int64_t len, int64_t inner)
      : Kernel(a.node), m_src(a.in[0]), m_dst(a.out[0]), m_grad(grad), m_outer(outer), m_axisLen(axisLen),
        m_start(start), m_len(len), m_inner(inner) {}
  Status run(ExecContext& ctx) override {
    const float* src = m_src->data<float>();
    float* dst = m_dst->data<float>();
    if (!m_grad && m_outer == 1 && dst == src + m_start * m_inner) return {};  // a view (ArenaPlan.h)
    const size_t block = static_cast<size_t>(m_len * m_inner) * sizeof(float);
    return ctx.pool().parallelFor(0, m_outer, grainOf(m_axisLen * m_inner), [&](int64_t lo, int64_t hi) {
      for (int64_t o = lo; o < hi; ++o) {
        const int64_t bigOff = (o * m_axisLen + m_start) * m_inner, smallOff = o * m_len * m_inner;
        if (!m_grad) {
          std::memcpy(dst + smallOff, src + bigOff, block);
          continue;
        }
        std::memset(dst + o * m_axisLen * m_inner, 0, static_cast<size_t>(m_axisLen * m_inner) * sizeof(float));
        std::memcpy(dst + bigOff, src + smallOff, block);
      }
    });
  }

 private:
  const ir::Tensor* m_src;
  ir::Tensor* m_dst;
  bool m_grad;
  int64_t m_outer, m_axisLen, m_start, m_len, m_inner;
};

Made slice(const KernelArgs& a, bool grad) {
  if (a.in[0]->dtype() != ir::DType::F32) return a.fail("expects f32");
  const ir::Tensor &src = *a.in[0], &dst = *a.out[0];
  const ir::Shape& big = grad ? dst.shape() : src.shape();
  const int64_t axis = a.node.intAttr("axis", -1), start = a.node.intAttr("start");
  if (axis < 0 || axis >= static_cast<int64_t>(big.size())) return a.fail("axis out of range");
  const size_t ax = static_cast<size_t>(axis);
  const int64_t len = (grad ? src.shape() : dst.shape())[ax];
  if (start < 0 || start + len > big[ax]) return a.fail("range outside the axis");
  return make<SliceKernel>(a, grad, ir::dimProduct(big, 0, ax), big[ax], start, len,
                           ir::dimProduct(big, ax + 1, big.size()));
}

}  // namespace

Made LayoutKernels::Reshape(const KernelArgs& a) {
  if (a.in[0]->byteSize() != a.out[0]->byteSize()) return a.fail("reshape changes the byte size");
  return make<ReshapeKernel>(a);
}

Made LayoutKernels::ReduceSum(const KernelArgs& a) {
  const ir::Tensor& x = *a.in[0];
  if (x.dtype() != ir::DType::F32) return a.fail("expects f32 input");
  const size_t rank = x.shape().size();
  const auto axes = a.node.intsAttr("axes");
  std::vector<int64_t> outStride(rank, 0);
  int64_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    bool reduced = false;
    for (int64_t ax : axes) {
      if (ax < 0 || ax >= static_cast<int64_t>(rank)) return a.fail("axis out of range");
      reduced = reduced || ax == static_cast<int64_t>(d);
    }
    if (!reduced) {
      outStride[d] = stride;
      stride *= x.shape()[d];
    }
  }
  if (stride != a.out[0]->numElements()) return a.fail("output size does not match the reduced shape");
  return make<ReduceSumKernel>(a, std::move(outStride));
}

Made LayoutKernels::Transpose(const KernelArgs& a) {
  const ir::Tensor &x = *a.in[0], &y = *a.out[0];
  const auto perm = a.node.intsAttr("perm");
  if (perm.size() != x.shape().size() || x.dtype() != y.dtype() || x.numElements() != y.numElements())
    return a.fail("perm does not match the input");
  const ir::Shape& xs = x.shape();
  const size_t rank = xs.size();
  std::vector<int64_t> inStride(rank), outShape(rank), srcStride(rank);
  int64_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    inStride[d] = stride;
    stride *= xs[d];
  }
  for (size_t d = 0; d < rank; ++d) {
    if (perm[d] < 0 || perm[d] >= static_cast<int64_t>(rank)) return a.fail("perm does not match the input");
    outShape[d] = xs[static_cast<size_t>(perm[d])];
    srcStride[d] = inStride[static_cast<size_t>(perm[d])];
  }
  RowsFn rows = nullptr;
  switch (ir::dtypeSize(x.dtype())) {
    case 4: rows = transposeRows<uint32_t>; break;
    case 8: rows = transposeRows<uint64_t>; break;
    case 1: rows = transposeRows<uint8_t>; break;
    default: return a.fail("unsupported element size");
  }
  return make<TransposeKernel>(a, rows, std::move(outShape), std::move(srcStride));
}

Made LayoutKernels::Slice(const KernelArgs& a) { return slice(a, false); }
Made LayoutKernels::SliceGrad(const KernelArgs& a) { return slice(a, true); }

}  // namespace dfc::runtime::kernels
