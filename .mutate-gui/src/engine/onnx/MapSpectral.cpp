// DFT and STFT (opset 17) as matrix products: along the transformed axis, the
// real and imaginary parts each multiply constant cosine and sine matrices, as
// a dataflow chip would run a short transform (no FFT: O(n^2) per signal).
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

// (re + i im) W along the last axis, W[n, k] = C + i S: the real and imaginary
// parts y_re = re C - im S, y_im = re S + im C (im: kNoValue for a real signal).
Expected<std::pair<ValueId, ValueId>> transformLast(ImportContext& c, ValueId re, ValueId im, ValueId cosM,
                                                    ValueId sinM) {
  DFC_TRY_ASSIGN(yRe, onnxMatMul(c, re, cosM));
  DFC_TRY_ASSIGN(yIm, onnxMatMul(c, re, sinM));
  if (im == ir::kNoValue) return std::pair{yRe, yIm};
  DFC_TRY_ASSIGN(imS, onnxMatMul(c, im, sinM));
  DFC_TRY_ASSIGN(imC, onnxMatMul(c, im, cosM));
  DFC_TRY_ASSIGN(re2, c.binary("sub", yRe, imS));
  DFC_TRY_ASSIGN(im2, c.binary("add", yIm, imC));
  return std::pair{re2, im2};
}

// Real and imaginary parts stacked on a new last axis of 2.
Expected<ValueId> stackParts(ImportContext& c, ValueId re, ValueId im) {
  std::vector<ValueId> parts;
  for (ValueId v : {re, im}) {
    Shape s = c.shape(v);
    s.push_back(1);
    DFC_TRY_ASSIGN(withPart, c.reshape(v, s));
    parts.push_back(withPart);
  }
  return c.emit(ir::OpKind::Concat, parts, {{"axis", c.rank(re)}});
}

// y = (re + i im) W with W[n, k] = exp(-+2 pi i k n / length) (/ length inverse).
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
  ValueId moved[2] = {ir::kNoValue, ir::kNoValue};
  for (int64_t k = 0; k < xs.back(); ++k) {
    DFC_TRY_ASSIGN(p0, part(c, x, k));
    DFC_TRY_ASSIGN(t, c.transpose(p0, perm));
    moved[k] = t;
  }
  DFC_TRY_ASSIGN(y, transformLast(c, moved[0], moved[1], cosM, sinM));
  DFC_TRY_ASSIGN(yRe, c.transpose(y.first, back));
  DFC_TRY_ASSIGN(yIm, c.transpose(y.second, back));
  DFC_TRY_ASSIGN(out, stackParts(c, yRe, yIm));
  c.setOutput(0, out);
  return {};
}

// Part k of signal [batch, len, parts] cut into frames [batch, frames, length]
// starting every `step`, each times the window (kNoValue: none).
Expected<ValueId> framesOf(ImportContext& c, ValueId x, int64_t k, int64_t frames, int64_t step, int64_t length,
                           ValueId window) {
  DFC_TRY_ASSIGN(signal, part(c, x, k));
  const int64_t batch = c.shape(signal)[0];
  std::vector<ValueId> cut;
  for (int64_t f = 0; f < frames; ++f) {
    DFC_TRY_ASSIGN(s, c.emit(ir::OpKind::Slice, {signal},
                             {{"axis", int64_t{1}}, {"start", f * step}, {"end", f * step + length}}));
    DFC_TRY_ASSIGN(r, c.reshape(s, {batch, 1, length}));
    cut.push_back(r);
  }
  DFC_TRY_ASSIGN(
      all, cut.size() == 1 ? c.unary("identity", cut[0]) : c.emit(ir::OpKind::Concat, cut, {{"axis", int64_t{1}}}));
  if (window == ir::kNoValue) return all;
  return c.binary("mul", all, window);
}

