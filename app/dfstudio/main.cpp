// dfstudio [PEF|TRACE.json] [--db FILE] [--screenshot FILE]
#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>

#include "MainWindow.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("dfstudio"));
  QApplication::setApplicationDisplayName(QStringLiteral("Dataflow Studio"));
  QApplication::setApplicationVersion(QStringLiteral(DFSTUDIO_VERSION));
  QApplication::setOrganizationName(QStringLiteral("dataflow-studio"));

  QCommandLineParser parser;
  parser.setApplicationDescription(QApplication::translate(
      "main", "Shows a compiled model's operator graph and the timeline of its runs."));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(QStringLiteral("file"),
                               QApplication::translate("main", "A PEF or a chrome trace (.json) to open."),
                               QStringLiteral("[PEF|TRACE.json]"));
  const QCommandLineOption dbOption(QStringLiteral("db"),
                                    QApplication::translate("main", "Run store to look up runs in."),
                                    QStringLiteral("FILE"));
  const QCommandLineOption shotOption(
      QStringLiteral("screenshot"),
      QApplication::translate("main", "Load the file, save a picture of the window to FILE and exit."),
      QStringLiteral("FILE"));
  parser.addOption(dbOption);
  parser.addOption(shotOption);
  parser.process(app);

  dfc::studio::MainWindow window(dfc::studio::engineLoaders(), parser.value(dbOption));
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
                     [grab] { QTimer::singleShot(300, grab); });
    QTimer::singleShot(120000, &window, grab);  // never hang a docs build
    if (files.isEmpty()) QTimer::singleShot(500, &window, grab);
  }
  for (const QString& file : files) window.openFile(file);
  return app.exec();
}
