#pragma once
// One value out of an args object kept as raw JSON text, without parsing the
// rest: the compact reader's colour key, the trace index's section and
// hypersection groups and the timeline's link to the graph each want one key
// of up to millions of small objects. The first key of that name counts: a
// nested object that repeats it before the top-level one is taken instead, a
// price worth the speed on the flat args objects trace writers emit.
#include <optional>
#include <string>
#include <string_view>

namespace dfc::profile {

struct RawArg {
  std::string_view text;  // a string's contents (still escaped), or the literal as written: 12, 1.5e3, true
  bool isString = false;
  // The value as a user reads it: JSON escapes resolved.
  std::string unescaped() const;
  // A number (or a number written as a string); nullopt otherwise.
  std::optional<double> number() const;
};

std::optional<RawArg> findRawArg(std::string_view argsJson, std::string_view key);

// A number as JSON writes it, or written as a string ("12.5"): finite values
// only. "nan", "inf" and 1e999 are not times: a reader that took them would
// sort, nest and scale a trace by NaN (an empty timeline, "range 0 .. nan").
std::optional<double> finiteNumber(std::string_view text);
// "FILE: event N: \"ts\" is nan, not a finite number" (the value cut to 40 bytes).
std::string traceNumberError(const std::string& source, size_t event, std::string_view key, std::string_view value);

}  // namespace dfc::profile
