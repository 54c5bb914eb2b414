#include <catch2/catch.hpp>
#include <sys/stat.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "profile/RunStore.h"

using namespace dfc::profile;
namespace fs = std::filesystem;

namespace {

// A fresh directory per test, removed afterwards.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("dfc_runstore_" + std::to_string(::getpid()) + "_" + std::to_string(counter()++));
    fs::remove_all(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
  static int& counter() {
    static int n = 0;
    return n;
  }
};

CompileRecord sampleCompile() {
  CompileRecord c;
  c.pefPath = "/tmp/out/gpt2.pef";
  c.pefName = "gpt2";
  c.model = "gpt2";
  c.args = "dfc compile gpt2 -o3";
  c.optLevel = "o3";
  c.arch = "sn30";
  c.batchSize = 8;
  c.durationMs = 1234.5;
  for (int i = 0; i < 3; ++i) {
    SectionRecord s;
    s.sectionId = i;
    s.name = "section_" + std::to_string(i);
    s.type = i == 2 ? "optimizer" : "forward";
    s.hyperfunction = "layer";
    s.hypersection = "hs" + std::to_string(i % 2);
    s.numNodes = 10 + i;
    s.pcus = 100 * (i + 1);
    s.pmus = 50;
    s.estLatencyUs = 12.5 * (i + 1);
    s.flop = 1e9;
    c.sections.push_back(s);
  }
  return c;
}

std::string sqliteScalar(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string out = "<error>";
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
      out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return out;
}

}  // namespace

TEST_CASE("run store records a compile and a run and reads them back after reopening") {
  TempDir dir;
  const std::string path = dir.file("nested/dir/runs.sqlite");  // parent dirs are created
  int64_t compileId = 0, runId = 0;
  {
    auto store = RunStore::open(path);
    INFO((store ? std::string() : store.error().message()));
    REQUIRE(store.ok());
    auto version = store->schemaVersion();
    REQUIRE(version.ok());
    CHECK(*version == RunStore::kSchemaVersion);

    auto cid = store->recordCompile(sampleCompile());
    REQUIRE(cid.ok());
    compileId = *cid;

    RunRecord run;
    run.compileId = compileId;
    run.pefPath = "/tmp/out/gpt2.pef";
    run.args = "dfc run gpt2.pef";
    run.epochs = 2;
    run.tracePath = "/tmp/out/gpt2_chrome_tracing_report.json";
    auto rid = store->beginRun(run);
    REQUIRE(rid.ok());
    runId = *rid;

    std::vector<SectionCallRecord> calls(10000);
    for (size_t i = 0; i < calls.size(); ++i) {
      calls[i].sectionId = static_cast<int>(i % 3);
      calls[i].callIndex = static_cast<int64_t>(i);
      calls[i].step = static_cast<int64_t>(i / 3);
      calls[i].startUs = 10.0 * static_cast<double>(i);
      calls[i].durationUs = 9.5;
      calls[i].estLatencyUs = 7.25;
      calls[i].bytes = 4096;
    }
    REQUIRE(store->addSectionCalls(runId, calls).ok());
    REQUIRE(store->addMetrics(runId, {{0, 0, "loss", 2.3}, {1, 0, "loss", 1.9}, {1, 0, "accuracy", 0.61}}).ok());
    REQUIRE(store->finishRun(runId, "finished", 1.9, 0.61).ok());
  }
  auto store = RunStore::open(path);
  REQUIRE(store.ok());

  auto compiles = store->listCompiles();
  REQUIRE(compiles.ok());
  REQUIRE(compiles->size() == 1);
  CHECK(compiles->at(0).model == "gpt2");
  CHECK(compiles->at(0).optLevel == "o3");
  CHECK(compiles->at(0).batchSize == 8);
  CHECK(compiles->at(0).durationMs == 1234.5);
  CHECK_FALSE(compiles->at(0).startedAt.empty());  // filled in by the store

  auto sections = store->sectionsOfCompile(compileId);
  REQUIRE(sections.ok());
  REQUIRE(sections->size() == 3);
  CHECK(sections->at(2).type == "optimizer");
  CHECK(sections->at(1).hypersection == "hs1");
  CHECK(sections->at(1).pcus == 200);
  CHECK(sections->at(2).estLatencyUs == 37.5);

  auto latestCompile = store->latestCompileForPef("/tmp/out/gpt2.pef");
  REQUIRE(latestCompile.ok());
  CHECK(latestCompile->value() == compileId);

  auto run = store->latestRunForPef("/tmp/out/gpt2.pef");
  REQUIRE(run.ok());
  REQUIRE(run->has_value());
  const RunRecord& r = run->value();
  CHECK(r.id == runId);
  CHECK(r.compileId == compileId);
  CHECK(r.status == "finished");
  CHECK_FALSE(r.finishedAt.empty());
  CHECK(r.finalLoss == 1.9);
  CHECK(r.testAccuracy == 0.61);
  CHECK(r.epochs == 2);
  CHECK(r.tracePath == "/tmp/out/gpt2_chrome_tracing_report.json");

  auto calls = store->sectionCalls(runId);
  REQUIRE(calls.ok());
  REQUIRE(calls->size() == 10000);
  CHECK(calls->at(9999).callIndex == 9999);
  CHECK(calls->at(9999).startUs == 99990.0);
  CHECK(calls->at(5000).sectionId == 5000 % 3);
  CHECK(calls->at(42).bytes == 4096);

  auto metrics = store->metrics(runId);
  REQUIRE(metrics.ok());
  REQUIRE(metrics->size() == 3);
  CHECK(metrics->at(2).name == "accuracy");
  CHECK(metrics->at(1).value == 1.9);

  CHECK_FALSE(store->latestRunForPef("/elsewhere.pef")->has_value());
  CHECK(sqliteScalar(path, "PRAGMA integrity_check") == "ok");
  CHECK(sqliteScalar(path, "PRAGMA journal_mode") == "wal");
}

