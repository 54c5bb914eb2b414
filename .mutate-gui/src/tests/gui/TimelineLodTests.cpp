#include <QSignalSpy>
#include <QTest>
#include <catch2/catch.hpp>

#include "GuiTestSupport.h"
#include "profile/CompactTrace.h"
#include "timeline/TimelineData.h"
#include "timeline/TimelineView.h"

using namespace dfc::views;

namespace {

// One row, one lane: 10k slices of 1 us every 3 us, then one long slice.
dfc::profile::Trace denseTrace() {
  dfc::profile::Trace trace;
  for (int i = 0; i < 10000; ++i)
    trace.events.push_back({'X', "tiny", "", 1, 0, i * 3.0, 1.0, {}});
  trace.events.push_back({'X', "long", "", 1, 0, 40000.0, 5000.0, {}});
  return trace;
}

}  // namespace

TEST_CASE("Level-of-detail blocks cover exactly the slices they fold", "[gui][timeline]") {
  const TimelineData data = buildTimelineData(denseTrace());
  REQUIRE(data.rows.size() == 1);
  const TimelineRow& row = data.rows[0];
  REQUIRE(!row.lods.empty());
  for (const TimelineLod& lod : row.lods) {
    size_t covered = 0;
    uint32_t next = 0;
    for (const TimelineLodItem& item : lod.lanes[0]) {
      CHECK(item.first == next);  // consecutive, no slice skipped or repeated
      double start = 1e300, end = -1e300;
      for (uint32_t k = item.first; k < item.first + item.count; ++k) {
        const uint32_t i = row.laneSlices[0][k];
        start = std::min(start, row.starts[i]);
        end = std::max(end, row.starts[i] + row.durations[i]);
      }
      CHECK(item.start == start);
      CHECK(item.end == end);
      next = item.first + item.count;
      covered += item.count;
    }
    CHECK(covered == row.size());
    CHECK(lod.itemCount < row.size());
  }
  // The coarsest level folds the 10k tiny slices into a few blocks and keeps the long one apart.
  const TimelineLod& coarse = row.lods.back();
  CHECK(coarse.lanes[0].size() <= 3);
  CHECK(row.lodFor(0.001) == nullptr);  // zoomed in: raw slices
}

TEST_CASE("Zoomed out, the view walks blocks, not every slice, and still shows the long slice", "[gui][timeline]") {
  guitest::ensureApp();
  TimelineView view;
  view.resize(1000, 200);
  view.setData(buildTimelineData(denseTrace()));
  (void)view.grab();
  const auto stats = view.lastPaintStats();
  CHECK(stats.visited < 50);
  CHECK(stats.folded == 10000);
  CHECK(stats.drawn == 1);  // the long slice keeps its colour and box
}

TEST_CASE("A range selection counts the slices in it and their clipped wall time", "[gui][timeline]") {
  const TimelineData data = buildTimelineData(denseTrace());
  // [0, 30) us holds slices at 0,3,...,27: 10 slices of 1 us.
  RangeSummary r = summarizeRange(data, 0.0, 30.0);
  CHECK(r.slices == 10);
  CHECK(r.wallUs == Approx(10.0));
  // Half of the long slice.
  r = summarizeRange(data, 42500.0, 50000.0);
  CHECK(r.slices == 1);
  CHECK(r.wallUs == Approx(2500.0));

  guitest::ensureApp();
  TimelineView view;
  view.resize(1000, 200);
  view.show();
  REQUIRE(QTest::qWaitForWindowExposed(&view));
  view.setData(buildTimelineData(denseTrace()));
  view.setVisibleRange(0.0, 100.0);  // 8.2 px per us
  QSignalSpy spy(&view, &TimelineView::rangeSelected);
  const int y = TimelineView::kRulerHeight + 10;
  const int x0 = TimelineView::kLabelWidth;  // t = 0
  const int x1 = TimelineView::kLabelWidth + static_cast<int>(29.5 * 8.2);
  QTest::mousePress(&view, Qt::RightButton, {}, QPoint(x0, y));
  QMouseEvent move(QEvent::MouseMove, QPointF(x1, y), view.mapToGlobal(QPointF(x1, y)), Qt::NoButton,
                   Qt::RightButton, Qt::NoModifier);
  QApplication::sendEvent(&view, &move);
  QTest::mouseRelease(&view, Qt::RightButton, {}, QPoint(x1, y));
  REQUIRE(spy.count() >= 1);
  const auto range = qvariant_cast<RangeSummary>(spy.last().at(0));
  CHECK(range.slices == 10);
  CHECK(range.wallUs == Approx(10.0).epsilon(0.05));
  REQUIRE(view.selectedRange());
  QSignalSpy cleared(&view, &TimelineView::rangeCleared);
  QTest::keyClick(&view, Qt::Key_Escape);
  CHECK(cleared.count() == 1);
  CHECK(!view.selectedRange());
}

