// MainWindow: actions, menus, toolbar, export, About and remembered layout.
#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QToolBar>

#include "MainWindow.h"
#include "Screens.h"
#include "Session.h"
#include "compile/CompilePanel.h"
#include "graph/GraphPanel.h"
#include "graph/GraphView.h"
#include "profile/ChromeTrace.h"
#include "schedule/SchedulePanel.h"
#include "support/ExportFile.h"
#include "support/LatestJob.h"
#include "timeline/TimelinePanel.h"
#include "timeline/TimelineView.h"

namespace dfc::studio {

void MainWindow::createActions() {
  createOpenActions();
  createFindActions();
  createSessionActions();
  createExportActions();
  m_colorByCost = new QAction(tr("Colour hypersections by &cost"), this);
  m_colorByCost->setCheckable(true);
  m_colorByCost->setChecked(m_colorScheme == views::ColorScheme::Cost);
  m_colorByCost->setStatusTip(
      tr("On: the palette goes to the costliest hypersections (measured time per step, else "
         "estimated), the rest grey; off: by identity (hypersection id order). Every view follows."));
  connect(m_colorByCost, &QAction::toggled, this, [this](bool on) {
    if (on != (m_colorScheme == views::ColorScheme::Cost))
      setColorScheme(on ? views::ColorScheme::Cost : views::ColorScheme::Identity);
  });
  m_quit = new QAction(tr("&Quit"), this);
  m_quit->setShortcut(QKeySequence(tr("Ctrl+Q")));  // QKeySequence::Quit is empty on some platforms
  connect(m_quit, &QAction::triggered, this, &QWidget::close);
  connect(this, &MainWindow::exportFinished, this, [this](bool ok, const QString& message) {
    if (ok)
      statusBar()->showMessage(message, 8000);
    else
      showError(message);
  });
}

// Open PEF, trace and model: each picks a file and shows the screen it opens on.
void MainWindow::createOpenActions() {
  m_openPef = new QAction(style()->standardIcon(QStyle::SP_DialogOpenButton), tr("Open &PEF..."), this);
  m_openPef->setShortcut(QKeySequence::Open);
  m_openPef->setStatusTip(tr("Open a compiled model (PEF) into the graph, timeline and schedule"));
  connect(m_openPef, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open PEF"), {}, tr("PEF files (*.pef);;All files (*)"));
    if (path.isEmpty()) return;
    openPef(path);
    showScreen(Screen::GraphTimeline);
  });
  m_openTrace = new QAction(style()->standardIcon(QStyle::SP_FileIcon), tr("Open &Trace..."), this);
  m_openTrace->setShortcut(QKeySequence(tr("Ctrl+T")));
  m_openTrace->setStatusTip(tr("Open a chrome tracing JSON file into the timeline"));
  connect(m_openTrace, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Trace"), {},
                                                      tr("Chrome traces (*.json *.json.gz);;All files (*)"));
    if (path.isEmpty()) return;
    openTrace(path);
    showScreen(Screen::GraphTimeline);
  });
  m_openModel = new QAction(style()->standardIcon(QStyle::SP_DirOpenIcon), tr("Open &Model..."), this);
  m_openModel->setShortcut(QKeySequence(tr("Ctrl+Shift+O")));
  m_openModel->setStatusTip(tr("Pick an ONNX or DFIR model to compile on the Compile screen"));
  connect(m_openModel, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Model"), {},
                                                      tr("Models (*.onnx *.dfir);;All files (*)"));
    if (!path.isEmpty()) openModel(path);
  });
}

// Find and Fit Graph: both go to the Graph & Timeline screen.
void MainWindow::createFindActions() {
  m_find = new QAction(tr("&Find..."), this);
  m_find->setShortcut(QKeySequence::Find);
  m_find->setStatusTip(tr("Find graph nodes by name or op; on the timeline, slices by name"));
  connect(m_find, &QAction::triggered, this, [this] {
    // On the timeline, Ctrl+F finds slices; elsewhere it finds graph nodes.
    const bool onTimeline = m_tabs->currentIndex() == static_cast<int>(Screen::GraphTimeline) &&
                            m_timelinePanel->isAncestorOf(QApplication::focusWidget());
    showScreen(Screen::GraphTimeline);
    if (onTimeline) m_timelinePanel->focusFind();
    else
      m_graphPanel->focusSearch();
  });
  m_fitGraph = new QAction(tr("Fit &Graph"), this);
  m_fitGraph->setShortcut(QKeySequence(tr("Ctrl+Shift+F")));
  m_fitGraph->setStatusTip(tr("Show the whole operator graph"));
  connect(m_fitGraph, &QAction::triggered, this, [this] {
    showScreen(Screen::GraphTimeline);
    m_graph->fitGraph();
  });
}

