#include "timeline/SliceInfo.h"

#include <QLocale>
#include <cmath>

namespace dfc::views {

QString SliceInfo::arg(const QString& key) const {
  for (const auto& [name, value] : args) {
    if (name == key) return value;
  }
  return {};
}

// Decimal separator by locale ("1,500 s" in German), as in every form.
QString formatDuration(double us) {
  const double magnitude = std::abs(us);
  const QLocale locale;
  if (magnitude >= 1e6) return QStringLiteral("%1 s").arg(locale.toString(us / 1e6, 'f', 3));
  if (magnitude >= 1e3) return QStringLiteral("%1 ms").arg(locale.toString(us / 1e3, 'f', 2));
  return QStringLiteral("%1 us").arg(locale.toString(us, 'f', magnitude >= 100 ? 0 : (magnitude >= 1 ? 1 : 3)));
}

}  // namespace dfc::views
