// Winograd against im2col + GEMM for ResNet-18's 3x3 stride-1 convolutions.
//  1. Per layer (batch 8, 224x224 input: 64@56, 128@28, 256@14, 512@7): the
//     forward and the input gradient with GEMM, F(2x2,3x3) and F(4x4,3x3),
//     repeats interleaved round-robin, median [min - max] ms, and what
//     `--conv-algo auto` picks.
//  2. Numeric error of each algorithm against a double-precision direct conv
//     for growing channel counts and input magnitudes (max abs error, and max
//     abs error relative to the output's largest magnitude).
//  3. oneDNN's Winograd against its direct conv (WinogradOneDnn.h): ResNet's
//     layers at batch 1 and 8, the probes behind auto's rule, and its error.
//  4. The ResNet-18 b8 inference step (the bench_runtime case, -o3) with
//     --conv-algo gemm (before) and auto (after), interleaved.
//
//   bench_winograd [--threads N] [--repeats N] [--no-layers] [--no-error] [--no-model]
#include <spdlog/spdlog.h>

#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "BenchSupport.h"
#include "WinogradOneDnn.h"
#include "runtime/ConvAlgo.h"
#include "runtime/Kernels.h"
#include "runtime/kernels/Winograd.h"
#include "support/ThreadPool.h"

using namespace dfc;
using namespace dfc::bench;
using runtime::ConvAlgo;
using runtime::ConvAlgoRequest;

namespace {

struct Args {
  int threads = 2, repeats = 7;
  bool layers = true, error = true, model = true;
};

Args parseArgs(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (k == "--threads" || k == "--repeats") {
      if (i + 1 >= argc) die(k + " needs a value");
      (k == "--threads" ? a.threads : a.repeats) = std::max(1, std::stoi(argv[++i]));
    } else if (k == "--no-layers") a.layers = false;
    else if (k == "--no-error") a.error = false;
    else if (k == "--no-model") a.model = false;
    else die("unknown argument " + k + " (see the comment at the top of bench/bench_winograd.cpp)");
  }
  return a;
}

// One conv2d (or conv2d_grad_input) node, 3x3, stride 1, pad 1, with its tensors, run through the runtime's kernel.
struct ConvOp {
  ir::Node node;
  ir::Tensor a, b, y;
  ConvOp(bool gradInput, int64_t n, int64_t c, int64_t o, int64_t side, std::mt19937& rng) {
    node.op = gradInput ? ir::OpKind::Conv2dGradInput : ir::OpKind::Conv2d;
    node.name = "conv";
    node.attrs = {{"stride", std::vector<int64_t>{1, 1}}, {"pad", std::vector<int64_t>{1, 1}}};
    ir::Tensor image = uniformTensor({n, c, side, side}, -1, 1, rng),
               weight = uniformTensor({o, c, 3, 3}, -0.1f, 0.1f, rng);
    ir::Tensor dy = uniformTensor({n, o, side, side}, -1, 1, rng);
    a = gradInput ? dy : image;
    b = weight;
    y = ir::Tensor(ir::TensorType{ir::DType::F32, gradInput ? image.shape() : dy.shape()});
  }
  double runMs(support::ThreadPool& pool, ConvAlgoRequest algo) {
    const ir::Tensor* in[] = {&a, &b};
    ir::Tensor* out[] = {&y};
    auto kernel = runtime::prepareKernel(node, in, out);
    if (!kernel) die(kernel.error().message());
    runtime::ExecContext ctx(pool);
    ctx.setConvAlgo(algo);
    if (Status st = (*kernel)->run(ctx); !st) die(st.error().message());  // warm: scratch, transformed weights
    auto t0 = Clock::now();
    if (Status st = (*kernel)->run(ctx); !st) die(st.error().message());
    return msSince(t0);
  }
};

const ConvAlgoRequest kAlgos[] = {ConvAlgoRequest::Gemm, ConvAlgoRequest::Winograd2, ConvAlgoRequest::Winograd4};

