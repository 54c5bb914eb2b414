#include <cstdio>
#include <filesystem>
#include <map>

#include "ArgParser.h"
#include "Commands.h"
#include "driver/StoreRecords.h"
#include "pef/Pef.h"
#include "support/FileUtil.h"

namespace dfc::cli {

namespace {

Expected<pef::Pef> loadPefArg(const ArgParser& p, const char* command) {
  auto pos = p.positional();
  std::string path = p.get("--pef", pos.empty() ? "" : pos.front());
  if (path.empty()) return makeError(std::string(command) + ": give a PEF (dfc " + command + " out/lenet/lenet.pef)");
  return pef::readPef(path);
}

std::string pefPathArg(const ArgParser& p) {
  auto pos = p.positional();
  return p.get("--pef", pos.empty() ? "" : pos.front());
}

}  // namespace

int inspectCommand(const std::vector<std::string>& args) {
  ArgParser p("inspect", "Print a PEF's metadata, sections and compile report.");
  p.add({{"-p", "--pef"}, "FILE", 1, "the PEF (or give it as the first argument)"});
  p.add({{"--report"}, "", 0, "also print the compile report JSON"});
  p.add({{"-h", "--help"}, "", 0, "show this help"});
  if (auto err = p.parse(args); !err.empty()) return usageError(err);
  if (p.has("--help")) {
    std::fputs(p.help(false).c_str(), stdout);
    return 0;
  }
  auto pef = loadPefArg(p, "inspect");
  if (!pef) return reportError(pef.error());
  const auto& m = pef->meta;
  std::printf("PEF %s (format %d.%d, dfc %s, %s)\n", m.pefName.c_str(), pef::kPefMajorVersion, pef::kPefMinorVersion,
              m.compilerVersion.c_str(), m.createdAt.c_str());
  std::printf("model %s, %s, batch %lld, -%s, arch %s\n", m.model.c_str(), m.inference ? "inference" : "training",
              static_cast<long long>(m.batchSize), m.optLevel.c_str(), m.arch.c_str());
  std::printf("graph: %zu nodes, %zu values, %zu parameters tensors; %zu sections, %zu hypersections, %zu calls per step\n\n",
              pef->graph.nodes.size(), pef->graph.values.size(), pef->graph.params().size(), pef->plan.sections.size(),
              pef->plan.hypersections.size(), pef->plan.schedule.size());
  std::printf("%4s  %-28s %-9s %-16s %5s %6s %6s %12s %10s\n", "id", "section", "type", "hyperfunction", "nodes", "PCUs",
              "PMUs", "est_lat_us", "MFLOP");
  double total = 0;
  for (const auto& s : pef->plan.sections) {
    std::printf("%4d  %-28s %-9s %-16s %5zu %6d %6d %12.3f %10.3f\n", s.id, s.name.c_str(),
                std::string(ir::roleName(s.type)).c_str(), s.hyperfunction.empty() ? "-" : s.hyperfunction.c_str(),
                s.nodes.size(), s.estimate.pcus, s.estimate.pmus, s.estimate.latencyUs, s.estimate.flop / 1e6);
    total += s.estimate.latencyUs;
  }
  std::printf("\nestimated chip latency per step: %.3f us\n", total);
  if (p.has("--report")) std::printf("\n%s\n", pef->reportJson.c_str());
  return 0;
}

int reportCommand(const std::vector<std::string>& args) {
  ArgParser p("report", "Write section_report.csv for a PEF, with measured times of its latest recorded run.");
  p.add({{"-p", "--pef"}, "FILE", 1, "the PEF (or give it as the first argument)"});
  p.add({{"-o", "--output"}, "FILE", 1, "CSV path (default <pef dir>/section_report.csv)"});
  p.add({{"--db"}, "FILE", 1, "run store to take measured times from ('-' = none)"});
  p.add({{"-h", "--help"}, "", 0, "show this help"});
  if (auto err = p.parse(args); !err.empty()) return usageError(err);
  if (p.has("--help")) {
    std::fputs(p.help(false).c_str(), stdout);
    return 0;
  }
  auto pef = loadPefArg(p, "report");
  if (!pef) return reportError(pef.error());
  std::string pefPath = std::filesystem::absolute(pefPathArg(p)).lexically_normal().string();
  std::map<int, std::pair<double, int64_t>> measured;  // section -> (sum us, calls)
  if (p.get("--db") != "-") {
    auto store = driver::openStore(p.get("--db"));
    if (store) {
      auto run = store->latestRunForPef(pefPath);
      if (run && *run) {
        auto calls = store->sectionCalls((*run)->id);
        if (calls)
          for (const auto& c : *calls) {
            auto& m = measured[c.sectionId];
            m.first += c.durationUs;
            m.second += 1;
          }
      }
    }
  }
  std::string csv = "section_id,name,type,hyperfunction,hypersection,pcus,pmus,est_latency_us,tflop,calls,measured_mean_us\n";
  for (const auto& s : pef->plan.sections) {
    char line[512];
    auto it = measured.find(s.id);
    double mean = it == measured.end() || it->second.second == 0 ? 0 : it->second.first / it->second.second;
    std::snprintf(line, sizeof line, "%d,%s,%s,%s,%s,%d,%d,%.4f,%.9f,%lld,%.4f\n", s.id, s.name.c_str(),
                  std::string(ir::roleName(s.type)).c_str(), s.hyperfunction.c_str(),
                  pef->plan.hypersections.at(static_cast<size_t>(s.hypersection)).name.c_str(), s.estimate.pcus,
                  s.estimate.pmus, s.estimate.latencyUs, s.estimate.flop / 1e12,
                  static_cast<long long>(it == measured.end() ? 0 : it->second.second), mean);
    csv += line;
  }
  std::string out = p.get("--output", (std::filesystem::path(pefPath).parent_path() / "section_report.csv").string());
  if (auto st = support::writeFileAtomic(out, csv); !st) return reportError(st.error());
  std::printf("wrote %s (%zu sections%s)\n", out.c_str(), pef->plan.sections.size(),
              measured.empty() ? ", no recorded run" : ", measured times from the latest run");
  return 0;
}

}  // namespace dfc::cli
