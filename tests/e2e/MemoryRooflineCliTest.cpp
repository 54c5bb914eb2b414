// Issue 35: `dfc inspect --memory` prints the peaks memoryTimeline computes
// from the PEF, and `dfc inspect --roofline --csv` gives each section the
// TFLOP and off-chip bytes its compile report records; with --run, the host
// points are the FLOP over the run's mean stored time per call.

#include <catch2/catch.hpp>
#include <sstream>

#include "RooflineFixtures.h"
#include "TestEnv.h"
#include "analysis/MemoryTimeline.h"
#include "pef/Pef.h"
#include "profile/RunStore.h"

using namespace dfc;

namespace {

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string f; std::getline(in, f, sep);) out.push_back(f);
  return out;
}

}  // namespace

TEST_CASE("dfc inspect --memory prints the peak per tier that the timeline of the PEF has", "[e2e][memory][cli]") {
  test::ScratchDir dir("memory-cli");
  const std::string path = test::compileLenetO1(dir);
  auto pef = pef::readPef(path, pef::PefUse::View);
  REQUIRE(pef.ok());
  auto arch = arch::loadArch("sn30");
  REQUIRE(arch.ok());
  const analysis::MemoryTimeline m = analysis::memoryTimeline(pef->graph, pef->plan, *arch);
  auto r = test::runDfc("inspect --memory " + path);
  REQUIRE(r.status == 0);
  CHECK(r.output == analysis::formatMemory(m, pef->graph, pef->plan));
  REQUIRE(m.peaks[static_cast<size_t>(analysis::MemTier::Host)].call >= 0);
  REQUIRE(m.peaks[static_cast<size_t>(analysis::MemTier::Ddr)].call >= 0);  // sn30: no HBM
  for (auto tier : {analysis::MemTier::Sram, analysis::MemTier::Hbm, analysis::MemTier::Ddr, analysis::MemTier::Host}) {
    const analysis::TierPeak& p = m.peaks[static_cast<size_t>(tier)];
    const std::string name = analysis::memTierName(tier);
    bool found = false;
    for (const std::string& line : split(r.output, '\n')) {
      std::istringstream in(line);
      std::string t;
      long long bytes = -1;
      in >> t >> bytes;
      if (t == name) {  // the table row comes first; the tensor lists below start with the tier too
        found = true;
        CHECK(bytes == p.bytes);
        break;
      }
    }
    CHECK(found);
  }
  auto csv = test::runDfc("inspect --memory --csv " + path);
  REQUIRE(csv.status == 0);
  CHECK(csv.output == analysis::memoryCsv(m, pef->plan));
}

TEST_CASE("dfc inspect --roofline --csv: each point is the TFLOP and bytes of the compile report",
          "[e2e][roofline][cli]") {
  test::ScratchDir dir("roofline-cli");
  const std::string path = test::compileLenetO1(dir);
  auto pef = pef::readPef(path, pef::PefUse::View);
  REQUIRE(pef.ok());
  const auto [tflopOfHypersection, bytesOfSection] = test::reportFigures(pef->reportJson);
  auto r = test::runDfc("inspect --roofline --csv " + path);
  REQUIRE(r.status == 0);
  const std::vector<std::string> rows = split(r.output, '\n');
  REQUIRE(rows.size() == pef->plan.sections.size() + 1);
  for (size_t i = 1; i < rows.size(); ++i) {
    const std::vector<std::string> f = split(rows[i], ',');
    REQUIRE(f.size() == 8);
    const int id = std::stoi(f[0]);
    const partition::Section& s = pef->plan.sections.at(static_cast<size_t>(id));
    INFO(s.name);
    const double tflop = std::stod(f[2]), bytes = std::stod(f[3]);
    CHECK(bytes == Approx(bytesOfSection.at(id)).epsilon(1e-12));
    // Layer 1 gives a hypersection's TFLOP (its instances are alike).
    CHECK(tflop == Approx(tflopOfHypersection.at(s.hypersection)).epsilon(1e-12));
    CHECK(std::stod(f[4]) == Approx(bytes > 0 ? tflop * 1e12 / bytes : 0).epsilon(1e-12));
  }
}

TEST_CASE("dfc inspect --roofline --run: each measured section's host GFLOP/s is its FLOP over its mean stored time",
          "[e2e][roofline][cli]") {
  test::ScratchDir dir("roofline-run");
  const std::string db = " --db " + (dir / "runs.sqlite");
  auto compiled = test::runDfc("compile --model logreg -b 32 --pef-name logreg --output-folder " + (dir / "out") + db);
  INFO(compiled.output);
  REQUIRE(compiled.status == 0);
  auto ran = test::runDfc("run -p " + (dir / "out") + "/logreg.pef --data-folder " + test::kFashionMnist +
                          " --train-limit 64 --test-limit 64" + db);
  INFO(ran.output);
  REQUIRE(ran.status == 0);
  auto store = profile::RunStore::open(dir / "runs.sqlite");
  REQUIRE(store.ok());
  auto calls = store->sectionCalls(1);
  REQUIRE(calls.ok());
  std::map<int, std::pair<double, int>> sums;
  for (const auto& c : *calls) sums[c.sectionId].first += c.durationUs, sums[c.sectionId].second += 1;
  REQUIRE_FALSE(sums.empty());
  auto csv = test::runDfc("inspect --roofline --csv --run 1" + db);
  INFO(csv.output);
  REQUIRE(csv.status == 0);
  const std::vector<std::string> rows = split(csv.output, '\n');
  CHECK(rows.at(0).find(",host_mean_us,host_gflops") != std::string::npos);
  int measured = 0;
  for (size_t i = 1; i < rows.size(); ++i) {
    const std::vector<std::string> f = split(rows[i] + ",", ',');  // a trailing empty cell survives the split
    REQUIRE(f.size() == 10);
    const int id = std::stoi(f[0]);
    const double tflop = std::stod(f[2]);
    if (!sums.count(id) || tflop <= 0) {
      CHECK(f[8].empty());
      continue;
    }
    const double mean = sums[id].first / sums[id].second;
    CHECK(std::stod(f[8]) == Approx(mean).epsilon(1e-9));
    CHECK(std::stod(f[9]) == Approx(tflop * 1e12 / (mean * 1e-6) / 1e9).epsilon(1e-9));
    ++measured;
  }
  CHECK(measured > 0);
  auto text = test::runDfc("inspect --roofline --run 1" + db);
  CHECK(text.status == 0);
  CHECK(text.output.find("host roofs (measured, ") != std::string::npos);
  CHECK(test::runDfc("inspect --memory --run 1" + db).status == 2);
}
