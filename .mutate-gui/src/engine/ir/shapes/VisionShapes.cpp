// Shape rules of the convolution, pooling and normalization families (NCHW).
#include <optional>

#include "ir/ShapeRules.h"

namespace dfc::ir {
namespace {

int64_t convOut(int64_t in, int64_t k, int64_t stride, int64_t pad) { return (in + 2 * pad - k) / stride + 1; }

// The gradients of conv2d take their output shape from an attribute; their
// window is the forward's (positive stride, pad not negative).
OutputTypes shapeFromAttr(const ShapeArgs& a, const char* key, const char* what) {
  auto shape = a.node.intsAttr(key);
  if (shape.size() != 4) return a.fail(std::string("needs attribute ") + key + ":" + what);
  auto s = a.pair("stride", 1), p = a.pair("pad", 0);
  if (s[0] <= 0 || s[1] <= 0) return a.fail("stride must be positive");
  if (p[0] < 0 || p[1] < 0) return a.fail("pad must not be negative");
  return std::vector{f32Type(shape)};
}

// batch_norm (x[N,C,...], gamma[C], beta[C]) and layer_norm (x, gamma, beta over
// the last axis); their gradients (dy, x, gamma) -> (dx, dgamma, dbeta).
// `feature` picks the normalized axis's size from x; nullopt: x's rank is too low.
template <typename Feature>
OutputTypes norm(const ShapeArgs& a, bool grad, Feature feature, const char* rankError) {
  const Shape& x = a.in[grad ? 1 : 0]->shape;
  std::optional<int64_t> size = feature(x);
  if (!size) return a.fail(rankError);
  const Shape ch{*size};
  if (a.in[grad ? 2 : 1]->shape != ch) return a.fail("gamma must have shape " + shapeStr(ch));
  if (!grad) {
    if (a.in[2]->shape != ch) return a.fail("beta must have shape " + shapeStr(ch));
    return std::vector{*a.in[0]};
  }
  DFC_TRY(a.requireSame(0, 1));
  return std::vector{*a.in[1], f32Type(ch), f32Type(ch)};
}

OutputTypes batchNorm(const ShapeArgs& a, bool grad) {
  auto channels = [](const Shape& x) { return x.size() < 2 ? std::nullopt : std::optional<int64_t>(x[1]); };
  return norm(a, grad, channels, "needs x of rank >= 2 [N, C, ...]");
}

// batch_norm with 3 inputs (batch statistics) or 5 (running_mean, running_var
// too, given back updated as outputs 1 and 2).
OutputTypes batchNormForward(const ShapeArgs& a) {
  if (a.in.size() != 3 && a.in.size() != 5)
    return a.fail("expects 3 inputs (x, gamma, beta) or 5 (and running_mean, running_var), has " +
                  std::to_string(a.in.size()));
  auto y = batchNorm(a, false);
  if (!y || a.in.size() == 3) return y;
  const Shape ch{a.in[0]->shape[1]};
  for (size_t i : {3u, 4u})
    if (a.in[i]->shape != ch || a.in[i]->dtype != DType::F32)
      return a.fail(std::string(i == 3 ? "running_mean" : "running_var") + " must be f32 " + shapeStr(ch));
  return std::vector{y->front(), f32Type(ch), f32Type(ch)};
}

OutputTypes layerNorm(const ShapeArgs& a, bool grad) {
  auto last = [](const Shape& x) { return x.empty() ? std::nullopt : std::optional<int64_t>(x.back()); };
  return norm(a, grad, last, "needs an input of rank >= 1");
}

}  // namespace

OutputTypes ConvShapes::Conv2d(const ShapeArgs& a) {
  DFC_TRY(a.requireRank(0, 4));
  DFC_TRY(a.requireRank(1, 4));
  auto s = a.pair("stride", 1), p = a.pair("pad", 0);
  const Shape &x = a.in[0]->shape, &w = a.in[1]->shape;
  if (x[1] != w[1]) return a.fail("input channels " + std::to_string(x[1]) + " != weight channels " + std::to_string(w[1]));
  if (s[0] <= 0 || s[1] <= 0) return a.fail("stride must be positive");
  if (p[0] < 0 || p[1] < 0) return a.fail("pad must not be negative");
  int64_t oh = convOut(x[2], w[2], s[0], p[0]), ow = convOut(x[3], w[3], s[1], p[1]);
  if (oh <= 0 || ow <= 0) return a.fail("kernel larger than padded input " + shapeStr(x));
  return std::vector{f32Type({x[0], w[0], oh, ow})};
}

OutputTypes ConvShapes::Conv2dGradInput(const ShapeArgs& a) { return shapeFromAttr(a, "input_shape", "[n,c,h,w]"); }
OutputTypes ConvShapes::Conv2dGradWeight(const ShapeArgs& a) { return shapeFromAttr(a, "weight_shape", "[o,i,kh,kw]"); }

OutputTypes PoolShapes::MaxPool2d(const ShapeArgs& a) {
  DFC_TRY(a.requireRank(0, 4));
  auto k = a.pair("kernel", 2), s = a.pair("stride", 2), p = a.pair("pad", 0);
  if (k[0] <= 0 || k[1] <= 0 || s[0] <= 0 || s[1] <= 0) return a.fail("kernel and stride must be positive");
  if (p[0] < 0 || p[1] < 0 || p[0] >= k[0] || p[1] >= k[1]) return a.fail("pad must be in [0, kernel)");
  const Shape& x = a.in[0]->shape;
  int64_t oh = convOut(x[2], k[0], s[0], p[0]), ow = convOut(x[3], k[1], s[1], p[1]);
  if (oh <= 0 || ow <= 0) return a.fail("kernel larger than input " + shapeStr(x));
  return std::vector{f32Type({x[0], x[1], oh, ow})};
}

OutputTypes PoolShapes::MaxPool2dGrad(const ShapeArgs& a) { return std::vector{*a.in[1]}; }

OutputTypes PoolShapes::GlobalAvgPool(const ShapeArgs& a) {
  DFC_TRY(a.requireRank(0, 4));
  return std::vector{f32Type({a.in[0]->shape[0], a.in[0]->shape[1]})};
}

OutputTypes PoolShapes::GlobalAvgPoolGrad(const ShapeArgs& a) {
  auto shape = a.node.intsAttr("input_shape");
  if (shape.size() != 4) return a.fail("needs attribute input_shape:[n,c,h,w]");
  if (a.in[0]->shape != Shape{shape[0], shape[1]})
    return a.fail("dy " + shapeStr(a.in[0]->shape) + " does not match input_shape " + shapeStr(shape));
  return std::vector{f32Type(shape)};
}

OutputTypes NormShapes::BatchNorm(const ShapeArgs& a) { return batchNormForward(a); }
OutputTypes NormShapes::BatchNormGrad(const ShapeArgs& a) { return batchNorm(a, true); }
OutputTypes NormShapes::LayerNorm(const ShapeArgs& a) { return layerNorm(a, false); }
OutputTypes NormShapes::LayerNormGrad(const ShapeArgs& a) { return layerNorm(a, true); }

}  // namespace dfc::ir
