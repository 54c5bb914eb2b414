#include "graph/SectionPalette.h"

namespace dfc::views {

QColor sectionColor(int sectionId) {
  if (sectionId < 0) return QColor(0xe6, 0xe6, 0xe6);
  const int hue = (sectionId * 137 + 200) % 360;
  const int saturation = sectionId % 2 == 0 ? 95 : 140;
  return QColor::fromHsv(hue, saturation, 245);
}

QColor sectionBorderColor(int sectionId) {
  return sectionColor(sectionId).darker(170);
}

}  // namespace dfc::views
