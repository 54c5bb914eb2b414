// The 1x1 convolutions of MobileNetV2 / EfficientNet-B0 at batch 1 (and the
// first 3x3 stride-2 conv on 3 channels), inference (stable weights) with
// their bias and clip/relu epilogues, through the runtime's conv kernel on
// each algorithm: --conv-algo gemm, onednn and auto. Repeats interleaved
// round-robin; median ms per call, the speed-up over gemm and GFLOP/s.
//
//   bench_pointwise [--threads N] [--repeats N] [--batch N] [--only LAYER]
#include <spdlog/spdlog.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "BenchSupport.h"
#include "runtime/ConvAlgo.h"
#include "runtime/Kernels.h"
#include "support/ThreadPool.h"

using namespace dfc;
using namespace dfc::bench;
using runtime::ConvAlgoRequest;

namespace {

struct Args {
  int threads = 1, repeats = 15;
  int64_t batch = 1;
  std::string only;  // --only NAME: that layer alone
};

Args parseArgs(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (i + 1 >= argc) die(k + " needs a value (see the comment at the top of bench/bench_pointwise.cpp)");
    if (k == "--only") {
      a.only = argv[++i];
      continue;
    }
    const int v = std::max(1, std::stoi(argv[++i]));
    if (k == "--threads")
      a.threads = v;
    else if (k == "--repeats")
      a.repeats = v;
    else if (k == "--batch")
      a.batch = v;
    else
      die("unknown argument " + k + " (see the comment at the top of bench/bench_pointwise.cpp)");
  }
  return a;
}

// One layer: c@side -> o, kernel k x k, stride s, pad (k - 1) / 2; clip to [0, 6] when `clip`.
struct Layer {
  const char* name;
  int64_t c, side, o, k = 1, s = 1;
  bool clip = true;
};

// conv2d + bias_add (+ clip), the epilogues taken by the conv kernel as the executor's fusion would.
struct ConvOp {
  ir::Node conv, act;
  ir::Tensor x, w, bias, y;
  ConvOp(const Layer& l, int64_t n, std::mt19937& rng) {
    conv.op = ir::OpKind::Conv2d;
    conv.name = "conv";
    const int64_t pad = (l.k - 1) / 2, out = (l.side + 2 * pad - l.k) / l.s + 1;
    conv.attrs = {{"stride", std::vector<int64_t>{l.s, l.s}}, {"pad", std::vector<int64_t>{pad, pad}}};
    act.op = ir::OpKind::Unary;
    act.attrs = {{"fn", std::string(l.clip ? "clip" : "identity")}, {"alpha", 0.0}, {"beta", 6.0}};
    act.inputs = {0};
    act.outputs = {1};
    x = uniformTensor({n, l.c, l.side, l.side}, -1, 1, rng);
    w = uniformTensor({l.o, l.c, l.k, l.k}, -0.2f, 0.2f, rng);
    bias = uniformTensor({l.o}, -0.5f, 0.5f, rng);
    y = ir::Tensor(ir::TensorType{ir::DType::F32, {n, l.o, out, out}});
  }
  runtime::KernelPtr make(bool clip) {
    const ir::Tensor* in[] = {&x, &w};
    ir::Tensor* out[] = {&y};
    auto kernel = runtime::prepareKernel(conv, in, out);
    if (!kernel) die(kernel.error().message());
    (*kernel)->markStableInput(1);
    if (!(*kernel)->takeBiasEpilogue(bias, y)) die("the conv kernel refused its bias");
    if (clip && !(*kernel)->takeActivationEpilogue(act, y)) die("the conv kernel refused its clip");
    return std::move(*kernel);
  }
};

double runMs(runtime::Kernel& kernel, runtime::ExecContext& ctx) {
  const auto t0 = Clock::now();
  if (Status st = kernel.run(ctx); !st) die(st.error().message());
  return msSince(t0);
}

const ConvAlgoRequest kAlgos[] = {ConvAlgoRequest::Gemm, ConvAlgoRequest::OneDnn, ConvAlgoRequest::Auto};

