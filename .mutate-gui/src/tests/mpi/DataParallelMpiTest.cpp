// Data parallel for real: dfc under mpirun with two ranks on this machine.
// Left out of sanitizer builds (Open MPI's own allocations are not ours to
// chase) and where CMake found no MPI; each mpirun runs under a timeout.
#include <catch2/catch.hpp>
#include <set>

#include "MpiTestSupport.h"
#include "driver/compile/Compiler.h"
#include "e2e/CompileForTest.h"
#include "profile/ChromeTrace.h"
#include "profile/RunStore.h"
#include "profile/TraceValidator.h"

using namespace dfc;

using test::compilePef;

namespace {

const std::string kLenetData = std::string(" --data-folder ") + test::kFashionMnist;

}  // namespace

TEST_CASE("lenet on 2 ranks x batch 16 follows 1 rank x batch 32 for 20 steps, and the ranks end with one set of weights",
          "[mpi]") {
  test::ScratchDir dir("dp-lenet");
  const std::string single = compilePef(dir, "lenet", 32, 0, "single");
  const std::string parallel = compilePef(dir, "lenet", 16, 2, "parallel");
  const std::string common = " --threads 1 --train-limit 640 --test-limit 64 --log-every 1" + kLenetData;

  auto one = test::runShell(test::dfcPath() + " run --pef " + single + common + " --db -");
  REQUIRE(one.status == 0);
  const std::string db = dir / "runs.sqlite";
  const std::string trace = dir / "merged.json";
  auto two = test::runShell(test::mpirunPrefix(2) + test::dfcPath() + " run --data-parallel --pef " + parallel + common +
                            " --db " + db + " --trace " + trace);
  INFO(two.output);
  REQUIRE(two.status == 0);

  const auto reference = test::lossesIn(one.output), losses = test::lossesIn(two.output);
  REQUIRE(reference.size() == 20);
  REQUIRE(losses.size() == 20);  // rank 0 alone prints
  for (size_t i = 0; i < losses.size(); ++i) {
    INFO("step " << i + 1);
    CHECK(losses[i] == Approx(reference[i]).epsilon(1e-3));  // the sums differ only in reduction order
  }
  CHECK(two.output.find("weights identical on every rank: yes") != std::string::npos);

  SECTION("the merged trace is valid and has one process per rank with allreduce slices") {
    const std::string json = test::readText(trace);
    REQUIRE(profile::validateChromeTraceJson(json));
    auto parsed = profile::parseChromeTrace(json, trace);
    REQUIRE(parsed);
    std::set<int64_t> allreducePids;
    for (const auto& e : parsed->events)
      if (e.cat == "mpi") {
        allreducePids.insert(e.pid);
        bool hasBytes = false;
        for (const auto& [key, value] : e.args) hasBytes = hasBytes || (key == "bytes" && std::get<double>(value) > 0);
        CHECK(hasBytes);
      }
    CHECK(allreducePids == std::set<int64_t>{1, 2});
    REQUIRE(parsed->processNames.count(1));
    REQUIRE(parsed->processNames.count(2));
    CHECK(parsed->processNames.at(1).rfind("rank 0 (host)", 0) == 0);
    CHECK(parsed->processNames.at(2).rfind("rank 1 (host)", 0) == 0);
  }
  SECTION("the store has one run with the world size and each rank's throughput") {
    auto store = profile::RunStore::open(db);
    REQUIRE(store);
    auto runs = store->listRuns();
    REQUIRE(runs);
    REQUIRE(runs->size() == 1);
    auto metrics = store->metrics(runs->front().id);
    REQUIRE(metrics);
    std::set<std::string> names;
    for (const auto& m : *metrics) {
      names.insert(m.name);
      if (m.name == "world_size") CHECK(m.value == 2);
    }
    for (const char* name : {"world_size", "samples_per_s_rank0", "samples_per_s_rank1", "allreduce_ms", "allreduce_bytes"})
      CHECK(names.count(name) == 1);
  }
}

