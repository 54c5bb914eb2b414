// dfc run --allreduce and --ranks-per-host: bad values are refused with exit
// status 2 before any work (no trace written); without mpirun a data-parallel
// run with any algorithm is a world of one and trains.
#include <catch2/catch.hpp>

#include <filesystem>

#include "CompileForTest.h"

using namespace dfc;

TEST_CASE("dfc run refuses a bad --allreduce or --ranks-per-host naming the flag and the valid names") {
  test::ScratchDir dir("allreduce-flags");
  const std::string pef = " --pef " + test::compilePef(dir, "logreg", 8, 2, "dp") + " --db - --trace " + (dir / "t.json");

  auto r = test::runDfc("run --data-parallel --allreduce butterfly" + pef);
  CHECK(r.status == 2);
  CHECK(r.output.find("--allreduce butterfly: expected one of mpi, ring, tree, 2d-ring") != std::string::npos);
  r = test::runDfc("run --allreduce ring" + pef);
  CHECK(r.status == 2);
  CHECK(r.output.find("it needs --data-parallel") != std::string::npos);
  r = test::runDfc("run --data-parallel --allreduce tree --ranks-per-host 2" + pef);
  CHECK(r.status == 2);
  CHECK(r.output.find("--ranks-per-host arranges the ranks for --allreduce 2d-ring only") != std::string::npos);
  r = test::runDfc("run --data-parallel --allreduce 2d-ring --ranks-per-host 0" + pef);
  CHECK(r.status == 2);
  CHECK(r.output.find("--ranks-per-host 0") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "t.json"));

  r = test::runDfc("run --data-parallel --allreduce 2d-ring --threads 1 --train-limit 64 --test-limit 16" + pef +
                   " --data-folder " + test::kFashionMnist);
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(r.output.find("world size 1") != std::string::npos);
}
