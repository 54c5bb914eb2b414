// The allreduce algorithms under mpirun: against MPI_Allreduce for 2, 3 and
// 4 ranks (oversubscribed on this machine's cores), and one training run with
// --allreduce whose trace nests each call's phases under its allreduce slice.
#include <catch2/catch.hpp>

#include <set>

#include "MpiTestSupport.h"
#include "e2e/CompileForTest.h"
#include "profile/ChromeTrace.h"
#include "profile/TraceValidator.h"

using namespace dfc;

namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("ring and tree and 2d-ring give MPI_Allreduce's averages on 2 3 and 4 ranks", "[mpi]") {
  for (int ranks : {2, 3, 4}) {
    // 2d-ring three ways: one host (MPI's view of this machine), one rank per host, and 2 x 2 at 4 ranks.
    std::string specs = " ring tree 2d-ring 2d-ring:1";
    if (ranks == 4) specs += " 2d-ring:2";
    auto run = test::runShell(test::mpirunPrefix(ranks) + DFC_ALLREDUCE_CHECK + specs, 120);
    INFO(ranks << " ranks:\n" << run.output);
    CHECK(run.status == 0);
    CHECK(run.output.find("ALL OK") != std::string::npos);
    const size_t cases = (ranks == 4 ? 5 : 4) * 4 * 2;  // specs x sizes x (integers, random)
    CHECK(count(run.output, "\nok ") + (run.output.rfind("ok ", 0) == 0 ? 1 : 0) == cases);
    CHECK(count(run.output, "MISMATCH") == 0);
  }
}

TEST_CASE("lenet on 2 ranks with --allreduce tree trains like MPI_Allreduce and traces the tree's phases", "[mpi]") {
  test::ScratchDir dir("dp-allreduce");
  const std::string pef = test::compilePef(dir, "lenet", 16, 2, "tree");
  const std::string common = " run --data-parallel --pef " + pef +
                             " --threads 1 --train-limit 320 --test-limit 32 --log-every 1 --db - --data-folder " +
                             test::kFashionMnist;
  auto mpi = test::runShell(test::mpirunPrefix(2) + test::dfcPath() + common + " --trace " + (dir / "mpi.json"));
  REQUIRE(mpi.status == 0);
  const std::string trace = dir / "tree.json";
  auto tree = test::runShell(test::mpirunPrefix(2) + test::dfcPath() + common + " --allreduce tree --trace " + trace);
  INFO(tree.output);
  REQUIRE(tree.status == 0);
  const auto reference = test::lossesIn(mpi.output), losses = test::lossesIn(tree.output);
  REQUIRE(losses.size() == 10);
  REQUIRE(reference.size() == losses.size());
  for (size_t i = 0; i < losses.size(); ++i) CHECK(losses[i] == Approx(reference[i]).epsilon(1e-3));
  CHECK(tree.output.find("weights identical on every rank: yes") != std::string::npos);
  CHECK(tree.output.find("  allreduce tree, section ") != std::string::npos);  // a bucket's measured and estimated time

  const std::string json = test::readText(trace);
  REQUIRE(profile::validateChromeTraceJson(json));
  auto parsed = profile::parseChromeTrace(json, trace);
  REQUIRE(parsed);
  // Each phase lies inside an allreduce slice of its own rank's row.
  std::vector<const profile::TraceEvent*> calls;
  for (const auto& e : parsed->events)
    if (e.cat == "mpi") calls.push_back(&e);
  REQUIRE(!calls.empty());
  std::set<std::pair<int64_t, std::string>> phases;
  for (const auto& e : parsed->events) {
    if (e.cat != "allreduce-phase") continue;
    phases.insert({e.pid, e.name});
    bool nested = false;
    for (const auto* call : calls)
      nested = nested || (call->pid == e.pid && call->tid == e.tid && call->ts <= e.ts + 1e-3 &&
                          e.ts + e.dur <= call->ts + call->dur + 1e-3);  // JSON rounding
    CHECK(nested);
  }
  CHECK(phases == std::set<std::pair<int64_t, std::string>>{{1, "reduce"}, {1, "broadcast"}, {2, "reduce"}, {2, "broadcast"}});
}
