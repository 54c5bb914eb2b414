// Data movement and batched GEMM: transpose (any dtype), slice and its
// gradient, and batch_matmul as one cblas_sgemm per batch entry.
#include <cblas.h>

#include <cstring>

#include "runtime/kernels/KernelCommon.h"

namespace dfc::runtime::kernels {
namespace {

using ir::OpKind;

int64_t product(const ir::Shape& s, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to; ++i) p *= s[i];
  return p;
}

// Gathers a contiguous output row from a strided input: the inner loop of transpose.
template <typename T>
void gatherRow(const T* __restrict x, int64_t stride, T* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i * stride];
}

template <typename T>
void transposeTyped(const ir::Tensor& x, const std::vector<int64_t>& perm, ir::Tensor& y) {
  const ir::Shape& xs = x.shape();
  const size_t rank = xs.size();
  const T* px = x.data<T>();
  T* py = y.data<T>();
  const int64_t total = y.numElements();
  if (total == 0) return;
  if (rank == 0) {
    py[0] = px[0];
    return;
  }
  std::vector<int64_t> inStride(rank), outShape(rank), srcStride(rank);
  int64_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    inStride[d] = stride;
    stride *= xs[d];
  }
  for (size_t d = 0; d < rank; ++d) {
    outShape[d] = xs[static_cast<size_t>(perm[d])];
    srcStride[d] = inStride[static_cast<size_t>(perm[d])];
  }
  const int64_t inner = outShape[rank - 1], innerStride = srcStride[rank - 1];
  std::vector<int64_t> idx(rank, 0);
  int64_t src = 0;
  for (int64_t o = 0; o < total; o += inner) {
    gatherRow(px + src, innerStride, py + o, inner);
    for (size_t d = rank - 1; d-- > 0;) {  // odometer over the outer output axes
      ++idx[d];
      src += srcStride[d];
      if (idx[d] < outShape[d]) break;
      src -= srcStride[d] * idx[d];
      idx[d] = 0;
    }
  }
}

Status runTranspose(const ir::Node& node, const ir::Tensor& x, ir::Tensor& y) {
  const auto perm = node.intsAttr("perm");
  if (perm.size() != x.shape().size() || x.dtype() != y.dtype() || x.numElements() != y.numElements())
    return nodeError(node, "perm does not match the input");
  switch (ir::dtypeSize(x.dtype())) {
    case 4: transposeTyped<uint32_t>(x, perm, y); return {};
    case 8: transposeTyped<uint64_t>(x, perm, y); return {};
    case 1: transposeTyped<uint8_t>(x, perm, y); return {};
    default: return nodeError(node, "unsupported element size");
  }
}

// slice copies blocks [outer][start:end][inner] out of x; slice_grad writes
// them back into a zeroed tensor of the input shape.
Status runSliceOp(const ir::Node& node, const ir::Tensor& src, ir::Tensor& dst) {
  const bool grad = node.op == OpKind::SliceGrad;
  const ir::Shape& big = grad ? dst.shape() : src.shape();
  const int64_t axis = node.intAttr("axis", -1), start = node.intAttr("start");
  if (axis < 0 || axis >= static_cast<int64_t>(big.size())) return nodeError(node, "axis out of range");
  const size_t a = static_cast<size_t>(axis);
  const int64_t outer = product(big, 0, a), inner = product(big, a + 1, big.size());
  const int64_t len = (grad ? src.shape() : dst.shape())[a];
  if (start < 0 || start + len > big[a]) return nodeError(node, "range outside the axis");
  const size_t block = static_cast<size_t>(len * inner) * sizeof(float);
  if (grad) std::memset(dst.bytes(), 0, dst.byteSize());
  for (int64_t o = 0; o < outer; ++o) {
    const int64_t bigOff = (o * big[a] + start) * inner, smallOff = o * len * inner;
    if (grad) std::memcpy(dst.data<float>() + bigOff, src.data<float>() + smallOff, block);
    else std::memcpy(dst.data<float>() + smallOff, src.data<float>() + bigOff, block);
  }
  return {};
}

Status runBatchMatMul(const ir::Node& node, const ir::Tensor& a, const ir::Tensor& b, ir::Tensor& y) {
  const ir::Shape &as = a.shape(), &bs = b.shape(), &ys = y.shape();
  const size_t r = as.size();
  if (r < 3 || bs.size() != r || ys.size() != r) return nodeError(node, "expects operands of equal rank >= 3");
  const bool ta = node.intAttr("trans_a") != 0, tb = node.intAttr("trans_b") != 0;
  const int64_t m = ys[r - 2], n = ys[r - 1], k = ta ? as[r - 2] : as[r - 1];
  if ((tb ? bs[r - 1] : bs[r - 2]) != k) return nodeError(node, "inner dimensions differ");
  const int64_t batch = product(as, 0, r - 2);
  if (product(bs, 0, r - 2) != batch || product(ys, 0, r - 2) != batch) return nodeError(node, "leading dimensions differ");
  const int64_t aSize = as[r - 2] * as[r - 1], bSize = bs[r - 2] * bs[r - 1], ySize = m * n;
  if (m == 0 || n == 0) return {};
  for (int64_t i = 0; i < batch; ++i)
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, static_cast<int>(m),
                static_cast<int>(n), static_cast<int>(k), 1.0f, a.data<float>() + i * aSize,
                static_cast<int>(as[r - 1]), b.data<float>() + i * bSize, static_cast<int>(bs[r - 1]), 0.0f,
                y.data<float>() + i * ySize, static_cast<int>(n));
  return {};
}

}  // namespace

Status runLayout(const ir::Node& node, Inputs in, Outputs out) {
  switch (node.op) {
    case OpKind::Transpose: return runTranspose(node, *in[0], *out[0]);
    case OpKind::Slice:
    case OpKind::SliceGrad:
      if (in[0]->dtype() != ir::DType::F32) return nodeError(node, "expects f32");
      return runSliceOp(node, *in[0], *out[0]);
    case OpKind::BatchMatMul:
      if (in[0]->dtype() != ir::DType::F32 || in[1]->dtype() != ir::DType::F32) return nodeError(node, "expects f32");
      return runBatchMatMul(node, *in[0], *in[1], *out[0]);
    default: return nodeError(node, "not a layout op");
  }
}

}  // namespace dfc::runtime::kernels
