// The run store on SQLite. Each write method is one BEGIN IMMEDIATE ...
// COMMIT transaction with prepared statements: fast for bulk rows and a
// killed process leaves the database as of the last commit.
#include "profile/RunStore.h"

#include <cstdlib>
#include <filesystem>
#include <mutex>

#include "profile/Sqlite.h"
#include "profile/StoreLiveness.h"
#include "support/SafePath.h"
#include "support/FileUtil.h"

namespace dfc::profile {
namespace {

// kMigrations[v] takes a database from version v to v + 1. Append only.
const char* const kMigrations[] = {
    R"SQL(
CREATE TABLE compiles (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  pef_path TEXT NOT NULL, pef_name TEXT NOT NULL DEFAULT '', model TEXT NOT NULL DEFAULT '',
  args TEXT NOT NULL DEFAULT '', opt_level TEXT NOT NULL DEFAULT '', arch TEXT NOT NULL DEFAULT '',
  batch_size INTEGER NOT NULL DEFAULT 0, inference INTEGER NOT NULL DEFAULT 0,
  started_at TEXT NOT NULL DEFAULT '', duration_ms REAL NOT NULL DEFAULT 0);
CREATE TABLE sections (
  compile_id INTEGER NOT NULL REFERENCES compiles(id) ON DELETE CASCADE,
  section_id INTEGER NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL,
  hyperfunction TEXT NOT NULL, hypersection TEXT NOT NULL, num_nodes INTEGER NOT NULL,
  pcus INTEGER NOT NULL, pmus INTEGER NOT NULL, est_latency_us REAL NOT NULL, flop REAL NOT NULL);
CREATE TABLE runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  compile_id INTEGER REFERENCES compiles(id) ON DELETE SET NULL,
  pef_path TEXT NOT NULL, args TEXT NOT NULL DEFAULT '', started_at TEXT NOT NULL DEFAULT '',
  finished_at TEXT NOT NULL DEFAULT '', status TEXT NOT NULL, trace_path TEXT NOT NULL DEFAULT '',
  epochs INTEGER NOT NULL DEFAULT 0, final_loss REAL, test_accuracy REAL);
CREATE TABLE section_calls (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  section_id INTEGER NOT NULL, call_index INTEGER NOT NULL, step INTEGER NOT NULL,
  start_us REAL NOT NULL, duration_us REAL NOT NULL, est_latency_us REAL NOT NULL, bytes REAL NOT NULL);
CREATE TABLE metrics (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step INTEGER NOT NULL, epoch INTEGER NOT NULL, name TEXT NOT NULL, value REAL NOT NULL);
CREATE INDEX section_calls_run ON section_calls(run_id);
CREATE INDEX runs_pef_path ON runs(pef_path);
CREATE INDEX runs_compile ON runs(compile_id);
CREATE INDEX compiles_pef_path ON compiles(pef_path);
CREATE INDEX sections_compile ON sections(compile_id);
CREATE INDEX metrics_run ON metrics(run_id);
)SQL",
    // 2: which process runs a run, so one that died is told from one still going.
    R"SQL(
ALTER TABLE runs ADD COLUMN pid INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN pid_start TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN host TEXT NOT NULL DEFAULT '';
)SQL",
};
static_assert(std::size(kMigrations) == RunStore::kSchemaVersion, "one migration per schema version");

constexpr const char* kRunColumns =
    "id, compile_id, pef_path, args, started_at, finished_at, status, trace_path, epochs, final_loss, "
    "test_accuracy";

RunRecord runFromRow(const SqliteStatement& q) {
  RunRecord r;
  r.id = q.columnInt(0);
  r.compileId = q.columnOptionalInt(1);
  r.pefPath = q.columnText(2);
  r.args = q.columnText(3);
  r.startedAt = q.columnText(4);
  r.finishedAt = q.columnText(5);
  r.status = q.columnText(6);
  r.tracePath = q.columnText(7);
  r.epochs = static_cast<int>(q.columnInt(8));
  r.finalLoss = q.columnOptionalDouble(9);
  r.testAccuracy = q.columnOptionalDouble(10);
  return r;
}

// Steps `q` to the end, turning each row into a T with `fromRow`.
template <typename T, typename RowFn>
Expected<std::vector<T>> readRows(SqliteStatement& q, RowFn fromRow) {
  std::vector<T> out;
  for (auto row = q.step();; row = q.step()) {
    DFC_TRY(row);
    if (!*row) break;
    out.push_back(fromRow(q));
  }
  return out;
}

}  // namespace

