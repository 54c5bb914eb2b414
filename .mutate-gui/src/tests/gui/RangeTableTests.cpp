// The range table on a nested trace equals the wall and self totals worked
// out by hand (nested slices not counted twice), sorts by number, exports CSV.
#include <QAbstractItemModelTester>
#include <QFile>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <catch2/catch.hpp>

#include "GuiTestSupport.h"
#include "timeline/RangeTable.h"
#include "timeline/TimelineView.h"

using namespace dfc;
using namespace dfc::views;

namespace {

// One row: A [0,100] holds B [10,30] (which holds another A [15,25]) and
// C [40,60]. A and C belong to hypersection hsX, B to hsY.
profile::Trace nestedTrace() {
  profile::Trace trace;
  auto slice = [&](const char* name, double ts, double dur, const char* hs) {
    trace.events.push_back({'X', name, "", 1, 0, ts, dur, {{"hypersection", std::string(hs)}}});
  };
  slice("A", 0, 100, "hsX");
  slice("B", 10, 20, "hsY");
  slice("A", 15, 10, "hsX");
  slice("C", 40, 20, "hsX");
  return trace;
}

const profile::AggregateGroup* group(const RangeSummary& s, const std::string& key) {
  for (const auto& g : s.groups)
    if (g.key == key) return &g;
  return nullptr;
}

}  // namespace

TEST_CASE("Range table: per-name wall and self totals of a nested trace match the hand count", "[gui][timeline][range]") {
  guitest::ensureApp();
  TimelineView view;
  view.resize(900, 300);
  view.setData(buildTimelineData(nestedTrace()));
  RangeTablePanel panel;
  QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::Fatal);
  panel.attach(&view);
  // Range [5, 95]: clipped A1 [5,95] = 90, B 20, A2 10, C 20 (140 if summed naively).
  view.selectRange(5, 95);
  const RangeSummary& byName = panel.model()->summary();
  REQUIRE(byName.groups.size() == 3);
  CHECK(byName.slices == 4);
  CHECK(byName.wallUs == Approx(90));  // the row is busy all the range: not 140
  CHECK(byName.selfUs == Approx(90));
  const auto* a = group(byName, "A");
  REQUIRE(a);
  CHECK(a->count == 2);
  CHECK(a->wallUs == Approx(90));        // A2 lies inside A1: counted once
  CHECK(a->selfUs == Approx(50 + 10));   // A1 minus B and C, plus A2
  CHECK(a->meanUs() == Approx(50));
  CHECK(a->minUs == Approx(10));
  CHECK(a->maxUs == Approx(90));
  CHECK(group(byName, "B")->wallUs == Approx(20));
  CHECK(group(byName, "B")->selfUs == Approx(10));  // minus the A inside it
  CHECK(group(byName, "C")->selfUs == Approx(20));

  // The table sorts by the number: by self, B (10) < C (20) < A (60).
  panel.table()->sortByColumn(RangeTableModel::Self, Qt::AscendingOrder);
  auto keyAt = [&](int row) { return panel.proxy()->index(row, RangeTableModel::Key).data().toString(); };
  CHECK(keyAt(0) == QStringLiteral("B"));
  CHECK(keyAt(2) == QStringLiteral("A"));
  // What the table shows for A: wall 90 (not 100 summed), self 60.
  CHECK(panel.proxy()->index(2, RangeTableModel::Wall).data(RangeTableModel::SortRole).toDouble() == Approx(90));
  CHECK(panel.proxy()->index(2, RangeTableModel::Self).data(RangeTableModel::SortRole).toDouble() == Approx(60));
  CHECK(panel.proxy()->index(2, RangeTableModel::Wall).data().toString() == QStringLiteral("90.0 us"));

  // Regrouped by hypersection: hsX = A1, A2, C: wall 90, self 50 + 10 + 20.
  panel.setGroupBy(profile::GroupBy::Hypersection);
  const RangeSummary& byHs = panel.model()->summary();
  REQUIRE(byHs.groupBy == profile::GroupBy::Hypersection);
  REQUIRE(group(byHs, "hsX"));
  CHECK(group(byHs, "hsX")->count == 3);
  CHECK(group(byHs, "hsX")->wallUs == Approx(90));
  CHECK(group(byHs, "hsX")->selfUs == Approx(80));
  CHECK(group(byHs, "hsY")->wallUs == Approx(20));
  CHECK(group(byHs, "hsY")->selfUs == Approx(10));

  QTemporaryDir dir;
  const QString csvPath = dir.filePath(QStringLiteral("range.csv"));
  REQUIRE(panel.exportCsv(csvPath));
  QFile csv(csvPath);
  REQUIRE(csv.open(QIODevice::ReadOnly));
  const QStringList lines = QString::fromUtf8(csv.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == QStringLiteral("hypersection,count,wall_us,self_us,mean_us,min_us,max_us"));
  CHECK(lines.contains(QStringLiteral("hsX,3,90.000,80.000,40.000,10.000,90.000")));
}

// Issue 38: the range table counted each section call twice (whole-model row
// and hyperfunction row): 8 steps gave count 16 and self above wall. It now
// shows what the index (and so `dfc trace --aggregate`) gives for the same
// range and rows, a mirrored call once, and the legend counts calls too.
TEST_CASE("Range table and legend count a mirrored call once, as the index does", "[gui][timeline][range][truth]") {
  guitest::ensureApp();
  profile::Trace trace;
  trace.threadNames[{1, 0}] = "whole model run";
  trace.threadNames[{1, 2}] = "conv1";
  for (int step = 0; step < 10; ++step) {  // one call of each of two sections per step, mirrored
    const double t = step * 100.0;
    trace.events.push_back({'X', "hs0_conv", "forward", 1, 0, t, 30, {{"section_id", 0.0}, {"step", double(step)}}});
    trace.events.push_back({'X', "hs1_relu", "forward", 1, 0, t + 30, 20, {{"section_id", 1.0}, {"step", double(step)}}});
    trace.events.push_back({'X', "hs0_conv", "forward,mirror", 1, 2, t, 30, {}});
    trace.events.push_back({'X', "hs1_relu", "forward,mirror", 1, 2, t + 30, 20, {}});
  }
  TimelineView view;
  view.resize(900, 300);
  view.setData(buildTimelineData(trace));
  RangeTablePanel panel;
  panel.attach(&view);
  view.selectRange(200, 1000);  // steps 2..9, every row
  const RangeSummary& table = panel.model()->summary();
  const profile::Aggregate cli = view.data().index->aggregate(200, 1000, {}, profile::GroupBy::Name);
  REQUIRE(table.groups.size() == cli.groups.size());
  for (size_t i = 0; i < cli.groups.size(); ++i) {
    INFO(cli.groups[i].key);
    CHECK(table.groups[i].key == cli.groups[i].key);
    CHECK(table.groups[i].count == 8);  // 8 steps: 8 calls, not 16
    CHECK(table.groups[i].count == cli.groups[i].count);
    CHECK(table.groups[i].wallUs == cli.groups[i].wallUs);
    CHECK(table.groups[i].selfUs == cli.groups[i].selfUs);
    CHECK(table.groups[i].selfUs <= table.groups[i].wallUs);
  }
  CHECK(group(table, "hs0_conv")->wallUs == Approx(8 * 30));
  for (const auto& entry : view.legend()) CHECK(entry.count == 10);  // 10 steps, each call once
}
