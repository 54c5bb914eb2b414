// dfc trace: what a chrome trace holds, from the command line, through the
// same engine index the timeline uses (profile::TraceIndex): a summary, a
// name search with counts, or a range aggregated by name, section or
// hypersection, as a table or CSV.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "ArgParser.h"
#include "Commands.h"
#include "profile/CompactTrace.h"
#include "profile/TraceIndex.h"

namespace dfc::cli {
namespace {

using profile::AggregateGroup;
using profile::TraceIndex;

ArgParser traceFlags() {
  ArgParser p("trace",
              "Search and aggregate a chrome trace (ours or another tool's): dfc trace FILE [options].\n"
              "Times are microseconds from the trace's start, as on dfstudio's timeline ruler.\n"
              "A section call mirrored on its hyperfunction row counts once (on the whole-model row).\n"
              "wall = per row, the time some slice of the group runs (nested slices count once), summed over rows;\n"
              "self = the time a slice is the innermost one running, summed (self <= wall; all selves add up to the total wall).");
  p.add({{"--search"}, "TEXT", 1, "slice names containing TEXT (any case), with counts and times per name"});
  p.add({{"--aggregate"}, "", 0, "per-group count, wall, self, mean, min, max over a range"});
  p.add({{"--from"}, "US", 1, "range start for --aggregate (default: the trace's start)"});
  p.add({{"--to"}, "US", 1, "range end for --aggregate (default: the trace's end)"});
  p.add({{"--group-by"}, "KEY", 1, "name (default), section or hypersection (from the slice args)"});
  p.add({{"--row"}, "ROW", 1, "only this row: its thread name, tid or pid:tid (repeatable; default all rows)"});
  p.add({{"--csv"}, "", 0, "print CSV instead of a table"});
  addMaxMemoryFlag(p);
  p.add({{"-h", "--help"}, "", 0, "show this help"});
  return p;
}

std::string rowName(const profile::CompactTrace& trace, uint32_t row) {
  const auto& t = trace.threads[row];
  const auto it = trace.threadNames.find({t.pid, t.tid});
  return it != trace.threadNames.end() ? it->second : "tid " + std::to_string(t.tid);
}

// "--row" values as row indices; an unknown one is an error naming it.
Expected<std::vector<uint32_t>> selectRows(const TraceIndex& index, const std::vector<std::string>& wanted) {
  std::vector<uint32_t> rows;
  const auto& trace = index.trace();
  for (const std::string& w : wanted) {
    bool found = false;
    for (uint32_t r = 0; r < trace.threads.size(); ++r) {
      const auto& t = trace.threads[r];
      if (w == rowName(trace, r) || w == std::to_string(t.tid) ||
          w == std::to_string(t.pid) + ":" + std::to_string(t.tid)) {
        rows.push_back(r);
        found = true;
      }
    }
    if (!found) return makeError("--row '" + w + "': no such row in the trace (give a thread name, tid or pid:tid)");
  }
  return rows;
}

struct Table {
  bool csv = false;
  std::string keyTitle;
  size_t keyWidth = 0;
  const char* timeTitle = "wall_us";  // the search table sums durations instead: total_us

