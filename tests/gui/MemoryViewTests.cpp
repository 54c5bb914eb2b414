// Issue 35: the Memory screen. Its stacks are the bytes of the tensors live at
// each call (hand-built graph), its peak is the one `dfc inspect --memory`
// prints (LeNet compiled by dfc), and its exports write the CSV dfc writes and
// a picture; it and the Roofline screen are translated.
#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <catch2/catch.hpp>
#include <sstream>

#include "AppTestSupport.h"
#include "DocumentLoaders.h"
#include "MainWindow.h"
#include "Translations.h"
#include "e2e/RooflineFixtures.h"
#include "memory/CallTimes.h"
#include "memory/MemoryChart.h"
#include "memory/MemoryPanel.h"
#include "roofline/RooflinePanel.h"
#include "style/Units.h"
#include "timeline/TimelineData.h"

using namespace dfc;
using views::MemTier;

namespace {

constexpr MemTier kTiers[] = {MemTier::Sram, MemTier::Hbm, MemTier::Ddr, MemTier::Host};

int64_t liveSum(const views::MemoryViewData& d, int call, MemTier tier) {
  int64_t sum = 0;
  for (const analysis::LiveTensor& t : d.timeline.tensors)
    if (t.tier == tier && t.first <= call && call <= t.last) sum += t.bytes;
  return sum;
}

// The bytes `dfc inspect --memory` prints for each tier's peak (the table row that starts with the tier).
std::map<std::string, long long> inspectPeaks(const std::string& output) {
  std::map<std::string, long long> peaks;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream in(line);
    std::string tier;
    long long bytes = -1;
    in >> tier >> bytes;
    for (MemTier t : kTiers)
      if (tier == analysis::memTierName(t) && !peaks.count(tier) && in) peaks[tier] = bytes;
  }
  return peaks;
}

}  // namespace

TEST_CASE("The memory view's stacks at each call are the bytes of the tensors live there", "[gui][memory]") {
  guitest::ensureApp();
  const views::MemoryViewData d = views::buildMemoryViewData(apptest::makePef());
  REQUIRE(d.error.isEmpty());
  REQUIRE(d.calls() == 3);
  CHECK(d.callSections == std::vector<int>{0, 1, 2});
  int64_t everything = 0;
  for (int c = 0; c < d.calls(); ++c)
    for (MemTier t : kTiers) {
      INFO("call " << c << " tier " << analysis::memTierName(t));
      CHECK(d.stackTotal(c, t) == liveSum(d, c, t));
      everything += d.stackTotal(c, t);
    }
  CHECK(everything > 0);
  // The panel lists the tensors live at the peak, largest first, adding up to the peak.
  views::MemoryPanel panel;
  panel.setData(d);
  for (MemTier t : kTiers) {
    panel.setTier(t);
    const analysis::TierPeak& peak = d.peak(t);
    if (peak.call < 0) continue;
    int64_t listed = 0, previous = INT64_MAX;
    for (size_t i : panel.listedTensors()) {
      const int64_t bytes = d.timeline.tensors[i].bytes;
      CHECK(bytes <= previous);
      previous = bytes;
      listed += bytes;
    }
    CHECK(listed == peak.bytes);
    CHECK(peak.bytes == d.stackTotal(peak.call, t));
    CHECK(panel.table()->rowCount() == static_cast<int>(panel.listedTensors().size()));
  }
}

TEST_CASE("A tensor picked in the memory list names its producer and shades its lifetime", "[gui][memory]") {
  guitest::ensureApp();
  const pef::Pef pef = apptest::makePef();
  views::MemoryPanel panel;
  panel.setData(views::buildMemoryViewData(pef));
  panel.setTier(MemTier::Host);
  panel.showCall(0);
  REQUIRE(panel.table()->rowCount() > 0);
  QSignalSpy picked(&panel, &views::MemoryPanel::tensorActivated);
  panel.activateRow(0);
  REQUIRE(picked.count() == 1);
  const analysis::LiveTensor& t = panel.data().timeline.tensors[panel.listedTensors()[0]];
  const ir::Value& v = pef.graph.value(t.value);
  CHECK(picked.first().at(0).toInt() == v.producer);
  CHECK(picked.first().at(2).toString() == QString::fromStdString(v.name));
}

