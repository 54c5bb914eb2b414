// Issue 35: the Roofline screen's points are the compile report's TFLOP over
// its off-chip bytes, a run's host points its FLOP over the measured time, and
// a click on a point selects its section.

#include <QFile>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <catch2/catch.hpp>

#include "AppTestSupport.h"
#include "DocumentLoaders.h"
#include "MainWindow.h"
#include "e2e/RooflineFixtures.h"
#include "roofline/RooflineChart.h"
#include "roofline/RooflinePanel.h"
#include "schedule/SchedulePanel.h"
#include "selection/SelectionState.h"

using namespace dfc;

TEST_CASE("Host roofline points are each measured section's FLOP over its mean host time", "[gui][roofline]") {
  guitest::ensureApp();
  const pef::Pef pef = apptest::makePef();  // FLOP per call: 1e9, 2e9, 3e9
  const analysis::HostPeaks host{100.0, 20.0, 2};
  const views::RooflineViewData d = views::buildRooflineViewData(pef, {{1, 30.0}, {2, 0.0}}, &host);
  REQUIRE(d.error.isEmpty());
  REQUIRE(d.hostPoints.size() == 1);  // section 0 never measured, section 2 measured no time
  CHECK(d.hostPoints[0].section == 1);
  CHECK(d.hostPoints[0].meanUs == 30.0);
  CHECK(d.hostPoints[0].gflops == Approx(2e9 / 30e-6 / 1e9));  // 66,666.7 GFLOP/s
  REQUIRE(d.host.has_value());
  CHECK(d.host->gflops == 100.0);
  const QStringList rows = views::rooflineViewCsv(d).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
  REQUIRE(rows.size() == 4);
  CHECK(rows[1].endsWith(QStringLiteral(",,")));  // section 0: no host figures
  CHECK(rows[2].section(QLatin1Char(','), 8, 8) == QStringLiteral("30"));
  // Never run: no host roofline at all.
  CHECK_FALSE(views::buildRooflineViewData(pef, {}, &host).host.has_value());
}

TEST_CASE("The roofline view's points are the compile report's TFLOP per off-chip byte, a click selects the section",
          "[gui][roofline][app]") {
  guitest::ensureApp();
  test::ScratchDir dir("roofline-view");
  const std::string path = test::compileLenetO1(dir);
  auto pef = pef::readPef(path, pef::PefUse::View);
  REQUIRE(pef.ok());
  const auto [tflopOfHypersection, bytesOfSection] = test::reportFigures(pef->reportJson);

  studio::MainWindow window(studio::engineLoaders(), QStringLiteral("-"));
  window.resize(1400, 900);
  window.show();
  QSignalSpy idle(&window, &studio::MainWindow::idle);
  window.openPef(QString::fromStdString(path));
  REQUIRE((idle.count() > 0 || idle.wait(60000)));
  window.showScreen(studio::MainWindow::Screen::Roofline);
  QApplication::processEvents();
  const views::RooflineViewData& d = window.rooflinePanel()->data();
  REQUIRE(d.roofline.points.size() == pef->plan.sections.size());
  int clickable = -1;
  for (const analysis::RooflinePoint& p : d.roofline.points) {
    const partition::Section& s = pef->plan.sections.at(static_cast<size_t>(p.section));
    INFO(s.name);
    const double tflop = tflopOfHypersection.at(s.hypersection), bytes = bytesOfSection.at(p.section);
    CHECK(p.tflop == Approx(tflop).epsilon(1e-12));
    CHECK(p.bytes == Approx(bytes).epsilon(1e-12));
    CHECK(p.intensity == Approx(bytes > 0 ? tflop * 1e12 / bytes : 0).epsilon(1e-12));
    if (p.intensity > 0 && p.estimatedTflops > 0 && p.section > 0) clickable = p.section;
  }
  REQUIRE(clickable > 0);
  // Up is more FLOP/s, right more FLOP per byte (log-log).
  views::RooflineChart* chart = window.rooflinePanel()->chart();
  CHECK(chart->toPixel(chart->rect(), 1, 1e12).y() < chart->toPixel(chart->rect(), 1, 1e9).y());
  CHECK(chart->toPixel(chart->rect(), 10, 1e12).x() > chart->toPixel(chart->rect(), 1, 1e12).x());
  // A click on the point (drawn where the report's figures put it) selects its section.
  const analysis::RooflinePoint& target = d.roofline.points.at(static_cast<size_t>(clickable));
  const QPoint at = chart->toPixel(chart->rect(), target.intensity, target.estimatedTflops * 1e12).toPoint();
  REQUIRE(chart->sectionAt(at) >= 0);
  const int hit = chart->sectionAt(at);  // points may coincide: the nearest one is picked
  QTest::mouseClick(chart, Qt::LeftButton, {}, at);
  CHECK(window.selection()->section() == hit);
  CHECK(window.schedulePanel()->table()->currentIndex().isValid());
  CHECK(chart->selectedSection() == hit);

  QTemporaryDir out;
  QString error;
  REQUIRE(window.rooflinePanel()->exportCsv(out.filePath(QStringLiteral("r.csv")), &error));
  QFile file(out.filePath(QStringLiteral("r.csv")));
  REQUIRE(file.open(QIODevice::ReadOnly));
  CHECK(file.readAll().count('\n') == static_cast<qsizetype>(pef->plan.sections.size() + 1));
  REQUIRE(window.rooflinePanel()->exportPicture(out.filePath(QStringLiteral("r.svg")), &error));
}
