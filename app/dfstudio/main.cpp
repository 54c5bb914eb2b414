// dfstudio [PEF|TRACE.json|MODEL.onnx] [--db FILE] [--screen NAME] [--color-by MODE] [--pin-row NAME]
//          [--find TEXT] [--select-slice NAME] [--unfold-all] [--graph-zoom fit|readable|FACTOR]
//          [--compare-with PEF [--compare-view diff|sides] [--compare-group N]] [--chip-section NAME|step]
//          [--screenshot FILE];
//          dfstudio --list-screens prints the screens table's keys
#include <spdlog/spdlog.h>

#include <QApplication>
#include <QCommandLineParser>
#include <QLineEdit>
#include <QTimer>
#include <cstdio>

#include "MainWindow.h"
#include "Screens.h"
#include "Translations.h"
#include "chip/ChipPanel.h"
#include "compare/ComparePanel.h"
#include "compare/CompareView.h"
#include "graph/GraphPanel.h"
#include "graph/GraphStyle.h"
#include "graph/GraphView.h"
#include "timeline/TimelinePanel.h"
#include "timeline/TimelineView.h"

namespace {

QStringList modeIds() {
  QStringList ids;
  for (const auto& [mode, id] : dfc::views::colorModeIds()) ids << id;
  return ids;
}

// "compile, graph, schedule, runs or compare", from the screens table.
QString screenChoices() {
  QStringList keys = dfc::studio::screenKeys();
  const QString last = keys.takeLast();
  return QApplication::translate("main", "%1 or %2").arg(keys.join(QStringLiteral(", ")), last);
}

struct Options {
  QCommandLineOption db{QStringLiteral("db"), QApplication::translate("main", "Run store to use ('-' = none)."),
                        QStringLiteral("FILE")};
  QCommandLineOption screen{QStringLiteral("screen"),
                            QApplication::translate("main", "Screen to show first: %1.").arg(screenChoices()),
                            QStringLiteral("NAME")};
  QCommandLineOption listScreens{
      QStringLiteral("list-screens"),
      QApplication::translate("main", "Print the screen names --screen takes, one a line, and exit.")};
  QCommandLineOption compare{QStringLiteral("compare-with"),
                             QApplication::translate("main", "Open the Compare screen with the given PEF on the left and PEF on the right."),
                             QStringLiteral("PEF")};
  QCommandLineOption compareView{QStringLiteral("compare-view"),
                                 QApplication::translate("main", "Compare's right half: diff (the graph diff) or sides "
                                                                 "(both graphs and timelines)."),
                                 QStringLiteral("VIEW")};
  QCommandLineOption compareGroup{QStringLiteral("compare-group"),
                                  QApplication::translate("main", "Select Compare's N-th row (0: the biggest change) once "
                                                                  "both sides are loaded."),
                                  QStringLiteral("N")};
  QCommandLineOption colorBy{QStringLiteral("color-by"),
                             QApplication::translate("main", "Graph colours once loaded: %1.")
                                 .arg(modeIds().join(QStringLiteral(", "))),
                             QStringLiteral("MODE")};
  QCommandLineOption pin{QStringLiteral("pin-row"),
                         QApplication::translate("main", "Pin the timeline rows of this name to the top once loaded."),
                         QStringLiteral("NAME")};
  QCommandLineOption find{QStringLiteral("find"),
                          QApplication::translate("main", "Find slices by name on the timeline once loaded (every hit in view is marked)."),
                          QStringLiteral("TEXT")};
  QCommandLineOption select{QStringLiteral("select-slice"),
                            QApplication::translate("main", "Select the first slice whose name contains NAME once loaded, "
                                                            "showing its details."),
                            QStringLiteral("NAME")};
  QCommandLineOption unfold{QStringLiteral("unfold-all"),
                            QApplication::translate("main", "Show every operation of the graph once loaded.")};
  QCommandLineOption zoom{QStringLiteral("graph-zoom"),
                          QApplication::translate("main", "Graph framing once loaded: fit (the whole graph), readable "
                                                          "(labels at full size, at the top of the first layer) or a zoom "
                                                          "factor there (0.15)."),
                          QStringLiteral("MODE")};
  QCommandLineOption chipSection{QStringLiteral("chip-section"),
                                 QApplication::translate("main",
                                                         "The Chip screen's section once loaded (its name), or "
                                                         "step for the step's heat map of unit use."),
                                 QStringLiteral("NAME")};
  QCommandLineOption shot{QStringLiteral("screenshot"),
                          QApplication::translate("main", "Load the file, save a picture of the window to FILE and exit."),
                          QStringLiteral("FILE")};
};

void describe(QCommandLineParser& parser, const Options& options) {
  parser.setApplicationDescription(QApplication::translate(
      "main", "Compiles and runs models and shows their operator graph, section schedule and run timelines."));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(QStringLiteral("file"),
                               QApplication::translate("main", "A PEF, a chrome trace (.json or .json.gz) or a model to compile (.onnx, .dfir) to open."),
                               QStringLiteral("[PEF|TRACE.json|MODEL.onnx]"));
  parser.addOption(options.db);
  parser.addOption(options.screen);
  parser.addOption(options.listScreens);
  parser.addOption(options.compare);
  parser.addOption(options.compareView);
  parser.addOption(options.compareGroup);
  parser.addOption(options.colorBy);
  parser.addOption(options.pin);
  parser.addOption(options.find);
  parser.addOption(options.select);
  parser.addOption(options.unfold);
  parser.addOption(options.zoom);
  parser.addOption(options.chipSection);
  parser.addOption(options.shot);
}

// Labels at full size (zoom 1), or another zoom: the first layer (the first
// frame holding frames) from its top left corner.
void showFirstLayer(dfc::views::GraphView* view, double zoom) {
  view->setZoom(zoom);
  const auto& layout = view->currentLayout();
  QRectF first = layout.bounds;
  for (const auto& cluster : layout.clusters)
    if (cluster.parent >= 0) {
      first = layout.clusters[static_cast<size_t>(cluster.parent)].rect;
      break;
    }
  const QRectF shown = view->mapToScene(view->viewport()->rect()).boundingRect();
  view->centerOn(first.topLeft() + QPointF(shown.width() / 2 - 10, shown.height() / 2 - 10));
}

// --color-by, --pin-row, --unfold-all and --graph-zoom, applied whenever
// loading ends (a load resets them); unfolding lays out again and ends anew.
void applyViewOptions(dfc::studio::MainWindow& window, const QCommandLineParser& parser, const Options& options) {
  if (const auto mode = dfc::views::colorModeFromId(parser.value(options.colorBy))) {
    // Cost and hypersection are the colour schemes of every view, not of the graph alone.
    if (*mode == dfc::views::GraphColorMode::Cost) window.setColorScheme(dfc::views::ColorScheme::Cost);
    else if (*mode == dfc::views::GraphColorMode::Hypersection) window.setColorScheme(dfc::views::ColorScheme::Identity);
    else
      window.graphPanel()->setColorMode(*mode);
  }
  dfc::views::CompareView* compare = window.comparePanel()->compareView();
  if (parser.value(options.compareView) == QStringLiteral("sides")) compare->showSideBySide();
  bool isGroup = false;
  const int group = parser.value(options.compareGroup).toInt(&isGroup);
  if (isGroup && compare->match() && compare->selectedGroup() != group) compare->selectGroup(group);
  if (parser.isSet(options.chipSection)) window.chipPanel()->showSection(parser.value(options.chipSection));
  dfc::views::GraphView* graph = window.graphView();
  if (parser.isSet(options.unfold) && !graph->graph().collapsedScopes.empty()) return graph->expandAll();
  if (parser.value(options.zoom) == QStringLiteral("fit")) graph->fitGraph();
  bool isFactor = false;
  const double factor = parser.value(options.zoom).toDouble(&isFactor);
  if (parser.value(options.zoom) == QStringLiteral("readable") || (isFactor && factor > 0))
    showFirstLayer(graph, isFactor ? factor : 1.0);
  dfc::views::TimelineView* timeline = window.timelineView();
  for (size_t row = 0; row < timeline->data().rows.size(); ++row)
    if (parser.values(options.pin).contains(timeline->data().rows[row].name)) timeline->setPinned(static_cast<int>(row), true);
  // --select-slice once a trace is shown (later loads keep the selection), then --find's marks.
  static bool selected = false;
  if (parser.isSet(options.select) && !selected && timeline->data().sliceCount > 0) {
    window.timelinePanel()->findBox()->setText(parser.value(options.select));
    selected = timeline->showMatch(true);
  }
  if (parser.isSet(options.find)) window.timelinePanel()->findBox()->setText(parser.value(options.find));
}

void setIdentity() {
  QCoreApplication::setApplicationName(QStringLiteral("dfstudio"));
  QCoreApplication::setApplicationVersion(QStringLiteral(DFSTUDIO_VERSION));
  QCoreApplication::setOrganizationName(QStringLiteral("dataflow-studio"));
}

// --help and --version print and exit without a display (no QApplication).
bool onlyPrints(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const QByteArray arg(argv[i]);
    if (arg == "-h" || arg == "--help" || arg == "--help-all" || arg == "-?" || arg == "-v" || arg == "--version")
      return true;
  }
  return false;
}

