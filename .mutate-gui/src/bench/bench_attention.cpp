// Fused attention (runtime/AttentionFusion.h) against the same attention op by
// op, in one run:
// 1. one causal attention, forward + backward (the chain the zoo's attend()
//    builds and the gradient chain autograd emits for it), batch 1 x 8 heads,
//    head dim 64, at seq 512, 1024 and 2048: ms per forward+backward and the
//    runtime arena (peak bytes of the intermediates), fused and unfused;
// 2. the GPT-2 shape of bench_runtime (4 layers, width 256, 4 heads, vocab 256,
//    batch 8) at seq 128 and 1024: ms per training step at -o3 with attention
//    fused, -o3 with attention op by op (other fusion on), -o3 with no fusion,
//    and -o0; then, from every kernel's time (ExecutorOptions::profileKernels),
//    the kernels only the fused or only the op-by-op step runs, and the
//    attention's own saving per step, paired by round.
// Repeats run round-robin over all configurations of a part, so each sees the
// same machine load; figures are medians with their spread [min - max].
//
//   bench_attention [--repeats N] [--threads N] [--min-ms MS] [--part 1|2]
//                   [--attention-seqs 512,1024,2048] [--gpt2-seqs 128,1024]
//                   (the sequence lengths of parts 1 and 2)
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "BenchSupport.h"
#include "autograd/Autograd.h"
#include "frontend/GraphBuilder.h"
#include "frontend/TransformerBlocks.h"
#include "runtime/Executor.h"

using namespace dfc;
using namespace dfc::bench;

namespace {

struct Args {
  int repeats = 7;
  int threads = 2;
  double minMs = 200;
  int part = 0;  // 0: both
  std::vector<int64_t> attentionSeqs = {512, 1024, 2048};
  std::vector<int64_t> gpt2Seqs = {128, 1024};
};

// "128,1024" -> {128, 1024}; each length must be positive.
std::vector<int64_t> parseSeqs(const std::string& text) {
  std::vector<int64_t> seqs;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const int64_t seq = std::stoll(text.substr(start, comma - start));
    if (seq <= 0) throw std::invalid_argument("sequence lengths must be positive: " + text);
    seqs.push_back(seq);
    start = comma + 1;
  }
  return seqs;
}

Args parseArgs(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) die(k + " needs a value");
      return argv[++i];
    };
    if (k == "--repeats") a.repeats = std::max(1, std::stoi(value()));
    else if (k == "--threads") a.threads = std::max(1, std::stoi(value()));
    else if (k == "--min-ms") a.minMs = std::stod(value());
    else if (k == "--part") a.part = std::stoi(value());
    else if (k == "--attention-seqs") a.attentionSeqs = parseSeqs(value());
    else if (k == "--gpt2-seqs") a.gpt2Seqs = parseSeqs(value());
    else die("unknown argument " + k + " (see the comment at the top of bench/bench_attention.cpp)");
  }
  return a;
}

// One timed configuration: an executor, its steps per repeat, the samples.
struct Timed {
  std::string label;
  std::function<double(int)> run;  // ms per step over n steps
  size_t arenaBytes = 0;
  int steps = 1;
  std::vector<double> samples;
  std::vector<std::map<std::string, double>> kernelMs;  // per round: ms per step by kernel label (profiled executors)
};

void calibrate(Timed& t, double minMs) {
  const double warm = std::min(t.run(1), t.run(1));
  t.steps = std::max(1, static_cast<int>(minMs / std::max(warm, 1e-3) + 0.5));
}

void runInterleaved(std::vector<Timed*>& configs, int repeats) {
  for (int rep = 0; rep < repeats; ++rep)
    for (size_t i = 0; i < configs.size(); ++i) {
      Timed& t = *configs[(i + static_cast<size_t>(rep)) % configs.size()];  // rotate who goes first
      t.samples.push_back(t.run(t.steps));
    }
}

// q, k, v [1, heads, seq, 64] -> attend() (causal) -> o; autograd's gradients of q, k, v from dO.
struct AttentionStep {
  ir::Graph graph;
  partition::Plan plan;
};

