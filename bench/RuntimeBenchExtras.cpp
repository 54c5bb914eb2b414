#include "RuntimeBenchExtras.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include "BenchSupport.h"
#include "driver/run/RunTrace.h"
#include "profile/ChromeTrace.h"

namespace dfc::bench {
namespace {

// FLOP of a GEMM-class node from its tensor shapes; 0 for other ops.
double gemmFlop(const ir::Graph& g, const ir::Node& n) {
  auto shape = [&](ir::ValueId v) -> const ir::Shape& { return g.value(v).type.shape; };
  auto numel = [&](ir::ValueId v) { return static_cast<double>(g.value(v).type.numElements()); };
  switch (n.op) {
    case ir::OpKind::MatMul:
    case ir::OpKind::BatchMatMul: {
      const ir::Shape& a = shape(n.inputs[0]);
      const size_t r = a.size();
      const double k = static_cast<double>(n.intAttr("trans_a") ? a[r - 2] : a[r - 1]);
      return 2 * numel(n.outputs[0]) * k;
    }
    case ir::OpKind::Conv2d:
    case ir::OpKind::Conv2dGradInput:
    case ir::OpKind::Conv2dGradWeight: {
      // 2 * (output pixels of the forward conv) * c*kh*kw, whichever tensor holds them.
      const bool fwd = n.op == ir::OpKind::Conv2d;
      const ir::ValueId y = fwd ? n.outputs[0] : n.inputs[0];
      const ir::Shape& w = n.op == ir::OpKind::Conv2dGradWeight ? shape(n.outputs[0]) : shape(n.inputs[1]);
      return 2 * numel(y) * static_cast<double>(w[1] * w[2] * w[3]);
    }
    default:
      return 0;
  }
}

// Convolutions run as im2col + GEMM here: Winograd does fewer multiplies than
// the direct-convolution FLOP count, which would overstate the rate.
void gemmSections(const char* label, const pef::Pef& pef, double peak) {
  runtime::ExecutorOptions options{1};
  options.convAlgo = runtime::ConvAlgoRequest::Gemm;
  FedExecutor fed(pef, options);
  std::vector<double> best(pef.plan.sections.size(), 1e30);
  auto onSection = [&](const runtime::SectionCall& call) {
    double& b = best[static_cast<size_t>(call.sectionId)];
    b = std::min(b, call.durationUs);
  };
  fed.run(1);
  for (int rep = 0; rep < 5; ++rep)
    if (Status st = fed.exec->step(fed.forwardOnly, onSection); !st) die(st.error().message());
  std::map<std::string, std::pair<double, double>> byOp;  // flop, us
  double flop = 0, us = 0;
  for (const auto& s : pef.plan.sections) {
    if (s.nodes.size() != 1) continue;
    const ir::Node& n = pef.graph.node(s.nodes[0]);
    const double f = gemmFlop(pef.graph, n);
    if (f <= 0 || best[static_cast<size_t>(s.id)] >= 1e30) continue;
    auto& [opFlop, opUs] = byOp[std::string(ir::opName(n.op))];
    opFlop += f, opUs += best[static_cast<size_t>(s.id)];
    flop += f, us += best[static_cast<size_t>(s.id)];
  }
  if (us <= 0) return;
  std::printf("  %-32s %7.1f GFLOP/s = %5.1f%% of peak  (", label, flop / us / 1e3, 100 * flop / us / 1e3 / peak);
  const char* sep = "";
  for (const auto& [op, fu] : byOp) {
    std::printf("%s%s %.1f", sep, op.c_str(), fu.first / fu.second / 1e3);
    sep = ", ";
  }
  std::printf(")\n");
}

}  // namespace

void printGemmEfficiency(const pef::Pef* gpt2o0, const pef::Pef* resnetO0, double peakGflops) {
  if ((!gpt2o0 && !resnetO0) || peakGflops <= 0) return;
  std::printf("\nGEMM-bound sections (-o0, one op each, convolutions as im2col + GEMM), 1 thread, fastest of 5 steps,\n"
              "against the FMA peak %.1f GFLOP/s:\n",
              peakGflops);
  if (gpt2o0) gemmSections("GPT-2 shape training step", *gpt2o0, peakGflops);
  if (resnetO0) gemmSections("ResNet-18 b8 inference", *resnetO0, peakGflops);
}

namespace {

// One step's kernel time (ms) by where it goes: inside library GEMM/convolution
// calls (every kernel's libraryUs: oneDNN/OpenBLAS sgemm, oneDNN's conv
// primitive with its post-ops; not im2col, Winograd transforms, epilogue loops,
// the direct depthwise kernel or layout reorders), of that the GEMM tiles of
// the fused attention kernels, those kernels whole (tiles and softmax), all,
// and the coarser split by kernel family this bench used before: the whole of
// every linalg / conv kernel (fused epilogues included) plus other kernels'
// library calls.
struct StepSplit {
  double library = 0, tiles = 0, attention = 0, all = 0, byFamily = 0;
  std::map<std::string, double> outsideByLabel;  // ms outside library calls, by kernel label
  double outside() const { return all - library; }
  double outsideByFamily() const { return all - byFamily; }
};

StepSplit profiledStep(FedExecutor& fed) {
  fed.exec->resetKernelProfile();
  fed.run(1);
  StepSplit s;
  for (const runtime::KernelTime& k : fed.exec->kernelProfile()) {
    const double ms = k.totalUs / 1e3;
    s.all += ms;
    const bool gemmFamily = k.family == "linalg" || k.family == "conv" || k.label.rfind("conv", 0) == 0;
    s.library += k.libraryUs / 1e3;
    s.byFamily += gemmFamily ? ms : k.libraryUs / 1e3;
    s.outsideByLabel[k.label] += ms - k.libraryUs / 1e3;
    if (k.label.rfind("attention", 0) == 0) s.attention += ms, s.tiles += k.libraryUs / 1e3;
  }
  return s;
}

// Paired rounds of one profiled step each at -o0 and -o3, 1 thread.
std::pair<std::vector<StepSplit>, std::vector<StepSplit>> pairedRounds(const pef::Pef& o0, const pef::Pef& o3,
                                                                       int rounds) {
  runtime::ExecutorOptions options{1};
  options.profileKernels = true;
  FedExecutor plain(o0, options), fused(o3, options);
  plain.run(1), fused.run(1);
  std::vector<StepSplit> a, b;
  for (int round = 0; round < rounds; ++round) a.push_back(profiledStep(plain)), b.push_back(profiledStep(fused));
  return {a, b};
}

// The kernels with the most time outside library calls (medians over the rounds).
void printLargestOutside(const char* opt, const std::vector<StepSplit>& rounds) {
  std::map<std::string, std::vector<double>> byLabel;
  for (const StepSplit& r : rounds)
    for (const auto& [label, ms] : r.outsideByLabel) byLabel[label].push_back(ms);
  std::vector<std::pair<double, std::string>> largest;
  for (const auto& [label, ms] : byLabel) largest.push_back({spreadOf(ms).median, label});
  std::sort(largest.rbegin(), largest.rend());
  std::printf("  -%s outside them, largest:", opt);
  for (size_t i = 0; i < std::min<size_t>(8, largest.size()); ++i)
    std::printf("%s %s %.2f ms", i ? "," : "", largest[i].second.c_str(), largest[i].first);
  std::printf("\n");
}

template <class F>
Spread spreadBy(const std::vector<StepSplit>& xs, F f) {
  std::vector<double> v;
  for (const StepSplit& x : xs) v.push_back(f(x));
  return spreadOf(v);
}

}  // namespace

void printFusionCeiling(const char* label, const pef::Pef& o0, const pef::Pef& o3, double goal) {
  const auto [plain, fused] = pairedRounds(o0, o3, 7);
  std::vector<double> ceiling;
  for (size_t i = 0; i < plain.size(); ++i) ceiling.push_back(plain[i].all / fused[i].library);
  const Spread s0 = spreadBy(plain, [](const StepSplit& x) { return x.all; });
  const Spread s3 = spreadBy(fused, [](const StepSplit& x) { return x.all; });
  const Spread g = spreadBy(fused, [](const StepSplit& x) { return x.library; });
  const Spread c = spreadOf(ceiling);
  std::printf("\nfusion's ceiling, %s, 1 thread, medians of 7 paired rounds (every kernel timed):\n", label);
  std::printf(
      "  -o0 step %.1f ms; -o3 step %.1f ms, of which inside library GEMM/conv calls %.1f ms and the "
      "rest %.1f ms\n",
      s0.median, s3.median, g.median, s3.median - g.median);
  const double budget = s0.median / goal - g.median;  // what x`goal` leaves for everything but the GEMMs
  std::printf("  -o3 with nothing but those GEMMs would be at most x%.2f [%.2f - %.2f] faster than -o0; ", c.median, c.min,
              c.max);
  if (budget > 0)
    std::printf("x%.2f needs the rest in %.1f ms\n", goal, budget);
  else
    std::printf("x%.2f is out of reach even with no rest at all\n", goal);
}

void printOutsideLibrary(const char* label, const pef::Pef& o0, const pef::Pef& o3, double goal) {
  const auto [plain, fused] = pairedRounds(o0, o3, 7);
  std::vector<double> ratio, byFamily;
  for (size_t i = 0; i < plain.size(); ++i) {
    ratio.push_back(fused[i].outside() / plain[i].outside());
    byFamily.push_back(fused[i].outsideByFamily() / plain[i].outsideByFamily());
  }
  auto line = [](const char* opt, const std::vector<StepSplit>& xs) {
    const Spread all = spreadBy(xs, [](const StepSplit& x) { return x.all; });
    const Spread lib = spreadBy(xs, [](const StepSplit& x) { return x.library; });
    const Spread out = spreadBy(xs, [](const StepSplit& x) { return x.outside(); });
    const Spread att = spreadBy(xs, [](const StepSplit& x) { return x.attention; });
    const Spread tiles = spreadBy(xs, [](const StepSplit& x) { return x.tiles; });
    std::printf(
        "  -%s: step %.2f ms, inside library GEMM/conv calls %.2f ms (%.2f ms of it GEMM tiles inside fused "
        "attention %.2f ms), outside them %.2f ms [%.2f - %.2f]\n",
        opt, all.median, lib.median, tiles.median, att.median, out.median, out.min, out.max);
  };
  std::printf("\nhost time outside library GEMM/convolution calls, %s, 1 thread, medians of 7 paired rounds:\n", label);
  line("o0", plain);
  line("o3", fused);
  printLargestOutside("o0", plain);
  printLargestOutside("o3", fused);
  const Spread f = spreadOf(byFamily);
  std::printf(
      "  (counting whole linalg/conv kernels, fused epilogues included, as library: outside -o3 / -o0 "
      "x%.2f [%.2f - %.2f])\n",
      f.median, f.min, f.max);
  const Spread r = spreadOf(ratio);
  std::printf("  outside -o3 / -o0: x%.2f [%.2f - %.2f] (goal <= %.2f: %s)\n", r.median, r.min, r.max, goal,
              r.median <= goal ? "met" : "not met");
}

void printTraceOverhead(const pef::Pef& pef) {
  driver::RunTrace trace(pef, "bench");
  const int calls = 200000;
  const size_t sections = pef.plan.schedule.size();
  auto t0 = Clock::now();
  for (int i = 0; i < calls; ++i) {
    const int id = pef.plan.schedule[static_cast<size_t>(i) % sections];
    trace.addSectionCall(id, i / static_cast<int>(sections), 10.0 * i, 9.0, 1e6);
  }
  const double ns = msSince(t0) * 1e6 / calls;
  const auto path = std::filesystem::temp_directory_path() / ("dfc-bench-trace-" + std::to_string(::getpid()) + ".json");
  auto w0 = Clock::now();
  if (Status st = profile::writeChromeTrace(trace.take(), path.string()); !st) die(st.error().message());
  const double writeNs = msSince(w0) * 1e6 / calls;
  const double bytes = static_cast<double>(std::filesystem::file_size(path)) / calls;
  std::filesystem::remove(path);
  std::printf("\ntrace recorder: %.0f ns per section call recorded, %.0f ns per call to write, %.0f bytes per call in the JSON\n",
              ns, writeNs, bytes);
}

}  // namespace dfc::bench
