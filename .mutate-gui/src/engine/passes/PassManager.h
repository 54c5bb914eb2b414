#pragma once
// PassManager: runs a pipeline of passes given as data (a list of names from
// Passes.def), optionally verifying the graph after each one, and records
// per-pass wall time and node counts.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ir/Verifier.h"
#include "passes/Pass.h"

namespace dfc::passes {

// The pipelines `dfc compile` runs. Conservative: every pass keeps the numbers.
extern const std::vector<std::string> kDefaultTrainingPipeline;
extern const std::vector<std::string> kDefaultInferencePipeline;

struct PassRecord {
  std::string pass;
  double ms = 0;
  int nodesBefore = 0;
  int nodesAfter = 0;
  bool changed = false;
};

struct PassManagerOptions {
  bool verifyEach = true;
  ir::VerifyOptions verify;
  // Called after each pass with its 1-based position in the pipeline.
  std::function<void(const ir::Graph&, int index, const std::string& pass)> afterPass;
};

class PassManager {
 public:
  explicit PassManager(PassManagerOptions options = {}) : m_opts(std::move(options)) {}
  // A manager running `pipeline`; an unknown name is an error naming it.
  static Expected<PassManager> create(const std::vector<std::string>& pipeline, PassManagerOptions options = {});

  void addPass(std::unique_ptr<Pass> pass) { m_passes.push_back(std::move(pass)); }
  std::vector<std::string> pipeline() const;

  // Runs every pass in order. A pass error or a verifier failure after a pass
  // returns an error naming the pass; records() holds the passes that ran.
  Status run(ir::Graph& graph);
  const std::vector<PassRecord>& records() const { return m_records; }

 private:
  PassManagerOptions m_opts;
  std::vector<std::unique_ptr<Pass>> m_passes;
  std::vector<PassRecord> m_records;
};

}  // namespace dfc::passes
