#pragma once
// A JSON number read as a double becomes an integer id or index without the
// undefined behaviour of casting a value outside int64's range: NaN reads 0,
// anything beyond the range saturates (found by fuzz_chrome_trace_reader).
#include <cmath>
#include <cstdint>
#include <limits>

namespace dfc::support {

inline int64_t saturatingInt64(double d) {
  if (std::isnan(d)) return 0;
  constexpr double kTop = 9223372036854775808.0;  // 2^63, the first double past INT64_MAX
  if (d >= kTop) return std::numeric_limits<int64_t>::max();
  if (d < -kTop) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(d);
}

}  // namespace dfc::support
