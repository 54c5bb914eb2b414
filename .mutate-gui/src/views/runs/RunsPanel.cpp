#include "runs/RunsPanel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "models/RunsTableModel.h"
#include "runs/OpProfileTable.h"
#include "runs/PerformanceChart.h"
#include "support/LatestJob.h"

namespace dfc::views {
namespace {

std::string storePathFor(const QString& dbPath) {
  return dbPath.isEmpty() ? profile::RunStore::defaultPath() : dbPath.toStdString();
}

struct StoreJobResult {
  RunsSnapshot snapshot;
  QString changeError;  // what went wrong with the change made before the read
};

}  // namespace

RunsPanel::RunsPanel(QWidget* parent) : QWidget(parent) {
  m_storeThread.setMaxThreadCount(1);
  m_job = new LatestJob(this);
  m_job->setThreadPool(&m_storeThread);
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
  m_chart = new PerformanceChart(this);
  m_ops = new OpProfileTable(this);
  auto* figures = new QSplitter(Qt::Horizontal, this);
  figures->addWidget(m_chart);
  figures->addWidget(m_ops);
  figures->setStretchFactor(0, 3);
  figures->setStretchFactor(1, 2);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(m_table);
  split->addWidget(figures);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  layout->addWidget(split, 1);
  layout->addWidget(m_status);

  m_confirm = [this](const QString& question) {
    return QMessageBox::question(this, tr("Delete"), question) == QMessageBox::Yes;
  };
  connect(m_filter, &QLineEdit::textChanged, this, [this](const QString& text) {
    m_proxy->setFilterFixedString(text);
    updateChart();
    updateOpProfile();
  });
  connect(refresh, &QPushButton::clicked, this, &RunsPanel::refresh);
  connect(m_table, &QTableView::doubleClicked, this, &RunsPanel::activate);
  connect(m_open, &QPushButton::clicked, this, [this] { activate(m_table->currentIndex()); });
  connect(m_delete, &QPushButton::clicked, this, &RunsPanel::deleteSelected);
  connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
    const bool any = selectedEntry() != nullptr;
    m_open->setEnabled(any);
    m_delete->setEnabled(any);
    updateOpProfile();
  });
  connect(m_proxy, &QAbstractItemModel::modelReset, this, [this] {
    m_open->setEnabled(false);
    m_delete->setEnabled(false);
    updateOpProfile();
  });
}

void RunsPanel::setDbPath(const QString& path) {
  m_dbPath = path;
  refresh();
}

RunsSnapshot RunsPanel::readStore(const QString& dbPath) {
  RunsSnapshot snapshot;
  const std::string path = storePathFor(dbPath);
  snapshot.storePath = QString::fromStdString(path);
  auto store = profile::RunStore::open(path);
  if (!store) {
    snapshot.error = tr("Cannot open the run store: %1").arg(QString::fromStdString(store.error().message()));
    return snapshot;
  }
  snapshot.opened = true;
  auto compiles = store->listCompiles();
  auto runs = store->listRuns();
  if (!compiles || !runs) {
    snapshot.error = tr("Cannot read the run store: %1")
                         .arg(QString::fromStdString(!compiles ? compiles.error().message() : runs.error().message()));
    return snapshot;
  }
  std::map<qint64, PerformanceFigures> performance;
  for (const profile::RunRecord& r : *runs) {
    if (!RunsTableModel::isPerformanceRun(r)) continue;
    auto metrics = store->metrics(r.id);
    if (!metrics) continue;  // the row still shows, without figures
    if (auto figures = RunsTableModel::performanceFrom(*metrics)) performance[r.id] = *figures;
  }
  snapshot.entries = RunsTableModel::entriesFrom(*compiles, *runs, performance);
  snapshot.compiles = compiles->size();
  snapshot.runs = runs->size();
  return snapshot;
}

void RunsPanel::refresh() { startStoreJob({}); }

bool RunsPanel::isBusy() const { return m_job->isBusy(); }

