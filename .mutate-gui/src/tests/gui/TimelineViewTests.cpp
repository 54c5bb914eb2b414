#include <QApplication>
#include <QContextMenuEvent>
#include <QMenu>
#include <QSignalSpy>
#include <QTest>
#include <catch2/catch.hpp>

#include "GuiTestSupport.h"
#include "timeline/TimelineData.h"
#include "timeline/TimelineView.h"

using namespace dfc::views;

namespace {

int rowNamed(const TimelineData& data, const QString& name) {
  for (size_t i = 0; i < data.rows.size(); ++i) {
    if (data.rows[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

TEST_CASE("TimelineData groups slices into sorted rows with nesting depths", "[gui][timeline]") {
  const TimelineData data = buildTimelineData(guitest::makeTrace());
  REQUIRE(data.rows.size() == 3);
  CHECK(data.sliceCount == guitest::kModelSlices + 5);  // the counter event is not a slice
  CHECK(data.rows[0].name == QStringLiteral("host"));  // sort index -1 first; one process: thread names only
  CHECK(data.rows[1].name == QStringLiteral("model"));
  CHECK(data.startUs == 900.0);

  const TimelineRow& model = data.rows[1];
  CHECK(model.size() == static_cast<size_t>(guitest::kModelSlices));
  CHECK(model.depthCount == 1);
  CHECK(std::is_sorted(model.starts.begin(), model.starts.end()));

  const TimelineRow& layers = data.rows[2];
  REQUIRE(layers.size() == 4);
  CHECK(layers.depthCount == 3);
  // Sorted: parent (0), child a (1), child b (1), grandchild (2).
  CHECK(std::vector<uint16_t>(layers.depths.begin(), layers.depths.end()) == std::vector<uint16_t>{0, 1, 1, 2});
  CHECK(layers.maxDurationUs == 100.0);
  // Same hypersection in the name -> same colour; different -> different.
  CHECK(model.colors[0] == model.colors[3]);
  CHECK(model.colors[0] != model.colors[2]);
}

TEST_CASE("TimelineView paints only what is visible and folds narrow slices", "[gui][timeline]") {
  guitest::ensureApp();
  TimelineView view;
  view.resize(1000, 300);
  view.setData(buildTimelineData(guitest::makeTrace()));
  (void)view.grab();
  const auto whole = view.lastPaintStats();
  // Zoomed out, the precomputed level of detail is walked, not every slice.
  CHECK(whole.visited < static_cast<size_t>(guitest::kModelSlices) / 4);
  // 1000 slices over ~800 px cannot each get a box: most fold into blocks.
  CHECK(whole.folded > 500);
  CHECK(whole.drawn + whole.blocks < 200);

  view.setVisibleRange(1000.0 + 500 * 12.0, 60.0);  // five calls in the middle
  (void)view.grab();
  const auto zoomed = view.lastPaintStats();
  CHECK(zoomed.visited <= 10);
  CHECK(zoomed.visited >= 5);
  CHECK(zoomed.drawn >= 5);
  CHECK(zoomed.folded <= 2);  // only a clipped slice at an edge
}

TEST_CASE("Clicking a slice selects it and reports its args", "[gui][timeline]") {
  guitest::ensureApp();
  TimelineView view;
  view.resize(1000, 300);
  view.show();
  REQUIRE(QTest::qWaitForWindowExposed(&view));
  view.setData(buildTimelineData(guitest::makeTrace()));
  const int model = rowNamed(view.data(), QStringLiteral("model"));
  REQUIRE(model >= 0);
  view.setVisibleRange(1000.0 + 40 * 12.0, 120.0);
  const QRectF target = view.sliceRect(model, 43);
  REQUIRE(target.width() > 20);

  QSignalSpy spy(&view, &TimelineView::sliceSelected);
  QTest::mouseClick(&view, Qt::LeftButton, {}, target.center().toPoint());
  REQUIRE(spy.count() == 1);
  const auto info = qvariant_cast<SliceInfo>(spy.at(0).at(0));
  CHECK(info.name == QStringLiteral("s1 hs0"));
  CHECK(info.durationUs == 10.0);
  CHECK(info.arg(QStringLiteral("call")) == QStringLiteral("43"));
  CHECK(info.arg(QStringLiteral("section_id")) == QStringLiteral("1"));
  REQUIRE(view.selectedSlice());
  CHECK(view.selectedSlice()->index == 43);

  // A click in empty space clears the selection.
  QSignalSpy cleared(&view, &TimelineView::selectionCleared);
  QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(view.width() - 5, view.height() - 5));
  CHECK(cleared.count() == 1);
  CHECK(!view.selectedSlice());
}

TEST_CASE("Wheel zoom keeps the time under the cursor in place", "[gui][timeline]") {
  guitest::ensureApp();
  TimelineView view;
  view.resize(1000, 300);
  view.setData(buildTimelineData(guitest::makeTrace()));
  const double before = view.visibleDuration();
  const QPointF at(TimelineView::kLabelWidth + 400, 100);
  const double timeBefore = view.visibleStart() + 400.0 / (view.width() - TimelineView::kLabelWidth) * before;
  QWheelEvent wheel(at, view.mapToGlobal(at), {}, QPoint(0, 240), Qt::NoButton, Qt::NoModifier,
                    Qt::NoScrollPhase, false);
  QApplication::sendEvent(&view, &wheel);
  CHECK(view.visibleDuration() < before * 0.7);
  const double timeAfter =
      view.visibleStart() + 400.0 / (view.width() - TimelineView::kLabelWidth) * view.visibleDuration();
  CHECK(timeAfter == Approx(timeBefore).epsilon(1e-6));
}

TEST_CASE("A row pinned from its header menu stays at the top while the rest scrolls", "[gui][timeline]") {
  guitest::ensureApp();
  TimelineView view;
  view.resize(1000, 150);  // shorter than the rows: they scroll
  view.show();
  REQUIRE(QTest::qWaitForWindowExposed(&view));
  view.setData(buildTimelineData(guitest::makeTrace()));
  const int rows = static_cast<int>(view.data().rows.size());
  const int layers = rowNamed(view.data(), QStringLiteral("layers"));
  REQUIRE(layers == rows - 1);  // the lowest slice row
  std::vector<int> tops;
  for (int r = 0; r < rows; ++r) tops.push_back(view.rowTop(r));
  const int bandTop = TimelineView::kRulerHeight + 4;
  REQUIRE(tops[0] == bandTop);
  REQUIRE(tops[static_cast<size_t>(layers)] > bandTop);

  // Right-click the row's header: its menu pins it.
  auto menuAction = [&](int row) {
    const QPoint at(20, view.rowTop(row) + 5);
    QContextMenuEvent event(QContextMenuEvent::Mouse, at, view.mapToGlobal(at));
    QApplication::sendEvent(&view, &event);
    auto* menu = view.findChild<QMenu*>();
    REQUIRE(menu);
    REQUIRE(menu->actions().size() == 1);
    const QString text = menu->actions().front()->text();
    menu->actions().front()->trigger();
    menu->close();
    delete menu;
    return text;
  };
  CHECK(view.rowToolTip(layers).contains(QStringLiteral("Right-click to pin")));
  CHECK(menuAction(layers) == QStringLiteral("Pin row to top"));
  CHECK(view.isPinned(layers));
  CHECK(view.rowToolTip(layers).contains(QStringLiteral("right-click to unpin")));
  CHECK(view.rowTop(layers) == bandTop);
  CHECK(view.rowTop(0) > view.rowTop(layers));  // the others move below the band

  // Scrolling moves the other rows, not the pinned one, which still answers clicks.
  const int hostBefore = view.rowTop(0);
  view.scrollRowsBy(60);
  CHECK(view.rowTop(0) < hostBefore);
  CHECK(view.rowTop(layers) == bandTop);
  view.setVisibleRange(view.data().startUs, view.data().endUs - view.data().startUs);
  const QRectF pinnedSlice = view.sliceRect(layers, 0);
  const auto hit = view.sliceAt(pinnedSlice.center().toPoint());
  REQUIRE(hit);
  CHECK(hit->row == layers);

  // Unpinning restores the trace's order.
  CHECK(menuAction(layers) == QStringLiteral("Unpin row"));
  CHECK_FALSE(view.isPinned(layers));
  view.scrollRowsBy(-1000);
  for (int r = 0; r < rows; ++r) CHECK(view.rowTop(r) == tops[static_cast<size_t>(r)]);
}

// Issue 38: search outlined only the current hit; every hit in view is now
// marked, and the find bar can say how many are in view.
TEST_CASE("Search marks every hit in view and counts them", "[gui][timeline][search]") {
  guitest::ensureApp();
  TimelineView view;
  view.resize(1000, 300);
  view.setData(buildTimelineData(guitest::makeTrace()));
  CHECK(view.findSlices(QStringLiteral("s0 hs")) == 334);  // "s0 hs0": calls 0, 3, ..., 999
  // [1485, 1585] holds calls 40..48 (call i at 1000 + 12 i, 10 us long): hits 42, 45 and 48.
  view.setVisibleRange(1485, 100);
  CHECK(view.matchesInView() == 3);
  (void)view.grab();
  CHECK(view.lastPaintStats().marked == 3);  // each outlined
  // Zoomed out, the hits are folded with the rest: each marked with a tick, a few px apart at most.
  view.zoomToFit();
  CHECK(view.matchesInView() == 334);
  (void)view.grab();
  CHECK(view.lastPaintStats().marked > 100);
  view.findSlices(QString());
  (void)view.grab();
  CHECK(view.lastPaintStats().marked == 0);
}

// Issue 38: a slice of someone else's trace showed its row, start and
// duration only. The index gives any slice its self time, parent and children.
TEST_CASE("A slice's details give self time, parent and children for any trace", "[gui][timeline][details]") {
  guitest::ensureApp();
  TimelineView view;
  view.resize(1000, 300);
  view.setData(buildTimelineData(guitest::makeTrace()));
  const int layers = rowNamed(view.data(), QStringLiteral("layers"));
  REQUIRE(layers >= 0);
  // Row "layers": parent [1000,1100] { child a [1010,1020], child b [1030,1050] { grandchild [1035,1040] } }.
  const SliceInfo parent = view.sliceInfo({layers, 0});
  CHECK(parent.name == QStringLiteral("parent"));
  CHECK(parent.selfUs == Approx(70));  // 100 - 10 - 20
  CHECK_FALSE(parent.hasParent);
  REQUIRE(parent.childCount == 2);
  CHECK(parent.children[0].first == QStringLiteral("child a"));
  CHECK(parent.children[1].first == QStringLiteral("child b"));
  CHECK(parent.children[1].second == 20);
  const SliceInfo childB = view.sliceInfo({layers, 2});
  CHECK(childB.name == QStringLiteral("child b"));
  CHECK(childB.selfUs == Approx(15));
  CHECK(childB.hasParent);
  CHECK(childB.parentName == QStringLiteral("parent"));
  CHECK(childB.childCount == 1);
  const QString html = sliceDetailsHtml(childB, view.data().startUs);
  CHECK(html.contains(QStringLiteral("self time")));
  CHECK(html.contains(QStringLiteral("grandchild")));
}

// Issue 38: S zoomed out past the data (a 76 s trace shown as -50 s .. 200 s).
TEST_CASE("Zooming out stops at the trace's extent", "[gui][timeline]") {
  guitest::ensureApp();
  TimelineView view;
  view.resize(1000, 300);
  view.setData(buildTimelineData(guitest::makeTrace()));
  const double span = view.data().endUs - view.data().startUs;
  for (int i = 0; i < 30; ++i) QTest::keyClick(&view, Qt::Key_S);
  CHECK(view.visibleDuration() <= span * 1.02 + 1e-6);
  CHECK(view.visibleStart() >= view.data().startUs - span * 0.01 - 1e-6);
  CHECK(view.visibleStart() + view.visibleDuration() <= view.data().endUs + span * 0.01 + 1e-6);
  for (int i = 0; i < 30; ++i) QTest::keyClick(&view, Qt::Key_A);  // nor does panning leave it
  CHECK(view.visibleStart() >= view.data().startUs - span * 0.01 - 1e-6);
}
