// The oracle: every op written out as the plainest nested loops over its
// definition, in double precision. Deliberately shares no code with kernels/.
// Dispatch goes through a table generated from Ops.def; this file also holds
// the elementwise, loss and optimizer families.
#include "runtime/Reference.h"

#include <cmath>
#include <cstring>
#include <iterator>
#include <string>

#include "runtime/ReferenceFamilies.h"

namespace dfc::runtime {
namespace reference {
namespace {

using ir::OpKind;
using ir::Tensor;

constexpr RefFn kReferences[] = {
#define DFC_OP(Enum, name, nin, nout, family, doc) family##Reference::Enum,
#include "ir/Ops.def"
#undef DFC_OP
};

float at(const Tensor& t, int64_t i) { return t.data<float>()[i]; }
double f(const Tensor& t, int64_t i) { return t.data<float>()[i]; }

// y[i] = op(x[i]) or op(a[i], b[i]) over the output's elements.
template <typename Op>
Status unaryMap(const RefArgs& a, Op op) {
  float* py = a.out[0].data<float>();
  for (int64_t i = 0; i < a.out[0].numElements(); ++i) py[i] = op(at(*a.in[0], i));
  return {};
}
template <typename Op>
Status binaryMap(const RefArgs& a, Op op) {
  float* py = a.out[0].data<float>();
  for (int64_t i = 0; i < a.out[0].numElements(); ++i) py[i] = op(at(*a.in[0], i), at(*a.in[1], i));
  return {};
}

Status checkLabels(const RefArgs& a, const Tensor& labels, int64_t classes) {
  for (int64_t r = 0; r < labels.numElements(); ++r) {
    int64_t l = labels.data<int64_t>()[r];
    if (l < 0 || l >= classes)
      return a.fail("label " + std::to_string(l) + " at row " + std::to_string(r) + " is outside [0," +
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

// The mean loss (grad: false) or dlogits = (softmax - onehot) / N.
Status crossEntropy(const RefArgs& a, bool grad) {
  float* py = a.out[0].data<float>();
  int64_t rows = a.in[0]->shape()[0], cols = a.in[0]->shape()[1];
  DFC_TRY(checkLabels(a, *a.in[1], cols));
  double loss = 0;
  for (int64_t r = 0; r < rows; ++r) {
    auto e = softmaxRow(*a.in[0], r, cols);
    int64_t label = a.in[1]->data<int64_t>()[r];
    loss -= std::log(e[static_cast<size_t>(label)]);
    if (grad)
      for (int64_t c = 0; c < cols; ++c)
        py[r * cols + c] = static_cast<float>((e[static_cast<size_t>(c)] - (c == label ? 1.0 : 0.0)) / rows);
  }
  if (!grad) py[0] = rows ? static_cast<float>(loss / rows) : 0.0f;
  return {};
}

}  // namespace

Status ElementwiseReference::Add(const RefArgs& a) { return binaryMap(a, [](float x, float y) { return x + y; }); }
Status ElementwiseReference::Sub(const RefArgs& a) { return binaryMap(a, [](float x, float y) { return x - y; }); }
Status ElementwiseReference::Mul(const RefArgs& a) { return binaryMap(a, [](float x, float y) { return x * y; }); }
Status ElementwiseReference::Relu(const RefArgs& a) { return unaryMap(a, [](float x) { return x > 0 ? x : 0.0f; }); }
Status ElementwiseReference::ReluGrad(const RefArgs& a) {
  return binaryMap(a, [](float dy, float x) { return x > 0 ? dy : 0.0f; });
}

Status ElementwiseReference::Scale(const RefArgs& a) {
  const double alpha = a.node.floatAttr("alpha", 1.0);
  return unaryMap(a, [alpha](float x) { return static_cast<float>(alpha * x); });
}

Status ElementwiseReference::BiasAdd(const RefArgs& a) {
  const auto& s = a.in[0]->shape();
  int64_t inner = 1;
  for (size_t d = 2; d < s.size(); ++d) inner *= s[d];
  float* py = a.out[0].data<float>();
  for (int64_t i = 0; i < a.out[0].numElements(); ++i) py[i] = at(*a.in[0], i) + at(*a.in[1], (i / inner) % s[1]);
  return {};
}

Status LossReference::Softmax(const RefArgs& a) {
  float* py = a.out[0].data<float>();
  const int64_t count = a.out[0].numElements();
  int64_t cols = a.in[0]->shape().empty() ? 1 : a.in[0]->shape().back();
  for (int64_t r = 0; cols && r < count / cols; ++r) {
    auto e = softmaxRow(*a.in[0], r, cols);
    for (int64_t c = 0; c < cols; ++c) py[r * cols + c] = static_cast<float>(e[static_cast<size_t>(c)]);
  }
  return {};
}

Status LossReference::SoftmaxCrossEntropy(const RefArgs& a) { return crossEntropy(a, false); }
Status LossReference::SoftmaxCrossEntropyGrad(const RefArgs& a) { return crossEntropy(a, true); }

Status OptimizerReference::SgdUpdate(const RefArgs& a) {
  float* py = a.out[0].data<float>();
  double lr = at(*a.in[2], 0), wd = a.node.floatAttr("weight_decay", 0.0);
  for (int64_t i = 0; i < a.out[0].numElements(); ++i) {
    double p = at(*a.in[0], i);
    py[i] = static_cast<float>(p - lr * (at(*a.in[1], i) + wd * p));
  }
  return {};
}

Status OptimizerReference::MomentumUpdate(const RefArgs& a) {
  float* py = a.out[0].data<float>();
  double lr = at(*a.in[3], 0), mu = a.node.floatAttr("momentum", 0.0), wd = a.node.floatAttr("weight_decay", 0.0);
  for (int64_t i = 0; i < a.out[0].numElements(); ++i) {
    double p = at(*a.in[0], i);
    double v = mu * at(*a.in[2], i) + (at(*a.in[1], i) + wd * p);
    a.out[1].data<float>()[i] = static_cast<float>(v);
    py[i] = static_cast<float>(p - lr * v);
  }
  return {};
}

Status OptimizerReference::AdamUpdate(const RefArgs& a) {
  const auto& in = a.in;
  const double lr = f(*in[4], 0), t = f(*in[5], 0);
  const double b1 = a.node.floatAttr("beta1", 0.9), b2 = a.node.floatAttr("beta2", 0.999);
  const double eps = a.node.floatAttr("epsilon", 1e-8), wd = a.node.floatAttr("weight_decay", 0.0);
  for (int64_t i = 0; i < a.out[0].numElements(); ++i) {
    double p = f(*in[0], i), g = f(*in[1], i) + wd * p;
    double m = b1 * f(*in[2], i) + (1 - b1) * g, v = b2 * f(*in[3], i) + (1 - b2) * g * g;
    double mhat = m / (1 - std::pow(b1, t)), vhat = v / (1 - std::pow(b2, t));
    a.out[0].data<float>()[i] = static_cast<float>(p - lr * mhat / (std::sqrt(vhat) + eps));
    a.out[1].data<float>()[i] = static_cast<float>(m);
    a.out[2].data<float>()[i] = static_cast<float>(v);
  }
  return {};
}

Status evalNode(const ir::Node& n, const std::vector<const Tensor*>& in, std::vector<Tensor>& out) {
  const size_t op = static_cast<size_t>(n.op);
  if (op >= std::size(kReferences)) return makeError("node '" + n.name + "': unknown op " + std::to_string(op));
  return kReferences[op](RefArgs{n, in, out});
}

}  // namespace reference

Expected<std::map<ir::ValueId, ir::Tensor>> referenceEvaluate(const ir::Graph& graph,
                                                              const std::map<ir::ValueId, ir::Tensor>& feeds) {
  using ir::Tensor;
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
      if (it == env.end())
        return makeError(std::string(ir::opName(n.op)) + " '" + n.name + "': input is not computed yet");
      in.push_back(&it->second);
    }
    std::vector<Tensor> out;
    for (ir::ValueId id : n.outputs) out.emplace_back(graph.value(id).type);
    DFC_TRY(reference::evalNode(n, in, out));
    for (size_t i = 0; i < n.outputs.size(); ++i) env[n.outputs[i]] = std::move(out[i]);
  }
  return env;
}

}  // namespace dfc::runtime
