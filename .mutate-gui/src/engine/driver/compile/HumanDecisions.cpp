#include "driver/compile/HumanDecisions.h"

#include <fmt/format.h>
#include <simdjson.h>
#include <spdlog/spdlog.h>

#include "driver/JsonNumber.h"
#include "driver/compile/CompileStages.h"
#include "mapping/ApplyDecisions.h"

namespace dfc::driver {

namespace {

mapping::DecisionContext contextOf(const CompileState& s) {
  return {s.opts.modelParallel, s.opts.nChips};
}

}  // namespace

Status applyHumanDecisions(CompileState& s) {
  if (s.opts.macHumanDecision.empty()) return {};
  auto applied = mapping::applyDecisions(s.pef.graph, s.subgraphs, s.resolved.decisions, *s.cost, s.mappingOptions,
                                         contextOf(s));
  if (!applied) return applied.error();
  s.decisions = std::move(*applied);
  spdlog::info("{}: {} decisions applied ({} subgraphs to map)", s.resolved.decisions.path,
               s.resolved.decisions.decisions.size(), s.subgraphs.size());
  return {};
}

Status finishHumanDecisions(CompileState& s) {
  if (s.opts.macHumanDecision.empty()) return {};
  const mapping::DecisionFile& file = s.resolved.decisions;
  auto placement = mapping::finishDecisions(s.pef.graph, s.pef.plan, file, s.decisions, s.resolved.arch.pcieGbps);
  if (!placement) return placement.error();
  if (s.opts.modelParallel)
    spdlog::info("model parallel over {} chips: {} values cross chips, {:.1f} KB, {:.2f} us over PCIe", s.opts.nChips,
                 placement->crossings, placement->transferBytes / 1e3, placement->transferUs);
  s.pef.meta.decisions = mapping::decisionsJson(file, s.decisions, s.pef.plan, *placement, contextOf(s));
  return {};
}

namespace {

std::string text(simdjson::dom::element e, const char* key) {
  std::string_view sv;
  return e[key].get(sv) ? std::string() : std::string(sv);
}

std::string sectionList(simdjson::dom::element d) {
  simdjson::dom::array sections;
  std::string out;
  if (d["sections"].get(sections)) return out;
  size_t n = 0;
  for (simdjson::dom::element s : sections) {
    int64_t id = 0;
    if (s.get(id)) continue;
    if (n++ < 8) out += (out.empty() ? "" : ", ") + std::to_string(id);
  }
  if (n > 8) out += fmt::format(" ... ({})", n);
  return out.empty() ? "-" : out;
}

}  // namespace

std::vector<std::string> describeDecisions(const std::string& json) {
  if (json.empty()) return {};
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(json).get(root)) return {"decisions: (unreadable record)"};
  bool modelParallel = false;
  if (root["model_parallel"].get(modelParallel)) modelParallel = false;
  std::vector<std::string> lines;
  lines.push_back(fmt::format("decisions from {}{}:", text(root, "file"),
                              modelParallel ? fmt::format(" (model parallel over {:.0f} chips)", jsonNumber(root, "chips"))
                                            : std::string()));
  simdjson::dom::array decisions;
  if (!root["decisions"].get(decisions))
    for (simdjson::dom::element d : decisions) {
      const std::string kind = text(d, "kind"), role = text(d, "role");
      const double chip = jsonNumber(d, "chip");
      lines.push_back(fmt::format("  line {:>3.0f}  {:<10} {}{}{}: {:.0f} operators, sections {}", jsonNumber(d, "line"), kind,
                                  text(d, "patterns"), role.empty() ? "" : " (" + role + ")",
                                  chip >= 0 ? fmt::format(" -> chip {:.0f}", chip) : std::string(),
                                  jsonNumber(d, "operators"), sectionList(d)));
    }
  simdjson::dom::array chips;
  if (modelParallel && !root["section_chips"].get(chips)) {
    std::vector<int> perChip;
    for (simdjson::dom::element c : chips) {
      int64_t chip = 0;
      if (c.get(chip) || chip < 0 || chip > 64) continue;
      if (perChip.size() <= static_cast<size_t>(chip)) perChip.resize(static_cast<size_t>(chip) + 1, 0);
      ++perChip[static_cast<size_t>(chip)];
    }
    std::string split;
    for (size_t c = 0; c < perChip.size(); ++c) split += fmt::format("{}chip {}: {} sections", c ? ", " : "", c, perChip[c]);
    simdjson::dom::element t;
    if (!root["chip_transfers"].get(t))
      lines.push_back(fmt::format("  {}; {:.0f} values cross chips, {:.1f} KB, {:.3f} us over PCIe per step", split,
                                  jsonNumber(t, "crossings"), jsonNumber(t, "bytes") / 1e3, jsonNumber(t, "us")));
  }
  return lines;
}

}  // namespace dfc::driver