struct RunStore::Impl {
  explicit Impl(SqliteDb database) : db(std::move(database)) {}
  SqliteDb db;
  std::mutex mutex;  // one connection; a transaction must not interleave with another thread's

  // The stored version: 0 for a new file; otherwise exactly one integer row
  // between 1 and kSchemaVersion (a value from elsewhere must not index kMigrations).
  Expected<int> readVersion() {
    auto q = db.prepare(
        "SELECT COUNT(*), MIN(version), MAX(version), COALESCE(SUM(typeof(version) <> 'integer'), 0) "
        "FROM schema_version");
    DFC_TRY(q);
    auto row = q->step();
    DFC_TRY(row);
    const int64_t rows = q->columnInt(0), low = q->columnInt(1), high = q->columnInt(2), odd = q->columnInt(3);
    if (rows == 0) return 0;
    if (rows > 1 || odd > 0 || low != high)
      return makeError(db.path() + ": the run store's schema_version table holds " + std::to_string(rows) +
                       " row(s), not one integer version: not a store this Dataflow Studio wrote");
    if (high > kSchemaVersion)
      return makeError(db.path() + ": run database schema version " + std::to_string(high) +
                       " is newer than this Dataflow Studio supports (" + std::to_string(kSchemaVersion) +
                       "); use a newer Dataflow Studio or another database");
    if (high < 1)
      return makeError(db.path() + ": run database schema version " + std::to_string(high) +
                       " is not one any Dataflow Studio wrote (1.." + std::to_string(kSchemaVersion) + ")");
    return static_cast<int>(high);
  }

  // Our schema has tables and indexes only. A trigger or view in the file is
  // someone else's code that every insert or query would run: refuse it.
  Status refuseForeignCode() {
    auto q = db.prepare("SELECT type, name FROM sqlite_master WHERE type IN ('trigger', 'view') LIMIT 1");
    DFC_TRY(q);
    auto row = q->step();
    DFC_TRY(row);
    if (!*row) return {};
    return makeError(db.path() + ": holds a " + q->columnText(0) + " '" + q->columnText(1).substr(0, 80) +
                     "', which no Dataflow Studio run store has; refusing to run it (use another --db)");
  }

