#include "MainWindow.h"

#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "DecisionsController.h"
#include "NodeDetailsHtml.h"
#include "Screens.h"
#include "Session.h"
#include "SessionBinding.h"
#include "chip/ChipPanel.h"
#include "compare/ComparePanel.h"
#include "compare/CompareView.h"
#include "compile/CompilePanel.h"
#include "graph/GraphData.h"
#include "graph/GraphDetails.h"
#include "graph/GraphOverlay.h"
#include "graph/GraphPanel.h"
#include "graph/GraphView.h"
#include "memory/MemoryData.h"
#include "memory/MemoryPanel.h"
#include "roofline/RooflineData.h"
#include "roofline/RooflinePanel.h"
#include "runs/RunsPanel.h"
#include "schedule/ScheduleData.h"
#include "schedule/SchedulePanel.h"
#include "selection/SelectionState.h"
#include "support/LatestJob.h"
#include "timeline/RangeTable.h"
#include "timeline/TimelineData.h"
#include "timeline/TimelinePanel.h"
#include "timeline/TimelineView.h"

namespace dfc::studio {
namespace {

struct PefLoad {
  QString error;
  std::shared_ptr<const pef::Pef> pef;  // the graph view keeps its IR and plan
  views::ScheduleData schedule;
  views::MemoryViewData memory;
  views::RooflineViewData roofline;
  QString title;      // "lenet (o3, sn30)"
  QString tracePath;  // "" if no run of this PEF is known
};

struct TraceLoad {
  QString error;
  views::TimelineData timeline;
};

QString fromStd(const std::string& text) { return QString::fromStdString(text); }

// Section id -> mean measured host microseconds per call (the roofline's host points).
std::map<int, double> measuredMeans(const views::ScheduleData& schedule) {
  std::map<int, double> means;
  for (const views::ScheduleSection& s : schedule.sections)
    if (s.measuredMeanUs) means[s.id] = *s.measuredMeanUs;
  return means;
}

PefLoad readPefLoad(const DocumentLoaders& loaders, const QString& path, const QString& dbPath, bool withTrace) {
  PefLoad load;
  if (!loaders.readPef) {
    load.error = MainWindow::tr("Reading PEF files is not available in this build");
    return load;
  }
  auto pef = loaders.readPef(path.toStdString());
  if (!pef) {
    load.error = fromStd(pef.error().message());
    return load;
  }
  auto shared = std::make_shared<pef::Pef>(std::move(pef.value()));
  const std::string absolute = QFileInfo(path).absoluteFilePath().toStdString();
  load.schedule = views::buildScheduleData(
      *shared, loaders.measuredSections ? loaders.measuredSections(absolute, dbPath.toStdString()) : views::MeasuredSections{});
  load.memory = views::buildMemoryViewData(*shared);
  load.roofline = views::buildRooflineViewData(*shared, measuredMeans(load.schedule));
  load.title = QStringLiteral("%1 (%2, %3)")
                   .arg(fromStd(shared->meta.pefName.empty() ? shared->meta.model : shared->meta.pefName),
                        fromStd(shared->meta.optLevel), fromStd(shared->meta.arch));
  load.pef = std::move(shared);
  if (withTrace) load.tracePath = findTraceForPef(loaders, path, dbPath);
  return load;
}

TraceLoad readTraceLoad(const DocumentLoaders& loaders, const QString& path) {
  TraceLoad load;
  if (loaders.readCompactTrace) {
    auto compact = loaders.readCompactTrace(path.toStdString());
    if (!compact) {
      load.error = fromStd(compact.error().message());
      return load;
    }
    load.timeline = views::buildTimelineData(std::move(compact.value()));
    return load;
  }
  if (!loaders.readTrace) {
    load.error = MainWindow::tr("Reading traces is not available in this build");
    return load;
  }
  auto trace = loaders.readTrace(path.toStdString());
  if (!trace) {
    load.error = fromStd(trace.error().message());
    return load;
  }
  load.timeline = views::buildTimelineData(trace.value());
  return load;
}

// Fold by hyperfunction from ~150 ops: a training graph of a 2-layer GPT
// (gpt2-mini, ~170 ops) then opens as its layers, which reads far better
// in the screen's half-width graph pane than a flat tower of ops.
views::GraphDataOptions graphOptions() {
  views::GraphDataOptions options;
  options.collapseAbove = 150;
  return options;
}

}  // namespace

MainWindow::MainWindow(DocumentLoaders loaders, QString dbPath, QWidget* parent)
    : QMainWindow(parent), m_loaders(std::move(loaders)), m_dbPath(std::move(dbPath)) {
  setWindowTitle(tr("Dataflow Studio"));
  setObjectName(QStringLiteral("MainWindow"));
  m_session = new Session(this);
  m_pefJob = new views::LatestJob(this);
  m_traceJob = new views::LatestJob(this);
  m_exportJob = new views::LatestJob(this);
  createScreenWidgets();
  QWidget* graphScreen = buildGraphScreen();

  m_tabs = new QTabWidget(this);
  m_tabs->setDocumentMode(true);
  QWidget* const screenWidgets[] = {m_compile,      graphScreen, m_schedule, m_runs,
                                    m_comparePanel, m_memory,    m_roofline, m_chip};  // Screen order
  for (const auto& screen : screens()) m_tabs->addTab(screenWidgets[static_cast<int>(screen.id)], screenTitle(screen));
  setCentralWidget(m_tabs);

  m_summary = new QLabel(this);
  statusBar()->addPermanentWidget(m_summary);
  statusBar()->showMessage(tr("Ready"));
  createActions();
  createMenus();
  connectViews();
  connectSession();
  m_decisions = new DecisionsController(m_graph, m_session, m_dbPath, this);
  connectScreens();
  connectAnalysisScreens();
  restoreWindow();
}

// The screens' widgets; the graph and the timeline share one selection.
void MainWindow::createScreenWidgets() {
  m_compile = new views::CompilePanel(this);
  m_compile->setDbPath(m_dbPath);
  m_graphPanel = new views::GraphPanel(this);
  m_graph = m_graphPanel->view();
  m_timelinePanel = new views::TimelinePanel(this);
  m_timeline = m_timelinePanel->view();
  m_selection = new views::SelectionState(this);
  m_timeline->setSelectionState(m_selection);
  m_graphPanel->setSelectionState(m_selection);
  m_schedule = new views::SchedulePanel(this);
  m_runs = new views::RunsPanel(this);
  m_comparePanel = new views::ComparePanel(m_loaders, m_dbPath, this);
  m_memory = new views::MemoryPanel(this);
  m_roofline = new views::RooflinePanel(this);
  m_chip = new views::ChipPanel(this);
  m_details = new QTextBrowser(this);
  m_details->setPlaceholderText(tr("Click a slice in the timeline or a node in the graph to see its details."));
}

// Graph & Timeline: graph beside timeline above the details (or a time range's
// table), under a one-line hint while a pane is empty.
QWidget* MainWindow::buildGraphScreen() {
  m_top = new QSplitter(Qt::Horizontal);
  m_top->addWidget(m_graphPanel);
  m_top->addWidget(m_timelinePanel);
  m_top->setStretchFactor(0, 2);
  m_top->setStretchFactor(1, 3);
  m_top->setSizes({700, 800});  // stretch factors alone leave the graph a sliver
  m_outer = new QSplitter(Qt::Vertical);
  // Below: a slice's or node's details, or the table of a selected time range.
  m_rangePanel = new views::RangeTablePanel(this);
  m_rangePanel->attach(m_timeline);
  m_bottom = new QStackedWidget(this);
  m_bottom->addWidget(m_details);
  m_bottom->addWidget(m_rangePanel);
  m_outer->addWidget(m_top);
  m_outer->addWidget(m_bottom);
  m_outer->setStretchFactor(0, 1);
  m_outer->setStretchFactor(1, 0);
  m_outer->setChildrenCollapsible(false);
  // In place of an empty pane: one line saying what would fill it.
  m_paneHint = new QLabel(this);
  m_paneHint->setStyleSheet(QStringLiteral("QLabel { background: #eef3fb; color: #23395d; padding: 3px 6px; }"));
  m_paneHint->setTextFormat(Qt::RichText);
  m_paneHint->setVisible(false);
  connect(m_paneHint, &QLabel::linkActivated, this, &MainWindow::onPaneHintLink);
  auto* graphScreen = new QWidget(this);
  auto* graphLayout = new QVBoxLayout(graphScreen);
  graphLayout->setContentsMargins(0, 0, 0, 0);
  graphLayout->setSpacing(0);
  graphLayout->addWidget(m_paneHint);
  graphLayout->addWidget(m_outer, 1);
  return graphScreen;
}

// Graph, timeline, range table and schedule: a pick in one shows in the others.
void MainWindow::connectViews() {
  connect(m_timeline, &views::TimelineView::sliceSelected, this, &MainWindow::showSlice);
  connect(m_timeline, &views::TimelineView::selectionCleared, this, [this] {
    m_details->clear();
    collapseDetails();
  });
  connect(m_timeline, &views::TimelineView::rangeSelected, this, [this] {
    m_bottom->setCurrentWidget(m_rangePanel);
    growDetails();
  });
  connect(m_timeline, &views::TimelineView::rangeCleared, this, [this] {
    m_bottom->setCurrentWidget(m_details);
    if (m_details->toPlainText().isEmpty()) collapseDetails();
  });
  connect(m_rangePanel, &views::RangeTablePanel::rowActivated, this, [this](const QString& key, profile::GroupBy by) {
    if (by == profile::GroupBy::Section && m_timeline->isLinked())
      m_selection->selectSection(key.section(QLatin1Char(' '), 0, 0).toInt());
    else if (by != profile::GroupBy::Section)
      m_timelinePanel->findBox()->setText(key);
  });
  connect(m_graph, &views::GraphView::nodeSelected, this, &MainWindow::showNode);
  connect(m_graph, &views::GraphView::layoutShown, this, [this] {
    statusBar()->showMessage(tr("Graph laid out in %1 ms").arg(m_graph->currentLayout().elapsedMs, 0, 'f', 0), 5000);
    checkIdle();
  });
  connect(m_graph, &views::GraphView::layoutFailed, this, [this](const QString& message) {
    showError(tr("Graph layout failed: %1").arg(message));
    checkIdle();
  });
  // A hypersection picked in the graph's legend: its slices are found on the timeline.
  connect(m_graphPanel, &views::GraphPanel::legendKeyClicked, this,
          [this](views::GraphColorMode mode, const QString& key) {
            if (views::byHypersection(mode) && !key.isEmpty()) m_timelinePanel->findBox()->setText(key);
          });
  // Cost and Hypersection in the graph's selector are the two colour schemes of every view.
  connect(m_graphPanel, &views::GraphPanel::colorModeChosen, this, [this](views::GraphColorMode mode) {
    if (mode == views::GraphColorMode::Cost)
      setColorScheme(views::ColorScheme::Cost);
    else if (mode == views::GraphColorMode::Hypersection)
      setColorScheme(views::ColorScheme::Identity);
  });
  connect(m_graphPanel, &views::GraphPanel::notice, this,
          [this](const QString& text) { statusBar()->showMessage(text, 10000); });
  connect(m_schedule, &views::SchedulePanel::sectionSelected, m_selection,
          [this](int id) { m_selection->selectSection(id); });
  // The Chip screen follows the section picked anywhere else (schedule, graph, timeline).
  connect(m_selection, &views::SelectionState::sectionChanged, m_chip, [this](int section, const QString&) {
    if (m_pef && section >= 0 && static_cast<size_t>(section) < m_pef->plan.sections.size())
      m_chip->showSection(QString::fromStdString(m_pef->plan.sections[static_cast<size_t>(section)].name));
  });
}

// Decisions, Runs and Compare: what each hands to the rest of the window.
void MainWindow::connectScreens() {
  connect(m_decisions, &DecisionsController::message, this, [this](const QString& m) { statusBar()->showMessage(m, 10000); });
  connect(m_decisions, &DecisionsController::recompileFailed, this, &MainWindow::showError);
  // The compile before the decisions on the left, after them on the right.
  connect(m_decisions, &DecisionsController::compareReady, this, [this](const QString& before, const QString& after) {
    m_comparePanel->loadSide(0, before);
    m_comparePanel->loadSide(1, after);
    showScreen(Screen::Compare);
  });
  connect(m_runs, &views::RunsPanel::openPefRequested, this, [this](const QString& pef) {
    openPef(pef);
    showScreen(Screen::GraphTimeline);
  });
  connect(m_runs, &views::RunsPanel::openTraceRequested, this, [this](const QString& trace, const QString& pef) {
    if (QFileInfo::exists(pef)) loadPef(pef, false);
    openTrace(trace);
    showScreen(Screen::GraphTimeline);
  });
  connect(m_runs, &views::RunsPanel::errorOccurred, this, &MainWindow::showError);
  for (views::LatestJob* job : {m_pefJob, m_traceJob})
    connect(job, &views::LatestJob::busyChanged, this, [this](bool busy) {
      if (!busy) checkIdle();
    });
  connect(m_runs, &views::RunsPanel::refreshed, this, &MainWindow::checkIdle);
  connect(m_comparePanel, &views::ComparePanel::loadFailed, this, &MainWindow::showError);
  connect(m_comparePanel, &views::ComparePanel::sideLoaded, this, &MainWindow::checkIdle);
  connect(m_comparePanel->compareView(), &views::CompareView::layoutDone, this, &MainWindow::checkIdle);
  connect(m_tabs, &QTabWidget::currentChanged, this, [this](int index) {
    if (m_tabs->widget(index) == m_runs) m_runs->refresh();
  });
}

// The size, layout and screen of the last session.
void MainWindow::restoreWindow() {
  resize(1500, 900);
  const QSettings settings;
  restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
  restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
  m_tabs->setCurrentIndex(settings.value(QStringLiteral("window/screen"), 0).toInt());
  m_runs->setDbPath(m_dbPath);
  updateActions();
  updatePanes();
  collapseDetails();
}

void MainWindow::connectSession() {
  bindCompilePanel(m_session, m_compile);
  connect(m_session, &Session::busyChanged, this, &MainWindow::updateActions);
  connect(m_session, &Session::compileFinished, this, [this](bool ok, const QString& pef, const QString& message) {
    m_runs->refresh();
    if (!ok) {
      statusBar()->showMessage(message, 10000);
      return;
    }
    statusBar()->showMessage(tr("Compiled %1").arg(QFileInfo(pef).fileName()), 8000);
    loadPef(pef, false);  // a fresh PEF has no run yet; an older trace beside it would mislead
    showScreen(Screen::GraphTimeline);  // the result opens where it can be seen
  });
  connect(m_session, &Session::runFinished, this, [this](bool ok, const QString& trace, const QString& message) {
    m_runs->refresh();
    if (!ok) {
      statusBar()->showMessage(message, 10000);
      return;
    }
    const QString pef = m_compile->runOptions().pefPath.empty() ? QString() : fromStd(m_compile->runOptions().pefPath);
    if (!pef.isEmpty()) loadPef(pef, false);  // refreshes the schedule's measured times
    openTrace(trace);
    showScreen(Screen::GraphTimeline);
  });
}

void MainWindow::openFile(const QString& path) {
  if (path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive) ||
      path.endsWith(QStringLiteral(".json.gz"), Qt::CaseInsensitive)) {
    openTrace(path);
    showScreen(Screen::GraphTimeline);  // a trace is seen there, not on the Compile screen
  } else if (path.endsWith(QStringLiteral(".onnx"), Qt::CaseInsensitive) ||
             path.endsWith(QStringLiteral(".dfir"), Qt::CaseInsensitive)) {
    openModel(path);
  } else {
    openPef(path);
    showScreen(Screen::GraphTimeline);  // its graph, schedule and run are what a PEF is opened for
  }
}

