#include <QTableWidget>
#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "GuiTestSupport.h"
#include "compare/CompareSummary.h"
#include "compare/CompareView.h"
#include "graph/GraphView.h"
#include "style/ColorIdentity.h"
#include "style/Palette.h"
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
  CHECK(lines.size() == 7);  // with a run: steps run and time per step too
  CHECK(lines[0].contains(QStringLiteral("3")));
}

namespace {

// A run of `steps` training steps: per step, the three sections of makePlan()
// called in schedule order on the whole-run row, with durations that vary
// from step to step around `meanUs` per call.
dfc::profile::CompactTrace runOf(int steps, double meanUs, unsigned seed) {
  dfc::profile::Trace trace;
  double t = 0;
  const char* hs[] = {"hs0_matmul_relu", "hs0_matmul_relu", "hs1_add"};
  for (int step = 0; step < steps; ++step)
    for (int section = 0; section < 3; ++section) {
      seed = seed * 1103515245u + 12345u;
      const double dur = meanUs * (0.5 + static_cast<double>((seed >> 8) % 1000) / 1000.0);
      trace.events.push_back({'X', hs[section], "forward", 1, 0, t, dur,
                              {{"section_id", static_cast<double>(section)},
                               {"hypersection", std::string(hs[section])},
                               {"step", static_cast<double>(step)}}});
      t += dur + 1;
    }
  trace.events.push_back({'X', "load PEF", "host", 1, 1, 0, 5000, {}});  // not a section call
  return dfc::profile::compactTrace(trace);
}

// The run's own mean of (section-call time in a step) over its steps.
double ownPerStepMean(const dfc::profile::CompactTrace& trace) {
  std::map<int, double> perStep;
  for (const auto& e : trace.events) {
    const auto args = trace.args(e);
    for (const auto& [key, value] : args)
      if (key == "step") perStep[static_cast<int>(std::get<double>(value))] += e.dur;
  }
  double sum = 0;
  for (const auto& [step, us] : perStep) sum += us;
  return sum / static_cast<double>(perStep.size());
}

}  // namespace

TEST_CASE("Compare reports runs of 1,875 and 64 steps per step, not as raw totals", "[gui][compare]") {
  dfc::pef::Pef left = makePef("o0", 10.0), right = makePef("o3", 4.0);
  left.meta.batchSize = right.meta.batchSize = 32;
  const auto longRun = runOf(1875, 100.0, 7);
  const auto shortRun = runOf(64, 60.0, 11);
  const CompareSummary s = compareRuns(left, &longRun, right, &shortRun);
  CHECK(s.left.steps == 1875);
  CHECK(s.right.steps == 64);
  const double leftMean = ownPerStepMean(longRun), rightMean = ownPerStepMean(shortRun);
  CHECK(s.left.measuredPerStepUs() == Approx(leftMean).epsilon(0.05));
  CHECK(s.right.measuredPerStepUs() == Approx(rightMean).epsilon(0.05));
  CHECK(s.left.measuredPerSampleUs() == Approx(leftMean / 32).epsilon(0.05));
  // The ratio is of time per step (~0.6), not of totals (~0.02).
  CHECK(s.measuredRatio == Approx(rightMean / leftMean).epsilon(0.05));
  CHECK(s.measuredRatio > 0.3);
  const QString text = s.lines().join(QLatin1Char('\n'));
  CHECK(text.contains(QStringLiteral("Steps run: 1,875 → 64")));
  CHECK(text.contains(QStringLiteral("Measured per step")));

  // Matched by hypersection, per step on each side, biggest change first.
  REQUIRE(s.rows.size() == 2);
  CHECK(s.rows[0].key == QStringLiteral("matmul_relu"));  // two calls a step: the bigger change
  CHECK(s.rows[0].label() == QStringLiteral("hs0_matmul_relu"));
  CHECK(s.rows[0].calls[0] == 2);
  CHECK(s.rows[0].calls[1] == 2);
  CHECK(s.rows[0].measured);
  CHECK(s.rows[0].estUs[0] == Approx(20.0));
  CHECK(s.rows[0].measuredUs[0] + s.rows[1].measuredUs[0] == Approx(s.left.measuredPerStepUs()));
  CHECK(std::abs(s.rows[0].deltaUs()) >= std::abs(s.rows[1].deltaUs()));
}

