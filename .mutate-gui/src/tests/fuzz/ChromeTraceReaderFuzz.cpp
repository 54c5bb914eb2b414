// The chrome-trace readers: the Trace reader (B/E pairing, string pids,
// numbers as strings) and the compact reader dfstudio opens big traces with.
#include "FuzzTargets.h"
#include "profile/ChromeTrace.h"
#include "profile/CompactTrace.h"
#include "profile/TraceFile.h"

namespace dfc::fuzz {

void chromeTraceReader(const uint8_t* data, size_t size) {
  std::string json(reinterpret_cast<const char*>(data), size);
  if (profile::isGzip(json)) {  // a .json.gz: inflated within the budget, then parsed
    auto inflated = profile::gunzipWithin(json, "fuzz.json.gz");
    if (!inflated) return;
    json = std::string(inflated->view());
  }
  (void)profile::parseChromeTrace(json, "fuzz.json");
  (void)profile::parseCompactTrace(json, "fuzz.json");
}

}  // namespace dfc::fuzz

DFC_FUZZ_ENTRY(chromeTraceReader)
