#include "autograd/GradientReduce.h"

#include <algorithm>

namespace dfc::autograd {
namespace {

using ir::NodeRole;

bool readByOptimizer(const ir::Graph& g, const std::vector<ir::NodeId>& users) {
  return std::any_of(users.begin(), users.end(), [&](ir::NodeId u) { return g.node(u).role == NodeRole::Optimizer; });
}

std::vector<std::vector<ir::ValueId>> fillBuckets(const ir::Graph& g, const std::vector<ir::ValueId>& grads,
                                                  double bucketBytes) {
  std::vector<std::vector<ir::ValueId>> buckets;
  double filled = 0;
  for (ir::ValueId v : grads) {
    const double bytes = static_cast<double>(g.value(v).type.byteSize());
    if (buckets.empty() || (filled > 0 && filled + bytes > bucketBytes)) {
      buckets.emplace_back();
      filled = 0;
    }
    buckets.back().push_back(v);
    filled += bytes;
  }
  return buckets;
}

// Places `inserted` before position `at` of the node list; ids and producers follow.
void spliceNodes(ir::Graph& g, std::vector<ir::Node> inserted, size_t at) {
  std::vector<ir::Node> nodes;
  nodes.reserve(g.nodes.size() + inserted.size());
  for (size_t i = 0; i < at; ++i) nodes.push_back(std::move(g.nodes[i]));
  for (ir::Node& n : inserted) nodes.push_back(std::move(n));
  for (size_t i = at; i < g.nodes.size(); ++i) nodes.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(nodes);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    g.nodes[i].id = static_cast<ir::NodeId>(i);
    for (ir::ValueId o : g.nodes[i].outputs) g.value(o).producer = g.nodes[i].id;
  }
}

}  // namespace

std::vector<ir::ValueId> findGradients(const ir::Graph& g) {
  const auto users = g.computeUsers();
  std::vector<ir::ValueId> grads;
  for (const ir::Node& n : g.nodes) {
    if (n.role != NodeRole::Backward) continue;
    for (ir::ValueId o : n.outputs)
      if (g.value(o).type.dtype == ir::DType::F32 && readByOptimizer(g, users[static_cast<size_t>(o)])) grads.push_back(o);
  }
  return grads;
}

Expected<std::vector<GradientBucket>> insertGradientReduce(ir::Graph& g, double bucketBytes) {
  const std::vector<ir::ValueId> grads = findGradients(g);
  if (grads.empty()) return makeError("--data-parallel: no gradient reaches an optimizer (compile a training graph)");
  auto firstOptimizer = std::find_if(g.nodes.begin(), g.nodes.end(), [](const ir::Node& n) { return n.role == NodeRole::Optimizer; });
  const auto at = static_cast<size_t>(firstOptimizer - g.nodes.begin());
  if (g.value(grads.back()).producer >= static_cast<ir::NodeId>(at))
    return makeError("--data-parallel: backward work follows the first optimizer node; cannot place the gradient reduce");

  std::vector<ir::ValueId> reduced(g.values.size(), ir::kNoValue);
  std::vector<ir::Node> inserted;
  std::vector<GradientBucket> buckets;
  for (auto& members : fillBuckets(g, grads, bucketBytes)) {
    const int k = static_cast<int>(buckets.size());
    ir::Node node;
    node.op = ir::OpKind::AllReduce;
    node.name = "allreduce_bucket" + std::to_string(k);
    node.attrs["bucket"] = int64_t{k};
    node.scope = "gradient_reduce";
    node.role = NodeRole::Reduce;
    GradientBucket bucket;
    for (ir::ValueId v : members) {
      const ir::Value grad = g.value(v);  // a copy: addValue may reallocate
      ir::ValueId out = g.addValue(grad.name + ".allreduce", grad.type, ir::ValueKind::Intermediate);
      reduced[static_cast<size_t>(v)] = out;
      node.inputs.push_back(v);
      node.outputs.push_back(out);
      bucket.bytes += static_cast<double>(grad.type.byteSize());
    }
    bucket.gradients = std::move(members);
    bucket.node = static_cast<ir::NodeId>(at + inserted.size());
    inserted.push_back(std::move(node));
    buckets.push_back(std::move(bucket));
  }
  for (ir::Node& n : g.nodes) {
    if (n.role != NodeRole::Optimizer) continue;
    for (ir::ValueId& in : n.inputs)
      if (static_cast<size_t>(in) < reduced.size() && reduced[static_cast<size_t>(in)] != ir::kNoValue)
        in = reduced[static_cast<size_t>(in)];
  }
  spliceNodes(g, std::move(inserted), at);
  return buckets;
}

}  // namespace dfc::autograd
