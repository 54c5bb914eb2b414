#include "driver/compile/CompilerConfig.h"

#include <spdlog/fmt/fmt.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <functional>
#include <set>
#include <string_view>
#include <type_traits>
#include <utility>

#include "support/FileUtil.h"
#include "support/JsonWriter.h"

namespace dfc::driver {
namespace {

// One knob: its key, what it does, the range a value must lie in, its type,
// and how it reads and writes the configuration.
struct Knob {
  const char* key;
  const char* doc;
  double min, max;
  const char* type;  // "bool", "integer" or "number"
  std::function<void(CompilerConfig&, double)> set;
  std::function<double(const CompilerConfig&)> get;
};

// A knob at the end of a chain of members: knob(..., &CompilerConfig::link, &LinkOptions::placer,
// &PlacerOptions::seed).
template <typename... Members>
Knob knob(const char* key, const char* doc, double min, double max, Members... path) {
  auto set = [=](CompilerConfig& c, double v) {
    auto& field = (c.*....*path);
    field = static_cast<std::remove_reference_t<decltype(field)>>(v);
  };
  auto get = [=](const CompilerConfig& c) { return static_cast<double>((c.*....*path)); };
  using Field = std::remove_cvref_t<decltype((std::declval<CompilerConfig&>().*....*path))>;
  const char* type = std::is_same_v<Field, bool> ? "bool" : std::is_integral_v<Field> ? "integer" : "number";
  return Knob{key, doc, min, max, type, set, get};
}

std::vector<Knob> frontKnobs() {
  using C = CompilerConfig;
  return {
      knob("fusion.match_steps_per_anchor", "-o1: steps the match search may take from one anchor node", 1, 1e9,
           &C::fusion, &FusionConfig::matchStepsPerAnchor),
      knob("fusion.max_subgraph_ops", "-o1/-o3: a fused subgraph of more operators is split (0: no limit)", 0, 1e9,
           &C::fusion, &FusionConfig::maxSubgraphOps),
      knob("mapping.max_section_ops", "operators per section at most (0: no cap)", 0, 1e9, &C::mapping,
           &MappingConfig::maxSectionOps),
      knob("mapping.max_section_pcus", "PCUs a section may use at most, below the scaled chip (0: no cap)", 0, 1e9,
           &C::mapping, &MappingConfig::maxSectionPcus),
      knob("cost.target_cycles", "an operator's PCUs are sized to finish one call in this many cycles", 1, 1e9,
           &C::cost, &arch::CostConstants::targetCycles),
      knob("cost.max_op_share", "one operator takes at most 1/this of the chips' PCUs", 1, 1024, &C::cost,
           &arch::CostConstants::maxOpShare),
      knob("cost.default_link_gbps", "on-chip link bandwidth (GB/s) when the arch file gives none", 1e-3, 1e6, &C::cost,
           &arch::CostConstants::defaultLinkGbps),
      knob("allreduce.bucket_kb", "--data-parallel gradient bucket KiB (0: the cost model's; the flag wins)", 0, 1e9,
           &C::allreduce, &AllreduceConfig::bucketKb),
      knob("allreduce.bandwidth_share", "the cost model's bucket: smallest whose transfer is this share of its time",
           0.01, 0.99, &C::allreduce, &AllreduceConfig::bandwidthShare),
  };
}

std::vector<Knob> linkKnobs() {
  using C = CompilerConfig;
  using kernelc::LinkOptions;
  using kernelc::PlacerOptions;
  using kernelc::RouterOptions;
  const auto placer = &LinkOptions::placer;
  const auto router = &LinkOptions::router;
  return {
      knob("placer.anneal", "1: simulated annealing after greedy seeding; 0: greedy only", 0, 1, &C::link, placer,
           &PlacerOptions::anneal),
      knob("placer.inner_num", "annealing moves per temperature = inner_num * n^(4/3)", 1e-3, 100, &C::link, placer,
           &PlacerOptions::innerNum),
      knob("placer.max_moves", "annealing moves per bitfile, all temperatures together", 0, 1e8, &C::link, placer,
           &PlacerOptions::maxMoves),
      knob("placer.initial_temp_scale", "starting temperature, in standard deviations of random moves' cost changes",
           1e-3, 100, &C::link, placer, &PlacerOptions::initialTempScale),
      knob("placer.exit_epsilon", "stop when the temperature falls below this many hops per edge", 1e-6, 1, &C::link,
           placer, &PlacerOptions::exitEpsilon),
      knob("placer.median_move_rate", "share of moves aimed next to the neighbours' median", 0, 1, &C::link, placer,
           &PlacerOptions::medianMoveRate),
      knob("placer.seed", "random seed of the annealer", 0, 4294967295.0, &C::link, placer, &PlacerOptions::seed),
      knob("placer.bounded_moves_per_kernel", "--mac-v2's bounded schedule: annealing moves per kernel", 0, 1e6,
           &C::link, placer, &PlacerOptions::boundedMovesPerKernel),
      knob("placer.bounded_max_moves", "--mac-v2's bounded schedule: annealing moves per bitfile at most", 0, 1e8,
           &C::link, placer, &PlacerOptions::boundedMaxMoves),
      knob("router.link_tracks", "routes one on-chip link carries (0: the arch's)", 0, 1024, &C::link, router,
           &RouterOptions::linkTracks),
      knob("router.max_iterations", "negotiated-congestion passes at most", 1, 1000, &C::link, router,
           &RouterOptions::maxIterations),
      knob("router.stall_iterations", "stop after this many passes without fewer overused links", 1, 1000, &C::link,
           router, &RouterOptions::stallIterations),
      knob("router.box_margin", "cells a net's search may leave its bounding box by", 0, 1000, &C::link, router,
           &RouterOptions::boxMargin),
      knob("router.initial_pres_fac", "present-congestion factor after the first pass", 0, 1e6, &C::link, router,
           &RouterOptions::initialPresFac),
      knob("router.pres_fac_mult", "growth of the present-congestion factor per pass", 1, 100, &C::link, router,
           &RouterOptions::presFacMult),
      knob("router.max_pres_fac", "cap of the present-congestion factor", 0, 1e9, &C::link, router,
           &RouterOptions::maxPresFac),
      knob("router.hist_fac", "weight of a link's congestion history", 0, 1e6, &C::link, router,
           &RouterOptions::histFac),
      knob("router.time_limit_s", "seconds within which every routing pass of a compile starts (then it stops)", 1,
           86400, &C::link, &LinkOptions::routeSeconds),
  };
}

// The one table, in listing order.
const std::vector<Knob>& knobs() {
  static const std::vector<Knob> kKnobs = [] {
    std::vector<Knob> all = frontKnobs();
    for (Knob& k : linkKnobs()) all.push_back(std::move(k));
    return all;
  }();
  return kKnobs;
}

std::string knownKeys() {
  std::string out;
  for (const Knob& k : knobs()) out += (out.empty() ? "" : ", ") + std::string(k.key);
  return out;
}

struct Reader {
  const std::string& path;
  CompilerConfig config;
  std::set<std::string> seen;  // knobs set so far: a second value for one is an error, not a silent override

