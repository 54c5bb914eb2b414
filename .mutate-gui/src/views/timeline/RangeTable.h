#pragma once
// A selected time range as a table (Perfetto's per-name aggregation of a
// selection): one row per name, section or hypersection with count, wall
// total, self total, mean, min and max, from TraceIndex::aggregate (nested
// slices are not counted twice: wall is a union, self leaves children out).
// Sortable by every column's number; exportable as CSV.
#include <QAbstractTableModel>
#include <QWidget>

#include "timeline/TimelineData.h"

class QComboBox;
class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace dfc::views {

class TimelineView;

class RangeTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Key, Count, Wall, Self, Mean, Min, Max, ColumnCount };
  static constexpr int SortRole = Qt::UserRole;

  explicit RangeTableModel(QObject* parent = nullptr);
  void setSummary(RangeSummary summary);
  const RangeSummary& summary() const { return m_summary; }
  // Header line, then one line per group; times in microseconds.
  QString csv() const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  RangeSummary m_summary;
};

class RangeTablePanel : public QWidget {
  Q_OBJECT

 public:
  explicit RangeTablePanel(QWidget* parent = nullptr);
  // Follows the view's range selections (and regroups them on request).
  void attach(TimelineView* view);
  void setGroupBy(profile::GroupBy groupBy);
  RangeTableModel* model() const { return m_model; }
  QSortFilterProxyModel* proxy() const { return m_proxy; }
  QTableView* table() const { return m_table; }
  bool exportCsv(const QString& path, QString* error = nullptr) const;

 signals:
  void rowActivated(const QString& key, profile::GroupBy groupBy);

 private:
  void showSummary(const RangeSummary& summary);
  void regroup();

  TimelineView* m_view = nullptr;
  RangeTableModel* m_model = nullptr;
  QSortFilterProxyModel* m_proxy = nullptr;
  QTableView* m_table = nullptr;
  QLabel* m_title = nullptr;
  QComboBox* m_groupBy = nullptr;
};

}  // namespace dfc::views