AttentionStep attentionStep(int64_t seq, int64_t heads, int64_t dim) {
  AttentionStep s;
  frontend::GraphBuilder b(s.graph);
  const ir::TensorType t{ir::DType::F32, {1, heads, seq, dim}};
  const ir::ValueId q = b.input("q", t), k = b.input("k", t), v = b.input("v", t);
  frontend::zoo::Dims d{1, seq, heads * dim, heads, 1, 1};
  d.kvHeads = heads;
  const ir::ValueId o = frontend::zoo::attend(b, q, k, v, d, true);
  const ir::ValueId dO = b.input("do", b.graph().value(o).type);
  if (!b.status()) die(b.status().error().message());
  const size_t forwardNodes = s.graph.nodes.size();
  auto grads = autograd::appendGradients(s.graph, o, dO, {q, k, v});
  if (!grads) die(grads.error().message());
  s.graph.outputs = {o, (*grads)[0], (*grads)[1], (*grads)[2]};
  std::vector<ir::NodeId> fw, bw;
  for (size_t n = 0; n < s.graph.nodes.size(); ++n) (n < forwardNodes ? fw : bw).push_back(static_cast<ir::NodeId>(n));
  s.plan.sections = {{0, "forward", ir::NodeRole::Forward, fw, "", 0, {}}, {1, "backward", ir::NodeRole::Backward, bw, "", 0, {}}};
  s.plan.schedule = {0, 1};
  return s;
}

std::unique_ptr<runtime::Executor> feedAttention(const AttentionStep& s, const runtime::ExecutorOptions& o) {
  auto e = runtime::Executor::create(s.graph, s.plan, o);
  if (!e) die(e.error().message());
  auto exec = std::make_unique<runtime::Executor>(std::move(*e));
  std::mt19937 rng(5);
  for (ir::ValueId id : s.graph.inputs) {
    ir::Tensor t(s.graph.value(id).type);
    for (float& x : t.span<float>()) x = std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng);
    if (!exec->setInput(id, t)) die("cannot set input " + s.graph.value(id).name);
  }
  return exec;
}

void attentionPart(const Args& args) {
  constexpr int64_t kHeads = 8, kDim = 64;
  std::printf("\n1. causal attention forward + backward, batch 1 x %lld heads, head dim %lld, %d threads\n",
              static_cast<long long>(kHeads), static_cast<long long>(kDim), args.threads);
  std::vector<AttentionStep> steps;
  std::vector<std::unique_ptr<runtime::Executor>> execs;
  std::vector<Timed> timed;
  const std::vector<int64_t>& seqs = args.attentionSeqs;
  steps.reserve(seqs.size());
  timed.reserve(seqs.size() * 2);
  for (int64_t seq : seqs) {
    steps.push_back(attentionStep(seq, kHeads, kDim));
    for (bool fused : {true, false}) {
      runtime::ExecutorOptions o{args.threads};
      o.fuseAttention = fused;
      execs.push_back(feedAttention(steps.back(), o));
      runtime::Executor* e = execs.back().get();
      if (fused && e->fusionStats().attentionForward != 1) die("the attention did not fuse");
      Timed t;
      t.label = "seq " + std::to_string(seq) + (fused ? " fused" : " unfused");
      t.run = [e](int n) {
        const auto t0 = Clock::now();
        for (int i = 0; i < n; ++i)
          if (Status st = e->step(false); !st) die(st.error().message());
        return msSince(t0) / n;
      };
      t.arenaBytes = e->arenaBytes();
      calibrate(t, args.minMs);
      timed.push_back(std::move(t));
    }
  }
  std::vector<Timed*> all;
  for (Timed& t : timed) all.push_back(&t);
  runInterleaved(all, args.repeats);
  std::printf("%-6s %26s %26s %8s %14s %14s %7s\n", "seq", "fused ms [min - max]", "unfused ms [min - max]", "speedup",
              "fused arena", "unfused arena", "ratio");
  for (size_t i = 0; i < seqs.size(); ++i) {
    const Spread f = spreadOf(timed[2 * i].samples), u = spreadOf(timed[2 * i + 1].samples);
    const double fm = static_cast<double>(timed[2 * i].arenaBytes) / 1048576.0;
    const double um = static_cast<double>(timed[2 * i + 1].arenaBytes) / 1048576.0;
    std::printf("%-6lld %8.2f [%6.2f - %6.2f] %8.2f [%6.2f - %6.2f] %7.2fx %10.1f MiB %10.1f MiB %6.1fx\n",
                static_cast<long long>(seqs[i]), f.median, f.min, f.max, u.median, u.min, u.max, u.median / f.median,
                fm, um, um / fm);
  }
}