TEST_CASE("run store deletes cascade: runs lose their calls, compiles leave runs unlinked") {
  TempDir dir;
  auto store = RunStore::open(dir.file("runs.sqlite"));
  REQUIRE(store.ok());
  int64_t cid = *store->recordCompile(sampleCompile());
  RunRecord run;
  run.compileId = cid;
  run.pefPath = "/tmp/out/gpt2.pef";
  int64_t keep = *store->beginRun(run);
  int64_t drop = *store->beginRun(run);
  REQUIRE(store->addSectionCalls(drop, {SectionCallRecord{}}).ok());
  REQUIRE(store->addMetrics(drop, {{0, 0, "loss", 1.0}}).ok());

  REQUIRE(store->deleteRun(drop).ok());
  CHECK(store->sectionCalls(drop)->empty());
  CHECK(store->metrics(drop)->empty());
  CHECK_FALSE(store->deleteRun(drop).ok());  // already gone

  REQUIRE(store->deleteCompile(cid).ok());
  CHECK(store->sectionsOfCompile(cid)->empty());
  auto runs = store->listRuns();
  REQUIRE(runs->size() == 1);
  CHECK(runs->at(0).id == keep);
  CHECK_FALSE(runs->at(0).compileId.has_value());

  // Writing to a run that does not exist fails and writes nothing.
  auto bad = store->addSectionCalls(9999, {SectionCallRecord{}});
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().message(), Catch::Contains("run 9999"));
  CHECK_FALSE(store->finishRun(9999, "finished", std::nullopt, std::nullopt).ok());
}

TEST_CASE("run store refuses a database from a newer version and a file that is not SQLite") {
  TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  REQUIRE(RunStore::open(path).ok());
  CHECK(sqliteScalar(path, "UPDATE schema_version SET version = 7 RETURNING version") == "7");
  auto newer = RunStore::open(path);
  REQUIRE_FALSE(newer.ok());
  CHECK_THAT(newer.error().message(), Catch::StartsWith(path) && Catch::Contains("schema version 7 is newer"));

  const std::string garbage = dir.file("garbage.sqlite");
  {
    std::ofstream out(garbage);
    for (int i = 0; i < 200; ++i) out << "this is a chrome trace, not a database\n";
  }
  auto notDb = RunStore::open(garbage);
  REQUIRE_FALSE(notDb.ok());
  CHECK(notDb.error().message() == garbage + ": not a SQLite database (is this the right file?)");
}

