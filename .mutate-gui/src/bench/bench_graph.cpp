// Graph view at LLM scale (issue 31): for each case, a training PEF compiled
// by a child `dfc compile` (kept under --work, so a second run reuses it) is
// opened in a GraphView as the app opens it (folded by layer), then "Unfold
// all" is timed until the whole graph is shown, and the paint time of one
// frame is measured at three zoom levels (fit, overview, readable). Each case
// is measured in a child process of its own (bench_graph --measure PEF), so
// the peak memory printed (VmHWM) is that case's alone: the PEF read, the view
// data, the layout and the scene. Prints figures; asserts nothing.
//   bench_graph [--work DIR] [--only LABEL] [--timeout S] [--case 'LABEL;GOAL_S;FLAGS']
#include <sys/wait.h>
#include <unistd.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QTest>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "graph/GraphData.h"
#include "graph/GraphView.h"
#include "graph/HierarchicalLayout.h"
#include "pef/Pef.h"
#include "support/SizeBudget.h"

using namespace dfc;
namespace fs = std::filesystem;

namespace {

struct Case {
  std::string label;
  double goalSeconds = 0;
  std::string flags;  // dfc compile flags
};

// The shapes of issue 31. The 50k-node case is a Llama-shaped training graph
// of 330 layers at a small width: the node count does not depend on the width,
// and the compile stays short.
const std::vector<Case> kCases = {
    {"gpt2-24-o1", 1, "--model gpt2 --num-layers 24 -o1"},
    {"llama-7b-train", 2, "--model llama -o3 --enable-hypersection --arch sn40l --max-memory 1T"},
    {"llama-70b-train", 4,
     "--model llama --num-layers 80 --hidden-size 8192 --num-heads 64 --num-kv-heads 8 --intermediate-size 28672 "
     "-o3 --enable-hypersection --arch sn40l --max-memory 1T"},
    {"llama-330-layers-train", 15,
     "--model llama --num-layers 330 --hidden-size 256 --num-heads 4 --num-kv-heads 2 --intermediate-size 512 "
     "--seq-len 64 --vocab-size 256 -o3 --enable-hypersection --arch sn40l --max-memory 1T"},
};

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "bench_graph: %s\n", what.c_str());
  std::exit(1);
}

std::vector<std::string> split(const std::string& flags) {
  std::vector<std::string> out;
  std::istringstream in(flags);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// Runs argv; its output goes to logPath when one is given. Returns the exit status.
int runChild(const std::vector<std::string>& argv, const std::string& logPath = {}) {
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid < 0) die("fork failed");
  if (pid == 0) {
    if (!logPath.empty() && !std::freopen(logPath.c_str(), "w", stdout)) _exit(126);
    if (!logPath.empty()) dup2(fileno(stdout), 2);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) die("waitpid failed");
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Peak resident memory of this process so far, in MiB (VmHWM).
double peakMiB() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  return 0;
}

// The longest the UI thread's event loop went without turning, from the
// gaps between the ticks of a 10 ms timer: what a user feels as a freeze.
class StallMeter {
 public:
  StallMeter() {
    m_clock.start();
    QObject::connect(&m_tick, &QTimer::timeout, [this] {
      m_longest = std::max(m_longest, m_clock.nsecsElapsed() - m_last);
      m_last = m_clock.nsecsElapsed();
    });
    m_tick.start(10);
  }
  double longestMs() const { return static_cast<double>(m_longest) / 1e6; }

 private:
  QElapsedTimer m_clock;
  QTimer m_tick;
  qint64 m_last = 0, m_longest = 0;
};

bool waitShown(views::GraphView& view, int timeoutMs) {
  return QTest::qWaitFor([&] { return view.hasLayout() && !view.isLayoutPending(); }, timeoutMs);
}

