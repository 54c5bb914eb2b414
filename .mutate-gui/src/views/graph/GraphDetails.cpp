#include "graph/GraphDetails.h"

#include <set>

namespace dfc::views {
namespace {

QString attributeText(const ir::Attribute& value) {
  if (const auto* i = std::get_if<int64_t>(&value)) return QString::number(*i);
  if (const auto* d = std::get_if<double>(&value)) return QString::number(*d, 'g', 6);
  if (const auto* s = std::get_if<std::string>(&value)) return QString::fromStdString(*s);
  QStringList parts;
  for (int64_t v : std::get<std::vector<int64_t>>(value)) parts << QString::number(v);
  return QLatin1Char('[') + parts.join(QLatin1Char(',')) + QLatin1Char(']');
}

QString valueText(const ir::Graph& graph, ir::ValueId id) {
  if (id < 0 || static_cast<size_t>(id) >= graph.values.size()) return QStringLiteral("?");
  const ir::Value& v = graph.value(id);
  return QString::fromStdString(v.name + ": " + v.type.toString());
}

}  // namespace

NodeDetails describeNode(const GraphData& data, int index, const ir::Graph* graph, const partition::Plan* plan) {
  NodeDetails d;
  if (index < 0 || static_cast<size_t>(index) >= data.nodes.size()) return d;
  const GraphNode& node = data.nodes[static_cast<size_t>(index)];
  d.index = index;
  d.name = node.name;
  d.op = node.op;
  d.role = node.role;
  d.hyperfunction = node.hyperfunction;
  d.section = node.section;
  d.hypersection = node.hypersection;
  d.opCount = node.opCount;
  if (graph && node.irNode >= 0 && static_cast<size_t>(node.irNode) < graph->nodes.size()) {
    const ir::Node& ir = graph->nodes[static_cast<size_t>(node.irNode)];
    for (const auto& [key, value] : ir.attrs) d.attributes.append({QString::fromStdString(key), attributeText(value)});
    for (ir::ValueId v : ir.inputs) d.inputShapes << valueText(*graph, v);
    for (ir::ValueId v : ir.outputs) d.outputShapes << valueText(*graph, v);
  }
  if (!plan) return d;
  auto sectionById = [&](int id) -> const partition::Section* {
    for (const auto& s : plan->sections)
      if (s.id == id) return &s;
    return nullptr;
  };
  // A collapsed node reports the sum over the sections of its ops.
  std::set<int> sections;
  if (node.kind == GraphNodeKind::Collapsed) {
    const std::set<ir::NodeId> members(node.members.begin(), node.members.end());
    for (const auto& s : plan->sections)
      for (ir::NodeId n : s.nodes)
        if (members.count(n)) {
          sections.insert(s.id);
          break;
        }
  } else if (node.section >= 0) {
    sections.insert(node.section);
  }
  for (int id : sections) {
    const partition::Section* s = sectionById(id);
    if (!s) continue;
    d.hasEstimate = true;
    d.pcus += s->estimate.pcus;
    d.pmus += s->estimate.pmus;
    d.latencyUs += s->estimate.latencyUs;
    d.flop += s->estimate.flop;
  }
  if (const partition::Section* s = sectionById(node.section)) {
    d.sectionName = QString::fromStdString(s->name);
    if (s->hypersection >= 0 && static_cast<size_t>(s->hypersection) < plan->hypersections.size())
      d.hypersectionName = QString::fromStdString(plan->hypersections[static_cast<size_t>(s->hypersection)].name);
  }
  return d;
}

}  // namespace dfc::views
