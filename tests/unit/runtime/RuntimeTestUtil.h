#pragma once
// Helpers for runtime tests: random tensors and single-op graphs.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "ir/Graph.h"
#include "ir/ShapeInference.h"
#include "partition/Plan.h"

namespace dfc::runtime::test {

// Appends a node with outputs of the inferred types: the first named `name`, the others `name.1`, `name.2`, ...
inline std::vector<ir::ValueId> addInferredNode(ir::Graph& g, ir::OpKind op, const std::string& name,
                                                std::vector<ir::ValueId> ins, ir::Attributes attrs = {},
                                                ir::NodeRole role = ir::NodeRole::Forward) {
  ir::Node probe;
  probe.op = op;
  probe.name = name;
  probe.inputs = ins;
  probe.attrs = attrs;
  auto types = ir::inferOutputTypes(g, probe);
  REQUIRE(types.ok());
  std::vector<ir::ValueId> outs;
  for (size_t i = 0; i < types->size(); ++i)
    outs.push_back(g.addValue(i ? name + "." + std::to_string(i) : name, (*types)[i], ir::ValueKind::Intermediate));
  g.addNode(op, name, ins, outs, attrs, {}, role);
  return outs;
}

inline ir::Tensor randomTensor(ir::Shape shape, std::mt19937& rng, float lo = -1.0f, float hi = 1.0f) {
  ir::Tensor t(ir::TensorType{ir::DType::F32, std::move(shape)});
  std::uniform_real_distribution<float> dist(lo, hi);
  for (float& v : t.span<float>()) v = dist(rng);
  return t;
}

inline ir::Tensor labelTensor(int64_t n, int64_t classes, std::mt19937& rng) {
  ir::Tensor t(ir::TensorType{ir::DType::I64, {n}});
  std::uniform_int_distribution<int64_t> dist(0, classes - 1);
  for (int64_t& v : t.span<int64_t>()) v = dist(rng);
  return t;
}

inline ir::Tensor f32Tensor(ir::Shape shape, std::vector<float> values) {
  ir::Tensor t(ir::TensorType{ir::DType::F32, std::move(shape)});
  for (size_t i = 0; i < values.size(); ++i) t.data<float>()[i] = values[i];
  return t;
}

// Every node of g in one forward section, in graph order.
inline partition::Plan oneSectionPlan(const ir::Graph& g) {
  partition::Plan plan;
  std::vector<ir::NodeId> nodes;
  for (size_t n = 0; n < g.nodes.size(); ++n) nodes.push_back(static_cast<ir::NodeId>(n));
  plan.sections = {{0, "all", ir::NodeRole::Forward, nodes, "", 0, {}}};
  plan.schedule = {0};
  return plan;
}

// Largest |a-b| / max(1, |b|) over two f32 tensors of equal size.
inline double maxRelDiff(const ir::Tensor& a, const ir::Tensor& b) {
  double worst = 0;
  for (int64_t i = 0; i < b.numElements(); ++i) {
    double x = a.data<float>()[i], y = b.data<float>()[i];
    worst = std::max(worst, std::abs(x - y) / std::max(1.0, std::abs(y)));
  }
  return worst;
}

// Appends `op` on `ins` with its inferred output type; returns the output.
inline ir::ValueId addOp(ir::Graph& g, ir::OpKind op, const std::string& name, std::vector<ir::ValueId> ins,
                         ir::Attributes attrs = {}, ir::NodeRole role = ir::NodeRole::Forward) {
  return addInferredNode(g, op, name, std::move(ins), std::move(attrs), role).front();
}

}  // namespace dfc::runtime::test
