// Neural-network ONNX ops: MatMul, Gemm, Conv, ConvTranspose, pooling,
// normalizations and softmax. Simple forms map to the IR's original ops
// (conv2d, maxpool2d, matmul, batch_matmul, softmax, layer_norm: they have
// BLAS kernels and gradients); the rest to the general ops.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "ir/GeneralOps.h"
#include "ir/ShapeProduct.h"
#include "onnx/ImportContext.h"

namespace dfc::onnx {
namespace {

using ir::DType;
using ir::OpKind;
using ir::Shape;
using ir::ValueId;

// numpy matmul: 1-D operands get a unit axis, leading dims broadcast.
Expected<ValueId> matmul(ImportContext& c, ValueId a, ValueId b) {
  DFC_TRY(needFloat(c, a));
  DFC_TRY(needFloat(c, b));
  Shape as = c.shape(a), bs = c.shape(b);
  if (as.empty() || bs.empty()) return c.error("MatMul of a scalar");
  const bool aVec = as.size() == 1, bVec = bs.size() == 1;
  if (aVec) as.insert(as.begin(), 1);
  if (bVec) bs.push_back(1);
  const int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
  if (bs[bs.size() - 2] != k) return c.error("inner dimensions differ");
  Shape aBatch(as.begin(), as.end() - 2), bBatch(bs.begin(), bs.end() - 2);
  auto batch = ir::broadcastShapes(aBatch, bBatch);
  if (!batch) return c.error("batch dimensions do not broadcast");
  Shape outShape = *batch;
  outShape.push_back(m);
  outShape.push_back(n);
  ValueId y;
  if (bBatch.empty() || ir::dimProduct(bBatch, 0, bBatch.size()) == 1) {
    // [.., M, K] @ [K, N]: one 2-D matmul over the flattened rows.
    DFC_TRY_ASSIGN(a2, c.reshape(a, {ir::dimProduct(*batch, 0, batch->size()) * m, k}));
    if (ir::dimProduct(aBatch, 0, aBatch.size()) != ir::dimProduct(*batch, 0, batch->size()))
      return c.error("unsupported broadcast");
    DFC_TRY_ASSIGN(b2, c.reshape(b, {k, n}));
    DFC_TRY_ASSIGN(mm, c.emit(OpKind::MatMul, {a2, b2}, {{"trans_a", int64_t{0}}, {"trans_b", int64_t{0}}}));
    y = mm;
  } else if (aBatch == bBatch) {
    // Equal batch axes (attention's [B,H,T,D]): one batch_matmul over them as
    // they are, so a transpose of the last two folds into its trans_b and the
    // runtime finds the attention chain (ir/AttentionPattern.h) around it.
    DFC_TRY_ASSIGN(mm, c.emit(OpKind::BatchMatMul, {a, b}, {{"trans_a", int64_t{0}}, {"trans_b", int64_t{0}}}));
    y = mm;
  } else {
    const int64_t nb = ir::dimProduct(*batch, 0, batch->size());
    auto flat = [&](ValueId v, Shape s, int64_t r, int64_t cc) -> Expected<ValueId> {
      Shape full = *batch;
      full.push_back(r);
      full.push_back(cc);
      ValueId cur = v;
      if (c.shape(v) != s) {
        DFC_TRY_ASSIGN(rs, c.reshape(v, s));
        cur = rs;
      }
      if (s != full) {
        DFC_TRY_ASSIGN(ex, c.emit(OpKind::Expand, {cur}, {{"shape", full}}));
        cur = ex;
      }
      return c.reshape(cur, {nb, r, cc});
    };
    DFC_TRY_ASSIGN(a3, flat(a, as, m, k));
    DFC_TRY_ASSIGN(b3, flat(b, bs, k, n));
    DFC_TRY_ASSIGN(mm, c.emit(OpKind::BatchMatMul, {a3, b3}, {{"trans_a", int64_t{0}}, {"trans_b", int64_t{0}}}));
    y = mm;
  }
  if (aVec) outShape.erase(outShape.end() - 2);
  if (bVec) outShape.pop_back();
  return c.reshape(y, outShape);
}

Status mapMatMul(ImportContext& c) {
  DFC_TRY_ASSIGN(a, c.requireInput(0));
  DFC_TRY_ASSIGN(b, c.requireInput(1));
  DFC_TRY_ASSIGN(y, matmul(c, a, b));
  c.setOutput(0, y);
  return {};
}

Status mapGemm(ImportContext& c) {
  DFC_TRY_ASSIGN(a, c.requireInput(0));
  DFC_TRY_ASSIGN(b, c.requireInput(1));
  DFC_TRY(needFloat(c, a));
  if (c.rank(a) != 2 || c.rank(b) != 2) return c.error("Gemm needs 2-D A and B");
  const int64_t ta = c.attrInt("transA", 0), tb = c.attrInt("transB", 0);
  const double alpha = c.attrFloat("alpha", 1.0), beta = c.attrFloat("beta", 1.0);
  DFC_TRY_ASSIGN(y0, c.emit(OpKind::MatMul, {a, b}, {{"trans_a", ta}, {"trans_b", tb}}));
  ValueId y = y0;
  if (alpha != 1.0) {
    DFC_TRY_ASSIGN(s, c.emit(OpKind::Scale, {y}, {{"alpha", alpha}}));
    y = s;
  }
  if (ValueId cc = c.input(2); cc != ir::kNoValue && beta != 0.0) {
    if (beta != 1.0) {
      DFC_TRY_ASSIGN(s, c.emit(OpKind::Scale, {cc}, {{"alpha", beta}}));
      cc = s;
    }
    if (c.rank(cc) == 1 && c.shape(cc)[0] == c.shape(y)[1] && c.shape(y)[1] > 1) {
      DFC_TRY_ASSIGN(s, c.emit(OpKind::BiasAdd, {y, cc}));
      y = s;
    } else {
      DFC_TRY_ASSIGN(s, c.binary("add", y, cc));
      if (c.shape(s) != c.shape(y)) return c.error("C does not broadcast to [M, N]");
      y = s;
    }
  }
  c.setOutput(0, y);
  return {};
}

struct Window2d {
  std::vector<int64_t> kernel, strides, pads, dilations;  // pads [t, l, b, r]
};

// Reads kernel/strides/pads/dilations/auto_pad for a 2-D window; 1-D windows
// are lifted to 2-D with a unit height by the callers.
Expected<Window2d> windowAttrs(ImportContext& c, const Shape& x, std::vector<int64_t> kernel, bool lifted,
                               bool ceilMode) {
  auto lift = [&](std::vector<int64_t> v, int64_t fill) {
    if (lifted && v.size() == 1) v.insert(v.begin(), fill);
    return v;
  };
  Window2d w;
  w.kernel = kernel;
  w.strides = lift(c.attrInts("strides"), 1);
  w.dilations = lift(c.attrInts("dilations"), 1);
  auto pads = c.attrInts("pads");
  if (lifted && pads.size() == 2) pads = {0, pads[0], 0, pads[1]};
  if (w.strides.empty()) w.strides = {1, 1};
  if (w.dilations.empty()) w.dilations = {1, 1};
  if (pads.empty()) pads = {0, 0, 0, 0};
  if (w.kernel.size() != 2 || w.strides.size() != 2 || w.dilations.size() != 2 || pads.size() != 4)
    return c.error("only 1-D and 2-D windows are supported");
  const std::string autoPad = c.attrString("auto_pad", "NOTSET");
  if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    if (ceilMode) return c.error("auto_pad with ceil_mode is not supported");
    for (int i = 0; i < 2; ++i) {
      int64_t in = x[static_cast<size_t>(2 + i)];
      int64_t out = (in + w.strides[i] - 1) / w.strides[i];
      int64_t total = std::max<int64_t>(0, (out - 1) * w.strides[i] + (w.kernel[i] - 1) * w.dilations[i] + 1 - in);
      int64_t small = total / 2, big = total - small;
      pads[i] = autoPad == "SAME_UPPER" ? small : big;
      pads[i + 2] = autoPad == "SAME_UPPER" ? big : small;
    }
  } else if (autoPad == "VALID") {
    pads = {0, 0, 0, 0};
  } else if (autoPad != "NOTSET") {
    return c.error("auto_pad " + autoPad + " is not supported");
  }
  w.pads = pads;
  return w;
}

// x of rank 3 (1-D window) becomes [N, C, 1, L]; returns whether it did.
Expected<std::pair<ValueId, bool>> liftTo4d(ImportContext& c, ValueId x) {
  const Shape& s = c.shape(x);
  if (s.size() == 4) return std::pair{x, false};
  if (s.size() != 3) return c.error("only 1-D and 2-D spatial inputs are supported (input " + c.type(x).toString() + ")");
  DFC_TRY_ASSIGN(y, c.reshape(x, {s[0], s[1], 1, s[2]}));
  return std::pair{y, true};
}

Expected<ValueId> unlift(ImportContext& c, ValueId y, bool lifted) {
  if (!lifted) return y;
  const Shape& s = c.shape(y);
  return c.reshape(y, {s[0], s[1], s[3]});
}

std::string joinInts(const std::vector<int64_t>& v) {
  std::string out;
  for (int64_t x : v) out += (out.empty() ? "" : ", ") + std::to_string(x);
  return out;
}

// A kernel_shape attribute, when given, must be the weight's spatial shape:
// ONNX says so, and which of the two a model meant is unknowable.
Status checkKernelShape(ImportContext& c, const std::vector<int64_t>& weightKernel, bool lifted) {
  if (!c.attr("kernel_shape")) return {};
  auto k = c.attrInts("kernel_shape");
  if (lifted && k.size() == 1) k.insert(k.begin(), 1);
  if (k != weightKernel)
    return c.error("kernel_shape [" + joinInts(c.attrInts("kernel_shape")) + "] disagrees with the weight's spatial shape [" +
                   joinInts(lifted ? std::vector<int64_t>{weightKernel[1]} : weightKernel) + "]");
  return {};
}

Status mapConv(ImportContext& c) {
  DFC_TRY_ASSIGN(x0, c.requireInput(0));
  DFC_TRY_ASSIGN(w0, c.requireInput(1));
  DFC_TRY(needFloat(c, x0));
  DFC_TRY_ASSIGN(y, onnxConv(c, x0, w0, c.input(2)));
  c.setOutput(0, y);
  return {};
}

}  // namespace

