#include "driver/compile/CompileReport.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <map>

#include "driver/JsonNumber.h"
#include "ir/KvCache.h"
#include "support/JsonWriter.h"
#include "support/SizeBudget.h"

namespace dfc::driver {
namespace {

// A decode step: its cache length and the bytes of its KV caches beside the weights' (ir/KvCache.h).
void writeDecodeReport(support::JsonWriter& w, const ir::Graph& graph) {
  const auto caches = ir::kvCacheValues(graph);
  if (caches.empty()) return;
  double weightBytes = 0;
  for (const ir::Value& v : graph.values)
    if (v.kind == ir::ValueKind::Param || v.kind == ir::ValueKind::Const) weightBytes += static_cast<double>(v.type.byteSize());
  weightBytes -= static_cast<double>(ir::kvCacheBytes(graph));
  w.key("decode").beginObject();
  w.field("kv_cache_len", graph.value(caches.front()).type.shape.at(2));
  w.field("kv_caches", static_cast<int64_t>(caches.size()));
  w.field("kv_cache_bytes", ir::kvCacheBytes(graph));
  w.field("weight_bytes", weightBytes);
  w.endObject();
}

}  // namespace

std::string buildCompileReportJson(const ir::Graph& graph, const partition::Plan& plan, const arch::ArchSpec& arch,
                                   double compileMs, const std::vector<kernelc::SectionPlacement>* placement,
                                   const DataParallelPlan* dataParallel) {
  support::JsonWriter w;
  w.beginObject();
  w.field("arch", arch.name).field("opt_level", std::string(partition::optLevelName(plan.level)));
  w.field("compile_ms", compileMs);
  w.field("arch_pcus", arch.totalPcus()).field("arch_pmus", arch.totalPmus());
  // Layer 1: per hypersection figures, and hyperfunction -> hypersection map.
  w.key("layer1_hypersections").beginArray();
  for (const auto& hs : plan.hypersections) {
    const auto& s = plan.sections.at(static_cast<size_t>(hs.sections.front()));
    w.beginObject()
        .field("id", hs.id)
        .field("name", hs.name)
        .field("calls", static_cast<int64_t>(hs.sections.size()))
        .field("tflop", s.estimate.flop / 1e12)
        .field("est_pcus", s.estimate.pcus)
        .field("est_pmus", s.estimate.pmus)
        .field("est_latency_us", s.estimate.latencyUs)
        .endObject();
  }
  w.endArray();
  std::map<std::string, std::vector<int>> hfToHs;
  for (const auto& s : plan.sections) {
    auto& v = hfToHs[s.hyperfunction.empty() ? "(top level)" : s.hyperfunction];
    if (std::find(v.begin(), v.end(), s.hypersection) == v.end()) v.push_back(s.hypersection);
  }
  w.key("layer1_hyperfunctions").beginObject();
  for (const auto& [hf, ids] : hfToHs) {
    w.key(hf).beginArray();
    for (int id : ids) w.value(id);
    w.endArray();
  }
  w.endObject();
  // Layer 2: the schedule of section calls.
  w.key("layer2_schedule").beginArray();
  for (int id : plan.schedule) w.value(id);
  w.endArray();
  // Layer 3: final resources and latency bounds from placement (kernelc/Linker.h:
  // min keeps weights resident, max streams everything from DDR). Without a
  // placement, the mapper's estimates.
  bool placed = placement && placement->size() == plan.sections.size();
  w.key("layer3_sections").beginArray();
  for (const auto& s : plan.sections) {
    double fill = s.estimate.latencyUs - std::max(s.estimate.computeUs, s.estimate.memoryUs);
    w.beginObject()
        .field("id", s.id)
        .field("name", s.name)
        .field("type", std::string(ir::roleName(s.type)))
        .field("hypersection", s.hypersection);
    if (placed) {
      const auto& p = (*placement)[static_cast<size_t>(s.id)];
      w.field("pcus", p.pcus)
          .field("pmus", p.pmus)
          .field("tiles", p.tiles)
          .field("total_hops", p.totalHops)
          .field("critical_path_hops", p.criticalPathHops)
          .field("min_latency_us", p.minLatencyUs)
          .field("max_latency_us", p.maxLatencyUs);
    } else {
      w.field("pcus", s.estimate.pcus)
          .field("pmus", s.estimate.pmus)
          .field("min_latency_us", s.estimate.computeUs + fill)
          .field("max_latency_us", s.estimate.latencyUs);
    }
    w.field("ddr_bytes", s.estimate.ddrBytes).endObject();
  }
  w.endArray();
  w.field("placement", placed ? "placed" : "estimated (no placement)");
  // What hypersections save: sections that reuse a bitfile instead of being compiled again.
  w.field("sections", static_cast<int64_t>(plan.sections.size()))
      .field("hypersections", static_cast<int64_t>(plan.hypersections.size()))
      .field("sections_reusing_a_bitfile", static_cast<int64_t>(plan.sections.size() - plan.hypersections.size()));
  w.field("num_nodes", static_cast<int64_t>(graph.nodes.size()));
  if (dataParallel) writeDataParallelReport(w, *dataParallel);
  writeDecodeReport(w, graph);
  w.endObject();
  return w.take();
}

std::vector<std::string> describeDecodeReport(const std::string& reportJson) {
  simdjson::dom::parser parser;
  simdjson::dom::element d;
  if (parser.parse(reportJson).get(d) || d["decode"].get(d)) return {};
  auto bytes = [&](const char* key) { return support::formatBytes(static_cast<uint64_t>(jsonNumber(d, key))); };
  return {fmt::format("decode step: one new token per sequence, KV cache of {:.0f} rows; {:.0f} caches (K and V per "
                      "layer), {}, beside {} of weights",
                      jsonNumber(d, "kv_cache_len"), jsonNumber(d, "kv_caches"), bytes("kv_cache_bytes"),
                      bytes("weight_bytes"))};
}

}  // namespace dfc::driver
