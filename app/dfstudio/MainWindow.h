#pragma once
// The screens as tabs (Screens.cpp): Compile, Graph + Timeline (slice details
// below), Schedule, Runs, Compare, Memory and Roofline; a toolbar, menus with shortcuts, Export, About.
// Files load on worker threads (views::LatestJob); a newer open supersedes an
// older one still loading. Compile and run belong to a Session. Window
// geometry and state are remembered (QSettings).
#include <QMainWindow>

#include "DocumentLoaders.h"
#include "style/ColorIdentity.h"
#include "timeline/SliceInfo.h"

class QAction;
class QLabel;
class QSplitter;
class QStackedWidget;
class QTabWidget;
class QTextBrowser;

namespace dfc::views {
struct NodeDetails;
class ChipPanel;
class ComparePanel;
class CompilePanel;
class GraphPanel;
class GraphView;
class MemoryPanel;
class RooflinePanel;
class LatestJob;
class RunsPanel;
class SchedulePanel;
class SelectionState;
class RangeTablePanel;
class TimelinePanel;
class TimelineView;
}  // namespace dfc::views

namespace dfc::studio {

class DecisionsController;
class Session;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  enum class Screen { Compile, GraphTimeline, Schedule, Runs, Compare, Memory, Roofline, Chip };

  explicit MainWindow(DocumentLoaders loaders, QString dbPath = {}, QWidget* parent = nullptr);

  // Each kind of file opens where it is seen: *.json(.gz): a trace, on Graph &
  // Timeline; *.onnx, *.dfir: a model, on Compile; else a PEF, on Graph & Timeline.
  void openFile(const QString& path);
  // Also opens the trace of its newest run, and fills the Compile form with
  // the settings it was compiled with.
  void openPef(const QString& path);
  void openTrace(const QString& path);
  // A .onnx or .dfir file: the Compile form, reset to the defaults for it, is shown.
  void openModel(const QString& path);

  // Hypersection colours in every view: by cost (the default) or by identity.
  void setColorScheme(views::ColorScheme scheme);
  views::ColorScheme colorScheme() const { return m_colorScheme; }

  // A key of the screens table (Screens.cpp), or "timeline" for the graph's; false if unknown.
  bool showScreen(const QString& name);
  void showScreen(Screen screen);
  static QStringList screenNames();

  // True while a file loads, the graph layout runs or the run store is read.
  bool isBusy() const;
  views::GraphView* graphView() const { return m_graph; }
  views::GraphPanel* graphPanel() const { return m_graphPanel; }
  views::TimelineView* timelineView() const { return m_timeline; }
  views::TimelinePanel* timelinePanel() const { return m_timelinePanel; }
  // The open PEF's colours, shared by graph, timeline and schedule (null before one).
  views::SharedColorIdentity colorIdentity() const { return m_identity; }
  QTextBrowser* detailsPane() const { return m_details; }
  views::RangeTablePanel* rangePanel() const { return m_rangePanel; }
  views::CompilePanel* compilePanel() const { return m_compile; }
  Session* session() const { return m_session; }
  views::SchedulePanel* schedulePanel() const { return m_schedule; }
  views::RunsPanel* runsPanel() const { return m_runs; }
  views::ComparePanel* comparePanel() const { return m_comparePanel; }
  views::MemoryPanel* memoryPanel() const { return m_memory; }
  views::RooflinePanel* rooflinePanel() const { return m_roofline; }
  views::ChipPanel* chipPanel() const { return m_chip; }
  // The graph's decisions menu: picked nodes -> a decisions file -> recompile and compare.
  DecisionsController* decisions() const { return m_decisions; }
  // Selected time range, section and zoom history, shared by timeline and graph.
  views::SelectionState* selection() const { return m_selection; }
  QTabWidget* tabs() const { return m_tabs; }
  // The Graph & Timeline screen's panes: graph | timeline above, details below,
  // and the one-line hint shown in place of an empty pane.
  QSplitter* paneSplitter() const { return m_top; }
  QSplitter* detailsSplitter() const { return m_outer; }
  QLabel* paneHint() const { return m_paneHint; }
  QAction* exportSelectionAction() const { return m_exportWithSelection; }
  QString pefPath() const { return m_pefPath; }
  QString tracePath() const { return m_tracePath; }

