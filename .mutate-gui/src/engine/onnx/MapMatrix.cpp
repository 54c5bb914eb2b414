// Ops built from constant matrices: CumSum (a product with a triangular
// matrix of ones along the summed axis), EyeLike and the window functions
// (constants), LRN (a sum of shifted squares), MeanVarianceNormalization,
// ReverseSequence (gathers), MaxPool's Indices (gathered window offsets against a constant index image)
// and Det (the Leibniz sum over the permutations, for matrices up to 4x4).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "onnx/ImportContext.h"

namespace dfc::onnx {
namespace {

using ir::DType;
using ir::ValueId;

constexpr int64_t kMaxCumSumLength = 4096;  // the triangle is length^2 floats

// ones[i][j] where row i (input position) contributes to column j (output position).
ir::Tensor cumSumMatrix(int64_t n, bool exclusive, bool reverse) {
  ir::Tensor t(ir::TensorType{DType::F32, {n, n}});
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const bool on = reverse ? (exclusive ? i > j : i >= j) : (exclusive ? i < j : i <= j);
      t.data<float>()[i * n + j] = on ? 1.0f : 0.0f;
    }
  return t;
}

Status mapCumSum(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DFC_TRY_ASSIGN(axisIn, c.requireInput(1));
  DFC_TRY(needFloat(c, x));
  DFC_TRY_ASSIGN(axes, c.constInts(axisIn, "axis"));
  if (axes.size() != 1) return c.error("axis must hold one value");
  const int64_t rank = c.rank(x);
  DFC_TRY_ASSIGN(axis, c.dimAxis(axes[0], rank));
  const int64_t n = c.shape(x)[static_cast<size_t>(axis)];
  if (n > kMaxCumSumLength)
    return c.error("an axis of " + std::to_string(n) + " is longer than the " + std::to_string(kMaxCumSumLength) + " supported");
  DFC_TRY(c.checkSize(ir::TensorType{DType::F32, {n, n}}, "triangle of ones"));
  std::vector<int64_t> perm;  // the summed axis last
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis) perm.push_back(d);
  perm.push_back(axis);
  std::vector<int64_t> back(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) back[static_cast<size_t>(perm[static_cast<size_t>(d)])] = d;
  DFC_TRY_ASSIGN(moved, c.transpose(x, perm));
  const ValueId tri = c.constant(cumSumMatrix(n, c.attrInt("exclusive", 0) != 0, c.attrInt("reverse", 0) != 0), "triangle");
  DFC_TRY_ASSIGN(summed, onnxMatMul(c, moved, tri));
  DFC_TRY_ASSIGN(y, c.transpose(summed, back));
  c.setOutput(0, y);
  return {};
}

// EyeLike: ones on diagonal k of x's 2-D shape, of dtype (default: x's).
Status mapEyeLike(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  const ir::Shape s = c.shape(x);
  if (s.size() != 2) return c.error("needs a 2-D input");
  DType dt = c.type(x).dtype;
  if (const auto* a = c.attr("dtype"); a && !dtypeFromOnnx(static_cast<int>(a->i()), dt))
    return c.error("dtype " + onnxTypeName(static_cast<int>(a->i())) + " is not supported");
  DFC_TRY(c.checkSize(ir::TensorType{dt, s}, "output"));
  const int64_t k = c.attrInt("k", 0);
  ir::Tensor t(ir::TensorType{dt, s});
  for (int64_t i = 0; i < s[0]; ++i) {
    const int64_t j = i + k;
    if (j < 0 || j >= s[1]) continue;
    const int64_t at = i * s[1] + j;
    switch (dt) {
      case DType::F32: t.data<float>()[at] = 1; break;
      case DType::I64: t.data<int64_t>()[at] = 1; break;
      case DType::I32: t.data<int32_t>()[at] = 1; break;
      case DType::Bool: t.data<bool>()[at] = true; break;
    }
  }
  c.setOutput(0, c.constant(std::move(t), "eye"));
  return {};
}

