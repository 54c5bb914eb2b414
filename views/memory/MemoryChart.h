#pragma once
// Bytes resident in one memory tier at each section call of a step, stacked
// by kind, drawn by hand (one rect per call and kind: a few thousand calls
// paint in milliseconds): the tier's capacity dashed, its peak marked, and a
// picked tensor's lifetime shaded. A click picks a call.
#include <QWidget>

#include "memory/MemoryData.h"

namespace dfc::views {

class MemoryChart : public QWidget {
  Q_OBJECT

 public:
  explicit MemoryChart(QWidget* parent = nullptr);
  void setData(const MemoryViewData* data);  // not owned; null clears
  void setTier(MemTier tier);
  MemTier tier() const { return m_tier; }
  // Shades calls [first, last]; first < 0 clears.
  void setLifetime(int first, int last);
  void setCurrentCall(int call);  // the call whose tensors the panel lists (-1: the peak's)
  // The whole picture into `area` (the widget's paint and the exports).
  void paintChart(QPainter& p, const QRectF& area) const;
  QColor kindColor(MemKind kind) const;
  int callAt(QPoint pos) const;  // -1 outside the bars

 signals:
  void callClicked(int call);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;

 private:
  QRectF plotRect(const QRectF& area) const;
  void paintAxes(QPainter& p, const QRectF& plot, double top) const;
  void paintBars(QPainter& p, const QRectF& plot, double top) const;
  void paintMarks(QPainter& p, const QRectF& plot, double top) const;
  void paintLegend(QPainter& p, const QRectF& area) const;

  const MemoryViewData* m_data = nullptr;
  MemTier m_tier = MemTier::Hbm;
  int m_first = -1, m_last = -1;
  int m_currentCall = -1;
};

}  // namespace dfc::views
