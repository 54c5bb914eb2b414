#include "onnx/TopoSort.h"

#include <functional>
#include <map>
#include <queue>
#include <set>
#include <string>
#include <vector>

namespace dfc::onnx {

namespace {

using Names = std::set<std::string>;

void collectReads(const ::onnx::GraphProto& g, Names& reads, Names& defined);

// What a node reads: its inputs and the outer values its subgraphs read.
void nodeReads(const ::onnx::NodeProto& n, Names& reads) {
  for (const auto& in : n.input())
    if (!in.empty()) reads.insert(in);
  for (const auto& a : n.attribute()) {
    std::vector<const ::onnx::GraphProto*> graphs;
    if (a.has_g()) graphs.push_back(&a.g());
    for (const auto& sub : a.graphs()) graphs.push_back(&sub);
    for (const auto* sub : graphs) {
      Names subReads, subDefined;
      collectReads(*sub, subReads, subDefined);
      for (const auto& r : subReads)
        if (!subDefined.count(r)) reads.insert(r);
    }
  }
}

void collectReads(const ::onnx::GraphProto& g, Names& reads, Names& defined) {
  for (const auto& in : g.input()) defined.insert(in.name());
  for (const auto& t : g.initializer()) defined.insert(t.name());
  for (const auto& n : g.node()) {
    nodeReads(n, reads);
    for (const auto& out : n.output()) defined.insert(out);
  }
}

// Kahn's algorithm, the lowest written index first among ready nodes; empty
// when some node can never run (a cycle, a name nothing defines).
std::vector<int> topologicalOrder(const ::onnx::GraphProto& g, const Names& available) {
  const int count = g.node_size();
  std::map<std::string, int> producer;
  for (int i = 0; i < count; ++i)
    for (const auto& out : g.node(i).output())
      if (!out.empty()) producer.emplace(out, i);
  std::vector<int> waiting(static_cast<size_t>(count), 0);
  std::vector<std::vector<int>> consumers(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    Names reads;
    nodeReads(g.node(i), reads);
    std::set<int> deps;
    for (const auto& r : reads) {
      if (available.count(r)) continue;
      auto p = producer.find(r);
      if (p == producer.end() || p->second == i) return {};
      deps.insert(p->second);
    }
    waiting[static_cast<size_t>(i)] = static_cast<int>(deps.size());
    for (int d : deps) consumers[static_cast<size_t>(d)].push_back(i);
  }
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (int i = 0; i < count; ++i)
    if (waiting[static_cast<size_t>(i)] == 0) ready.push(i);
  std::vector<int> order;
  while (!ready.empty()) {
    int i = ready.top();
    ready.pop();
    order.push_back(i);
    for (int c : consumers[static_cast<size_t>(i)])
      if (--waiting[static_cast<size_t>(c)] == 0) ready.push(c);
  }
  if (static_cast<int>(order.size()) != count) return {};
  return order;
}

bool sortGraph(::onnx::GraphProto& g, Names available) {
  for (const auto& in : g.input()) available.insert(in.name());
  for (const auto& t : g.initializer()) available.insert(t.name());
  available.insert("");
  bool changed = false;
  std::vector<int> order = topologicalOrder(g, available);
  for (size_t i = 0; i < order.size(); ++i) changed = changed || order[i] != static_cast<int>(i);
  if (changed) {
    google::protobuf::RepeatedPtrField<::onnx::NodeProto> sorted;
    for (int i : order) *sorted.Add() = g.node(i);
    g.mutable_node()->Swap(&sorted);
  }
  Names outer = available;  // what a subgraph may read from here
  for (const auto& n : g.node())
    for (const auto& out : n.output()) outer.insert(out);
  for (auto& n : *g.mutable_node())
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) changed = sortGraph(*a.mutable_g(), outer) || changed;
      for (auto& sub : *a.mutable_graphs()) changed = sortGraph(sub, outer) || changed;
    }
  return changed;
}

}  // namespace

bool sortNodesTopologically(::onnx::ModelProto& model) {
  return model.has_graph() && sortGraph(*model.mutable_graph(), {});
}

}  // namespace dfc::onnx