  Error at(const YAML::Node& n, const std::string& what) const {
    return makeError(path + ":" + std::to_string(n.Mark().line + 1) + ": " + what);
  }

  Status setValue(const std::string& key, const YAML::Node& value, const YAML::Node& keyNode) {
    const Knob* k = nullptr;
    for (const Knob& candidate : knobs())
      if (key == candidate.key) k = &candidate;
    if (!k) return at(keyNode, "unknown key '" + key + "' (known: " + knownKeys() + ")");
    const std::string text = value.IsScalar() ? clipped(value.Scalar()) : std::string("(not a number)");
    // Only a plain scalar is a number: '1' and !!str 5 are strings. true and
    // false are numbers only for a switch (placer.anneal).
    const bool integer = std::string_view(k->type) != "number";
    const bool isSwitch = std::string_view(k->type) == "bool";
    double v = 0;
    bool ok = value.IsScalar() && value.Tag() == "?";
    if (ok && (text == "true" || text == "false"))
      ok = isSwitch, v = text == "true";
    else if (ok)
      ok = YAML::convert<double>::decode(value, v) && std::isfinite(v);
    if (!ok || v < k->min || v > k->max || (integer && v != std::floor(v)))
      return at(value, "key '" + key + "': expected " + (integer ? "a whole number" : "a number") + " in [" +
                           YAML::Node(k->min).Scalar() + ", " + YAML::Node(k->max).Scalar() + "], got '" + text + "'");
    if (!seen.insert(k->key).second) return at(keyNode, "key '" + key + "' is given twice");
    k->set(config, v);
    return {};
  }

