#include "arch/ArchSpec.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

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

Expected<ArchSpec> parseArchYaml(const std::string& text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return makeError(source + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (!root.IsMap()) return makeError(source + ": expected a mapping of arch figures");
  ArchSpec a;
  std::string missing;
  auto num = [&](const char* key, auto& out, bool required = true) {
    YAML::Node n = root[key];
    if (!n) {
      if (required && missing.empty()) missing = key;
      return;
    }
    try {
      out = n.as<std::remove_reference_t<decltype(out)>>();
    } catch (const YAML::Exception&) {
      if (missing.empty()) missing = std::string(key) + " (not a number)";
    }
  };
  a.name = root["name"] ? root["name"].as<std::string>() : std::filesystem::path(source).stem().string();
  num("tiles", a.tiles);
  num("pcus_per_tile", a.pcusPerTile);
  num("pmus_per_tile", a.pmusPerTile);
  num("pmu_bytes", a.pmuBytes);
  num("pcu_lanes", a.pcuLanes);
  num("pcu_stages", a.pcuStages);
  num("clock_ghz", a.clockGhz);
  num("peak_tflops", a.peakTflops);
  num("ddr_gbps", a.ddrGbps);
  num("hbm_gbps", a.hbmGbps, false);
  num("pcie_gbps", a.pcieGbps);
  num("network_hop_ns", a.networkHopNs, false);
  num("grid_rows", a.gridRows, false);
  num("grid_cols", a.gridCols, false);
  num("network_link_gbps", a.networkLinkGbps, false);
  num("network_link_tracks", a.networkLinkTracks, false);
  if (!missing.empty()) return makeError(source + ": missing or bad key '" + missing + "'");
  if (a.tiles <= 0 || a.pcusPerTile <= 0 || a.pmusPerTile <= 0 || a.pmuBytes <= 0 || a.pcuLanes <= 0 ||
      a.pcuStages <= 0 || a.clockGhz <= 0 || a.peakTflops <= 0 || a.ddrGbps <= 0)
    return makeError(source + ": figures must be positive");
  if (a.networkLinkTracks < 0) return makeError(source + ": network_link_tracks must be positive");
  if ((a.gridRows > 0) != (a.gridCols > 0)) return makeError(source + ": give both grid_rows and grid_cols, or neither");
  if (a.gridRows <= 0) {  // near-square grid holding every unit of a tile
    int units = a.pcusPerTile + a.pmusPerTile;
    a.gridRows = std::max(1, static_cast<int>(std::sqrt(static_cast<double>(units))));
    a.gridCols = (units + a.gridRows - 1) / a.gridRows;
  }
  // The checkerboard must hold the tile's PCUs and PMUs.
  int cells = a.gridRows * a.gridCols;
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
  if (!isPreset && !std::filesystem::exists(path))
    return makeError("--arch " + nameOrPath + ": not a preset (sn10, sn20, sn30, sn40l, native) nor a file");
  auto text = support::readFile(path);
  if (!text) return text.error();
  return parseArchYaml(*text, path);
}

Expected<ArchSpec> scaleArch(const ArchSpec& arch, int nChips, int numTiles) {
  if (nChips < 1 || nChips > 8) return makeError("--n-chips " + std::to_string(nChips) + ": must be 1..8");
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
