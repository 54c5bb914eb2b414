// The chip view's link loads are the router's: LeNet compiled through the
// kernel compiler's steps, written to a PEF and read back; for every section
// the chip model (analysis/ChipModel.h) lists exactly the links the router's
// negotiated occupancy (Routing::linkUse) loads, with the same loads, and its
// most loaded and over-capacity counts are the router's maxLinkUse and
// overusedLinks. Run at the arch's link capacity and at 1 net per link (so
// that links over capacity exist to compare).
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <random>
#include <tuple>

#include "analysis/ChipModel.h"
#include "kernelc/LinkSteps.h"
#include "unit/mapping/MapFixture.h"

using namespace dfc;

namespace {

using LinkKey = std::tuple<int, int, int>;  // row, col, direction

std::map<LinkKey, int> routerLoads(const kernelc::Routing& r, int gridCols) {
  std::map<LinkKey, int> out;
  for (size_t l = 0; l < r.linkUse.size(); ++l)
    if (r.linkUse[l] > 0)
      out[{static_cast<int>(l / 4) / gridCols, static_cast<int>(l / 4) % gridCols, static_cast<int>(l % 4)}] =
          r.linkUse[l];
  return out;
}

std::map<LinkKey, int> chipLoads(const analysis::ChipModel& m) {
  std::map<LinkKey, int> out;
  for (const auto& l : m.links) out[{l.row, l.col, l.dir}] = l.load;
  return out;
}

void checkLoadsMatch(int linkTracks) {
  pef::Pef p;
  auto model = frontend::buildZooModel("lenet", 8, 7);
  REQUIRE(model.ok());
  auto training = autograd::buildTrainingGraph(model->graph, model->image, model->logits, {});
  REQUIRE(training.ok());
  p.graph = std::move(training->graph);
  const arch::ArchSpec a = test::preset("sn30");
  auto plan = test::mapGraph(p.graph, a, 0.25, partition::OptLevel::O1);
  REQUIRE(plan.ok());
  p.plan = std::move(*plan);
  const arch::CostModel cost(a);
  kernelc::LinkOptions link;
  link.router.linkTracks = linkTracks;
  link.retryPlacements = 0;  // keep the first placement: the test compares routings, not retries
  const kernelc::LoweredPlan lowered = kernelc::lowerPlan(p.graph, p.plan, cost, {});
  auto placed = kernelc::placeGraphs(a, lowered, link);
  REQUIRE(placed.ok());
  kernelc::routeGraphs(a, lowered, link, *placed);
  p.bitfiles = kernelc::assembleLink(p.graph, p.plan, cost, {}, lowered, *placed, link).bitfiles;
  pef::PefMeta& meta = p.meta;  // what the PEF reader checks of a training PEF
  meta.pefName = "lenet";
  meta.arch = "sn30";
  meta.optLevel = "o1";
  meta.batchSize = 8;
  meta.defaultLr = 0.01;
  meta.imageInput = p.graph.value(training->image).name;
  meta.labelsInput = p.graph.value(training->labels).name;
  meta.lrInput = p.graph.value(training->lr).name;
  meta.lossOutput = p.graph.value(training->loss).name;
  meta.logitsOutput = p.graph.value(training->logits).name;
  p.reportJson = "{}";
  const auto dir =
      std::filesystem::temp_directory_path() / ("dfc_chip_loads_" + std::to_string(std::random_device{}()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "lenet.pef").string();
  REQUIRE(pef::writePef(p, path).ok());
  auto back = pef::readPef(path, pef::PefUse::View);
  INFO((back ? std::string() : back.error().message()));
  REQUIRE(back.ok());
  int overCapacity = 0;
  for (const auto& s : back->plan.sections) {
    INFO("section " << s.name);
    auto chip = analysis::chipModel(*back, s.name);
    REQUIRE(chip.ok());
    const auto& graph = (*placed)[static_cast<size_t>(lowered.placedAs[static_cast<size_t>(s.hypersection)])];
    CHECK(chipLoads(*chip) == routerLoads(graph.routing, graph.placement.gridCols));
    CHECK(chip->capacity == graph.routing.capacity);
    CHECK(chip->maxLoad() == graph.routing.maxLinkUse);
    CHECK(chip->overCapacityLinks() == graph.routing.overusedLinks);
    overCapacity += chip->overCapacityLinks();
  }
  if (linkTracks == 1) CHECK(overCapacity > 0);  // the comparison covered links over capacity
  std::filesystem::remove_all(dir);
}

}  // namespace

TEST_CASE("chip link loads equal the router's on LeNet at the arch's link capacity", "[chip][router]") {
  checkLoadsMatch(0);
}

TEST_CASE("chip link loads equal the router's on LeNet at one net per link, over capacity included", "[chip][router]") {
  checkLoadsMatch(1);
}
