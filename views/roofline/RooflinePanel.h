#pragma once
// The Roofline screen: RooflineChart under a one-line summary (the roofs, the
// host's measured peaks when a run exists, sections left off the log axes)
// and an Export menu (CSV of the points, PNG or SVG of the chart).
#include <QWidget>

#include "roofline/RooflineData.h"

class QLabel;
class QToolButton;

namespace dfc::views {

class RooflineChart;

class RooflinePanel : public QWidget {
  Q_OBJECT

 public:
  explicit RooflinePanel(QWidget* parent = nullptr);
  void setData(RooflineViewData data);
  void clear() { setData({}); }
  const RooflineViewData& data() const { return m_data; }
  RooflineChart* chart() const { return m_chart; }
  QLabel* summaryLabel() const { return m_summary; }
  void setSelectedSection(int section);
  bool exportCsv(const QString& path, QString* error) const;
  bool exportPicture(const QString& path, QString* error) const;  // .svg or .png

 signals:
  void sectionClicked(int section);

 private:
  void updateSummary();
  QToolButton* makeExportButton();

  RooflineViewData m_data;
  RooflineChart* m_chart = nullptr;
  QLabel* m_summary = nullptr;
};

}  // namespace dfc::views
