#include "models/RunsTableModel.h"

#include <QFileInfo>
#include <algorithm>

namespace dfc::views {

RunsTableModel::RunsTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void RunsTableModel::setEntries(std::vector<RunsEntry> entries) {
  beginResetModel();
  m_entries = std::move(entries);
  endResetModel();
}

const RunsEntry* RunsTableModel::entry(int row) const {
  return row >= 0 && static_cast<size_t>(row) < m_entries.size() ? &m_entries[static_cast<size_t>(row)] : nullptr;
}

bool RunsTableModel::isPerformanceRun(const profile::RunRecord& run) {
  return QString::fromStdString(run.args).startsWith(QLatin1String("dfc measure-performance"));
}

std::optional<PerformanceFigures> RunsTableModel::performanceFrom(const std::vector<profile::MetricRecord>& metrics) {
  PerformanceFigures f;
  const std::map<std::string, double*> fields = {{"samples_per_s", &f.samplesPerSecond},
                                                 {"latency_median_ms", &f.medianMs},
                                                 {"latency_mean_ms", &f.meanMs},
                                                 {"latency_p90_ms", &f.p90Ms},
                                                 {"latency_p99_ms", &f.p99Ms},
                                                 {"est_samples_per_s", &f.estSamplesPerSecond}};
  size_t found = 0;
  for (const auto& m : metrics)
    if (auto it = fields.find(m.name); it != fields.end()) {
      *it->second = m.value;
      ++found;
    }
  if (found == 0) return std::nullopt;
  f.ops = driver::opProfileFromMetrics(metrics);
  return f;
}

namespace {

QString performanceDetails(const PerformanceFigures& f) {
  return RunsTableModel::tr("%L1 samples/s, step median %L2 ms (p90 %L3, p99 %L4); chip estimate %L5 samples/s")
      .arg(f.samplesPerSecond, 0, 'f', 1)
      .arg(f.medianMs, 0, 'f', 3)
      .arg(f.p90Ms, 0, 'f', 3)
      .arg(f.p99Ms, 0, 'f', 3)
      .arg(f.estSamplesPerSecond, 0, 'f', 0);
}

}  // namespace

std::vector<RunsEntry> RunsTableModel::entriesFrom(const std::vector<profile::CompileRecord>& compiles,
                                                   const std::vector<profile::RunRecord>& runs,
                                                   const std::map<qint64, PerformanceFigures>& performance) {
  std::vector<RunsEntry> out;
  for (const auto& c : compiles) {
    RunsEntry e;
    e.kind = RunsEntry::Kind::Compile;
    e.id = c.id;
    e.name = QString::fromStdString(c.pefName);
    e.model = QString::fromStdString(c.model);
    e.details = tr("%1, %2, batch %3, %4")
                    .arg(QString::fromStdString(c.optLevel), QString::fromStdString(c.arch))
                    .arg(c.batchSize)
                    .arg(c.inference ? tr("inference") : tr("training"));
    e.startedAt = QString::fromStdString(c.startedAt);
    e.status = tr("compiled");
    e.durationMs = c.durationMs;
    e.pefPath = QString::fromStdString(c.pefPath);
    out.push_back(std::move(e));
  }
  for (const auto& r : runs) {
    RunsEntry e;
    e.kind = RunsEntry::Kind::Run;
    e.id = r.id;
    e.pefPath = QString::fromStdString(r.pefPath);
    e.name = QFileInfo(e.pefPath).completeBaseName();
    QStringList parts;
    parts << tr("%n epoch(s)", nullptr, r.epochs);
    if (r.finalLoss) parts << tr("loss %1").arg(*r.finalLoss, 0, 'f', 4);
    if (r.testAccuracy) parts << tr("accuracy %1 %").arg(*r.testAccuracy * 100.0, 0, 'f', 1);
    if (r.compileId) parts << tr("compile #%1").arg(*r.compileId);
    e.details = parts.join(QStringLiteral(", "));
    if (isPerformanceRun(r)) {
      e.kind = RunsEntry::Kind::Performance;
      if (auto it = performance.find(r.id); it != performance.end()) {
        e.performance = it->second;
        e.details = performanceDetails(it->second);
      }
    }
    e.startedAt = QString::fromStdString(r.startedAt);
    e.status = r.status == "finished" ? tr("finished") : r.status == "failed" ? tr("failed")
               : r.status == "running" ? tr("running") : r.status == "died" ? tr("died (did not finish)")
               : QString::fromStdString(r.status);
    e.tracePath = QString::fromStdString(r.tracePath);
    out.push_back(std::move(e));
  }
  std::stable_sort(out.begin(), out.end(), [](const RunsEntry& a, const RunsEntry& b) { return a.startedAt > b.startedAt; });
  return out;
}

int RunsTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_entries.size());
}

int RunsTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant RunsTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const RunsEntry& e = m_entries[static_cast<size_t>(index.row())];
  const bool isRun = e.kind == RunsEntry::Kind::Run;
  if (role == SortRole && index.column() == Id) return e.id;
  if (role == Qt::ToolTipRole) {
    if (e.kind == RunsEntry::Kind::Performance) return tr("Double-click to open the measured PEF\n%1").arg(e.pefPath);
    return isRun ? tr("Double-click to open the trace of this run\n%1").arg(e.tracePath)
                 : tr("Double-click to open this PEF\n%1").arg(e.pefPath);
  }
  if (role != Qt::DisplayRole && role != SortRole) return {};
  switch (index.column()) {
    case Kind: return e.kind == RunsEntry::Kind::Performance ? tr("performance") : isRun ? tr("run") : tr("compile");
    case Id: return e.id;
    case Name: return e.model.isEmpty() || e.model == e.name ? e.name : QStringLiteral("%1 (%2)").arg(e.name, e.model);
    case Details: return e.details;
    case Started: return e.startedAt;
    case Status:
      return e.durationMs >= 0 ? tr("%1 in %2 ms").arg(e.status).arg(e.durationMs, 0, 'f', 0) : e.status;
    case Path: return isRun ? e.tracePath : e.pefPath;  // compiles and performance runs: the PEF
    default: return {};
  }
}

QVariant RunsTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
  switch (section) {
    case Kind: return tr("Kind");
    case Id: return tr("ID");
    case Name: return tr("PEF (model)");
    case Details: return tr("Details");
    case Started: return tr("Started (UTC)");
    case Status: return tr("Status");
    case Path: return tr("File");
    default: return {};
  }
}

}  // namespace dfc::views