// HannWindow, HammingWindow, BlackmanWindow of a constant size: a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N),
// N the size (periodic, the default) or size - 1 (symmetric).
MapFn windowOp(double a0, double a1, double a2) {
  return [a0, a1, a2](ImportContext& c) -> Status {
    DFC_TRY_ASSIGN(sizeIn, c.requireInput(0));
    DFC_TRY_ASSIGN(sizes, c.constInts(sizeIn, "size"));
    if (sizes.size() != 1 || sizes[0] < 1) return c.error("size must be one positive value");
    DType dt = DType::F32;
    if (!dtypeFromOnnx(static_cast<int>(c.attrInt("output_datatype", ::onnx::TensorProto::FLOAT)), dt))
      return c.error("output_datatype is not supported");
    const int64_t n = sizes[0];
    DFC_TRY(c.checkSize(ir::TensorType{dt, {n}}, "output"));
    const double period = c.attrInt("periodic", 1) != 0 ? static_cast<double>(n) : static_cast<double>(n - 1);
    ir::Tensor w(ir::TensorType{DType::F32, {n}});
    for (int64_t i = 0; i < n; ++i) {
      const double t = period > 0 ? 2 * M_PI * static_cast<double>(i) / period : 0;
      w.data<float>()[i] = static_cast<float>(a0 - a1 * std::cos(t) + a2 * std::cos(2 * t));
    }
    DFC_TRY_ASSIGN(y, c.cast(c.constant(std::move(w), "window"), dt));
    c.setOutput(0, y);
    return {};
  };
}

// MeanVarianceNormalization: (x - mean) / sqrt(var + 1e-9) over axes (default 0, 2, 3).
Status mapMeanVarianceNormalization(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DFC_TRY(needFloat(c, x));
  std::vector<int64_t> axes = c.attr("axes") ? c.attrInts("axes") : std::vector<int64_t>{0, 2, 3};
  for (auto& a : axes) {
    DFC_TRY_ASSIGN(n, c.dimAxis(a, c.rank(x)));
    a = n;
  }
  const ir::Attributes mean{{"fn", std::string("mean")}, {"axes", axes}, {"keepdims", int64_t{1}}};
  DFC_TRY_ASSIGN(mu, c.emit(ir::OpKind::Reduce, {x}, mean));
  DFC_TRY_ASSIGN(d, c.binary("sub", x, mu));
  DFC_TRY_ASSIGN(d2, c.binary("mul", d, d));
  DFC_TRY_ASSIGN(var, c.emit(ir::OpKind::Reduce, {d2}, mean));
  DFC_TRY_ASSIGN(ve, c.binary("add", var, c.scalarF32(1e-9f)));
  DFC_TRY_ASSIGN(sd, c.unary("sqrt", ve));
  DFC_TRY_ASSIGN(y, c.binary("div", d, sd));
  c.setOutput(0, y);
  return {};
}

// LRN: x / (bias + alpha / size * sum of x^2 over the `size` channels around c)^beta.
Status mapLrn(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DFC_TRY(needFloat(c, x));
  const ir::Shape s = c.shape(x);
  const int64_t size = c.attrInt("size", 0);
  if (s.size() < 3 || size < 1 || size > 1024) return c.error("needs an input [N, C, ...] and a size in 1..1024");
  const int64_t before = (size - 1) / 2, after = size - 1 - before;
  DFC_TRY_ASSIGN(sq, c.binary("mul", x, x));
  std::vector<ValueId> parts;
  for (int64_t pad : {before, after}) {
    ir::Shape zs = s;
    zs[1] = pad;
    if (pad > 0) parts.push_back(c.constant(ir::Tensor(ir::TensorType{DType::F32, zs}), "zeros"));
  }
  parts.insert(parts.begin() + (before > 0 ? 1 : 0), sq);
  ValueId padded = sq;
  if (parts.size() > 1) {
    DFC_TRY_ASSIGN(cat, c.emit(ir::OpKind::Concat, parts, {{"axis", int64_t{1}}}));
    padded = cat;
  }
  ValueId sum = ir::kNoValue;
  for (int64_t k = 0; k < size; ++k) {
    DFC_TRY_ASSIGN(part, c.emit(ir::OpKind::Slice, {padded}, {{"axis", int64_t{1}}, {"start", k}, {"end", k + s[1]}}));
    if (sum == ir::kNoValue) {
      sum = part;
      continue;
    }
    DFC_TRY_ASSIGN(acc, c.binary("add", sum, part));
    sum = acc;
  }
  const double alpha = c.attrFloat("alpha", 1e-4), beta = c.attrFloat("beta", 0.75), bias = c.attrFloat("bias", 1.0);
  DFC_TRY_ASSIGN(scaled, c.binary("mul", sum, c.scalarF32(static_cast<float>(alpha / static_cast<double>(size)))));
  DFC_TRY_ASSIGN(based, c.binary("add", scaled, c.scalarF32(static_cast<float>(bias))));
  DFC_TRY_ASSIGN(denom, c.binary("pow", based, c.scalarF32(static_cast<float>(beta))));
  DFC_TRY_ASSIGN(y, c.binary("div", x, denom));
  c.setOutput(0, y);
  return {};
}

