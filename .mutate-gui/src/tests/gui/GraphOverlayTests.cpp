// Data overlays: a node coloured by its sections' measured time share,
// measured/estimated ratio, PCU and PMU use, against hand-computed figures.
#include <catch2/catch.hpp>

#include "GuiTestSupport.h"
#include "graph/GraphOverlay.h"
#include "graph/GraphStyle.h"
#include "graph/GraphView.h"
#include "schedule/ScheduleData.h"

using namespace dfc::views;

namespace {

// s0 runs twice a step: 2 x 100 us measured (estimate 2 x 10), s1 50 (10), s2 250 (5).
// Per step 500 us measured: shares 0.4, 0.1, 0.5; ratios x10, x5, x50.
// PMUs of 200: s0 estimates 30 but was placed on 50 (placed wins: 0.25),
// s1 estimates 120 and was not placed (0.6), s2 placed on 10 (0.05).
ScheduleData schedule() {
  ScheduleData d;
  d.archPcus = 100;
  d.archPmus = 200;
  d.sections = {guitest::scheduleSection(0, "hs0", 10, 100, 80), guitest::scheduleSection(1, "hs1", 10, 50, 20),
                guitest::scheduleSection(2, "hs2", 5, 250, 40)};
  d.sections[0].pmus = 30;
  d.sections[0].placedPmus = 50;
  d.sections[1].pmus = 120;
  d.sections[2].pmus = 90;
  d.sections[2].placedPmus = 10;
  d.schedule = {0, 1, 0, 2};
  return d;
}

GraphNode opIn(int sectionId) {
  GraphNode n;
  n.section = sectionId;
  n.sections = {sectionId};
  return n;
}

GraphNode folded(std::set<int> sections) {
  GraphNode n;
  n.kind = GraphNodeKind::Collapsed;
  n.section = *sections.begin();
  n.sections = std::move(sections);
  return n;
}

}  // namespace

TEST_CASE("Overlays give a node its sections' measured share, ratio and PCU use", "[gui][graph][overlay]") {
  const GraphOverlay overlay = GraphOverlay::fromSchedule(schedule());
  CHECK(*overlay.value(OverlayMetric::MeasuredShare, opIn(0)) == Approx(0.4));
  CHECK(*overlay.value(OverlayMetric::MeasuredShare, opIn(2)) == Approx(0.5));
  CHECK(*overlay.value(OverlayMetric::MeasuredShare, folded({0, 1})) == Approx(0.5));  // sums its sections
  CHECK(*overlay.value(OverlayMetric::MeasuredOverEstimate, opIn(0)) == Approx(10.0));
  CHECK(*overlay.value(OverlayMetric::MeasuredOverEstimate, opIn(2)) == Approx(50.0));
  CHECK(*overlay.value(OverlayMetric::MeasuredOverEstimate, folded({0, 1})) == Approx(250.0 / 30.0));
  CHECK(*overlay.value(OverlayMetric::PcuUse, folded({0, 1})) == Approx(0.8));  // the peak
  CHECK_FALSE(overlay.value(OverlayMetric::MeasuredShare, opIn(7)));

  // More reads darker, in the view's colours and in its legend.
  const ColorIdentity identity;
  const QColor big = nodeColor(opIn(2), GraphColorMode::MeasuredShare, identity, &overlay);
  const QColor small = nodeColor(opIn(1), GraphColorMode::MeasuredShare, identity, &overlay);
  CHECK(big.lightnessF() < small.lightnessF());
  const auto legend = legendEntries(GraphData{}, GraphColorMode::MeasuredOverEstimate, identity, &overlay);
  REQUIRE(legend.size() >= 3);
  CHECK(legend.front().label == QStringLiteral("×5"));  // the smallest ratio
  CHECK(legend[legend.size() - 2].label == QStringLiteral("×50"));  // the largest (then "no figure")
  for (size_t i = 1; i + 1 < legend.size(); ++i) CHECK(legend[i].color.lightnessF() <= legend[i - 1].color.lightnessF());
}

TEST_CASE("The PMU overlay takes placed PMUs, else the estimate, against the chip's PMUs", "[gui][graph][overlay]") {
  guitest::ensureApp();
  const GraphOverlay overlay = GraphOverlay::fromSchedule(schedule());
  CHECK(*overlay.value(OverlayMetric::PmuUse, opIn(0)) == Approx(0.25));
  CHECK(*overlay.value(OverlayMetric::PmuUse, opIn(1)) == Approx(0.6));
  CHECK(*overlay.value(OverlayMetric::PmuUse, opIn(2)) == Approx(0.05));
  CHECK(*overlay.value(OverlayMetric::PmuUse, folded({0, 2})) == Approx(0.25));  // the peak
  CHECK(*overlay.value(OverlayMetric::PcuUse, opIn(2)) == Approx(0.4));         // PCUs stay PCUs
  CHECK(GraphOverlay::format(OverlayMetric::PmuUse, 0.25).endsWith(QStringLiteral("% PMUs")));

  // The view's colours and colour bar: the whole chip, none to all, light to dark.
  const ColorIdentity identity;
  CHECK(nodeColor(opIn(1), GraphColorMode::PmuUse, identity, &overlay).lightnessF() <
        nodeColor(opIn(0), GraphColorMode::PmuUse, identity, &overlay).lightnessF());
  const auto bar = legendEntries(GraphData{}, GraphColorMode::PmuUse, identity, &overlay);
  REQUIRE(bar.size() == 8);  // 7 stops and "no figure"
  CHECK(bar.front().label == GraphOverlay::format(OverlayMetric::PmuUse, 0.0));
  CHECK(bar[6].label == GraphOverlay::format(OverlayMetric::PmuUse, 1.0));
}

TEST_CASE("Without a recorded run the time overlays say so and PCU and PMU use still show", "[gui][graph][overlay]") {
  guitest::ensureApp();
  ScheduleData d = schedule();
  for (auto& s : d.sections) s.measuredMeanUs.reset();
  GraphView view;
  view.setOverlay(std::make_shared<const GraphOverlay>(GraphOverlay::fromSchedule(d)));
  view.setColorMode(GraphColorMode::MeasuredShare);
  REQUIRE(view.legend().size() == 1);
  CHECK(view.legend().front().label.contains(QStringLiteral("no recorded run")));
  view.setColorMode(GraphColorMode::PcuUse);
  CHECK(view.legend().size() > 2);
  CHECK(view.overlay()->value(OverlayMetric::PcuUse, opIn(0)) == Approx(0.8));
  view.setColorMode(GraphColorMode::PmuUse);
  CHECK(view.legend().size() > 2);
}
