// Quantization ops, computed in f32 over the int64 the IR holds integers in:
// QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger,
// ConvInteger, QLinearMatMul and QLinearConv. Integer products and sums are
// exact in f32 while they stay below 2^24 (uint8 operands: inner sums of up to
// ~250 products), requantization rounds half to even and saturates to the
// zero point's type (uint8 unless it is int8), as the ONNX operators define.
#include "onnx/ImportContext.h"

namespace dfc::onnx {

using ir::DType;
using ir::OpKind;
using ir::ValueId;

namespace {

// v (a scalar, [1] or a vector of length shape[axis]) shaped to broadcast along `axis` of a rank-`rank` tensor.
Expected<ValueId> alongAxis(ImportContext& c, ValueId v, int64_t rank, int64_t axis) {
  const int64_t n = c.type(v).numElements();
  if (n == 1) return c.rank(v) == 0 ? v : c.reshape(v, {});
  if (c.rank(v) != 1) return c.error("a scale or zero point must be a scalar or a vector");
  DFC_TRY_ASSIGN(a, c.dimAxis(axis, rank));
  ir::Shape s(static_cast<size_t>(rank), 1);
  s[static_cast<size_t>(a)] = n;
  return c.reshape(v, s);
}

Expected<ValueId> asFloat(ImportContext& c, ValueId v) { return c.cast(v, DType::F32); }

// f32(x) - f32(zero point), the zero point along `axis` (absent: x itself).
Expected<ValueId> centered(ImportContext& c, ValueId x, ValueId zp, int64_t axis) {
  DFC_TRY_ASSIGN(xf, asFloat(c, x));
  if (zp == ir::kNoValue) return xf;
  DFC_TRY_ASSIGN(zf, asFloat(c, zp));
  DFC_TRY_ASSIGN(zb, alongAxis(c, zf, c.rank(x), axis));
  return c.binary("sub", xf, zb);
}

// round(v) + zero point, saturated to the zero point's type, as int64.
Expected<ValueId> requantize(ImportContext& c, ValueId v, ValueId zp, int zpIndex, int64_t axis) {
  DFC_TRY_ASSIGN(r, c.unary("round", v));
  ValueId q = r;
  if (zp != ir::kNoValue) {
    DFC_TRY_ASSIGN(zf, asFloat(c, zp));
    DFC_TRY_ASSIGN(zb, alongAxis(c, zf, c.rank(v), axis));
    DFC_TRY_ASSIGN(sum, c.binary("add", q, zb));
    q = sum;
  }
  const bool int8 = c.inputElemType(zpIndex) == ::onnx::TensorProto::INT8;
  DFC_TRY_ASSIGN(sat, c.unary("clip", q, int8 ? -128.0 : 0.0, int8 ? 127.0 : 255.0));
  return c.cast(sat, DType::I64);
}

// An integer accumulator (exact in f32) rounded to int32.
Expected<ValueId> toInt32(ImportContext& c, ValueId acc) {
  DFC_TRY_ASSIGN(r, c.unary("round", acc));
  return c.cast(r, DType::I32);
}

Status mapQuantizeLinear(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DFC_TRY_ASSIGN(scale, c.requireInput(1));
  const int64_t axis = c.attrInt("axis", 1);
  DFC_TRY_ASSIGN(xf, asFloat(c, x));
  DFC_TRY_ASSIGN(sb, alongAxis(c, scale, c.rank(x), axis));
  DFC_TRY_ASSIGN(scaled, c.binary("div", xf, sb));
  DFC_TRY_ASSIGN(y, requantize(c, scaled, c.input(2), 2, axis));
  c.setOutput(0, y);
  return {};
}

Status mapDequantizeLinear(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DFC_TRY_ASSIGN(scale, c.requireInput(1));
  const int64_t axis = c.attrInt("axis", 1);
  DFC_TRY_ASSIGN(xc, centered(c, x, c.input(2), axis));
  DFC_TRY_ASSIGN(sb, alongAxis(c, scale, c.rank(x), axis));
  DFC_TRY_ASSIGN(y, c.binary("mul", xc, sb));
  c.setOutput(0, y);
  return {};
}

Expected<ValueId> reduceAll(ImportContext& c, ValueId x, const std::string& fn) {
  std::vector<int64_t> axes;
  for (int64_t a = 0; a < c.rank(x); ++a) axes.push_back(a);
  return c.emit(OpKind::Reduce, {x}, {{"fn", fn}, {"axes", axes}, {"keepdims", int64_t{0}}});
}

// scale = (max(x, 0) - min(x, 0)) / 255, zero point = saturate(round(-min / scale)), y = QuantizeLinear.
Status mapDynamicQuantizeLinear(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DFC_TRY(needFloat(c, x));
  DFC_TRY_ASSIGN(hi0, reduceAll(c, x, "max"));
  DFC_TRY_ASSIGN(lo0, reduceAll(c, x, "min"));
  const ValueId zero = c.scalarF32(0);
  DFC_TRY_ASSIGN(hi, c.binary("max", hi0, zero));
  DFC_TRY_ASSIGN(lo, c.binary("min", lo0, zero));
  DFC_TRY_ASSIGN(span, c.binary("sub", hi, lo));
  DFC_TRY_ASSIGN(scale, c.binary("div", span, c.scalarF32(255)));
  DFC_TRY_ASSIGN(negLo, c.binary("sub", zero, lo));
  DFC_TRY_ASSIGN(zpRaw, c.binary("div", negLo, scale));
  DFC_TRY_ASSIGN(zpRound, c.unary("round", zpRaw));
  DFC_TRY_ASSIGN(zpF, c.unary("clip", zpRound, 0.0, 255.0));
  DFC_TRY_ASSIGN(scaled, c.binary("div", x, scale));
  DFC_TRY_ASSIGN(r, c.unary("round", scaled));
  DFC_TRY_ASSIGN(shifted, c.binary("add", r, zpF));
  DFC_TRY_ASSIGN(sat, c.unary("clip", shifted, 0.0, 255.0));
  DFC_TRY_ASSIGN(y, c.cast(sat, DType::I64));
  DFC_TRY_ASSIGN(zp, c.cast(zpF, DType::I64));
  c.setOutput(0, y);
  c.setOutput(1, scale);
  c.setOutput(2, zp);
  return {};
}

// (A - a_zp) @ (B - b_zp) in f32: a vector a_zp is per row of A, b_zp per column of B.
Expected<ValueId> integerMatMul(ImportContext& c, int a, int aZp, int b, int bZp) {
  DFC_TRY_ASSIGN(av, c.requireInput(a));
  DFC_TRY_ASSIGN(bv, c.requireInput(b));
  if (c.rank(av) < 2 || c.rank(bv) < 2) return c.error("needs operands of rank >= 2");
  DFC_TRY_ASSIGN(ac, centered(c, av, c.input(aZp), c.rank(av) - 2));
  DFC_TRY_ASSIGN(bc, centered(c, bv, c.input(bZp), c.rank(bv) - 1));
  return onnxMatMul(c, ac, bc);
}

Status mapMatMulInteger(ImportContext& c) {
  DFC_TRY_ASSIGN(acc, integerMatMul(c, 0, 2, 1, 3));
  DFC_TRY_ASSIGN(y, toInt32(c, acc));
  c.setOutput(0, y);
  return {};
}

// conv(x - x_zp, w - w_zp) + bias in f32; a vector w_zp is per output channel.
Expected<ValueId> integerConv(ImportContext& c, int x, int xZp, int w, int wZp, ValueId bias) {
  DFC_TRY_ASSIGN(xv, c.requireInput(x));
  DFC_TRY_ASSIGN(wv, c.requireInput(w));
  DFC_TRY_ASSIGN(xc, centered(c, xv, c.input(xZp), 1));
  DFC_TRY_ASSIGN(wc, centered(c, wv, c.input(wZp), 0));
  ValueId bf = ir::kNoValue;
  if (bias != ir::kNoValue) {
    DFC_TRY_ASSIGN(b, asFloat(c, bias));
    bf = b;
  }
  return onnxConv(c, xc, wc, bf);
}

Status mapConvInteger(ImportContext& c) {
  DFC_TRY_ASSIGN(acc, integerConv(c, 0, 2, 1, 3, ir::kNoValue));
  DFC_TRY_ASSIGN(y, toInt32(c, acc));
  c.setOutput(0, y);
  return {};
}

// acc * (a_scale * b_scale / y_scale), requantized to y_zero_point's type.
Expected<ValueId> rescale(ImportContext& c, ValueId acc, int aScale, int64_t aAxis, int bScale, int64_t bAxis, int yScale) {
  DFC_TRY_ASSIGN(as, c.requireInput(aScale));
  DFC_TRY_ASSIGN(bs, c.requireInput(bScale));
  DFC_TRY_ASSIGN(ys, c.requireInput(yScale));
  DFC_TRY_ASSIGN(ab, alongAxis(c, as, c.rank(acc), aAxis));
  DFC_TRY_ASSIGN(bb, alongAxis(c, bs, c.rank(acc), bAxis));
  DFC_TRY_ASSIGN(yb, alongAxis(c, ys, c.rank(acc), 0));
  DFC_TRY_ASSIGN(prod, c.binary("mul", ab, bb));
  DFC_TRY_ASSIGN(mult, c.binary("div", prod, yb));
  return c.binary("mul", acc, mult);
}

Status mapQLinearMatMul(ImportContext& c) {
  DFC_TRY_ASSIGN(acc, integerMatMul(c, 0, 2, 3, 5));
  DFC_TRY_ASSIGN(v, rescale(c, acc, 1, c.rank(acc) - 2, 4, c.rank(acc) - 1, 6));
  DFC_TRY_ASSIGN(y, requantize(c, v, c.input(7), 7, 0));
  c.setOutput(0, y);
  return {};
}

Status mapQLinearConv(ImportContext& c) {
  DFC_TRY_ASSIGN(acc, integerConv(c, 0, 2, 3, 5, c.input(8)));
  DFC_TRY_ASSIGN(v, rescale(c, acc, 1, 0, 4, 1, 6));
  DFC_TRY_ASSIGN(y, requantize(c, v, c.input(7), 7, 0));
  c.setOutput(0, y);
  return {};
}

}  // namespace

void registerQuantOps(OpTable& t) {
  t["QuantizeLinear"] = mapQuantizeLinear;
  t["DequantizeLinear"] = mapDequantizeLinear;
  t["DynamicQuantizeLinear"] = mapDynamicQuantizeLinear;
  t["MatMulInteger"] = mapMatMulInteger;
  t["ConvInteger"] = mapConvInteger;
  t["QLinearMatMul"] = mapQLinearMatMul;
  t["QLinearConv"] = mapQLinearConv;
}

}  // namespace dfc::onnx