TEST_CASE("gpt2-mini trains on 2 ranks with several gradient buckets and its loss falls", "[mpi]") {
  test::ScratchDir dir("dp-gpt2");
  const std::string pef = compilePef(dir, "gpt2-mini", 4, 2, "gpt2", 64);
  auto inspect = test::runDfc("inspect " + pef);
  REQUIRE(inspect.status == 0);
  size_t reduceSections = 0;
  for (size_t at = inspect.output.find(" reduce "); at != std::string::npos; at = inspect.output.find(" reduce ", at + 1))
    ++reduceSections;
  CHECK(reduceSections >= 2);  // 64 KiB buckets over ~470 KB of gradients

  auto run = test::runShell(test::mpirunPrefix(2) + test::dfcPath() + " run --data-parallel --pef " + pef +
                            " --threads 1 --train-limit 320 --test-limit 32 --log-every 1 --db -");
  INFO(run.output);
  REQUIRE(run.status == 0);
  const auto losses = test::lossesIn(run.output);
  REQUIRE(losses.size() == 40);
  const double first = (losses[0] + losses[1] + losses[2]) / 3, last = (losses[37] + losses[38] + losses[39]) / 3;
  CHECK(last < first - 0.5);
  CHECK(run.output.find("weights identical on every rank: yes") != std::string::npos);
}

TEST_CASE("when one rank is killed the other exits non-zero within 30 seconds", "[mpi]") {
  test::ScratchDir dir("dp-kill");
  const std::string pef = compilePef(dir, "lenet", 16, 2, "kill");
  const std::string tag = "DFC_KILL_TEST=" + std::to_string(::getpid());
  const std::string out = dir / "out.txt", rc = dir / "rc.txt";
  // Long enough that it is still training when rank 1 dies; the shell writes mpirun's status when it ends.
  const std::string cmd = "(" + tag + " timeout -k 5 300 " + test::mpirunPrefix(2, "-x DFC_KILL_TEST") +
                          test::dfcPath() + " run --data-parallel --pef " + pef + " --threads 1 -e 50 --log-every 1 --db - " +
                          kLenetData + " > " + out + " 2>&1; echo $? > " + rc + ") &";
  REQUIRE(std::system(cmd.c_str()) == 0);
  // Both ranks training: rank 0 prints loss lines only after a step, which needs rank 1's gradients.
  REQUIRE(test::waitFor([&] { return test::lossesIn(test::readText(out)).size() >= 3; }, std::chrono::seconds(120)));
  std::vector<pid_t> rank1;
  for (pid_t p : test::processesWithEnv(tag))
    if (test::readText("/proc/" + std::to_string(p) + "/environ").find("OMPI_COMM_WORLD_RANK=1") != std::string::npos &&
        test::readText("/proc/" + std::to_string(p) + "/cmdline").find("dfc") != std::string::npos)
      rank1.push_back(p);
  REQUIRE(rank1.size() == 1);
  const auto killedAt = std::chrono::steady_clock::now();
  REQUIRE(::kill(rank1.front(), SIGKILL) == 0);
  REQUIRE(test::waitFor([&] { return !test::readText(rc).empty(); }, std::chrono::seconds(60)));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - killedAt).count();
  INFO(test::readText(out));
  CHECK(seconds < 30);
  CHECK(std::stoi(test::readText(rc)) != 0);
  CHECK(test::processesWithEnv(tag).empty());  // rank 0 is gone too, not hanging
}

TEST_CASE("a PEF and --data-parallel must agree, naming the flag", "[mpi]") {
  test::ScratchDir dir("dp-flags");
  const std::string plain = compilePef(dir, "logreg", 8, 0, "plain");
  const std::string parallel = compilePef(dir, "logreg", 8, 2, "parallel");
  auto refused = test::runDfc("run --data-parallel --pef " + plain + " --db -");
  CHECK(refused.status == 2);
  CHECK(refused.output.find("compiled without --data-parallel") != std::string::npos);
  auto missing = test::runDfc("run --pef " + parallel + " --db -");
  CHECK(missing.status == 2);
  CHECK(missing.output.find("run it with --data-parallel") != std::string::npos);
  // Without mpirun: a world of one, said so, and it trains.
  auto solo = test::runDfc("run --data-parallel --pef " + parallel + " --threads 1 --train-limit 64 --test-limit 16 --db -" + kLenetData);
  INFO(solo.output);
  CHECK(solo.status == 0);
  CHECK(solo.output.find("world size 1") != std::string::npos);
}
