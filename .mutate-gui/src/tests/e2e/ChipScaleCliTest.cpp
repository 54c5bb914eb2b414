// Issue 37 through dfc: a chip-only compile of any size needs no --max-memory
// (its weights are init recipes), while running the same PEF on this host is
// refused with the figures; and a compile that cannot route says so quickly,
// naming the congested sections.
#include <catch2/catch.hpp>

#include <chrono>

#include "TestEnv.h"

using namespace dfc::test;

namespace {

const std::string kLlama8b =
    "--model llama --num-layers 32 --hidden-size 4096 --num-heads 32 --num-kv-heads 8 --intermediate-size 14336 "
    "--vocab-size 128256";

}  // namespace

TEST_CASE("a 30 GiB recipe-weight model compiles under --max-memory 1G, and running it is refused", "[e2e]") {
  ScratchDir dir("recipes");
  auto compile = runDfc("compile " + kLlama8b +
                        " --inference --decode --kv-cache-len 2048 -b 1 --arch sn40l --n-chips 16 -o3 --enable-hypersection "
                        "--db - --max-memory 1G "
                        "--pef-name llama8b --output-folder " + dir / "out");
  INFO(compile.output);
  REQUIRE(compile.status == 0);
  auto run = runDfc("run -p " + dir / "out/llama8b.pef" + " --decode --prompt hi --db - --max-memory 1G");
  INFO(run.output);
  CHECK(run.status == 2);
  CHECK_THAT(run.output, Catch::Contains("llama8b.pef") && Catch::Contains("more than the memory budget of 1.0 GiB"));
}

TEST_CASE("a compile that cannot route fails fast, naming the sections and what to try", "[e2e]") {
  // One route per link on sn10: gpt2-mini's -o1 sections cannot all route.
  ScratchDir dir("unroutable");
  const std::string arch = dir.write("narrow.yaml",
                                     "name: narrow\ntiles: 4\npcus_per_tile: 160\npmus_per_tile: 160\npmu_bytes: 524288\n"
                                     "pcu_lanes: 16\npcu_stages: 6\nclock_ghz: 1.25\npeak_tflops: 300\nddr_gbps: 150\n"
                                     "pcie_gbps: 32\nnetwork_link_tracks: 1\n");
  const auto start = std::chrono::steady_clock::now();
  auto r = runDfc("compile --model gpt2-mini -o1 --db - --arch " + arch + " --output-folder " + dir / "out");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(r.output);
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::Contains("links over capacity (1 routes per link)") && Catch::Contains(" in section s") &&
                           Catch::Contains("more chips") && Catch::Contains("--allow-overuse"));
  CHECK(seconds < 60);  // a hang here once took the router's 1000 passes times its retries
  CHECK_FALSE(std::filesystem::exists(dir / "out/gpt2-mini.pef"));
}
