#include "timeline/SliceInfo.h"

#include <cmath>

namespace dfc::views {

QString SliceInfo::arg(const QString& key) const {
  for (const auto& [name, value] : args) {
    if (name == key) return value;
  }
  return {};
}

QString formatDuration(double us) {
  const double magnitude = std::abs(us);
  if (magnitude >= 1e6) return QStringLiteral("%1 s").arg(us / 1e6, 0, 'f', 3);
  if (magnitude >= 1e3) return QStringLiteral("%1 ms").arg(us / 1e3, 0, 'f', 2);
  return QStringLiteral("%1 us").arg(us, 0, 'f', magnitude >= 100 ? 0 : (magnitude >= 1 ? 1 : 3));
}

}  // namespace dfc::views
