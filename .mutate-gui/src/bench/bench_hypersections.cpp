// Compile time of gpt2 with 12 vs 48 layers at -o1 (gpt2 rules) and at -o3
// --enable-hypersection, through driver::compile (the path dfc takes).
// Prints every stage, then the 48/12 ratio of the whole compile (the target:
// under 1.5) and of the compiler stages alone (passes, verify, decompose +
// hypersections, map, lowering + place & route). The third mode, plain
// -o3, cuts the whole graph without hyperfunction boundaries, so few sections
// repeat: it shows what the first two save. Each mode compiles once
// untimed first, so both timed compiles find warm caches and allocators, and
// each figure is the fastest of three compiles.
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "driver/compile/Compiler.h"

using namespace dfc;

namespace {

struct Figures {
  double totalMs = 0, compilerMs = 0;
  int sections = 0, unique = 0, instances = 0;
  double savedMs = 0;
  std::vector<std::pair<std::string, double>> stages;
};

// Stages whose work is the compiler's own; the others move weights around.
const std::set<std::string> kCompilerStages = {"passes", "verify", "decompose", "map", "lower", "place", "route", "bitfiles"};

Figures compileGpt2(int layers, partition::OptLevel level, bool hypersections, bool reuse = true) {
  driver::CompileOptions o;
  o.model = "gpt2";
  o.modelParams = {{"num_layers", layers}, {"hidden_size", 256}, {"num_heads", 4}, {"seq_len", 128},
                   {"vocab_size", 1000}};
  o.batchSize = 4;
  o.level = level;
  o.o1RuleList = "gpt2";
  o.enableHypersection = hypersections;
  o.reuseHypersections = reuse;
  o.dbPath = "-";
  o.outputFolder = (std::filesystem::temp_directory_path() / ("dfc-bench-hs-" + std::to_string(layers))).string();
  auto r = driver::compile(o);
  std::filesystem::remove_all(o.outputFolder);
  if (!r) {
    std::fprintf(stderr, "%s\n", r.error().message().c_str());
    std::exit(1);
  }
  Figures f;
  f.totalMs = r->compileMs;
  f.stages = r->stageMs;
  for (const auto& [name, ms] : r->stageMs)
    if (kCompilerStages.count(name)) f.compilerMs += ms;
  f.sections = r->numSections;
  f.unique = r->hypersectionsUnique;
  f.instances = r->hypersectionInstances;
  f.savedMs = r->compileMsSavedEstimate;
  return f;
}

// The fastest of three compiles: the machine is shared, and the slow runs are
// other people's work, not ours.
Figures fastestOf3(int layers, partition::OptLevel level, bool hypersections) {
  Figures best = compileGpt2(layers, level, hypersections);
  for (int i = 0; i < 2; ++i) {
    Figures f = compileGpt2(layers, level, hypersections);
    if (f.totalMs < best.totalMs) best = f;
  }
  return best;
}

}  // namespace

int main() {
  spdlog::set_level(spdlog::level::warn);  // the figures below, not every stage's log line
  struct Mode {
    const char* name;
    partition::OptLevel level;
    bool hypersections;
  };
  for (Mode m : {Mode{"-o1 --o1-rule-list gpt2", partition::OptLevel::O1, false},
                 Mode{"-o3 --enable-hypersection", partition::OptLevel::O3, true},
                 Mode{"-o3 (for contrast: no hyp.)", partition::OptLevel::O3, false}}) {
    compileGpt2(2, m.level, m.hypersections);  // warm-up
    Figures a = fastestOf3(12, m.level, m.hypersections), b = fastestOf3(48, m.level, m.hypersections);
    for (auto [layers, f] : {std::pair{12, a}, std::pair{48, b}}) {
      std::printf("%-26s %2d layers: %5d sections, %3d hypersections for %4d instances (~%.0f ms saved); "
                  "compiler %.0f ms, total %.0f ms\n  stages:",
                  m.name, layers, f.sections, f.unique, f.instances, f.savedMs, f.compilerMs, f.totalMs);
      for (const auto& [name, ms] : f.stages) std::printf(" %s %.0f", name.c_str(), ms);
      std::printf("\n");
    }
    std::printf("%-26s ratio 48/12 layers: compile time %.2f (target < 1.5), compiler stages %.2f\n", m.name,
                b.totalMs / a.totalMs, b.compilerMs / a.compilerMs);
    if (m.hypersections || m.level == partition::OptLevel::O1) {
      // The saving measured: every instance compiled again, against the summary's estimate.
      Figures again = compileGpt2(48, m.level, m.hypersections, false);
      std::printf("%-26s 48 layers compiling every instance: %.0f ms; reuse saved %.0f ms (the summary estimated ~%.0f)\n",
                  m.name, again.totalMs, again.totalMs - b.totalMs, b.savedMs);
    }
    std::printf("\n");
  }
  return 0;
}
