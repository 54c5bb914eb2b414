// Place & route of unique hypersections runs in parallel; the bitfiles must
// not depend on how many threads did it.
#include <catch2/catch.hpp>

#include "../mapping/MapFixture.h"
#include "kernelc/Linker.h"
#include "pef/Bitfile.h"

using namespace dfc;

TEST_CASE("bitfiles are byte-identical placed and routed on 1 and on 2 threads") {
  ir::Graph g = test::trainingGraph("gpt2-mini", 4);
  const arch::ArchSpec a = test::preset("sn10");
  auto plan = test::mapGraph(g, a, 1.0, partition::OptLevel::O1);
  REQUIRE(plan.ok());
  REQUIRE(plan->hypersections.size() > 4);  // enough unique graphs to share out
  kernelc::LinkOptions one, two;
  one.threads = 1;
  two.threads = 2;
  auto serial = kernelc::linkPlan(g, *plan, arch::CostModel(a), {}, one);
  auto parallel = kernelc::linkPlan(g, *plan, arch::CostModel(a), {}, two);
  REQUIRE(serial.ok());
  REQUIRE(parallel.ok());
  CHECK(serial->placedGraphs == parallel->placedGraphs);
  CHECK(serial->routedHops == parallel->routedHops);
  CHECK(pef::encodeBitfiles(serial->bitfiles) == pef::encodeBitfiles(parallel->bitfiles));
}
