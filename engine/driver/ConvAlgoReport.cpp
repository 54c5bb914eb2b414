#include "driver/ConvAlgoReport.h"

#include <cstdio>
#include <map>

namespace dfc::driver {
namespace {

const char* passName(runtime::ConvPassKind pass) {
  switch (pass) {
    case runtime::ConvPassKind::Forward: return "forward";
    case runtime::ConvPassKind::GradInput: return "grad_input";
    case runtime::ConvPassKind::GradWeight: return "grad_weight";
  }
  return "?";
}

std::string convLine(int sectionId, const ir::Node& node, const runtime::ConvShape& s, runtime::ConvAlgoChoice c) {
  char buf[320];
  std::snprintf(buf, sizeof buf, "  %4d  %-32.32s %-11s x[%lld,%lld,%lld,%lld] w[%lld,%lld,%lldx%lld] s%lld p%lld  %-9s %s",
                sectionId, node.name.c_str(), passName(s.pass), static_cast<long long>(s.n), static_cast<long long>(s.c),
                static_cast<long long>(s.h), static_cast<long long>(s.w), static_cast<long long>(s.o),
                static_cast<long long>(s.c), static_cast<long long>(s.kh), static_cast<long long>(s.kw),
                static_cast<long long>(s.sh), static_cast<long long>(s.ph),
                std::string(runtime::convAlgoName(c.algo)).c_str(), c.why);
  return buf;
}

}  // namespace

std::vector<std::string> describeConvAlgorithms(const pef::Pef& pef, runtime::ConvAlgoRequest request) {
  std::vector<std::string> rows;
  std::map<runtime::ConvAlgo, int> counts;
  for (const partition::Section& section : pef.plan.sections)
    for (ir::NodeId id : section.nodes) {
      const ir::Node& node = pef.graph.node(id);
      auto shape = runtime::convShapeOf(pef.graph, node);
      if (!shape) continue;
      const runtime::ConvAlgoChoice choice = runtime::explainConvAlgo(*shape, request);
      ++counts[choice.algo];
      rows.push_back(convLine(section.id, node, *shape, choice));
    }
  if (rows.empty()) return {};
  std::string summary;
  for (auto [algo, count] : counts)
    summary += (summary.empty() ? "" : ", ") + std::to_string(count) + " " + std::string(runtime::convAlgoName(algo));
  std::vector<std::string> lines{
      "\nconvolutions on the host (--conv-algo " + std::string(runtime::convAlgoRequestName(request)) + "): " + summary,
      "  sect  node                             pass        shape                                  algorithm why"};
  lines.insert(lines.end(), rows.begin(), rows.end());
  return lines;
}

}  // namespace dfc::driver
