#include "profile/RawArgs.h"

#include <simdjson.h>

#include <charconv>
#include <cmath>

namespace dfc::profile {
namespace {

bool isSpace(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

size_t skipSpace(std::string_view s, size_t i) {
  while (i < s.size() && isSpace(s[i])) ++i;
  return i;
}

std::optional<RawArg> valueAt(std::string_view s, size_t i) {
  i = skipSpace(s, i);
  if (i >= s.size()) return std::nullopt;
  if (s[i] == '"') {
    size_t end = i + 1;
    while (end < s.size() && s[end] != '"') end += s[end] == '\\' ? 2 : 1;
    if (end >= s.size()) return std::nullopt;
    return RawArg{s.substr(i + 1, end - i - 1), true};
  }
  size_t end = i;
  while (end < s.size() && s[end] != ',' && s[end] != '}' && s[end] != ']' && !isSpace(s[end])) ++end;
  if (end == i) return std::nullopt;
  return RawArg{s.substr(i, end - i), false};
}

}  // namespace

std::optional<RawArg> findRawArg(std::string_view args, std::string_view key) {
  if (key.empty()) return std::nullopt;
  for (size_t at = args.find(key); at != std::string_view::npos; at = args.find(key, at + 1)) {
    const size_t close = at + key.size();
    if (at == 0 || args[at - 1] != '"' || close >= args.size() || args[close] != '"') continue;
    // In JSON a string followed by ':' is a key; a value spelling the key is not.
    const size_t colon = skipSpace(args, close + 1);
    if (colon >= args.size() || args[colon] != ':') continue;
    return valueAt(args, colon + 1);
  }
  return std::nullopt;
}

std::string RawArg::unescaped() const {
  if (!isString || text.find('\\') == std::string_view::npos) return std::string(text);
  // Rare (a quote or \u escape in a name): let simdjson resolve it exactly.
  simdjson::dom::parser parser;
  std::string_view out;
  const simdjson::padded_string quoted("\"" + std::string(text) + "\"");
  if (parser.parse(quoted).get_string().get(out) != simdjson::SUCCESS) return std::string(text);
  return std::string(out);
}

std::optional<double> RawArg::number() const { return finiteNumber(text); }

std::optional<double> finiteNumber(std::string_view text) {
  double d = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(d)) return std::nullopt;
  return d;
}

std::string traceNumberError(const std::string& source, size_t event, std::string_view key, std::string_view value) {
  std::string shown(value.substr(0, 40));
  if (value.size() > 40) shown += "...";
  return source + ": event " + std::to_string(event) + ": \"" + std::string(key) + "\" is " + shown +
         ", not a finite number";
}

}  // namespace dfc::profile
