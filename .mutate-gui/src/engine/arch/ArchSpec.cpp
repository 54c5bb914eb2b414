#include "arch/ArchSpec.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>
#include <variant>

#include "support/FileUtil.h"

namespace dfc::arch {

std::vector<std::string> archPresetNames() { return {"sn10", "sn20", "sn30", "sn40l"}; }
std::string defaultArchName() { return "sn30"; }

namespace {

// Arch files are looked up next to the installed binary first, then in the source tree.
std::string presetPath(const std::string& name) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (fs::path candidate : {exe.parent_path() / "../share/dataflow-studio/arch", exe.parent_path() / "../resources/arch"}) {
      fs::path p = candidate / (name + ".yaml");
      if (fs::exists(p, ec)) return p.string();
    }
  }
  return std::string(DFC_RESOURCE_DIR) + "/arch/" + name + ".yaml";
}

}  // namespace

namespace {

// One arch figure: its key, where it goes, and the range it must lie in. The
// ranges keep every product the cost model and the placer form (chips x tiles
// x units, grid cells, lanes x stages x clock) far inside int and double.
struct Field {
  const char* key;
  std::variant<int ArchSpec::*, double ArchSpec::*> member;
  double min, max;
  bool required;
  // 0 is the file's way to say "absent" (no HBM, no limit, PCIe's link); any
  // other value must lie in min..max: a bandwidth of 1e-300 GB/s once made
  // every time infinite.
  bool zeroMeansAbsent = false;
};

const Field kFields[] = {
    {"tiles", &ArchSpec::tiles, 1, 1024, true},
    {"pcus_per_tile", &ArchSpec::pcusPerTile, 1, 65536, true},
    {"pmus_per_tile", &ArchSpec::pmusPerTile, 1, 65536, true},
    {"pmu_bytes", &ArchSpec::pmuBytes, 1, 1099511627776.0, true},
    {"pcu_lanes", &ArchSpec::pcuLanes, 1, 4096, true},
    {"pcu_stages", &ArchSpec::pcuStages, 1, 1024, true},
    {"clock_ghz", &ArchSpec::clockGhz, 1e-3, 100, true},
    {"peak_tflops", &ArchSpec::peakTflops, 1e-6, 1e6, true},
    {"ddr_gbps", &ArchSpec::ddrGbps, 1e-3, 1e6, true},
    {"hbm_gbps", &ArchSpec::hbmGbps, 1e-3, 1e6, false, true},
    {"hbm_efficiency", &ArchSpec::hbmEfficiency, 0.01, 1, false},
    {"pcie_gbps", &ArchSpec::pcieGbps, 1e-3, 1e6, true},
    {"hbm_bytes", &ArchSpec::hbmBytes, 1, 1e15, false, true},
    {"ddr_bytes", &ArchSpec::ddrBytes, 1, 1e15, false, true},
    {"chip_link_gbps", &ArchSpec::chipLinkGbps, 1e-3, 1e6, false, true},
    {"chip_link_latency_us", &ArchSpec::chipLinkLatencyUs, 0, 1e6, false},
    {"network_hop_ns", &ArchSpec::networkHopNs, 0, 1e6, false},
    {"grid_rows", &ArchSpec::gridRows, 0, 4096, false},
    {"grid_cols", &ArchSpec::gridCols, 0, 4096, false},
    {"network_link_gbps", &ArchSpec::networkLinkGbps, 1e-3, 1e6, false, true},
    {"network_link_tracks", &ArchSpec::networkLinkTracks, 0, 1024, false},
    {"dp_link_gbps", &ArchSpec::dpLinkGbps, 1e-3, 1e6, false},
    {"dp_link_latency_us", &ArchSpec::dpLinkLatencyUs, 0, 1e6, false},
};

std::string rangeText(const Field& f) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%sin %g..%g", f.zeroMeansAbsent ? "0 or " : "", f.min, f.max);
  return buf;
}

// Reads one figure as a finite number in its range (NaN, inf and 1e400 are refused).
Status readField(const YAML::Node& root, const Field& f, ArchSpec& a, const std::string& source) {
  YAML::Node n = root[f.key];
  if (!n) return f.required ? makeError(source + ": missing key '" + f.key + "'") : Status{};
  double v = 0;
  try {
    if (!n.IsScalar()) throw YAML::Exception(YAML::Mark::null_mark(), "not a scalar");
    v = n.as<double>();
  } catch (const YAML::Exception&) {
    return makeError(source + ": key '" + f.key + "' is not a number");
  }
  const bool isInt = std::holds_alternative<int ArchSpec::*>(f.member);
  const bool absent = f.zeroMeansAbsent && v == 0;
  if (!std::isfinite(v) || (!absent && (v < f.min || v > f.max)) || (isInt && v != std::floor(v)))
    return makeError(source + ": key '" + f.key + "' is " + n.Scalar() + "; it must be " + (isInt ? "an integer " : "") +
                     rangeText(f));
  if (isInt) a.*std::get<int ArchSpec::*>(f.member) = static_cast<int>(v);
  else a.*std::get<double ArchSpec::*>(f.member) = v;
  return {};
}

