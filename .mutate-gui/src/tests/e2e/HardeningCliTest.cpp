// Issue 36 through the dfc binary: logs that would write outside their folder
// or block, run stores that are not ours, values a PEF holds used as data only,
// flags that are not finite or not counts. Each input is built here.
#include <catch2/catch.hpp>
#include <sqlite3.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "TestEnv.h"
#include "pef/Pef.h"

using namespace dfc::test;
namespace fs = std::filesystem;

namespace {

std::string contents(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void sql(const std::string& path, const std::string& statements) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  char* message = nullptr;
  const int rc = sqlite3_exec(db, statements.c_str(), nullptr, nullptr, &message);
  INFO((message ? message : ""));
  sqlite3_free(message);
  sqlite3_close(db);
  REQUIRE(rc == SQLITE_OK);
}

// A logreg training PEF compiled into `dir`, recorded in the store `db`.
std::string compileLogreg(const ScratchDir& dir, const std::string& db = "-") {
  auto r = runDfc("compile --model logreg -o0 -b 4 --db " + db + " --output-folder " + dir / "base");
  REQUIRE(r.status == 0);
  return dir / "base/logreg.pef";
}

int errorLines(const std::string& output) {
  int n = 0;
  for (size_t at = output.find("dfc: error:"); at != std::string::npos; at = output.find("dfc: error:", at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("the compile log and --log-dir never write through a link out of their folder", "[e2e][hostile]") {
  ScratchDir dir("log-links");
  const std::string victim = dir.write("victim.txt", "not dfc's\n");
  fs::create_directories(dir / "out");
  fs::create_symlink(victim, dir / "out/logreg_compile.log");
  auto compile = runDfc("compile --model logreg -o0 --db - --output-folder " + dir / "out");
  CHECK(compile.status == 2);
  CHECK_THAT(compile.output, Catch::Contains("logreg_compile.log") && Catch::Contains("symlink out of its folder"));
  CHECK(errorLines(compile.output) == 1);
  CHECK_FALSE(fs::exists(dir / "out/logreg.pef"));
  fs::create_directories(dir / "logs");
  fs::create_symlink(victim, dir / "logs/dfc_warnings.log");
  auto logDir = runDfc("compile --model logreg -o0 --db - --log-dir " + dir / "logs" + " --output-folder " + dir / "o2");
  CHECK(logDir.status == 2);
  CHECK_THAT(logDir.output, Catch::Contains("--log-dir") && Catch::Contains("dfc_warnings.log"));
  CHECK(contents(victim) == "not dfc's\n");
}

TEST_CASE("a FIFO where a log goes is refused at once, not waited on", "[e2e][hostile]") {
  ScratchDir dir("log-fifo");
  fs::create_directories(dir / "out");
  REQUIRE(::mkfifo((dir / "out/logreg_compile.log").c_str(), 0644) == 0);
  auto compile = runDfc("compile --model logreg -o0 --db - --output-folder " + dir / "out");
  CHECK(compile.status == 2);
  CHECK_THAT(compile.output, Catch::Contains("is a FIFO"));
  const std::string pef = compileLogreg(dir);
  fs::create_directories(dir / "logs");
  REQUIRE(::mkfifo((dir / "logs/dfc_warnings.log").c_str(), 0644) == 0);
  auto run = runDfc("run -p " + pef + " --train-limit 8 --test-limit 8 --db - --log-dir " + dir / "logs");
  CHECK(run.status == 2);
  CHECK_THAT(run.output, Catch::Contains("--log-dir") && Catch::Contains("is a FIFO"));
}

TEST_CASE("a store from elsewhere is refused by run, inspect --run and report with exit 2", "[e2e][hostile]") {
  ScratchDir dir("store-foreign");
  const std::string db = dir / "runs.sqlite";
  const std::string pef = compileLogreg(dir, db);
  sql(db, "UPDATE schema_version SET version = -50");
  for (const std::string& args : {"run -p " + pef + " --train-limit 8 --test-limit 8", std::string("inspect --run 1"),
                                  "report " + pef + " -o " + dir / "r.csv"}) {
    INFO(args);
    auto r = runDfc(args + " --db " + db);
    CHECK(r.status == 2);
    CHECK_THAT(r.output, Catch::Contains(db) && Catch::Contains("schema version -50"));
  }
  // A table of ours replaced by someone else's: report says so (it said "no recorded run", exit 0).
  sql(db, "UPDATE schema_version SET version = 2; DROP TABLE section_calls; CREATE TABLE section_calls(x);"
          "INSERT INTO runs(pef_path, status) VALUES ('" + fs::absolute(pef).lexically_normal().string() + "', 'finished')");
  auto report = runDfc("report " + pef + " -o " + dir / "r.csv --db " + db);
  CHECK(report.status == 2);
  CHECK_THAT(report.output, Catch::Contains(db) && Catch::Contains("no such column"));
  CHECK_FALSE(fs::exists(dir / "r.csv"));
}

TEST_CASE("dfc estimate reads the PEF's arch as a preset name and its token count from the graph", "[e2e][hostile]") {
  ScratchDir dir("estimate-meta");
  const std::string base = compileLogreg(dir);
  auto pef = dfc::pef::readPef(base);
  REQUIRE(pef.ok());
  auto edited = [&](const std::string& name, auto edit) {
    dfc::pef::Pef copy = *pef;
    edit(copy.meta);
    REQUIRE(dfc::pef::writePef(copy, dir / name).ok());
    return runDfc("estimate " + dir / name);
  };
  auto path = edited("path.pef", [](dfc::pef::PefMeta& m) { m.arch = "/etc/passwd"; });
  CHECK(path.status == 2);
  CHECK_THAT(path.output, Catch::Contains("the PEF's arch '/etc/passwd' is not a preset"));
  CHECK_THAT(path.output, !Catch::Contains("root:"));
  auto longName = edited("long.pef", [](dfc::pef::PefMeta& m) { m.arch = std::string(300, 'a'); });
  CHECK(longName.status == 2);
  CHECK_THAT(longName.output, Catch::Contains("is not a preset"));
  // An inference PEF takes its chips from its compile arguments: a value out of 1..16 is refused.
  REQUIRE(runDfc("compile --model logreg -o0 -b 4 --inference --db - --output-folder " + dir / "inf").status == 0);
  auto inference = dfc::pef::readPef(dir / "inf/logreg.pef");
  REQUIRE(inference.ok());
  inference->meta.args = {"dfc", "compile", "--inference", "--n-chips", "1000000000"};
  REQUIRE(dfc::pef::writePef(*inference, dir / "chips.pef").ok());
  auto chips = runDfc("estimate " + dir / "chips.pef");
  CHECK(chips.status == 2);
  CHECK_THAT(chips.output, Catch::Contains("--n-chips '1000000000', not a number in 1..16"));
  auto preset = edited("sn40l.pef", [](dfc::pef::PefMeta& m) { m.arch = "sn40l"; });
  CHECK(preset.status == 0);
  CHECK_THAT(preset.output, Catch::Contains("sn40l"));
}

TEST_CASE("numbers that are not finite and counts below one are refused by name", "[e2e][hostile]") {
  ScratchDir dir("numbers");
  for (const char* lr : {"inf", "nan", "-inf", "1e400"}) {
    INFO(lr);
    auto r = runDfc(std::string("compile --model logreg -o0 --db - --lr ") + lr + " --output-folder " + dir / "o");
    CHECK(r.status == 2);
    CHECK_THAT(r.output, Catch::Contains("--lr"));
    CHECK_FALSE(fs::exists(dir / "o/logreg.pef"));
  }
  const std::string pef = compileLogreg(dir);
  for (const char* flag : {"--train-limit 0", "--test-limit -1", "-b 0", "--num-epochs 4294967297"}) {
    INFO(flag);
    auto r = runDfc("run -p " + pef + " --db - " + flag);
    CHECK(r.status == 2);
    CHECK(errorLines(r.output) == 1);
  }
  // A 100 KB value is not echoed back whole.
  auto huge = runDfc("run -p " + pef + " --db - --train-limit " + std::string(100000, '7'));
  CHECK(huge.status == 2);
  CHECK(huge.output.size() < 2000);
}
