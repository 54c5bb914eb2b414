#include "support/PictureExport.h"

#include <QBuffer>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>

#include "support/ExportFile.h"

namespace dfc::views {

bool exportPicture(const QString& path, QSize size, const PaintFn& paint, QString* error) {
  const QRectF area(QPointF(0, 0), QSizeF(size));
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  if (path.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive)) {
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(size);
    svg.setViewBox(area);
    QPainter painter(&svg);
    painter.fillRect(area, Qt::white);
    paint(painter, area);
  } else {
    QImage image(size * 2, QImage::Format_ARGB32_Premultiplied);  // 2x: sharp when zoomed or printed
    image.setDevicePixelRatio(2);
    image.fill(Qt::white);
    {
      QPainter painter(&image);
      painter.setRenderHint(QPainter::Antialiasing);
      paint(painter, area);
    }
    image.save(&buffer, "PNG");
  }
  buffer.close();
  return writeExportFile(path, bytes, error);
}

}  // namespace dfc::views