// Compile, Run and Cancel: the Compile screen's buttons, with shortcuts.
void MainWindow::createSessionActions() {
  m_compileAction = new QAction(style()->standardIcon(QStyle::SP_MediaPlay), tr("&Compile"), this);
  m_compileAction->setShortcut(QKeySequence(tr("Ctrl+B")));
  m_compileAction->setStatusTip(tr("Compile the model set on the Compile screen"));
  connect(m_compileAction, &QAction::triggered, this, [this] {
    showScreen(Screen::Compile);
    m_compile->requestCompile();
  });
  m_runAction = new QAction(style()->standardIcon(QStyle::SP_MediaSeekForward), tr("&Run"), this);
  m_runAction->setShortcut(QKeySequence(tr("Ctrl+R")));
  m_runAction->setStatusTip(tr("Train or evaluate the compiled PEF and load its trace"));
  connect(m_runAction, &QAction::triggered, this, [this] {
    showScreen(Screen::Compile);
    m_compile->requestRun();
  });
  m_cancelAction = new QAction(style()->standardIcon(QStyle::SP_MediaStop), tr("C&ancel"), this);
  m_cancelAction->setShortcut(QKeySequence(tr("Ctrl+.")));
  m_cancelAction->setStatusTip(tr("Stop the running compile or run"));
  connect(m_cancelAction, &QAction::triggered, m_compile, &views::CompilePanel::requestCancel);
}

// File > Export: the trace, the section report and the graph in three formats.
void MainWindow::createExportActions() {
  m_exportTrace = new QAction(tr("Chrome tracing &JSON..."), this);
  connect(m_exportTrace, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export chrome tracing JSON"),
                                                      QFileInfo(m_tracePath).completeBaseName() + QStringLiteral(".json"),
                                                      tr("Chrome traces (*.json)"));
    if (!path.isEmpty()) exportChromeTrace(path);
  });
  m_exportReport = new QAction(tr("&Section report (CSV)..."), this);
  connect(m_exportReport, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export section report"), QStringLiteral("section_report.csv"),
                                                      tr("CSV files (*.csv)"));
    if (path.isEmpty()) return;
    QString error;
    if (exportSectionReport(path, &error)) statusBar()->showMessage(tr("Wrote %1").arg(path), 8000);
    else showError(error);
  });
  const QString graphFormats[3] = {tr("Graph as &DOT..."), tr("Graph as S&VG..."), tr("Graph as &PNG...")};
  const QString graphFilters[3] = {tr("Graphviz DOT (*.dot)"), tr("SVG images (*.svg)"), tr("PNG images (*.png)")};
  const QString graphSuffixes[3] = {QStringLiteral(".dot"), QStringLiteral(".svg"), QStringLiteral(".png")};
  for (int i = 0; i < 3; ++i) {
    m_exportGraph[i] = new QAction(graphFormats[i], this);
    connect(m_exportGraph[i], &QAction::triggered, this, [this, i, graphFilters, graphSuffixes] {
      const QString path = QFileDialog::getSaveFileName(this, tr("Export graph"),
                                                        QFileInfo(m_pefPath).completeBaseName() + graphSuffixes[i],
                                                        graphFilters[i]);
      if (path.isEmpty()) return;
      QString error;
      const bool ok = i == 0 ? m_graph->exportDot(path, &error) : i == 1 ? m_graph->exportSvg(path, &error)
                                                                          : m_graph->exportPng(path, &error);
      if (ok) statusBar()->showMessage(tr("Wrote %1").arg(path), 8000);
      else showError(error);
    });
  }
  m_exportWithSelection = new QAction(tr("Graph exports show the &selection"), this);
  m_exportWithSelection->setCheckable(true);
  m_exportWithSelection->setStatusTip(tr("Off: exported graphs leave out the highlight, the section outline and the "
                                         "decision badges"));
  connect(m_exportWithSelection, &QAction::toggled, this, [this](bool on) { m_graph->setExportsSelection(on); });
}

