#include "style/Palette.h"

#include <cmath>
#include <numbers>

namespace dfc::views {
namespace {

double linear(double channel) {
  return channel <= 0.04045 ? channel / 12.92 : std::pow((channel + 0.055) / 1.055, 2.4);
}

double labF(double t) { return t > 216.0 / 24389.0 ? std::cbrt(t) : (24389.0 / 27.0 * t + 16.0) / 116.0; }

double radians(double degrees) { return degrees * std::numbers::pi / 180.0; }
double degreesOf(double y, double x) {
  if (x == 0 && y == 0) return 0;
  const double d = std::atan2(y, x) * 180.0 / std::numbers::pi;
  return d < 0 ? d + 360.0 : d;
}

}  // namespace

int categoricalCount() { return static_cast<int>(kCategoricalColors.size()); }

QColor categoricalColor(int index) {
  if (index < 0 || index >= categoricalCount()) return QColor::fromRgb(kOtherColor);
  return QColor::fromRgb(kCategoricalColors[static_cast<size_t>(index)]);
}

QColor textColorOn(const QColor& fill) {
  return toLab(fill).l >= 50 ? QColor(0x20, 0x20, 0x20) : QColor(Qt::white);
}

Lab toLab(const QColor& color) {
  const double r = linear(color.redF()), g = linear(color.greenF()), b = linear(color.blueF());
  const double x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047;
  const double y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b;
  const double z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883;
  const double fx = labF(x), fy = labF(y), fz = labF(z);
  return {116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)};
}

// Sharma, Wu and Dalal's formulation (Color Res. Appl. 30, 2005).
double ciede2000(const Lab& x, const Lab& y) {
  const double c1 = std::hypot(x.a, x.b), c2 = std::hypot(y.a, y.b);
  const double cMean7 = std::pow((c1 + c2) / 2, 7);
  const double g = 0.5 * (1 - std::sqrt(cMean7 / (cMean7 + std::pow(25.0, 7))));
  const double a1 = (1 + g) * x.a, a2 = (1 + g) * y.a;
  const double c1p = std::hypot(a1, x.b), c2p = std::hypot(a2, y.b);
  const double h1 = degreesOf(x.b, a1), h2 = degreesOf(y.b, a2);
  const bool achromatic = c1p * c2p == 0;
  double dh = 0;
  if (!achromatic) dh = std::abs(h2 - h1) <= 180 ? h2 - h1 : (h2 - h1 > 180 ? h2 - h1 - 360 : h2 - h1 + 360);
  const double dL = y.l - x.l, dC = c2p - c1p;
  const double dH = 2 * std::sqrt(c1p * c2p) * std::sin(radians(dh / 2));
  const double lMean = (x.l + y.l) / 2, cMean = (c1p + c2p) / 2;
  double hMean = h1 + h2;
  if (!achromatic) hMean = std::abs(h1 - h2) <= 180 ? (h1 + h2) / 2 : (h1 + h2 < 360 ? (h1 + h2 + 360) / 2 : (h1 + h2 - 360) / 2);
  const double t = 1 - 0.17 * std::cos(radians(hMean - 30)) + 0.24 * std::cos(radians(2 * hMean)) +
                   0.32 * std::cos(radians(3 * hMean + 6)) - 0.20 * std::cos(radians(4 * hMean - 63));
  const double dTheta = 30 * std::exp(-std::pow((hMean - 275) / 25, 2));
  const double cMeanP7 = std::pow(cMean, 7);
  const double rc = 2 * std::sqrt(cMeanP7 / (cMeanP7 + std::pow(25.0, 7)));
  const double sl = 1 + 0.015 * std::pow(lMean - 50, 2) / std::sqrt(20 + std::pow(lMean - 50, 2));
  const double sc = 1 + 0.045 * cMean, sh = 1 + 0.015 * cMean * t;
  const double rt = -std::sin(radians(2 * dTheta)) * rc;
  return std::sqrt(std::pow(dL / sl, 2) + std::pow(dC / sc, 2) + std::pow(dH / sh, 2) + rt * (dC / sc) * (dH / sh));
}

double colorDistance(const QColor& x, const QColor& y) { return ciede2000(toLab(x), toLab(y)); }

}  // namespace dfc::views
