// The runtime's speed: ms per training step (LeNet b32, a GPT-2 shape b8) and
// per inference batch (ResNet-18 224x224 b1 and b8, a BERT shape b8), at -o0
// and -o3, on 1 and 2 threads. Every configuration is compiled and loaded
// first; then the repeats run round-robin over all of them, so each sees the
// same machine load, and each figure is the median of the repeats with their
// spread [min - max]. Beside them: the machine's load, its parallel ceiling
// (two plain threads on a register loop), its single-core FMA peak, the
// GEMM-bound sections' share of that peak, how much faster -o3 could be than -o0
// if fusion removed everything but the library GEMMs, the host time outside those
// library GEMM/convolution kernels at -o0 and -o3 (and its ratio, goal <= 0.5),
// and the trace recorder's cost.
//
//   bench_runtime [--case NAME]... [--opt o0|o3]... [--threads N]... [--gemm auto|onednn|openblas]...
//                 [--repeats N] [--min-ms MS] [--no-extras]
//   bench_runtime --serve --case NAME --opt o3 --threads N [--gemm auto|onednn|openblas]
//
// --gemm (default auto; give several to set them side by side): the library
// the runtime's GEMMs run on (engine/runtime/kernels/Sgemm.h).
//
// --serve (for scripts/compare-torch.sh): prepares one configuration, prints
// "ready", then answers each stdin line "run K" with the ms per step of K steps.
#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <set>

#include "BenchSupport.h"
#include "RuntimeBenchExtras.h"
#include "runtime/kernels/Sgemm.h"
#include "support/ThreadPool.h"

using namespace dfc;
using namespace dfc::bench;
using runtime::kernels::GemmLibrary;

namespace {

struct Case {
  std::string name, label;
  driver::CompileOptions options;
};

driver::CompileOptions modelOptions(const std::string& model, int64_t batch, bool inference,
                                    std::map<std::string, int64_t> params = {}) {
  driver::CompileOptions o;
  o.model = model;
  o.batchSize = batch;
  o.inference = inference;
  o.modelParams = std::move(params);
  return o;
}

const std::map<std::string, int64_t> kTransformerShape = {
    {"num_layers", 4}, {"hidden_size", 256}, {"num_heads", 4}, {"seq_len", 128}, {"vocab_size", 256}};

std::vector<Case> allCases() {
  return {
      {"lenet", "LeNet-5 training step, b32", modelOptions("lenet", 32, false)},
      {"gpt2", "GPT-2 shape training step, b8", modelOptions("gpt2", 8, false, kTransformerShape)},
      {"resnet18-b1", "ResNet-18 224x224 inference, b1", modelOptions("resnet18", 1, true)},
      {"resnet18-b8", "ResNet-18 224x224 inference, b8", modelOptions("resnet18", 8, true)},
      {"bert", "BERT shape inference, b8", modelOptions("bert", 8, true, kTransformerShape)},
  };
}

struct Config {
  const Case* c = nullptr;
  std::string opt;
  int threads = 1;
  GemmLibrary gemm = GemmLibrary::Auto;
  std::unique_ptr<FedExecutor> exec;
  int steps = 1;  // per repeat
  std::vector<double> samples;
};

struct Args {
  std::vector<std::string> cases, opts;
  std::vector<int> threads;
  std::vector<GemmLibrary> gemms;
  int repeats = 7;
  double minMs = 150;
  bool extras = true, serve = false;
};

Args parseArgs(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) die(k + " needs a value");
      return argv[++i];
    };
    if (k == "--case") a.cases.push_back(value());
    else if (k == "--opt") a.opts.push_back(value());
    else if (k == "--threads") a.threads.push_back(std::stoi(value()));
    else if (k == "--repeats") a.repeats = std::max(1, std::stoi(value()));
    else if (k == "--min-ms") a.minMs = std::stod(value());
    else if (k == "--gemm") {
      GemmLibrary lib = GemmLibrary::Auto;
      const std::string name = value();
      if (!runtime::kernels::parseGemmLibrary(name.c_str(), lib)) die("--gemm: unknown library '" + name + "' (auto, onednn, openblas)");
      a.gemms.push_back(lib);
    } else if (k == "--no-extras") a.extras = false;
    else if (k == "--serve") a.serve = true;
    else die("unknown argument " + k + " (see the comment at the top of bench/bench_runtime.cpp)");
  }
  if (a.opts.empty()) a.opts = {"o0", "o3"};
  if (a.threads.empty()) a.threads = {1, 2};
  if (a.gemms.empty()) a.gemms = {GemmLibrary::Auto};
  return a;
}