// --list-screens: the screens table's keys, for scripts (screenshots.sh); no display needed.
bool listScreens(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (QByteArray(argv[i]) != "--list-screens") continue;
    for (const auto& screen : dfc::studio::screens()) std::printf("%s\n", screen.key);
    return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (listScreens(argc, argv)) return 0;
  if (onlyPrints(argc, argv)) {
    QCoreApplication app(argc, argv);
    setIdentity();
    const dfc::studio::Translations translations{QLocale()};  // --help in the user's language
    QCommandLineParser parser;
    const Options options;
    describe(parser, options);
    parser.process(app);  // prints and exits
    return 0;
  }
  QApplication app(argc, argv);
  setIdentity();
  QApplication::setApplicationDisplayName(QStringLiteral("Dataflow Studio"));
  QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/dataflow-studio.svg")));
  // The UI language follows the system locale (LANG/LC_ALL); English is built in.
  const dfc::studio::Translations translations{QLocale()};

  QCommandLineParser parser;
  const Options options;
  describe(parser, options);
  parser.process(app);
  const QCommandLineOption& dbOption = options.db;
  const QCommandLineOption& screenOption = options.screen;
  const QCommandLineOption& shotOption = options.shot;

  spdlog::set_level(spdlog::level::info);  // the log pane shows the compiler's stages
  dfc::studio::MainWindow window(dfc::studio::engineLoaders(), parser.value(dbOption));
  if (parser.isSet(screenOption) && !window.showScreen(parser.value(screenOption))) {
    std::fprintf(stderr, "dfstudio: unknown screen '%s' (use one of: %s)\n",
                 qPrintable(parser.value(screenOption)), qPrintable(dfc::studio::MainWindow::screenNames().join(", ")));
    return 2;
  }
  if (parser.isSet(options.colorBy) && !dfc::views::colorModeFromId(parser.value(options.colorBy))) {
    std::fprintf(stderr, "dfstudio: unknown colour mode '%s' (use one of: %s)\n", qPrintable(parser.value(options.colorBy)),
                 qPrintable(modeIds().join(QStringLiteral(", "))));
    return 2;
  }
  QObject::connect(&window, &dfc::studio::MainWindow::idle, &window,
                   [&window, &parser, &options] { applyViewOptions(window, parser, options); });
  window.show();
  const QStringList files = parser.positionalArguments();
  const QString shotPath = parser.value(shotOption);

  if (!shotPath.isEmpty()) {
    // Only once nothing is loading or laying out (an option may lay out again).
    auto grab = [&window, shotPath](bool always) {
      if (!always && window.isBusy()) return;
      const bool saved = window.grab().save(shotPath);
      QApplication::exit(saved ? 0 : 1);
    };
    // Give the last paint a moment after the final load lands.
    QObject::connect(&window, &dfc::studio::MainWindow::idle, &window,
                     [grab] { QTimer::singleShot(600, [grab] { grab(false); }); });
    QTimer::singleShot(120000, &window, [grab] { grab(true); });  // never hang a docs build
    if (files.isEmpty()) QTimer::singleShot(800, &window, [grab] { grab(true); });
  }
  const QString screen = parser.value(screenOption);
  for (const QString& file : files) window.openFile(file);
  if (parser.isSet(options.compare) && !files.isEmpty()) {
    window.comparePanel()->loadSide(0, files.front());
    window.comparePanel()->loadSide(1, parser.value(options.compare));
    if (screen.isEmpty()) window.showScreen(dfc::studio::MainWindow::Screen::Compare);
  }
  if (!screen.isEmpty()) window.showScreen(screen);  // opening a file must not switch away from it
  return app.exec();
}
