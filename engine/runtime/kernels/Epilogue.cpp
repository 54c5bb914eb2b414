#include "runtime/kernels/Epilogue.h"

#include <algorithm>
#include <iterator>
#include <string>
#include <utility>
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
  static const std::pair<const char*, ConvActivation> kNamed[] = {{"relu", ConvActivation::Relu},
                                                                  {"clip", ConvActivation::Clip},
                                                                  {"silu", ConvActivation::Silu},
                                                                  {"hard_swish", ConvActivation::HardSwish}};
  const auto* named = std::end(kNamed);
  if (name) named = std::find_if(std::begin(kNamed), std::end(kNamed), [&](const auto& k) { return *name == k.first; });
  if (named == std::end(kNamed)) return false;
  e.activation = named->second;
  e.lo = static_cast<float>(node.floatAttr("alpha"));
  e.hi = static_cast<float>(node.floatAttr("beta"));
  return true;
}

DFC_VECTOR_CLONES void applyActivation(const ConvEpilogue& e, float* __restrict y, int64_t n) {
  if (e.activation == ConvActivation::Silu) return siluInPlace(y, n);
  if (e.activation == ConvActivation::HardSwish) return hardSwishInPlace(y, n);
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