void MainWindow::createMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(m_openPef);
  file->addAction(m_openTrace);
  file->addAction(m_openModel);
  QMenu* exportMenu = file->addMenu(tr("&Export"));
  exportMenu->addAction(m_exportTrace);
  exportMenu->addAction(m_exportReport);
  exportMenu->addSeparator();
  for (QAction* a : m_exportGraph) exportMenu->addAction(a);
  exportMenu->addAction(m_exportWithSelection);
  file->addSeparator();
  file->addAction(m_quit);

  QMenu* build = menuBar()->addMenu(tr("&Build"));
  build->addAction(m_compileAction);
  build->addAction(m_runAction);
  build->addAction(m_cancelAction);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (const auto& screen : screens()) {
    const int i = static_cast<int>(screen.id);
    QAction* go = view->addAction(screenTitle(screen), this, [this, i] { m_tabs->setCurrentIndex(i); });
    go->setShortcut(QKeySequence(Qt::ALT | static_cast<Qt::Key>(Qt::Key_1 + i)));
  }
  view->addSeparator();
  view->addAction(m_colorByCost);
  view->addSeparator();
  view->addAction(m_find);
  view->addAction(m_fitGraph);
  view->addAction(tr("Fit &Timeline"), this, [this] { m_timeline->zoomToFit(); })
      ->setShortcut(QKeySequence(tr("Ctrl+0")));

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&About Dataflow Studio"), this, &MainWindow::showAbout);
  help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);

  QToolBar* tools = addToolBar(tr("Main"));
  tools->setObjectName(QStringLiteral("mainToolBar"));  // saveState() needs a name
  tools->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  tools->addAction(m_openPef);
  tools->addAction(m_openTrace);
  tools->addSeparator();
  tools->addAction(m_compileAction);
  tools->addAction(m_runAction);
  tools->addAction(m_cancelAction);
  tools->addSeparator();
  tools->addAction(m_fitGraph);
}

void MainWindow::updateActions() {
  const bool busy = m_session->isBusy();
  m_compileAction->setEnabled(!busy);
  m_runAction->setEnabled(!busy);
  m_cancelAction->setEnabled(busy);
  m_exportTrace->setEnabled(!m_tracePath.isEmpty());
  m_exportReport->setEnabled(!m_schedule->data().sections.empty());
  for (QAction* a : m_exportGraph) a->setEnabled(!m_pefPath.isEmpty());
}

void MainWindow::openModel(const QString& path) {
  m_compile->resetForModel(QDir::toNativeSeparators(path));  // its own settings, not the open PEF's
  showScreen(Screen::Compile);
  statusBar()->showMessage(tr("Model %1 is set; press Compile").arg(QFileInfo(path).fileName()), 8000);
}

QStringList MainWindow::screenNames() { return screenKeys(); }

void MainWindow::showScreen(Screen screen) { m_tabs->setCurrentIndex(static_cast<int>(screen)); }

bool MainWindow::showScreen(const QString& name) {
  const int index = screenIndex(name);
  if (index < 0) return false;
  m_tabs->setCurrentIndex(index);
  return true;
}

bool MainWindow::exportSectionReport(const QString& path, QString* error) {
  if (m_schedule->data().sections.empty()) {
    if (error) *error = tr("No PEF is loaded; open or compile one first.");
    return false;
  }
  return views::writeExportFile(path, views::sectionReportCsv(m_schedule->data()).toUtf8(), error);
}

void MainWindow::exportChromeTrace(const QString& path) {
  if (m_tracePath.isEmpty()) {
    emit exportFinished(false, tr("No trace is loaded; run a PEF or open a trace first."));
    return;
  }
  // Re-read rather than keep a second copy of a possibly huge trace in memory;
  // writing through the engine turns any accepted trace into our object form.
  m_exportJob->start(
      [source = m_tracePath, path](const views::JobContext& job) -> QString {
        auto trace = profile::readChromeTrace(source.toStdString());
        if (!trace) return QString::fromStdString(trace.error().message());
        if (job.isCancelled()) return {};  // a newer export supersedes this one: write nothing
        const Status st = profile::writeChromeTrace(*trace, path.toStdString());
        return st ? QString() : QString::fromStdString(st.error().message());
      },
      [this, path](const QString& error) {
        emit exportFinished(error.isEmpty(), error.isEmpty() ? tr("Wrote %1").arg(path) : error);
      });
}

void MainWindow::showAbout() {
  QMessageBox::about(this, tr("About Dataflow Studio"),
                     tr("<h3>Dataflow Studio %1</h3>"
                        "<p>Compiles ML models for a reconfigurable dataflow accelerator, runs them and shows "
                        "what the compiler and the run did: operator graph, section schedule and timelines.</p>"
                        "<p>Built with Qt %2.</p>")
                         .arg(QStringLiteral(DFC_VERSION), QString::fromLatin1(qVersion())));
}

void MainWindow::closeEvent(QCloseEvent* event) {
  QSettings settings;
  settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
  settings.setValue(QStringLiteral("window/state"), saveState());
  settings.setValue(QStringLiteral("window/screen"), m_tabs->currentIndex());
  m_session->cancel();  // it stops at its next check; its result goes nowhere
  QMainWindow::closeEvent(event);
}

}  // namespace dfc::studio
