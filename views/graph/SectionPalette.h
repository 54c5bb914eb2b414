#pragma once
// Stable colours per section id: the same section keeps its colour across
// runs and views, and neighbouring ids differ clearly (golden-angle hues).
#include <QColor>

namespace dfc::views {

QColor sectionColor(int sectionId);  // light fill; grey for -1 (no section)
QColor sectionBorderColor(int sectionId);

}  // namespace dfc::views