// v [N, C, H, W] with `before`/`after` rows (axis 2) or columns (axis 3) of `fill` on either side.
Expected<ValueId> padWith(ImportContext& c, ValueId v, int64_t axis, int64_t before, int64_t after, float fill) {
  auto block = [&](int64_t n) {
    ir::Shape s = c.shape(v);
    s[static_cast<size_t>(axis)] = n;
    ir::Tensor t(ir::TensorType{DType::F32, s});
    for (float& f : t.span<float>()) f = fill;
    return c.constant(std::move(t), "pad");
  };
  std::vector<ValueId> parts;
  if (before > 0) parts.push_back(block(before));
  parts.push_back(v);
  if (after > 0) parts.push_back(block(after));
  if (parts.size() == 1) return v;
  return c.emit(ir::OpKind::Concat, parts, {{"axis", axis}});
}

// ReverseSequence with constant sequence_lens: each batch entry's first
// len steps along time_axis reversed (a gather), the entries joined again.
Status mapReverseSequence(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DFC_TRY_ASSIGN(lensIn, c.requireInput(1));
  DFC_TRY_ASSIGN(lens, c.constInts(lensIn, "sequence_lens"));
  const ir::Shape s = c.shape(x);
  if (s.size() < 2) return c.error("needs an input of rank >= 2");
  const int64_t timeAxis = c.attrInt("time_axis", 0), batchAxis = c.attrInt("batch_axis", 1);
  if ((timeAxis != 0 || batchAxis != 1) && (timeAxis != 1 || batchAxis != 0))
    return c.error("time_axis and batch_axis must be 0 and 1");
  const int64_t steps = s[static_cast<size_t>(timeAxis)], batch = s[static_cast<size_t>(batchAxis)];
  if (static_cast<int64_t>(lens.size()) != batch) return c.error("sequence_lens needs one length per batch entry");
  if (batch > 4096) return c.error("a batch of more than 4096 entries is not supported");
  std::vector<ValueId> parts;
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t len = lens[static_cast<size_t>(b)];
    if (len < 0 || len > steps) return c.error("sequence length " + std::to_string(len) + " is outside [0, " + std::to_string(steps) + "]");
    DFC_TRY_ASSIGN(entry, c.emit(ir::OpKind::Slice, {x}, {{"axis", batchAxis}, {"start", b}, {"end", b + 1}}));
    ir::Tensor order(ir::TensorType{DType::I64, {steps}});
    for (int64_t t = 0; t < steps; ++t) order.data<int64_t>()[t] = t < len ? len - 1 - t : t;
    DFC_TRY_ASSIGN(reversed, c.emit(ir::OpKind::Gather, {entry, c.constant(std::move(order), "order")}, {{"axis", timeAxis}}));
    parts.push_back(reversed);
  }
  DFC_TRY_ASSIGN(y, parts.size() == 1 ? c.unary("identity", parts[0])
                                      : c.emit(ir::OpKind::Concat, parts, {{"axis", batchAxis}}));
  c.setOutput(0, y);
  return {};
}

}  // namespace

// MaxPool's Indices (storage_order picks row- or column-major planes): for each
// output, the flat input index of the first window element equal to the maximum y.
Expected<ValueId> onnxMaxPoolIndices(ImportContext& c, ValueId x, ValueId y, const std::vector<int64_t>& kernel,
                                     const std::vector<int64_t>& strides, const std::vector<int64_t>& pads) {
  const ir::Shape xs = c.shape(x), ys = c.shape(y);
  const bool columnMajor = c.attrInt("storage_order", 0) != 0;  // (h, w) flattened as w * H + h
  if (xs[0] * xs[1] * xs[2] * xs[3] > (int64_t{1} << 24)) return c.error("the Indices output of an input over 2^24 elements");
  ir::Tensor flat(ir::TensorType{DType::F32, xs});
  const int64_t plane = xs[2] * xs[3];
  for (int64_t i = 0; i < flat.numElements(); ++i) {
    const int64_t h = (i % plane) / xs[3], w = i % xs[3];
    flat.data<float>()[i] = static_cast<float>(i - i % plane + (columnMajor ? w * xs[2] + h : h * xs[3] + w));
  }
  ValueId px = x, pi = c.constant(std::move(flat), "flat_index");
  for (int64_t axis : {2, 3}) {
    const size_t a = static_cast<size_t>(axis - 2);
    DFC_TRY_ASSIGN(nx, padWith(c, px, axis, pads[a], pads[a + 2], -INFINITY));
    DFC_TRY_ASSIGN(ni, padWith(c, pi, axis, pads[a], pads[a + 2], -1.0f));
    px = nx;
    pi = ni;
  }
  auto positions = [&](int64_t offset, size_t a) {  // offset + stride * o for each output o
    ir::Tensor t(ir::TensorType{DType::I64, {ys[a + 2]}});
    for (int64_t o = 0; o < ys[a + 2]; ++o) t.data<int64_t>()[o] = offset + strides[a] * o;
    return c.constant(std::move(t), "window_rows");
  };
  ValueId result = ir::kNoValue;
  for (int64_t i = kernel[0] - 1; i >= 0; --i)  // the last offset first: the first match wins
    for (int64_t j = kernel[1] - 1; j >= 0; --j) {
      ValueId at[2] = {px, pi};
      for (ValueId& v : at) {
        DFC_TRY_ASSIGN(rows, c.emit(ir::OpKind::Gather, {v, positions(i, 0)}, {{"axis", int64_t{2}}}));
        DFC_TRY_ASSIGN(cols, c.emit(ir::OpKind::Gather, {rows, positions(j, 1)}, {{"axis", int64_t{3}}}));
        v = cols;
      }
      if (result == ir::kNoValue) {
        result = at[1];
        continue;
      }
      DFC_TRY_ASSIGN(hit, c.binary("equal", at[0], y));
      DFC_TRY_ASSIGN(picked, c.emit(ir::OpKind::Where, {hit, at[1], result}));
      result = picked;
    }
  return c.cast(result, DType::I64);
}


