#include "runs/OpProfileTable.h"

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTableWidget>
#include <QVBoxLayout>

namespace dfc::views {
namespace {

// A read-only cell (the rows come largest first; the table does not re-sort).
QTableWidgetItem* cell(const QString& text) {
  auto* item = new QTableWidgetItem(text);
  item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
  return item;
}

QTableWidgetItem* numberCell(double value, int decimals, const QString& suffix = {}) {
  auto* item = cell(QLocale().toString(value, 'f', decimals) + suffix);
  item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return item;
}

}  // namespace

OpProfileTable::OpProfileTable(QWidget* parent) : QWidget(parent) {
  m_caption = new QLabel(this);
  m_caption->setWordWrap(true);
  m_table = new QTableWidget(0, ColumnCount, this);
  m_table->setHorizontalHeaderLabels(
      {tr("Kernel"), tr("Family"), tr("ms / step"), tr("% of step"), tr("Calls / step")});
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->verticalHeader()->hide();
  m_table->horizontalHeader()->setSectionResizeMode(Kernel, QHeaderView::Stretch);
  m_table->setAlternatingRowColors(true);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_caption);
  layout->addWidget(m_table, 1);
  showHint(tr("Select a measure-performance run to see where its host time went."));
}

void OpProfileTable::setProfile(const QString& run, const std::vector<driver::OpTime>& ops, double meanStepMs) {
  double inside = 0;
  for (const driver::OpTime& op : ops) inside += op.msPerStep;
  m_caption->setText(meanStepMs > 0 ? tr("Host time by kernel, %1: %L2 ms per step, %L3 % of it inside kernels")
                                          .arg(run)
                                          .arg(meanStepMs, 0, 'f', 3)
                                          .arg(100.0 * inside / meanStepMs, 0, 'f', 1)
                                    : tr("Host time by kernel, %1").arg(run));
  m_table->setSortingEnabled(false);
  m_table->setRowCount(static_cast<int>(ops.size()));
  for (size_t i = 0; i < ops.size(); ++i) {
    const driver::OpTime& op = ops[i];
    const int row = static_cast<int>(i);
    m_table->setItem(row, Kernel, cell(QString::fromStdString(op.label)));
    m_table->setItem(row, Family, cell(QString::fromStdString(op.family)));
    m_table->setItem(row, MsPerStep, numberCell(op.msPerStep, 3));
    m_table->setItem(row, ShareOfStep, meanStepMs > 0 ? numberCell(100.0 * op.msPerStep / meanStepMs, 1, tr(" %"))
                                                      : cell(QString()));
    m_table->setItem(row, CallsPerStep, numberCell(op.callsPerStep, 1));
  }
  m_table->resizeColumnsToContents();
  m_table->horizontalHeader()->setSectionResizeMode(Kernel, QHeaderView::Stretch);
}

void OpProfileTable::showHint(const QString& hint) {
  m_caption->setText(hint);
  m_table->setRowCount(0);
}

}  // namespace dfc::views
