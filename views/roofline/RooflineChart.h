#pragma once
// A log-log roofline drawn by hand: FLOP per off-chip byte across, FLOP/s up.
// The arch's compute roof and one bandwidth roof per off-chip tier, each
// section's estimated point; where a run measured the sections, the host's
// own roofs (measured GEMM FLOP/s and triad bandwidth) dashed and each
// section's measured point. A click on a point picks its section.
#include <QWidget>

#include "roofline/RooflineData.h"

namespace dfc::views {

class RooflineChart : public QWidget {
  Q_OBJECT

 public:
  explicit RooflineChart(QWidget* parent = nullptr);
  void setData(const RooflineViewData* data);  // not owned; null clears
  void setSelectedSection(int section);
  int selectedSection() const { return m_selected; }
  void paintChart(QPainter& p, const QRectF& area) const;
  // The section whose point (estimated or measured) lies within a few pixels of `pos`, or -1.
  int sectionAt(QPoint pos) const;
  // Where a value is drawn in `area` (the tests click there).
  QPointF toPixel(const QRectF& area, double intensity, double flops) const;

 signals:
  void sectionClicked(int section);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;

 private:
  struct Range {
    double x0 = 0.01, x1 = 1000, y0 = 1e9, y1 = 1e15;  // FLOP/byte, FLOP/s
  };
  void computeRange();
  QRectF plotRect(const QRectF& area) const;
  void paintGrid(QPainter& p, const QRectF& plot) const;
  void paintRoofs(QPainter& p, const QRectF& plot) const;
  void paintPoints(QPainter& p, const QRectF& plot) const;
  void paintLegend(QPainter& p, const QRectF& plot) const;
  void paintRoof(QPainter& p, const QRectF& plot, double peakFlops, double bytesPerSecond, const QString& label) const;

  const RooflineViewData* m_data = nullptr;
  Range m_range;
  int m_selected = -1;
};

}  // namespace dfc::views
