#pragma once
// How much of a cut-off chrome trace is whole. The Trace Event Format allows
// an array trace without its closing ']' (a process killed while tracing),
// and a copy can stop mid-file; catapult and Perfetto load the complete
// events before the cut and say where reading stopped. This scans the text
// once (strings and escapes respected) for the end of the last complete
// event of the events array, and what would close the containers still
// open there.
#include <simdjson.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace dfc::profile {

struct TraceCut {
  size_t keepBytes = 0;  // text[0, keepBytes) ends with the last complete event
  std::string closing;   // "]" (array form) or "]}" (object form), or "}" past the array
  size_t events = 0;     // complete events kept
};

// nullopt when every container closes (the text is not cut off: a parse
// error lies elsewhere) or no events array was opened before the cut.
std::optional<TraceCut> findCompletePrefix(std::string_view json);
std::string repairedTrace(std::string_view json, const TraceCut& cut);
// "FILE: trace cut off: read N events up to byte B of S; the rest is missing"
std::string cutWarning(const std::string& source, const TraceCut& cut, size_t totalBytes);

// Both readers: parse the whole text; if that fails and the text is a trace
// cut off after at least one complete event, parse its complete part and
// add the warning. `parse` takes a simdjson::padded_string_view.
template <typename Parse>
auto parseCompletePart(simdjson::padded_string_view json, const std::string& source, Parse parse) {
  auto whole = parse(json);
  if (whole) return whole;
  const std::string_view text(json.data(), json.size());
  const auto cut = findCompletePrefix(text);
  if (!cut || cut->events == 0) return whole;
  const simdjson::padded_string repaired(repairedTrace(text, *cut));
  auto complete = parse(simdjson::padded_string_view(repaired));
  if (!complete) return whole;
  complete->warnings.push_back(cutWarning(source, *cut, json.size()));
  return complete;
}

}  // namespace dfc::profile
