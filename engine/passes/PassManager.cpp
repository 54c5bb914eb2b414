#include "passes/PassManager.h"

#include <chrono>

namespace dfc::passes {

// decompose-composites first: later passes then see (and clean up) primitives.
// dce last removes whatever folding and merging left unused.
const std::vector<std::string> kDefaultTrainingPipeline = {
    "decompose-composites", "constant-folding", "cse", "peephole", "transpose-folding", "dce"};
// fold-batch-norm only for inference: a training step moves the statistics.
// pattern-fusion after constant folding (a where's mask is a const by then)
// and before transpose-folding (which then finds attention's batch_matmul).
const std::vector<std::string> kDefaultInferencePipeline = {"decompose-composites",
                                                            "fold-batch-norm",
                                                            "constant-folding",
                                                            "cse",
                                                            "peephole",
                                                            "pattern-fusion",
                                                            "transpose-folding",
                                                            "dce"};

Expected<PassManager> PassManager::create(const std::vector<std::string>& pipeline, PassManagerOptions options) {
  PassManager pm(std::move(options));
  for (const std::string& name : pipeline) {
    auto pass = createPass(name);
    if (!pass) return pass.error();
    pm.addPass(std::move(*pass));
  }
  return pm;
}

std::vector<std::string> PassManager::pipeline() const {
  std::vector<std::string> names;
  for (const auto& p : m_passes) names.emplace_back(p->name());
  return names;
}

Status PassManager::run(ir::Graph& graph) {
  m_records.clear();
  int index = 0;
  bool verified = false;  // the graph as it stands passed the verifier
  for (const auto& pass : m_passes) {
    ++index;
    std::string name(pass->name());
    PassRecord rec;
    rec.pass = name;
    rec.nodesBefore = static_cast<int>(graph.nodes.size());
    auto start = std::chrono::steady_clock::now();
    auto changed = pass->run(graph);
    rec.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!changed) return changed.error().withContext("pass " + name);
    rec.changed = *changed;
    rec.nodesAfter = static_cast<int>(graph.nodes.size());
    m_records.push_back(rec);
    // A pass that changed nothing left the graph as it was: verified once is enough.
    if (m_opts.verifyEach && (rec.changed || !verified)) {
      if (auto st = ir::verifyGraph(graph, m_opts.verify); !st)
        return internalError("graph invalid after pass " + name + ": " + st.error().message());
      verified = true;
    }
    if (m_opts.afterPass) m_opts.afterPass(graph, index, name);
  }
  return {};
}

}  // namespace dfc::passes
