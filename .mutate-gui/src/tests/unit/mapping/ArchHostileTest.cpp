// Hostile arch files (issue 9): every figure a finite number in a range that
// keeps the cost model's and placer's arithmetic far from overflow; a name
// that is a list or map is refused instead of throwing out of yaml-cpp.
#include <catch2/catch.hpp>

#include "arch/ArchSpec.h"

using namespace dfc;

namespace {

const std::string kBase =
    "tiles: 2\npcus_per_tile: 12\npmus_per_tile: 12\npmu_bytes: 1024\npcu_lanes: 8\n"
    "pcu_stages: 4\nclock_ghz: 1\npeak_tflops: 1\nddr_gbps: 10\npcie_gbps: 8\n";

// kBase with `key: value` in place of (or added to) its line.
std::string archError(const std::string& key, const std::string& value) {
  std::string text;
  bool replaced = false;
  size_t pos = 0;
  while (pos < kBase.size()) {
    size_t end = kBase.find('\n', pos);
    std::string line = kBase.substr(pos, end - pos);
    if (line.rfind(key + ":", 0) == 0) {
      line = key + ": " + value;
      replaced = true;
    }
    text += line + "\n";
    pos = end + 1;
  }
  if (!replaced) text += key + ": " + value + "\n";
  auto a = arch::parseArchYaml(text, "evil.yaml");
  return a ? std::string("<ok>") : a.error().message();
}

}  // namespace

TEST_CASE("arch figures must be finite numbers in range", "[arch][hostile]") {
  CHECK(archError("tiles", "2") == "<ok>");
  // near INT_MAX: a SIGFPE in the cost model before
  CHECK(archError("pcu_stages", "2147483647") == "evil.yaml: key 'pcu_stages' is 2147483647; it must be an integer in 1..1024");
  CHECK(archError("pcu_stages", "2147483648") == "evil.yaml: key 'pcu_stages' is 2147483648; it must be an integer in 1..1024");
  CHECK(archError("tiles", "2.5") == "evil.yaml: key 'tiles' is 2.5; it must be an integer in 1..1024");
  // "latency nan us" with exit 0 before
  CHECK(archError("clock_ghz", ".nan") == "evil.yaml: key 'clock_ghz' is .nan; it must be in 0.001..100");
  CHECK(archError("ddr_gbps", ".inf") == "evil.yaml: key 'ddr_gbps' is .inf; it must be in 0.001..1e+06");
  CHECK(archError("pcie_gbps", "1e400") == "evil.yaml: key 'pcie_gbps' is not a number");
  CHECK(archError("network_hop_ns", "-3") == "evil.yaml: key 'network_hop_ns' is -3; it must be in 0..1e+06");
  CHECK(archError("peak_tflops", "-5") == "evil.yaml: key 'peak_tflops' is -5; it must be in 1e-06..1e+06");
  CHECK(archError("tiles", "lots") == "evil.yaml: key 'tiles' is not a number");
  CHECK(archError("tiles", "[1, 2]") == "evil.yaml: key 'tiles' is not a number");
  // a sustained share of the HBM pin rate: 0 would make every HBM read infinite, 2 faster than the pins
  CHECK(archError("hbm_efficiency", "0") == "evil.yaml: key 'hbm_efficiency' is 0; it must be in 0.01..1");
  CHECK(archError("hbm_efficiency", "1.5") == "evil.yaml: key 'hbm_efficiency' is 1.5; it must be in 0.01..1");
  CHECK(archError("hbm_efficiency", "0.9") == "<ok>");
}

TEST_CASE("an arch name that is a list or map is refused, not thrown", "[arch][hostile]") {
  CHECK(archError("name", "[a, b]") == "evil.yaml: key 'name' must be a plain string");
  CHECK(archError("name", "{a: 1}") == "evil.yaml: key 'name' must be a plain string");
  CHECK(archError("name", "chip") == "<ok>");
}

TEST_CASE("a grid far larger than the tile's units is refused", "[arch][hostile]") {
  // 100000x100000 overflowed int and hung the placer before.
  CHECK(archError("grid_rows", "100000\ngrid_cols: 100000") ==
        "evil.yaml: key 'grid_rows' is 100000; it must be an integer in 0..4096");
  CHECK(archError("grid_rows", "4096\ngrid_cols: 4096") ==
        "evil.yaml: a 4096x4096 grid has 16777216 cells for 24 units; at most 4 per unit");
  CHECK(archError("grid_rows", "5\ngrid_cols: 6") == "<ok>");
}

