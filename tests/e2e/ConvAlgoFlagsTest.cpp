// dfc run --conv-algo and dfc inspect --conv-algo: a bad value is refused with
// exit status 2 naming the flag and the choices, before any work; a good one
// runs (lenet's 5x5 convolutions stay on GEMM whatever is asked).
#include <catch2/catch.hpp>

#include <filesystem>

#include "CompileForTest.h"

using namespace dfc;

TEST_CASE("dfc run and inspect refuse a bad --conv-algo naming the flag and the choices", "[e2e][cli][winograd]") {
  test::ScratchDir dir("conv-algo-flags");
  const std::string trace = dir / "t.json";
  const std::string pef = test::compilePef(dir, "lenet", 8, 0, "lenet");
  auto r = test::runDfc("run --pef " + pef + " --db - --trace " + trace + " --conv-algo fft");
  CHECK(r.status == 2);
  CHECK(r.output.find("--conv-algo 'fft': expected auto, gemm, winograd2, winograd4 or onednn") != std::string::npos);
  CHECK(!std::filesystem::exists(trace));
  r = test::runDfc("inspect " + pef + " --conv-algo winograd8");
  CHECK(r.status == 2);
  CHECK(r.output.find("--conv-algo 'winograd8'") != std::string::npos);

  r = test::runDfc("inspect " + pef + " --conv-algo winograd4");
  REQUIRE(r.status == 0);
  CHECK(r.output.find("convolutions on the host (--conv-algo winograd4): 5 gemm") != std::string::npos);
  CHECK(r.output.find("kernel not 3x3") != std::string::npos);
  r = test::runDfc("run --pef " + pef + " --db - --trace " + trace + " --conv-algo winograd2 --train-limit 16 --test-limit 8 --threads 1");
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(std::filesystem::exists(trace));
}
