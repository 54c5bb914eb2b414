#include "partition/Hypersections.h"

#include <functional>
#include <unordered_map>

namespace dfc::partition {
namespace {

void appendAttr(std::string& out, const ir::Attribute& a) {
  if (const auto* i = std::get_if<int64_t>(&a)) out += "i" + std::to_string(*i);
  else if (const auto* d = std::get_if<double>(&a)) out += "d" + std::to_string(*d);
  else if (const auto* l = std::get_if<std::vector<int64_t>>(&a)) {
    out += "l";
    for (int64_t x : *l) out += std::to_string(x) + ",";
  } else out += "s" + std::get<std::string>(a);
}

}  // namespace

std::string canonicalForm(const ir::Graph& g, const std::vector<ir::NodeId>& nodes,
                          const std::vector<std::vector<ir::NodeId>>& users) {
  std::unordered_map<ir::NodeId, size_t> local;  // node -> position in `nodes`
  for (size_t i = 0; i < nodes.size(); ++i) local[nodes[i]] = i;
  std::unordered_map<ir::ValueId, size_t> external;  // outside value -> order of first use
  std::string out;
  out.reserve(nodes.size() * 64);
  for (ir::NodeId id : nodes) {
    const ir::Node& n = g.node(id);
    out += std::to_string(static_cast<int>(n.op)) + "/" + std::to_string(static_cast<int>(n.role)) + "{";
    for (const auto& [key, value] : n.attrs) {
      out += key + "=";
      appendAttr(out, value);
      out += ";";
    }
    out += "}(";
    for (ir::ValueId in : n.inputs) {
      const ir::Value& v = g.value(in);
      auto it = v.producer == ir::kNoNode ? local.end() : local.find(v.producer);
      if (it != local.end()) {
        const auto& outs = g.node(v.producer).outputs;
        out += "n" + std::to_string(it->second) + "." +
               std::to_string(std::find(outs.begin(), outs.end(), in) - outs.begin());
      } else {
        auto [e, fresh] = external.emplace(in, external.size());
        out += "x" + std::to_string(e->second);
        // Weights vs activations (a graph input and an earlier layer's result look alike to a section).
        bool weight = v.kind == ir::ValueKind::Param || v.kind == ir::ValueKind::Const;
        if (fresh) out += std::string(weight ? ":w" : ":a") + v.type.toString();
      }
      out += ",";
    }
    out += ")->(";
    for (ir::ValueId o : n.outputs) {
      bool escapes = std::find(g.outputs.begin(), g.outputs.end(), o) != g.outputs.end();
      for (ir::NodeId u : users[static_cast<size_t>(o)]) escapes |= !local.count(u);
      out += g.value(o).type.toString() + (escapes ? "!" : "") + ",";
    }
    out += ")\n";
  }
  return out;
}

HypersectionSummary assignHypersections(const ir::Graph& g, std::vector<Subgraph>& subgraphs) {
  auto users = g.computeUsers();
  struct Known {
    std::string form;
    int id;
  };
  std::unordered_map<size_t, std::vector<Known>> byHash;
  HypersectionSummary summary;
  for (Subgraph& s : subgraphs) {
    if (s.nodes.empty()) continue;
    std::string form = canonicalForm(g, s.nodes, users);
    auto& bucket = byHash[std::hash<std::string>{}(form)];
    s.hypersection = -1;
    for (const Known& k : bucket)
      if (k.form == form) s.hypersection = k.id;  // full comparison: a hash collision never merges
    if (s.hypersection < 0) {
      s.hypersection = summary.unique++;
      bucket.push_back({std::move(form), s.hypersection});
    }
    ++summary.instances;
  }
  return summary;
}

}  // namespace dfc::partition
