#include "timeline/RangeTable.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSaveFile>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include "timeline/SliceInfo.h"
#include "timeline/TimelineView.h"

namespace dfc::views {
namespace {

QString csvField(QString text) {
  if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"'))) return text;
  return QLatin1Char('"') + text.replace(QLatin1Char('"'), QStringLiteral("\"\"")) + QLatin1Char('"');
}

double columnValue(const profile::AggregateGroup& g, int column) {
  switch (column) {
    case RangeTableModel::Count: return static_cast<double>(g.count);
    case RangeTableModel::Wall: return g.wallUs;
    case RangeTableModel::Self: return g.selfUs;
    case RangeTableModel::Mean: return g.meanUs();
    case RangeTableModel::Min: return g.minUs;
    case RangeTableModel::Max: return g.maxUs;
    default: return 0;
  }
}

}  // namespace

RangeTableModel::RangeTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void RangeTableModel::setSummary(RangeSummary summary) {
  beginResetModel();
  m_summary = std::move(summary);
  endResetModel();
}

int RangeTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_summary.groups.size());
}

int RangeTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant RangeTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const profile::AggregateGroup& g = m_summary.groups[static_cast<size_t>(index.row())];
  const QString key = g.key.empty() ? tr("(none)") : QString::fromStdString(g.key);
  if (role == Qt::TextAlignmentRole)
    return index.column() == Key ? QVariant(Qt::AlignLeft | Qt::AlignVCenter) : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role == SortRole) return index.column() == Key ? QVariant(key) : QVariant(columnValue(g, index.column()));
  if (role != Qt::DisplayRole) return {};
  if (index.column() == Key) return key;
  if (index.column() == Count) return QLocale().toString(static_cast<qulonglong>(g.count));
  return formatDuration(columnValue(g, index.column()));
}

QVariant RangeTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
  switch (section) {
    case Key:
      return m_summary.groupBy == profile::GroupBy::Section        ? tr("Section")
             : m_summary.groupBy == profile::GroupBy::Hypersection ? tr("Hypersection")
                                                                   : tr("Name");
    case Count: return tr("Count");
    case Wall: return tr("Wall total");
    case Self: return tr("Self total");
    case Mean: return tr("Average");
    case Min: return tr("Min");
    case Max: return tr("Max");
    default: return {};
  }
}

QString RangeTableModel::csv() const {
  const std::string_view group = profile::groupByName(m_summary.groupBy);
  QString out = QString::fromUtf8(group.data(), static_cast<qsizetype>(group.size())) +
                QStringLiteral(",count,wall_us,self_us,mean_us,min_us,max_us\n");
  for (const profile::AggregateGroup& g : m_summary.groups) {
    out += csvField(QString::fromStdString(g.key)) + QStringLiteral(",%1").arg(g.count);
    for (int column = Wall; column <= Max; ++column) out += QStringLiteral(",%1").arg(columnValue(g, column), 0, 'f', 3);
    out += QLatin1Char('\n');
  }
  return out;
}

RangeTablePanel::RangeTablePanel(QWidget* parent) : QWidget(parent) {
  m_model = new RangeTableModel(this);
  m_proxy = new QSortFilterProxyModel(this);
  m_proxy->setSourceModel(m_model);
  m_proxy->setSortRole(RangeTableModel::SortRole);
  m_table = new QTableView(this);
  m_table->setModel(m_proxy);
  m_table->setSortingEnabled(true);
  m_table->sortByColumn(RangeTableModel::Wall, Qt::DescendingOrder);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->verticalHeader()->hide();
  m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 4);
  m_table->horizontalHeader()->setSectionResizeMode(RangeTableModel::Key, QHeaderView::Stretch);
  m_table->setAlternatingRowColors(true);
  m_title = new QLabel(this);
  m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_groupBy = new QComboBox(this);
  m_groupBy->addItem(tr("by name"), static_cast<int>(profile::GroupBy::Name));
  m_groupBy->addItem(tr("by section"), static_cast<int>(profile::GroupBy::Section));
  m_groupBy->addItem(tr("by hypersection"), static_cast<int>(profile::GroupBy::Hypersection));
  connect(m_groupBy, &QComboBox::currentIndexChanged, this, &RangeTablePanel::regroup);
  auto* exportButton = new QPushButton(tr("Export CSV..."), this);
  connect(exportButton, &QPushButton::clicked, this, [this] {
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export range table"), QStringLiteral("range.csv"), tr("CSV files (*.csv)"));
    if (!path.isEmpty()) exportCsv(path);
  });
  connect(m_table, &QTableView::activated, this, [this](const QModelIndex& index) {
    const auto& groups = m_model->summary().groups;
    const int row = m_proxy->mapToSource(index).row();
    if (row >= 0 && static_cast<size_t>(row) < groups.size())
      emit rowActivated(QString::fromStdString(groups[static_cast<size_t>(row)].key), m_model->summary().groupBy);
  });
  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(4, 2, 4, 2);
  bar->addWidget(m_title, 1);
  bar->addWidget(m_groupBy);
  bar->addWidget(exportButton);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addLayout(bar);
  layout->addWidget(m_table, 1);
}

void RangeTablePanel::attach(TimelineView* view) {
  m_view = view;
  connect(view, &TimelineView::rangeSelected, this, &RangeTablePanel::showSummary);
}

void RangeTablePanel::setGroupBy(profile::GroupBy groupBy) {
  m_groupBy->setCurrentIndex(m_groupBy->findData(static_cast<int>(groupBy)));
}

void RangeTablePanel::regroup() {
  const RangeSummary& current = m_model->summary();
  if (!m_view || current.endUs <= current.startUs) return;
  showSummary(summarizeRange(m_view->data(), current.startUs, current.endUs, current.firstRow, current.lastRow,
                             static_cast<profile::GroupBy>(m_groupBy->currentData().toInt())));
}

void RangeTablePanel::showSummary(const RangeSummary& summary) {
  const auto wanted = static_cast<profile::GroupBy>(m_groupBy->currentData().toInt());
  if (summary.groupBy != wanted && m_view)
    return showSummary(summarizeRange(m_view->data(), summary.startUs, summary.endUs, summary.firstRow, summary.lastRow, wanted));
  m_model->setSummary(summary);
  m_title->setText(tr("Range of %1: %n slice(s), rows busy (wall) %2, self %3", nullptr, static_cast<int>(summary.slices))
                       .arg(formatDuration(summary.endUs - summary.startUs), formatDuration(summary.wallUs),
                            formatDuration(summary.selfUs)));
  m_table->resizeColumnsToContents();
}

bool RangeTablePanel::exportCsv(const QString& path, QString* error) const {
  QSaveFile file(path);
  if (file.open(QIODevice::WriteOnly | QIODevice::Text)) {
    file.write(m_model->csv().toUtf8());
    if (file.commit()) return true;
  }
  if (error) *error = tr("Cannot write %1: %2").arg(path, file.errorString());
  return false;
}

}  // namespace dfc::views
