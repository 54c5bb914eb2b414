// DFT (opset 17) as matrix products: along its axis, the real and imaginary
// parts each multiply constant cosine and sine matrices, as a dataflow chip
// would run a short transform (no FFT: the transform is O(n^2) per signal).
#include <cmath>
#include <numbers>

#include "onnx/ImportContext.h"

namespace dfc::onnx {
namespace {

using ir::DType;
using ir::Shape;
using ir::ValueId;

// Signals longer than this are refused: the matrices grow with its square.
constexpr int64_t kMaxDftLength = 4096;

// [len, k] of cos (or sign * sin) of 2 pi k n / length, times scale; rows n
// >= length are zero (the signal truncated to length; zero-padding adds nothing).
ir::Tensor dftMatrix(int64_t len, int64_t k, int64_t length, bool sine, double sign, double scale) {
  ir::Tensor t(ir::TensorType{DType::F32, {len, k}});
  for (int64_t n = 0; n < len; ++n)
    for (int64_t j = 0; j < k; ++j) {
      const double turn = 2 * std::numbers::pi * static_cast<double>((n * j) % length) / static_cast<double>(length);
      const double v = n >= length ? 0.0 : (sine ? sign * std::sin(turn) : std::cos(turn));
      t.data<float>()[n * k + j] = static_cast<float>(v * scale);
    }
  return t;
}

// Part `index` (0 real, 1 imaginary) of x [..., 2], the last axis dropped.
Expected<ValueId> part(ImportContext& c, ValueId x, int64_t index) {
  const Shape xs = c.shape(x);
  const int64_t last = static_cast<int64_t>(xs.size()) - 1;
  DFC_TRY_ASSIGN(s, c.emit(ir::OpKind::Slice, {x}, {{"axis", last}, {"start", index}, {"end", index + 1}}));
  return c.reshape(s, Shape(xs.begin(), xs.end() - 1));
}

struct DftPlan {
  int64_t axis = 0, len = 0, length = 0, bins = 0;
  bool inverse = false;
};

Expected<DftPlan> dftPlan(ImportContext& c, const Shape& xs) {
  DftPlan p;
  const int64_t r = static_cast<int64_t>(xs.size());
  if (r < 2 || (xs.back() != 1 && xs.back() != 2))
    return c.error("needs an input [..., 1] (real) or [..., 2] (complex)");
  p.axis = c.attrInt("axis", 1);
  if (p.axis < 0) p.axis += r;
  if (p.axis < 0 || p.axis > r - 2) return c.error("axis must name a signal axis (not the last)");
  p.len = xs[static_cast<size_t>(p.axis)];
  p.length = p.len;
  if (ValueId n = c.input(1); n != ir::kNoValue) {
    DFC_TRY_ASSIGN(ns, c.constInts(n, "dft_length"));
    if (ns.size() != 1 || ns[0] < 1) return c.error("dft_length must be one positive value");
    p.length = ns[0];
  }
  if (p.len > kMaxDftLength || p.length > kMaxDftLength)
    return c.error("a transform of " + std::to_string(std::max(p.len, p.length)) + " points is longer than the " +
                   std::to_string(kMaxDftLength) + " supported");
  p.inverse = c.attrInt("inverse", 0) != 0;
  const bool onesided = c.attrInt("onesided", 0) != 0;
  if (onesided && p.inverse) return c.error("an inverse onesided DFT is not supported");
  p.bins = onesided ? p.length / 2 + 1 : p.length;
  return p;
}

// y = (re + i im) W with W[n, k] = exp(-+2 pi i k n / length) (/ length inverse):
// y_re = re C - im S, y_im = re S + im C, S carrying the sign.
Status mapDft(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DFC_TRY(needFloat(c, x));
  const Shape xs = c.shape(x);
  DFC_TRY_ASSIGN(p, dftPlan(c, xs));
  const int64_t rank = static_cast<int64_t>(xs.size()) - 1;  // the signal's, past the part axis
  std::vector<int64_t> perm, back(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d)
    if (d != p.axis) perm.push_back(d);
  perm.push_back(p.axis);
  for (int64_t d = 0; d < rank; ++d) back[static_cast<size_t>(perm[static_cast<size_t>(d)])] = d;
  const double sign = p.inverse ? 1.0 : -1.0, scale = p.inverse ? 1.0 / static_cast<double>(p.length) : 1.0;
  const ValueId cosM = c.constant(dftMatrix(p.len, p.bins, p.length, false, sign, scale), "dft_cos");
  const ValueId sinM = c.constant(dftMatrix(p.len, p.bins, p.length, true, sign, scale), "dft_sin");
  DFC_TRY_ASSIGN(re0, part(c, x, 0));
  DFC_TRY_ASSIGN(re, c.transpose(re0, perm));
  DFC_TRY_ASSIGN(yRe, onnxMatMul(c, re, cosM));
  DFC_TRY_ASSIGN(yIm, onnxMatMul(c, re, sinM));
  if (xs.back() == 2) {
    DFC_TRY_ASSIGN(im0, part(c, x, 1));
    DFC_TRY_ASSIGN(im, c.transpose(im0, perm));
    DFC_TRY_ASSIGN(imS, onnxMatMul(c, im, sinM));
    DFC_TRY_ASSIGN(imC, onnxMatMul(c, im, cosM));
    DFC_TRY_ASSIGN(re2, c.binary("sub", yRe, imS));
    DFC_TRY_ASSIGN(im2, c.binary("add", yIm, imC));
    yRe = re2;
    yIm = im2;
  }
  std::vector<ValueId> parts;
  for (ValueId v : {yRe, yIm}) {
    DFC_TRY_ASSIGN(moved, c.transpose(v, back));
    Shape s = c.shape(moved);
    s.push_back(1);
    DFC_TRY_ASSIGN(withPart, c.reshape(moved, s));
    parts.push_back(withPart);
  }
  DFC_TRY_ASSIGN(y, c.emit(ir::OpKind::Concat, parts, {{"axis", rank}}));
  c.setOutput(0, y);
  return {};
}

}  // namespace

void registerSpectralOps(OpTable& t) { t["DFT"] = mapDft; }

}  // namespace dfc::onnx
