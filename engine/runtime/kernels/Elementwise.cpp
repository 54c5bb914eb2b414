// Elementwise kernels: plain loops over restrict pointers so GCC vectorizes
// them (the runtime builds with -O3 -fno-trapping-math).
#include <cstring>

#include "runtime/kernels/KernelCommon.h"

namespace dfc::runtime::kernels {
namespace {

using ir::OpKind;

void addLoop(const float* __restrict a, const float* __restrict b, float* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
}
void subLoop(const float* __restrict a, const float* __restrict b, float* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] - b[i];
}
void mulLoop(const float* __restrict a, const float* __restrict b, float* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] * b[i];
}
void scaleLoop(const float* __restrict x, float alpha, float* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = alpha * x[i];
}
// A ternary, not fmaxf: without fast-math fmaxf becomes a libm call.
void reluLoop(const float* __restrict x, float* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
void reluGradLoop(const float* __restrict dy, const float* __restrict x, float* __restrict dx, int64_t n) {
  // dy is loaded unconditionally so the select if-converts and vectorizes.
  for (int64_t i = 0; i < n; ++i) {
    const float d = dy[i];
    dx[i] = x[i] > 0.0f ? d : 0.0f;
  }
}
void addScalarLoop(const float* __restrict x, float b, float* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] + b;
}

bool allF32(Inputs in) {
  for (const ir::Tensor* t : in)
    if (t->dtype() != ir::DType::F32) return false;
  return true;
}

}  // namespace

Status runElementwise(const ir::Node& node, Inputs in, Outputs out) {
  if (!allF32(in) || out[0]->dtype() != ir::DType::F32) return nodeError(node, "expects f32 tensors");
  const int64_t n = out[0]->numElements();
  float* y = out[0]->data<float>();
  const float* a = in[0]->data<float>();
  if (in[0]->numElements() != n) return nodeError(node, "input and output sizes differ");
  if (node.op != OpKind::Scale && node.op != OpKind::Relu && node.op != OpKind::BiasAdd &&
      in[1]->numElements() != n)
    return nodeError(node, "input sizes differ");

  switch (node.op) {
    case OpKind::Add: addLoop(a, in[1]->data<float>(), y, n); break;
    case OpKind::Sub: subLoop(a, in[1]->data<float>(), y, n); break;
    case OpKind::Mul: mulLoop(a, in[1]->data<float>(), y, n); break;
    case OpKind::Scale: scaleLoop(a, static_cast<float>(node.floatAttr("alpha", 1.0)), y, n); break;
    case OpKind::Relu: reluLoop(a, y, n); break;
    case OpKind::ReluGrad: reluGradLoop(a, in[1]->data<float>(), y, n); break;
    case OpKind::BiasAdd: {
      const ir::Shape& s = in[0]->shape();
      if (s.size() < 2 || in[1]->numElements() != s[1]) return nodeError(node, "bias does not match axis 1");
      const int64_t channels = s[1];
      const int64_t inner = channels == 0 ? 0 : n / (s[0] * channels);
      const float* b = in[1]->data<float>();
      for (int64_t outer = 0; outer < s[0]; ++outer)
        for (int64_t c = 0; c < channels; ++c) {
          const int64_t base = (outer * channels + c) * inner;
          addScalarLoop(a + base, b[c], y + base, inner);
        }
      break;
    }
    default: return nodeError(node, "not an elementwise op");
  }
  return {};
}

Status runShape(const ir::Node& node, Inputs in, Outputs out) {
  const ir::Tensor& x = *in[0];
  ir::Tensor& y = *out[0];
  if (node.op == OpKind::Reshape) {
    if (x.byteSize() != y.byteSize()) return nodeError(node, "reshape changes the byte size");
    std::memcpy(y.bytes(), x.bytes(), x.byteSize());
    return {};
  }
  // ReduceSum: an odometer over the input with output strides that are zero
  // on reduced axes, so any set of axes works.
  if (x.dtype() != ir::DType::F32) return nodeError(node, "expects f32 input");
  const size_t rank = x.shape().size();
  const auto axes = node.intsAttr("axes");
  std::vector<int64_t> outStride(rank, 0);
  int64_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    bool reduced = false;
    for (int64_t a : axes) {
      if (a < 0 || a >= static_cast<int64_t>(rank)) return nodeError(node, "axis out of range");
      reduced = reduced || a == static_cast<int64_t>(d);
    }
    if (!reduced) {
      outStride[d] = stride;
      stride *= x.shape()[d];
    }
  }
  if (stride != y.numElements()) return nodeError(node, "output size does not match the reduced shape");
  float* py = y.data<float>();
  std::memset(py, 0, y.byteSize());
  const float* px = x.data<float>();
  const int64_t total = x.numElements();
  if (total == 0) return {};
  if (rank == 0) {
    py[0] = px[0];
    return {};
  }
  // Innermost dimension handled as a contiguous run for speed.
  const int64_t inner = rank ? x.shape()[rank - 1] : 1;
  const int64_t innerStride = rank ? outStride[rank - 1] : 0;
  std::vector<int64_t> idx(rank, 0);
  int64_t outBase = 0;
  for (int64_t i = 0; i < total; i += inner) {
    if (innerStride == 0) {
      float acc = 0;
      for (int64_t j = 0; j < inner; ++j) acc += px[i + j];
      py[outBase] += acc;
    } else {
      for (int64_t j = 0; j < inner; ++j) py[outBase + j] += px[i + j];
    }
    // Advance the odometer over the outer dimensions.
    for (size_t d = rank - 1; d-- > 0;) {
      ++idx[d];
      outBase += outStride[d];
      if (idx[d] < x.shape()[d]) break;
      outBase -= outStride[d] * idx[d];
      idx[d] = 0;
    }
  }
  return {};
}

}  // namespace dfc::runtime::kernels
