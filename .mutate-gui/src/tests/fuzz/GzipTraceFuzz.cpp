// Gzip traces (issue 36): the input is a .json.gz as a user hands it over.
// It is inflated within the fuzz budget (every member; the budget counts what
// is allocated), then read by both readers, the compact one in tiny chunks so
// that every input crosses chunk seams and the merge.
#include "FuzzTargets.h"
#include "profile/ChromeTrace.h"
#include "profile/CompactTrace.h"
#include "profile/TraceText.h"

namespace dfc::fuzz {

void gzipTrace(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto inflated = profile::gunzipWithin(bytes, "fuzz.json.gz", size);
  if (!inflated) return;
  const std::string json(inflated->view());
  profile::setTraceChunkBytes(64);
  (void)profile::parseCompactTrace(json, "fuzz.json");
  profile::setTraceChunkBytes(0);
  (void)profile::parseChromeTrace(json, "fuzz.json");
}

}  // namespace dfc::fuzz

DFC_FUZZ_ENTRY(gzipTrace)