// STFT(signal [batch, len, 1 or 2], frame_step, window, frame_length): a DFT
// (onesided by default) of each frame of frame_length every frame_step.
Status mapStft(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DFC_TRY(needFloat(c, x));
  const Shape xs = c.shape(x);
  if (xs.size() != 3 || (xs[2] != 1 && xs[2] != 2)) return c.error("needs a signal [batch, length, 1 or 2]");
  DFC_TRY_ASSIGN(stepIn, c.requireInput(1));
  DFC_TRY_ASSIGN(steps, c.constInts(stepIn, "frame_step"));
  if (steps.size() != 1 || steps[0] < 1) return c.error("frame_step must be one positive value");
  const ValueId window = c.input(2);
  int64_t length = window != ir::kNoValue && c.rank(window) == 1 ? c.shape(window)[0] : 0;
  if (window != ir::kNoValue && (c.rank(window) != 1 || c.type(window).dtype != DType::F32))
    return c.error("window must be a float vector");
  if (ValueId l = c.input(3); l != ir::kNoValue) {
    DFC_TRY_ASSIGN(ls, c.constInts(l, "frame_length"));
    if (ls.size() != 1 || ls[0] < 1 || (length != 0 && ls[0] != length))
      return c.error("frame_length must be one positive value, the window's length when both are given");
    length = ls[0];
  }
  if (length == 0) return c.error("needs a window or a frame_length");
  if (length > xs[1] || length > kMaxDftLength) return c.error("frame_length must fit the signal (and 4096)");
  const bool onesided = c.attrInt("onesided", 1) != 0;
  if (onesided && xs[2] == 2) return c.error("a onesided STFT needs a real signal");
  const int64_t frames = (xs[1] - length) / steps[0] + 1, bins = onesided ? length / 2 + 1 : length;
  ValueId parts[2] = {ir::kNoValue, ir::kNoValue};
  for (int64_t k = 0; k < xs[2]; ++k) {
    DFC_TRY_ASSIGN(f, framesOf(c, x, k, frames, steps[0], length, window));
    parts[k] = f;
  }
  const ValueId cosM = c.constant(dftMatrix(length, bins, length, false, -1, 1), "dft_cos");
  const ValueId sinM = c.constant(dftMatrix(length, bins, length, true, -1, 1), "dft_sin");
  DFC_TRY_ASSIGN(y, transformLast(c, parts[0], parts[1], cosM, sinM));
  DFC_TRY_ASSIGN(out, stackParts(c, y.first, y.second));
  c.setOutput(0, out);
  return {};
}

// One scalar operand of MelWeightMatrix, constant.
Expected<double> scalarOperand(ImportContext& c, int i, const std::string& what) {
  DFC_TRY_ASSIGN(v, c.requireInput(i));
  DFC_TRY_ASSIGN(values, c.constFloats(v, what));
  if (values.size() != 1) return c.error(what + " must be a scalar");
  return values[0];
}

// MelWeightMatrix: [dft_length / 2 + 1, num_mel_bins] triangles between mel
// points spaced evenly from lower to upper edge (num_mel_bins + 2 steps, as
// ONNX's reference), their corners rounded down to spectrogram bins; a constant.
Status mapMelWeightMatrix(ImportContext& c) {
  double in[5];
  const char* names[5] = {"num_mel_bins", "dft_length", "sample_rate", "lower_edge_hertz", "upper_edge_hertz"};
  for (int i = 0; i < 5; ++i) {
    DFC_TRY_ASSIGN(v, scalarOperand(c, i, names[i]));
    in[i] = v;
  }
  const int64_t mels = static_cast<int64_t>(in[0]), dft = static_cast<int64_t>(in[1]),
                rate = static_cast<int64_t>(in[2]);
  if (mels < 1 || dft < 1 || rate < 1 || mels > 4096 || dft > 65536)
    return c.error("num_mel_bins, dft_length and sample_rate must be positive (at most 4096 bins, 65536 points)");
  const int64_t spectrum = dft / 2 + 1;
  auto mel = [](double hz) { return 2595 * std::log10(1 + hz / 700); };
  const double low = mel(in[3]), step = (mel(in[4]) - low) / static_cast<double>(mels + 2);
  std::vector<int64_t> corner(static_cast<size_t>(mels + 2));
  for (int64_t i = 0; i < mels + 2; ++i) {
    const double hz = 700 * (std::pow(10.0, (static_cast<double>(i) * step + low) / 2595) - 1);
    corner[static_cast<size_t>(i)] =
        static_cast<int64_t>(std::floor(static_cast<double>(dft + 1) * hz / static_cast<double>(rate)));
  }
  ir::Tensor w(ir::TensorType{DType::F32, {spectrum, mels}});
  for (float& v : w.span<float>()) v = 0;
  auto set = [&](int64_t row, int64_t col, double v) {
    if (row >= 0 && row < spectrum) w.data<float>()[row * mels + col] = static_cast<float>(v);
  };
  for (int64_t i = 0; i < mels; ++i) {
    const int64_t left = corner[static_cast<size_t>(i)], center = corner[static_cast<size_t>(i + 1)],
                  right = corner[static_cast<size_t>(i + 2)];
    if (center == left) set(center, i, 1);
    for (int64_t j = left; center > left && j <= center; ++j)
      set(j, i, static_cast<double>(j - left) / static_cast<double>(center - left));
    for (int64_t j = center; j < right; ++j)
      set(j, i, static_cast<double>(right - j) / static_cast<double>(right - center));
  }
  if (c.attrInt("output_datatype", ::onnx::TensorProto::FLOAT) != ::onnx::TensorProto::FLOAT)
    return c.error("only a float output_datatype is supported");
  c.setOutput(0, c.constant(std::move(w), "mel_weights"));
  return {};
}

}  // namespace

void registerSpectralOps(OpTable& t) {
  t["MelWeightMatrix"] = mapMelWeightMatrix;
  t["DFT"] = mapDft;
  t["STFT"] = mapStft;
}

}  // namespace dfc::onnx
