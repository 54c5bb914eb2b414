#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "kernelc/Linker.h"
#include "pef/Pef.h"
#include "unit/mapping/MapFixture.h"

using namespace dfc;

namespace {

struct Linked {
  pef::Pef pef;
  kernelc::LinkResult link;
};

// A lenet training PEF with a linked plan and the meta a PEF reader checks.
Linked linkedPef(partition::OptLevel level) {
  Linked l;
  auto model = frontend::buildZooModel("lenet", 8, 7);
  REQUIRE(model.ok());
  auto training = autograd::buildTrainingGraph(model->graph, model->image, model->logits, {});
  REQUIRE(training.ok());
  l.pef.graph = std::move(training->graph);
  auto a = test::preset("sn30");
  auto plan = test::mapGraph(l.pef.graph, a, 0.25, level);
  REQUIRE(plan.ok());
  l.pef.plan = std::move(*plan);
  auto link = kernelc::linkPlan(l.pef.graph, l.pef.plan, arch::CostModel(a));
  REQUIRE(link.ok());
  l.link = std::move(*link);
  l.pef.bitfiles = l.link.bitfiles;
  pef::PefMeta& meta = l.pef.meta;
  meta.pefName = "lenet";
  meta.arch = "sn30";
  meta.optLevel = partition::optLevelName(level);
  meta.batchSize = 8;
  meta.defaultLr = 0.01;
  const ir::Graph& g = l.pef.graph;
  meta.imageInput = g.value(training->image).name;
  meta.labelsInput = g.value(training->labels).name;
  meta.lrInput = g.value(training->lr).name;
  meta.lossOutput = g.value(training->loss).name;
  meta.logitsOutput = g.value(training->logits).name;
  l.pef.reportJson = "{}";
  return l;
}

std::string tempPath() {
  auto dir = std::filesystem::temp_directory_path() / ("dfc_bitfile_test_" + std::to_string(std::random_device{}()));
  std::filesystem::create_directories(dir);
  return (dir / "lenet.pef").string();
}

}  // namespace

TEST_CASE("one bitfile per hypersection, placement figures come from it") {
  Linked l = linkedPef(partition::OptLevel::O3);
  REQUIRE(l.link.bitfiles.size() == l.pef.plan.hypersections.size());
  for (const auto& s : l.pef.plan.sections) {
    const auto& b = l.link.bitfiles.at(static_cast<size_t>(s.hypersection));
    const auto& sp = l.link.sections.at(static_cast<size_t>(s.id));
    CHECK(b.hypersection == s.hypersection);
    CHECK(sp.pcus == b.pcus());
    CHECK(sp.pmus == b.pmus());
    CHECK(sp.totalHops == b.totalHops());
    CHECK(sp.minLatencyUs <= sp.maxLatencyUs);
    CHECK(sp.pmus <= s.estimate.pmus);
  }
  CHECK(l.link.placedHops < l.link.naiveHops);
  // Routes carry routed hops: at least the Manhattan distance of their units.
  CHECK(l.link.routedHops >= l.link.placedHops);
  for (const auto& b : l.link.bitfiles)
    for (const auto& r : b.routes) {
      const auto& u = b.units.at(r.from);
      const auto& v = b.units.at(r.to);
      CHECK(r.hops >= std::abs(u.row - v.row) + std::abs(u.col - v.col));
    }
}

TEST_CASE("bitfiles survive a PEF round trip, corrupted ones are refused") {
  Linked l = linkedPef(partition::OptLevel::O3);
  std::string path = tempPath();
  REQUIRE(pef::writePef(l.pef, path).ok());
  auto back = pef::readPef(path);
  INFO((back ? std::string() : back.error().message()));
  REQUIRE(back.ok());
  REQUIRE(back->bitfiles.size() == l.pef.bitfiles.size());
  for (size_t i = 0; i < back->bitfiles.size(); ++i) {
    const auto& x = back->bitfiles[i];
    const auto& y = l.pef.bitfiles[i];
    CHECK(x.name == y.name);
    CHECK(x.hypersection == y.hypersection);
    CHECK(x.units.size() == y.units.size());
    CHECK(x.totalHops() == y.totalHops());
    CHECK(x.pcus() == y.pcus());
    CHECK(x.units.back().config[1] == y.units.back().config[1]);
  }
  // A flipped byte in the chunk: the checksum catches it.
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
  auto flipped = bytes;
  flipped[flipped.size() - 3] ^= 0x5a;  // the bitfiles chunk is written last
  auto bad = pef::parsePef(flipped, "x.pef");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().message(), Catch::Contains("chunk 'bitfiles'"));

  // Structurally bad bitfiles with valid checksums are refused by name too.
  auto twoOnOneCell = l.pef;
  twoOnOneCell.bitfiles[0].units[1].row = twoOnOneCell.bitfiles[0].units[0].row;
  twoOnOneCell.bitfiles[0].units[1].col = twoOnOneCell.bitfiles[0].units[0].col;
  REQUIRE(pef::writePef(twoOnOneCell, path).ok());
  auto shared = pef::readPef(path);
  REQUIRE_FALSE(shared.ok());
  CHECK_THAT(shared.error().message(), Catch::Contains("chunk 'bitfiles'") && Catch::Contains("two units placed"));

  auto outside = l.pef;
  outside.bitfiles[0].units[0].row = outside.bitfiles[0].gridRows;
  REQUIRE(pef::writePef(outside, path).ok());
  CHECK_THAT(pef::readPef(path).error().message(), Catch::Contains("outside"));

  auto badRoute = l.pef;
  badRoute.bitfiles[0].routes[0].to = static_cast<uint32_t>(badRoute.bitfiles[0].units.size());
  REQUIRE(pef::writePef(badRoute, path).ok());
  CHECK_THAT(pef::readPef(path).error().message(), Catch::Contains("route"));

  auto badHs = l.pef;
  badHs.bitfiles[0].hypersection = static_cast<int32_t>(badHs.plan.hypersections.size());
  REQUIRE(pef::writePef(badHs, path).ok());
  CHECK_THAT(pef::readPef(path).error().message(), Catch::Contains("hypersection"));
  std::filesystem::remove_all(std::filesystem::path(path).parent_path());
}

TEST_CASE("placed latency bounds bracket the mapper's estimate") {
  Linked l = linkedPef(partition::OptLevel::O0);
  for (const auto& s : l.pef.plan.sections) {
    const auto& sp = l.link.sections.at(static_cast<size_t>(s.id));
    INFO(s.name);
    CHECK(sp.maxLatencyUs >= s.estimate.latencyUs * (1 - 1e-9));
    CHECK(sp.minLatencyUs <= sp.maxLatencyUs);
  }
}
