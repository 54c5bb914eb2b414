#include "partition/Hypersections.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <unordered_map>

namespace dfc::partition {
namespace {

// Appends without building temporaries (the form is built for every subgraph).
void appendInt(std::string& out, int64_t x) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, x);
  out.append(buf, r.ptr);
}

void appendAttr(std::string& out, const ir::Attribute& a) {
  if (const auto* i = std::get_if<int64_t>(&a)) {
    out += 'i';
    appendInt(out, *i);
  } else if (const auto* d = std::get_if<double>(&a)) {
    out += 'd';
    // std::to_string's "%f" text, without going through printf.
    char buf[400];
    auto r = std::to_chars(buf, buf + sizeof buf, *d, std::chars_format::fixed, 6);
    if (r.ec == std::errc()) out.append(buf, r.ptr);
    else out += std::to_string(*d);
  } else if (const auto* l = std::get_if<std::vector<int64_t>>(&a)) {
    out += 'l';
    for (int64_t x : *l) {
      appendInt(out, x);
      out += ',';
    }
  } else {
    out += 's';
    out += std::get<std::string>(a);
  }
}

// The text of TensorType::toString ("f32[4,128]"), appended in place.
void appendType(std::string& out, const ir::TensorType& t) {
  out += ir::dtypeName(t.dtype);
  out += '[';
  for (size_t i = 0; i < t.shape.size(); ++i) {
    if (i) out += ',';
    appendInt(out, t.shape[i]);
  }
  out += ']';
}

}  // namespace

std::string canonicalForm(const ir::Graph& g, const std::vector<ir::NodeId>& nodes,
                          const std::vector<std::vector<ir::NodeId>>& users) {
  // node -> position in `nodes`, sorted by node (the last position of a repeated node wins).
  std::vector<std::pair<ir::NodeId, size_t>> local;
  local.reserve(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) local.emplace_back(nodes[i], i);
  std::stable_sort(local.begin(), local.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  auto localPos = [&](ir::NodeId n) -> const size_t* {
    auto it = std::upper_bound(local.begin(), local.end(), n, [](ir::NodeId x, const auto& e) { return x < e.first; });
    return it != local.begin() && std::prev(it)->first == n ? &std::prev(it)->second : nullptr;
  };
  // outside value -> order of first use, sorted by value
  std::vector<std::pair<ir::ValueId, size_t>> external;
  std::string out;
  out.reserve(nodes.size() * 64);
  for (ir::NodeId id : nodes) {
    const ir::Node& n = g.node(id);
    appendInt(out, static_cast<int>(n.op));
    out += '/';
    appendInt(out, static_cast<int>(n.role));
    out += '{';
    for (const auto& [key, value] : n.attrs) {
      out += key;
      out += '=';
      appendAttr(out, value);
      out += ';';
    }
    out += "}(";
    for (ir::ValueId in : n.inputs) {
      const ir::Value& v = g.value(in);
      const size_t* pos = v.producer == ir::kNoNode ? nullptr : localPos(v.producer);
      if (pos) {
        const auto& outs = g.node(v.producer).outputs;
        out += 'n';
        appendInt(out, static_cast<int64_t>(*pos));
        out += '.';
        appendInt(out, std::find(outs.begin(), outs.end(), in) - outs.begin());
      } else {
        auto e = std::lower_bound(external.begin(), external.end(), in,
                                  [](const auto& x, ir::ValueId id) { return x.first < id; });
        bool fresh = e == external.end() || e->first != in;
        if (fresh) e = external.insert(e, {in, external.size()});
        out += 'x';
        appendInt(out, static_cast<int64_t>(e->second));
        // Weights vs activations (a graph input and an earlier layer's result look alike to a section).
        bool weight = v.kind == ir::ValueKind::Param || v.kind == ir::ValueKind::Const;
        if (fresh) {
          out += weight ? ":w" : ":a";
          appendType(out, v.type);
        }
      }
      out += ',';
    }
    out += ")->(";
    for (ir::ValueId o : n.outputs) {
      bool escapes = std::find(g.outputs.begin(), g.outputs.end(), o) != g.outputs.end();
      for (ir::NodeId u : users[static_cast<size_t>(o)]) escapes |= !localPos(u);
      appendType(out, g.value(o).type);
      if (escapes) out += '!';
      out += ',';
    }
    out += ")\n";
  }
  return out;
}

HypersectionSummary assignHypersections(const ir::Graph& g, std::vector<Subgraph>& subgraphs) {
  return assignHypersections(g, subgraphs, [](const std::string& form) { return std::hash<std::string>{}(form); });
}

HypersectionSummary assignHypersections(const ir::Graph& g, std::vector<Subgraph>& subgraphs, FormHash hash) {
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
    auto& bucket = byHash[hash(form)];
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
