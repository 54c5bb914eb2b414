// Resize (opsets 11-17): nearest (all nearest_modes), linear and cubic, every
// coordinate_transformation_mode, scales or sizes. ONNX's resize is separable,
// so each resized axis is one matrix product with a constant interpolation
// matrix built here (a row per output position: one weight for nearest, two
// for linear, four for cubic). The matmuls are what a dataflow chip would run,
// and they differentiate as they are, so upsampling models also train.
#include <cmath>
#include <numeric>

#include "onnx/ImportContext.h"
#include "onnx/OlderOpsets.h"

namespace dfc::onnx {

Expected<ir::ValueId> onnxMatMul(ImportContext& c, ir::ValueId a, ir::ValueId b);  // MapNn.cpp

namespace {

using ir::DType;
using ir::Shape;
using ir::ValueId;

struct ResizeMode {
  std::string mode, transform, nearest;
  double cubicA = -0.75, extrapolation = 0;
  bool excludeOutside = false;
};

// Where output position x of `outLen` falls in the input of `inLen`.
// Returns false for tf_crop_and_resize positions outside the input.
bool sourceCoordinate(const ResizeMode& m, double x, int64_t inLen, double scale, double roiStart, double roiEnd,
                      double& out) {
  const double outLen = scale * static_cast<double>(inLen);
  const auto& t = m.transform;
  if (t == "align_corners") out = outLen == 1 ? 0.0 : x * static_cast<double>(inLen - 1) / (outLen - 1);
  else if (t == "asymmetric") out = x / scale;
  else if (t == "tf_half_pixel_for_nn") out = (x + 0.5) / scale;
  else if (t == "pytorch_half_pixel") out = outLen == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
  else if (t == "tf_crop_and_resize") {
    const double span = (roiEnd - roiStart) * static_cast<double>(inLen - 1);
    out = (outLen == 1 ? span / 2 : x * span / (outLen - 1)) + roiStart * static_cast<double>(inLen - 1);
    return out >= 0 && out <= static_cast<double>(inLen - 1);
  } else out = (x + 0.5) / scale - 0.5;  // half_pixel
  return true;
}

// Weights of the neighbours left-n/2+1 .. left+n/2 of a source coordinate whose
// distance past `left` is ratio, in (0, 1] (an exact hit counts as ratio 1).
std::vector<double> coefficients(const ResizeMode& m, double ratio) {
  if (m.mode == "nearest") {
    if (ratio == 1.0) return {0, 1};
    const auto& n = m.nearest;
    bool right = n == "ceil" || (n == "round_prefer_ceil" && ratio >= 0.5) ||
                 (n == "round_prefer_floor" && ratio > 0.5);
    if (n == "floor") right = false;
    return {right ? 0.0 : 1.0, right ? 1.0 : 0.0};
  }
  if (m.mode == "linear") return {1 - ratio, ratio};
  const double a = m.cubicA, r = ratio, s = 1 - ratio;
  return {((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a, ((a + 2) * r - (a + 3)) * r * r + 1,
          ((a + 2) * s - (a + 3)) * s * s + 1, ((a * (s + 1) - 5 * a) * (s + 1) + 8 * a) * (s + 1) - 4 * a};
}

// [outLen, inLen] weights and an [outLen] constant (extrapolated positions).
struct AxisResize {
  std::vector<float> weights, offset;
  bool identity = true, hasOffset = false;
};

AxisResize axisResize(const ResizeMode& m, int64_t inLen, int64_t outLen, double scale, double roiStart, double roiEnd) {
  AxisResize r;
  r.weights.assign(static_cast<size_t>(outLen * inLen), 0.0f);
  r.offset.assign(static_cast<size_t>(outLen), 0.0f);
  for (int64_t x = 0; x < outLen; ++x) {
    float* row = r.weights.data() + x * inLen;
    double src = 0;
    if (!sourceCoordinate(m, static_cast<double>(x), inLen, scale, roiStart, roiEnd, src)) {
      r.offset[static_cast<size_t>(x)] = static_cast<float>(m.extrapolation);
      r.hasOffset = true;
      r.identity = false;
      continue;
    }
    const double floorSrc = std::floor(src);
    const bool exact = src == floorSrc;
    const double ratio = exact ? 1.0 : src - floorSrc;
    const int64_t left = static_cast<int64_t>(floorSrc) - (exact ? 1 : 0);
    std::vector<double> coeff = coefficients(m, ratio);
    const int64_t n = static_cast<int64_t>(coeff.size()), first = left - n / 2 + 1;
    if (m.excludeOutside) {
      double sum = 0;
      for (int64_t k = 0; k < n; ++k) {
        if (first + k < 0 || first + k >= inLen) coeff[static_cast<size_t>(k)] = 0;
        sum += coeff[static_cast<size_t>(k)];
      }
      if (sum != 0)
        for (double& w : coeff) w /= sum;
    }
    for (int64_t k = 0; k < n; ++k) {  // outside the input: the edge value (ONNX pads by edge)
      const int64_t at = std::clamp<int64_t>(first + k, 0, inLen - 1);
      row[at] += static_cast<float>(coeff[static_cast<size_t>(k)]);
    }
    for (int64_t i = 0; i < inLen; ++i)
      if (row[i] != (i == x && inLen == outLen ? 1.0f : 0.0f)) r.identity = false;
  }
  return r;
}

Expected<ResizeMode> readMode(ImportContext& c) {
  ResizeMode m;
  m.mode = c.attrString("mode", "nearest");
  m.transform = c.attrString("coordinate_transformation_mode", "half_pixel");
  m.nearest = c.attrString("nearest_mode", "round_prefer_floor");
  m.cubicA = c.attrFloat("cubic_coeff_a", -0.75);
  m.excludeOutside = c.attrInt("exclude_outside", 0) != 0;
  m.extrapolation = c.attrFloat("extrapolation_value", 0.0);
  if (m.mode != "nearest" && m.mode != "linear" && m.mode != "cubic")
    return c.error("mode '" + m.mode + "' is not nearest, linear or cubic");
  static const std::vector<std::string> transforms = {"half_pixel", "pytorch_half_pixel", "align_corners",
                                                      "asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize"};
  if (std::find(transforms.begin(), transforms.end(), m.transform) == transforms.end())
    return c.error("coordinate_transformation_mode '" + m.transform + "' is not supported");
  static const std::vector<std::string> nearests = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  if (std::find(nearests.begin(), nearests.end(), m.nearest) == nearests.end())
    return c.error("nearest_mode '" + m.nearest + "' is not supported");
  return m;
}

// Output sizes and per-axis scales from the constant scales or sizes input.
Status outputGeometry(ImportContext& c, const Shape& in, Shape& outShape, std::vector<double>& scales) {
  const ValueId scalesIn = c.input(2), sizesIn = c.input(3);
  const bool haveScales = scalesIn != ir::kNoValue && c.shape(scalesIn) != Shape{0};
  outShape = in;
  scales.assign(in.size(), 1.0);
  if (haveScales) {
    DFC_TRY_ASSIGN(s, c.constFloats(scalesIn, "scales"));
    if (s.size() != in.size()) return c.error("scales needs one entry per input axis");
    for (size_t d = 0; d < in.size(); ++d) {
      if (!(s[d] > 0) || !std::isfinite(s[d])) return c.error("scales must be positive and finite");
      scales[d] = s[d];
      outShape[d] = static_cast<int64_t>(std::floor(static_cast<double>(in[d]) * s[d]));
    }
  } else {
    if (sizesIn == ir::kNoValue) return c.error("needs scales or sizes");
    DFC_TRY_ASSIGN(s, c.constInts(sizesIn, "sizes"));
    if (s.size() != in.size()) return c.error("sizes needs one entry per input axis");
    for (size_t d = 0; d < in.size(); ++d) {
      outShape[d] = s[d];
      scales[d] = static_cast<double>(s[d]) / static_cast<double>(in[d]);
    }
  }
  for (int64_t d : outShape)
    if (d <= 0) return c.error("an output dimension of " + std::to_string(d) + " (empty tensors are not supported)");
  return {};
}

// x with axis `axis` resized by the [outLen, inLen] matrix: axis to the back, matmul, back again.
Expected<ValueId> resizeAxis(ImportContext& c, ValueId x, size_t axis, int64_t outLen, const AxisResize& r) {
  const Shape s = c.shape(x);
  const int64_t inLen = s[axis];
  std::vector<int64_t> perm(s.size());
  std::iota(perm.begin(), perm.end(), int64_t{0});
  std::swap(perm[axis], perm.back());
  ValueId moved = x;
  if (axis + 1 != s.size()) {
    DFC_TRY_ASSIGN(t, c.transpose(x, perm));
    moved = t;
  }
  ir::Tensor wt(ir::TensorType{DType::F32, {inLen, outLen}});  // transposed: [in, out]
  for (int64_t o = 0; o < outLen; ++o)
    for (int64_t i = 0; i < inLen; ++i) wt.data<float>()[i * outLen + o] = r.weights[static_cast<size_t>(o * inLen + i)];
  DFC_TRY_ASSIGN(y, onnxMatMul(c, moved, c.constant(std::move(wt), "resize_weights")));
  ValueId out = y;
  if (r.hasOffset) {
    ir::Tensor off(ir::TensorType{DType::F32, {outLen}});
    std::copy(r.offset.begin(), r.offset.end(), off.data<float>());
    DFC_TRY_ASSIGN(shifted, c.binary("add", out, c.constant(std::move(off), "extrapolation")));
    out = shifted;
  }
  if (axis + 1 != s.size()) {
    DFC_TRY_ASSIGN(back, c.transpose(out, perm));
    out = back;
  }
  return out;
}

Status mapResize(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DFC_TRY(needFloat(c, x));
  DFC_TRY_ASSIGN(m, readMode(c));
  const Shape in = c.shape(x);
  if (in.empty()) return c.error("needs an input of rank >= 1");
  Shape outShape;
  std::vector<double> scales;
  DFC_TRY(outputGeometry(c, in, outShape, scales));
  std::vector<double> roi(2 * in.size(), 0.0);
  for (size_t d = 0; d < in.size(); ++d) roi[in.size() + d] = 1.0;
  if (m.transform == "tf_crop_and_resize") {
    if (c.input(1) == ir::kNoValue) return c.error("tf_crop_and_resize needs roi");
    DFC_TRY_ASSIGN(r, c.constFloats(c.input(1), "roi"));
    if (r.size() != 2 * in.size()) return c.error("roi needs two entries per input axis");
    roi = r;
  }
  DFC_TRY(c.checkSize(ir::TensorType{DType::F32, outShape}, "output"));
  ValueId y = x;
  for (size_t d = in.size(); d-- > 0;) {  // innermost first, as ONNX's reference interpolates
    if (static_cast<double>(in[d]) * static_cast<double>(outShape[d]) > 64.0 * 1024 * 1024)
      return c.error("axis " + std::to_string(d) + " resizes " + std::to_string(in[d]) + " -> " +
                     std::to_string(outShape[d]) + ": the interpolation matrix would be too large");
    AxisResize r = axisResize(m, in[d], outShape[d], scales[d], roi[d], roi[in.size() + d]);
    if (r.identity) continue;
    DFC_TRY_ASSIGN(resized, resizeAxis(c, y, d, outShape[d], r));
    y = resized;
  }
  if (y == x) {
    DFC_TRY_ASSIGN(copy, c.unary("identity", x));
    y = copy;
  }
  c.setOutput(0, y);
  return {};
}

// Upsample (opsets 9-10, deprecated for Resize): mapped as the Resize-11 node it means.
Status mapUpsample(ImportContext& c) {
  const ::onnx::NodeProto& original = c.node();
  ::onnx::NodeProto resize = original;
  rewriteAsResize11(resize);
  resize.set_op_type(original.op_type());  // errors name the node as written
  c.retarget(&resize);
  Status st = mapResize(c);
  c.retarget(&original);
  return st;
}

}  // namespace

void registerResizeOps(OpTable& t) {
  t["Resize"] = mapResize;
  t["Upsample"] = mapUpsample;
}

}  // namespace dfc::onnx
