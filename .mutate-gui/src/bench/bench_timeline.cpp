// Timeline benchmark: writes a chrome trace with N slices (default 1M) in our
// run's layout or a PyTorch-profiler-like one (BenchTraceLayouts.h), then
// measures what a user waits for: opening it (parse into the compact trace +
// the trace index + TimelineData) with the peak RSS against the file's size,
// repainting the TimelineView at five zoom levels (QWidget::render into a
// QImage, offscreen), and the index's answers (a range summary as a drag
// computes it, grouping by section, a name search). Prints the figures;
// asserts nothing. Run one size per process: the peak RSS is the process's.
// --floor also prints what reading the bytes costs before any field is read
// (pread, UTF-8 check, simdjson's stage 1): the bound under the open time.
//   bench_timeline [--slices N] [--layout ours|pytorch] [--file trace.json] [--keep] [--dom] [--open-only] [--floor]
#include <sys/resource.h>
#include <simdjson.h>
#include <sys/stat.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <algorithm>
#include <cctype>
#include <ctime>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "BenchTraceLayouts.h"
#include "profile/ChromeTrace.h"
#include "profile/CompactTrace.h"
#include "profile/TraceChunks.h"
#include "profile/TraceIndex.h"
#include "profile/TraceText.h"
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

double threadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

// What any reader of the file pays before it reads a single field, on one
// core, in CPU seconds (the wall time on an idle machine's two cores is about
// half): the bytes from the file in the reader's 8 MB chunks (pread), their
// UTF-8 check, and simdjson's stage 1 (every structural character indexed),
// which On-Demand runs before it walks anything.
void measureFloor(const std::string& file) {
  auto text = dfc::profile::TraceText::open(file);
  if (!text) return;
  const auto span = dfc::profile::locateEvents(**text);
  if (!span) return;
  const std::vector<uint64_t> starts = dfc::profile::chunkStarts(**text, span->start, uint64_t{8} << 20);
  std::vector<char> buf;
  simdjson::ondemand::parser parser;
  double readS = 0, utf8S = 0, stage1S = 0;
  for (size_t k = 0; k < starts.size(); ++k) {
    const uint64_t end = k + 1 < starts.size() ? starts[k + 1] : (*text)->size();
    const size_t len = static_cast<size_t>(end - starts[k]);
    buf.assign(len + 2 + simdjson::SIMDJSON_PADDING, '\0');
    double t = threadCpuSeconds();
    buf[0] = '[';
    (*text)->read(starts[k], len, buf.data() + 1);
    readS += threadCpuSeconds() - t;
    t = threadCpuSeconds();
    const bool valid = simdjson::validate_utf8(buf.data(), len + 1);
    utf8S += threadCpuSeconds() - t;
    size_t size = len + 1;  // the seam's comma goes and the bracket closes, as the reader does
    while (size > 1 && (buf[size - 1] == ',' || std::isspace(static_cast<unsigned char>(buf[size - 1])))) --size;
    if (k + 1 < starts.size()) buf[size++] = ']';
    t = threadCpuSeconds();
    simdjson::ondemand::document doc;
    const auto err = parser.iterate(buf.data(), size, buf.size()).get(doc);
    stage1S += threadCpuSeconds() - t;
    if (err || !valid) std::printf("(chunk %zu: %s)\n", k, err ? simdjson::error_message(err) : "not UTF-8");
  }
  std::printf("floor on one core: read %.3f s + UTF-8 check %.3f s + simdjson stage 1 %.3f s = %.3f s CPU (%zu chunks)\n",
              readS, utf8S, stage1S, readS + utf8S + stage1S, starts.size());
}

}  // namespace

int main(int argc, char** argv) {
  size_t slices = 1'000'000;
  std::string file;
  bool dom = false, keep = false, openOnly = false, floor = false;
  auto layout = dfc::bench::TraceLayout::Ours;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--slices") && i + 1 < argc) slices = std::stoul(argv[++i]);
    else if (!std::strcmp(argv[i], "--gigabyte")) slices = 8'000'000;
    else if (!std::strcmp(argv[i], "--file") && i + 1 < argc) file = argv[++i];
    else if (!std::strcmp(argv[i], "--dom")) dom = true;
    else if (!std::strcmp(argv[i], "--keep")) keep = true;
    else if (!std::strcmp(argv[i], "--open-only")) openOnly = true;
    else if (!std::strcmp(argv[i], "--floor")) floor = true;
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

  if (floor) measureFloor(file);
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