// The node's Conv attributes applied to f32 x and w, plus bias when given.
Expected<ValueId> onnxConv(ImportContext& c, ValueId x0, ValueId w0, ValueId bias) {
  DFC_TRY_ASSIGN(lx, liftTo4d(c, x0));
  auto [x, lifted] = lx;
  ValueId w = w0;
  if (lifted) {
    const Shape& ws = c.shape(w0);
    if (ws.size() != 3) return c.error("weight rank does not match the input");
    DFC_TRY_ASSIGN(w4, c.reshape(w0, {ws[0], ws[1], 1, ws[2]}));
    w = w4;
  }
  const Shape& ws = c.shape(w);
  if (ws.size() != 4) return c.error("weight must be 4-D");
  DFC_TRY(checkKernelShape(c, {ws[2], ws[3]}, lifted));
  DFC_TRY_ASSIGN(win, windowAttrs(c, c.shape(x), {ws[2], ws[3]}, lifted, false));
  const int64_t group = c.attrInt("group", 1);
  const bool simple = group == 1 && win.dilations == std::vector<int64_t>{1, 1} && win.pads[0] == win.pads[2] &&
                      win.pads[1] == win.pads[3];
  Expected<ValueId> y = simple ? c.emit(OpKind::Conv2d, {x, w},
                                        {{"stride", win.strides}, {"pad", std::vector<int64_t>{win.pads[0], win.pads[1]}}})
                               : c.emit(OpKind::Conv, {x, w},
                                        {{"strides", win.strides}, {"pads", win.pads}, {"dilations", win.dilations},
                                         {"group", group}});
  if (!y) return y.error();
  ValueId out = *y;
  if (bias != ir::kNoValue) {
    DFC_TRY_ASSIGN(yb, c.emit(OpKind::BiasAdd, {out, bias}));
    out = yb;
  }
  return unlift(c, out, lifted);
}

