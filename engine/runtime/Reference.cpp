// The oracle: every op written out as the plainest nested loops over its
// definition, in double precision. Deliberately shares no code with kernels/.
#include "runtime/Reference.h"

#include "runtime/ReferenceOps.h"

#include <cmath>
#include <cstring>
#include <string>

namespace dfc::runtime {
namespace reference {
// The general ops, from their ONNX definitions (ReferenceGeneral.cpp).
Status evalGeneralOp(const ir::Node& n, const std::vector<const ir::Tensor*>& in, std::vector<ir::Tensor>& out);
}  // namespace reference
namespace {

using ir::OpKind;
using ir::Tensor;

Error refError(const ir::Node& n, const std::string& what) {
  return makeError(std::string(ir::opName(n.op)) + " '" + n.name + "': " + what);
}

std::vector<int64_t> attrPair(const ir::Node& n, const char* key, int64_t fallback) {
  auto v = n.intsAttr(key);
  if (v.size() != 2) v = {fallback, fallback};
  return v;
}

float at(const Tensor& t, int64_t i) { return t.data<float>()[i]; }

// x[n][c][h][w] in a 4-D NCHW tensor.
float at4(const Tensor& t, int64_t a, int64_t b, int64_t c, int64_t d) {
  const auto& s = t.shape();
  return t.data<float>()[((a * s[1] + b) * s[2] + c) * s[3] + d];
}
float& ref4(Tensor& t, int64_t a, int64_t b, int64_t c, int64_t d) {
  const auto& s = t.shape();
  return t.data<float>()[((a * s[1] + b) * s[2] + c) * s[3] + d];
}

// Direct convolution sum for y[b][o][oy][ox].
double convAt(const Tensor& x, const Tensor& w, int64_t b, int64_t o, int64_t oy, int64_t ox,
              const std::vector<int64_t>& s, const std::vector<int64_t>& p) {
  const auto &xs = x.shape(), &ws = w.shape();
  double acc = 0;
  for (int64_t c = 0; c < ws[1]; ++c)
    for (int64_t i = 0; i < ws[2]; ++i)
      for (int64_t j = 0; j < ws[3]; ++j) {
        int64_t iy = oy * s[0] - p[0] + i, ix = ox * s[1] - p[1] + j;
        if (iy >= 0 && iy < xs[2] && ix >= 0 && ix < xs[3])
          acc += static_cast<double>(at4(x, b, c, iy, ix)) * at4(w, o, c, i, j);
      }
  return acc;
}

Status checkLabels(const ir::Node& n, const Tensor& labels, int64_t classes) {
  for (int64_t r = 0; r < labels.numElements(); ++r) {
    int64_t l = labels.data<int64_t>()[r];
    if (l < 0 || l >= classes)
      return refError(n, "label " + std::to_string(l) + " at row " + std::to_string(r) + " is outside [0," +
                             std::to_string(classes) + ")");
  }
  return {};
}

// Softmax probabilities of row r of a [rows, cols] tensor, in double.
std::vector<double> softmaxRow(const Tensor& x, int64_t r, int64_t cols) {
  double mx = at(x, r * cols);
  for (int64_t c = 1; c < cols; ++c) mx = std::max(mx, static_cast<double>(at(x, r * cols + c)));
  std::vector<double> e(static_cast<size_t>(cols));
  double sum = 0;
  for (int64_t c = 0; c < cols; ++c) sum += e[static_cast<size_t>(c)] = std::exp(at(x, r * cols + c) - mx);
  for (double& v : e) v /= sum;
  return e;
}

Status evalNode(const ir::Node& n, const std::vector<const Tensor*>& in, std::vector<Tensor>& out) {
  Tensor& y = out[0];
  float* py = y.data<float>();
  const int64_t count = y.numElements();
  switch (n.op) {
    case OpKind::Add:
      for (int64_t i = 0; i < count; ++i) py[i] = at(*in[0], i) + at(*in[1], i);
      return {};
    case OpKind::Sub:
      for (int64_t i = 0; i < count; ++i) py[i] = at(*in[0], i) - at(*in[1], i);
      return {};
    case OpKind::Mul:
      for (int64_t i = 0; i < count; ++i) py[i] = at(*in[0], i) * at(*in[1], i);
      return {};
    case OpKind::Scale:
      for (int64_t i = 0; i < count; ++i) py[i] = static_cast<float>(n.floatAttr("alpha", 1.0) * at(*in[0], i));
      return {};
    case OpKind::Relu:
      for (int64_t i = 0; i < count; ++i) py[i] = at(*in[0], i) > 0 ? at(*in[0], i) : 0.0f;
      return {};
    case OpKind::ReluGrad:
      for (int64_t i = 0; i < count; ++i) py[i] = at(*in[1], i) > 0 ? at(*in[0], i) : 0.0f;
      return {};
    case OpKind::BiasAdd: {
      const auto& s = in[0]->shape();
      int64_t inner = 1;
      for (size_t d = 2; d < s.size(); ++d) inner *= s[d];
      for (int64_t i = 0; i < count; ++i) py[i] = at(*in[0], i) + at(*in[1], (i / inner) % s[1]);
      return {};
    }
    case OpKind::MatMul: {
      bool ta = n.intAttr("trans_a") != 0, tb = n.intAttr("trans_b") != 0;
      const auto &as = in[0]->shape(), &bs = in[1]->shape();
      int64_t m = y.shape()[0], cols = y.shape()[1], k = ta ? as[0] : as[1];
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < cols; ++j) {
          double acc = 0;
          for (int64_t q = 0; q < k; ++q) {
            float a = ta ? at(*in[0], q * as[1] + i) : at(*in[0], i * as[1] + q);
            float b = tb ? at(*in[1], j * bs[1] + q) : at(*in[1], q * bs[1] + j);
            acc += static_cast<double>(a) * b;
          }
          py[i * cols + j] = static_cast<float>(acc);
        }
      return {};
    }
    case OpKind::Linear: {  // y = x @ w^T + b
      const auto &xs = in[0]->shape();
      int64_t m = xs[0], k = xs[1], cols = in[1]->shape()[0];
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < cols; ++j) {
          double acc = 0;
          for (int64_t q = 0; q < k; ++q) acc += static_cast<double>(at(*in[0], i * k + q)) * at(*in[1], j * k + q);
          py[i * cols + j] = static_cast<float>(acc + at(*in[2], j));
        }
      return {};
    }
    case OpKind::Conv2d: {
      auto s = attrPair(n, "stride", 1), p = attrPair(n, "pad", 0);
      const auto& ys = y.shape();
      for (int64_t b = 0; b < ys[0]; ++b)
        for (int64_t o = 0; o < ys[1]; ++o)
          for (int64_t oy = 0; oy < ys[2]; ++oy)
            for (int64_t ox = 0; ox < ys[3]; ++ox)
              ref4(y, b, o, oy, ox) = static_cast<float>(convAt(*in[0], *in[1], b, o, oy, ox, s, p));
      return {};
    }
    case OpKind::Conv2dGradInput: {
      // dx[b][c][iy][ix] = sum over (o, i, j) with oy*s - p + i == iy of dy * w.
      auto s = attrPair(n, "stride", 1), p = attrPair(n, "pad", 0);
      const Tensor &dy = *in[0], &w = *in[1];
      const auto &xs = y.shape(), &ws = w.shape(), &ds = dy.shape();
      for (int64_t b = 0; b < xs[0]; ++b)
        for (int64_t c = 0; c < xs[1]; ++c)
          for (int64_t iy = 0; iy < xs[2]; ++iy)
            for (int64_t ix = 0; ix < xs[3]; ++ix) {
              double acc = 0;
              for (int64_t o = 0; o < ws[0]; ++o)
                for (int64_t i = 0; i < ws[2]; ++i)
                  for (int64_t j = 0; j < ws[3]; ++j) {
                    int64_t ny = iy + p[0] - i, nx = ix + p[1] - j;
                    if (ny < 0 || nx < 0 || ny % s[0] || nx % s[1]) continue;
                    int64_t oy = ny / s[0], ox = nx / s[1];
                    if (oy >= ds[2] || ox >= ds[3]) continue;
                    acc += static_cast<double>(at4(dy, b, o, oy, ox)) * at4(w, o, c, i, j);
                  }
              ref4(y, b, c, iy, ix) = static_cast<float>(acc);
            }
      return {};
    }
    case OpKind::Conv2dGradWeight: {
      auto s = attrPair(n, "stride", 1), p = attrPair(n, "pad", 0);
      const Tensor &dy = *in[0], &x = *in[1];
      const auto &ws = y.shape(), &ds = dy.shape(), &xs = x.shape();
      for (int64_t o = 0; o < ws[0]; ++o)
        for (int64_t c = 0; c < ws[1]; ++c)
          for (int64_t i = 0; i < ws[2]; ++i)
            for (int64_t j = 0; j < ws[3]; ++j) {
              double acc = 0;
              for (int64_t b = 0; b < ds[0]; ++b)
                for (int64_t oy = 0; oy < ds[2]; ++oy)
                  for (int64_t ox = 0; ox < ds[3]; ++ox) {
                    int64_t iy = oy * s[0] - p[0] + i, ix = ox * s[1] - p[1] + j;
                    if (iy >= 0 && iy < xs[2] && ix >= 0 && ix < xs[3])
                      acc += static_cast<double>(at4(dy, b, o, oy, ox)) * at4(x, b, c, iy, ix);
                  }
              ref4(y, o, c, i, j) = static_cast<float>(acc);
            }
      return {};
    }
    case OpKind::MaxPool2d:
    case OpKind::MaxPool2dGrad: {
      auto k = attrPair(n, "kernel", 2), s = attrPair(n, "stride", 2), p = attrPair(n, "pad", 0);
      const bool grad = n.op == OpKind::MaxPool2dGrad;
      const Tensor& x = grad ? *in[1] : *in[0];
      const auto& xs = x.shape();
      int64_t oh = (xs[2] + 2 * p[0] - k[0]) / s[0] + 1, ow = (xs[3] + 2 * p[1] - k[1]) / s[1] + 1;
      if (grad) std::memset(y.bytes(), 0, y.byteSize());
      for (int64_t b = 0; b < xs[0]; ++b)
        for (int64_t c = 0; c < xs[1]; ++c)
          for (int64_t oy = 0; oy < oh; ++oy)
            for (int64_t ox = 0; ox < ow; ++ox) {
              // Padding is -inf: only in-bounds cells compete; the first maximum wins.
              int64_t by = -1, bx = -1;
              for (int64_t i = 0; i < k[0]; ++i)
                for (int64_t j = 0; j < k[1]; ++j) {
                  int64_t iy = oy * s[0] - p[0] + i, ix = ox * s[1] - p[1] + j;
                  if (iy < 0 || iy >= xs[2] || ix < 0 || ix >= xs[3]) continue;
                  if (by < 0 || at4(x, b, c, iy, ix) > at4(x, b, c, by, bx)) {
                    by = iy;
                    bx = ix;
                  }
                }
              if (grad) ref4(y, b, c, by, bx) += at4(*in[0], b, c, oy, ox);
              else ref4(y, b, c, oy, ox) = at4(x, b, c, by, bx);
            }
      return {};
    }
    case OpKind::Reshape:
      std::memcpy(y.bytes(), in[0]->bytes(), y.byteSize());
      return {};
    case OpKind::ReduceSum: {
      const auto& xs = in[0]->shape();
      auto axes = n.intsAttr("axes");
      std::vector<double> acc(static_cast<size_t>(count), 0.0);
      for (int64_t i = 0; i < in[0]->numElements(); ++i) {
        // Decompose i into coordinates, drop reduced ones, recompose.
        int64_t rest = i, outIndex = 0, outStride = 1;
        for (size_t d = xs.size(); d-- > 0;) {
          int64_t coord = rest % xs[d];
          rest /= xs[d];
          bool reduced = false;
          for (int64_t a : axes) reduced = reduced || a == static_cast<int64_t>(d);
          if (!reduced) {
            outIndex += coord * outStride;
            outStride *= xs[d];
          }
        }
        acc[static_cast<size_t>(outIndex)] += at(*in[0], i);
      }
      for (int64_t i = 0; i < count; ++i) py[i] = static_cast<float>(acc[static_cast<size_t>(i)]);
      return {};
    }
    case OpKind::Softmax: {
      int64_t cols = in[0]->shape().empty() ? 1 : in[0]->shape().back();
      for (int64_t r = 0; cols && r < count / cols; ++r) {
        auto e = softmaxRow(*in[0], r, cols);
        for (int64_t c = 0; c < cols; ++c) py[r * cols + c] = static_cast<float>(e[static_cast<size_t>(c)]);
      }
      return {};
    }
    case OpKind::SoftmaxCrossEntropy:
    case OpKind::SoftmaxCrossEntropyGrad: {
      int64_t rows = in[0]->shape()[0], cols = in[0]->shape()[1];
      DFC_TRY(checkLabels(n, *in[1], cols));
      double loss = 0;
      for (int64_t r = 0; r < rows; ++r) {
        auto e = softmaxRow(*in[0], r, cols);
        int64_t label = in[1]->data<int64_t>()[r];
        loss -= std::log(e[static_cast<size_t>(label)]);
        if (n.op == OpKind::SoftmaxCrossEntropyGrad)
          for (int64_t c = 0; c < cols; ++c)
            py[r * cols + c] = static_cast<float>((e[static_cast<size_t>(c)] - (c == label ? 1.0 : 0.0)) / rows);
      }
      if (n.op == OpKind::SoftmaxCrossEntropy) py[0] = rows ? static_cast<float>(loss / rows) : 0.0f;
      return {};
    }
    case OpKind::SgdUpdate: {
      double lr = at(*in[2], 0), wd = n.floatAttr("weight_decay", 0.0);
      for (int64_t i = 0; i < count; ++i) {
        double p = at(*in[0], i);
        py[i] = static_cast<float>(p - lr * (at(*in[1], i) + wd * p));
      }
      return {};
    }
    case OpKind::MomentumUpdate: {
      double lr = at(*in[3], 0), mu = n.floatAttr("momentum", 0.0), wd = n.floatAttr("weight_decay", 0.0);
      for (int64_t i = 0; i < count; ++i) {
        double p = at(*in[0], i);
        double v = mu * at(*in[2], i) + (at(*in[1], i) + wd * p);
        out[1].data<float>()[i] = static_cast<float>(v);
        py[i] = static_cast<float>(p - lr * v);
      }
      return {};
    }
    case OpKind::Transpose:
    case OpKind::Slice:
    case OpKind::SliceGrad:
    case OpKind::BatchMatMul:
    case OpKind::SoftmaxGrad:
    case OpKind::Gelu:
    case OpKind::GeluGrad:
    case OpKind::CausalMask:
    case OpKind::LayerNorm:
    case OpKind::LayerNormGrad:
    case OpKind::Embedding:
    case OpKind::EmbeddingGrad:
      return reference::evalTransformerOp(n, in, out);
    case OpKind::GlobalAvgPool:
    case OpKind::GlobalAvgPoolGrad:
    case OpKind::BatchNorm:
    case OpKind::BatchNormGrad:
    case OpKind::AdamUpdate:
      return reference::evalVisionOp(n, in, out);
    case OpKind::Unary:
    case OpKind::Binary:
    case OpKind::Where:
    case OpKind::Cast:
    case OpKind::Reduce:
    case OpKind::Expand:
    case OpKind::Concat:
    case OpKind::Gather:
    case OpKind::StridedSlice:
    case OpKind::Conv:
    case OpKind::Pool:
      return reference::evalGeneralOp(n, in, out);
  }
  return refError(n, "no reference implementation");
}

}  // namespace