  // Flat "group.knob: value" keys, or one level of "group: {knob: value}".
  Status readMap(const YAML::Node& map, const std::string& prefix) {
    for (const auto& item : map) {
      const std::string key = prefix + item.first.Scalar();
      if (prefix.empty() && item.second.IsMap()) {
        DFC_TRY(readMap(item.second, key + "."));
        continue;
      }
      DFC_TRY(setValue(key, item.second, item.first));
    }
    return {};
  }
};

}  // namespace

std::vector<CompilerKnobInfo> compilerKnobs() {
  std::vector<CompilerKnobInfo> out;
  const CompilerConfig defaults;
  for (const Knob& k : knobs()) out.push_back({k.key, k.type, k.get(defaults), k.min, k.max, k.doc});
  return out;
}

namespace {

// Whole numbers in full (4294967295, not 4.29497e+09), others as %g.
std::string knobNumber(double v) {
  return v == std::floor(v) && std::fabs(v) < 1e15 ? fmt::format("{}", static_cast<int64_t>(v))
                                                   : fmt::format("{:g}", v);
}

}  // namespace

std::string compilerKnobTable() {
  std::string out = fmt::format("{:<30} {:<8} {:>10}  {:<24} {}\n", "key", "type", "default", "range", "what it does");
  for (const CompilerKnobInfo& k : compilerKnobs())
    out += fmt::format("{:<30} {:<8} {:>10}  {:<24} {}\n", k.key, k.type, knobNumber(k.defaultValue),
                       "[" + knobNumber(k.min) + ", " + knobNumber(k.max) + "]", k.doc);
  return out;
}

Expected<CompilerConfig> loadCompilerConfig(const std::string& path) {
  auto text = support::readFile(path);
  if (!text) return text.error().withContext("--compiler-configs-file");
  return parseCompilerConfig(*text, path);
}

Expected<CompilerConfig> parseCompilerConfig(const std::string& text, const std::string& path) {
  Reader reader{path, {}, {}};
  try {
    YAML::Node root = YAML::Load(text);
    if (root.IsNull()) return reader.config;  // an empty file: the defaults
    if (!root.IsMap()) return reader.at(root, "expected a map of compiler knobs (known: " + knownKeys() + ")");
    DFC_TRY(reader.readMap(root, ""));
  } catch (const YAML::Exception& e) {
    return makeError(path + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  return reader.config;
}

std::string compilerConfigJson(const CompilerConfig& config) {
  support::JsonWriter w;
  w.beginObject();
  for (const Knob& k : knobs()) {
    const double v = k.get(config);
    if (std::string_view(k.type) != "number")
      w.field(k.key, static_cast<int64_t>(v));
    else
      w.field(k.key, v);
  }
  w.endObject();
  return w.take();
}

std::string storedKnobValue(const std::string& json, const CompilerKnobInfo& knob) {
  const std::string quoted = "\"" + knob.key + "\":";
  const size_t at = json.find(quoted);
  if (at == std::string::npos) return knobNumber(knob.defaultValue);
  const size_t from = at + quoted.size(), to = json.find_first_of(",}", from);
  return json.substr(from, to - from);
}

void applyMappingConfig(const CompilerConfig& config, mapping::MappingOptions& options) {
  options.maxSectionOps = config.mapping.maxSectionOps;
  options.maxSectionPcus = config.mapping.maxSectionPcus;
}

}  // namespace dfc::driver