void layer(const Layer& l, const Args& args, support::ThreadPool& pool) {
  std::mt19937 rng(static_cast<unsigned>(l.c * 31 + l.o));
  ConvOp op(l, args.batch, rng);
  std::vector<runtime::KernelPtr> kernels;
  std::vector<runtime::ExecContext> contexts;
  contexts.reserve(std::size(kAlgos));
  for (auto algo : kAlgos) {
    kernels.push_back(op.make(l.clip));
    contexts.emplace_back(pool);
    contexts.back().setConvAlgo(algo);
    runMs(*kernels.back(), contexts.back());  // warm: scratch, reordered weights
  }
  std::vector<std::vector<double>> samples(std::size(kAlgos));
  for (int r = 0; r < args.repeats; ++r)
    for (size_t k = 0; k < std::size(kAlgos); ++k) samples[k].push_back(runMs(*kernels[k], contexts[k]));
  const double flops = 2.0 * static_cast<double>(op.y.numElements() * l.c * l.k * l.k);
  runtime::ConvShape shape{runtime::ConvPassKind::Forward,
                           args.batch,
                           l.c,
                           l.side,
                           l.side,
                           l.o,
                           l.k,
                           l.k,
                           l.s,
                           l.s,
                           (l.k - 1) / 2,
                           (l.k - 1) / 2,
                           op.y.shape()[2],
                           op.y.shape()[3]};
  shape.stableWeights = true;
  const double gemm = spreadOf(samples[0]).median;
  std::printf("  %-16s", l.name);
  for (auto& s : samples) {
    const double ms = spreadOf(s).median;
    std::printf("  %7.4f %4.2fx %5.1f", ms, gemm / ms, flops / ms * 1e-6);
  }
  std::printf("  auto: %s\n", std::string(convAlgoName(chooseConvAlgo(shape, ConvAlgoRequest::Auto))).c_str());
}

const std::vector<Layer> kLayers = {
    {"first 3@224 s2", 3, 224, 32, 3, 2},
    {"exp 16@112>96", 16, 112, 96},
    {"exp 24@56>144", 24, 56, 144},
    {"exp 32@28>192", 32, 28, 192},
    {"exp 64@14>384", 64, 14, 384},
    {"exp 96@14>576", 96, 14, 576},
    {"exp 160@7>960", 160, 7, 960},
    {"last 320@7>1280", 320, 7, 1280},
    {"prj 32@112>16", 32, 112, 16, 1, 1, false},
    {"prj 144@56>24", 144, 56, 24, 1, 1, false},
    {"prj 192@28>32", 192, 28, 32, 1, 1, false},
    {"prj 384@14>64", 384, 14, 64, 1, 1, false},
    {"prj 576@14>96", 576, 14, 96, 1, 1, false},
    {"prj 576@7>160", 576, 7, 160, 1, 1, false},
    {"prj 960@7>160", 960, 7, 160, 1, 1, false},
    {"prj 960@7>320", 960, 7, 320, 1, 1, false},
    {"eff 40@28>240", 40, 28, 240},
    {"eff 240@28>40", 240, 28, 40, 1, 1, false},
    {"eff 112@14>672", 112, 14, 672},
    {"eff 672@14>112", 672, 14, 112, 1, 1, false},
    {"eff 192@7>1152", 192, 7, 1152},
    {"eff 1152@7>192", 1152, 7, 192, 1, 1, false},
    {"se 1152@1>48", 1152, 1, 48, 1, 1, false},
    {"se 48@1>1152", 48, 1, 1152, 1, 1, false},
    {"se 96@1>4", 96, 1, 4, 1, 1, false},
    {"r50 256@56>64", 256, 56, 64},
    {"r50 1024@14>256", 1024, 14, 256},
    {"r50 512@7>2048", 512, 7, 2048, 1, 1, false},
    {"r50 2048@7>512", 2048, 7, 512},
    {"r50 64@56>256", 64, 56, 256, 1, 1, false},
    {"r50 128@28>512", 128, 28, 512, 1, 1, false},
    {"r50 256@14>1024", 256, 14, 1024, 1, 1, false},
};

}  // namespace

int main(int argc, char** argv) {
  spdlog::set_level(spdlog::level::warn);
  const Args args = parseArgs(argc, argv);
  std::string isa;
  const double peak = fmaPeakGflops(isa);
  std::printf(
      "bench_pointwise: %s; FMA peak %.0f GFLOP/s (%s) a thread; batch %lld, %d thread(s), %d interleaved "
      "repeats\n"
      "  ms per call (median), speed-up over gemm, GFLOP/s\n  %-16s  %-22s  %-22s  %-22s\n",
      loadAverage().c_str(), peak, isa.c_str(), static_cast<long long>(args.batch), args.threads, args.repeats, "layer",
      "gemm", "onednn", "auto");
  support::ThreadPool pool(args.threads);
  for (const Layer& l : kLayers)
    if (args.only.empty() || args.only == l.name) layer(l, args, pool);
  return 0;
}