TEST_CASE("a run killed mid-way leaves a valid database, the next open marks it died") {
  TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // The "run": begins, records some calls, then dies without closing anything.
    auto store = RunStore::open(path);
    if (!store) ::_exit(3);
    RunRecord run;
    run.pefPath = "/tmp/killed.pef";
    auto id = store->beginRun(run);
    if (!id) ::_exit(4);
    std::vector<SectionCallRecord> calls(500);
    if (!store->addSectionCalls(*id, calls)) ::_exit(5);
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);

  auto store = RunStore::open(path);
  REQUIRE(store.ok());
  auto run = store->latestRunForPef("/tmp/killed.pef");
  REQUIRE(run.ok());
  REQUIRE(run->has_value());
  CHECK(run->value().status == "died");  // its process is gone: it will never finish
  CHECK(run->value().finishedAt.empty());
  CHECK_FALSE(store->latestFinishedRunForPef("/tmp/killed.pef")->has_value());
  CHECK(store->sectionCalls(run->value().id)->size() == 500);
  CHECK(sqliteScalar(path, "PRAGMA integrity_check") == "ok");
}

TEST_CASE("run store default path follows XDG_DATA_HOME, then HOME") {
  const char* oldXdg = std::getenv("XDG_DATA_HOME");
  std::string savedXdg = oldXdg ? oldXdg : "";
  ::setenv("XDG_DATA_HOME", "/data/xdg", 1);
  CHECK(RunStore::defaultPath() == "/data/xdg/dataflow-studio/runs.sqlite");
  ::setenv("XDG_DATA_HOME", "relative/ignored", 1);  // XDG says relative values are invalid
  if (const char* home = std::getenv("HOME"); home && home[0])
    CHECK(RunStore::defaultPath() == std::string(home) + "/.local/share/dataflow-studio/runs.sqlite");
  ::unsetenv("XDG_DATA_HOME");
  if (oldXdg) ::setenv("XDG_DATA_HOME", savedXdg.c_str(), 1);
}

TEST_CASE("a run whose process is alive stays running, the latest finished run is found past it") {
  TempDir dir;
  auto store = RunStore::open(dir.file("runs.sqlite"));
  REQUIRE(store.ok());
  RunRecord run;
  run.pefPath = "/tmp/live.pef";
  auto done = store->beginRun(run);
  REQUIRE(done.ok());
  REQUIRE(store->finishRun(*done, "finished", 0.5, 0.9).ok());
  auto live = store->beginRun(run);  // this process: alive
  REQUIRE(live.ok());
  auto again = RunStore::open(dir.file("runs.sqlite"));
  REQUIRE(again.ok());
  CHECK(again->latestRunForPef("/tmp/live.pef")->value().status == "running");
  auto finished = again->latestFinishedRunForPef("/tmp/live.pef");
  REQUIRE(finished.ok());
  REQUIRE(finished->has_value());
  CHECK(finished->value().id == *done);
}

TEST_CASE("a run store path that is a FIFO or a directory is refused") {
  TempDir dir;
  fs::create_directories(dir.path);
  const std::string fifo = dir.file("runs.fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto store = RunStore::open(fifo);  // SQLite would block on it
  REQUIRE_FALSE(store.ok());
  CHECK(store.error().message() == "run store " + fifo + ": is a FIFO; refusing to replace it (give a file path)");
}

namespace {

// Runs `sql` on the file with a plain SQLite connection (what another program would do).
void sqliteExec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  char* message = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
  INFO(sql << ": " << (message ? message : ""));
  sqlite3_free(message);
  sqlite3_close(db);
  REQUIRE(rc == SQLITE_OK);
}

}  // namespace