  // Export (also from the Export menu, which asks for the file).
  bool exportSectionReport(const QString& path, QString* error = nullptr);
  void exportChromeTrace(const QString& path);  // async; emits exportFinished

 signals:
  void idle();  // all loads and the layout have finished (or failed)
  void loadFailed(const QString& message);
  void warned(const QString& message);  // a load that kept going (a cut-off trace)
  void exportFinished(bool ok, const QString& message);

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void createScreenWidgets();
  QWidget* buildGraphScreen();
  void connectViews();
  void connectScreens();
  // Memory and Roofline: a tensor or a point picked there selects in the graph, schedule and timeline.
  void connectAnalysisScreens();
  void selectTensorProducer(int producerNode, int section, const QString& tensor);
  void restoreWindow();
  void createActions();
  void createOpenActions();
  void createFindActions();
  void createSessionActions();
  void createExportActions();
  void createMenus();
  void loadPef(const QString& path, bool withTrace);
  void showError(const QString& message);
  void showWarning(const QString& message);
  void showMessageBox(int icon, const QString& message);  // QMessageBox::Icon
  void showSlice(const views::SliceInfo& slice);
  // Links the timeline to the graph only when the trace names the open PEF
  // (its `pef_hash` is the PEF's content hash); else says whose trace it is.
  void updateTracePairing();
  void showNode(const views::NodeDetails& node);
  void fillCompileForm(const pef::Pef& pef, const QString& path);
  void applyColorIdentity();
  // Shows the panes that have something (an empty one gives way to a one-line hint).
  void updatePanes();
  void growDetails();     // the details pane takes the height its contents need
  void collapseDetails(); // ... or a thin strip while nothing is selected
  void onPaneHintLink(const QString& link);
  void showAbout();
  void updateActions();
  void checkIdle();
  void connectSession();

  DocumentLoaders m_loaders;
  QString m_dbPath;
  QString m_pefPath;
  std::shared_ptr<const pef::Pef> m_pef;
  views::ColorScheme m_colorScheme = views::ColorScheme::Cost;
  QString m_pefHash;  // the open PEF's content hash (pef::Pef::contentHash)
  QString m_tracePath;
  Session* m_session = nullptr;
  views::LatestJob* m_pefJob = nullptr;
  views::LatestJob* m_traceJob = nullptr;
  views::LatestJob* m_exportJob = nullptr;
  QTabWidget* m_tabs = nullptr;
  views::SelectionState* m_selection = nullptr;
  views::CompilePanel* m_compile = nullptr;
  views::GraphPanel* m_graphPanel = nullptr;
  views::GraphView* m_graph = nullptr;
  views::TimelineView* m_timeline = nullptr;
  views::TimelinePanel* m_timelinePanel = nullptr;
  views::SharedColorIdentity m_identity;
  views::SchedulePanel* m_schedule = nullptr;
  views::RunsPanel* m_runs = nullptr;
  views::ComparePanel* m_comparePanel = nullptr;
  views::MemoryPanel* m_memory = nullptr;
  views::RooflinePanel* m_roofline = nullptr;
  views::ChipPanel* m_chip = nullptr;
  DecisionsController* m_decisions = nullptr;
  QTextBrowser* m_details = nullptr;
  views::RangeTablePanel* m_rangePanel = nullptr;
  QStackedWidget* m_bottom = nullptr;
  QSplitter* m_top = nullptr;
  QSplitter* m_outer = nullptr;
  QLabel* m_paneHint = nullptr;
  QLabel* m_summary = nullptr;
  QAction* m_openPef = nullptr;
  QAction* m_openTrace = nullptr;
  QAction* m_openModel = nullptr;
  QAction* m_find = nullptr;
  QAction* m_fitGraph = nullptr;
  QAction* m_compileAction = nullptr;
  QAction* m_runAction = nullptr;
  QAction* m_cancelAction = nullptr;
  QAction* m_exportTrace = nullptr;
  QAction* m_exportReport = nullptr;
  QAction* m_exportGraph[3] = {nullptr, nullptr, nullptr};  // DOT, SVG, PNG
  QAction* m_exportWithSelection = nullptr;  // graph exports show the selection
  QAction* m_colorByCost = nullptr;
  QAction* m_quit = nullptr;
};

}  // namespace dfc::studio