const Case& findCase(const std::vector<Case>& cases, const std::string& name) {
  for (const Case& c : cases)
    if (c.name == name) return c;
  std::string known;
  for (const Case& c : cases) known += " " + c.name;
  die("unknown case '" + name + "' (known:" + known + ")");
}

pef::Pef compileCase(const Case& c, const std::string& opt) {
  driver::CompileOptions o = c.options;
  auto level = driver::parseOptLevel(opt);
  if (!level) die(level.error().message());
  o.level = *level;
  o.pefName = c.name + "-" + opt;
  return compileToPef(o);
}

int serve(const Case& c, const std::string& opt, int threads, GemmLibrary gemm) {
  runtime::kernels::setGemmLibrary(gemm);
  const pef::Pef pef = compileCase(c, opt);
  FedExecutor exec(pef, threads);
  exec.run(2);  // warm: pages touched, workers started
  std::printf("ready\n");
  std::fflush(stdout);
  std::string line;
  while (std::getline(std::cin, line)) {
    int steps = 0;
    if (std::sscanf(line.c_str(), "run %d", &steps) != 1 || steps < 1) {
      std::printf("error: expected 'run K'\n");
    } else {
      std::printf("%.4f\n", exec.run(steps));
    }
    std::fflush(stdout);
  }
  return 0;
}

void printTable(const std::vector<Config>& configs) {
  std::printf("\n%-34s %-4s %7s %-8s %12s   %-22s %s\n", "case", "opt", "threads", "gemm", "ms median",
              "spread [min - max]", "steps x repeats");
  std::map<std::string, double> median;  // "case opt threads gemm"
  auto key = [](const std::string& c, const std::string& opt, int t, GemmLibrary lib) {
    return c + " " + opt + " " + std::to_string(t) + " " + runtime::kernels::gemmLibraryName(lib);
  };
  for (const Config& k : configs) {
    const Spread s = spreadOf(k.samples);
    median[key(k.c->name, k.opt, k.threads, k.gemm)] = s.median;
    std::printf("%-34s -%-3s %7d %-8s %12.2f   [%8.2f - %8.2f]   %d x %d\n", k.c->label.c_str(), k.opt.c_str(),
                k.threads, runtime::kernels::gemmLibraryName(k.gemm), s.median, s.min, s.max, k.steps, s.count);
  }
  std::printf("\nratios of medians:\n");
  std::set<std::string> done;
  for (const Config& k : configs) {
    const std::string& n = k.c->name;
    if (!done.insert(n).second) continue;
    for (GemmLibrary lib : {GemmLibrary::Auto, GemmLibrary::OneDnn, GemmLibrary::OpenBlas}) {
      auto at = [&](const std::string& opt, int t) {
        auto it = median.find(key(n, opt, t, lib));
        return it == median.end() ? 0.0 : it->second;
      };
      const char* libName = runtime::kernels::gemmLibraryName(lib);
      for (int t : {1, 2})
        if (at("o0", t) > 0 && at("o3", t) > 0)
          std::printf("  %-14s %-8s %d thread%s: -o3 is x%.2f faster than -o0\n", n.c_str(), libName, t,
                      t > 1 ? "s" : " ", at("o0", t) / at("o3", t));
      for (const char* opt : {"o0", "o3"})
        if (at(opt, 1) > 0 && at(opt, 2) > 0)
          std::printf("  %-14s %-8s -%s: 2 threads are x%.2f faster than 1\n", n.c_str(), libName, opt,
                      at(opt, 1) / at(opt, 2));
    }
    for (const char* opt : {"o0", "o3"})
      for (int t : {1, 2})
        for (auto [first, second] : {std::pair{GemmLibrary::OneDnn, GemmLibrary::OpenBlas},
                                     std::pair{GemmLibrary::Auto, GemmLibrary::OneDnn}}) {
          auto a = median.find(key(n, opt, t, second)), b = median.find(key(n, opt, t, first));
          if (a != median.end() && b != median.end())
            std::printf("  %-14s -%s %d thread%s: %s GEMMs are x%.2f faster than %s\n", n.c_str(), opt, t,
                        t > 1 ? "s" : " ", runtime::kernels::gemmLibraryName(first), a->second / b->second,
                        runtime::kernels::gemmLibraryName(second));
        }
  }
}

}  // namespace

