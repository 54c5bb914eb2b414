// The shared selection/zoom object and the timeline's use of it: range
// summaries from the trace index (nested slices counted once), zoom history
// by keyboard, the state announcing each change once; and finding slices.
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>
#include <catch2/catch.hpp>

#include "GuiTestSupport.h"
#include "selection/SelectionState.h"
#include "timeline/TimelineData.h"
#include "timeline/TimelinePanel.h"
#include "timeline/TimelineView.h"

using namespace dfc::views;

namespace {

int rowNamed(const TimelineData& data, const QString& name) {
  for (size_t i = 0; i < data.rows.size(); ++i)
    if (data.rows[i].name == name) return static_cast<int>(i);
  return -1;
}

}  // namespace

TEST_CASE("SelectionState announces each change once and keeps a zoom history", "[gui][selection]") {
  guitest::ensureApp();
  SelectionState state;
  QSignalSpy ranges(&state, &SelectionState::timeRangeChanged);
  QSignalSpy sections(&state, &SelectionState::sectionChanged);
  QSignalSpy zooms(&state, &SelectionState::zoomChanged);
  state.setTimeRange({20, 10});  // either order
  state.setTimeRange({10, 20});  // the same: no signal
  CHECK(ranges.count() == 1);
  CHECK(state.timeRange()->startUs == 10);
  state.selectSection(3, QStringLiteral("hs1"));
  state.selectSection(3, QStringLiteral("hs1"));
  CHECK(sections.count() == 1);
  CHECK(state.hypersection() == QStringLiteral("hs1"));
  state.clearSection();
  CHECK(state.section() == -1);
  CHECK(state.hypersection().isEmpty());

  state.zoomIn({0, 100});
  state.zoomIn({40, 50});
  CHECK(state.zoomDepth() == 2);
  state.zoomOut();
  REQUIRE(state.zoom());
  CHECK(state.zoom()->endUs == 100);
  state.resetZoom();
  CHECK(!state.zoom());
  CHECK(zooms.count() == 4);
}

TEST_CASE("The timeline's range summary counts nested slices once", "[gui][selection][timeline]") {
  guitest::ensureApp();
  TimelineView view;
  view.resize(1000, 300);
  view.setData(buildTimelineData(guitest::makeTrace()));
  const int layers = rowNamed(view.data(), QStringLiteral("layers"));
  REQUIRE(layers >= 0);
  // parent [1000,1100] holds child a [1010,1020], child b [1030,1050] and the
  // grandchild [1035,1040]: 4 slices, wall 100 us (a sum would say 135), self
  // 100 in all: parent 100 - 10 - 20 = 70, a 10, b 20 - 5 = 15, grandchild 5.
  view.selectRange(1000.0, 1100.0, layers, layers);
  REQUIRE(view.selectedRange());
  const RangeSummary r = *view.selectedRange();
  CHECK(r.slices == 4);
  CHECK(r.wallUs == Approx(100.0));
  CHECK(r.selfUs == Approx(100.0));
  REQUIRE(!r.groups.empty());
  CHECK(r.groups.front().key == "parent");
  CHECK(r.groups.front().selfUs == Approx(70.0));
  CHECK(view.selectionState()->timeRange()->endUs == 1100.0);
  CHECK(TimelineView::rangeSummaryHtml(r).contains(QStringLiteral("child b")));
}

TEST_CASE("F zooms the timeline to the selected range, Backspace goes back, Home shows all",
          "[gui][selection][timeline]") {
  guitest::ensureApp();
  TimelineView view;
  view.resize(1000, 300);
  view.setData(buildTimelineData(guitest::makeTrace()));
  const double wholeStart = view.visibleStart(), wholeDuration = view.visibleDuration();
  view.selectRange(2000.0, 3000.0);
  QTest::keyClick(&view, Qt::Key_F);
  CHECK(view.visibleStart() == Approx(2000.0));
  CHECK(view.visibleDuration() == Approx(1000.0));
  view.selectRange(2200.0, 2300.0);
  QTest::keyClick(&view, Qt::Key_F);
  CHECK(view.visibleDuration() == Approx(100.0));
  QTest::keyClick(&view, Qt::Key_Backspace);
  CHECK(view.visibleStart() == Approx(2000.0));
  CHECK(view.visibleDuration() == Approx(1000.0));
  QTest::keyClick(&view, Qt::Key_Home);
  CHECK(view.visibleStart() == Approx(wholeStart));
  CHECK(view.visibleDuration() == Approx(wholeDuration));
  CHECK(view.selectionState()->zoomDepth() == 0);
}

TEST_CASE("A range set on the shared state from elsewhere shows on the timeline", "[gui][selection][timeline]") {
  guitest::ensureApp();
  SelectionState shared;
  TimelineView view;
  view.resize(1000, 300);
  view.setSelectionState(&shared);
  view.setData(buildTimelineData(guitest::makeTrace()));
  QSignalSpy selected(&view, &TimelineView::rangeSelected);
  shared.setTimeRange({1000.0, 1120.0});  // model row: calls at 1000, 1012, ..., 1108 (10 us each)
  REQUIRE(selected.count() == 1);
  REQUIRE(view.selectedRange());
  CHECK(view.selectedRange()->slices >= 10);
  QSignalSpy cleared(&view, &TimelineView::rangeCleared);
  shared.clearTimeRange();
  CHECK(cleared.count() == 1);
  CHECK(!view.selectedRange());
}

TEST_CASE("The timeline finds slices by name and steps through them in time order", "[gui][timeline]") {
  guitest::ensureApp();
  TimelinePanel panel;
  panel.resize(1000, 300);
  TimelineView& view = *panel.view();
  view.setData(buildTimelineData(guitest::makeTrace()));
  view.setVisibleRange(900.0, 50.0);
  panel.findBox()->setText(QStringLiteral("CHILD"));  // "child a" at 1010, "child b" at 1030, "grandchild" at 1035
  CHECK(panel.matchLabel()->text().startsWith(QStringLiteral("3")));
  REQUIRE(view.search().count == 3);
  std::vector<QString> names;
  for (int i = 0; i < 4 && view.showMatch(true); ++i) {
    const SliceInfo info = view.sliceInfo(*view.selectedSlice());
    names.push_back(info.name);
    // The match is brought into view.
    CHECK(info.startUs >= view.visibleStart());
    CHECK(info.startUs + info.durationUs <= view.visibleStart() + view.visibleDuration());
  }
  CHECK(names ==
        std::vector<QString>{QStringLiteral("child a"), QStringLiteral("child b"), QStringLiteral("grandchild")});
  REQUIRE(view.showMatch(false));
  CHECK(view.sliceInfo(*view.selectedSlice()).name == QStringLiteral("child b"));
  REQUIRE(view.showMatch(false));
  CHECK(!view.showMatch(false));
  // A new trace drops the old matches and searches it again.
  view.setData(buildTimelineData(dfc::profile::Trace{}));
  CHECK(view.search().count == 0);
}