TEST_CASE("Compare matches a recompile's renumbered hypersections by what they compute, not by id", "[gui][compare]") {
  dfc::pef::Pef left = makePef("o0", 10.0), right = makePef("o0", 8.0);
  // The recompile numbered the same kernels anew, and has a second kernel whose name repeats.
  right.plan.hypersections = {{0, "hs7_add", {2}}, {1, "hs9_matmul_relu", {0, 1}}};
  right.plan.sections[2].hypersection = 0;
  right.plan.sections[0].hypersection = right.plan.sections[1].hypersection = 1;
  const CompareSummary s = compareRuns(left, nullptr, right, nullptr);
  REQUIRE(s.rows.size() == 2);  // not four rows, each on one side only
  for (const CompareRow& row : s.rows) {
    INFO(row.label().toStdString());
    CHECK(row.calls[0] == row.calls[1]);
    CHECK(row.label().contains(QStringLiteral("↔")));
  }
  CHECK(s.rows[0].key == QStringLiteral("matmul_relu"));
  CHECK(s.rows[0].label() == QStringLiteral("hs0_matmul_relu ↔ hs9_matmul_relu"));
  // One colour for the pair, in both graphs and both timelines.
  ColorIdentity identity;
  for (const CompareRow& row : s.rows) identity.addHypersection(row.key);
  for (const auto& keys : s.keyOf)
    for (const auto& [name, key] : keys) identity.aliasHypersection(name, key);
  CHECK(identity.hypersectionIndex(QStringLiteral("hs0_matmul_relu")) ==
        identity.hypersectionIndex(QStringLiteral("hs9_matmul_relu")));
  CHECK(identity.hypersectionIndex(QStringLiteral("hs1_add")) == identity.hypersectionIndex(QStringLiteral("hs7_add")));
  CHECK(identity.hypersectionIndex(QStringLiteral("hs1_add")) !=
        identity.hypersectionIndex(QStringLiteral("hs0_matmul_relu")));
}

TEST_CASE("two kernels of one name match in call order: the second is \"#2\" on both sides", "[gui][compare]") {
  dfc::pef::Pef left = makePef("o0", 10.0), right = makePef("o0", 10.0);
  // Both sides: hs?_matmul called first, then another matmul kernel.
  left.plan.hypersections = {{0, "hs0_matmul", {0, 1}}, {1, "hs1_matmul", {2}}};
  right.plan.hypersections = {{0, "hs5_matmul", {0, 1}}, {1, "hs3_matmul", {2}}};
  const CompareSummary s = compareRuns(left, nullptr, right, nullptr);
  REQUIRE(s.rows.size() == 2);
  std::map<QString, QString> labels;
  for (const CompareRow& row : s.rows) labels[row.key] = row.label();
  CHECK(labels[QStringLiteral("matmul")] == QStringLiteral("hs0_matmul ↔ hs5_matmul"));
  CHECK(labels[QStringLiteral("matmul #2")] == QStringLiteral("hs1_matmul ↔ hs3_matmul"));
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

TEST_CASE("Compare colours a matched hypersection alike in both graphs", "[gui][compare][palette]") {
  guitest::ensureApp();
  // The left plan lists 30 hypersections no section calls before the two it runs:
  // the matched hypersections must still get palette colours, not "other".
  dfc::pef::Pef left = makePef("o0", 10.0);
  std::vector<dfc::partition::Hypersection> unused;
  for (int i = 0; i < 30; ++i) unused.push_back({i, "unused" + std::to_string(i), {}});
  for (auto& hs : left.plan.hypersections) hs.id += 30;
  left.plan.hypersections.insert(left.plan.hypersections.begin(), unused.begin(), unused.end());
  for (auto& s : left.plan.sections) s.hypersection += 30;
  CompareView view;
  view.resize(1200, 800);
  view.setLeft(std::make_shared<const dfc::pef::Pef>(left), nullptr);
  view.setRight(std::make_shared<const dfc::pef::Pef>(makePef("o3", 5.0)), nullptr);
  const auto summary = view.summary();
  REQUIRE(summary);
  REQUIRE(summary->rows.size() == 2);
  std::set<QRgb> colours;
  for (const CompareRow& row : summary->rows) {
    INFO(row.key.toStdString());
    const QColor left0 = view.graph(0)->colorIdentity().hypersection(row.names[0]);
    CHECK(left0 != QColor::fromRgb(kOtherColor));
    CHECK(view.graph(1)->colorIdentity().hypersection(row.names[1]) == left0);
    CHECK(view.graph(0)->colorMode() == GraphColorMode::Hypersection);
    colours.insert(left0.rgb());
  }
  CHECK(colours.size() == 2);
}