int main(int argc, char** argv) {
  spdlog::set_level(spdlog::level::warn);
  const Args args = parseArgs(argc, argv);
  const std::vector<Case> cases = allCases();
  if (args.serve) {
    if (args.cases.size() != 1 || args.opts.size() != 1 || args.threads.size() != 1 || args.gemms.size() != 1)
      die("--serve takes exactly one --case, --opt and --threads, and at most one --gemm");
    return serve(findCase(cases, args.cases[0]), args.opts[0], args.threads[0], args.gemms[0]);
  }
  std::vector<const Case*> chosen;
  if (args.cases.empty())
    for (const Case& c : cases) chosen.push_back(&c);
  for (const std::string& name : args.cases) chosen.push_back(&findCase(cases, name));

  const char* coreType = std::getenv("OPENBLAS_CORETYPE");
  std::printf("machine: %d hardware threads, %s at start\n", support::ThreadPool::defaultThreads(),
              loadAverage().c_str());
  for (GemmLibrary lib : args.gemms) {
    runtime::kernels::setGemmLibrary(lib);
    std::printf("GEMMs (--gemm %s): %s%s%s\n", runtime::kernels::gemmLibraryName(lib),
                runtime::kernels::gemmKernelDescription(),
                lib == GemmLibrary::OpenBlas && coreType ? " (the environment sets OPENBLAS_CORETYPE=" : "",
                lib == GemmLibrary::OpenBlas && coreType ? (std::string(coreType) + ")").c_str() : "");
  }
  double peak = 0;
  if (args.extras) {
    const double spin1 = spin(1), spin2 = spin(2);
    std::printf("ceiling: two plain threads on a register loop gain x%.2f over one (ideal 2)\n", 2 * spin1 / spin2);
    std::string isa;
    peak = fmaPeakGflops(isa);
    std::printf("single-core FMA peak: %.1f GFLOP/s (%s register loop, best of 21)\n", peak, isa.c_str());
  }

  std::map<std::string, pef::Pef> pefs;
  std::vector<Config> configs;
  for (const Case* c : chosen)
    for (const std::string& opt : args.opts) {
      pef::Pef& pef = pefs[c->name + opt] = compileCase(*c, opt);
      for (int t : args.threads)
        for (GemmLibrary lib : args.gemms) {
          Config k;
          k.c = c, k.opt = opt, k.threads = t, k.gemm = lib;
          runtime::kernels::setGemmLibrary(lib);
          k.exec = std::make_unique<FedExecutor>(pef, t);
          const double warm = std::min(k.exec->run(1), k.exec->run(1));
          k.steps = std::max(1, static_cast<int>(args.minMs / std::max(warm, 1e-3) + 0.5));
          configs.push_back(std::move(k));
        }
    }
  for (int rep = 0; rep < args.repeats; ++rep)
    for (size_t i = 0; i < configs.size(); ++i) {
      Config& k = configs[(i + static_cast<size_t>(rep)) % configs.size()];  // rotate who goes first
      runtime::kernels::setGemmLibrary(k.gemm);
      k.samples.push_back(k.exec->run(k.steps));
    }
  printTable(configs);
  if (args.extras) {
    runtime::kernels::setGemmLibrary(args.gemms.front());
    std::printf("\n(GEMM library for what follows: %s)\n", runtime::kernels::gemmKernelDescription());
    auto find = [&](const std::string& key) { return pefs.count(key) ? &pefs.at(key) : nullptr; };
    printGemmEfficiency(find("gpt2o0"), find("resnet18-b8o0"), peak);
    if (find("gpt2o0") && find("gpt2o3")) printFusionCeiling("GPT-2 shape training step", *find("gpt2o0"), *find("gpt2o3"), 1.3);
    for (const Case* c : chosen)
      if (c->name != "lenet" && find(c->name + "o0") && find(c->name + "o3"))
        printOutsideLibrary(c->label.c_str(), *find(c->name + "o0"), *find(c->name + "o3"), 0.5);
    printTraceOverhead(find("gpt2o3") ? *find("gpt2o3") : pefs.begin()->second);
  }
  std::printf("\nmachine: %s at the end\n", loadAverage().c_str());
  return 0;
}
