#include "analysis/SectionBoundaries.h"

#include <cstdio>

namespace dfc::analysis {

std::vector<SectionBoundary> sectionBoundaries(const partition::Plan& plan) {
  std::vector<SectionBoundary> out;
  for (size_t i = 1; i < plan.sections.size(); ++i)
    out.push_back({plan.sections[i - 1].id, plan.sections[i].id, plan.sections[i].cut});
  return out;
}

std::string describeCut(const partition::CutReason& cut) {
  if (cut.kind == partition::CutKind::None) return "not recorded (a PEF from before format 1.3)";
  std::string text(partition::cutKindName(cut.kind));
  return cut.detail.empty() ? text : text + ": " + cut.detail;
}

std::string formatBoundaries(const partition::Plan& plan) {
  const std::vector<SectionBoundary> rows = sectionBoundaries(plan);
  std::string out = std::to_string(rows.size()) +
                    " section boundaries (why each section starts apart from the one "
                    "before it):\n";
  char line[160];
  std::snprintf(line, sizeof line, "%-28s %-28s %-16s %s\n", "before", "after", "kind", "reason");
  out += line;
  for (const SectionBoundary& b : rows) {
    const partition::CutReason& c = b.cut;
    std::snprintf(
        line, sizeof line, "%-28.28s %-28.28s %-16s ", plan.sections[static_cast<size_t>(b.before)].name.c_str(),
        plan.sections[static_cast<size_t>(b.after)].name.c_str(), std::string(partition::cutKindName(c.kind)).c_str());
    out += line;
    out += c.kind == partition::CutKind::None ? "not recorded (a PEF from before format 1.3)" : c.detail;
    out += '\n';
  }
  return out;
}

}  // namespace dfc::analysis
