#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "ArgParser.h"
#include "Commands.h"
#include "analysis/ChipModel.h"
#include "analysis/CompiledArch.h"
#include "analysis/HostRoofline.h"
#include "analysis/MemoryTimeline.h"
#include "analysis/Roofline.h"
#include "analysis/SectionBoundaries.h"
#include "arch/OperatorTiling.h"
#include "driver/compile/CompileReport.h"
#include "driver/compile/CompilerConfig.h"
#include "driver/compile/DataParallelCompile.h"
#include "driver/compile/HumanDecisions.h"
#include "driver/compile/StoreRecords.h"
#include "driver/report/ConvAlgoReport.h"
#include "driver/report/FusedAttentionReport.h"
#include "driver/report/HostBreakdown.h"
#include "driver/report/SectionReport.h"
#include "driver/report/SpatialReport.h"
#include "estimate/PefEstimate.h"
#include "pef/Pef.h"
#include "pef/PlacedSections.h"
#include "runtime/ArenaPlan.h"
#include "support/FileUtil.h"

namespace dfc::cli {

namespace {

Expected<pef::Pef> loadPefArg(const ArgParser& p, const char* command) {
  auto pos = p.positional();
  std::string path = p.get("--pef", pos.empty() ? "" : pos.front());
  if (path.empty()) return makeError(std::string(command) + ": give a PEF (dfc " + command + " out/lenet/lenet.pef)");
  return pef::readPef(path, pef::PefUse::View);
}

// Operators too big for a section, run in passes (arch/OperatorTiling.h).
void printTiledOperators(const pef::Pef& pef) {
  size_t count = 0;
  for (const auto& s : pef.plan.sections) count += s.tiling.size();
  if (count == 0) return;
  std::printf("\n%zu tiled operators (too big for a section: run in passes that stream tiles from DDR/HBM; the chip "
              "plan only, the host runtime runs each operator whole):\n", count);
  for (const auto& s : pef.plan.sections)
    for (const auto& t : s.tiling) {
      const ir::Node& n = pef.graph.node(t.node);
      std::printf("  %-24.24s %s (%s): %s, +%.1f MB streamed per call\n", s.name.c_str(), n.name.c_str(),
                  std::string(ir::opName(n.op)).c_str(), arch::describeTiling(t).c_str(), t.extraDdrBytes / 1e6);
    }
}

std::string pefPathArg(const ArgParser& p) {
  auto pos = p.positional();
  return p.get("--pef", pos.empty() ? "" : pos.front());
}

// Hypersection -> calls per step and the hyperfunctions (layers) its instances
// come from: "h.0 .. h.11" when they are numbered alike, else a list.
void printHypersections(const partition::Plan& plan) {
  std::printf("\n%4s  %-28s %6s  %s\n", "hs", "hypersection", "calls", "hyperfunctions");
  for (const auto& hs : plan.hypersections) {
    std::vector<std::string> names;
    for (int sid : hs.sections) {
      const std::string& hf = plan.sections.at(static_cast<size_t>(sid)).hyperfunction;
      std::string name = hf.empty() ? "(top level)" : hf;
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
    std::string list;
    if (names.size() > 3) list = names.front() + ", " + names[1] + " ... " + names.back() + " (" + std::to_string(names.size()) + ")";
    else
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    std::printf("%4d  %-28.28s %6zu  %s\n", hs.id, hs.name.c_str(), hs.sections.size(), list.c_str());
  }
}

// The effective knobs: the PEF's own, or the defaults; one "key = value  # what it does" per line.
void printCompilerConfig(const std::string& stored) {
  const std::string json = stored.empty() ? driver::compilerConfigJson({}) : stored;
  std::printf("\ncompiler configuration (%s):\n", stored.empty() ? "defaults, no --compiler-configs-file" : "from --compiler-configs-file");
  for (const driver::CompilerKnobInfo& k : driver::compilerKnobs())
    std::printf("  %-30s = %-12s # %s\n", k.key.c_str(), driver::storedKnobValue(json, k).c_str(), k.doc.c_str());
}

// The run --run names, in the store --db names.
Expected<profile::RunRecord> findRun(const ArgParser& p, profile::RunStore& store) {
  auto id = parseInt("--run", p.get("--run"));
  if (!id) return id.error();
  auto runs = store.listRuns();
  if (!runs) return runs.error();
  auto run = std::find_if(runs->begin(), runs->end(), [&](const profile::RunRecord& r) { return r.id == *id; });
  if (run == runs->end()) return makeError("--run " + std::to_string(*id) + ": no such run in the run store");
  return *run;
}

// --run ID: the run's host breakdown from the store, as a table.
int inspectRun(const ArgParser& p) {
  auto store = driver::openStore(p.get("--db"));
  if (!store) return reportError(store.error());
  auto run = findRun(p, *store);
  if (!run) return reportError(run.error());
  const long long id = run->id;
  auto metrics = store->metrics(id);
  if (!metrics) return reportError(metrics.error());
  auto rows = driver::hostBreakdownFromMetrics(*metrics);
  std::printf("run #%lld (%s, %s): %s\n", static_cast<long long>(run->id), run->status.c_str(), run->startedAt.c_str(),
              run->pefPath.c_str());
  if (rows.empty()) {
    std::printf("no host breakdown recorded (the run stopped before its trace was written, or an older dfc ran it)\n");
    return 0;
  }
  std::printf("\nhost breakdown (the trace's host row, %s):\n%s", run->tracePath.c_str(),
              driver::hostBreakdownTable(rows).c_str());
  return 0;
}

// --roofline --run ID: the run's PEF's roofline, then each section's host
// point (its FLOP over the run's mean measured time per call) on the host's
// own roofline, measured here.
int inspectRunRoofline(const ArgParser& p) {
  auto store = driver::openStore(p.get("--db"));
  if (!store) return reportError(store.error());
  auto run = findRun(p, *store);
  if (!run) return reportError(run.error());
  const long long id = run->id;
  auto pef = pef::readPef(run->pefPath, pef::PefUse::View);
  if (!pef) return reportError(makeError("--run " + std::to_string(id) + ": its PEF: " + pef.error().message()));
  auto arch = analysis::compiledArch(pef->meta);
  if (!arch) return reportError(arch.error());
  auto calls = store->sectionCalls(id);
  if (!calls) return reportError(calls.error());
  std::map<int, std::pair<double, long long>> sums;
  for (const auto& c : *calls) sums[c.sectionId].first += c.durationUs, sums[c.sectionId].second += 1;
  std::map<int, double> means;
  for (const auto& [section, sum] : sums) means[section] = sum.first / static_cast<double>(sum.second);
  const analysis::Roofline r = analysis::roofline(pef->plan, *arch);
  const auto points = analysis::hostRooflinePoints(r, means);
  if (p.has("--csv")) {
    std::fputs(analysis::rooflineCsvWithHost(r, pef->plan, points).c_str(), stdout);
    return 0;
  }
  std::printf("run #%lld: %s\n%s\n", static_cast<long long>(run->id), run->pefPath.c_str(),
              analysis::formatRoofline(r, pef->plan).c_str());
  if (points.empty()) {
    std::printf("the run measured no section times (a measure-performance run without --op-profile records none)\n");
    return 0;
  }
  std::fputs(analysis::formatHostRoofline(analysis::hostPeaks(), points, pef->plan).c_str(), stdout);
  return 0;
}

ArgParser inspectFlags() {
  ArgParser p("inspect", "Print a PEF's metadata, sections and compile report.");
  p.add({{"-p", "--pef"}, "FILE", 1, "the PEF (or give it as the first argument)"});
  p.add({{"--report"}, "", 0, "also print the compile report JSON"});
  p.add({{"--config"}, "", 0,
         "print the compiler knobs the PEF was compiled with (--compiler-configs-file); without a PEF, every knob "
         "with its type, default and range"});
  p.add({{"--run"},
         "ID",
         1,
         "instead of a PEF: where a stored run's host time went (phase, total ms, share, count); with --roofline: "
         "its PEF's roofline and each section's measured host point (FLOP / mean host time) on the host's own "
         "roofline (GEMM FLOP/s and triad bandwidth, measured now)"});
  p.add({{"--db"}, "FILE", 1, "with --run: the run store (default: the usual one)"});
  p.add({{"--why"},
         "",
         0,
         "only why each section starts where it does: one line per section boundary (the sections on either side, "
         "the reason kind: PCU/PMU budget, fusion rule, decision, role change, ..., and its figures)"});
  p.add({{"--memory"},
         "",
         0,
         "only the memory over the schedule: bytes resident per tier (SRAM, HBM, DDR, host) at each section call by "
         "kind, the peak per tier and the tensors live at it, largest first"});
  p.add({{"--roofline"},
         "",
         0,
         "only each section's arithmetic intensity (FLOP per off-chip byte) against the arch's compute and "
         "bandwidth roofs"});
  p.add({{"--chip"},
         "SECTION",
         1,
         "only the placed chip of SECTION's bitfile: one char per unit by op (upper case PCU, lower case PMU), a "
         "legend, and the links routed over capacity with load/capacity"});
  p.add({{"--svg"}, "FILE", 1, "with --chip: write the grid as SVG to FILE instead (units by op, links by load)"});
  p.add({{"--csv"}, "", 0, "with --memory or --roofline: CSV instead of text (memory: one row per call and tier)"});
  addMaxMemoryFlag(p);
  addConvAlgoFlag(p, "the convolutions' host algorithms as `dfc run --conv-algo NAME` would run them");
  p.add({{"-h", "--help"}, "", 0, "show this help"});
  return p;
}

void printPefHeader(const pef::Pef& pef) {
  const auto& m = pef.meta;
  std::printf("PEF %s (format %d.%d, dfc %s, %s)\n", m.pefName.c_str(), pef::kPefMajorVersion, pef::kPefMinorVersion,
              m.compilerVersion.c_str(), m.createdAt.c_str());
  const std::string mode = m.kvCacheLen > 0 ? "inference decode step (KV cache " + std::to_string(m.kvCacheLen) + " rows)"
                           : m.inference ? "inference" : "training";
  std::printf("content hash %s (a run's trace records it as pef_hash)\n", pef.contentHash.c_str());
  std::printf("model %s, %s, batch %lld, -%s, arch %s\n", m.model.c_str(), mode.c_str(),
              static_cast<long long>(m.batchSize), m.optLevel.c_str(), m.arch.c_str());
  std::printf(
      "graph: %zu nodes, %zu values, %zu parameters tensors; %zu sections, %zu hypersections, %zu calls per step\n\n",
      pef.graph.nodes.size(), pef.graph.values.size(), pef.graph.params().size(), pef.plan.sections.size(),
      pef.plan.hypersections.size(), pef.plan.schedule.size());
}

// One row per section; returns the sum of their estimated latencies (us).
double printSectionTable(const pef::Pef& pef) {
  // Placed PCUs/PMUs and min/max latency come from the compile report (layer 3).
  auto placed = pef::placedSections(pef.reportJson);
  std::printf("%4s  %-28.28s %-9s %-24.24s %5s %5s %5s %7s %12s %12s %10s\n", "id", "section", "type", "hypersection", "nodes",
              "PCUs", "PMUs", "hops", "min_lat_us", "max_lat_us", "TFLOP");
  double total = 0;
  for (const auto& s : pef.plan.sections) {
    auto it = placed.find(s.id);
    pef::PlacedSection p = it != placed.end() ? it->second
                                              : pef::PlacedSection{s.estimate.pcus, s.estimate.pmus, 0,
                                                                   s.estimate.latencyUs, s.estimate.latencyUs};
    std::printf("%4d  %-28.28s %-9s %-24.24s %5zu %5lld %5lld %7lld %12.3f %12.3f %10.6f\n", s.id, s.name.c_str(),
                std::string(ir::roleName(s.type)).c_str(),
                pef.plan.hypersections.at(static_cast<size_t>(s.hypersection)).name.c_str(), s.nodes.size(),
                static_cast<long long>(p.pcus), static_cast<long long>(p.pmus), static_cast<long long>(p.hops), p.minUs,
                p.maxUs, s.estimate.flop / 1e12);
    total += s.estimate.latencyUs;
  }
  return total;
}

// Hypersection reuse, bitfiles, the step's estimate and the host memory of a CPU run.
void printReuseAndCost(const pef::Pef& pef, double totalUs) {
  const size_t sections = pef.plan.sections.size(), unique = pef.plan.hypersections.size();
  if (sections > 0)
    std::printf("\nhypersections: %zu sections compiled as %zu unique (%zu reuse a compiled bitfile, %.0f%% fewer compiles)\n",
                sections, unique, sections - unique, 100.0 * static_cast<double>(sections - unique) / static_cast<double>(sections));
  if (!pef.bitfiles.empty()) {
    int64_t hops = 0;
    for (const auto& b : pef.bitfiles) hops += b.totalHops();
    std::printf("\n%zu bitfiles (one per hypersection), %lld hops in all\n", pef.bitfiles.size(),
                static_cast<long long>(hops));
  }
  std::printf("\nestimated chip latency per step: %.3f us\n", totalUs);
  if (auto host = runtime::estimateHostMemory(pef.graph, pef.plan))
    std::printf("host memory for the CPU run: %.1f MiB (arena %.1f MiB for a step's intermediates, liveness-planned "
                "and fused; %.1f MiB params, state and inputs)\n",
                static_cast<double>(host->total()) / 1048576.0, static_cast<double>(host->arenaBytes) / 1048576.0,
                static_cast<double>(host->persistentBytes) / 1048576.0);
}

// --chip SECTION [--svg FILE]: a section that is not there is a usage error.
int printChip(const ArgParser& p, const pef::Pef& pef) {
  auto chip = analysis::chipModel(pef, p.get("--chip"));
  if (!chip) return usageError("inspect --chip: " + chip.error().message());
  if (!p.has("--svg")) {
    std::fputs(analysis::formatChip(*chip).c_str(), stdout);
    return 0;
  }
  if (auto st = support::writeFileAtomic(p.get("--svg"), analysis::chipSvg(*chip)); !st) return reportError(st.error());
  std::printf("wrote %s\n", p.get("--svg").c_str());
  return 0;
}

// --why, --memory, --roofline, --chip: one view of the PEF instead of the whole summary.
int printView(const ArgParser& p, const pef::Pef& pef) {
  if (p.has("--chip")) return printChip(p, pef);
  if (p.has("--why")) {
    std::fputs(analysis::formatBoundaries(pef.plan).c_str(), stdout);
    return 0;
  }
  auto arch = analysis::compiledArch(pef.meta);
  if (!arch) return reportError(arch.error());
  const bool csv = p.has("--csv");
  if (p.has("--memory")) {
    const analysis::MemoryTimeline m = analysis::memoryTimeline(pef.graph, pef.plan, *arch);
    std::fputs((csv ? analysis::memoryCsv(m, pef.plan) : analysis::formatMemory(m, pef.graph, pef.plan)).c_str(),
               stdout);
    return 0;
  }
  const analysis::Roofline r = analysis::roofline(pef.plan, *arch);
  std::fputs((csv ? analysis::rooflineCsv(r, pef.plan) : analysis::formatRoofline(r, pef.plan)).c_str(), stdout);
  return 0;
}

}  // namespace

int inspectCommand(const std::vector<std::string>& args) {
  ArgParser p = inspectFlags();
  if (auto err = p.parse(args); !err.empty()) return usageError(err);
  if (auto rc = applyMaxMemory(p)) return *rc;
  runtime::ConvAlgoRequest convAlgo = runtime::ConvAlgoRequest::Auto;
  if (auto rc = applyConvAlgo(p, convAlgo)) return *rc;
  if (p.has("--help")) {
    std::fputs(p.help(false).c_str(), stdout);
    return 0;
  }
  if (p.has("--run") && (p.has("--why") || p.has("--memory")))
    return usageError("inspect: --run goes alone or with --roofline");
  if (p.has("--run")) return p.has("--roofline") ? inspectRunRoofline(p) : inspectRun(p);
  if (p.has("--config") && pefPathArg(p).empty()) {  // no PEF: the knob table, with defaults and ranges
    std::fputs(driver::compilerKnobTable().c_str(), stdout);
    return 0;
  }
  const int views = p.has("--why") + p.has("--memory") + p.has("--roofline") + p.has("--chip");
  if (views > 1) return usageError("inspect: give one of --why, --memory, --roofline and --chip");
  if (p.has("--svg") && !p.has("--chip")) return usageError("inspect: --svg goes with --chip SECTION");
  if (p.has("--csv") && !p.has("--memory") && !p.has("--roofline"))
    return usageError("inspect: --csv goes with --memory or --roofline");
  auto pef = loadPefArg(p, "inspect");
  if (!pef) return reportError(pef.error());
  if (views == 1) return printView(p, *pef);
  printPefHeader(*pef);
  const double total = printSectionTable(*pef);
  printHypersections(pef->plan);
  printTiledOperators(*pef);
  printReuseAndCost(*pef, total);
  for (const std::string& line : driver::describeDataParallelReport(pef->reportJson)) std::printf("%s\n", line.c_str());
  for (const std::string& line : driver::describeDecodeReport(pef->reportJson)) std::printf("%s\n", line.c_str());
  for (const std::string& line : driver::describeDecisions(pef->meta.decisions)) std::printf("%s\n", line.c_str());
  for (const std::string& line : driver::describeSpatialTiling(pef->meta.spatialTiling)) std::printf("%s\n", line.c_str());
  for (const std::string& line : driver::describeConvAlgorithms(*pef, convAlgo)) std::printf("%s\n", line.c_str());
  for (const std::string& line : driver::describeFusedAttention(*pef)) std::printf("%s\n", line.c_str());
  if (p.has("--report")) std::printf("\n%s\n", pef->reportJson.c_str());
  if (p.has("--config")) printCompilerConfig(pef->meta.compilerConfig);
  return 0;
}

namespace {

// Measured times of `pefPath`'s latest finished run that measured its sections
// (a measure-performance run without --op-profile records none) into
// `measured`; returns where they came from. A store that cannot be read is an
// error, not "no recorded run".
Expected<std::string> measuredTimesOf(const std::string& dbPath, const std::string& pefPath,
                                      driver::MeasuredSections& measured) {
  auto store = driver::openStore(dbPath);
  if (!store) return store.error();
  auto latest = store->latestRunForPef(pefPath);
  if (!latest) return latest.error();
  auto used = store->latestMeasuredRunForPef(pefPath);
  if (!used) return used.error();
  if (!latest->has_value()) return std::string("no recorded run");
  if ((*latest)->status != "finished")
    std::printf("note: the latest run (#%lld, started %s) did not finish (%s); %s\n",
                static_cast<long long>((*latest)->id), (*latest)->startedAt.c_str(), (*latest)->status.c_str(),
                used->has_value() ? ("using run #" + std::to_string((*used)->id) + ", the latest that measured its sections").c_str()
                                  : "no finished run of this PEF measured its sections");
  if (!used->has_value()) return std::string("no measured times");
  auto calls = store->sectionCalls((*used)->id);
  if (!calls) return calls.error();
  for (const auto& c : *calls) {
    auto& m = measured[c.sectionId];
    m.first += c.durationUs;
    m.second += 1;
  }
  return "measured times from run #" + std::to_string((*used)->id);
}

}  // namespace

int reportCommand(const std::vector<std::string>& args) {
  ArgParser p("report", "Write section_report.csv for a PEF, with measured times of its latest recorded run.");
  p.add({{"-p", "--pef"}, "FILE", 1, "the PEF (or give it as the first argument)"});
  p.add({{"-o", "--output"}, "FILE", 1, "CSV path (default <pef dir>/section_report.csv)"});
  p.add({{"--db"}, "FILE", 1, "run store to take measured times from ('-' = none)"});
  addMaxMemoryFlag(p);
  p.add({{"-h", "--help"}, "", 0, "show this help"});
  if (auto err = p.parse(args); !err.empty()) return usageError(err);
  if (auto rc = applyMaxMemory(p)) return *rc;
  if (p.has("--help")) {
    std::fputs(p.help(false).c_str(), stdout);
    return 0;
  }
  auto pef = loadPefArg(p, "report");
  if (!pef) return reportError(pef.error());
  std::string pefPath = std::filesystem::absolute(pefPathArg(p)).lexically_normal().string();
  driver::MeasuredSections measured;  // section -> (sum us, calls)
  std::string source = "no recorded run";
  if (p.get("--db") != "-") {
    auto found = measuredTimesOf(p.get("--db"), pefPath, measured);
    if (!found) return reportError(found.error());
    source = *found;
  }
  std::string csv = driver::sectionReportCsv(driver::sectionReportRows(*pef, measured));
  std::string out = p.get("--output", (std::filesystem::path(pefPath).parent_path() / "section_report.csv").string());
  if (auto st = support::writeFileAtomic(out, csv); !st) return reportError(st.error());
  std::printf("wrote %s (%zu sections, %s)\n", out.c_str(), pef->plan.sections.size(), source.c_str());
  return 0;
}

}  // namespace dfc::cli