// The step's time split by kernel: the kernels only one of the two runs (its
// attention, fused or op by op) and those both run, per round, so the
// attention's own saving shows beside a whole-step difference lost in noise.
void printAttribution(const Timed& fused, const Timed& opByOp) {
  std::map<std::string, int> seenIn;  // bit 1: fused, bit 2: op by op
  for (const auto& round : fused.kernelMs)
    for (const auto& entry : round) seenIn[entry.first] |= 1;
  for (const auto& round : opByOp.kernelMs)
    for (const auto& entry : round) seenIn[entry.first] |= 2;
  auto sum = [&](const std::map<std::string, double>& round, int mask) {
    double ms = 0;
    for (const auto& [label, value] : round) ms += seenIn[label] == mask ? value : 0;
    return ms;
  };
  std::vector<double> ownF, ownU, saved, sharedRatio;
  for (size_t r = 0; r < std::min(fused.kernelMs.size(), opByOp.kernelMs.size()); ++r) {
    ownF.push_back(sum(fused.kernelMs[r], 1));
    ownU.push_back(sum(opByOp.kernelMs[r], 2));
    saved.push_back(ownU.back() - ownF.back());
    sharedRatio.push_back(sum(opByOp.kernelMs[r], 3) / std::max(sum(fused.kernelMs[r], 3), 1e-9));
  }
  if (saved.empty()) return;
  std::string onlyF, onlyU;
  for (const auto& [label, mask] : seenIn) {
    if (mask == 1) onlyF += (onlyF.empty() ? "" : ", ") + label;
    if (mask == 2) onlyU += (onlyU.empty() ? "" : ", ") + label;
  }
  const Spread f = spreadOf(ownF), u = spreadOf(ownU), d = spreadOf(saved), shared = spreadOf(sharedRatio);
  size_t smaller = 0;
  for (double x : saved) smaller += x > 0;
  std::printf("%s, by kernel (ms per step, %zu rounds):\n", fused.label.c_str(), saved.size());
  std::printf("  kernels only the fused step runs (%s): %.2f [%.2f - %.2f]\n", onlyF.c_str(), f.median, f.min, f.max);
  std::printf("  kernels only the op-by-op step runs (%s): %.2f [%.2f - %.2f]\n", onlyU.c_str(), u.median, u.min, u.max);
  std::printf("  fused attention saves %.2f ms per step [%.2f - %.2f], less in %zu of %zu rounds; the kernels both run "
              "take x%.3f [%.3f - %.3f] as long op by op\n",
              d.median, d.min, d.max, smaller, saved.size(), shared.median, shared.min, shared.max);
}

