#pragma once
// One row per section of a plan: section, type, hypersection (with its
// colour swatch), estimated and placed PCUs/PMUs, estimated latency, measured
// latency (blank if never run), TFLOP, why the section starts apart from the
// one before (the mapper's recorded reason). Qt::UserRole gives the raw number or
// text to sort by; times show with units.
#include <QAbstractTableModel>

#include "schedule/ScheduleData.h"
#include "style/ColorIdentity.h"

namespace dfc::views {

class ScheduleTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    Section,
    Type,
    Hypersection,
    Pcus,
    Pmus,
    PlacedPcus,
    PlacedPmus,
    EstLatency,
    MeasuredLatency,
    Tflop,
    Why,
    ColumnCount
  };
  static constexpr int SortRole = Qt::UserRole;
  static constexpr int SectionIdRole = Qt::UserRole + 1;

  explicit ScheduleTableModel(QObject* parent = nullptr);

  void setData(ScheduleData data);
  void setColorIdentity(SharedColorIdentity identity);
  const ScheduleData& scheduleData() const { return m_data; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  ScheduleData m_data;
  SharedColorIdentity m_identity;
};

}  // namespace dfc::views
