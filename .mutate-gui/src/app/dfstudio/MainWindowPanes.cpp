// MainWindow: what the Graph & Timeline screen gives its room to (a pane with
// nothing in it gives way to a one-line hint; details take the height they
// need), the colours every view shares, and the Compile form following the open PEF.
#include <QAction>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QSplitter>
#include <QStackedWidget>
#include <QTextBrowser>
#include <QTextDocument>

#include "CompileFlags.h"
#include "MainWindow.h"
#include "compile/CompilePanel.h"
#include "graph/GraphPanel.h"
#include "graph/GraphView.h"
#include "schedule/ScheduleData.h"
#include "schedule/SchedulePanel.h"
#include "timeline/RangeTable.h"
#include "timeline/TimelinePanel.h"
#include "timeline/TimelineView.h"

namespace dfc::studio {
namespace {

constexpr double kDetailsShareMax = 0.45;  // details take at most this share of the screen's height
constexpr int kRangeTableHeight = 260;

}  // namespace

void MainWindow::updatePanes() {
  const bool graph = !m_pefPath.isEmpty();
  const bool trace = m_timeline->data().sliceCount > 0;
  const bool either = graph || trace;
  // Nothing open: both panes say what they show; one open: it takes the width.
  m_graphPanel->setVisible(graph || !either);
  m_timelinePanel->setVisible(trace || !either);
  QString hint;
  if (graph && !trace)
    hint = tr("No trace of %1 yet, so the graph takes the width: <a href=\"run\">run it</a> (Ctrl+R) or "
              "<a href=\"open-trace\">open a trace</a> (Ctrl+T) to see its timeline beside it.")
               .arg(QFileInfo(m_pefPath).fileName().toHtmlEscaped());
  else if (trace && !graph)
    hint = tr("A trace alone, so the timeline takes the width: <a href=\"open-pef\">open the PEF it ran</a> (Ctrl+O) "
              "to see its graph and link the two.");
  m_paneHint->setText(hint);
  m_paneHint->setVisible(!hint.isEmpty());
  if (graph && trace) {
    const QList<int> sizes = m_top->sizes();
    if (sizes.size() == 2 && (sizes[0] == 0 || sizes[1] == 0)) m_top->setSizes({700, 800});
  }
}

// A thin strip with its one-line placeholder while nothing is selected.
void MainWindow::collapseDetails() {
  const int strip = fontMetrics().height() + 14;
  m_bottom->setMinimumHeight(strip);
  const int total = m_outer->height() > strip ? m_outer->height() : 900;
  m_outer->setSizes({total - strip, strip});
}

// The height the details need (a range table a fixed one), up to a share of the screen.
void MainWindow::growDetails() {
  const int total = m_outer->height() > 0 ? m_outer->height() : 900;
  int want = kRangeTableHeight;
  if (m_bottom->currentWidget() == m_details) {
    m_details->document()->setTextWidth(m_details->viewport()->width() > 50 ? m_details->viewport()->width() : 1200);
    want = static_cast<int>(m_details->document()->size().height()) + 2 * m_details->frameWidth() + 8;
  }
  want = std::min(want, static_cast<int>(total * kDetailsShareMax));
  const QList<int> sizes = m_outer->sizes();
  if (sizes.size() == 2 && sizes[1] >= want) return;  // already as tall: the user's size stays
  m_outer->setSizes({total - want, want});
}

void MainWindow::onPaneHintLink(const QString& link) {
  if (link == QLatin1String("run")) m_runAction->trigger();
  else if (link == QLatin1String("open-trace")) m_openTrace->trigger();
  else if (link == QLatin1String("open-pef")) m_openPef->trigger();
}

// The open PEF's settings in the Compile form, ready to compile again with a change:
// its recorded `dfc compile` command line, else what its meta says.
void MainWindow::fillCompileForm(const pef::Pef& pef, const QString& path) {
  const QString name = QFileInfo(path).fileName();
  m_compile->runPefEdit()->setText(path);
  const auto& args = pef.meta.args;
  if (args.size() >= 2 && args[1] == "compile")
    if (auto options = cli::parseCompileOptions({args.begin() + 2, args.end()})) {
      m_compile->setOptions(*options, tr("The settings %1 was compiled with: change one and Compile again.").arg(name));
      return;
    }
  driver::CompileOptions options;
  options.model = pef.meta.model;
  if (auto level = driver::parseOptLevel(pef.meta.optLevel)) options.level = *level;
  options.arch = pef.meta.arch;
  options.batchSize = pef.meta.batchSize;
  options.inference = pef.meta.inference;
  m_compile->setOptions(options, tr("%1 records no command line: its model, level, arch and batch size are set, the "
                                    "rest are defaults.").arg(name));
}

void MainWindow::setColorScheme(views::ColorScheme scheme) {
  m_colorScheme = scheme;
  if (m_colorByCost) m_colorByCost->setChecked(scheme == views::ColorScheme::Cost);
  applyColorIdentity();
  if (views::byHypersection(m_graph->colorMode()))
    m_graphPanel->setColorMode(scheme == views::ColorScheme::Cost ? views::GraphColorMode::Cost
                                                                  : views::GraphColorMode::Hypersection);
}

// One set of colours for the open PEF's graph, timeline and schedule.
void MainWindow::applyColorIdentity() {
  if (!m_pef) return;
  if (m_colorScheme == views::ColorScheme::Cost) {
    const views::CostRanking ranking = views::rankByCost(m_schedule->data());
    m_identity = std::make_shared<const views::ColorIdentity>(
        views::ColorIdentity::byCost(m_pef->plan, &m_pef->graph, ranking.order, ranking.basis()));
  } else {
    m_identity = std::make_shared<const views::ColorIdentity>(views::ColorIdentity::fromPlan(m_pef->plan, &m_pef->graph));
  }
  m_graph->setColorIdentity(m_identity);
  m_timeline->setColorIdentity(m_identity);
  m_schedule->setColorIdentity(m_identity);
}

}  // namespace dfc::studio
