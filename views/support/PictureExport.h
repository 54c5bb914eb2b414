#pragma once
// A view's picture to a file: SVG (QSvgGenerator) when the name ends in .svg,
// else PNG, drawn by the view's own paint function at `size`, through the one
// export writer (support/ExportFile.h).
#include <QRectF>
#include <QSize>
#include <QString>
#include <functional>

class QPainter;

namespace dfc::views {

using PaintFn = std::function<void(QPainter& painter, const QRectF& area)>;

bool exportPicture(const QString& path, QSize size, const PaintFn& paint, QString* error);

}  // namespace dfc::views