void MainWindow::openPef(const QString& path) { loadPef(path, true); }

void MainWindow::loadPef(const QString& path, bool withTrace) {
  statusBar()->showMessage(tr("Loading %1...").arg(QFileInfo(path).fileName()));
  m_pefJob->start(
      [loaders = m_loaders, path, dbPath = m_dbPath, withTrace](const views::JobContext&) {
        return readPefLoad(loaders, path, dbPath, withTrace);
      },
      [this, path](PefLoad result) {
        if (!result.error.isEmpty()) return showError(result.error);
        m_pefPath = path;
        m_pef = result.pef;
        m_pefHash = fromStd(result.pef->contentHash);
        // A section, range or slice picked in the old PEF's views names nothing in this one.
        m_selection->clearSection();
        m_selection->clearTimeRange();
        m_comparePanel->setCurrentPef(path);
        m_decisions->setPef(path, result.pef);
        setWindowTitle(tr("%1 - Dataflow Studio").arg(result.title));
        m_summary->setText(tr("%n section(s)", nullptr, static_cast<int>(result.pef->plan.sections.size())));
        m_details->clear();
        collapseDetails();
        fillCompileForm(*result.pef, path);
        m_schedule->setData(std::move(result.schedule));
        m_memory->setData(std::move(result.memory));
        m_roofline->setData(std::move(result.roofline));
        m_chip->setPef(result.pef);
        // Aliasing shared_ptrs: the graph and plan live as long as the PEF.
        m_graph->setModel(std::shared_ptr<const ir::Graph>(result.pef, &result.pef->graph),
                          std::shared_ptr<const partition::Plan>(result.pef, &result.pef->plan), graphOptions());
        applyColorIdentity();  // one set of colours for this PEF's graph, timeline and schedule
        m_graph->setOverlay(std::make_shared<const views::GraphOverlay>(views::GraphOverlay::fromSchedule(m_schedule->data())));
        m_graphPanel->updateModeAvailability();
        // By cost where a run or an estimate exists (every PEF has estimates); an overlay or op colours stay chosen.
        if (m_graph->colorMode() == views::GraphColorMode::Section || views::byHypersection(m_graph->colorMode()) ||
            m_graph->colorMode() == views::GraphColorMode::Hyperfunction)
          m_graphPanel->setColorMode(m_colorScheme == views::ColorScheme::Cost ? views::GraphColorMode::Cost
                                                                               : views::GraphColorMode::Hypersection);
        updateTracePairing();
        if (!result.tracePath.isEmpty()) openTrace(result.tracePath);
        else statusBar()->showMessage(tr("Loaded %1").arg(QFileInfo(path).fileName()), 8000);
        updateActions();
        updatePanes();
      });
}

