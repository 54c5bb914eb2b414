// dfstudio with the engine's own loaders on hostile files (issue 9): the
// window stays up, no exception leaves a loader job, and the dialog says the
// same one line dfc prints after "dfc: error:".
#include <QApplication>
#include <QFile>
#include <QMessageBox>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <catch2/catch.hpp>
#include <sys/stat.h>

#include <stdexcept>

#include "DocumentLoaders.h"
#include "GuiTestSupport.h"
#include "MainWindow.h"
#include "pef/Pef.h"
#include "profile/CompactTrace.h"
#include "unit/pef/SamplePef.h"

using namespace dfc;

namespace {

// Opens `path` in `window` and returns the message of the load that failed ("" if none did).
QString openAndCatch(studio::MainWindow& window, const QString& path) {
  QSignalSpy failed(&window, &studio::MainWindow::loadFailed);
  window.openFile(path);
  if (!failed.wait(10000)) return {};
  return failed.at(0).at(0).toString();
}

// The text of the warning box the window shows with `message`, or "" if there is none.
QString dialogSaying(const studio::MainWindow& window, const QString& message) {
  for (const QMessageBox* box : window.findChildren<QMessageBox*>())
    if (box->isVisible() && box->text() == message) return box->text();
  return {};
}

QString fromStd(const std::string& s) { return QString::fromStdString(s); }

}  // namespace

TEST_CASE("hostile PEFs and traces end in a dialog with the reader's one line, never a crash", "[gui][app][hostile]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  studio::MainWindow window(studio::engineLoaders(), QStringLiteral("-"));
  window.show();

  // A PEF whose labels_input names the scalar learning rate (the feeder wrote past a heap buffer).
  pef::Pef hostile = pef::test::samplePef();
  hostile.meta.labelsInput = "lr";
  const std::string pefPath = dir.filePath(QStringLiteral("labels.pef")).toStdString();
  REQUIRE(pef::writePef(hostile, pefPath));
  // A FIFO named like a PEF and one named like a trace (a reader used to block on them forever).
  const QString fifoPef = dir.filePath(QStringLiteral("fifo.pef"));
  const QString fifoTrace = dir.filePath(QStringLiteral("fifo.json"));
  REQUIRE(::mkfifo(fifoPef.toLocal8Bit().constData(), 0600) == 0);
  REQUIRE(::mkfifo(fifoTrace.toLocal8Bit().constData(), 0600) == 0);
  // A trace nested far deeper than any reader should follow.
  const QString deepTrace = dir.filePath(QStringLiteral("deep.json"));
  {
    QFile f(deepTrace);
    REQUIRE(f.open(QIODevice::WriteOnly));
    f.write(QByteArray("{\"traceEvents\":") + QByteArray(100000, '[') + QByteArray(100000, ']') + "}");
  }

  struct Case {
    QString path;
    std::string expected;  // what the engine reader says, as dfc prints it
  };
  const Case cases[] = {
      {fromStd(pefPath), pef::readPef(pefPath).error().message()},
      {fifoPef, pef::readPef(fifoPef.toStdString()).error().message()},
      {fifoTrace, profile::readCompactTrace(fifoTrace.toStdString()).error().message()},
      {deepTrace, profile::readCompactTrace(deepTrace.toStdString()).error().message()},
  };
  for (const Case& c : cases) {
    INFO(c.path.toStdString() << ": " << c.expected);
    REQUIRE(!c.expected.empty());
    CHECK(c.expected.find('\n') == std::string::npos);
    CHECK(c.expected.find(c.path.toStdString()) != std::string::npos);  // names the file
    const QString said = openAndCatch(window, c.path);
    CHECK(said == fromStd(c.expected));
    CHECK(dialogSaying(window, said) == said);
    CHECK(QTest::qWaitFor([&] { return !window.isBusy(); }, 5000));  // nothing left busy (the runs panel's refresh may lag)
  }
  CHECK(fromStd(cases[0].expected).contains(QStringLiteral("field 'labels_input'")));
  CHECK(window.isVisible());
}

TEST_CASE("a loader that throws is reported as an internal error in a dialog", "[gui][app][hostile]") {
  guitest::ensureApp();
  studio::DocumentLoaders loaders;
  loaders.readPef = [](const std::string&) -> Expected<pef::Pef> { throw std::length_error("vector::reserve"); };
  loaders.readCompactTrace = [](const std::string&) -> Expected<profile::CompactTrace> { throw 42; };
  studio::MainWindow window(loaders, QStringLiteral("-"));
  window.show();
  const QString pefSaid = openAndCatch(window, QStringLiteral("/nowhere/a.pef"));
  CHECK(pefSaid.contains(QStringLiteral("internal error")));
  CHECK(pefSaid.contains(QStringLiteral("vector::reserve")));
  CHECK(dialogSaying(window, pefSaid) == pefSaid);
  const QString traceSaid = openAndCatch(window, QStringLiteral("/nowhere/a.json"));
  CHECK(traceSaid.contains(QStringLiteral("internal error")));
  CHECK(dialogSaying(window, traceSaid) == traceSaid);
  CHECK(QTest::qWaitFor([&] { return !window.isBusy(); }, 5000));
}