// Median milliseconds of one full repaint of the view's viewport.
double paintMs(views::GraphView& view) {
  std::vector<double> ms;
  for (int i = 0; i < 7; ++i) {
    QElapsedTimer timer;
    timer.start();
    view.viewport()->grab();
    ms.push_back(static_cast<double>(timer.nsecsElapsed()) / 1e6);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

void printPaint(views::GraphView& view, const char* what) {
  const double ms = paintMs(view);
  const views::GraphCanvas::PaintStats& drawn = view.lastPaint();
  std::printf(
      "  paint at %-22s zoom %.4f: %7.2f ms (%6.0f frames/s): %d nodes, %d labels, %d edges, %d bundles, %d layers as "
      "boxes\n",
      what, view.zoom(), ms, 1000.0 / std::max(ms, 1e-3), drawn.nodes, drawn.labels, drawn.edges, drawn.bundles,
      drawn.summaries);
}

int countOps(const views::GraphData& data) {
  return static_cast<int>(std::count_if(data.nodes.begin(), data.nodes.end(),
                                        [](const views::GraphNode& n) { return n.kind == views::GraphNodeKind::Op; }));
}

// One case, in this (child) process: open folded, unfold all, paint.
int measure(int argc, char** argv, const std::string& pefPath, int timeoutS) {
  if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  support::setMemoryBudget(uint64_t{1} << 40);  // the PEF's weights are recipes; reading allocates none
  auto pef = pef::readPef(pefPath);
  if (!pef) die(pef.error().message());
  auto shared = std::make_shared<const pef::Pef>(std::move(pef.value()));
  std::shared_ptr<const ir::Graph> graph(shared, &shared->graph);
  std::shared_ptr<const partition::Plan> plan(shared, &shared->plan);
  views::GraphView view;
  view.resize(1200, 900);
  view.show();
  QElapsedTimer timer;
  timer.start();
  views::GraphDataOptions options;
  options.collapseAbove = 150;  // as dfstudio opens a PEF
  view.setModel(graph, plan, options);
  if (!waitShown(view, timeoutS * 1000)) die("no folded layout within the timeout");
  std::printf("  %zu ops; opened folded: %zu nodes in %.0f ms\n", graph->nodes.size(), view.graph().nodes.size(),
              static_cast<double>(timer.nsecsElapsed()) / 1e6);
  timer.restart();
  StallMeter stalls;
  view.expandAll();
  const bool done = waitShown(view, timeoutS * 1000);
  const double unfoldMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
  const double stallMs = stalls.longestMs();
  if (!done) {
    std::printf("  unfold all: NOT DONE after %.1f s; peak memory %.0f MiB\n", unfoldMs / 1e3, peakMiB());
    return 3;
  }
  std::printf("  unfold all: %.2f s, %d of %zu ops shown, %zu nodes, %zu edges; peak memory %.0f MiB\n", unfoldMs / 1e3,
              countOps(view.graph()), graph->nodes.size(), view.graph().nodes.size(), view.graph().edges.size(),
              peakMiB());
  std::printf("  UI thread: longest stall %.0f ms while unfolding (a 10 ms timer's longest wait)\n", stallMs);
  const views::LayoutStats& stats = view.currentLayout().stats;
  std::printf(
      "  layout: %d groups of %d structures, %d dot runs (the largest %d nodes; bound %d), %.0f ms on the layout "
      "thread\n",
      stats.groups, stats.structures, stats.dotRuns, stats.maxDotNodes, views::kMaxNodesPerDotRun,
      view.currentLayout().elapsedMs);
  view.fitGraph();
  printPaint(view, "fit (whole graph)");
  const QPointF centre = view.currentLayout().bounds.center();
  view.setZoom(0.15);
  view.centerOn(centre);
  printPaint(view, "overview (no labels)");
  view.setZoom(1.0);
  view.centerOn(centre);
  printPaint(view, "readable (labels)");
  return 0;
}

// The PEF of a case under `work`, compiled once.
std::string ensurePef(const Case& c, const std::string& dfc, const fs::path& work) {
  const fs::path out = work / c.label;
  const fs::path pef = out / (c.label + ".pef");
  if (fs::exists(pef)) return pef.string();
  std::vector<std::string> argv{dfc, "compile"};
  for (const std::string& f : split(c.flags)) argv.push_back(f);
  for (const std::string& extra : {std::string("--pef-name"), c.label, std::string("--output-folder"), out.string(),
                                   std::string("--db"), std::string("-")})
    argv.push_back(extra);
  const std::string log = (work / (c.label + ".compile.log")).string();
  if (runChild(argv, log) != 0) return {};
  return pef.string();
}

}  // namespace

int main(int argc, char** argv) {
  std::string dfc = DFC_BINARY_DIR "/app/dfc/dfc", only, work = "out/bench_graph", measurePef;
  int timeoutS = 180;
  std::vector<Case> cases = kCases;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--dfc")
      dfc = v;
    else if (a == "--only")
      only = v;
    else if (a == "--work")
      work = v;
    else if (a == "--timeout")
      timeoutS = std::stoi(v);
    else if (a == "--measure")
      measurePef = v;
    else if (a == "--case") {
      const size_t p1 = v.find(';'), p2 = v.find(';', p1 == std::string::npos ? 0 : p1 + 1);
      if (p2 == std::string::npos) die("--case wants 'LABEL;GOAL_S;FLAGS'");
      cases.push_back({v.substr(0, p1), std::atof(v.substr(p1 + 1, p2 - p1 - 1).c_str()), v.substr(p2 + 1)});
    } else {
      die("unknown argument " + a);
    }
  }
  if (!measurePef.empty()) return measure(argc, argv, measurePef, timeoutS);
  fs::create_directories(work);
  std::printf("each case in a child process: unfold-all time (goal), peak memory, paint time at three zooms\n");
  for (const Case& c : cases) {
    if (!only.empty() && c.label != only) continue;
    std::printf("%s (goal: unfold all < %g s)\n  dfc compile %s\n", c.label.c_str(), c.goalSeconds, c.flags.c_str());
    const std::string pef = ensurePef(c, dfc, work);
    if (pef.empty()) {
      std::printf("  compile FAILED (see %s/%s.compile.log)\n", work.c_str(), c.label.c_str());
      continue;
    }
    const int status = runChild({"/proc/self/exe", "--measure", pef, "--timeout", std::to_string(timeoutS)});
    if (status != 0) std::printf("  measure exited %d\n", status);
  }
  return 0;
}
