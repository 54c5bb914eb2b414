// Schedule at scale: one row per hypersection with its calls and times per step.
#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QStandardItemModel>
#include <QValueAxis>
#include <QTableView>
#include <catch2/catch.hpp>

#include "GuiTestSupport.h"
#include "schedule/ScheduleData.h"
#include "schedule/SchedulePanel.h"

using namespace dfc::views;

namespace {

// hs0_attn has two instances (s0, s1), s0 called twice a step; hs1_add one, never measured.
ScheduleData schedule() {
  ScheduleData d;
  d.sections = {guitest::scheduleSection(0, "hs0_attn", 10, 100, 30), guitest::scheduleSection(1, "hs0_attn", 12, 90, 50),
                guitest::scheduleSection(2, "hs1_add", 3, std::nullopt, 5)};
  d.schedule = {0, 1, 2, 0};
  return d;
}

}  // namespace

TEST_CASE("Grouping the schedule by hypersection sums calls and times per step", "[gui][schedule]") {
  const std::vector<HypersectionRow> rows = groupByHypersection(schedule());
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].name == QStringLiteral("hs0_attn"));
  CHECK(rows[0].sections == 2);
  CHECK(rows[0].callsPerStep == 3);
  CHECK(rows[0].estPerStepUs == Approx(10 + 12 + 10));
  REQUIRE(rows[0].measuredPerStepUs);
  CHECK(*rows[0].measuredPerStepUs == Approx(100 + 90 + 100));
  CHECK(rows[0].peakPcus == 50);
  CHECK(rows[1].callsPerStep == 1);
  CHECK_FALSE(rows[1].measuredPerStepUs);
}

TEST_CASE("The schedule table switches to one row per hypersection and back", "[gui][schedule]") {
  guitest::ensureApp();
  SchedulePanel panel;
  panel.setData(schedule());
  CHECK(panel.table()->model()->rowCount() == 3);
  panel.setGroupedByHypersection(true);
  REQUIRE(panel.table()->model()->rowCount() == 2);
  CHECK(panel.table()->model()->index(0, 0).data().toString() == QStringLiteral("hs0_attn"));
  CHECK(panel.table()->model()->index(0, 2).data().toString() == QStringLiteral("3"));
  // Sorted by the estimate per step, biggest first: hs0_attn (32 us) over hs1_add (3 us).
  panel.table()->sortByColumn(3, Qt::DescendingOrder);
  CHECK(panel.table()->model()->index(0, 0).data().toString() == QStringLiteral("hs0_attn"));
  panel.table()->sortByColumn(3, Qt::AscendingOrder);
  CHECK(panel.table()->model()->index(0, 0).data().toString() == QStringLiteral("hs1_add"));
  panel.setGroupedByHypersection(false);
  CHECK(panel.table()->model()->rowCount() == 3);
}

TEST_CASE("The unit-use chart tops out at 100 % when the busiest section nearly fills the chip", "[gui][schedule]") {
  guitest::ensureApp();
  ScheduleData d = schedule();
  d.archPcus = 1280;
  d.archPmus = 1280;
  d.sections[1].pcus = 1277;  // 99.8 %: with the axis headroom this once read 0..150 %
  SchedulePanel panel;
  panel.setData(d);
  const auto axes = panel.useChart()->chart()->axes(Qt::Vertical);
  REQUIRE(axes.size() == 1);
  const auto* axis = qobject_cast<const QValueAxis*>(axes.front());
  REQUIRE(axis);
  CHECK(axis->max() == Approx(100.0));
}

TEST_CASE("The schedule screen shows the chip estimate's breakdown when the data carries one", "[gui][schedule]") {
  guitest::ensureApp();
  SchedulePanel panel;
  panel.setData(schedule());
  CHECK(panel.estimateLabel()->isHidden());
  ScheduleData d = schedule();
  dfc::estimate::StepEstimate e;
  e.arch = "sn40l";
  e.chips = 16;
  e.unit = "tokens/s";
  e.throughput = 1234.5;
  e.stepUs = 810;
  e.commUs = 300;
  e.bound = "memory (HBM)";
  e.tierGbps[static_cast<int>(dfc::estimate::Tier::Hbm)] = 1600;
  d.estimate = e;
  panel.setData(d);
  CHECK_FALSE(panel.estimateLabel()->isHidden());
  const QString text = panel.estimateLabel()->text();
  CHECK(text.contains(QStringLiteral("1234.5 tokens/s")));
  CHECK(text.contains(QStringLiteral("16 x sn40l, tensor parallel")));
  CHECK(text.contains(QStringLiteral("memory (HBM)")));
  CHECK(text.contains(QStringLiteral("communication 300")));
  CHECK(text.contains(QStringLiteral("HBM 0.0% of 1600 GB/s")));
}

TEST_CASE("The two per-step figures on the schedule screen say which model each comes from", "[gui][schedule]") {
  guitest::ensureApp();
  SchedulePanel panel;
  ScheduleData d = schedule();
  dfc::estimate::StepEstimate e;
  e.arch = "sn30";
  e.unit = "tokens/s";
  e.stepUs = 10.8;
  e.fusion = dfc::estimate::Fusion::Block;
  d.estimate = e;
  panel.setData(d);
  // Header: the schedule's calls of the section estimates summed (10 + 12 + 3 + 10 us).
  const QString summary = panel.summaryLabel()->text();
  CHECK(summary.contains(QStringLiteral("sum of section latencies 35")));
  CHECK(panel.summaryLabel()->toolTip().contains(QStringLiteral("compile-time cost-model latency")));
  CHECK(panel.summaryLabel()->toolTip().contains(QStringLiteral("different model")));
  // The next line: the whole-step model with its fusion mode, named as such.
  CHECK(panel.estimateLabel()->text().startsWith(QStringLiteral("Step estimate (dfc estimate; sn30, block fusion)")));
  const QString tip = panel.estimateLabel()->toolTip();
  CHECK(tip.contains(QStringLiteral("whole-step model of dfc estimate")));
  CHECK(tip.contains(QStringLiteral("block fusion: the sections stream as one pipelined call")));
  CHECK(tip.contains(QStringLiteral("sum of section latencies")));
  e.fusion = dfc::estimate::Fusion::Section;
  d.estimate = e;
  panel.setData(d);
  CHECK(panel.estimateLabel()->toolTip().contains(QStringLiteral("section fusion: one call per section")));
  panel.setData(schedule());  // no estimate: no tooltip left over from the last PEF
  CHECK(panel.estimateLabel()->toolTip().isEmpty());
}
