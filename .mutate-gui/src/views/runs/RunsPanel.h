#pragma once
// Browser of past compiles and runs in the run store: sortable, filterable by
// text, delete with confirmation; double-click opens a compile's PEF or a
// run's trace. The store is read and written off the UI thread, one job at a
// time and in order; a newer refresh supersedes an older one.
#include <QThreadPool>
#include <QWidget>
#include <functional>
#include <vector>

#include "models/RunsTableModel.h"

class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace dfc::views {

class LatestJob;
class OpProfileTable;
class PerformanceChart;

// What one read of the store found.
struct RunsSnapshot {
  QString storePath;
  QString error;        // empty when the store was read
  bool opened = false;  // false: the store could not be opened (or none is kept): no rows to show
  std::vector<RunsEntry> entries;
  size_t compiles = 0;
  size_t runs = 0;
};

class RunsPanel : public QWidget {
  Q_OBJECT

 public:
  explicit RunsPanel(QWidget* parent = nullptr);

  // Reads the store at `dbPath` ("" = the default one); runs on a worker thread.
  using StoreReader = std::function<RunsSnapshot(const QString& dbPath)>;
  static RunsSnapshot readStore(const QString& dbPath);

  // "" = the default store. Reloads.
  void setDbPath(const QString& path);
  QString dbPath() const { return m_dbPath; }
  // Reloads in the background; refreshed() says when the rows are in.
  void refresh();
  bool isBusy() const;
  // Replaces readStore (tests watch where and how often the store is read).
  void setStoreReader(StoreReader reader) { m_reader = std::move(reader); }
  // Asked before deleting; default: a QMessageBox question. Tests replace it.
  void setConfirm(std::function<bool(const QString& question)> confirm) { m_confirm = std::move(confirm); }
  // Deletes the selected row from the store in the background, then reloads;
  // false if nothing was selected or the question was declined.
  bool deleteSelected();

  RunsTableModel* model() const { return m_model; }
  QSortFilterProxyModel* proxy() const { return m_proxy; }
  QTableView* table() const { return m_table; }
  QLineEdit* filterEdit() const { return m_filter; }
  // measure-performance runs among the rows the filter shows, over time.
  PerformanceChart* performanceChart() const { return m_chart; }
  // The selected measure-performance run's host time by kernel.
  OpProfileTable* opProfile() const { return m_ops; }

 signals:
  void openPefRequested(const QString& pefPath);
  void openTraceRequested(const QString& tracePath, const QString& pefPath);
  void errorOccurred(const QString& message);
  void refreshed();  // the table shows a fresh read of the store (or says why it cannot)

 private:
  void activate(const QModelIndex& proxyIndex);
  const RunsEntry* selectedEntry() const;
  // Runs `change` (may be empty) and a read of the store on the store's thread, then shows the rows.
  void startStoreJob(std::function<QString(const std::string& storePath)> change);
  void showSnapshot(const RunsSnapshot& snapshot);
  void updateChart();
  void updateOpProfile();

  QString m_dbPath;
  RunsTableModel* m_model = nullptr;
  QSortFilterProxyModel* m_proxy = nullptr;
  QTableView* m_table = nullptr;
  QLineEdit* m_filter = nullptr;
  QPushButton* m_open = nullptr;
  QPushButton* m_delete = nullptr;
  QLabel* m_status = nullptr;
  PerformanceChart* m_chart = nullptr;
  OpProfileTable* m_ops = nullptr;
  std::function<bool(const QString&)> m_confirm;
  StoreReader m_reader = &RunsPanel::readStore;
  QThreadPool m_storeThread;  // one thread: the store's reads and deletes stay in order
  LatestJob* m_job = nullptr;
};

}  // namespace dfc::views