  void header() const {
    if (csv) {
      std::printf("%s,count,%s,self_us,mean_us,min_us,max_us\n", keyTitle.c_str(), timeTitle);
      return;
    }
    std::printf("%-*s %9s %14s %14s %12s %12s %12s\n", static_cast<int>(keyWidth), keyTitle.c_str(), "count", timeTitle,
                "self_us", "mean_us", "min_us", "max_us");
  }
  void row(const std::string& key, size_t count, double wall, double self, double mean, double min, double max) const {
    if (csv) {
      std::printf("%s,%zu,%.3f,%.3f,%.3f,%.3f,%.3f\n", csvField(key).c_str(), count, wall, self, mean, min, max);
      return;
    }
    std::printf("%-*s %9zu %14.1f %14.1f %12.2f %12.2f %12.2f\n", static_cast<int>(keyWidth), key.c_str(), count, wall,
                self, mean, min, max);
  }
  static std::string csvField(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
  }
};

size_t widthFor(const std::vector<std::string>& keys, const std::string& title) {
  size_t width = title.size();
  for (const auto& k : keys) width = std::max(width, k.size());
  return std::min<size_t>(width, 60);
}

int printSearch(const TraceIndex& index, const std::string& text, bool csv) {
  const profile::TraceSearch found = index.search(text);
  std::vector<std::string> names;
  for (const auto& s : found.names) names.emplace_back(index.trace().string(s.name));
  const Table table{csv, "name", widthFor(names, "name"), "total_us"};
  if (!csv) std::printf("%zu slices in %zu names match '%s'\n", found.count, found.names.size(), text.c_str());
  if (found.names.empty()) return 0;
  table.header();
  // Whole-trace figures per name (the index's running statistics): total_us
  // sums the durations; --aggregate gives the wall time of a range.
  for (size_t i = 0; i < found.names.size(); ++i) {
    const auto& s = found.names[i];
    table.row(names[i], s.count, s.totalUs, s.selfUs, s.meanUs(), s.minUs, s.maxUs);
  }
  return 0;
}

// A time flag: a finite number of microseconds ("nan" and "inf" parse as
// numbers, and a NaN range would aggregate nothing and say nothing).
Expected<double> timeFlag(const ArgParser& p, const char* flag, double fallback) {
  if (!p.has(flag)) return fallback;
  auto v = parseDouble(flag, p.get(flag));
  if (!v) return v.error();
  if (!std::isfinite(*v)) return makeError(std::string(flag) + " '" + p.get(flag) + "': not a finite number of microseconds");
  return *v;
}

int printAggregate(const TraceIndex& index, const ArgParser& p, bool csv) {
  const std::string groupName = p.get("--group-by", "name");
  const auto groupBy = profile::groupByFromName(groupName);
  if (!groupBy) return usageError("--group-by '" + groupName + "': use name, section or hypersection");
  const auto from = timeFlag(p, "--from", 0), to = timeFlag(p, "--to", index.endUs() - index.startUs());
  if (!from) return reportError(from.error());
  if (!to) return reportError(to.error());
  if (*to < *from) return usageError("--from " + p.get("--from") + " is after --to " + p.get("--to"));
  auto rows = selectRows(index, p.getAll("--row"));
  if (!rows) return reportError(rows.error());
  const profile::Aggregate a = index.aggregate(index.startUs() + *from, index.startUs() + *to, *rows, *groupBy);
  std::vector<std::string> keys;
  for (const AggregateGroup& g : a.groups) keys.push_back(g.key.empty() ? "(none)" : g.key);
  const Table table{csv, groupName, widthFor(keys, groupName)};
  if (!csv)
    std::printf("range %.3f .. %.3f us (%.3f us), %s, by %s\n", *from, *to, *to - *from,
                rows->empty() ? "all rows" : (std::to_string(rows->size()) + " row(s)").c_str(), groupName.c_str());
  table.header();
  for (size_t i = 0; i < a.groups.size(); ++i) {
    const AggregateGroup& g = a.groups[i];
    table.row(keys[i], g.count, g.wallUs, g.selfUs, g.meanUs(), g.minUs, g.maxUs);
  }
  const AggregateGroup& t = a.total;
  table.row("total", t.count, t.wallUs, t.selfUs, t.meanUs(), t.minUs, t.maxUs);
  return 0;
}

void printSummary(const TraceIndex& index, const std::string& path) {
  const auto& trace = index.trace();
  size_t mirrored = 0;
  for (uint32_t r = 0; r < index.rowCount(); ++r)
    if (index.isMirrorRow(r)) mirrored += index.rowEnd(r) - index.rowBegin(r);
  std::printf("%s: %zu slices (%zu of them mirrored copies, counted once) on %zu rows, %zu counter series, %.3f us\n",
              path.c_str(), index.sliceCount(), mirrored, index.rowCount(), trace.counters.size(),
              index.endUs() - index.startUs());
  if (const auto it = trace.metadata.find("pef_hash"); it != trace.metadata.end())
    std::printf("  ran PEF content hash %s\n", it->second.c_str());
  for (uint32_t r = 0; r < index.rowCount(); ++r) {
    std::printf("  row %-32s pid %lld tid %lld: %u events", rowName(trace, r).c_str(),
                static_cast<long long>(trace.threads[r].pid), static_cast<long long>(trace.threads[r].tid),
                index.rowEnd(r) - index.rowBegin(r));
    if (index.isMirrorRow(r)) std::printf(" (mirrors row '%s')", rowName(trace, index.mirrorOf(r)).c_str());
    std::printf("\n");
  }
  std::printf("(--search TEXT or --aggregate for more; see dfc trace --help)\n");
}

}  // namespace

int traceCommand(const std::vector<std::string>& args) {
  ArgParser p = traceFlags();
  if (auto err = p.parse(args); !err.empty()) return usageError(err);
  if (auto rc = applyMaxMemory(p)) return *rc;
  if (p.has("--help")) {
    std::fputs(p.help(false).c_str(), stdout);
    return 0;
  }
  const auto files = p.positional();
  if (files.size() != 1)
    return usageError("trace: give one trace file (dfc trace out/lenet/lenet_chrome_tracing_report.json)");
  auto compact = profile::readCompactTrace(files.front());
  if (!compact) return reportError(compact.error());
  for (const std::string& warning : compact->warnings) std::fprintf(stderr, "warning: %s\n", warning.c_str());
  const TraceIndex index(std::make_shared<const profile::CompactTrace>(std::move(compact.value())));
  const bool csv = p.has("--csv");
  if (!p.has("--search") && !p.has("--aggregate")) {
    printSummary(index, files.front());
    return 0;
  }
  if (p.has("--search"))
    if (int status = printSearch(index, p.get("--search"), csv); status != 0) return status;
  if (p.has("--aggregate")) return printAggregate(index, p, csv);
  return 0;
}

}  // namespace dfc::cli
