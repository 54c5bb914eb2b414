// dfstudio [PEF|TRACE.json|MODEL.onnx] [--db FILE] [--screen NAME] [--screenshot FILE]
#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>
#include <cstdio>
#include <spdlog/spdlog.h>

#include "MainWindow.h"
#include "Translations.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("dfstudio"));
  QApplication::setApplicationDisplayName(QStringLiteral("Dataflow Studio"));
  QApplication::setApplicationVersion(QStringLiteral(DFSTUDIO_VERSION));
  QApplication::setOrganizationName(QStringLiteral("dataflow-studio"));
  QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/dataflow-studio.svg")));

  // The UI language follows the system locale (LANG/LC_ALL); English is built in.
  const dfc::studio::Translations translations{QLocale()};

  QCommandLineParser parser;
  parser.setApplicationDescription(QApplication::translate(
      "main", "Compiles and runs models and shows their operator graph, section schedule and run timelines."));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(QStringLiteral("file"),
                               QApplication::translate("main", "A PEF, a chrome trace (.json) or a model to compile (.onnx, .dfir) to open."),
                               QStringLiteral("[PEF|TRACE.json|MODEL.onnx]"));
  const QCommandLineOption dbOption(QStringLiteral("db"),
                                    QApplication::translate("main", "Run store to use ('-' = none)."),
                                    QStringLiteral("FILE"));
  const QCommandLineOption screenOption(
      QStringLiteral("screen"),
      QApplication::translate("main", "Screen to show first: compile, graph, schedule or runs."),
      QStringLiteral("NAME"));
  const QCommandLineOption shotOption(
      QStringLiteral("screenshot"),
      QApplication::translate("main", "Load the file, save a picture of the window to FILE and exit."),
      QStringLiteral("FILE"));
  parser.addOption(dbOption);
  parser.addOption(screenOption);
  parser.addOption(shotOption);
  parser.process(app);

  spdlog::set_level(spdlog::level::info);  // the log pane shows the compiler's stages
  dfc::studio::MainWindow window(dfc::studio::engineLoaders(), parser.value(dbOption));
  if (parser.isSet(screenOption) && !window.showScreen(parser.value(screenOption))) {
    std::fprintf(stderr, "dfstudio: unknown screen '%s' (use one of: %s)\n",
                 qPrintable(parser.value(screenOption)), qPrintable(dfc::studio::MainWindow::screenNames().join(", ")));
    return 2;
  }
  window.show();
  const QStringList files = parser.positionalArguments();
  const QString shotPath = parser.value(shotOption);

  if (!shotPath.isEmpty()) {
    auto grab = [&window, shotPath] {
      const bool saved = window.grab().save(shotPath);
      QApplication::exit(saved ? 0 : 1);
    };
    // Give the last paint a moment after the final load lands.
    QObject::connect(&window, &dfc::studio::MainWindow::idle, &window,
                     [grab] { QTimer::singleShot(600, grab); });
    QTimer::singleShot(120000, &window, grab);  // never hang a docs build
    if (files.isEmpty()) QTimer::singleShot(800, &window, grab);
  }
  const QString screen = parser.value(screenOption);
  for (const QString& file : files) window.openFile(file);
  if (!screen.isEmpty()) window.showScreen(screen);  // opening a file must not switch away from it
  return app.exec();
}
