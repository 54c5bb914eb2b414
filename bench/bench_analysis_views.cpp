// Opening the Memory and Roofline screens on a PEF (issue 35: < 1 s on the
// Llama-7B training shape): building each view's data from the PEF as the
// window's loader does, handing it to the panel and painting it once at the
// window's size; each the best of three. The host's roofline measurement
// (once per process, only when a run exists) is timed apart. Prints figures;
// asserts nothing.
//   bench_analysis_views PEF [PEF...]
#include <QApplication>
#include <QElapsedTimer>
#include <QPixmap>
#include <algorithm>
#include <cstdio>

#include "analysis/HostRoofline.h"
#include "memory/MemoryPanel.h"
#include "pef/Pef.h"
#include "roofline/RooflinePanel.h"

using namespace dfc;

namespace {

template <typename Fn>
double bestMs(Fn&& fn) {
  double best = 1e30;
  for (int i = 0; i < 3; ++i) {
    QElapsedTimer timer;
    timer.start();
    fn();
    best = std::min(best, static_cast<double>(timer.nsecsElapsed()) / 1e6);
  }
  return best;
}

void measure(const char* path) {
  QElapsedTimer read;
  read.start();
  auto pef = pef::readPef(path, pef::PefUse::View);
  if (!pef) {
    std::fprintf(stderr, "%s: %s\n", path, pef.error().message().c_str());
    return;
  }
  const double readMs = static_cast<double>(read.nsecsElapsed()) / 1e6;
  views::MemoryPanel memory;
  views::RooflinePanel roofline;
  for (QWidget* w : {static_cast<QWidget*>(&memory), static_cast<QWidget*>(&roofline)}) w->resize(1500, 860);
  views::MemoryViewData m;
  views::RooflineViewData r;
  const double memoryData = bestMs([&] { m = views::buildMemoryViewData(*pef); });
  const double memoryShow = bestMs([&] {
    memory.setData(m);
    (void)memory.grab();
  });
  const double rooflineData = bestMs([&] { r = views::buildRooflineViewData(*pef, {}); });
  const double rooflineShow = bestMs([&] {
    roofline.setData(r);
    (void)roofline.grab();
  });
  std::printf("%s: %zu sections, %d calls, %zu live tensors (PEF read %.0f ms, not counted)\n", path,
              pef->plan.sections.size(), m.calls(), m.timeline.tensors.size(), readMs);
  std::printf("  memory:   data %.1f ms + panel and first paint %.1f ms = %.1f ms\n", memoryData, memoryShow,
              memoryData + memoryShow);
  std::printf("  roofline: data %.1f ms + panel and first paint %.1f ms = %.1f ms\n", rooflineData, rooflineShow,
              rooflineData + rooflineShow);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_analysis_views PEF [PEF...]\n");
    return 2;
  }
  if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  for (int i = 1; i < argc; ++i) measure(argv[i]);
  QElapsedTimer host;
  host.start();
  const analysis::HostPeaks& peaks = analysis::hostPeaks();
  std::printf(
      "host roofline measurement (once per process, with a run): %.0f ms: GEMM %.1f GFLOP/s, triad %.1f GB/s, "
      "%d threads\n",
      static_cast<double>(host.nsecsElapsed()) / 1e6, peaks.gflops, peaks.gbps, peaks.threads);
  return 0;
}
