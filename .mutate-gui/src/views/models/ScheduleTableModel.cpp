#include "models/ScheduleTableModel.h"

#include "style/Units.h"

#include <QLocale>

#include "graph/GraphData.h"
#include "timeline/SliceInfo.h"


namespace dfc::views {

ScheduleTableModel::ScheduleTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void ScheduleTableModel::setData(ScheduleData data) {
  beginResetModel();
  m_data = std::move(data);
  endResetModel();
}

void ScheduleTableModel::setColorIdentity(SharedColorIdentity identity) {
  m_identity = std::move(identity);
  if (!m_data.sections.empty()) emit dataChanged(index(0, Hypersection), index(rowCount() - 1, Hypersection));
}

int ScheduleTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_data.sections.size());
}

int ScheduleTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ScheduleTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const ScheduleSection& s = m_data.sections[static_cast<size_t>(index.row())];
  if (role == SectionIdRole) return s.id;
  if (role == Qt::DecorationRole && index.column() == Hypersection && m_identity) return m_identity->hypersection(s.hypersection);
  if (role == Qt::TextAlignmentRole) {
    return index.column() >= Pcus && index.column() != Why ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                                           : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
  }
  if (role == Qt::ToolTipRole && index.column() == Section) {
    QString tip = tr("Section %1 (%2)\nhyperfunction: %3").arg(s.id).arg(s.name, s.hyperfunction.isEmpty() ? tr("top level") : s.hyperfunction);
    if (!s.fusedKernels.isEmpty()) tip += QLatin1Char('\n') + tr("fused on the host: %1").arg(s.fusedKernels.join(QStringLiteral("; ")));
    return tip;
  }
  if (role == Qt::ToolTipRole && index.column() == Why && !s.whyWithKind.isEmpty()) return s.whyWithKind;
  if (role == Qt::ToolTipRole && index.column() == MeasuredLatency && !s.measuredMeanUs) {
    return tr("No recorded run of this PEF");
  }
  if (role == SortRole) {
    switch (index.column()) {
      case Section: return s.id;
      case Type: return s.type;
      case Hypersection: return s.hypersectionId;
      case Pcus: return s.pcus;
      case Pmus: return s.pmus;
      case PlacedPcus: return s.placedPcus.value_or(-1);
      case PlacedPmus: return s.placedPmus.value_or(-1);
      case EstLatency: return s.estLatencyUs;
      case MeasuredLatency: return s.measuredMeanUs ? *s.measuredMeanUs : -1.0;
      case Tflop: return s.tflop;
      case Why:
        return s.why;
      default: return {};
    }
  }
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case Section: return QStringLiteral("%1  %2").arg(s.id).arg(s.name);
    case Type: return roleDisplayName(s.type);
    case Hypersection: return s.hypersection;
    case Pcus: return QLocale().toString(s.pcus);
    case Pmus: return QLocale().toString(s.pmus);
    case PlacedPcus: return s.placedPcus ? QLocale().toString(*s.placedPcus) : QString();
    case PlacedPmus: return s.placedPmus ? QLocale().toString(*s.placedPmus) : QString();
    case EstLatency: return formatDuration(s.estLatencyUs);
    case MeasuredLatency: return s.measuredMeanUs ? formatDuration(*s.measuredMeanUs) : QString();
    case Tflop: return formatFlop(s.tflop * 1e12);
    case Why:
      return s.why;
    default: return {};
  }
}

QVariant ScheduleTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
  switch (section) {
    case Section: return tr("Section");
    case Type: return tr("Type");
    case Hypersection: return tr("Hypersection");
    case Pcus: return tr("Est. PCUs");
    case Pmus: return tr("Est. PMUs");
    case PlacedPcus: return tr("Placed PCUs");
    case PlacedPmus: return tr("Placed PMUs");
    case EstLatency: return tr("Est. latency");
    case MeasuredLatency: return tr("Measured mean");
    case Tflop: return tr("Work per call");
    case Why:
      return tr("Why a section starts here");
    default: return {};
  }
}

}  // namespace dfc::views
