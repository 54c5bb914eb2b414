// Kernel compiler figures: each unique bitfile of a few compiled models is
// placed again with the first (bounded) annealing schedule and with the
// adaptive one, then routed; prints hops (Manhattan), routed hops, congestion
// and the time each step takes. Usage: bench_place [-v] [model-filter]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "arch/FanIn.h"
#include "driver/compile/Compiler.h"
#include "kernelc/Placer.h"
#include "kernelc/Router.h"
#include "pef/Pef.h"

using namespace dfc;
using Clock = std::chrono::steady_clock;

namespace {

double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// The kernel graph a bitfile was placed from: its units are the kernel ops in
// order, its routes the edges.
lowering::KernelGraph graphOf(const pef::Bitfile& b) {
  lowering::KernelGraph kg;
  for (const auto& u : b.units) kg.add(u.kind == 0 ? lowering::UnitKind::Pcu : lowering::UnitKind::Pmu, lowering::KernelRole::Stage, 0);
  for (const auto& r : b.routes) kg.connect(static_cast<int>(r.from), static_cast<int>(r.to));
  return kg;
}

std::string signature(const lowering::KernelGraph& kg) {
  std::string s;
  for (const auto& op : kg.ops) s += op.unit == lowering::UnitKind::Pcu ? 'c' : 'm';
  for (const auto& e : kg.edges) s += std::to_string(e.from) + ">" + std::to_string(e.to) + ",";
  return s;
}

struct Config {
  std::string label;
  driver::CompileOptions options;
};

}  // namespace

int main(int argc, char** argv) {
  bool verbose = false;
  std::string filter;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-v") verbose = true;
    else filter = a;
  }
  std::vector<Config> configs;
  const std::map<std::string, int64_t> gpt2Small = {{"num_layers", 12}, {"hidden_size", 256}, {"num_heads", 4},
                                                    {"seq_len", 128}, {"vocab_size", 1000}};
  for (auto level : {partition::OptLevel::O1, partition::OptLevel::O3}) {
    const char* lv = level == partition::OptLevel::O1 ? "-o1" : "-o3";
    for (std::string model : {"lenet", "gpt2-mini", "gpt2"}) {
      Config c;
      c.label = model + (model == "gpt2" ? " (256 hidden, batch 4) " : " ") + lv;
      c.options.model = model;
      c.options.level = level;
      if (model == "gpt2") {
        c.options.modelParams = gpt2Small;
        c.options.batchSize = 4;
      }
      configs.push_back(c);
    }
  }
  Config big;
  big.label = "gpt2 (defaults) -o3";
  big.options.model = "gpt2";
  configs.push_back(big);

  auto arch = arch::loadArch("native");
  if (!arch) {
    std::fprintf(stderr, "%s\n", arch.error().message().c_str());
    return 1;
  }
  kernelc::Placer placer(*arch);
  kernelc::RouterOptions routerOptions;
  routerOptions.linkTracks = arch::linkTracks(*arch);
  if (const char* v = std::getenv("DFC_STALL")) routerOptions.stallIterations = std::atoi(v);
  if (const char* v = std::getenv("DFC_ITERS")) routerOptions.maxIterations = std::atoi(v);
  for (auto& c : configs) {
    if (!filter.empty() && c.label.find(filter) == std::string::npos) continue;
    c.options.dbPath = "-";
    c.options.outputFolder = (std::filesystem::temp_directory_path() / "dfc-bench-place").string();
    auto r = driver::compile(c.options);
    if (!r) {
      std::fprintf(stderr, "%s: %s\n", c.label.c_str(), r.error().message().c_str());
      return 1;
    }
    auto pef = pef::readPef(r->pefPath);
    std::filesystem::remove_all(c.options.outputFolder);
    if (!pef) {
      std::fprintf(stderr, "%s\n", pef.error().message().c_str());
      return 1;
    }
    std::set<std::string> seen;
    int graphs = 0, maxKernels = 0, overused = 0, maxUse = 0, maxIter = 0;
    int64_t oldHops = 0, newHops = 0, routed = 0;
    double oldMs = 0, newMs = 0, routeMs = 0, worstMs = 0;
    for (const auto& b : pef->bitfiles) {
      auto kg = graphOf(b);
      if (!seen.insert(signature(kg)).second) continue;
      kernelc::PlacerOptions bounded;
      bounded.schedule = kernelc::PlacerOptions::Schedule::Bounded;
      auto t = Clock::now();
      auto before = placer.place(kg, bounded);
      double tOld = msSince(t);
      t = Clock::now();
      kernelc::PlacerOptions adaptive;
      if (const char* v = std::getenv("DFC_INNER")) adaptive.innerNum = std::atof(v);  // tuning knobs
      if (const char* v = std::getenv("DFC_T0")) adaptive.initialTempScale = std::atof(v);
      if (const char* v = std::getenv("DFC_MEDIAN")) adaptive.medianMoveRate = std::atof(v);
      if (const char* v = std::getenv("DFC_EXIT")) adaptive.exitEpsilon = std::atof(v);
      if (const char* v = std::getenv("DFC_MAXMOVES")) adaptive.maxMoves = std::atoll(v);
      auto after = placer.place(kg, adaptive);
      double tNew = msSince(t);
      if (!before || !after) return 1;
      t = Clock::now();
      kernelc::Grid grid(*arch, after->tiles);
      kernelc::Routing routing;
      if (!std::getenv("DFC_NOROUTE")) routing = kernelc::Router(grid).route(kg, after->sites, routerOptions);
      double tRoute = msSince(t);
      ++graphs;
      maxKernels = std::max(maxKernels, static_cast<int>(kg.ops.size()));
      oldHops += before->totalHops;
      newHops += after->totalHops;
      routed += routing.wireLength;
      overused += routing.overusedLinks;
      maxUse = std::max(maxUse, routing.maxLinkUse);
      maxIter = std::max(maxIter, routing.iterations);
      oldMs += tOld;
      newMs += tNew;
      routeMs += tRoute;
      worstMs = std::max(worstMs, tNew + tRoute);
      if (verbose)
        std::printf("  %5zu kernels %5zu edges %2d tiles: hops seed %lld, bounded %lld (%.1f ms), adaptive %lld (%.1f ms, "
                    "%lld moves, %d temps); routed %lld in %.1f ms, %d iterations, max use %d/%d, %d overused\n",
                    kg.ops.size(), kg.edges.size(), after->tiles, static_cast<long long>(after->seedHops),
                    static_cast<long long>(before->totalHops), tOld, static_cast<long long>(after->totalHops), tNew,
                    static_cast<long long>(after->moves), after->temperatures, static_cast<long long>(routing.wireLength),
                    tRoute, routing.iterations, routing.maxLinkUse, routing.capacity, routing.overusedLinks);
    }
    std::printf("%-34s %3d graphs (<= %5d kernels): hops bounded %8lld adaptive %8lld (%5.1f%%) routed %8lld; "
                "ms: bounded %7.1f adaptive %7.1f route %7.1f, worst graph %6.1f; <= %2d iterations, max use %d/%d, "
                "%d overused\n",
                c.label.c_str(), graphs, maxKernels, static_cast<long long>(oldHops), static_cast<long long>(newHops),
                oldHops ? 100.0 * static_cast<double>(newHops - oldHops) / static_cast<double>(oldHops) : 0.0,
                static_cast<long long>(routed), oldMs, newMs, routeMs, worstMs, maxIter, maxUse,
                routerOptions.linkTracks, overused);
    std::fflush(stdout);
  }
  return 0;
}
