// Shape rules of the linear-algebra and layout families: matmul geometry,
// reshape, reductions over axes, transpose and slices.
#include <algorithm>

#include "ir/ShapeRules.h"

namespace dfc::ir {

Shape reducedShape(const Shape& x, const std::vector<int64_t>& axes, bool keep) {
  Shape out;
  for (size_t d = 0; d < x.size(); ++d) {
    bool reduced = std::find(axes.begin(), axes.end(), static_cast<int64_t>(d)) != axes.end();
    if (!reduced) out.push_back(x[d]);
    else if (keep) out.push_back(1);
  }
  return out;
}

OutputTypes LinalgShapes::MatMul(const ShapeArgs& a) {
  DFC_TRY(a.requireRank(0, 2));
  DFC_TRY(a.requireRank(1, 2));
  const Shape &x = a.in[0]->shape, &y = a.in[1]->shape;
  bool ta = a.node.intAttr("trans_a") != 0, tb = a.node.intAttr("trans_b") != 0;
  int64_t m = ta ? x[1] : x[0], ka = ta ? x[0] : x[1];
  int64_t kb = tb ? y[1] : y[0], nn = tb ? y[0] : y[1];
  if (ka != kb) return a.fail("inner dimensions differ: " + shapeStr(x) + " x " + shapeStr(y));
  return std::vector{f32Type({m, nn})};
}

OutputTypes LinalgShapes::Linear(const ShapeArgs& a) {
  DFC_TRY(a.requireRank(0, 2));
  DFC_TRY(a.requireRank(1, 2));
  DFC_TRY(a.requireRank(2, 1));
  const Shape &x = a.in[0]->shape, &w = a.in[1]->shape, &b = a.in[2]->shape;
  if (x[1] != w[1] || b[0] != w[0])
    return a.fail("x " + shapeStr(x) + ", w " + shapeStr(w) + " and b " + shapeStr(b) + " do not fit x @ w^T + b");
  return std::vector{f32Type({x[0], w[0]})};
}

OutputTypes LinalgShapes::BatchMatMul(const ShapeArgs& a) {
  const Shape &x = a.in[0]->shape, &y = a.in[1]->shape;
  if (x.size() < 3 || x.size() != y.size())
    return a.fail("needs operands of equal rank >= 3, got " + shapeStr(x) + " and " + shapeStr(y));
  if (!std::equal(x.begin(), x.end() - 2, y.begin()))
    return a.fail("leading dimensions differ: " + shapeStr(x) + " vs " + shapeStr(y));
  const size_t r = x.size();
  bool ta = a.node.intAttr("trans_a") != 0, tb = a.node.intAttr("trans_b") != 0;
  int64_t m = ta ? x[r - 1] : x[r - 2], ka = ta ? x[r - 2] : x[r - 1];
  int64_t kb = tb ? y[r - 1] : y[r - 2], nn = tb ? y[r - 2] : y[r - 1];
  if (ka != kb) return a.fail("inner dimensions differ: " + shapeStr(x) + " x " + shapeStr(y));
  Shape out(x.begin(), x.end() - 2);
  out.push_back(m);
  out.push_back(nn);
  return std::vector{f32Type(out)};
}

OutputTypes LayoutShapes::Reshape(const ShapeArgs& a) {
  Shape shape = a.node.intsAttr("shape");
  int64_t known = 1, inferAt = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (inferAt >= 0) return a.fail("more than one -1 in shape");
      inferAt = static_cast<int64_t>(i);
    } else if (shape[i] <= 0) {
      return a.fail("bad dimension in shape " + shapeStr(shape));
    } else if (__builtin_mul_overflow(known, shape[i], &known)) {  // found by fuzz_dfir_parser
      return a.fail("shape " + shapeStr(shape) + " overflows 64 bits");
    }
  }
  const int64_t total = a.in[0]->numElements();
  if (inferAt >= 0) {
    if (known == 0 || total % known != 0) return a.fail("cannot reshape " + shapeStr(a.in[0]->shape) + " to " + shapeStr(shape));
    shape[static_cast<size_t>(inferAt)] = total / known;
  }
  if (f32Type(shape).numElements() != total)
    return a.fail("cannot reshape " + shapeStr(a.in[0]->shape) + " to " + shapeStr(shape));
  return std::vector{TensorType{a.in[0]->dtype, shape}};
}

OutputTypes LayoutShapes::ReduceSum(const ShapeArgs& a) {
  auto axes = a.node.intsAttr("axes");
  Shape out = reducedShape(a.in[0]->shape, axes, a.node.intAttr("keepdims") != 0);
  for (int64_t ax : axes)
    if (ax < 0 || ax >= static_cast<int64_t>(a.in[0]->rank())) return a.fail("axis " + std::to_string(ax) + " out of range");
  return std::vector{f32Type(out)};
}

OutputTypes LayoutShapes::Transpose(const ShapeArgs& a) {
  auto perm = a.node.intsAttr("perm");
  const Shape& x = a.in[0]->shape;
  if (perm.size() != x.size()) return a.fail("perm has " + std::to_string(perm.size()) + " entries for input " + shapeStr(x));
  std::vector<bool> seen(x.size(), false);
  Shape out;
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(x.size()) || seen[static_cast<size_t>(p)])
      return a.fail("perm " + shapeStr(perm) + " is not a permutation of the axes of " + shapeStr(x));
    seen[static_cast<size_t>(p)] = true;
    out.push_back(x[static_cast<size_t>(p)]);
  }
  return std::vector{TensorType{a.in[0]->dtype, out}};
}

OutputTypes LayoutShapes::Slice(const ShapeArgs& a) {
  const Shape& x = a.in[0]->shape;
  int64_t axis = a.node.intAttr("axis", -1), start = a.node.intAttr("start"), end = a.node.intAttr("end");
  if (axis < 0 || axis >= static_cast<int64_t>(x.size()))
    return a.fail("axis " + std::to_string(axis) + " out of range for " + shapeStr(x));
  if (start < 0 || end <= start || end > x[static_cast<size_t>(axis)])
    return a.fail("range [" + std::to_string(start) + "," + std::to_string(end) + ") is outside axis " +
                  std::to_string(axis) + " of " + shapeStr(x));
  Shape out = x;
  out[static_cast<size_t>(axis)] = end - start;
  return std::vector{f32Type(out)};
}

OutputTypes LayoutShapes::SliceGrad(const ShapeArgs& a) {
  Shape shape = a.node.intsAttr("input_shape");
  int64_t axis = a.node.intAttr("axis", -1), start = a.node.intAttr("start");
  const Shape& dy = a.in[0]->shape;
  bool ok = shape.size() == dy.size() && axis >= 0 && axis < static_cast<int64_t>(shape.size()) && start >= 0;
  for (size_t d = 0; ok && d < shape.size(); ++d)
    ok = static_cast<int64_t>(d) == axis ? start + dy[d] <= shape[d] : dy[d] == shape[d];
  if (!ok)
    return a.fail("dy " + shapeStr(dy) + " does not fit input_shape " + shapeStr(shape) + " at axis " +
                  std::to_string(axis) + " start " + std::to_string(start));
  return std::vector{f32Type(shape)};
}

}  // namespace dfc::ir