TEST_CASE("The memory view's peak is the one dfc inspect --memory prints, and it exports", "[gui][memory][app]") {
  guitest::ensureApp();
  test::ScratchDir dir("memory-view");
  const std::string path = test::compileLenetO1(dir);
  auto inspect = test::runDfc("inspect --memory " + path);
  REQUIRE(inspect.status == 0);
  const auto peaks = inspectPeaks(inspect.output);
  REQUIRE(peaks.size() == 4);

  studio::MainWindow window(studio::engineLoaders(), QStringLiteral("-"));
  QSignalSpy idle(&window, &studio::MainWindow::idle);
  window.openPef(QString::fromStdString(path));
  REQUIRE((idle.count() > 0 || idle.wait(60000)));
  views::MemoryPanel* panel = window.memoryPanel();
  REQUIRE_FALSE(panel->data().empty());
  for (MemTier t : kTiers) {
    INFO(analysis::memTierName(t));
    CHECK(panel->data().peak(t).bytes == peaks.at(analysis::memTierName(t)));
  }
  CHECK(panel->summaryLabel()->text().contains(
      views::formatBytes(static_cast<double>(panel->data().peak(MemTier::Ddr).bytes))));

  auto csv = test::runDfc("inspect --memory --csv " + path);
  REQUIRE(csv.status == 0);
  QTemporaryDir out;
  QString error;
  REQUIRE(panel->exportCsv(out.filePath(QStringLiteral("m.csv")), &error));
  QFile file(out.filePath(QStringLiteral("m.csv")));
  REQUIRE(file.open(QIODevice::ReadOnly));
  CHECK(file.readAll().toStdString() == csv.output);
  REQUIRE(panel->exportPicture(out.filePath(QStringLiteral("m.png")), &error));
  CHECK(QImage(out.filePath(QStringLiteral("m.png"))).width() > 100);
  REQUIRE(panel->exportPicture(out.filePath(QStringLiteral("m.svg")), &error));
  QFile svg(out.filePath(QStringLiteral("m.svg")));
  REQUIRE(svg.open(QIODevice::ReadOnly));
  CHECK(svg.readAll().contains("<svg"));
}

TEST_CASE("The Memory and Roofline screens speak German under a German locale", "[gui][memory][roofline][i18n]") {
  guitest::ensureApp();
  const studio::Translations german(QLocale(QStringLiteral("de_DE")));
  REQUIRE(german.appTranslated());
  studio::MainWindow window(studio::DocumentLoaders{}, QStringLiteral("-"));
  CHECK(window.tabs()->tabText(static_cast<int>(studio::MainWindow::Screen::Memory)) == QStringLiteral("&Speicher"));
  auto* tiers = window.memoryPanel()->findChild<QComboBox*>();
  REQUIRE(tiers != nullptr);
  CHECK(tiers->itemText(3) == QStringLiteral("Host-Arena (CPU-Lauf)"));
  CHECK(window.rooflinePanel()->summaryLabel()->text().startsWith(QStringLiteral("Keine PEF geladen")));
}

TEST_CASE("A tensor's lifetime in calls is the time from its first call's start to its last call's end",
          "[gui][memory]") {
  // makeTrace: section calls s0, s1, s2, s0, ... every 12 us from 1000 us, each 10 us long.
  const views::TimelineData timeline = views::buildTimelineData(guitest::makeTrace());
  REQUIRE(timeline.trace);
  const std::vector<int> schedule{0, 1, 2};
  const auto lifetime = views::callsTimeRange(*timeline.trace, schedule, 1, 2);
  REQUIRE(lifetime.has_value());
  CHECK(lifetime->startUs == 1012.0);
  CHECK(lifetime->endUs == 1034.0);
  const auto first = views::callsTimeRange(*timeline.trace, schedule, 0, 0);
  REQUIRE(first.has_value());
  CHECK(*first == views::TimeRange{1000.0, 1010.0});
  CHECK_FALSE(views::callsTimeRange(*timeline.trace, schedule, 1, 3).has_value());  // no call 3 in a step
  CHECK_FALSE(views::callsTimeRange(*timeline.trace, {5}, 0, 0).has_value());       // a section the trace never calls
}