TEST_CASE("a store file of schema version 1 is migrated in place and keeps its runs") {
  TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  {
    auto store = RunStore::open(path);
    REQUIRE(store.ok());
  }
  // Back to what version 1 wrote: no process columns, one finished run and
  // one left 'running' by a process version 1 could not name.
  sqliteExec(path,
             "ALTER TABLE runs DROP COLUMN pid; ALTER TABLE runs DROP COLUMN pid_start; "
             "ALTER TABLE runs DROP COLUMN host; UPDATE schema_version SET version=1; "
             "INSERT INTO runs(pef_path, status, finished_at) VALUES ('/tmp/old.pef', 'finished', 'x'); "
             "INSERT INTO runs(pef_path, status) VALUES ('/tmp/old.pef', 'running');");
  REQUIRE(sqliteScalar(path, "SELECT COUNT(*) FROM pragma_table_info('runs') WHERE name='pid'") == "0");

  auto store = RunStore::open(path);
  REQUIRE(store.ok());
  CHECK(*store->schemaVersion() == RunStore::kSchemaVersion);
  CHECK(sqliteScalar(path, "SELECT COUNT(*) FROM pragma_table_info('runs') WHERE name IN ('pid','pid_start','host')") == "3");
  auto runs = store->listRuns();
  REQUIRE(runs.ok());
  REQUIRE(runs->size() == 2);
  CHECK(runs->front().status == "running");  // no process recorded: cannot tell, left as it was
  CHECK(store->latestFinishedRunForPef("/tmp/old.pef")->value().id == runs->back().id);
  RunRecord fresh;
  fresh.pefPath = "/tmp/old.pef";
  auto id = store->beginRun(fresh);
  REQUIRE(id.ok());
  CHECK(sqliteScalar(path, "SELECT pid FROM runs WHERE id=" + std::to_string(*id)) == std::to_string(::getpid()));
  CHECK(sqliteScalar(path, "PRAGMA integrity_check") == "ok");
}

TEST_CASE("a store write waits for another writer, and fails with a message when it never lets go") {
  TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  auto store = RunStore::open(path);
  REQUIRE(store.ok());
  RunRecord run;
  run.pefPath = "/tmp/busy.pef";

  sqlite3* other = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &other) == SQLITE_OK);
  REQUIRE(sqlite3_exec(other, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr) == SQLITE_OK);
  std::thread release([other] {  // a writer that holds the store for a second
    std::this_thread::sleep_for(std::chrono::seconds(1));
    sqlite3_exec(other, "COMMIT", nullptr, nullptr, nullptr);
  });
  auto waited = store->beginRun(run);
  release.join();
  REQUIRE(waited.ok());  // the busy timeout waited it out

  REQUIRE(sqlite3_exec(other, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr) == SQLITE_OK);  // now held throughout
  auto refused = store->finishRun(*waited, "finished", 0.5, 0.9);
  sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(other);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message().find("locked") != std::string::npos);
  REQUIRE(store->finishRun(*waited, "finished", 0.5, 0.9).ok());  // the store is usable again
  CHECK(store->latestFinishedRunForPef("/tmp/busy.pef")->value().id == *waited);
}

TEST_CASE("a store's schema version outside 1..current is refused before any migration runs") {
  // Issue 36: the stored version indexed the migration table; -50 read out of bounds, -5 ran another string as SQL.
  TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  REQUIRE(RunStore::open(path).ok());
  const std::string schema = sqliteScalar(path, "SELECT group_concat(name) FROM sqlite_master");
  for (const char* version : {"-5", "-50", "-1000", "0", "2147483648", "9223372036854775807"}) {
    INFO(version);
    sqliteExec(path, std::string("UPDATE schema_version SET version = ") + version);
    auto bad = RunStore::open(path);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().kind() == dfc::ErrorKind::BadInput);
    CHECK_THAT(bad.error().message(), Catch::StartsWith(path) && Catch::Contains("schema version"));
    CHECK(sqliteScalar(path, "SELECT group_concat(name) FROM sqlite_master") == schema);  // nothing created or run
  }
  // The current version, exactly at the top of the range, opens.
  sqliteExec(path, "UPDATE schema_version SET version = " + std::to_string(RunStore::kSchemaVersion));
  CHECK(RunStore::open(path).ok());
  // Two rows, or a version that is not an integer, is no store of ours either.
  for (const char* edit : {"INSERT INTO schema_version VALUES (2)", "UPDATE schema_version SET version = '2x'"}) {
    INFO(edit);
    sqliteExec(path, "DELETE FROM schema_version; INSERT INTO schema_version VALUES (2); " + std::string(edit));
    auto bad = RunStore::open(path);
    REQUIRE_FALSE(bad.ok());
    CHECK_THAT(bad.error().message(), Catch::Contains("not one integer version"));
  }
}

