// Text and CSV of a MemoryTimeline (analysis/MemoryTimeline.h).
#include <cstdio>

#include "analysis/MemoryTimeline.h"

namespace dfc::analysis {
namespace {

std::string mib(int64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / 1048576.0);
  return buf;
}

std::string sectionName(const partition::Plan& plan, int call) {
  return plan.sections.at(static_cast<size_t>(plan.schedule.at(static_cast<size_t>(call)))).name;
}

void appendPeakTensors(std::string& out, const MemoryTimeline& m, const ir::Graph& g, MemTier tier, size_t top) {
  const TierPeak& p = m.peaks[static_cast<size_t>(tier)];
  out += "  " + std::string(memTierName(tier)) + " peak at call " + std::to_string(p.call) + ": " +
         std::to_string(p.tensors.size()) + " tensors live, largest first:\n";
  char line[256];
  for (size_t i = 0; i < p.tensors.size() && i < top; ++i) {
    const LiveTensor& t = m.tensors[p.tensors[i]];
    std::snprintf(line, sizeof line, "    %14lld B  %-15s %-40.40s calls %d-%d\n", static_cast<long long>(t.bytes),
                  memKindName(t.kind), g.value(t.value).name.c_str(), t.first, t.last);
    out += line;
  }
}

}  // namespace

std::string formatMemory(const MemoryTimeline& m, const ir::Graph& g, const partition::Plan& plan, size_t top) {
  std::string out = "memory over " + std::to_string(m.points.size()) +
                    " section calls (bytes resident per tier; host: the CPU run's intermediates before arena reuse)\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-5s %16s %10s %6s  %-28s %-22s %s\n", "tier", "peak_bytes", "", "call", "section",
                "capacity", "by kind at the peak");
  out += line;
  for (int t = 0; t < kMemTiers; ++t) {
    const auto tier = static_cast<MemTier>(t);
    const TierPeak& p = m.peaks[static_cast<size_t>(t)];
    std::string kinds;
    if (p.call >= 0)
      for (int k = 0; k < kMemKinds; ++k)
        if (int64_t b = m.points[static_cast<size_t>(p.call)].bytes[static_cast<size_t>(t)][static_cast<size_t>(k)])
          kinds += std::string(kinds.empty() ? "" : ", ") + memKindName(static_cast<MemKind>(k)) + " " + mib(b);
    const double cap = m.capacity[static_cast<size_t>(t)];
    const std::string capText = cap <= 0 ? "-" : mib(static_cast<int64_t>(cap)) + (p.bytes > cap ? " OVER" : "");
    std::snprintf(line, sizeof line, "%-5s %16lld %10s %6s  %-28.28s %-22s %s\n", memTierName(tier),
                  static_cast<long long>(p.bytes), mib(p.bytes).c_str(),
                  p.call < 0 ? "-" : std::to_string(p.call).c_str(),
                  p.call < 0 ? "(holds nothing)" : sectionName(plan, p.call).c_str(), capText.c_str(), kinds.c_str());
    out += line;
  }
  if (m.pmuPeakCall >= 0) {
    const MemoryPoint& p = m.points[static_cast<size_t>(m.pmuPeakCall)];
    out += "on-chip PMU buffers: most at call " + std::to_string(p.call) + " (" + sectionName(plan, p.call) +
           "): " + std::to_string(p.pmus) + " PMUs, " + std::to_string(p.pmuBytes) + " B\n";
  }
  for (int t = 0; t < kMemTiers; ++t)
    if (m.peaks[static_cast<size_t>(t)].call >= 0) appendPeakTensors(out, m, g, static_cast<MemTier>(t), top);
  return out;
}

std::string memoryCsv(const MemoryTimeline& m, const partition::Plan& plan) {
  std::string out = "call,section,tier";
  for (int k = 0; k < kMemKinds; ++k) out += std::string(",") + memKindName(static_cast<MemKind>(k));
  out += ",total\n";
  for (const MemoryPoint& p : m.points)
    for (int t = 0; t < kMemTiers; ++t) {
      out += std::to_string(p.call) + "," + sectionName(plan, p.call) + "," + memTierName(static_cast<MemTier>(t));
      for (int64_t b : p.bytes[static_cast<size_t>(t)]) out += "," + std::to_string(b);
      out += "," + std::to_string(p.tierTotal(static_cast<MemTier>(t))) + "\n";
    }
  return out;
}

}  // namespace dfc::analysis
