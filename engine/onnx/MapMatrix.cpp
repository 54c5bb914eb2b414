// Ops built from constant matrices: CumSum (a product with a triangular
// matrix of ones along the summed axis) and EyeLike (a constant).
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

}  // namespace

void registerMatrixOps(OpTable& t) {
  t["CumSum"] = mapCumSum;
  t["EyeLike"] = mapEyeLike;
}

}  // namespace dfc::onnx