void printRow(const char* what, std::vector<std::vector<double>>& samples, const std::string& autoPick) {
  const Spread gemm = spreadOf(samples[0]);
  std::printf("  %-22s", what);
  for (auto& s : samples) {
    const Spread sp = spreadOf(s);
    std::printf("  %7.2f [%6.2f-%6.2f] %4.2fx", sp.median, sp.min, sp.max, gemm.median / sp.median);
  }
  std::printf("  auto: %s\n", autoPick.c_str());
}

struct Layer { const char* name; int64_t c, side; };

void layers(const Args& args, const char* title, std::initializer_list<Layer> list) {
  support::ThreadPool pool(args.threads);
  std::printf("%s, batch 8, %d thread(s), ms per call: median [min-max] and "
              "speed-up over GEMM, %d interleaved repeats\n  %-22s  %-31s  %-31s  %-31s\n",
              title, args.threads, args.repeats, "layer", "gemm", "winograd2 F(2x2,3x3)", "winograd4 F(4x4,3x3)");
  std::mt19937 rng(1);
  for (const Layer& l : list)
    for (bool gradInput : {false, true}) {
      ConvOp op(gradInput, 8, l.c, l.c, l.side, rng);
      std::vector<std::vector<double>> samples(3);
      for (int r = 0; r < args.repeats; ++r)
        for (size_t k = 0; k < 3; ++k) samples[k].push_back(op.runMs(pool, kAlgos[k]));
      runtime::ConvShape shape{gradInput ? runtime::ConvPassKind::GradInput : runtime::ConvPassKind::Forward,
                               8, l.c, l.side, l.side, l.c, 3, 3, 1, 1, 1, 1, l.side, l.side};
      const std::string label = std::string(l.name) + (gradInput ? " grad_input" : " forward");
      printRow(label.c_str(), samples, std::string(convAlgoName(chooseConvAlgo(shape, ConvAlgoRequest::Auto))));
    }
}

// y[o][oy][ox] in double, 1 image, 3x3, stride 1, pad 1.
std::vector<double> directConv(const ir::Tensor& x, const ir::Tensor& w) {
  const int64_t c = x.shape()[1], h = x.shape()[2], wd = x.shape()[3], o = w.shape()[0];
  const float *xs = x.data<float>(), *ws = w.data<float>();
  std::vector<double> y(static_cast<size_t>(o * h * wd), 0.0);
  for (int64_t oc = 0; oc < o; ++oc)
    for (int64_t ic = 0; ic < c; ++ic)
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t j = 0; j < 3; ++j) {
          const double k = ws[((oc * c + ic) * 3 + i) * 3 + j];
          for (int64_t oy = 0; oy < h; ++oy) {
            const int64_t iy = oy + i - 1;
            if (iy < 0 || iy >= h) continue;
            for (int64_t ox = 0; ox < wd; ++ox) {
              const int64_t ix = ox + j - 1;
              if (ix >= 0 && ix < wd) y[static_cast<size_t>((oc * h + oy) * wd + ox)] += k * xs[(ic * h + iy) * wd + ix];
            }
          }
        }
  return y;
}

// max |got - ref| / max |ref|, and max |got - ref|.
std::pair<double, double> errorOf(const float* got, const std::vector<double>& ref) {
  double err = 0, scale = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    err = std::max(err, std::fabs(got[i] - ref[i]));
    scale = std::max(scale, std::fabs(ref[i]));
  }
  return {err / scale, err};
}

// The runtime's kernel for GEMM; WinogradConv itself for F(2x2) and F(4x4), so
// F(4x4) is measured past the channel count where the runtime refuses it.
void errorRow(int64_t c, float lo, float hi, support::ThreadPool& pool) {
  std::mt19937 rng(static_cast<unsigned>(c * 7 + static_cast<int64_t>(hi)));
  ConvOp op(false, 1, c, 8, 16, rng);
  op.a = uniformTensor({1, c, 16, 16}, lo, hi, rng);
  const float bound = 1.0f / std::sqrt(9.0f * static_cast<float>(c));
  op.b = uniformTensor({8, c, 3, 3}, -bound, bound, rng);
  const std::vector<double> ref = directConv(op.a, op.b);
  std::printf("  %-6lld [%g, %g]%*s", static_cast<long long>(c), static_cast<double>(lo), static_cast<double>(hi), 4, "");
  op.runMs(pool, ConvAlgoRequest::Gemm);
  auto [rel, abs] = errorOf(op.y.data<float>(), ref);
  std::printf("  %9.2e (%9.2e)", rel, abs);
  runtime::ExecContext ctx(pool);
  for (int m : {2, 4}) {
    runtime::kernels::WinogradConv conv(m, {1, c, 16, 16, 8, 16, 16, 1, 1}, false);
    if (Status st = conv.run(ctx, op.a.data<float>(), op.b.data<float>(), nullptr, op.y.data<float>()); !st)
      die(st.error().message());
    std::tie(rel, abs) = errorOf(op.y.data<float>(), ref);
    std::printf("  %9.2e (%9.2e)", rel, abs);
  }
  std::printf("\n");
}

