#include "driver/CompilerConfig.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <functional>
#include <type_traits>

#include "support/FileUtil.h"
#include "support/JsonWriter.h"

namespace dfc::driver {
namespace {

// One knob: its key, what it does, the range a value must lie in, whether it
// is a whole number, and how it reads and writes the configuration.
struct Knob {
  const char* key;
  const char* doc;
  double min, max;
  bool integer;
  std::function<void(CompilerConfig&, double)> set;
  std::function<double(const CompilerConfig&)> get;
};

template <typename Group, typename Field>
Knob knob(const char* key, const char* doc, double min, double max, Group kernelc::LinkOptions::*group,
          Field Group::*field) {
  auto set = [group, field](CompilerConfig& c, double v) { (c.link.*group).*field = static_cast<Field>(v); };
  auto get = [group, field](const CompilerConfig& c) { return static_cast<double>((c.link.*group).*field); };
  return Knob{key, doc, min, max, !std::is_floating_point_v<Field>, set, get};
}

const std::vector<Knob>& knobs() {
  using kernelc::LinkOptions;
  using kernelc::PlacerOptions;
  using kernelc::RouterOptions;
  static const std::vector<Knob> kKnobs = {
      knob("placer.anneal", "1: simulated annealing after greedy seeding; 0: greedy only", 0, 1, &LinkOptions::placer,
           &PlacerOptions::anneal),
      knob("placer.inner_num", "annealing moves per temperature = inner_num * n^(4/3)", 1e-3, 100, &LinkOptions::placer,
           &PlacerOptions::innerNum),
      knob("placer.max_moves", "annealing moves per bitfile, all temperatures together", 0, 1e8, &LinkOptions::placer,
           &PlacerOptions::maxMoves),
      knob("placer.initial_temp_scale", "starting temperature, in standard deviations of random moves' cost changes",
           1e-3, 100, &LinkOptions::placer, &PlacerOptions::initialTempScale),
      knob("placer.exit_epsilon", "stop when the temperature falls below this many hops per edge", 1e-6, 1,
           &LinkOptions::placer, &PlacerOptions::exitEpsilon),
      knob("placer.median_move_rate", "share of moves aimed next to the neighbours' median", 0, 1, &LinkOptions::placer,
           &PlacerOptions::medianMoveRate),
      knob("placer.seed", "random seed of the annealer", 0, 4294967295.0, &LinkOptions::placer, &PlacerOptions::seed),
      knob("router.link_tracks", "routes one on-chip link carries (0: the arch's)", 0, 1024, &LinkOptions::router,
           &RouterOptions::linkTracks),
      knob("router.max_iterations", "negotiated-congestion passes at most", 1, 1000, &LinkOptions::router,
           &RouterOptions::maxIterations),
      knob("router.stall_iterations", "stop after this many passes without fewer overused links", 1, 1000,
           &LinkOptions::router, &RouterOptions::stallIterations),
      knob("router.box_margin", "cells a net's search may leave its bounding box by", 0, 1000, &LinkOptions::router,
           &RouterOptions::boxMargin),
      knob("router.initial_pres_fac", "present-congestion factor after the first pass", 0, 1e6, &LinkOptions::router,
           &RouterOptions::initialPresFac),
      knob("router.pres_fac_mult", "growth of the present-congestion factor per pass", 1, 100, &LinkOptions::router,
           &RouterOptions::presFacMult),
      knob("router.max_pres_fac", "cap of the present-congestion factor", 0, 1e9, &LinkOptions::router,
           &RouterOptions::maxPresFac),
      knob("router.hist_fac", "weight of a link's congestion history", 0, 1e6, &LinkOptions::router,
           &RouterOptions::histFac),
  };
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

  Error at(const YAML::Node& n, const std::string& what) const {
    return makeError(path + ":" + std::to_string(n.Mark().line + 1) + ": " + what);
  }

  Status setValue(const std::string& key, const YAML::Node& value, const YAML::Node& keyNode) {
    const Knob* k = nullptr;
    for (const Knob& candidate : knobs())
      if (key == candidate.key) k = &candidate;
    if (!k) return at(keyNode, "unknown key '" + key + "' (known: " + knownKeys() + ")");
    const std::string text = value.IsScalar() ? value.Scalar() : std::string("(not a number)");
    double v = 0;
    bool ok = value.IsScalar();
    if (ok && (text == "true" || text == "false"))
      v = text == "true";
    else if (ok)
      ok = YAML::convert<double>::decode(value, v) && std::isfinite(v);
    if (!ok || v < k->min || v > k->max || (k->integer && v != std::floor(v)))
      return at(value, "key '" + key + "': expected " + (k->integer ? "a whole number" : "a number") + " in [" +
                           YAML::Node(k->min).Scalar() + ", " + YAML::Node(k->max).Scalar() + "], got '" + text + "'");
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
  for (const Knob& k : knobs()) out.push_back({k.key, k.doc});
  return out;
}

Expected<CompilerConfig> loadCompilerConfig(const std::string& path) {
  auto text = support::readFile(path);
  if (!text) return text.error().withContext("--compiler-configs-file");
  return parseCompilerConfig(*text, path);
}

Expected<CompilerConfig> parseCompilerConfig(const std::string& text, const std::string& path) {
  Reader reader{path, {}};
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
    if (k.integer)
      w.field(k.key, static_cast<int64_t>(v));
    else
      w.field(k.key, v);
  }
  w.endObject();
  return w.take();
}

}  // namespace dfc::driver
