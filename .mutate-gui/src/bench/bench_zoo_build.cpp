// Graph-build time of the zoo's large language-model shapes: the frontend
// (buildZooModel) and, for training, autograd on top, with the node and
// parameter counts. Weights are init recipes, so neither step may grow with
// parameter bytes: a 70B shape must build about as fast as a 7B one per layer.
// Each figure is the fastest of three builds (the first warms the allocator).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>

#include "autograd/Autograd.h"
#include "frontend/ModelZoo.h"
#include "support/SizeBudget.h"

using namespace dfc;

namespace {

struct Shape {
  const char* label;
  const char* model;
  std::map<std::string, int64_t> params;
};

double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

int64_t parameterCount(const ir::Graph& g) {
  int64_t count = 0;
  for (auto p : g.params()) count += g.value(p).type.numElements();
  return count;
}

// Fastest of three: building the forward graph, then building its training graph.
int measure(const Shape& s) {
  double buildMs = 1e30, trainMs = 1e30;
  size_t nodes = 0, trainNodes = 0;
  int64_t params = 0;
  for (int round = 0; round < 3; ++round) {
    frontend::ZooOptions zo;
    zo.batchSize = 1;
    zo.params = s.params;
    auto start = std::chrono::steady_clock::now();
    auto m = frontend::buildZooModel(s.model, zo);
    buildMs = std::min(buildMs, msSince(start));
    if (!m) {
      std::fprintf(stderr, "%s: %s\n", s.label, m.error().message().c_str());
      return 1;
    }
    nodes = m->graph.nodes.size();
    params = parameterCount(m->graph);
    start = std::chrono::steady_clock::now();
    auto t = autograd::buildTrainingGraph(m->graph, m->image, m->logits, {});
    trainMs = std::min(trainMs, msSince(start));
    if (!t) {
      std::fprintf(stderr, "%s training: %s\n", s.label, t.error().message().c_str());
      return 1;
    }
    trainNodes = t->graph.nodes.size();
  }
  std::printf("%-34s %8.1f ms %6zu nodes | + autograd %8.1f ms %6zu nodes | %14lld parameters (%.2f B)\n", s.label,
              buildMs, nodes, trainMs, trainNodes, static_cast<long long>(params), static_cast<double>(params) / 1e9);
  return 0;
}

}  // namespace

int main() {
  support::setMemoryBudget(uint64_t{1} << 42);  // the weight store is checked against a run's memory, not built here
  const Shape shapes[] = {
      {"llama 7B (32 x 4096, seq 4096)", "llama",
       {{"num_layers", 32}, {"hidden_size", 4096}, {"num_heads", 32}, {"intermediate_size", 11008}, {"seq_len", 4096}}},
      {"llama 70B (80 x 8192, 8 kv heads)", "llama",
       {{"num_layers", 80}, {"hidden_size", 8192}, {"num_heads", 64}, {"num_kv_heads", 8},
        {"intermediate_size", 28672}, {"seq_len", 4096}}},
      {"gpt2 7B shape (32 x 4096, seq 4096)", "gpt2",
       {{"num_layers", 32}, {"hidden_size", 4096}, {"num_heads", 32}, {"seq_len", 4096}}},
      {"bloom (bloom-560m defaults)", "bloom", {}},
      {"gpt-neox (GPT-NeoX-20B defaults)", "gpt-neox", {}},
  };
  int failed = 0;
  for (const Shape& s : shapes) failed += measure(s);
  return failed == 0 ? 0 : 1;
}
