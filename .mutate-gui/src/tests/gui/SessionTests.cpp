// studio::Session: compile and run off the UI thread, with progress and cancel.
#include <QDir>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <catch2/catch.hpp>

#include "GuiTestSupport.h"
#include "Session.h"

using namespace dfc;

namespace {

driver::CompileOptions compileOptions(const QTemporaryDir& dir, const std::string& model) {
  driver::CompileOptions options;
  options.model = model;
  options.outputFolder = dir.filePath(QStringLiteral("out")).toStdString();
  options.dbPath = "-";
  return options;
}

}  // namespace

TEST_CASE("A compile through the Session writes a PEF and says where", "[gui][session]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  studio::Session session;
  QSignalSpy done(&session, &studio::Session::compileFinished);
  QSignalSpy progress(&session, &studio::Session::compileProgress);
  QSignalSpy busy(&session, &studio::Session::busyChanged);
  REQUIRE(session.compile(compileOptions(dir, "logreg")));
  CHECK(session.isBusy());
  CHECK(!session.compile(compileOptions(dir, "logreg")));  // one at a time
  REQUIRE(done.wait(60000));
  INFO(done.at(0).at(2).toString().toStdString());
  REQUIRE(done.at(0).at(0).toBool());
  const QString pef = done.at(0).at(1).toString();
  CHECK(QFileInfo(pef).isAbsolute());
  CHECK(QFileInfo::exists(pef));
  CHECK(pef == QDir(dir.filePath(QStringLiteral("out"))).filePath(QStringLiteral("logreg.pef")));
  CHECK(session.lastPefPath() == pef);
  CHECK(done.at(0).at(2).toString().contains(QStringLiteral("sections")));
  CHECK(!progress.isEmpty());
  CHECK(progress.last().at(0).toString() == QStringLiteral("record"));
  CHECK(!session.isBusy());
  CHECK(busy.count() == 2);
}

TEST_CASE("A compile through the Session can be cancelled and writes nothing", "[gui][session]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  studio::Session session;
  QSignalSpy done(&session, &studio::Session::compileFinished);
  REQUIRE(session.compile(compileOptions(dir, "gpt2-mini")));
  session.cancel();  // the engine sees it at its next stage
  REQUIRE(done.wait(60000));
  CHECK(!done.at(0).at(0).toBool());
  CHECK(done.at(0).at(2).toString() == QStringLiteral("Compile cancelled."));
  CHECK(!QFileInfo::exists(QDir(dir.filePath(QStringLiteral("out"))).filePath(QStringLiteral("gpt2-mini.pef"))));
  CHECK(session.lastPefPath().isEmpty());
  CHECK(!session.isBusy());
}

TEST_CASE("The Session refuses unusable options before it starts", "[gui][session]") {
  guitest::ensureApp();
  studio::Session session;
  QSignalSpy compiled(&session, &studio::Session::compileFinished);
  QSignalSpy ran(&session, &studio::Session::runFinished);
  QSignalSpy busy(&session, &studio::Session::busyChanged);
  CHECK(!session.compile(driver::CompileOptions{}));
  REQUIRE(compiled.count() == 1);
  CHECK(compiled.at(0).at(2).toString().contains(QStringLiteral("Choose a model")));
  driver::CompileOptions badArch;
  badArch.model = "lenet";
  badArch.arch = "sn99";
  CHECK(!session.compile(badArch));
  REQUIRE(compiled.count() == 2);
  CHECK(compiled.at(1).at(2).toString().contains(QStringLiteral("--arch sn99")));
  driver::RunOptions run;
  run.pefPath = "/nowhere/missing.pef";
  CHECK(!session.run(run));
  REQUIRE(ran.count() == 1);
  CHECK(ran.at(0).at(2).toString().contains(QStringLiteral("/nowhere/missing.pef")));
  CHECK(busy.isEmpty());
}

TEST_CASE("The Session records a compile's command line in one place", "[gui][session]") {
  driver::CompileOptions options;
  options.model = "lenet";
  // What dfc records for the same options: `dfc compile` with the canonical flags.
  const std::vector<std::string> args = studio::Session::compileArgs(options);
  CHECK(args == options.toArgs());
  REQUIRE(args.size() > 4);
  CHECK(std::vector<std::string>(args.begin(), args.begin() + 4) ==
        std::vector<std::string>{"dfc", "compile", "--model", "lenet"});
  driver::RunOptions run;
  run.pefPath = "out/lenet/lenet.pef";
  CHECK(studio::Session::runArgs(run) == std::vector<std::string>{"dfstudio", "run", "--pef", "out/lenet/lenet.pef"});
}