void error() {
  std::printf("\nError against a double-precision direct conv (1 image 16x16, 8 output channels, pad 1; x uniform in "
              "[lo, hi], w uniform in [-1, 1]/sqrt(9C)): max abs error / max |y| (max abs error)\n"
              "  %-6s %-16s  %-22s  %-22s  %-22s\n",
              "C", "x in", "gemm", "F(2x2,3x3)", "F(4x4,3x3)");
  support::ThreadPool pool(1);
  for (int64_t c : {4, 16, 64, 128, 256, 512, 1024, 2048, 4096})
    for (auto [lo, hi] : {std::pair{-1.0f, 1.0f}, std::pair{-1e4f, 1e4f}, std::pair{0.0f, 1.0f}, std::pair{100.0f, 101.0f}})
      errorRow(c, lo, hi, pool);
  std::printf("  the runtime refuses F(4x4) (runs F(2x2)) above %lld input channels (bound: %.0e of max |y|)\n",
              static_cast<long long>(runtime::kWinograd4MaxChannels), runtime::kWinograd4ErrorBound);
}

void model(const Args& args) {
  driver::CompileOptions o;
  o.model = "resnet18";
  o.batchSize = 8;
  o.inference = true;
  o.pefName = "resnet18-b8-o3";
  const pef::Pef pef = compileToPef(o);
  std::printf("\nResNet-18 224x224 inference b8 (-o3), %d thread(s), ms per step: median [min-max] of %d interleaved "
              "repeats\n",
              args.threads, args.repeats);
  std::vector<std::unique_ptr<FedExecutor>> execs;
  for (auto algo : {ConvAlgoRequest::Gemm, ConvAlgoRequest::Auto}) {
    runtime::ExecutorOptions options;
    options.threads = args.threads;
    options.convAlgo = algo;
    execs.push_back(std::make_unique<FedExecutor>(pef, options));
    execs.back()->run(1);  // warm
  }
  std::vector<std::vector<double>> samples(2);
  for (int r = 0; r < args.repeats; ++r)
    for (size_t k = 0; k < 2; ++k) samples[k].push_back(execs[k]->run(1));
  const Spread before = spreadOf(samples[0]), after = spreadOf(samples[1]);
  std::printf("  --conv-algo gemm (before): %8.1f [%7.1f-%7.1f]\n  --conv-algo auto (after):  %8.1f [%7.1f-%7.1f]  "
              "%.2fx\n",
              before.median, before.min, before.max, after.median, after.min, after.max, before.median / after.median);
}

}  // namespace

int main(int argc, char** argv) {
  spdlog::set_level(spdlog::level::warn);
  const Args args = parseArgs(argc, argv);
  std::printf("bench_winograd: %s\n", loadAverage().c_str());
  if (args.layers) {
    layers(args, "ResNet-18 3x3 stride-1 conv layers",
           {{"64@56", 64, 56}, {"128@28", 128, 28}, {"256@14", 256, 14}, {"512@7", 512, 7}});
    layers(args, "\nCrossover probes (few channels, small images)",
           {{"8@56", 8, 56}, {"16@56", 16, 56}, {"32@28", 32, 28}, {"256@4", 256, 4}, {"512@2", 512, 2}});
  }
  if (args.layers) oneDnnWinogradLayers(args.threads, args.repeats);
  if (args.error) error(), oneDnnWinogradError();
  if (args.model) model(args);
  return 0;
}
