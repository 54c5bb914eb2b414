#include "runs/RunsPanel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include "models/RunsTableModel.h"

namespace dfc::views {

RunsPanel::RunsPanel(QWidget* parent) : QWidget(parent) {
  m_model = new RunsTableModel(this);
  m_proxy = new QSortFilterProxyModel(this);
  m_proxy->setSourceModel(m_model);
  m_proxy->setSortRole(RunsTableModel::SortRole);
  m_proxy->setFilterKeyColumn(-1);  // any column
  m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);

  m_table = new QTableView(this);
  m_table->setModel(m_proxy);
  m_table->setSortingEnabled(true);
  m_table->sortByColumn(RunsTableModel::Started, Qt::DescendingOrder);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->verticalHeader()->hide();
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->setAlternatingRowColors(true);

  m_filter = new QLineEdit(this);
  m_filter->setPlaceholderText(tr("Filter by model, PEF, arch, status..."));
  m_filter->setClearButtonEnabled(true);
  auto* refresh = new QPushButton(tr("&Refresh"), this);
  m_open = new QPushButton(tr("&Open"), this);
  m_delete = new QPushButton(tr("&Delete..."), this);
  m_open->setEnabled(false);
  m_delete->setEnabled(false);
  m_status = new QLabel(this);

  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Filter:"), this));
  bar->addWidget(m_filter, 1);
  bar->addWidget(refresh);
  bar->addWidget(m_open);
  bar->addWidget(m_delete);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(bar);
  layout->addWidget(m_table, 1);
  layout->addWidget(m_status);

  m_confirm = [this](const QString& question) {
    return QMessageBox::question(this, tr("Delete"), question) == QMessageBox::Yes;
  };
  connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
  connect(refresh, &QPushButton::clicked, this, &RunsPanel::refresh);
  connect(m_table, &QTableView::doubleClicked, this, &RunsPanel::activate);
  connect(m_open, &QPushButton::clicked, this, [this] { activate(m_table->currentIndex()); });
  connect(m_delete, &QPushButton::clicked, this, &RunsPanel::deleteSelected);
  connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
    const bool any = selectedEntry() != nullptr;
    m_open->setEnabled(any);
    m_delete->setEnabled(any);
  });
  connect(m_proxy, &QAbstractItemModel::modelReset, this, [this] {
    m_open->setEnabled(false);
    m_delete->setEnabled(false);
  });
}

void RunsPanel::setDbPath(const QString& path) {
  m_dbPath = path;
  refresh();
}

void RunsPanel::refresh() {
  if (m_dbPath == QLatin1String("-")) {
    m_model->setEntries({});
    m_status->setText(tr("Not recording runs (--db -)."));
    return;
  }
  const std::string path = m_dbPath.isEmpty() ? profile::RunStore::defaultPath() : m_dbPath.toStdString();
  auto store = profile::RunStore::open(path);
  if (!store) {
    m_model->setEntries({});
    m_status->setText(tr("Cannot open the run store: %1").arg(QString::fromStdString(store.error().message())));
    return;
  }
  auto compiles = store->listCompiles();
  auto runs = store->listRuns();
  if (!compiles || !runs) {
    m_status->setText(tr("Cannot read the run store: %1")
                          .arg(QString::fromStdString(!compiles ? compiles.error().message() : runs.error().message())));
    return;
  }
  m_model->setEntries(RunsTableModel::entriesFrom(*compiles, *runs));
  m_table->resizeColumnsToContents();
  m_status->setText(tr("%1: %2 compile(s), %3 run(s). Double-click a row to open it.")
                        .arg(QString::fromStdString(path))
                        .arg(compiles->size())
                        .arg(runs->size()));
}

const RunsEntry* RunsPanel::selectedEntry() const {
  const QModelIndexList rows = m_table->selectionModel()->selectedRows();
  if (rows.isEmpty()) return nullptr;
  return m_model->entry(m_proxy->mapToSource(rows.first()).row());
}

void RunsPanel::activate(const QModelIndex& proxyIndex) {
  if (!proxyIndex.isValid()) return;
  const RunsEntry* e = m_model->entry(m_proxy->mapToSource(proxyIndex).row());
  if (!e) return;
  if (e->kind == RunsEntry::Kind::Run) {
    if (e->tracePath.isEmpty()) {
      emit errorOccurred(tr("Run #%1 has no trace file (status: %2).").arg(e->id).arg(e->status));
      return;
    }
    emit openTraceRequested(e->tracePath, e->pefPath);
  } else {
    emit openPefRequested(e->pefPath);
  }
}

bool RunsPanel::deleteSelected() {
  const RunsEntry* e = selectedEntry();
  if (!e) return false;
  const bool isRun = e->kind == RunsEntry::Kind::Run;
  const QString question = isRun ? tr("Delete run #%1 of %2 from the run store? Its trace file stays on disk.").arg(e->id).arg(e->name)
                                 : tr("Delete compile #%1 (%2) from the run store? The PEF stays on disk; its runs are kept.")
                                       .arg(e->id)
                                       .arg(e->name);
  if (m_confirm && !m_confirm(question)) return false;
  const std::string path = m_dbPath.isEmpty() ? profile::RunStore::defaultPath() : m_dbPath.toStdString();
  auto store = profile::RunStore::open(path);
  if (!store) {
    emit errorOccurred(QString::fromStdString(store.error().message()));
    return false;
  }
  const Status st = isRun ? store->deleteRun(e->id) : store->deleteCompile(e->id);
  if (!st) {
    emit errorOccurred(tr("Delete failed: %1").arg(QString::fromStdString(st.error().message())));
    return false;
  }
  refresh();
  return true;
}

}  // namespace dfc::views
