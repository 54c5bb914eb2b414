#include "runtime/kernels/Epilogue.h"

#include <string>
#include <variant>

#include "runtime/kernels/FastUnary.h"

namespace dfc::runtime::kernels {

bool activationOf(const ir::Node& node, ConvEpilogue& e) {
  if (node.inputs.size() != 1 || node.outputs.size() != 1) return false;
  if (node.op == ir::OpKind::Relu) {
    e.activation = ConvActivation::Relu;
    return true;
  }
  if (node.op != ir::OpKind::Unary) return false;
  auto it = node.attrs.find("fn");
  const std::string* name = it == node.attrs.end() ? nullptr : std::get_if<std::string>(&it->second);
  if (!name || (*name != "relu" && *name != "clip" && *name != "silu")) return false;
  e.activation =
      *name == "relu" ? ConvActivation::Relu : (*name == "clip" ? ConvActivation::Clip : ConvActivation::Silu);
  e.lo = static_cast<float>(node.floatAttr("alpha"));
  e.hi = static_cast<float>(node.floatAttr("beta"));
  return true;
}

DFC_VECTOR_CLONES void applyActivation(const ConvEpilogue& e, float* __restrict y, int64_t n) {
  if (e.activation == ConvActivation::Silu) return siluInPlace(y, n);
  if (e.activation == ConvActivation::Relu)
    for (int64_t i = 0; i < n; ++i) y[i] = y[i] > 0 ? y[i] : 0.0f;
  const float lo = e.lo, hi = e.hi;  // locals, or the loop reloads them (y might alias e) and does not vectorize
  if (e.activation == ConvActivation::Clip)
    for (int64_t i = 0; i < n; ++i) {
      const float v = y[i] < lo ? lo : y[i];
      y[i] = v > hi ? hi : v;
    }
}

DFC_VECTOR_CLONES void addResidual(float* __restrict y, const float* __restrict skip, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] += skip[i];
}

}  // namespace dfc::runtime::kernels