TEST_CASE("Counter events become line-chart rows and instants become ticks", "[gui][timeline]") {
  auto parsed = dfc::profile::parseCompactTrace(R"({"traceEvents":[
    {"ph":"X","name":"step","pid":1,"tid":0,"ts":0,"dur":100},
    {"ph":"C","name":"loss","pid":1,"ts":10,"args":{"loss":2.5}},
    {"ph":"C","name":"loss","pid":1,"ts":50,"args":{"loss":1.0}},
    {"ph":"C","name":"mem","pid":1,"ts":20,"args":{"used":5,"free":7}},
    {"ph":"i","name":"checkpoint","pid":1,"tid":0,"ts":60,"s":"t"}]})",
                                                "counters.json");
  REQUIRE(parsed);
  const TimelineData data = buildTimelineData(std::move(parsed.value()));
  REQUIRE(data.counters.size() == 3);
  CHECK(data.counters[0].name == QStringLiteral("loss"));
  CHECK(data.counters[0].values == std::vector<double>{2.5, 1.0});
  CHECK(data.counters[0].minValue == 1.0);
  CHECK(data.counters[0].maxValue == 2.5);
  CHECK(data.counters[1].name.startsWith(QStringLiteral("mem.")));
  REQUIRE(data.rows.size() == 1);
  CHECK(data.rows[0].instants == std::vector<double>{60.0});
  CHECK(data.sliceCount == 1);

  guitest::ensureApp();
  TimelineView view;
  view.resize(800, 300);
  view.setData(buildTimelineData(dfc::profile::CompactTrace(*data.trace)));
  const QImage image = view.grab().toImage();
  // The loss line is drawn in its blue somewhere in the counter row.
  bool blue = false;
  for (int y = 0; y < image.height() && !blue; ++y)
    for (int x = TimelineView::kLabelWidth; x < image.width() && !blue; ++x) {
      const QColor c = image.pixelColor(x, y);
      blue = c.blue() > 150 && c.red() < 110;
    }
  CHECK(blue);
}

TEST_CASE("PyTorch profiler traces open: array of slices, strings as ids, flows skipped", "[gui][timeline]") {
  auto parsed = dfc::profile::parseCompactTrace(R"json({
  "schemaVersion": 1, "deviceProperties": [],
  "traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::conv2d", "pid": 4242, "tid": 4242,
   "ts": 1700000000100.5, "dur": 250.25, "args": {"External id": 3, "Sequence number": 7, "Input Dims": [[1,3,224,224]]}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::convolution", "pid": 4242, "tid": 4242,
   "ts": 1700000000101.0, "dur": 240.0, "args": {"External id": 4}},
  {"ph": "X", "cat": "kernel", "name": "void cudnn::conv<float>", "pid": 0, "tid": "stream 7",
   "ts": 1700000000120.0, "dur": 80.0, "args": {"device": 0, "stream": 7}},
  {"ph": "s", "id": 1, "pid": 4242, "tid": 4242, "ts": 1700000000101.0, "cat": "ac2g", "name": "ac2g"},
  {"ph": "f", "id": 1, "pid": 0, "tid": "stream 7", "ts": 1700000000120.0, "cat": "ac2g", "name": "ac2g", "bp": "e"},
  {"name": "process_name", "ph": "M", "ts": 0, "pid": 4242, "tid": 0, "args": {"name": "python3"}},
  {"name": "thread_name", "ph": "M", "ts": 0, "pid": 4242, "tid": 4242, "args": {"name": "thread 4242 (python3)"}},
  {"ph": "i", "s": "t", "name": "Iteration Start: PyTorch Profiler", "pid": 4242, "tid": 4242, "ts": 1700000000100.0}
  ],
  "traceName": "profiler.pt.trace.json"})json",
                                                "pytorch.json");
  REQUIRE(parsed);
  const TimelineData data = buildTimelineData(std::move(parsed.value()));
  CHECK(data.sliceCount == 3);
  REQUIRE(data.rows.size() == 2);
  const auto python = std::find_if(data.rows.begin(), data.rows.end(), [](const TimelineRow& r) { return r.pid == 4242; });
  REQUIRE(python != data.rows.end());
  CHECK(python->name == QStringLiteral("python3: thread 4242 (python3)"));
  CHECK(python->depthCount == 2);  // convolution nests in conv2d
  CHECK(python->instants.size() == 1);
  const auto stream = std::find_if(data.rows.begin(), data.rows.end(), [](const TimelineRow& r) { return r.pid == 0; });
  REQUIRE(stream != data.rows.end());
  CHECK(stream->name.endsWith(QStringLiteral("stream 7")));

  guitest::ensureApp();
  TimelineView view;
  view.resize(900, 300);
  view.setData(buildTimelineData(dfc::profile::CompactTrace(*data.trace)));
  const int row = static_cast<int>(python - data.rows.begin());
  const SliceInfo info = view.sliceInfo({row, 0});
  CHECK(info.name == QStringLiteral("aten::conv2d"));
  CHECK(info.category == QStringLiteral("cpu_op"));
  CHECK(info.durationUs == 250.25);
  CHECK(info.arg(QStringLiteral("External id")) == QStringLiteral("3"));
  CHECK(info.arg(QStringLiteral("Input Dims")) == QStringLiteral("[[1,3,224,224]]"));
}
