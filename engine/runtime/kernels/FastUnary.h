#pragma once
// Float loops for the unary fns that dominate exported models
// (GELU's erf in BERT, tanh in GPT-2, sigmoid in EfficientNet's SiLU): in
// float, branch-free and vectorized, instead of a libm call in double per
// element, which made them a third to a half of an inference step; and
// MobileNetV3's hard_sigmoid and hard_swish.
#include <cstdint>
#include <string_view>

namespace dfc::runtime::kernels {

using UnaryLoop = void (*)(const float*, float*, int64_t, double, double);

// The float loop of fn, or null where fn keeps the double loop.
UnaryLoop fastUnaryLoop(std::string_view fn);

// y[i] = silu(y[i]), the bits of fastUnaryLoop("silu") (a conv's SiLU epilogue).
void siluInPlace(float* y, int64_t n);
// y[i] = hard_swish(y[i]), the bits of fastUnaryLoop("hard_swish").
void hardSwishInPlace(float* y, int64_t n);

// The scalar functions the loops apply (exposed for their accuracy tests).
float fastErf(float x);
float fastSigmoid(float x);
float fastSilu(float x);
float fastGeluErf(float x);
float fastExpInf(float x);

}  // namespace dfc::runtime::kernels