void MainWindow::openTrace(const QString& path) {
  statusBar()->showMessage(tr("Loading trace %1...").arg(QFileInfo(path).fileName()));
  m_traceJob->start([loaders = m_loaders, path](const views::JobContext&) { return readTraceLoad(loaders, path); },
                    [this, path](TraceLoad result) {
                      if (!result.error.isEmpty()) return showError(result.error);
                      m_tracePath = path;
                      const size_t slices = result.timeline.sliceCount;
                      const std::vector<std::string> warnings = result.timeline.warnings;
                      m_timeline->setData(std::move(result.timeline));
                      updateTracePairing();
                      statusBar()->showMessage(tr("Trace %1: %n slice(s)", nullptr, static_cast<int>(slices))
                                                   .arg(QFileInfo(path).fileName()), 8000);
                      for (const std::string& warning : warnings) showWarning(fromStd(warning));
                      updateActions();
                      updatePanes();
                    });
}

bool MainWindow::isBusy() const {
  return m_pefJob->isBusy() || m_traceJob->isBusy() || m_runs->isBusy() || m_graph->isLayoutPending() ||
         m_comparePanel->isBusy();
}

void MainWindow::checkIdle() {
  if (!isBusy()) emit idle();
}

void MainWindow::showWarning(const QString& message) {
  emit warned(message);
  showMessageBox(QMessageBox::Information, message);
}

