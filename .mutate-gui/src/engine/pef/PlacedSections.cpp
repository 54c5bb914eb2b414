#include "pef/PlacedSections.h"

#include <simdjson.h>

namespace dfc::pef {

std::map<int64_t, PlacedSection> placedSections(const std::string& reportJson) {
  std::map<int64_t, PlacedSection> out;
  if (reportJson.empty()) return out;
  simdjson::dom::parser parser;
  simdjson::padded_string padded(reportJson);
  simdjson::dom::element doc;
  simdjson::dom::array sections;
  if (parser.parse(padded).get(doc) || doc["layer3_sections"].get(sections)) return out;
  for (simdjson::dom::element e : sections) {
    int64_t id = 0;
    if (e["id"].get(id)) continue;
    PlacedSection p;
    auto get = [&](const char* key, auto& value) {  // absent keys (older reports) stay 0
      if (e[key].get(value) != simdjson::SUCCESS) value = {};
    };
    get("pcus", p.pcus);
    get("pmus", p.pmus);
    get("total_hops", p.hops);
    get("min_latency_us", p.minUs);
    get("max_latency_us", p.maxUs);
    out[id] = p;
  }
  return out;
}

}  // namespace dfc::pef
