#pragma once
// Past compiles and runs from the run store, one row each, newest first.
// Qt::UserRole gives raw values to sort by.
#include <QAbstractTableModel>
#include <map>
#include <optional>
#include <vector>

#include "driver/run/MeasurePerformance.h"
#include "profile/RunStore.h"

namespace dfc::views {

// The figures of a `dfc measure-performance` run (its metrics in the store).
struct PerformanceFigures {
  double samplesPerSecond = 0;
  double medianMs = 0, p90Ms = 0, p99Ms = 0;
  double estSamplesPerSecond = 0;  // the chip estimate beside them
  double meanMs = 0;                // 0 when an older run did not store it
  std::vector<driver::OpTime> ops;  // host time by kernel (measured with --op-profile), largest first
};

struct RunsEntry {
  enum class Kind { Compile, Run, Performance };
  Kind kind = Kind::Compile;
  qint64 id = 0;
  QString name;       // PEF name (compile) or PEF file name (run)
  QString model;
  QString details;    // "o3, sn30, batch 32, training" / "2 epochs, loss 0.41, acc 84.1 %"
  QString startedAt;
  QString status;     // compiled / running / finished / failed
  double durationMs = -1;  // compiles only
  QString pefPath;
  QString tracePath;  // runs only
  std::optional<PerformanceFigures> performance;  // Kind::Performance, when its metrics were stored
  bool isRun() const { return kind != Kind::Compile; }
};

class RunsTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Kind, Id, Name, Details, Started, Status, Path, ColumnCount };
  static constexpr int SortRole = Qt::UserRole;

  explicit RunsTableModel(QObject* parent = nullptr);

  void setEntries(std::vector<RunsEntry> entries);
  const std::vector<RunsEntry>& entries() const { return m_entries; }
  const RunsEntry* entry(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  // `performance`: the figures of measure-performance runs, by run id (performanceFrom of their metrics).
  static std::vector<RunsEntry> entriesFrom(const std::vector<profile::CompileRecord>& compiles,
                                            const std::vector<profile::RunRecord>& runs,
                                            const std::map<qint64, PerformanceFigures>& performance = {});
  // A run recorded by `dfc measure-performance` (its command line says so).
  static bool isPerformanceRun(const profile::RunRecord& run);
  static std::optional<PerformanceFigures> performanceFrom(const std::vector<profile::MetricRecord>& metrics);

 private:
  std::vector<RunsEntry> m_entries;
};

}  // namespace dfc::views
