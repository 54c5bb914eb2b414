// Every model class of the app under QAbstractItemModelTester, plus the
// behaviour a user sees in the schedule and runs tables.
#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <catch2/catch.hpp>

#include "AppTestSupport.h"
#include "models/RunsTableModel.h"
#include "models/ScheduleTableModel.h"
#include "schedule/SchedulePanel.h"

using namespace dfc;

TEST_CASE("ScheduleTableModel passes QAbstractItemModelTester and shows one row per section", "[gui][schedule]") {
  guitest::ensureApp();
  views::ScheduleTableModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  model.setData(views::buildScheduleData(apptest::makePef(), apptest::makeMeasured()));
  REQUIRE(model.rowCount() == 3);
  REQUIRE(model.columnCount() == views::ScheduleTableModel::ColumnCount);
  using C = views::ScheduleTableModel;
  CHECK(model.data(model.index(0, C::Section)).toString().contains(QStringLiteral("s0_layer1")));
  CHECK(model.data(model.index(2, C::Type)).toString() == QStringLiteral("backward"));
  CHECK(model.data(model.index(0, C::Hypersection)).toString() == QStringLiteral("hs0_matmul_relu"));
  CHECK(model.data(model.index(2, C::Pcus)).toInt() == 200);
  CHECK(model.data(model.index(1, C::MeasuredLatency)).toString() == QStringLiteral("30.0 us"));  // 90 us / 3 calls, with its unit
  CHECK(model.data(model.index(1, C::MeasuredLatency), C::SortRole).toDouble() == 30.0);
  CHECK(model.data(model.index(0, C::MeasuredLatency)).toString().isEmpty());  // never run: blank, not 0
  model.setData({});
  CHECK(model.rowCount() == 0);
}

TEST_CASE("the Schedule's why column shows each section's recorded cut, blank for the first", "[gui][schedule]") {
  guitest::ensureApp();
  pef::Pef pef = apptest::makePef();
  pef.plan.sections[2].cut = {partition::CutKind::PcuBudget, "12 PCUs open + 200 for 'fc' (matmul) > budget 128", 12,
                              200, 128};
  views::ScheduleTableModel model;
  model.setData(views::buildScheduleData(pef, {}));
  using C = views::ScheduleTableModel;
  CHECK(model.data(model.index(0, C::Why)).toString().isEmpty());  // no boundary before the first section
  CHECK(model.data(model.index(1, C::Why)).toString() == QStringLiteral("not recorded (a PEF from before format 1.3)"));
  CHECK(model.data(model.index(2, C::Why)).toString() ==
        QStringLiteral("12 PCUs open + 200 for 'fc' (matmul) > budget 128"));
  CHECK(model.data(model.index(2, C::Why), Qt::ToolTipRole).toString() ==
        QStringLiteral("pcu_budget: 12 PCUs open + 200 for 'fc' (matmul) > budget 128"));
  CHECK(model.headerData(C::Why, Qt::Horizontal).toString() == QStringLiteral("Why a section starts here"));
}

TEST_CASE("Schedule unit use is against the chips the PEF was compiled for", "[gui][schedule]") {
  pef::Pef pef = apptest::makePef();  // sn30: 8 tiles of 160 PCUs and 160 PMUs
  const auto one = views::buildScheduleData(pef, {});
  CHECK(one.archPcus == 1280);
  CHECK(one.arch == QStringLiteral("sn30"));
  pef.meta.args = {"dfc", "compile", "--model", "tiny", "--n-chips", "4", "--num-tiles", "2"};
  const auto four = views::buildScheduleData(pef, {});
  CHECK(four.archPcus == 4 * 2 * 160);  // a section spanning chips is no longer over 100 %
  CHECK(four.archPmus == 4 * 2 * 160);
  CHECK(four.arch == QStringLiteral("4 x sn30"));
}

TEST_CASE("Schedule table sorts by the numbers, not their text", "[gui][schedule]") {
  guitest::ensureApp();
  views::SchedulePanel panel;
  QAbstractItemModelTester tester(panel.proxy(), QAbstractItemModelTester::FailureReportingMode::Fatal);
  panel.setData(views::buildScheduleData(apptest::makePef(), apptest::makeMeasured()));
  using C = views::ScheduleTableModel;
  auto idAt = [&panel](int row) { return panel.proxy()->index(row, 0).data(C::SectionIdRole).toInt(); };
  panel.table()->sortByColumn(C::Pcus, Qt::DescendingOrder);  // 200, 40, 12 ("40" > "200" as text)
  CHECK(idAt(0) == 2);
  CHECK(idAt(1) == 0);
  CHECK(idAt(2) == 1);
  panel.table()->sortByColumn(C::EstLatency, Qt::AscendingOrder);  // 1.5, 5, 30
  CHECK(idAt(0) == 2);
  CHECK(idAt(2) == 1);
  panel.table()->sortByColumn(C::MeasuredLatency, Qt::DescendingOrder);  // only section 1 was run
  CHECK(idAt(0) == 1);
}

