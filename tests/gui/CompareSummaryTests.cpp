#include <catch2/catch.hpp>

#include "GuiTestSupport.h"
#include "compare/CompareSummary.h"
#include "compare/CompareView.h"
#include "graph/GraphView.h"
#include "timeline/TimelineView.h"

using namespace dfc::views;

namespace {

dfc::pef::Pef makePef(const char* opt, double latency) {
  dfc::pef::Pef pef;
  pef.meta.model = "tiny";
  pef.meta.optLevel = opt;
  pef.meta.arch = "sn30";
  pef.graph = guitest::makeGraph();
  pef.plan = guitest::makePlan();
  for (auto& s : pef.plan.sections) {
    s.estimate.latencyUs = latency;
    s.estimate.pcus = 10 + s.id;
  }
  return pef;
}

}  // namespace

TEST_CASE("Compare summary counts sections and sums estimated and measured latency", "[gui][compare]") {
  dfc::pef::Pef o0 = makePef("o0", 10.0);
  dfc::pef::Pef o3 = makePef("o3", 4.0);
  o3.plan.sections.pop_back();  // fused: one section fewer
  o3.plan.schedule = {0, 1};
  const auto trace = dfc::profile::compactTrace(guitest::makeTrace());
  const CompareSummary s = compareRuns(o0, &trace, o3, nullptr);
  CHECK(s.left.sections == 3);
  CHECK(s.right.sections == 2);
  CHECK(s.left.hypersections == 2);
  CHECK(s.left.estimatedUs == 30.0);
  CHECK(s.right.estimatedUs == 8.0);
  CHECK(s.estimatedRatio == Approx(8.0 / 30.0));
  CHECK(s.left.maxPcus == 12);
  CHECK(s.left.hasRun);
  CHECK(s.left.measuredSlices == static_cast<size_t>(guitest::kModelSlices));  // tid 0 only
  CHECK(s.left.measuredUs == Approx(guitest::kModelSlices * 10.0));
  CHECK(!s.right.hasRun);
  CHECK(s.left.label == QStringLiteral("tiny -o0 (sn30)"));
  const QStringList lines = s.lines();
  CHECK(lines.size() == 6);
  CHECK(lines[0].contains(QStringLiteral("3")));
}

TEST_CASE("CompareView keeps both timelines in step", "[gui][compare]") {
  guitest::ensureApp();
  CompareView view;
  view.resize(1200, 800);
  auto trace = std::make_shared<const dfc::profile::CompactTrace>(dfc::profile::compactTrace(guitest::makeTrace()));
  view.setLeft(std::make_shared<const dfc::pef::Pef>(makePef("o0", 10.0)), trace);
  view.setRight(std::make_shared<const dfc::pef::Pef>(makePef("o3", 5.0)), trace);
  REQUIRE(view.summary());
  CHECK(view.summary()->estimatedRatio == Approx(0.5));
  view.timeline(0)->setVisibleRange(2000.0, 300.0);
  CHECK(view.timeline(1)->visibleStart() == Approx(2000.0));
  CHECK(view.timeline(1)->visibleDuration() == Approx(300.0));
  view.timeline(1)->setVisibleRange(1500.0, 200.0);
  CHECK(view.timeline(0)->visibleStart() == Approx(1500.0));
}