void RunsPanel::startStoreJob(std::function<QString(const std::string& storePath)> change) {
  m_job->start(
      [reader = m_reader, dbPath = m_dbPath, change = std::move(change)](const JobContext& job) {
        StoreJobResult result;
        if (dbPath == QLatin1String("-")) {
          result.snapshot.error = tr("Not recording runs (--db -).");
          return result;
        }
        // A confirmed change is made even when superseded; only its read is skipped.
        if (change) result.changeError = change(storePathFor(dbPath));
        if (!job.isCancelled()) result.snapshot = reader(dbPath);
        return result;
      },
      [this](StoreJobResult result) {
        if (!result.changeError.isEmpty()) emit errorOccurred(result.changeError);
        showSnapshot(result.snapshot);
      });
}

void RunsPanel::showSnapshot(const RunsSnapshot& snapshot) {
  if (!snapshot.opened) m_model->setEntries({});
  if (!snapshot.error.isEmpty()) {
    m_status->setText(snapshot.error);
  } else {
    m_model->setEntries(snapshot.entries);
    m_table->resizeColumnsToContents();
    m_status->setText(tr("%1: %2 compile(s), %3 run(s). Double-click a row to open it.")
                          .arg(snapshot.storePath)
                          .arg(snapshot.compiles)
                          .arg(snapshot.runs));
  }
  updateChart();
  updateOpProfile();
  emit refreshed();
}

void RunsPanel::updateChart() {
  std::vector<PerformancePoint> points;
  for (int row = 0; row < m_proxy->rowCount(); ++row) {
    const RunsEntry* e = m_model->entry(m_proxy->mapToSource(m_proxy->index(row, 0)).row());
    if (!e || !e->performance) continue;
    QDateTime started = QDateTime::fromString(e->startedAt, Qt::ISODate);
    if (!started.isValid()) continue;
    points.push_back(
        {e->name, started, e->performance->samplesPerSecond, e->performance->medianMs, e->performance->p99Ms});
  }
  m_chart->setPoints(std::move(points));
}

// The selected run's kernel profile; with nothing selected, the newest
// profiled performance run the filter shows (so the screen opens on one).
void RunsPanel::updateOpProfile() {
  const RunsEntry* e = selectedEntry();
  if (!e) {
    for (int row = 0; row < m_proxy->rowCount(); ++row) {
      const RunsEntry* c = m_model->entry(m_proxy->mapToSource(m_proxy->index(row, 0)).row());
      if (c && c->kind == RunsEntry::Kind::Performance && c->performance && !c->performance->ops.empty() &&
          (!e || c->startedAt > e->startedAt))
        e = c;
    }
    if (e) {
      m_ops->setProfile(tr("newest profiled run #%1 of %2").arg(e->id).arg(e->name), e->performance->ops,
                        e->performance->meanMs);
      return;
    }
  }
  if (!e || e->kind != RunsEntry::Kind::Performance) {
    m_ops->showHint(tr("Select a measure-performance run to see where its host time went."));
    return;
  }
  if (!e->performance || e->performance->ops.empty()) {
    m_ops->showHint(tr("Run #%1 was measured without a kernel profile: `dfc measure-performance --op-profile` "
                       "times every kernel.")
                        .arg(e->id));
    return;
  }
  m_ops->setProfile(tr("run #%1 of %2").arg(e->id).arg(e->name), e->performance->ops, e->performance->meanMs);
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
  if (e->kind == RunsEntry::Kind::Run) {  // a performance run has no trace: it opens its PEF
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
  const bool isRun = e->isRun();
  const QString question = isRun ? tr("Delete run #%1 of %2 from the run store? Its trace file stays on disk.").arg(e->id).arg(e->name)
                                 : tr("Delete compile #%1 (%2) from the run store? The PEF stays on disk; its runs are kept.")
                                       .arg(e->id)
                                       .arg(e->name);
  if (m_confirm && !m_confirm(question)) return false;
  startStoreJob([id = e->id, isRun](const std::string& storePath) -> QString {
    auto store = profile::RunStore::open(storePath);
    if (!store) return QString::fromStdString(store.error().message());
    const Status st = isRun ? store->deleteRun(id) : store->deleteCompile(id);
    return st ? QString() : tr("Delete failed: %1").arg(QString::fromStdString(st.error().message()));
  });
  return true;
}

}  // namespace dfc::views