// A key the file gives that no figure reads is a typo ("pcu_lane: 64") that
// would silently leave the default: refused, naming the key and the known ones.
Status refuseUnknownKeys(const YAML::Node& root, const std::string& source) {
  std::set<std::string> seen;
  for (const auto& item : root) {
    const std::string key = item.first.IsScalar() ? item.first.Scalar() : std::string("(not a name)");
    bool known = key == "name";
    for (const Field& f : kFields) known |= key == f.key;
    if (!known) {
      std::string list = "name";
      for (const Field& f : kFields) list += std::string(", ") + f.key;
      return makeError(source + ":" + std::to_string(item.first.Mark().line + 1) + ": unknown key '" + clipped(key) +
                       "' (known: " + list + ")");
    }
    if (!seen.insert(key).second)
      return makeError(source + ":" + std::to_string(item.first.Mark().line + 1) + ": key '" + key + "' is given twice");
  }
  return {};
}

}  // namespace

Expected<ArchSpec> parseArchYaml(const std::string& text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return makeError(source + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (!root.IsMap()) return makeError(source + ": expected a mapping of arch figures");
  ArchSpec a;
  if (YAML::Node name = root["name"]) {
    if (!name.IsScalar() || name.Scalar().empty()) return makeError(source + ": key 'name' must be a plain string");
    a.name = name.Scalar();
  } else {
    a.name = std::filesystem::path(source).stem().string();
  }
  DFC_TRY(refuseUnknownKeys(root, source));
  for (const Field& f : kFields) DFC_TRY(readField(root, f, a, source));
  if (a.hbmBytes > 0 && a.hbmGbps <= 0)
    return makeError(source + ": key 'hbm_bytes' gives HBM capacity but 'hbm_gbps' is 0 (no HBM)");
  if ((a.gridRows > 0) != (a.gridCols > 0)) return makeError(source + ": give both grid_rows and grid_cols, or neither");
  if (a.gridRows <= 0) {  // near-square grid holding every unit of a tile
    int units = a.pcusPerTile + a.pmusPerTile;
    a.gridRows = std::max(1, static_cast<int>(std::sqrt(static_cast<double>(units))));
    a.gridCols = (units + a.gridRows - 1) / a.gridRows;
  }
  // The checkerboard must hold the tile's PCUs and PMUs, and not be mostly empty:
  // the placer anneals over every cell (rows and cols <= 4096: no overflow).
  int cells = a.gridRows * a.gridCols, units = a.pcusPerTile + a.pmusPerTile;
  if (cells > 4 * units + 64)
    return makeError(source + ": a " + std::to_string(a.gridRows) + "x" + std::to_string(a.gridCols) + " grid has " +
                     std::to_string(cells) + " cells for " + std::to_string(units) + " units; at most 4 per unit");
  if ((cells + 1) / 2 < a.pcusPerTile || cells / 2 < a.pmusPerTile)
    return makeError(source + ": a " + std::to_string(a.gridRows) + "x" + std::to_string(a.gridCols) +
                     " grid cannot hold " + std::to_string(a.pcusPerTile) + " PCUs and " + std::to_string(a.pmusPerTile) +
                     " PMUs in a checkerboard");
  return a;
}

Expected<ArchSpec> loadArch(const std::string& nameOrPath) {
  std::string name = nameOrPath == "native" || nameOrPath.empty() ? defaultArchName() : nameOrPath;
  bool isPreset = false;
  for (const auto& preset : archPresetNames()) isPreset |= preset == name;
  std::string path = isPreset ? presetPath(name) : name;
  std::error_code ec;  // a name too long for a path is "not there", not an exception
  if (!isPreset && !std::filesystem::exists(path, ec))
    return makeError("--arch " + nameOrPath.substr(0, 200) + ": not a preset (sn10, sn20, sn30, sn40l, native) nor a file");
  auto text = support::readFile(path);
  if (!text) return text.error();
  return parseArchYaml(*text, path);
}

Expected<ArchSpec> loadArchPreset(const std::string& name, const std::string& what) {
  const std::string preset = name == "native" || name.empty() ? defaultArchName() : name;
  for (const auto& known : archPresetNames())
    if (known == preset) return loadArch(preset);
  return makeError(what + " '" + name.substr(0, 80) +
                   "' is not a preset (sn10, sn20, sn30, sn40l): give the arch file it was compiled for with --arch FILE");
}

Expected<ArchSpec> scaleArch(const ArchSpec& arch, int nChips, int numTiles, int maxChips) {
  if (nChips < 1 || nChips > maxChips)
    return makeError("--n-chips " + std::to_string(nChips) + ": must be 1.." + std::to_string(maxChips) +
                     (maxChips < kMaxInferenceChips ? " (up to 16 with --inference)" : ""));
  if (numTiles != 0 && numTiles != 1 && numTiles != 2 && numTiles != 4 && numTiles != 8)
    return makeError("--num-tiles " + std::to_string(numTiles) + ": must be 1, 2, 4 or 8");
  if (numTiles > arch.tiles)
    return makeError("--num-tiles " + std::to_string(numTiles) + ": " + arch.name + " has " + std::to_string(arch.tiles) +
                     " tiles");
  ArchSpec a = arch;
  if (numTiles > 0 && numTiles < arch.tiles) {
    a.peakTflops = arch.peakTflops * numTiles / arch.tiles;
    a.tiles = numTiles;
  }
  a.chips = nChips;
  a.peakTflops *= nChips;  // each chip brings its own compute and memory channels
  a.ddrGbps *= nChips;
  a.hbmGbps *= nChips;
  return a;
}

}  // namespace dfc::arch
