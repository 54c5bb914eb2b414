#pragma once
// A number field of a parsed report (double or integer in the JSON), 0 when absent or not a number.
#include <simdjson.h>

#include <cstdint>

namespace dfc::driver {

inline double jsonNumber(simdjson::dom::element object, const char* key) {
  double d = 0;
  int64_t i = 0;
  if (!object[key].get(d)) return d;
  return object[key].get(i) ? 0.0 : static_cast<double>(i);
}

}  // namespace dfc::driver