namespace {

// ConvTranspose's begin and end pads per axis (4 values), from pads, auto_pad
// or output_shape (whose padding splits as auto_pad says, the odd one at the
// end for SAME_UPPER and NOTSET's begin otherwise: ONNX's reference).
Expected<std::vector<int64_t>> convTransposePads(ImportContext& c, const Shape& xs, const Shape& ws,
                                                 const std::vector<int64_t>& s, const std::vector<int64_t>& op,
                                                 std::vector<int64_t> p, bool lifted) {
  std::string autoPad = c.attrString("auto_pad", "NOTSET");
  if (autoPad != "NOTSET" && autoPad != "VALID" && autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    return c.error("auto_pad " + autoPad + " is not supported");
  std::vector<int64_t> target = c.attrInts("output_shape");
  if (lifted && target.size() == 1) target.insert(target.begin(), 1);
  if (!target.empty() && target.size() != 2) return c.error("output_shape needs one extent per spatial axis");
  if (target.empty() && autoPad.rfind("SAME", 0) == 0) target = {xs[2] * s[0], xs[3] * s[1]};
  if (autoPad == "VALID") p = {0, 0, 0, 0};
  if (target.empty()) return p;
  for (size_t i = 0; i < 2; ++i) {
    const int64_t total = s[i] * (xs[2 + i] - 1) + op[i] + ws[2 + i] - target[i];
    const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);  // floor, as Python's //
    p[i] = autoPad == "SAME_UPPER" ? half : total - half;
    p[i + 2] = total - p[i];
  }
  return p;
}

// A 4-D kernel with its taps spread `d` apart along `axis` (2 or 3), zeros
// between: a dilated ConvTranspose is the plain one with this kernel.
Expected<ValueId> dilateKernel(ImportContext& c, ValueId w, size_t axis, int64_t d) {
  const Shape ws = c.shape(w);
  Shape taps = ws, gap = ws;
  taps.insert(taps.begin() + static_cast<std::ptrdiff_t>(axis) + 1, 1);  // each tap, then d - 1 zeros after it
  gap.insert(gap.begin() + static_cast<std::ptrdiff_t>(axis) + 1, d - 1);
  ir::Tensor zeros(ir::TensorType{DType::F32, gap});
  for (float& z : zeros.span<float>()) z = 0;
  DFC_TRY_ASSIGN(tapped, c.reshape(w, taps));
  DFC_TRY_ASSIGN(spread, c.emit(OpKind::Concat, {tapped, c.constant(std::move(zeros), "dilation_gap")},
                                {{"axis", static_cast<int64_t>(axis + 1)}}));
  Shape flat = ws;
  flat[axis] = ws[axis] * d;
  DFC_TRY_ASSIGN(joined, c.reshape(spread, flat));
  return c.emit(OpKind::Slice, {joined},
                {{"axis", static_cast<int64_t>(axis)}, {"start", int64_t{0}}, {"end", (ws[axis] - 1) * d + 1}});
}

// ConvTranspose is the input gradient of a convolution: conv2d_grad_input
// with the begin pads on both sides; a different end pad is the extent the
// gradient is asked for (up to stride - 1 more) or a crop of it.
Status mapConvTranspose(ImportContext& c) {
  DFC_TRY_ASSIGN(x0, c.requireInput(0));
  DFC_TRY_ASSIGN(w0, c.requireInput(1));
  DFC_TRY(needFloat(c, x0));
  DFC_TRY_ASSIGN(lx, liftTo4d(c, x0));
  auto [x, lifted] = lx;
  ValueId w = w0;
  if (lifted) {
    const Shape& ws = c.shape(w0);
    DFC_TRY_ASSIGN(w4, c.reshape(w0, {ws[0], ws[1], 1, ws[2]}));
    w = w4;
  }
  Shape ws = c.shape(w);
  const Shape xs = c.shape(x);
  if (ws.size() != 4) return c.error("weight must be 4-D");
  DFC_TRY(checkKernelShape(c, {ws[2], ws[3]}, lifted));
  if (c.attrInt("group", 1) != 1) return c.error("grouped ConvTranspose is not supported");
  auto lift = [&, lifted = lifted](std::vector<int64_t> v, int64_t fill) {  // clang 14 cannot capture a binding
    if (lifted && v.size() == 1) v.insert(v.begin(), fill);
    return v;
  };
  auto s = lift(c.attrInts("strides"), 1), d = lift(c.attrInts("dilations"), 1), op = lift(c.attrInts("output_padding"), 0);
  auto p = c.attrInts("pads");
  if (lifted && p.size() == 2) p = {0, p[0], 0, p[1]};
  if (s.empty()) s = {1, 1};
  if (d.empty()) d = {1, 1};
  if (op.empty()) op = {0, 0};
  if (p.empty()) p = {0, 0, 0, 0};
  if (d.size() != 2 || d[0] < 1 || d[1] < 1) return c.error("dilations must be positive, one per spatial axis");
  for (size_t i = 0; i < 2; ++i)
    if (d[i] > 1) {
      DFC_TRY_ASSIGN(dilated, dilateKernel(c, w, 2 + i, d[i]));
      w = dilated;
    }
  ws = c.shape(w);  // the kernel as applied
  if (s.size() != 2 || op.size() != 2 || p.size() != 4) return c.error("only 1-D and 2-D windows are supported");
  DFC_TRY_ASSIGN(pads, convTransposePads(c, xs, ws, s, op, p, lifted));
  Shape out{xs[0], ws[1], 0, 0}, computed = out;
  for (size_t i = 0; i < 2; ++i) {
    if (op[i] >= s[i]) return c.error("output_padding must be smaller than the stride");
    if (pads[i] < 0) return c.error("a negative begin pad is not supported");
    const int64_t natural = (xs[2 + i] - 1) * s[i] - 2 * pads[i] + ws[2 + i];  // end pad = begin pad
    out[2 + i] = natural + pads[i] - pads[i + 2] + op[i];
    if (out[2 + i] < 1) return c.error("the output would be empty");
    if (out[2 + i] - natural >= s[i])
      return c.error("end pads more than stride - 1 below the begin pads are not supported");
    computed[2 + i] = std::max(natural, out[2 + i]);
  }
  DFC_TRY_ASSIGN(y,
                 c.emit(OpKind::Conv2dGradInput, {x, w},
                        {{"stride", s}, {"pad", std::vector<int64_t>{pads[0], pads[1]}}, {"input_shape", computed}}));
  ValueId res = y;
  for (int64_t axis = 2; axis < 4; ++axis)
    if (computed[static_cast<size_t>(axis)] != out[static_cast<size_t>(axis)]) {
      DFC_TRY_ASSIGN(cropped, c.emit(OpKind::Slice, {res},
                                     {{"axis", axis}, {"start", int64_t{0}}, {"end", out[static_cast<size_t>(axis)]}}));
      res = cropped;
    }
  if (ValueId b = c.input(2); b != ir::kNoValue) {
    DFC_TRY_ASSIGN(yb, c.emit(OpKind::BiasAdd, {res, b}));
    res = yb;
  }
  DFC_TRY_ASSIGN(r, unlift(c, res, lifted));
  c.setOutput(0, r);
  return {};
}

Expected<ValueId> poolF32(ImportContext& c, ValueId x0, bool isMax);

// MaxPool's Indices output (MapMatrix.cpp computes it from the window).
Expected<ValueId> maxPoolIndices(ImportContext& c, ValueId x, ValueId y) {
  const Shape xs = c.shape(x);
  if (xs.size() != 4 || c.attrInt("ceil_mode", 0) != 0)
    return c.error("the Indices output is supported for 2-D pooling without ceil_mode");
  DFC_TRY_ASSIGN(win, windowAttrs(c, xs, c.attrInts("kernel_shape"), false, false));
  if (win.dilations != std::vector<int64_t>{1, 1}) return c.error("the Indices output of a dilated MaxPool is not supported");
  return onnxMaxPoolIndices(c, x, y, win.kernel, win.strides, win.pads);
}

MapFn poolOp(bool isMax) {
  return [isMax](ImportContext& c) -> Status {
    DFC_TRY_ASSIGN(xIn, c.requireInput(0));
    const DType inType = c.type(xIn).dtype;  // integers (uint8 images) max-pool in f32, exactly below 2^24
    if (isMax && (inType == DType::I64 || inType == DType::I32) && !c.outputWanted(1)) {
      DFC_TRY_ASSIGN(xf, c.cast(xIn, DType::F32));
      DFC_TRY_ASSIGN(pooled, poolF32(c, xf, isMax));
      DFC_TRY_ASSIGN(back, c.cast(pooled, inType));
      c.setOutput(0, back);
      return {};
    }
    DFC_TRY(needFloat(c, xIn));
    if (c.outputWanted(1) && !isMax) return c.error("the Indices output is not supported");
    DFC_TRY_ASSIGN(r, poolF32(c, xIn, isMax));
    if (c.outputWanted(1)) {
      DFC_TRY_ASSIGN(indices, maxPoolIndices(c, xIn, r));
      c.setOutput(1, indices);
    }
    c.setOutput(0, r);
    return {};
  };
}

// The node's pooling window over f32 x0.
Expected<ValueId> poolF32(ImportContext& c, ValueId x0, bool isMax) {
  DFC_TRY_ASSIGN(lx, liftTo4d(c, x0));
  auto [x, lifted] = lx;
  auto k = c.attrInts("kernel_shape");
  if (lifted && k.size() == 1) k.insert(k.begin(), 1);
  const bool ceil = c.attrInt("ceil_mode", 0) != 0;
  DFC_TRY_ASSIGN(win, windowAttrs(c, c.shape(x), k, lifted, ceil));
  const bool includePad = c.attrInt("count_include_pad", 0) != 0;
  const bool simple = isMax && !ceil && win.dilations == std::vector<int64_t>{1, 1} && win.pads[0] == win.pads[2] &&
                      win.pads[1] == win.pads[3] && win.pads[0] < k[0] && win.pads[1] < k[1];
  Expected<ValueId> y = simple
      ? c.emit(OpKind::MaxPool2d, {x}, {{"kernel", k}, {"stride", win.strides},
                                         {"pad", std::vector<int64_t>{win.pads[0], win.pads[1]}}})
      : c.emit(OpKind::Pool, {x}, {{"fn", std::string(isMax ? "max" : "avg")}, {"kernel", k},
                                   {"strides", win.strides}, {"pads", win.pads}, {"dilations", win.dilations},
                                   {"ceil_mode", int64_t{ceil}}, {"count_include_pad", int64_t{includePad}}});
  if (!y) return y.error();
  return unlift(c, *y, lifted);
}

MapFn globalPoolOp(bool isMax) {
  return [isMax](ImportContext& c) -> Status {
    DFC_TRY_ASSIGN(x, c.requireInput(0));
    DFC_TRY(needFloat(c, x));
    const Shape& s = c.shape(x);
    if (s.size() < 3) return c.error("needs an input of rank >= 3");
    if (!isMax && s.size() == 4) {
      DFC_TRY_ASSIGN(g, c.emit(OpKind::GlobalAvgPool, {x}));
      DFC_TRY_ASSIGN(r, c.reshape(g, {s[0], s[1], 1, 1}));
      c.setOutput(0, r);
      return {};
    }
    std::vector<int64_t> axes;
    for (size_t d = 2; d < s.size(); ++d) axes.push_back(static_cast<int64_t>(d));
    DFC_TRY_ASSIGN(r, c.emit(OpKind::Reduce, {x}, {{"fn", std::string(isMax ? "max" : "mean")}, {"axes", axes},
                                                  {"keepdims", int64_t{1}}}));
    c.setOutput(0, r);
    return {};
  };
}

// Per-channel vector [C] -> [C, 1, ...] so that it broadcasts over x[N, C, ...].
// A per-channel input [C] of x [N, C, ...], shaped to broadcast over x. One
// of any other length would broadcast into the wrong shape: refused.
Expected<ValueId> channelVector(ImportContext& c, ValueId v, ValueId x) {
  Shape s = c.shape(v);
  const Shape& xs = c.shape(x);
  if (s.size() != 1 || s[0] != xs[1])
    return c.error("per-channel input '" + c.graph().value(v).name + "' is " + c.type(v).toString() + ", but the input " +
                   c.type(x).toString() + " has " + std::to_string(xs[1]) + " channel(s): it must be [" +
                   std::to_string(xs[1]) + "]");
  for (size_t d = 2; d < xs.size(); ++d) s.push_back(1);
  return c.reshape(v, s);
}

// Scale and bias are weights and the mean and variance are initializers of
// shape [C]: one batch_norm with running statistics, which training moves
// (ONNX's momentum weighs the old value: PyTorch's is 1 - it).
bool mapsToBatchNormOp(ImportContext& c, ValueId x) {
  const ir::Graph& g = c.graph();
  if (c.shape(x).size() < 2 || c.numInputs() != 5) return false;
  const ir::Shape ch{c.shape(x)[1]};
  for (int i = 1; i <= 4; ++i) {
    const ValueId v = c.input(i);
    if (v == ir::kNoValue || g.value(v).type != ir::TensorType{ir::DType::F32, ch}) return false;
    if (g.value(v).kind != (i <= 2 ? ir::ValueKind::Param : ir::ValueKind::Const)) return false;
  }
  return true;
}

// Training mode (opset 14+): normalized by the batch's own mean and
// (population) variance per channel; outputs 1 and 2 are the running mean and
// variance moved towards them: old * momentum + batch * (1 - momentum).
Status mapBatchNormTraining(ImportContext& c, ValueId x) {
  std::vector<ValueId> v;
  for (int i = 1; i <= 4; ++i) {
    DFC_TRY_ASSIGN(in, c.requireInput(i));
    DFC_TRY_ASSIGN(cv, channelVector(c, in, x));
    v.push_back(cv);
  }
  std::vector<int64_t> axes{0};
  for (int64_t d = 2; d < c.rank(x); ++d) axes.push_back(d);
  const ir::Attributes mean{{"fn", std::string("mean")}, {"axes", axes}, {"keepdims", int64_t{1}}};
  DFC_TRY_ASSIGN(mu, c.emit(OpKind::Reduce, {x}, mean));
  DFC_TRY_ASSIGN(centered, c.binary("sub", x, mu));
  DFC_TRY_ASSIGN(squares, c.binary("mul", centered, centered));
  DFC_TRY_ASSIGN(var, c.emit(OpKind::Reduce, {squares}, mean));
  DFC_TRY_ASSIGN(ve, c.binary("add", var, c.scalarF32(static_cast<float>(c.attrFloat("epsilon", 1e-5)))));
  DFC_TRY_ASSIGN(sd, c.unary("sqrt", ve));
  DFC_TRY_ASSIGN(k, c.binary("div", v[0], sd));
  DFC_TRY_ASSIGN(scaled, c.binary("mul", centered, k));
  DFC_TRY_ASSIGN(y, c.binary("add", scaled, v[1]));
  c.setOutput(0, y);
  const float momentum = static_cast<float>(c.attrFloat("momentum", 0.9));
  for (int out = 1; out <= 2; ++out) {
    if (!c.outputWanted(out)) continue;
    DFC_TRY_ASSIGN(kept, c.binary("mul", v[static_cast<size_t>(out + 1)], c.scalarF32(momentum)));
    DFC_TRY_ASSIGN(moved, c.binary("mul", out == 1 ? mu : var, c.scalarF32(1 - momentum)));
    DFC_TRY_ASSIGN(sum, c.binary("add", kept, moved));
    DFC_TRY_ASSIGN(flat, c.reshape(sum, {c.shape(x)[1]}));
    c.setOutput(out, flat);
  }
  return {};
}

Status mapBatchNorm(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DFC_TRY(needFloat(c, x));
  const size_t rank = c.shape(x).size();
  if (rank < 2) return c.error("needs an input [N, C, ...]");
  if (c.attrInt("training_mode", 0) != 0) return mapBatchNormTraining(c, x);
  if (c.outputWanted(1) || c.outputWanted(2))
    return c.error("outputs past Y (the batch statistics) are read only with training_mode=1 (opset 14 or newer)");
  if (mapsToBatchNormOp(c, x)) {
    const double momentum = 1.0 - c.attrFloat("momentum", 0.9);
    DFC_TRY_ASSIGN(outs, c.emitMulti(ir::OpKind::BatchNorm, {x, c.input(1), c.input(2), c.input(3), c.input(4)},
                                     {{"epsilon", c.attrFloat("epsilon", 1e-5)}, {"momentum", momentum}}));
    c.setOutput(0, outs[0]);
    return {};
  }
  std::vector<ValueId> v;
  for (int i = 1; i <= 4; ++i) {
    DFC_TRY_ASSIGN(in, c.requireInput(i));
    DFC_TRY_ASSIGN(cv, channelVector(c, in, x));
    v.push_back(cv);
  }
  const double eps = c.attrFloat("epsilon", 1e-5);
  DFC_TRY_ASSIGN(ve, c.binary("add", v[3], c.scalarF32(static_cast<float>(eps))));
  DFC_TRY_ASSIGN(sd, c.unary("sqrt", ve));
  DFC_TRY_ASSIGN(k, c.binary("div", v[0], sd));
  DFC_TRY_ASSIGN(xc, c.binary("sub", x, v[2]));
  DFC_TRY_ASSIGN(xs, c.binary("mul", xc, k));
  DFC_TRY_ASSIGN(y, c.binary("add", xs, v[1]));
  c.setOutput(0, y);
  return {};
}

// (x - mean) / sqrt(var + eps) over `axes`, then * scale + bias (broadcast).
Expected<ValueId> normalize(ImportContext& c, ValueId x, const std::vector<int64_t>& axes, double eps, ValueId* meanOut,
                            ValueId* invStdOut) {
  ir::Attributes mean{{"fn", std::string("mean")}, {"axes", axes}, {"keepdims", int64_t{1}}};
  DFC_TRY_ASSIGN(mu, c.emit(OpKind::Reduce, {x}, mean));
  DFC_TRY_ASSIGN(d, c.binary("sub", x, mu));
  DFC_TRY_ASSIGN(d2, c.binary("mul", d, d));
  DFC_TRY_ASSIGN(var, c.emit(OpKind::Reduce, {d2}, mean));
  DFC_TRY_ASSIGN(ve, c.binary("add", var, c.scalarF32(static_cast<float>(eps))));
  DFC_TRY_ASSIGN(sd, c.unary("sqrt", ve));
  DFC_TRY_ASSIGN(inv, c.unary("reciprocal", sd));
  if (meanOut) *meanOut = mu;
  if (invStdOut) *invStdOut = inv;
  return c.binary("mul", d, inv);
}

Status mapLayerNorm(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DFC_TRY_ASSIGN(scale, c.requireInput(1));
  DFC_TRY(needFloat(c, x));
  const int64_t rank = c.rank(x);
  DFC_TRY_ASSIGN(axis, c.dimAxis(c.attrInt("axis", -1), rank));
  const double eps = c.attrFloat("epsilon", 1e-5);
  ValueId bias = c.input(2);
  if (c.attrInt("stash_type", 1) != 1) return c.error("stash_type other than float is not supported");
  const Shape feat{c.shape(x).back()};
  if (axis == rank - 1 && !c.outputWanted(1) && !c.outputWanted(2) && c.shape(scale) == feat &&
      (bias == ir::kNoValue || c.shape(bias) == feat)) {
    ValueId b = bias;
    if (b == ir::kNoValue) b = c.constant(ir::Tensor(ir::TensorType{DType::F32, feat}), "zero_bias");
    DFC_TRY_ASSIGN(y, c.emit(OpKind::LayerNorm, {x, scale, b}, {{"epsilon", eps}}));
    c.setOutput(0, y);
    return {};
  }
  std::vector<int64_t> axes;
  for (int64_t d = axis; d < rank; ++d) axes.push_back(d);
  ValueId mu = ir::kNoValue, inv = ir::kNoValue;
  DFC_TRY_ASSIGN(n, normalize(c, x, axes, eps, &mu, &inv));
  DFC_TRY_ASSIGN(ys, c.binary("mul", n, scale));
  ValueId y = ys;
  if (bias != ir::kNoValue) {
    DFC_TRY_ASSIGN(yb, c.binary("add", y, bias));
    y = yb;
  }
  if (c.shape(y) != c.shape(x)) return c.error("scale/bias do not broadcast to the input");
  c.setOutput(0, y);
  c.setOutput(1, mu);
  c.setOutput(2, inv);
  return {};
}

Status mapInstanceNorm(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DFC_TRY_ASSIGN(scale, c.requireInput(1));
  DFC_TRY_ASSIGN(bias, c.requireInput(2));
  DFC_TRY(needFloat(c, x));
  const size_t rank = c.shape(x).size();
  if (rank < 3) return c.error("needs an input [N, C, D1, ...]");
  std::vector<int64_t> axes;
  for (size_t d = 2; d < rank; ++d) axes.push_back(static_cast<int64_t>(d));
  DFC_TRY_ASSIGN(n, normalize(c, x, axes, c.attrFloat("epsilon", 1e-5), nullptr, nullptr));
  DFC_TRY_ASSIGN(s, channelVector(c, scale, x));
  DFC_TRY_ASSIGN(b, channelVector(c, bias, x));
  DFC_TRY_ASSIGN(ys, c.binary("mul", n, s));
  DFC_TRY_ASSIGN(y, c.binary("add", ys, b));
  c.setOutput(0, y);
  return {};
}

// Softmax / LogSoftmax. Opset >= 13: over one axis. Opset < 13: over the
// flattened trailing axes from `axis` on.
MapFn softmaxOp(bool log) {
  return [log](ImportContext& c) -> Status {
    DFC_TRY_ASSIGN(x, c.requireInput(0));
    DFC_TRY(needFloat(c, x));
    const Shape s = c.shape(x);
    const int64_t rank = static_cast<int64_t>(s.size());
    if (rank == 0) return c.error("needs an input of rank >= 1");
    const bool newStyle = c.opset() >= 13;
    DFC_TRY_ASSIGN(axis, c.axis(c.attrInt("axis", newStyle ? -1 : 1), rank));
    std::vector<int64_t> axes;
    for (int64_t d = axis; d < (newStyle ? axis + 1 : rank); ++d) axes.push_back(d);
    if (log) {  // (x - max) - log(sum(exp(x - max))): exact where log(softmax) would underflow
      DFC_TRY_ASSIGN(mx, c.emit(OpKind::Reduce, {x}, {{"fn", std::string("max")}, {"axes", axes}, {"keepdims", int64_t{1}}}));
      DFC_TRY_ASSIGN(t, c.binary("sub", x, mx));
      DFC_TRY_ASSIGN(lse, c.emit(OpKind::Reduce, {t}, {{"fn", std::string("log_sum_exp")}, {"axes", axes},
                                                       {"keepdims", int64_t{1}}}));
      DFC_TRY_ASSIGN(y, c.binary("sub", t, lse));
      c.setOutput(0, y);
      return {};
    }
    ValueId y;
    if (!newStyle) {
      DFC_TRY_ASSIGN(x2, c.reshape(x, {ir::dimProduct(s, 0, static_cast<size_t>(axis)),
                                       ir::dimProduct(s, static_cast<size_t>(axis), s.size())}));
      DFC_TRY_ASSIGN(sm, c.emit(OpKind::Softmax, {x2}));
      DFC_TRY_ASSIGN(r, c.reshape(sm, s));
      y = r;
    } else {
      std::vector<int64_t> perm(static_cast<size_t>(rank));
      std::iota(perm.begin(), perm.end(), 0);
      std::swap(perm[static_cast<size_t>(axis)], perm.back());
      DFC_TRY_ASSIGN(xt, c.transpose(x, perm));
      DFC_TRY_ASSIGN(sm, c.emit(OpKind::Softmax, {xt}));
      DFC_TRY_ASSIGN(r, c.transpose(sm, perm));
      y = r;
    }
    c.setOutput(0, y);
    return {};
  };
}

}  // namespace

Expected<ValueId> onnxMatMul(ImportContext& c, ValueId a, ValueId b) { return matmul(c, a, b); }

void registerNnOps(OpTable& t) {
  t["MatMul"] = mapMatMul;
  t["Gemm"] = mapGemm;
  t["Conv"] = mapConv;
  t["ConvTranspose"] = mapConvTranspose;
  t["MaxPool"] = poolOp(true);
  t["AveragePool"] = poolOp(false);
  t["GlobalAveragePool"] = globalPoolOp(false);
  t["GlobalMaxPool"] = globalPoolOp(true);
  t["BatchNormalization"] = mapBatchNorm;
  t["LayerNormalization"] = mapLayerNorm;
  t["InstanceNormalization"] = mapInstanceNorm;
  t["Softmax"] = softmaxOp(false);
  t["LogSoftmax"] = softmaxOp(true);
}

}  // namespace dfc::onnx
