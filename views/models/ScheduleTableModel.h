#pragma once
// One row per section of a plan: section, type, hypersection, PCUs, PMUs,
// estimated latency, measured latency (blank if never run), TFLOP.
// Qt::UserRole gives the raw number/text to sort by.
#include <QAbstractTableModel>

#include "schedule/ScheduleData.h"

namespace dfc::views {

class ScheduleTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Section, Type, Hypersection, Pcus, Pmus, EstLatency, MeasuredLatency, Tflop, ColumnCount };
  static constexpr int SortRole = Qt::UserRole;
  static constexpr int SectionIdRole = Qt::UserRole + 1;

  explicit ScheduleTableModel(QObject* parent = nullptr);

  void setData(ScheduleData data);
  const ScheduleData& scheduleData() const { return m_data; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  ScheduleData m_data;
};

}  // namespace dfc::views
