// Timeline benchmark: writes a chrome trace with N slices (default 1M,
// ~125 MB; --gigabyte for ~1 GB), then measures what a user waits for:
// opening it (parse into the compact trace + the trace index + TimelineData),
// repainting the TimelineView at five zoom levels (QWidget::render into a
// QImage, offscreen), and the index's answers (a range summary as a drag
// computes it, grouping by section, a name search). Prints the figures;
// asserts nothing.
//   bench_timeline [--slices N] [--gigabyte] [--file trace.json] [--dom]
#include <sys/resource.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

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

// Our own trace shape: tid 0 = the model run, 12 hyperfunction rows with
// nested per-op slices, a loss counter. Back-to-back 8-12 us slices.
size_t writeTrace(const std::string& path, size_t slices) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return 0;
  std::fputs("{\"traceEvents\":[\n", f);
  std::fputs("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"chip 0\"}},\n", f);
  for (int t = 0; t <= 12; ++t)
    std::fprintf(f, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":%d,\"args\":{\"name\":\"%s%d\"}},\n", t,
                 t == 0 ? "model" : "h.", t == 0 ? 0 : t - 1);
  double ts[13] = {0};
  size_t written = 0;
  unsigned seed = 12345;
  for (size_t i = 0; i < slices; ++i) {
    seed = seed * 1103515245u + 12345u;
    const int tid = static_cast<int>(i % 13);
    // Mostly 8-12 us calls, one in 40 a long 1-3 ms one: zoomed out, some
    // slices stay wide enough to draw while the rest fold.
    const double dur = (seed >> 8) % 40 == 0 ? 1000.0 + (seed >> 16) % 2000 : 8.0 + (seed >> 16) % 400 / 100.0;
    const int section = static_cast<int>((i / 13) % 96);
    std::fprintf(f,
                 "{\"ph\":\"X\",\"name\":\"s%d hs%d\",\"cat\":\"section\",\"pid\":1,\"tid\":%d,\"ts\":%.3f,"
                 "\"dur\":%.3f,\"args\":{\"section_id\":%d,\"hypersection\":\"hs%d\"}},\n",
                 section, section % 7, tid, ts[tid], dur, section, section % 7);
    ts[tid] += dur + 0.5;
    if (i % 1000 == 999)
      std::fprintf(f, "{\"ph\":\"C\",\"name\":\"loss\",\"pid\":1,\"tid\":0,\"ts\":%.3f,\"args\":{\"loss\":%.4f}},\n",
                   ts[0], 2.0 / (1.0 + static_cast<double>(i) / 1e5));
    ++written;
  }
  std::fputs("{\"ph\":\"i\",\"name\":\"end\",\"pid\":1,\"tid\":0,\"ts\":0,\"s\":\"t\"}\n],\"otherData\":{\"model\":\"bench\"}}\n", f);
  const long size = std::ftell(f);
  std::fclose(f);
  std::printf("wrote %s: %zu slices, %.1f MB\n", path.c_str(), written, static_cast<double>(size) / 1e6);
  return written;
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
  bool dom = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--slices") && i + 1 < argc) slices = std::stoul(argv[++i]);
    else if (!std::strcmp(argv[i], "--gigabyte")) slices = 8'200'000;
    else if (!std::strcmp(argv[i], "--file") && i + 1 < argc) file = argv[++i];
    else if (!std::strcmp(argv[i], "--dom")) dom = true;
  }
  if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  if (file.empty()) {
    file = "/tmp/bench_timeline_" + std::to_string(slices) + ".json";
    if (writeTrace(file, slices) == 0) return 1;
  }

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
      "%zu rows, %zu counters, %zu LOD items), peak RSS %.0f MB\n",
      parseS, indexS, buildS, parseS + indexS + buildS, openCpu, data.sliceCount, data.rows.size(),
      data.counters.size(), lodItems, peakRssMb());
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
  return 0;
}
