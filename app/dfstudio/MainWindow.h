#pragma once
// Graph on the left, timeline on the right, slice details below. Files load
// on worker threads; a newer open supersedes an older one still loading.
#include <QMainWindow>

#include "DocumentLoaders.h"
#include "timeline/SliceInfo.h"

class QLabel;
class QTextBrowser;

namespace dfc::views {
class GraphView;
class TimelineView;
}  // namespace dfc::views

namespace dfc::studio {

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(DocumentLoaders loaders, QString dbPath = {}, QWidget* parent = nullptr);

  void openFile(const QString& path);  // *.json: trace; anything else: PEF
  void openPef(const QString& path);
  void openTrace(const QString& path);

  // True while a file loads or the graph layout runs.
  bool isBusy() const;
  views::GraphView* graphView() const { return m_graph; }
  views::TimelineView* timelineView() const { return m_timeline; }
  QTextBrowser* detailsPane() const { return m_details; }

 signals:
  void idle();  // all loads and the layout have finished (or failed)
  void loadFailed(const QString& message);

 private:
  void createMenus();
  void showError(const QString& message);
  void showSlice(const views::SliceInfo& slice);
  void showNode(int graphNodeIndex);
  void finishOne();
  void checkIdle();

  DocumentLoaders m_loaders;
  QString m_dbPath;
  views::GraphView* m_graph = nullptr;
  views::TimelineView* m_timeline = nullptr;
  QTextBrowser* m_details = nullptr;
  QLabel* m_summary = nullptr;
  int m_loadsInFlight = 0;
  quint64 m_pefGeneration = 0;
  quint64 m_traceGeneration = 0;
};

}  // namespace dfc::studio
