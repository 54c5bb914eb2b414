// Timeline benchmark: writes a chrome trace with N slices (default 1M) in our
// run's layout or a PyTorch-profiler-like one (BenchTraceLayouts.h), then
// measures what a user waits for: opening it (parse into the compact trace +
// the trace index + TimelineData) with the peak RSS against the file's size,
// repainting the TimelineView at five zoom levels (QWidget::render into a
// QImage, offscreen), and the index's answers (a range summary as a drag
// computes it, grouping by section, a name search). Prints the figures;
// asserts nothing. Run one size per process: the peak RSS is the process's.
//   bench_timeline [--slices N] [--layout ours|pytorch] [--file trace.json] [--keep] [--dom] [--open-only]
#include <sys/resource.h>
#include <sys/stat.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "BenchTraceLayouts.h"
#include "profile/ChromeTrace.h"
#include "profile/CompactTrace.h"
#include "profile/TraceIndex.h"
#include "timeline/TimelineData.h"
#include "timeline/TimelineView.h"

namespace {

double cpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto sec = [](timeval t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return sec(usage.ru_utime) + sec(usage.ru_stime);
}

double peakRssMb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// The median of 5 runs of `work`, in milliseconds.
template <typename Work>
double medianMs(Work work) {
  std::vector<double> ms;
  for (int rep = 0; rep < 5; ++rep) {
    QElapsedTimer t;
    t.start();
    work();
    ms.push_back(t.nsecsElapsed() / 1e6);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// What a range drag, a group-by and a search cost on the index.
void measureIndex(const dfc::views::TimelineData& data) {
  const dfc::profile::TraceIndex& index = *data.index;
  const double span = data.endUs - data.startUs;
  for (double fraction : {1.0, 1e-1, 1e-3}) {
    dfc::views::RangeSummary summary;
    const double ms =
        medianMs([&] { summary = dfc::views::summarizeRange(data, data.startUs, data.startUs + span * fraction); });
    std::printf("range summary over %-6g of the trace: median %.2f ms (%zu slices, wall %s)\n", fraction, ms,
                summary.slices, dfc::views::formatDuration(summary.wallUs).toUtf8().constData());
  }
  QElapsedTimer first;
  first.start();
  size_t groups = index.aggregate(data.startUs, data.endUs, {}, dfc::profile::GroupBy::Section).groups.size();
  const double firstMs = first.nsecsElapsed() / 1e6;
  const double ms = medianMs(
      [&] { groups = index.aggregate(data.startUs, data.endUs, {}, dfc::profile::GroupBy::Section).groups.size(); });
  std::printf("whole trace by section: first %.1f ms (reads the args), then median %.2f ms (%zu groups)\n", firstMs, ms,
              groups);
  size_t matches = 0;
  const double searchMs = medianMs([&] { matches = index.search("hs3").count; });
  std::printf("search 'hs3': median %.3f ms (%zu slices)\n", searchMs, matches);
}

}  // namespace

int main(int argc, char** argv) {
  size_t slices = 1'000'000;
  std::string file;
  bool dom = false, keep = false, openOnly = false;
  auto layout = dfc::bench::TraceLayout::Ours;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--slices") && i + 1 < argc) slices = std::stoul(argv[++i]);
    else if (!std::strcmp(argv[i], "--gigabyte")) slices = 8'000'000;
    else if (!std::strcmp(argv[i], "--file") && i + 1 < argc) file = argv[++i];
    else if (!std::strcmp(argv[i], "--dom")) dom = true;
    else if (!std::strcmp(argv[i], "--keep")) keep = true;
    else if (!std::strcmp(argv[i], "--open-only")) openOnly = true;
    else if (!std::strcmp(argv[i], "--layout") && i + 1 < argc)
      layout = std::strcmp(argv[++i], "pytorch") ? dfc::bench::TraceLayout::Ours : dfc::bench::TraceLayout::PyTorch;
  }
  if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  bool generated = false;
  if (file.empty()) {
    file = "/tmp/bench_timeline_" + std::string(dfc::bench::layoutName(layout)) + "_" + std::to_string(slices) + ".json";
    struct stat st {};
    if (!keep || ::stat(file.c_str(), &st) != 0) {  // --keep: reuse the file a run before wrote
      if (dfc::bench::writeBenchTrace(file, slices, layout) == 0) return 1;
    }
    generated = !keep;
  }
  struct stat fileStat {};
  ::stat(file.c_str(), &fileStat);
  const double fileMb = static_cast<double>(fileStat.st_size) / 1e6;

  if (dom) {  // the profile::Trace path (simdjson DOM + std::string per event), for comparison
    QElapsedTimer t;
    t.start();
    auto trace = dfc::profile::readChromeTrace(file);
    std::printf("readChromeTrace (DOM -> profile::Trace): %.3f s, %zu events\n", t.nsecsElapsed() / 1e9,
                trace ? trace->events.size() : 0);
  }

  QElapsedTimer timer;
  const double cpu0 = cpuSeconds();
  timer.start();
  auto trace = dfc::profile::readCompactTrace(file);
  if (!trace) {
    std::fprintf(stderr, "%s\n", trace.error().message().c_str());
    return 1;
  }
  const double parseS = timer.nsecsElapsed() / 1e9;
  timer.restart();
  auto index = std::make_shared<const dfc::profile::TraceIndex>(
      std::make_shared<const dfc::profile::CompactTrace>(std::move(trace.value())));
  const double indexS = timer.nsecsElapsed() / 1e9;
  timer.restart();
  dfc::views::TimelineData data = dfc::views::buildTimelineData(index);
  const double buildS = timer.nsecsElapsed() / 1e9;
  const double openCpu = cpuSeconds() - cpu0;
  size_t lodItems = 0;
  for (const auto& row : data.rows)
    for (const auto& lod : row.lods) lodItems += lod.itemCount;
  // CPU time too: on a shared, loaded machine wall time mostly measures waiting.
  std::printf(
      "open: parse %.3f s + trace index %.3f s + timeline data %.3f s = %.3f s wall, %.3f s CPU (%zu slices, "
      "%zu rows, %zu counters, %zu LOD items)\n",
      parseS, indexS, buildS, parseS + indexS + buildS, openCpu, data.sliceCount, data.rows.size(),
      data.counters.size(), lodItems);
  std::printf("open peak RSS %.0f MB for a %.0f MB file: %.2fx the file\n", peakRssMb(), fileMb, peakRssMb() / fileMb);
  if (openOnly) {
    if (generated) std::remove(file.c_str());
    return 0;
  }
  measureIndex(data);

  dfc::views::TimelineView view;
  view.resize(1600, 900);
  view.setData(std::move(data));
  QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
  const double span = view.visibleDuration();
  const double mid = view.visibleStart() + span / 2;
  for (double fraction : {1.0, 1e-1, 1e-3, 1e-5, 1e-7}) {
    view.setVisibleRange(mid - span * fraction / 2, span * fraction);
    std::vector<double> ms;
    for (int rep = 0; rep < 7; ++rep) {
      QElapsedTimer paint;
      paint.start();
      view.render(&image);
      ms.push_back(paint.nsecsElapsed() / 1e6);
    }
    std::sort(ms.begin(), ms.end());
    const auto& stats = view.lastPaintStats();
    std::printf("repaint at %-8g of the trace (%s visible): median %.2f ms, max %.2f ms "
                "(visited %zu, drawn %zu, folded %zu into %zu blocks)\n",
                fraction, dfc::views::formatDuration(view.visibleDuration()).toUtf8().constData(), ms[ms.size() / 2],
                ms.back(), stats.visited, stats.drawn, stats.folded, stats.blocks);
  }
  std::printf("peak RSS %.0f MB\n", peakRssMb());
  if (generated) std::remove(file.c_str());
  return 0;
}
