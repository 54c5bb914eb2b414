#pragma once
// The section schedule screen: Gantt strip of one step on top, the sortable
// section table on the left, Qt Charts (latency estimated vs measured; PCU/PMU
// use against the arch's capacity) on the right.
#include <QWidget>

#include "schedule/ScheduleData.h"
#include "style/ColorIdentity.h"

class QChartView;
class QCheckBox;
class QLabel;
class QSortFilterProxyModel;
class QStandardItemModel;
class QSplitter;
class QTableView;

namespace dfc::views {

class GanttStrip;
class ScheduleTableModel;

class SchedulePanel : public QWidget {
  Q_OBJECT

 public:
  explicit SchedulePanel(QWidget* parent = nullptr);

  void setData(ScheduleData data);
  // The document's colours: the Gantt strip and the table's swatches show
  // each section's hypersection as the graph and timeline do.
  void setColorIdentity(SharedColorIdentity identity);
  void clear();
  const ScheduleData& data() const;
  ScheduleTableModel* model() const { return m_model; }
  QSortFilterProxyModel* proxy() const { return m_proxy; }
  QTableView* table() const { return m_table; }
  GanttStrip* gantt() const { return m_gantt; }
  QChartView* useChart() const { return m_useChart; }  // PCU/PMU use per section
  QLabel* summaryLabel() const { return m_summary; }    // the sum of section latencies per step
  QLabel* estimateLabel() const { return m_estimate; }  // the step estimate's breakdown (dfc estimate)
  // One row per hypersection (calls and times per step) instead of per section.
  void setGroupedByHypersection(bool grouped);
  // Selects the section's row (leaving "group by hypersection"); emits sectionSelected.
  void selectSection(int sectionId);
  bool isGroupedByHypersection() const;
  QStandardItemModel* groupedModel() const { return m_grouped; }

 signals:
  void sectionSelected(int sectionId);

 private:
  void rebuildCharts();
  void rebuildGrouped();
  void followSectionSelection();

  ScheduleTableModel* m_model = nullptr;
  QSortFilterProxyModel* m_proxy = nullptr;
  QTableView* m_table = nullptr;
  GanttStrip* m_gantt = nullptr;
  QChartView* m_latencyChart = nullptr;
  QChartView* m_useChart = nullptr;
  QLabel* m_summary = nullptr;
  QLabel* m_estimate = nullptr;
  QSplitter* m_body = nullptr;
  QCheckBox* m_groupBox = nullptr;
  QStandardItemModel* m_grouped = nullptr;
  QSortFilterProxyModel* m_groupedProxy = nullptr;
  SharedColorIdentity m_identity;
};

}  // namespace dfc::views
