// What `dfc run` and `dfc report` owe a user around hostile targets and a
// troubled run store (issue 9 must-holds): a trace target that is a device,
// FIFO or directory is refused and left as it was; a run killed with -9 is
// reported as not finished and its partial calls are not used; a store held
// by another writer never stops a run.
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "TestEnv.h"
#include "common/FileIdentity.h"
#include "driver/compile/Compiler.h"
#include "driver/run/Runner.h"
#include "profile/RunStore.h"

using namespace dfc;
using test::runDfc;

namespace {

std::string compileLogreg(const test::ScratchDir& dir, const std::string& db) {
  driver::CompileOptions c;
  c.model = "logreg";
  c.level = partition::OptLevel::O0;
  c.batchSize = 16;
  c.outputFolder = dir / "out";
  c.dbPath = db;
  auto compiled = driver::compile(c);
  REQUIRE(compiled);
  return compiled->pefPath;
}


// Starts `dfc run` in the background and returns its pid once the run store lists it.
pid_t startRun(const std::string& pef, const std::string& db) {
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    std::string dfc = std::string(DFC_BINARY_DIR) + "/app/dfc/dfc";
    ::freopen("/dev/null", "w", stdout);
    ::execl(dfc.c_str(), dfc.c_str(), "run", "-p", pef.c_str(), "-e", "200", "--db", db.c_str(), nullptr);
    ::_exit(127);
  }
  for (int i = 0; i < 200; ++i) {  // up to 20 s on a loaded machine
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto store = profile::RunStore::open(db);
    if (!store) continue;
    auto runs = store->listRuns();
    if (runs && !runs->empty() && runs->front().status == "running") break;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // some section calls flushed or pending
  return child;
}

void kill9(pid_t child) {
  REQUIRE(::kill(child, SIGKILL) == 0);
  int status = 0;
  ::waitpid(child, &status, 0);
  REQUIRE(WIFSIGNALED(status));
}

}  // namespace

TEST_CASE("dfc run --trace refuses a device, a FIFO or a directory and leaves it as it was", "[e2e][hostile]") {
  test::ScratchDir dir("trace-target");
  std::string pef = compileLogreg(dir, "-");
  std::vector<std::string> targets{dir / "fifo", dir / "folder"};
  REQUIRE(::mkfifo(targets[0].c_str(), 0600) == 0);
  std::filesystem::create_directories(targets[1]);
  if (::geteuid() == 0) {  // a copy of /dev/null, which `--trace /dev/null` used to replace by a regular file
    targets.push_back(dir / "null");
    REQUIRE(::mknod(targets.back().c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0);
  }
  for (const std::string& target : targets) {
    test::FileIdentity before = test::fileIdentity(target);
    auto r = runDfc("run -p " + pef + " --train-limit 32 --test-limit 32 --db - --trace " + target);
    INFO(r.output);
    CHECK(r.status == 2);
    CHECK(r.output.find("dfc: error: --trace " + target + ": is a") != std::string::npos);
    CHECK(r.output.find("Epoch") == std::string::npos);  // refused before any training
    CHECK(test::fileIdentity(target) == before);
  }
}

TEST_CASE("after kill -9 of a run, dfc report says it did not finish and uses the latest finished run", "[e2e][hostile]") {
  test::ScratchDir dir("killed");
  const std::string db = dir / "runs.sqlite";
  std::string pef = compileLogreg(dir, db);

  kill9(startRun(pef, db));
  auto r = runDfc("report " + pef + " --db " + db + " -o " + (dir / "first.csv"));
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(r.output.find("did not finish (died)") != std::string::npos);
  CHECK(r.output.find("no finished run of this PEF measured its sections") != std::string::npos);
  CHECK(r.output.find("no measured times)") != std::string::npos);

  auto done = runDfc("run -p " + pef + " --train-limit 64 --test-limit 32 --db " + db);
  REQUIRE(done.status == 0);
  kill9(startRun(pef, db));
  r = runDfc("report " + pef + " --db " + db + " -o " + (dir / "second.csv"));
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(r.output.find("the latest run (#3") != std::string::npos);
  CHECK(r.output.find("did not finish (died); using run #2, the latest that measured its sections") != std::string::npos);
  CHECK(r.output.find("measured times from run #2") != std::string::npos);
}

TEST_CASE("a run store locked by another writer never stops a run", "[e2e][hostile]") {
  test::ScratchDir dir("locked");
  const std::string db = dir / "runs.sqlite";
  std::string pef = compileLogreg(dir, db);
  sqlite3* other = nullptr;
  REQUIRE(sqlite3_open(db.c_str(), &other) == SQLITE_OK);
  REQUIRE(sqlite3_exec(other, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr) == SQLITE_OK);  // held throughout
  driver::RunOptions o;
  o.pefPath = pef;
  o.dbPath = db;
  o.trainLimit = 64;
  o.testLimit = 32;
  auto result = driver::run(o);  // waits out SQLite's busy timeout once, then trains without a record
  sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(other);
  REQUIRE(result);
  CHECK(result->steps == 4);
  CHECK(std::filesystem::exists(result->tracePath));
  CHECK(result->storeNote.rfind("the run's record was not saved in the run store: ", 0) == 0);
  CHECK(result->storeNote.find("locked") != std::string::npos);
}
