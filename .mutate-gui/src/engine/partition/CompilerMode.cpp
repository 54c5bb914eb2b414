#include "partition/CompilerMode.h"

namespace dfc::partition {

Expected<CompilerMode> parseCompilerMode(const std::string& text) {
  if (text.empty()) return CompilerMode::Default;
  if (text == "nlp") return CompilerMode::Nlp;
  return makeError("--compiler-mode '" + text + "': unknown mode (accepted: nlp; leave the flag out for the default)");
}

std::string defaultO1RuleList(CompilerMode mode) { return mode == CompilerMode::Nlp ? "nlp" : "default"; }

std::string_view attentionScope(std::string_view scope) {
  size_t start = 0;
  while (start < scope.size()) {
    size_t end = scope.find('/', start);
    if (end == std::string_view::npos) end = scope.size();
    std::string_view part = scope.substr(start, end - start);
    if (part == "attn" || part == "attention") return scope.substr(0, end);
    start = end + 1;
  }
  return {};
}

}  // namespace dfc::partition