constexpr int64_t kMaxDetOrder = 4;  // the Leibniz sum has n! products of n entries

struct SignedPermutation {
  std::vector<int64_t> p;
  bool odd = false;
};

// Every permutation of 0..n-1, the identity first, with its parity.
std::vector<SignedPermutation> permutations(int64_t n) {
  std::vector<int64_t> p(static_cast<size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  std::vector<SignedPermutation> out;
  do {
    int inversions = 0;
    for (size_t i = 0; i < p.size(); ++i)
      for (size_t j = i + 1; j < p.size(); ++j) inversions += p[i] > p[j];
    out.push_back({p, inversions % 2 == 1});
  } while (std::next_permutation(p.begin(), p.end()));
  return out;
}

// Det over the last two axes: sum over permutations p of sign(p) * prod_i x[..., i, p(i)].
// Exact in the entries (no pivoting to go wrong on a singular leading minor).
Status mapDet(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DFC_TRY(needFloat(c, x));
  const ir::Shape s = c.shape(x);
  const size_t r = s.size();
  if (r < 2 || s[r - 1] != s[r - 2]) return c.error("needs square matrices in its last two axes (input " + c.type(x).toString() + ")");
  const int64_t n = s[r - 1];
  if (n > kMaxDetOrder)
    return c.error("matrices of order " + std::to_string(n) + " (the sum over permutations is built up to order " +
                   std::to_string(kMaxDetOrder) + ")");
  std::vector<std::vector<ValueId>> entry(static_cast<size_t>(n), std::vector<ValueId>(static_cast<size_t>(n)));
  for (int64_t i = 0; i < n; ++i) {
    DFC_TRY_ASSIGN(row, sliceAxis(c, x, r - 2, i, i + 1, 1));
    for (int64_t j = 0; j < n; ++j) {
      DFC_TRY_ASSIGN(e, sliceAxis(c, row, r - 1, j, j + 1, 1));
      entry[static_cast<size_t>(i)][static_cast<size_t>(j)] = e;
    }
  }
  ValueId sum = ir::kNoValue;
  for (const SignedPermutation& perm : permutations(n)) {
    ValueId term = entry[0][static_cast<size_t>(perm.p[0])];
    for (size_t i = 1; i < perm.p.size(); ++i) {
      DFC_TRY_ASSIGN(product, c.binary("mul", term, entry[i][static_cast<size_t>(perm.p[i])]));
      term = product;
    }
    if (sum == ir::kNoValue) {
      sum = term;  // the identity: even
      continue;
    }
    DFC_TRY_ASSIGN(next, c.binary(perm.odd ? "sub" : "add", sum, term));
    sum = next;
  }
  DFC_TRY_ASSIGN(y, c.reshape(sum, ir::Shape(s.begin(), s.end() - 2)));
  c.setOutput(0, y);
  return {};
}

void registerMatrixOps(OpTable& t) {
  t["Det"] = mapDet;
  t["CumSum"] = mapCumSum;
  t["EyeLike"] = mapEyeLike;
  t["HannWindow"] = windowOp(0.5, 0.5, 0);
  t["HammingWindow"] = windowOp(25.0 / 46.0, 21.0 / 46.0, 0);
  t["BlackmanWindow"] = windowOp(0.42, 0.5, 0.08);
  t["MeanVarianceNormalization"] = mapMeanVarianceNormalization;
  t["LRN"] = mapLrn;
  t["ReverseSequence"] = mapReverseSequence;
}

}  // namespace dfc::onnx
