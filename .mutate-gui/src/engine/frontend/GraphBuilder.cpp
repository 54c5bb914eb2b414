#include "frontend/GraphBuilder.h"

#include <cmath>

#include "ir/ShapeInference.h"

namespace dfc::frontend {

using ir::ValueId;

GraphBuilder::Scope::~Scope() {
  if (!m_builder) return;
  auto& b = *m_builder;
  b.m_scope.resize(b.m_scopeLengths.back());
  b.m_scopeLengths.pop_back();
}

GraphBuilder::GraphBuilder(ir::Graph& graph, uint64_t seed) : m_graph(graph), m_rng(seed) {
  for (const ir::Value& v : graph.values) m_valueNames.insert(v.name);
  for (const ir::Node& n : graph.nodes) m_nodeNames.insert(n.name);
}

GraphBuilder::Scope GraphBuilder::scope(const std::string& name) {
  m_scopeLengths.push_back(m_scope.size());
  if (!m_scope.empty()) m_scope += '/';
  m_scope += name;
  return Scope(this);
}

std::string GraphBuilder::scoped(const std::string& name) const {
  return m_scope.empty() ? name : m_scope + "/" + name;
}

std::string GraphBuilder::uniqueName(std::string base, support::StringSet& taken) {
  if (taken.insert(base)) return base;
  for (int i = 1;; ++i) {
    std::string name = base + "_" + std::to_string(i);
    if (taken.insert(name)) return name;
  }
}

void GraphBuilder::fail(Error error) {
  if (m_status.ok()) m_status = Status(std::move(error));
}

bool GraphBuilder::usable(const std::vector<ValueId>& inputs) {
  if (!m_status.ok()) return false;
  for (ValueId v : inputs) {
    if (v < 0 || static_cast<size_t>(v) >= m_graph.values.size()) {
      fail(makeError("graph builder: input refers to an unknown value in scope '" + m_scope + "'"));
      return false;
    }
  }
  return true;
}

ValueId GraphBuilder::input(const std::string& name, ir::TensorType type) {
  if (!m_status.ok()) return ir::kNoValue;
  return m_graph.addInput(uniqueName(scoped(name), m_valueNames), std::move(type));
}

ValueId GraphBuilder::param(const std::string& name, ir::Tensor initial) {
  if (!m_status.ok()) return ir::kNoValue;
  return m_graph.addParam(uniqueName(scoped(name), m_valueNames), std::move(initial));
}

ValueId GraphBuilder::paramUniform(const std::string& name, ir::Shape shape, double bound) {
  // A recipe, not data: each param draws from its own stream seeded from the
  // builder's, so materializing one never depends on the others.
  ir::InitRecipe recipe{ir::InitRecipe::Kind::Uniform, bound, m_rng() >> 1};
  return param(name, ir::Tensor::deferred(ir::TensorType{ir::DType::F32, std::move(shape)}, recipe));
}

ValueId GraphBuilder::constant(const std::string& name, ir::Tensor data) {
  if (!m_status.ok()) return ir::kNoValue;
  return m_graph.addConst(uniqueName(scoped(name), m_valueNames), std::move(data));
}

std::vector<ValueId> GraphBuilder::op(ir::OpKind kind, std::vector<ValueId> inputs, ir::Attributes attrs) {
  if (!usable(inputs)) return {};
  ir::Node probe;
  probe.op = kind;
  probe.name = uniqueName(scoped(std::string(ir::opName(kind))), m_nodeNames);
  probe.inputs = std::move(inputs);  // handed on to the node below
  probe.attrs = std::move(attrs);
  auto types = ir::inferOutputTypes(m_graph, probe);
  if (!types) {
    m_nodeNames.erase(probe.name);
    fail(types.error());
    return {};
  }
  std::vector<ValueId> outs;
  outs.reserve(types->size());
  for (size_t i = 0; i < types->size(); ++i) {
    std::string suffix = types->size() == 1 ? ".out" : ".out" + std::to_string(i);
    outs.push_back(m_graph.addValue(uniqueName(probe.name + suffix, m_valueNames), std::move((*types)[i]),
                                    ir::ValueKind::Intermediate));
  }
  m_graph.addNode(kind, std::move(probe.name), std::move(probe.inputs), outs, std::move(probe.attrs), m_scope, m_role);
  return outs;
}

namespace {
ValueId first(const std::vector<ValueId>& outs) { return outs.empty() ? ir::kNoValue : outs.front(); }
}  // namespace

ValueId GraphBuilder::add(ValueId a, ValueId b) { return first(op(ir::OpKind::Add, {a, b})); }
ValueId GraphBuilder::sub(ValueId a, ValueId b) { return first(op(ir::OpKind::Sub, {a, b})); }
ValueId GraphBuilder::mul(ValueId a, ValueId b) { return first(op(ir::OpKind::Mul, {a, b})); }
ValueId GraphBuilder::scale(ValueId x, double alpha) { return first(op(ir::OpKind::Scale, {x}, {{"alpha", alpha}})); }
ValueId GraphBuilder::biasAdd(ValueId x, ValueId bias) { return first(op(ir::OpKind::BiasAdd, {x, bias})); }
ValueId GraphBuilder::relu(ValueId x) { return first(op(ir::OpKind::Relu, {x})); }
ValueId GraphBuilder::softmax(ValueId x) { return first(op(ir::OpKind::Softmax, {x})); }

ValueId GraphBuilder::matmul(ValueId a, ValueId b, bool transA, bool transB) {
  return first(op(ir::OpKind::MatMul, {a, b},
                  {{"trans_a", int64_t{transA ? 1 : 0}}, {"trans_b", int64_t{transB ? 1 : 0}}}));
}

ValueId GraphBuilder::conv2d(ValueId x, ValueId w, std::vector<int64_t> stride, std::vector<int64_t> pad) {
  return first(op(ir::OpKind::Conv2d, {x, w}, {{"stride", std::move(stride)}, {"pad", std::move(pad)}}));
}

ValueId GraphBuilder::maxpool2d(ValueId x, std::vector<int64_t> kernel, std::vector<int64_t> stride) {
  return first(op(ir::OpKind::MaxPool2d, {x}, {{"kernel", std::move(kernel)}, {"stride", std::move(stride)}}));
}

ValueId GraphBuilder::reshape(ValueId x, ir::Shape shape) {
  return first(op(ir::OpKind::Reshape, {x}, {{"shape", std::move(shape)}}));
}

ValueId GraphBuilder::reduceSum(ValueId x, std::vector<int64_t> axes, bool keepdims) {
  return first(op(ir::OpKind::ReduceSum, {x}, {{"axes", std::move(axes)}, {"keepdims", int64_t{keepdims ? 1 : 0}}}));
}

ValueId GraphBuilder::softmaxCrossEntropy(ValueId logits, ValueId labels) {
  return first(op(ir::OpKind::SoftmaxCrossEntropy, {logits, labels}));
}

ValueId GraphBuilder::linear(ValueId x, int64_t in, int64_t out) {
  if (in <= 0 || out <= 0) {
    fail(makeError("linear layer '" + m_scope + "': features must be positive"));
    return ir::kNoValue;
  }
  double bound = 1.0 / std::sqrt(static_cast<double>(in));
  ValueId w = paramUniform("weight", {out, in}, bound);
  ValueId b = paramUniform("bias", {out}, bound);
  return biasAdd(matmul(x, w, false, true), b);
}

ValueId GraphBuilder::convLayer(ValueId x, int64_t inChannels, int64_t outChannels, int64_t kernel, int64_t stride,
                                int64_t pad) {
  if (inChannels <= 0 || outChannels <= 0 || kernel <= 0) {
    fail(makeError("conv layer '" + m_scope + "': channels and kernel must be positive"));
    return ir::kNoValue;
  }
  double bound = 1.0 / std::sqrt(static_cast<double>(inChannels * kernel * kernel));
  ValueId w = paramUniform("weight", {outChannels, inChannels, kernel, kernel}, bound);
  ValueId b = paramUniform("bias", {outChannels}, bound);
  return biasAdd(conv2d(x, w, {stride, stride}, {pad, pad}), b);
}

}  // namespace dfc::frontend
