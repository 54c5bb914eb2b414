// Compile time of gpt2 with 12 vs 48 layers at -o1 (gpt2 rules) and at -o3
// --enable-hypersection: with hypersections compiled once and reused, 4x the
// layers must cost well under 4x the compile work (target: ratio < 1.5).
// Times the compiler stages (decompose + hypersections + mapping with the
// per-hypersection cache); building the model and its gradients is reported
// separately, since it is linear in the layers by nature.
// TODO: go through driver::compile once CompileOptions takes zoo model params.
#include <chrono>
#include <cstdio>

#include "arch/ArchSpec.h"
#include "arch/CostModel.h"
#include "autograd/Autograd.h"
#include "frontend/ModelZoo.h"
#include "mapping/SectionMapper.h"
#include "partition/Decomposer.h"

using namespace dfc;
using Clock = std::chrono::steady_clock;

namespace {

double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

struct Figures {
  double buildMs = 0, compileMs = 0;
  size_t nodes = 0, sections = 0, hypersections = 0;
  int reused = 0;
};

Figures compileGpt2(int layers, partition::OptLevel level) {
  Figures f;
  auto t0 = Clock::now();
  frontend::ZooOptions zo;
  zo.batchSize = 4;
  zo.params = {{"num_layers", layers}, {"hidden_size", 256}, {"num_heads", 4}, {"seq_len", 128}, {"vocab_size", 1000}};
  auto m = frontend::buildZooModel("gpt2", zo);
  if (!m) std::fprintf(stderr, "%s\n", m.error().message().c_str()), std::exit(1);
  auto t = autograd::buildTrainingGraph(m->graph, m->image, m->logits, {});
  if (!t) std::fprintf(stderr, "%s\n", t.error().message().c_str()), std::exit(1);
  f.buildMs = msSince(t0);
  f.nodes = t->graph.nodes.size();

  auto t1 = Clock::now();
  partition::DecomposeOptions o;
  o.level = level;
  o.o1RuleList = "gpt2";
  o.enableHypersection = true;
  auto subs = partition::decompose(t->graph, o);
  if (!subs) std::fprintf(stderr, "%s\n", subs.error().message().c_str()), std::exit(1);
  arch::CostModel cost(*arch::loadArch("sn30"));
  partition::HypersectionCache<partition::MappedSubgraph> cache;
  mapping::MappingOptions mo;
  mo.cache = &cache;
  auto plan = mapping::mapSections(t->graph, *subs, cost, level, mo);
  if (!plan) std::fprintf(stderr, "%s\n", plan.error().message().c_str()), std::exit(1);
  f.compileMs = msSince(t1);
  f.sections = plan->sections.size();
  f.hypersections = plan->hypersections.size();
  f.reused = cache.stats().reused;
  return f;
}

}  // namespace

int main() {
  for (auto level : {partition::OptLevel::O1, partition::OptLevel::O3}) {
    Figures a = compileGpt2(12, level), b = compileGpt2(48, level);
    const char* name = level == partition::OptLevel::O1 ? "-o1 --o1-rule-list gpt2" : "-o3 --enable-hypersection";
    for (auto [layers, f] : {std::pair{12, a}, std::pair{48, b}})
      std::printf("%-26s %2d layers: %6zu nodes, %5zu sections, %4zu hypersections (%d reused); build %.1f ms, "
                  "compile %.1f ms\n",
                  name, layers, f.nodes, f.sections, f.hypersections, f.reused, f.buildMs, f.compileMs);
    std::printf("%-26s compile-time ratio 48/12 layers: %.2f (target < 1.5)\n", name, b.compileMs / a.compileMs);
  }
  return 0;
}