TEST_CASE("a store holding a trigger or a view is refused: its code never runs") {
  TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  REQUIRE(RunStore::open(path).ok());
  // A trigger that would loop forever (recursive) on the first insert of a run.
  sqliteExec(path,
             "PRAGMA recursive_triggers=ON; CREATE TABLE spin(x); "
             "CREATE TRIGGER loop AFTER INSERT ON runs BEGIN INSERT INTO runs(pef_path, status) VALUES ('x','x'); END");
  auto withTrigger = RunStore::open(path);
  REQUIRE_FALSE(withTrigger.ok());
  CHECK(withTrigger.error().kind() == dfc::ErrorKind::BadInput);
  CHECK(withTrigger.error().message() == path + ": holds a trigger 'loop', which no Dataflow Studio run store has; "
                                                "refusing to run it (use another --db)");
  sqliteExec(path, "DROP TRIGGER loop; CREATE VIEW v AS SELECT 1");
  auto withView = RunStore::open(path);
  REQUIRE_FALSE(withView.ok());
  CHECK_THAT(withView.error().message(), Catch::Contains("holds a view 'v'"));
  sqliteExec(path, "DROP VIEW v");
  CHECK(RunStore::open(path).ok());
}

TEST_CASE("a statement that runs past the store's deadline is stopped and named, not waited on") {
  TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  REQUIRE(RunStore::open(path).ok());
  // No index on pef_path and 300k runs: every lookup scans them all.
  sqliteExec(path,
             "DROP INDEX runs_pef_path; WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300000) "
             "INSERT INTO runs(pef_path, status) SELECT 'p' || i, 'finished' FROM n");
  auto patient = RunStore::open(path);
  REQUIRE(patient.ok());
  CHECK(patient->latestRunForPef("p7")->has_value());
  const auto start = std::chrono::steady_clock::now();
  auto hasty = RunStore::open(path, std::chrono::milliseconds(1));
  REQUIRE_FALSE(hasty.ok());
  CHECK(hasty.error().kind() == dfc::ErrorKind::BadInput);
  CHECK_THAT(hasty.error().message(), Catch::StartsWith(path) && Catch::Contains("gave up after 1 ms"));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
}

TEST_CASE("SQLite errors say whose fault they are: a damaged file is bad input") {
  TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  REQUIRE(RunStore::open(path).ok());
  // A table of the schema replaced by one with other columns: every query on it fails in the file, not in dfc.
  sqliteExec(path, "DROP TABLE metrics; CREATE TABLE metrics(x)");
  auto store = RunStore::open(path);
  REQUIRE(store.ok());
  auto m = store->metrics(1);
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().kind() == dfc::ErrorKind::BadInput);
  CHECK_THAT(m.error().message(), Catch::StartsWith(path) && Catch::Contains("no such column"));
}

TEST_CASE("The latest measured run skips runs that measured no section and runs that did not finish", "[profile][runstore]") {
  TempDir dir;
  auto store = RunStore::open(dir.file("runs.sqlite"));
  REQUIRE(store.ok());
  const std::string pef = "/tmp/measured.pef";
  CHECK_FALSE(store->latestMeasuredRunForPef(pef)->has_value());  // empty store
  auto run = [&](const std::string& status, int calls) {
    RunRecord r;
    r.pefPath = pef;
    auto id = store->beginRun(r);
    REQUIRE(id.ok());
    std::vector<SectionCallRecord> recorded(static_cast<size_t>(calls));
    for (int i = 0; i < calls; ++i) recorded[static_cast<size_t>(i)].callIndex = i;
    if (calls > 0) REQUIRE(store->addSectionCalls(*id, recorded).ok());
    if (status != "running") REQUIRE(store->finishRun(*id, status, std::nullopt, std::nullopt).ok());
    return *id;
  };
  const int64_t trained = run("finished", 3);
  CHECK(store->latestMeasuredRunForPef(pef)->value().id == trained);
  const int64_t timed = run("finished", 0);  // measure-performance without --op-profile
  run("failed", 2);
  CHECK(store->latestFinishedRunForPef(pef)->value().id == timed);
  CHECK(store->latestMeasuredRunForPef(pef)->value().id == trained);
  const int64_t profiled = run("finished", 1);  // exactly one call is enough
  CHECK(store->latestMeasuredRunForPef(pef)->value().id == profiled);
  CHECK_FALSE(store->latestMeasuredRunForPef("/tmp/other.pef")->has_value());
}
