#pragma once
// Browser of past compiles and runs in the run store: sortable, filterable by
// text, delete with confirmation; double-click opens a compile's PEF or a
// run's trace.
#include <QWidget>
#include <functional>

class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace dfc::views {

class RunsTableModel;
struct RunsEntry;

class RunsPanel : public QWidget {
  Q_OBJECT

 public:
  explicit RunsPanel(QWidget* parent = nullptr);

  // "" = the default store. Reloads.
  void setDbPath(const QString& path);
  QString dbPath() const { return m_dbPath; }
  void refresh();
  // Asked before deleting; default: a QMessageBox question. Tests replace it.
  void setConfirm(std::function<bool(const QString& question)> confirm) { m_confirm = std::move(confirm); }
  bool deleteSelected();  // true if something was deleted

  RunsTableModel* model() const { return m_model; }
  QSortFilterProxyModel* proxy() const { return m_proxy; }
  QTableView* table() const { return m_table; }
  QLineEdit* filterEdit() const { return m_filter; }

 signals:
  void openPefRequested(const QString& pefPath);
  void openTraceRequested(const QString& tracePath, const QString& pefPath);
  void errorOccurred(const QString& message);

 private:
  void activate(const QModelIndex& proxyIndex);
  const RunsEntry* selectedEntry() const;

  QString m_dbPath;
  RunsTableModel* m_model = nullptr;
  QSortFilterProxyModel* m_proxy = nullptr;
  QTableView* m_table = nullptr;
  QLineEdit* m_filter = nullptr;
  QPushButton* m_open = nullptr;
  QPushButton* m_delete = nullptr;
  QLabel* m_status = nullptr;
  std::function<bool(const QString&)> m_confirm;
};

}  // namespace dfc::views
