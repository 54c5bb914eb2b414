#include "ir/ShapeInference.h"

#include "ir/GeneralOps.h"

#include <algorithm>
#include <sstream>

namespace dfc::ir {
namespace {

std::string shapeStr(const Shape& s) { return TensorType{DType::F32, s}.toString().substr(3); }

Error fail(const Node& n, const std::string& what) {
  return makeError(std::string(opName(n.op)) + " '" + n.name + "': " + what);
}

int64_t convOut(int64_t in, int64_t k, int64_t stride, int64_t pad) { return (in + 2 * pad - k) / stride + 1; }

}  // namespace

Expected<std::vector<TensorType>> inferOutputTypes(const Graph& g, const Node& n) {
  const OpInfo& info = opInfo(n.op);
  if (info.numInputs >= 0 && static_cast<int>(n.inputs.size()) != info.numInputs)
    return fail(n, "expects " + std::to_string(info.numInputs) + " inputs, got " + std::to_string(n.inputs.size()));
  std::vector<const TensorType*> in;
  in.reserve(n.inputs.size());
  for (ValueId v : n.inputs) {
    if (v < 0 || static_cast<size_t>(v) >= g.values.size()) return fail(n, "input refers to an unknown value");
    in.push_back(&g.value(v).type);
  }
  auto f32 = [](Shape s) { return TensorType{DType::F32, std::move(s)}; };
  auto requireRank = [&](size_t i, size_t rank) -> Status {
    if (in[i]->rank() != rank)
      return fail(n, "input " + std::to_string(i) + " must have rank " + std::to_string(rank) + ", has shape " +
                         shapeStr(in[i]->shape));
    return {};
  };
  auto requireSame = [&](size_t a, size_t b) -> Status {
    if (in[a]->shape != in[b]->shape)
      return fail(n, "shapes differ: " + shapeStr(in[a]->shape) + " vs " + shapeStr(in[b]->shape));
    return {};
  };
  auto pair = [&](const char* key, int64_t fallback) {
    auto v = n.intsAttr(key);
    if (v.size() != 2) v = {fallback, fallback};
    return v;
  };

  if (isGeneralOp(n.op)) return inferGeneralOutputTypes(n, in);
  switch (n.op) {
    case OpKind::Add:
    case OpKind::Sub:
    case OpKind::Mul:
    case OpKind::ReluGrad:
      DFC_TRY(requireSame(0, 1));
      return std::vector{*in[0]};
    case OpKind::Scale:
    case OpKind::Relu:
    case OpKind::Softmax:
      return std::vector{*in[0]};
    case OpKind::BiasAdd:
      DFC_TRY(requireRank(1, 1));
      if (in[0]->rank() < 2 || in[0]->shape[1] != in[1]->shape[0])
        return fail(n, "bias of shape " + shapeStr(in[1]->shape) + " does not match axis 1 of " + shapeStr(in[0]->shape));
      return std::vector{*in[0]};
    case OpKind::MatMul: {
      DFC_TRY(requireRank(0, 2));
      DFC_TRY(requireRank(1, 2));
      bool ta = n.intAttr("trans_a") != 0, tb = n.intAttr("trans_b") != 0;
      int64_t m = ta ? in[0]->shape[1] : in[0]->shape[0];
      int64_t ka = ta ? in[0]->shape[0] : in[0]->shape[1];
      int64_t kb = tb ? in[1]->shape[1] : in[1]->shape[0];
      int64_t nn = tb ? in[1]->shape[0] : in[1]->shape[1];
      if (ka != kb)
        return fail(n, "inner dimensions differ: " + shapeStr(in[0]->shape) + " x " + shapeStr(in[1]->shape));
      return std::vector{f32({m, nn})};
    }
    case OpKind::Linear: {
      DFC_TRY(requireRank(0, 2));
      DFC_TRY(requireRank(1, 2));
      DFC_TRY(requireRank(2, 1));
      if (in[0]->shape[1] != in[1]->shape[1] || in[2]->shape[0] != in[1]->shape[0])
        return fail(n, "x " + shapeStr(in[0]->shape) + ", w " + shapeStr(in[1]->shape) + " and b " +
                           shapeStr(in[2]->shape) + " do not fit x @ w^T + b");
      return std::vector{f32({in[0]->shape[0], in[1]->shape[0]})};
    }
    case OpKind::Conv2d: {
      DFC_TRY(requireRank(0, 4));
      DFC_TRY(requireRank(1, 4));
      auto s = pair("stride", 1), p = pair("pad", 0);
      const Shape &x = in[0]->shape, &w = in[1]->shape;
      if (x[1] != w[1])
        return fail(n, "input channels " + std::to_string(x[1]) + " != weight channels " + std::to_string(w[1]));
      if (s[0] <= 0 || s[1] <= 0) return fail(n, "stride must be positive");
      int64_t oh = convOut(x[2], w[2], s[0], p[0]), ow = convOut(x[3], w[3], s[1], p[1]);
      if (oh <= 0 || ow <= 0) return fail(n, "kernel larger than padded input " + shapeStr(x));
      return std::vector{f32({x[0], w[0], oh, ow})};
    }
    case OpKind::Conv2dGradInput: {
      auto shape = n.intsAttr("input_shape");
      if (shape.size() != 4) return fail(n, "needs attribute input_shape:[n,c,h,w]");
      return std::vector{f32(shape)};
    }
    case OpKind::Conv2dGradWeight: {
      auto shape = n.intsAttr("weight_shape");
      if (shape.size() != 4) return fail(n, "needs attribute weight_shape:[o,i,kh,kw]");
      return std::vector{f32(shape)};
    }
    case OpKind::MaxPool2d: {
      DFC_TRY(requireRank(0, 4));
      auto k = pair("kernel", 2), s = pair("stride", 2), p = pair("pad", 0);
      if (k[0] <= 0 || k[1] <= 0 || s[0] <= 0 || s[1] <= 0) return fail(n, "kernel and stride must be positive");
      if (p[0] < 0 || p[1] < 0 || p[0] >= k[0] || p[1] >= k[1]) return fail(n, "pad must be in [0, kernel)");
      const Shape& x = in[0]->shape;
      int64_t oh = convOut(x[2], k[0], s[0], p[0]), ow = convOut(x[3], k[1], s[1], p[1]);
      if (oh <= 0 || ow <= 0) return fail(n, "kernel larger than input " + shapeStr(x));
      return std::vector{f32({x[0], x[1], oh, ow})};
    }
    case OpKind::MaxPool2dGrad:
      return std::vector{*in[1]};
    case OpKind::Reshape: {
      Shape shape = n.intsAttr("shape");
      int64_t known = 1, inferAt = -1;
      for (size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] == -1) {
          if (inferAt >= 0) return fail(n, "more than one -1 in shape");
          inferAt = static_cast<int64_t>(i);
        } else if (shape[i] <= 0) {
          return fail(n, "bad dimension in shape " + shapeStr(shape));
        } else {
          known *= shape[i];
        }
      }
      int64_t total = in[0]->numElements();
      if (inferAt >= 0) {
        if (known == 0 || total % known != 0) return fail(n, "cannot reshape " + shapeStr(in[0]->shape) + " to " + shapeStr(shape));
        shape[static_cast<size_t>(inferAt)] = total / known;
      }
      if (TensorType{DType::F32, shape}.numElements() != total)
        return fail(n, "cannot reshape " + shapeStr(in[0]->shape) + " to " + shapeStr(shape));
      return std::vector{TensorType{in[0]->dtype, shape}};
    }
    case OpKind::ReduceSum: {
      auto axes = n.intsAttr("axes");
      bool keep = n.intAttr("keepdims") != 0;
      Shape out;
      for (size_t d = 0; d < in[0]->rank(); ++d) {
        bool reduced = std::find(axes.begin(), axes.end(), static_cast<int64_t>(d)) != axes.end();
        if (!reduced) out.push_back(in[0]->shape[d]);
        else if (keep) out.push_back(1);
      }
      for (int64_t a : axes)
        if (a < 0 || a >= static_cast<int64_t>(in[0]->rank())) return fail(n, "axis " + std::to_string(a) + " out of range");
      return std::vector{f32(out)};
    }
    case OpKind::SoftmaxCrossEntropy:
    case OpKind::SoftmaxCrossEntropyGrad: {
      DFC_TRY(requireRank(0, 2));
      DFC_TRY(requireRank(1, 1));
      if (in[1]->dtype != DType::I64) return fail(n, "labels must be i64");
      if (in[1]->shape[0] != in[0]->shape[0])
        return fail(n, "batch of labels " + shapeStr(in[1]->shape) + " != batch of logits " + shapeStr(in[0]->shape));
      if (n.op == OpKind::SoftmaxCrossEntropy) return std::vector{f32({})};
      return std::vector{*in[0]};
    }
    case OpKind::BatchMatMul: {
      const Shape &a = in[0]->shape, &b = in[1]->shape;
      if (a.size() < 3 || a.size() != b.size())
        return fail(n, "needs operands of equal rank >= 3, got " + shapeStr(a) + " and " + shapeStr(b));
      if (!std::equal(a.begin(), a.end() - 2, b.begin()))
        return fail(n, "leading dimensions differ: " + shapeStr(a) + " vs " + shapeStr(b));
      const size_t r = a.size();
      bool ta = n.intAttr("trans_a") != 0, tb = n.intAttr("trans_b") != 0;
      int64_t m = ta ? a[r - 1] : a[r - 2], ka = ta ? a[r - 2] : a[r - 1];
      int64_t kb = tb ? b[r - 1] : b[r - 2], nn = tb ? b[r - 2] : b[r - 1];
      if (ka != kb) return fail(n, "inner dimensions differ: " + shapeStr(a) + " x " + shapeStr(b));
      Shape out(a.begin(), a.end() - 2);
      out.push_back(m);
      out.push_back(nn);
      return std::vector{f32(out)};
    }
    case OpKind::Transpose: {
      auto perm = n.intsAttr("perm");
      const Shape& x = in[0]->shape;
      if (perm.size() != x.size())
        return fail(n, "perm has " + std::to_string(perm.size()) + " entries for input " + shapeStr(x));
      std::vector<bool> seen(x.size(), false);
      Shape out;
      for (int64_t p : perm) {
        if (p < 0 || p >= static_cast<int64_t>(x.size()) || seen[static_cast<size_t>(p)])
          return fail(n, "perm " + shapeStr(perm) + " is not a permutation of the axes of " + shapeStr(x));
        seen[static_cast<size_t>(p)] = true;
        out.push_back(x[static_cast<size_t>(p)]);
      }
      return std::vector{TensorType{in[0]->dtype, out}};
    }
    case OpKind::Slice: {
      const Shape& x = in[0]->shape;
      int64_t axis = n.intAttr("axis", -1), start = n.intAttr("start"), end = n.intAttr("end");
      if (axis < 0 || axis >= static_cast<int64_t>(x.size()))
        return fail(n, "axis " + std::to_string(axis) + " out of range for " + shapeStr(x));
      if (start < 0 || end <= start || end > x[static_cast<size_t>(axis)])
        return fail(n, "range [" + std::to_string(start) + "," + std::to_string(end) + ") is outside axis " +
                           std::to_string(axis) + " of " + shapeStr(x));
      Shape out = x;
      out[static_cast<size_t>(axis)] = end - start;
      return std::vector{f32(out)};
    }
    case OpKind::SliceGrad: {
      Shape shape = n.intsAttr("input_shape");
      int64_t axis = n.intAttr("axis", -1), start = n.intAttr("start");
      const Shape& dy = in[0]->shape;
      bool ok = shape.size() == dy.size() && axis >= 0 && axis < static_cast<int64_t>(shape.size()) && start >= 0;
      for (size_t d = 0; ok && d < shape.size(); ++d)
        ok = static_cast<int64_t>(d) == axis ? start + dy[d] <= shape[d] : dy[d] == shape[d];
      if (!ok) return fail(n, "dy " + shapeStr(dy) + " does not fit input_shape " + shapeStr(shape) + " at axis " +
                                  std::to_string(axis) + " start " + std::to_string(start));
      return std::vector{f32(shape)};
    }
    case OpKind::SoftmaxGrad:
    case OpKind::GeluGrad:
      DFC_TRY(requireSame(0, 1));
      return std::vector{*in[0]};
    case OpKind::Gelu:
      return std::vector{*in[0]};
    case OpKind::CausalMask: {
      const Shape& x = in[0]->shape;
      if (x.size() < 2 || x[x.size() - 1] != x[x.size() - 2])
        return fail(n, "needs [..., T, T], got " + shapeStr(x));
      return std::vector{*in[0]};
    }
    case OpKind::LayerNorm:
    case OpKind::LayerNormGrad: {
      const size_t xi = n.op == OpKind::LayerNorm ? 0 : 1;
      const Shape& x = in[xi]->shape;
      if (x.empty()) return fail(n, "needs an input of rank >= 1");
      const Shape feat{x.back()};
      if (in[n.op == OpKind::LayerNorm ? 1 : 2]->shape != feat)
        return fail(n, "gamma must have shape " + shapeStr(feat));
      if (n.op == OpKind::LayerNorm) {
        if (in[2]->shape != feat) return fail(n, "beta must have shape " + shapeStr(feat));
        return std::vector{*in[0]};
      }
      DFC_TRY(requireSame(0, 1));
      return std::vector{*in[1], f32(feat), f32(feat)};
    }
    case OpKind::Embedding: {
      DFC_TRY(requireRank(0, 2));
      if (in[1]->dtype != DType::I64) return fail(n, "ids must be i64");
      Shape out = in[1]->shape;
      out.push_back(in[0]->shape[1]);
      return std::vector{f32(out)};
    }
    case OpKind::EmbeddingGrad: {
      if (in[1]->dtype != DType::I64) return fail(n, "ids must be i64");
      const Shape &dy = in[0]->shape, &ids = in[1]->shape;
      if (dy.size() != ids.size() + 1 || !std::equal(ids.begin(), ids.end(), dy.begin()))
        return fail(n, "dy " + shapeStr(dy) + " does not match ids " + shapeStr(ids) + " plus a feature axis");
      int64_t v = n.intAttr("num_embeddings");
      if (v <= 0) return fail(n, "needs a positive num_embeddings");
      return std::vector{f32({v, dy.back()})};
    }
    case OpKind::GlobalAvgPool:
      DFC_TRY(requireRank(0, 4));
      return std::vector{f32({in[0]->shape[0], in[0]->shape[1]})};
    case OpKind::GlobalAvgPoolGrad: {
      auto shape = n.intsAttr("input_shape");
      if (shape.size() != 4) return fail(n, "needs attribute input_shape:[n,c,h,w]");
      if (in[0]->shape != Shape{shape[0], shape[1]})
        return fail(n, "dy " + shapeStr(in[0]->shape) + " does not match input_shape " + shapeStr(shape));
      return std::vector{f32(shape)};
    }
    case OpKind::BatchNorm:
    case OpKind::BatchNormGrad: {
      const bool grad = n.op == OpKind::BatchNormGrad;
      const Shape& x = in[grad ? 1 : 0]->shape;
      if (x.size() < 2) return fail(n, "needs x of rank >= 2 [N, C, ...]");
      const Shape ch{x[1]};
      if (in[grad ? 2 : 1]->shape != ch) return fail(n, "gamma must have shape " + shapeStr(ch));
      if (!grad) {
        if (in[2]->shape != ch) return fail(n, "beta must have shape " + shapeStr(ch));
        return std::vector{*in[0]};
      }
      DFC_TRY(requireSame(0, 1));
      return std::vector{*in[1], f32(ch), f32(ch)};
    }
    case OpKind::AdamUpdate:
      DFC_TRY(requireSame(0, 1));
      DFC_TRY(requireSame(0, 2));
      DFC_TRY(requireSame(0, 3));
      if (in[4]->numElements() != 1) return fail(n, "learning rate must be a scalar");
      if (in[5]->numElements() != 1) return fail(n, "step must be a scalar");
      return std::vector{*in[0], *in[0], *in[0]};
    case OpKind::SgdUpdate:
      DFC_TRY(requireSame(0, 1));
      if (in[2]->numElements() != 1) return fail(n, "learning rate must be a scalar");
      return std::vector{*in[0]};
    case OpKind::MomentumUpdate:
      DFC_TRY(requireSame(0, 1));
      DFC_TRY(requireSame(0, 2));
      if (in[3]->numElements() != 1) return fail(n, "learning rate must be a scalar");
      return std::vector{*in[0], *in[0]};
    default:
      break;  // the general ops, handled above
  }
  return fail(n, "no shape rule");
}

}  // namespace dfc::ir
