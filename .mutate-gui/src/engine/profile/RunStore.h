#pragma once
// The run store: compiles and runs in SQLite (WAL, foreign keys on,
// schema_version table with forward migrations). Every write is one
// transaction with prepared statements, so a killed process leaves a valid
// database.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/Error.h"

namespace dfc::profile {

struct SectionRecord {       // one per section of a compile
  int sectionId = 0;
  std::string name;
  std::string type;          // forward / backward / optimizer
  std::string hyperfunction;
  std::string hypersection;
  int numNodes = 0;
  int pcus = 0, pmus = 0;
  double estLatencyUs = 0;
  double flop = 0;
};

struct CompileRecord {
  int64_t id = 0;            // set by the store
  std::string pefPath;       // absolute path of the PEF written
  std::string pefName;
  std::string model;
  std::string args;          // the command line, space-joined
  std::string optLevel;      // o0/o1/o3
  std::string arch;
  int batchSize = 0;
  bool inference = false;
  std::string startedAt;     // ISO-8601 UTC
  double durationMs = 0;
  std::vector<SectionRecord> sections;
};

struct RunRecord {
  int64_t id = 0;            // set by the store
  std::optional<int64_t> compileId;  // the compile that wrote the PEF, if known
  std::string pefPath;
  std::string args;
  std::string startedAt;     // ISO-8601 UTC
  std::string finishedAt;    // empty while running or if killed
  std::string status;        // running / finished / failed / died (its process ended without finishing)
  std::string tracePath;
  int epochs = 0;
  std::optional<double> finalLoss;
  std::optional<double> testAccuracy;
};

struct SectionCallRecord {   // one per section call of a run
  int sectionId = 0;
  int64_t callIndex = 0;     // global call counter within the run
  int64_t step = 0;
  double startUs = 0;        // since run start
  double durationUs = 0;     // measured
  double estLatencyUs = 0;
  double bytes = 0;
};

struct MetricRecord {        // one per logged step
  int64_t step = 0;
  int epoch = 0;
  std::string name;          // "loss", "accuracy", "samples_per_s"
  double value = 0;
};

class RunStore {
 public:
  ~RunStore();
  RunStore(RunStore&&) noexcept;
  RunStore& operator=(RunStore&&) noexcept;

  // Opens or creates the database, creating parent directories, and migrates it.
  // Runs left "running" by a process that is gone are marked "died". The file
  // is data, not code: a store holding a trigger or view, or a schema version
  // outside 1..kSchemaVersion, is refused; a statement running longer than
  // `statementTimeout` is stopped (bad input, naming the file).
  static Expected<RunStore> open(const std::string& path,
                                 std::chrono::milliseconds statementTimeout = std::chrono::seconds(20));
  // $XDG_DATA_HOME/dataflow-studio/runs.sqlite (XDG default: ~/.local/share).
  static std::string defaultPath();
  static constexpr int kSchemaVersion = 2;

  Expected<int64_t> recordCompile(const CompileRecord& compile);  // with its sections
  Expected<int64_t> beginRun(const RunRecord& run);               // status "running"
  Status addSectionCalls(int64_t runId, const std::vector<SectionCallRecord>& calls);
  Status addMetrics(int64_t runId, const std::vector<MetricRecord>& metrics);
  Status finishRun(int64_t runId, const std::string& status, std::optional<double> finalLoss,
                   std::optional<double> testAccuracy);

  Expected<std::vector<CompileRecord>> listCompiles();  // newest first, without sections
  Expected<std::vector<RunRecord>> listRuns();          // newest first
  Expected<std::vector<SectionRecord>> sectionsOfCompile(int64_t compileId);
  Expected<std::optional<int64_t>> latestCompileForPef(const std::string& pefPath);
  Expected<std::optional<RunRecord>> latestRunForPef(const std::string& pefPath);
  Expected<std::optional<RunRecord>> latestFinishedRunForPef(const std::string& pefPath);
  // The latest finished run that measured the PEF's sections (a training or
  // inference run, or measure-performance with --op-profile): a plain
  // measure-performance run records no section calls and must not hide one.
  Expected<std::optional<RunRecord>> latestMeasuredRunForPef(const std::string& pefPath);
  Expected<std::vector<SectionCallRecord>> sectionCalls(int64_t runId);
  Expected<std::vector<MetricRecord>> metrics(int64_t runId);
  Expected<int> schemaVersion();

  // Deleting a run drops its section calls and metrics; deleting a compile
  // drops its sections and leaves its runs with no compile.
  Status deleteRun(int64_t runId);
  Status deleteCompile(int64_t compileId);

 private:
  struct Impl;
  explicit RunStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> m_impl;
};

}  // namespace dfc::profile
