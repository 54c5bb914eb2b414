// dfc run --deterministic: the same training run on 1, 2 and 3 threads gives
// the same losses and accuracy bit for bit (GEMMs cut as for a fixed number
// of threads whatever the pool's size), and the run says so; the flag reaches
// the run from the command line. (Without it this run happens to agree too on
// the machines tried: the engine-level test, e2e/ExecutorThreadsTest, has the
// case where it does not.)
#include <catch2/catch.hpp>
#include <cstring>

#include "driver/compile/Compiler.h"
#include "driver/run/Runner.h"
#include "e2e/TestEnv.h"
#include "runtime/Executor.h"

using namespace dfc;

namespace {

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

TEST_CASE("dfc run --deterministic: gpt2-mini trains to the same bits on 1, 2 and 3 threads", "[driver][threads]") {
  test::ScratchDir dir("deterministic-run");
  driver::CompileOptions c;
  c.model = "gpt2-mini";
  c.batchSize = 16;
  c.modelParams = {{"hidden_size", 128}, {"seq_len", 64}};  // GEMMs large enough to split over the pool
  c.outputFolder = dir / "out";
  c.dbPath = "-";
  auto compiled = driver::compile(c);
  if (!compiled) FAIL(compiled.error().message());
  auto runOn = [&](int threads) {
    driver::RunOptions r;
    r.pefPath = compiled->pefPath;
    r.dbPath = "-";
    r.trainLimit = 96;
    r.testLimit = 32;
    r.threads = threads;
    r.deterministic = true;
    r.tracePath = dir / ("trace" + std::to_string(threads) + ".json");
    auto ran = driver::run(r);
    if (!ran) FAIL(ran.error().message());
    return *ran;
  };
  const driver::RunResult one = runOn(1), two = runOn(2), three = runOn(3);
  REQUIRE(one.steps >= 4);
  CHECK(one.threads == 1);
  CHECK(three.threads == 3);
  CHECK(one.splitWidth == runtime::kDeterministicSplitWidth);
  REQUIRE(one.finalLoss.has_value());
  for (const driver::RunResult* other : {&two, &three}) {
    REQUIRE(other->finalLoss.has_value());
    CHECK(sameBits(*one.firstLoss, *other->firstLoss));
    CHECK(sameBits(*one.finalLoss, *other->finalLoss));
    CHECK(sameBits(one.testAccuracy, other->testAccuracy));
  }
  auto cli = test::runDfc("run --pef " + compiled->pefPath + " --db - --train-limit 32 --test-limit 16 --threads 2 "
                          "--deterministic --trace " + std::string(dir / "cli.json"));
  INFO(cli.output);
  CHECK(cli.status == 0);
  CHECK_THAT(cli.output, Catch::Contains("on 2 threads (deterministic: work cut as for 4 threads)"));
}