void MainWindow::showError(const QString& message) {
  emit loadFailed(message);
  showMessageBox(QMessageBox::Warning, message);
}

// Non-modal: a failed load must not block the event loop (or a test).
void MainWindow::showMessageBox(int icon, const QString& message) {
  statusBar()->showMessage(message);
  auto* box = new QMessageBox(static_cast<QMessageBox::Icon>(icon), tr("Dataflow Studio"), message, QMessageBox::Ok, this);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

void MainWindow::showSlice(const views::SliceInfo& slice) {
  m_bottom->setCurrentWidget(m_details);
  m_details->setHtml(views::sliceDetailsHtml(slice, m_timeline->data().startUs));
  growDetails();
}

void MainWindow::updateTracePairing() {
  const auto& trace = m_timeline->data().trace;
  if (!trace || m_pefPath.isEmpty()) {
    m_timeline->setLinked(false);
    m_timelinePanel->setNotice({});
    return;
  }
  const auto hash = trace->metadata.find("pef_hash");
  const QString traceHash = hash == trace->metadata.end() ? QString() : fromStd(hash->second);
  const bool paired = !traceHash.isEmpty() && traceHash == m_pefHash;
  m_timeline->setLinked(paired);
  if (paired) return m_timelinePanel->setNotice({});
  if (traceHash.isEmpty())
    return m_timelinePanel->setNotice(tr("This trace does not name the PEF it ran, so it is not linked to %1's graph.")
                                          .arg(QFileInfo(m_pefPath).fileName()));
  const auto pef = trace->metadata.find("pef");
  const QString traceName = pef == trace->metadata.end() ? tr("another PEF") : QFileInfo(fromStd(pef->second)).fileName();
  m_timelinePanel->setNotice(tr("Trace of PEF %1 (content %2), not the open one (%3, content %4): clicking it "
                                "selects nothing in the graph.")
                                 .arg(traceName, traceHash, QFileInfo(m_pefPath).fileName(), m_pefHash));
}

void MainWindow::showNode(const views::NodeDetails& node) {
  if (!node.isValid()) return;
  m_bottom->setCurrentWidget(m_details);
  m_details->setHtml(nodeDetailsHtml(node, m_graph->graph(), m_schedule->data()));
  growDetails();
}

}  // namespace dfc::studio