Expected<std::map<ir::ValueId, ir::Tensor>> referenceEvaluate(const ir::Graph& graph,
                                                              const std::map<ir::ValueId, ir::Tensor>& feeds) {
  std::map<ir::ValueId, Tensor> env;
  for (const ir::Value& v : graph.values) {
    if (v.kind == ir::ValueKind::Intermediate) continue;
    auto fed = feeds.find(v.id);
    if (fed != feeds.end()) {
      if (fed->second.type() != v.type)
        return makeError("value '" + v.name + "': fed " + fed->second.type().toString() + ", expected " +
                         v.type.toString());
      env[v.id] = fed->second.clone();
      continue;
    }
    auto init = graph.initializers.find(v.id);
    if (v.kind == ir::ValueKind::Input || init == graph.initializers.end())
      return makeError("value '" + v.name + "' has no data (not fed and no initializer)");
    env[v.id] = init->second.clone();
  }
  for (const ir::Node& n : graph.nodes) {
    std::vector<const Tensor*> in;
    for (ir::ValueId id : n.inputs) {
      auto it = env.find(id);
      if (it == env.end()) return refError(n, "input is not computed yet");
      in.push_back(&it->second);
    }
    std::vector<Tensor> out;
    for (ir::ValueId id : n.outputs) out.emplace_back(graph.value(id).type);
    DFC_TRY(evalNode(n, in, out));
    for (size_t i = 0; i < n.outputs.size(); ++i) env[n.outputs[i]] = std::move(out[i]);
  }
  return env;
}

}  // namespace dfc::runtime
