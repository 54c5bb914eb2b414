#include <charconv>
#include <cstdio>

#include "Commands.h"

namespace dfc::cli {

int reportError(const Error& error) {
  // Exit 2: the user's input is at fault. Exit 1: ours (or the system's), and the line says so.
  const bool bad = error.kind() == ErrorKind::BadInput;
  std::fprintf(stderr, "dfc: %s: %s\n", bad ? "error" : "internal error", error.message().c_str());
  return bad ? 2 : 1;
}

int usageError(const std::string& message) {
  std::fprintf(stderr, "dfc: error: %s\n", message.c_str());
  return 2;
}

Expected<int64_t> parseInt(const std::string& flag, const std::string& text) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size())
    return makeError(flag + ": '" + text + "' is not an integer");
  return v;
}

Expected<double> parseDouble(const std::string& flag, const std::string& text) {
  double v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size()) return makeError(flag + ": '" + text + "' is not a number");
  return v;
}

}  // namespace dfc::cli