void gpt2Part(const Args& args) {
  std::printf("\n2. GPT-2 shape training step (4 layers, width 256, 4 heads, vocab 256, batch 8), %d threads\n",
              args.threads);
  struct Variant {
    std::string label;
    std::string opt;
    bool fuse, fuseAttention;
  };
  const std::vector<Variant> variants = {{"-o3 attention fused", "o3", true, true},
                                         {"-o3 attention op by op", "o3", true, false},
                                         {"-o3 no fusion", "o3", false, false},
                                         {"-o0", "o0", true, true}};
  std::vector<std::unique_ptr<FedExecutor>> execs;
  std::vector<Timed> timed;
  const std::vector<int64_t>& seqs = args.gpt2Seqs;
  timed.reserve(seqs.size() * variants.size());
  for (int64_t seq : seqs) {
    std::map<std::string, pef::Pef> pefs;
    for (const char* opt : {"o3", "o0"}) {
      driver::CompileOptions o;
      o.model = "gpt2";
      o.batchSize = 8;
      o.modelParams = {{"num_layers", 4}, {"hidden_size", 256}, {"num_heads", 4}, {"seq_len", seq}, {"vocab_size", 256}};
      o.level = std::string(opt) == "o3" ? partition::OptLevel::O3 : partition::OptLevel::O0;
      o.pefName = "gpt2-" + std::string(opt);
      pefs.emplace(opt, compileToPef(o));
    }
    for (const Variant& v : variants) {
      runtime::ExecutorOptions o{args.threads};
      o.fuse = v.fuse;
      o.fuseAttention = v.fuseAttention;
      o.profileKernels = true;  // every configuration pays the same two clock reads per kernel
      execs.push_back(std::make_unique<FedExecutor>(pefs.at(v.opt), o));
      FedExecutor* e = execs.back().get();
      Timed& t = timed.emplace_back();  // reserved: t stays where the closure points
      t.label = "seq " + std::to_string(seq) + " " + v.label;
      t.run = [e, &t](int n) {
        e->exec->resetKernelProfile();
        const double ms = e->run(n);
        std::map<std::string, double> round;
        for (const runtime::KernelTime& k : e->exec->kernelProfile()) round[k.label] = k.totalUs / 1e3 / n;
        t.kernelMs.push_back(std::move(round));
        return ms;
      };
      t.arenaBytes = e->exec->arenaBytes();
      const runtime::FusionStats& fs = e->exec->fusionStats();
      t.label += " [" + std::to_string(fs.attentionForward) + "+" + std::to_string(fs.attentionBackward) + " fused]";
      calibrate(t, args.minMs);
      t.kernelMs.clear();
    }
  }
  std::vector<Timed*> all;
  for (Timed& t : timed) all.push_back(&t);
  runInterleaved(all, args.repeats);
  std::printf("(\"[F+B fused]\": attention forward and backward kernels the executor runs fused)\n");
  std::printf("(\"paired\": this configuration's time / the fused one's in the same round, median [min - max] "
              "over the rounds: the machine's drift cancels)\n");
  std::printf("%-48s %12s %24s %14s %s\n", "configuration", "ms median", "spread [min - max]", "arena", "steps x repeats");
  for (size_t i = 0; i < timed.size(); ++i) {
    const Spread s = spreadOf(timed[i].samples);
    const Timed& fused = timed[i - i % variants.size()];
    std::vector<double> ratios;
    for (size_t r = 0; r < timed[i].samples.size(); ++r) ratios.push_back(timed[i].samples[r] / fused.samples[r]);
    const Spread paired = spreadOf(ratios);
    std::sort(ratios.begin(), ratios.end());
    const double q1 = ratios[ratios.size() / 4], q3 = ratios[ratios.size() * 3 / 4];
    size_t above = 0;
    for (double r : ratios) above += r > 1.0;
    std::printf("%-48s %12.2f   [%8.2f - %8.2f] %10.1f MiB %d x %d   (paired x%.3f [%.3f - %.3f], quartiles "
                "%.3f - %.3f, slower than fused in %zu of %zu rounds)\n",
                timed[i].label.c_str(), s.median, s.min, s.max, static_cast<double>(timed[i].arenaBytes) / 1048576.0,
                timed[i].steps, s.count, paired.median, paired.min, paired.max, q1, q3, above, ratios.size());
  }
  for (size_t i = 0; i < timed.size(); i += variants.size()) printAttribution(timed[i], timed[i + 1]);
}

}  // namespace

int main(int argc, char** argv) {
  spdlog::set_level(spdlog::level::warn);
  const Args args = parseArgs(argc, argv);
  std::printf("machine: %s at start\n", loadAverage().c_str());
  if (args.part == 0 || args.part == 1) attentionPart(args);
  if (args.part == 0 || args.part == 2) gpt2Part(args);
  std::printf("\nmachine: %s at the end\n", loadAverage().c_str());
  return 0;
}