TEST_CASE("memory tiers and the chip link: 0 means absent, anything else finite and in range", "[arch][hostile]") {
  // The keys the memory-tier model added (hbm_bytes, ddr_bytes, chip_link_*): NaN, negative and huge refused.
  CHECK(archError("hbm_gbps", "100\nhbm_bytes: .nan") ==
        "evil.yaml: key 'hbm_bytes' is .nan; it must be 0 or in 1..1e+15");
  CHECK(archError("ddr_bytes", "-1") == "evil.yaml: key 'ddr_bytes' is -1; it must be 0 or in 1..1e+15");
  CHECK(archError("ddr_bytes", "1e300") == "evil.yaml: key 'ddr_bytes' is 1e300; it must be 0 or in 1..1e+15");
  CHECK(archError("chip_link_gbps", "-64") == "evil.yaml: key 'chip_link_gbps' is -64; it must be 0 or in 0.001..1e+06");
  CHECK(archError("chip_link_gbps", ".nan") == "evil.yaml: key 'chip_link_gbps' is .nan; it must be 0 or in 0.001..1e+06");
  CHECK(archError("chip_link_latency_us", "-1") ==
        "evil.yaml: key 'chip_link_latency_us' is -1; it must be in 0..1e+06");
  // A bandwidth that is not 0 (absent) but next to it made every time that crosses it infinite.
  CHECK(archError("chip_link_gbps", "1e-300") ==
        "evil.yaml: key 'chip_link_gbps' is 1e-300; it must be 0 or in 0.001..1e+06");
  CHECK(archError("hbm_gbps", "1e-300") == "evil.yaml: key 'hbm_gbps' is 1e-300; it must be 0 or in 0.001..1e+06");
  CHECK(archError("network_link_gbps", "1e-300") ==
        "evil.yaml: key 'network_link_gbps' is 1e-300; it must be 0 or in 0.001..1e+06");
  CHECK(archError("hbm_gbps", "100\nhbm_bytes: 0.5") ==
        "evil.yaml: key 'hbm_bytes' is 0.5; it must be 0 or in 1..1e+15");
  for (const char* absent : {"chip_link_gbps", "hbm_gbps", "network_link_gbps", "hbm_bytes", "ddr_bytes"})
    CHECK(archError(absent, "0") == "<ok>");
  CHECK(archError("hbm_gbps", "1600\nhbm_bytes: 64e9\nddr_bytes: 1e15\nchip_link_gbps: 64") == "<ok>");
}

TEST_CASE("an arch key no figure reads, or one given twice, is refused by name", "[arch][hostile]") {
  // Issue 36: "pcu_lane: 64" (a typo) left the default in place silently.
  auto typo = arch::parseArchYaml(kBase + "pcu_lane: 64\n", "typo.yaml");
  REQUIRE_FALSE(typo.ok());
  CHECK_THAT(typo.error().message(), Catch::StartsWith("typo.yaml:11: unknown key 'pcu_lane' (known: name, tiles,"));
  auto twice = arch::parseArchYaml(kBase + "tiles: 4\n", "twice.yaml");
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.error().message() == "twice.yaml:11: key 'tiles' is given twice");
  CHECK(arch::parseArchYaml(kBase + "name: mine\n", "ok.yaml").ok());
  // A preset name from a file is never opened as a path.
  auto path = arch::loadArchPreset("/etc/hostname", "the PEF's arch");
  REQUIRE_FALSE(path.ok());
  CHECK_THAT(path.error().message(), Catch::StartsWith("the PEF's arch '/etc/hostname' is not a preset"));
  CHECK(arch::loadArchPreset("sn40l", "the PEF's arch").ok());
  CHECK(arch::loadArchPreset("", "the PEF's arch").ok());  // "native"
  auto longName = arch::loadArch(std::string(300, 'a'));  // threw out of filesystem::exists (ENAMETOOLONG)
  REQUIRE_FALSE(longName.ok());
  CHECK_THAT(longName.error().message(), Catch::Contains("not a preset"));
}