  Status migrate() {
    DFC_TRY(refuseForeignCode());
    auto tx = SqliteTransaction::begin(db);
    DFC_TRY(tx);
    DFC_TRY(db.exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"));
    auto version = readVersion();
    DFC_TRY(version);
    for (int v = *version; v < kSchemaVersion; ++v) DFC_TRY(db.exec(kMigrations[v]));
    if (*version != kSchemaVersion) {
      DFC_TRY(db.exec("DELETE FROM schema_version"));
      auto ins = db.prepare("INSERT INTO schema_version(version) VALUES (?)");
      DFC_TRY(ins);
      DFC_TRY(ins->bind(1, kSchemaVersion).run());
    }
    return tx->commit();
  }

  enum class Which { Any, Finished, Measured };
  Expected<std::optional<RunRecord>> latestRun(const std::string& pefPath, Which which) {
    std::lock_guard lock(mutex);
    const char* filter = which == Which::Any        ? ""
                         : which == Which::Finished ? " AND status='finished'"
                                                    : " AND status='finished' AND EXISTS "
                                                      "(SELECT 1 FROM section_calls c WHERE c.run_id=runs.id)";
    auto q = db.prepare(std::string("SELECT ") + kRunColumns + " FROM runs WHERE pef_path=?" + filter +
                        " ORDER BY id DESC LIMIT 1");
    DFC_TRY(q);
    q->bind(1, pefPath);
    auto row = q->step();
    DFC_TRY(row);
    if (!*row) return std::optional<RunRecord>();
    return std::optional<RunRecord>(runFromRow(*q));
  }

  // Runs still "running" whose process is gone on this host died: say so.
  Status markDeadRuns() {
    auto q = db.prepare("SELECT id, pid, pid_start, host FROM runs WHERE status='running' AND pid > 0");
    DFC_TRY(q);
    std::vector<int64_t> dead;
    for (auto row = q->step();; row = q->step()) {
      DFC_TRY(row);
      if (!*row) break;
      if (!mayBeAlive({q->columnInt(1), q->columnText(2), q->columnText(3)})) dead.push_back(q->columnInt(0));
    }
    if (dead.empty()) return {};
    auto tx = SqliteTransaction::begin(db);
    DFC_TRY(tx);
    auto upd = db.prepare("UPDATE runs SET status='died' WHERE id=? AND status='running'");
    DFC_TRY(upd);
    for (int64_t id : dead) DFC_TRY(upd->bind(1, id).run());
    return tx->commit();
  }
};

RunStore::RunStore(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
RunStore::~RunStore() = default;
RunStore::RunStore(RunStore&&) noexcept = default;
RunStore& RunStore::operator=(RunStore&&) noexcept = default;

std::string RunStore::defaultPath() {
  std::string base;
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && xdg[0] == '/') {
    base = xdg;  // the XDG spec says relative values are to be ignored
  } else if (const char* home = std::getenv("HOME"); home && home[0]) {
    base = std::string(home) + "/.local/share";
  } else {
    base = ".";
  }
  return base + "/dataflow-studio/runs.sqlite";
}

Expected<RunStore> RunStore::open(const std::string& path, std::chrono::milliseconds statementTimeout) {
  // A FIFO or device under the name would block SQLite or be replaced by a database.
  if (auto target = support::checkOutputFile(path, "run store"); !target) return target.error();
  std::filesystem::path p(path);
  if (p.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(p.parent_path(), ec);
    if (ec) return makeError(p.parent_path().string() + ": cannot create directory: " + ec.message());
  }
  auto db = SqliteDb::open(path);
  DFC_TRY(db);
  db->setStatementTimeout(statementTimeout);
  auto impl = std::make_unique<Impl>(std::move(db).value());
  DFC_TRY(impl->migrate());
  DFC_TRY(impl->markDeadRuns());
  return RunStore(std::move(impl));
}

Expected<int64_t> RunStore::recordCompile(const CompileRecord& c) {
  std::lock_guard lock(m_impl->mutex);
  SqliteDb& db = m_impl->db;
  auto tx = SqliteTransaction::begin(db);
  DFC_TRY(tx);
  auto ins = db.prepare(
      "INSERT INTO compiles(pef_path, pef_name, model, args, opt_level, arch, batch_size, inference, started_at, "
      "duration_ms) VALUES (?,?,?,?,?,?,?,?,?,?)");
  DFC_TRY(ins);
  ins->bind(1, c.pefPath).bind(2, c.pefName).bind(3, c.model).bind(4, c.args).bind(5, c.optLevel);
  ins->bind(6, c.arch).bind(7, c.batchSize).bind(8, c.inference ? 1 : 0);
  ins->bind(9, c.startedAt.empty() ? support::isoTimestampUtc() : c.startedAt).bind(10, c.durationMs);
  DFC_TRY(ins->run());
  int64_t id = db.lastInsertId();
  auto sec = db.prepare(
      "INSERT INTO sections(compile_id, section_id, name, type, hyperfunction, hypersection, num_nodes, pcus, pmus, "
      "est_latency_us, flop) VALUES (?,?,?,?,?,?,?,?,?,?,?)");
  DFC_TRY(sec);
  for (const SectionRecord& s : c.sections) {
    sec->bind(1, id).bind(2, s.sectionId).bind(3, s.name).bind(4, s.type).bind(5, s.hyperfunction);
    sec->bind(6, s.hypersection).bind(7, s.numNodes).bind(8, s.pcus).bind(9, s.pmus);
    sec->bind(10, s.estLatencyUs).bind(11, s.flop);
    DFC_TRY(sec->run());
  }
  DFC_TRY(tx->commit());
  return id;
}

Expected<int64_t> RunStore::beginRun(const RunRecord& r) {
  std::lock_guard lock(m_impl->mutex);
  SqliteDb& db = m_impl->db;
  auto tx = SqliteTransaction::begin(db);
  DFC_TRY(tx);
  auto ins = db.prepare(
      "INSERT INTO runs(compile_id, pef_path, args, started_at, status, trace_path, epochs, pid, pid_start, host) "
      "VALUES (?,?,?,?,'running',?,?,?,?,?)");
  DFC_TRY(ins);
  const ProcessStamp me = currentProcess();
  ins->bind(1, r.compileId).bind(2, r.pefPath).bind(3, r.args);
  ins->bind(4, r.startedAt.empty() ? support::isoTimestampUtc() : r.startedAt);
  ins->bind(5, r.tracePath).bind(6, r.epochs).bind(7, me.pid).bind(8, me.startTime).bind(9, me.host);
  if (Status s = ins->run(); !s.ok()) return s.error().withContext("cannot record run");
  int64_t id = db.lastInsertId();
  DFC_TRY(tx->commit());
  return id;
}

Status RunStore::addSectionCalls(int64_t runId, const std::vector<SectionCallRecord>& calls) {
  std::lock_guard lock(m_impl->mutex);
  SqliteDb& db = m_impl->db;
  auto tx = SqliteTransaction::begin(db);
  DFC_TRY(tx);
  auto ins = db.prepare(
      "INSERT INTO section_calls(run_id, section_id, call_index, step, start_us, duration_us, est_latency_us, bytes) "
      "VALUES (?,?,?,?,?,?,?,?)");
  DFC_TRY(ins);
  for (const SectionCallRecord& c : calls) {
    ins->bind(1, runId).bind(2, c.sectionId).bind(3, c.callIndex).bind(4, c.step).bind(5, c.startUs);
    ins->bind(6, c.durationUs).bind(7, c.estLatencyUs).bind(8, c.bytes);
    if (Status s = ins->run(); !s.ok()) return s.error().withContext("run " + std::to_string(runId));
  }
  return tx->commit();
}

Status RunStore::addMetrics(int64_t runId, const std::vector<MetricRecord>& metrics) {
  std::lock_guard lock(m_impl->mutex);
  SqliteDb& db = m_impl->db;
  auto tx = SqliteTransaction::begin(db);
  DFC_TRY(tx);
  auto ins = db.prepare("INSERT INTO metrics(run_id, step, epoch, name, value) VALUES (?,?,?,?,?)");
  DFC_TRY(ins);
  for (const MetricRecord& m : metrics) {
    ins->bind(1, runId).bind(2, m.step).bind(3, m.epoch).bind(4, m.name).bind(5, m.value);
    if (Status s = ins->run(); !s.ok()) return s.error().withContext("run " + std::to_string(runId));
  }
  return tx->commit();
}

Status RunStore::finishRun(int64_t runId, const std::string& status, std::optional<double> finalLoss,
                           std::optional<double> testAccuracy) {
  std::lock_guard lock(m_impl->mutex);
  SqliteDb& db = m_impl->db;
  auto tx = SqliteTransaction::begin(db);
  DFC_TRY(tx);
  auto upd = db.prepare("UPDATE runs SET status=?, finished_at=?, final_loss=?, test_accuracy=? WHERE id=?");
  DFC_TRY(upd);
  upd->bind(1, status).bind(2, support::isoTimestampUtc()).bind(3, finalLoss).bind(4, testAccuracy).bind(5, runId);
  DFC_TRY(upd->run());
  if (db.changes() == 0) return makeError(db.path() + ": no run with id " + std::to_string(runId));
  return tx->commit();
}

namespace {

// Deletes row `id` of `table` (its dependants go by cascade); an error names a missing one.
Status deleteById(SqliteDb& db, const char* table, const char* what, int64_t id) {
  auto tx = SqliteTransaction::begin(db);
  DFC_TRY(tx);
  auto del = db.prepare(std::string("DELETE FROM ") + table + " WHERE id=?");
  DFC_TRY(del);
  DFC_TRY(del->bind(1, id).run());
  if (db.changes() == 0) return makeError(db.path() + ": no " + what + " with id " + std::to_string(id));
  return tx->commit();
}

}  // namespace

Status RunStore::deleteRun(int64_t runId) {
  std::lock_guard lock(m_impl->mutex);
  return deleteById(m_impl->db, "runs", "run", runId);
}

Status RunStore::deleteCompile(int64_t compileId) {
  std::lock_guard lock(m_impl->mutex);
  return deleteById(m_impl->db, "compiles", "compile", compileId);
}

Expected<std::vector<CompileRecord>> RunStore::listCompiles() {
  std::lock_guard lock(m_impl->mutex);
  auto q = m_impl->db.prepare(
      "SELECT id, pef_path, pef_name, model, args, opt_level, arch, batch_size, inference, started_at, duration_ms "
      "FROM compiles ORDER BY id DESC");
  DFC_TRY(q);
  return readRows<CompileRecord>(*q, [](const SqliteStatement& q) {
    CompileRecord c;
    c.id = q.columnInt(0);
    c.pefPath = q.columnText(1);
    c.pefName = q.columnText(2);
    c.model = q.columnText(3);
    c.args = q.columnText(4);
    c.optLevel = q.columnText(5);
    c.arch = q.columnText(6);
    c.batchSize = static_cast<int>(q.columnInt(7));
    c.inference = q.columnInt(8) != 0;
    c.startedAt = q.columnText(9);
    c.durationMs = q.columnDouble(10);
    return c;
  });
}

Expected<std::vector<RunRecord>> RunStore::listRuns() {
  std::lock_guard lock(m_impl->mutex);
  auto q = m_impl->db.prepare(std::string("SELECT ") + kRunColumns + " FROM runs ORDER BY id DESC");
  DFC_TRY(q);
  return readRows<RunRecord>(*q, runFromRow);
}

Expected<std::vector<SectionRecord>> RunStore::sectionsOfCompile(int64_t compileId) {
  std::lock_guard lock(m_impl->mutex);
  auto q = m_impl->db.prepare(
      "SELECT section_id, name, type, hyperfunction, hypersection, num_nodes, pcus, pmus, est_latency_us, flop "
      "FROM sections WHERE compile_id=? ORDER BY rowid");
  DFC_TRY(q);
  q->bind(1, compileId);
  return readRows<SectionRecord>(*q, [](const SqliteStatement& q) {
    SectionRecord s;
    s.sectionId = static_cast<int>(q.columnInt(0));
    s.name = q.columnText(1);
    s.type = q.columnText(2);
    s.hyperfunction = q.columnText(3);
    s.hypersection = q.columnText(4);
    s.numNodes = static_cast<int>(q.columnInt(5));
    s.pcus = static_cast<int>(q.columnInt(6));
    s.pmus = static_cast<int>(q.columnInt(7));
    s.estLatencyUs = q.columnDouble(8);
    s.flop = q.columnDouble(9);
    return s;
  });
}

Expected<std::optional<int64_t>> RunStore::latestCompileForPef(const std::string& pefPath) {
  std::lock_guard lock(m_impl->mutex);
  auto q = m_impl->db.prepare("SELECT id FROM compiles WHERE pef_path=? ORDER BY id DESC LIMIT 1");
  DFC_TRY(q);
  q->bind(1, pefPath);
  auto row = q->step();
  DFC_TRY(row);
  if (!*row) return std::optional<int64_t>();
  return std::optional<int64_t>(q->columnInt(0));
}

Expected<std::optional<RunRecord>> RunStore::latestRunForPef(const std::string& pefPath) {
  return m_impl->latestRun(pefPath, Impl::Which::Any);
}

Expected<std::optional<RunRecord>> RunStore::latestFinishedRunForPef(const std::string& pefPath) {
  return m_impl->latestRun(pefPath, Impl::Which::Finished);
}

Expected<std::optional<RunRecord>> RunStore::latestMeasuredRunForPef(const std::string& pefPath) {
  return m_impl->latestRun(pefPath, Impl::Which::Measured);
}

Expected<std::vector<SectionCallRecord>> RunStore::sectionCalls(int64_t runId) {
  std::lock_guard lock(m_impl->mutex);
  auto q = m_impl->db.prepare(
      "SELECT section_id, call_index, step, start_us, duration_us, est_latency_us, bytes FROM section_calls "
      "WHERE run_id=? ORDER BY call_index, rowid");
  DFC_TRY(q);
  q->bind(1, runId);
  return readRows<SectionCallRecord>(*q, [](const SqliteStatement& q) {
    SectionCallRecord c;
    c.sectionId = static_cast<int>(q.columnInt(0));
    c.callIndex = q.columnInt(1);
    c.step = q.columnInt(2);
    c.startUs = q.columnDouble(3);
    c.durationUs = q.columnDouble(4);
    c.estLatencyUs = q.columnDouble(5);
    c.bytes = q.columnDouble(6);
    return c;
  });
}

Expected<std::vector<MetricRecord>> RunStore::metrics(int64_t runId) {
  std::lock_guard lock(m_impl->mutex);
  auto q = m_impl->db.prepare("SELECT step, epoch, name, value FROM metrics WHERE run_id=? ORDER BY rowid");
  DFC_TRY(q);
  q->bind(1, runId);
  return readRows<MetricRecord>(*q, [](const SqliteStatement& q) {
    MetricRecord m;
    m.step = q.columnInt(0);
    m.epoch = static_cast<int>(q.columnInt(1));
    m.name = q.columnText(2);
    m.value = q.columnDouble(3);
    return m;
  });
}

Expected<int> RunStore::schemaVersion() {
  std::lock_guard lock(m_impl->mutex);
  return m_impl->readVersion();
}

}  // namespace dfc::profile