TEST_CASE("Section report CSV has the columns of dfc report", "[gui][schedule]") {
  pef::Pef pef = apptest::makePef();
  pef.reportJson = R"({"layer3_sections":[{"id":1,"pcus":14,"pmus":9,"total_hops":33,"min_latency_us":2.5,)"
                   R"("max_latency_us":7.25}]})";
  const auto data = views::buildScheduleData(pef, apptest::makeMeasured());
  const QStringList lines = views::sectionReportCsv(data).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
  REQUIRE(lines.size() == 4);
  // One header for dfc report and dfstudio (driver/report/SectionReport.h), all 16 columns.
  CHECK(lines[0] == QString::fromStdString(driver::sectionReportHeader()));
  CHECK(lines[0].count(QLatin1Char(',')) == 15);
  CHECK(lines[0].endsWith(QStringLiteral(",placed_pcus,placed_pmus,placed_hops,min_latency_us,max_latency_us")));
  CHECK(lines[2] == QStringLiteral("1,s1_layer2,forward,layer2,hs0_matmul_relu,12,6,30.0000,0.002000000,3,30.0000,"
                                   "14,9,33,2.5000,7.2500"));
  // Never run: calls and measured mean blank, not 0 (a 0 reads as a measured zero); not placed.
  CHECK(lines[1].endsWith(QStringLiteral(",0.001000000,,,0,0,0,0.0000,0.0000")));
  CHECK(data.archPcus > 0);  // sn30's capacity was read for the chart
}

TEST_CASE("RunsTableModel passes QAbstractItemModelTester and lists compiles and runs newest first", "[gui][runs]") {
  guitest::ensureApp();
  views::RunsTableModel model;
  QSortFilterProxyModel proxy;
  proxy.setSourceModel(&model);
  proxy.setFilterKeyColumn(-1);
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
  std::vector<profile::CompileRecord> compiles = {apptest::makeCompileRecord("/tmp/a/logreg.pef", "logreg")};
  compiles[0].id = 7;
  profile::RunRecord run;
  run.id = 3;
  run.compileId = 7;
  run.pefPath = "/tmp/a/logreg.pef";
  run.startedAt = "2026-01-02T04:00:00Z";
  run.status = "finished";
  run.tracePath = "/tmp/a/logreg_chrome_tracing_report.json";
  run.epochs = 1;
  run.finalLoss = 0.5;
  run.testAccuracy = 0.84;
  model.setEntries(views::RunsTableModel::entriesFrom(compiles, {run}));
  REQUIRE(model.rowCount() == 2);
  using C = views::RunsTableModel;
  CHECK(model.data(model.index(0, C::Kind)).toString() == QStringLiteral("run"));  // newer
  CHECK(model.data(model.index(0, C::Details)).toString().contains(QStringLiteral("84.0 %")));
  CHECK(model.data(model.index(1, C::Kind)).toString() == QStringLiteral("compile"));
  CHECK(model.data(model.index(1, C::Details)).toString().contains(QStringLiteral("sn30")));
  proxy.setFilterFixedString(QStringLiteral("chrome_tracing"));
  CHECK(proxy.rowCount() == 1);
  model.setEntries({});
  CHECK(proxy.rowCount() == 0);
}

TEST_CASE("RunsTableModel labels a run that died or is still running as not finished", "[gui][runs]") {
  guitest::ensureApp();
  std::vector<profile::RunRecord> runs(3);
  const char* statuses[] = {"finished", "died", "running"};
  for (int i = 0; i < 3; ++i) {
    runs[i].id = i + 1;
    runs[i].pefPath = "/tmp/a/logreg.pef";
    runs[i].startedAt = "2026-01-02T04:00:0" + std::to_string(i) + "Z";
    runs[i].status = statuses[i];
  }
  views::RunsTableModel model;
  model.setEntries(views::RunsTableModel::entriesFrom({}, runs));
  REQUIRE(model.rowCount() == 3);
  using C = views::RunsTableModel;
  CHECK(model.data(model.index(0, C::Status)).toString() == QStringLiteral("running"));  // newest first
  CHECK(model.data(model.index(1, C::Status)).toString() == QStringLiteral("died (did not finish)"));
  CHECK(model.data(model.index(2, C::Status)).toString() == QStringLiteral("finished"));
}
