#include "driver/report/SpatialReport.h"

#include <simdjson.h>

#include <algorithm>
#include <cstdio>

#include "driver/JsonNumber.h"

namespace dfc::driver {

namespace {

std::string format(const char* fmt, auto... args) {
  char line[256];
  std::snprintf(line, sizeof line, fmt, args...);
  return line;
}

std::string intList(simdjson::dom::element e) {
  std::string out;
  simdjson::dom::array a;
  if (e.get(a)) return "?";
  for (simdjson::dom::element x : a) {
    int64_t v = 0;
    if (x.get(v)) return "?";
    out += (out.empty() ? "" : " ") + std::to_string(v);
  }
  return out;
}


void describeLayers(simdjson::dom::array layers, std::vector<std::string>& out) {
  out.push_back(
      format("  %-32s %-10s %9s %6s %11s  %s", "layer", "op", "k/s/p (H)", "rows", "halo rows", "rows per band"));
  for (simdjson::dom::element l : layers) {
    std::string_view node, op;
    if (l["node"].get(node) || l["op"].get(op)) continue;
    const std::string ksp = format("%.0f/%.0f/%.0f", jsonNumber(l, "kernel"), jsonNumber(l, "stride"), jsonNumber(l, "pad"));
    out.push_back(format("  %-32.32s %-10.10s %9s %6.0f %11.0f  %s", std::string(node).c_str(), std::string(op).c_str(),
                         ksp.c_str(), jsonNumber(l, "rows"), jsonNumber(l, "halo_rows"), intList(l["tile_rows"]).c_str()));
  }
}

// Each op as its own section (the -o0 view): latency summed, PMUs at most.
void estimateOps(const ir::Graph& g, const std::vector<std::string>& names, const arch::CostModel& cost, double& us,
                 int& pmus) {
  const auto users = g.computeUsers();
  for (const std::string& name : names) {
    const ir::NodeId id = g.findNode(name);
    if (id == ir::kNoNode) continue;
    const auto e = cost.sectionEstimate(g, {id}, 0, users);
    us += e.latencyUs;
    pmus = std::max(pmus, e.pmus);
  }
}

}  // namespace

void addChipEstimates(passes::SpatialPlan& plan, const ir::Graph& untiled, const ir::Graph& tiled,
                      const arch::CostModel& cost) {
  std::vector<std::string> prefix;
  for (const auto& layer : plan.layers) prefix.push_back(layer.node);
  estimateOps(untiled, prefix, cost, plan.estUsUntiled, plan.maxPmusUntiled);
  estimateOps(tiled, plan.tiledNodes, cost, plan.estUsTiled, plan.maxPmusTiled);
}

std::vector<std::string> describeSpatialTiling(const std::string& json) {
  if (json.empty()) return {};
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  simdjson::dom::array layers;
  std::string_view boundary;
  if (parser.parse(json).get(root) || root["layers"].get(layers) || root["boundary"].get(boundary))
    return {"spatial tiling: (the PEF's record of it is unreadable)"};
  std::vector<std::string> out;
  const double tiles = jsonNumber(root, "tiles");
  out.push_back(
      format("\nspatial tiling (--num-spatial-batches %.0f): %.0f bands of image rows (axis H), joined at '%s'", tiles,
             tiles, std::string(boundary).c_str()));
  out.push_back("  rows of '" + std::string(boundary) + "' per band: " + intList(root["boundary_rows"]) +
                "; image rows each band reads (band + halo): " + intList(root["input_rows"]));
  describeLayers(layers, out);
  const double fu = jsonNumber(root, "flop_untiled"), ft = jsonNumber(root, "flop_tiled");
  const double bu = jsonNumber(root, "peak_bytes_untiled"), bt = jsonNumber(root, "peak_bytes_tile");
  out.push_back("  estimate          untiled (1 pass)   tiled (" + format("%.0f", tiles) + " passes)");
  out.push_back(format("  prefix conv GFLOP %16.3f %17.3f  (%+.1f%% halo recompute)", fu / 1e9, ft / 1e9,
                       fu > 0 ? 100.0 * (ft / fu - 1.0) : 0.0));
  out.push_back(format("  peak activation   %13.2f MiB %13.2f MiB  (on-chip per pass: %.0f%% of untiled)",
                       bu / 1048576.0, bt / 1048576.0, bu > 0 ? 100.0 * bt / bu : 0.0));
  out.push_back(format("  chip, op by op     %12.1f us %14.1f us  (estimated latency of the prefix)",
                       jsonNumber(root, "est_us_untiled"), jsonNumber(root, "est_us_tiled")));
  out.push_back(format("  PMUs of one op     %15.0f %17.0f  (the largest op's on-chip buffers)",
                       jsonNumber(root, "max_pmus_untiled"), jsonNumber(root, "max_pmus_tiled")));
  if (bt >= bu)
    out.push_back(
        "  note: the receptive field where the bands join spans the image, so every band reads all of it "
        "and no pass is smaller; fewer bands, or a larger image, make the trade-off pay");
  return out;
}

}  // namespace dfc::driver
