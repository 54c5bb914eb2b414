#include "style/Units.h"

#include <QLocale>
#include <array>
#include <cmath>

namespace dfc::views {
namespace {

// Three significant digits at most, none after the point for 100 and more.
QString scaled(double value) {
  const double magnitude = std::abs(value);
  return QLocale().toString(value, 'f', magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : 2);
}

}  // namespace

QString formatDuration(double us) {
  const double magnitude = std::abs(us);
  const QLocale locale;
  if (magnitude >= 1e6) return QStringLiteral("%1 s").arg(locale.toString(us / 1e6, 'f', 3));
  if (magnitude >= 1e3) return QStringLiteral("%1 ms").arg(locale.toString(us / 1e3, 'f', 2));
  if (magnitude >= 1 || magnitude == 0) return QStringLiteral("%1 us").arg(locale.toString(us, 'f', magnitude >= 100 ? 0 : 1));
  return QStringLiteral("%1 ns").arg(locale.toString(us * 1e3, 'f', magnitude >= 0.1 ? 0 : 1));
}

QString formatFlop(double flop) {
  static constexpr std::array<const char*, 5> kUnits = {"FLOP", "kFLOP", "MFLOP", "GFLOP", "TFLOP"};
  size_t unit = 0;
  double value = flop;
  while (unit + 1 < kUnits.size() && std::abs(value) >= 1000) {
    value /= 1000;
    ++unit;
  }
  if (unit == 0) return QStringLiteral("%1 FLOP").arg(QLocale().toString(flop, 'f', 0));
  return QStringLiteral("%1 %2").arg(scaled(value), QLatin1String(kUnits[unit]));
}

QString formatBytes(double bytes) {
  static constexpr std::array<const char*, 5> kUnits = {"B", "KiB", "MiB", "GiB", "TiB"};
  size_t unit = 0;
  double value = bytes;
  while (unit + 1 < kUnits.size() && std::abs(value) >= 1024) {
    value /= 1024;
    ++unit;
  }
  if (unit == 0) return QStringLiteral("%1 B").arg(QLocale().toString(bytes, 'f', 0));
  return QStringLiteral("%1 %2").arg(scaled(value), QLatin1String(kUnits[unit]));
}

}  // namespace dfc::views
