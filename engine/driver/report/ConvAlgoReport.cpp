#include "driver/report/ConvAlgoReport.h"

#include <cstdio>
#include <map>
#include <set>

#include "runtime/OneDnnJoins.h"

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
  auto ll = [](int64_t v) { return static_cast<long long>(v); };
  char shape[160], buf[400];
  const int64_t group = s.group > 0 ? s.group : 1;
  int at = std::snprintf(shape, sizeof shape, "x[%lld,%lld,%lld,%lld] w[%lld,%lld,%lldx%lld] s%lld p%lld", ll(s.n),
                         ll(s.c), ll(s.h), ll(s.w), ll(s.o), ll(s.c / group), ll(s.kh), ll(s.kw), ll(s.sh), ll(s.ph));
  if (s.general && at > 0 && static_cast<size_t>(at) < sizeof shape)
    std::snprintf(shape + at, sizeof shape - static_cast<size_t>(at), " g%lld d%lld", ll(group), ll(s.dh));
  std::snprintf(buf, sizeof buf, "  %4d  %-32.32s %-11s %-38s %-9s %s", sectionId, node.name.c_str(), passName(s.pass),
                shape, std::string(runtime::convAlgoName(c.algo)).c_str(), c.why);
  return buf;
}

}  // namespace

std::vector<std::string> describeConvAlgorithms(const pef::Pef& pef, runtime::ConvAlgoRequest request) {
  std::vector<std::string> rows;
  std::map<runtime::ConvAlgo, int> counts;
  const std::set<ir::NodeId> joins = runtime::planOneDnnJoins(pef.graph, pef.plan, request);
  for (const partition::Section& section : pef.plan.sections)
    for (ir::NodeId id : section.nodes) {
      const ir::Node& node = pef.graph.node(id);
      auto shape = runtime::convShapeOf(pef.graph, node);
      if (!shape) continue;
      const runtime::ConvAlgoChoice choice = runtime::explainConvAlgoOf(*shape, id, request, joins);
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
