#pragma once
// Shared by the mapping and kernel compiler tests: zoo training graphs mapped
// onto an arch preset.
#include <catch2/catch.hpp>

#include "arch/CostModel.h"
#include "autograd/Autograd.h"
#include "frontend/ModelZoo.h"
#include "mapping/SectionMapper.h"
#include "partition/Decomposer.h"

namespace dfc::test {

inline ir::Graph trainingGraph(const std::string& model, int64_t batch) {
  auto m = frontend::buildZooModel(model, batch, 7);
  REQUIRE(m.ok());
  auto tg = autograd::buildTrainingGraph(m->graph, m->image, m->logits, {});
  REQUIRE(tg.ok());
  return std::move(tg->graph);
}

inline arch::ArchSpec preset(const std::string& name, int chips = 1, int tiles = 0) {
  auto a = arch::loadArch(name);
  REQUIRE(a.ok());
  auto s = arch::scaleArch(*a, chips, tiles);
  REQUIRE(s.ok());
  return *s;
}

inline Expected<partition::Plan> mapGraph(const ir::Graph& g, const arch::ArchSpec& a, double scale,
                                          partition::OptLevel level = partition::OptLevel::O3) {
  auto subgraphs = partition::decompose(g, {level});
  REQUIRE(subgraphs.ok());
  mapping::MappingOptions o;
  o.forwardScale = o.backwardScale = o.optimizerScale = scale;
  return mapping::mapSections(g, *subgraphs, arch::CostModel(a), level, o);
}

// sn10 with PMUs of 256 bytes: the mlp's weights need more PMUs than a section may use (tiling tests).
inline arch::ArchSpec smallPmuPreset() {
  arch::ArchSpec a = preset("sn10");
  a.pmuBytes = 256;
  return a;
}

inline const partition::Section* firstTiledSection(const partition::Plan& plan) {
  for (const auto& s : plan.sections)
    if (!s.tiling.empty()) return &s;
  return nullptr;
}

inline double totalLatency(const partition::Plan& p) {
  double t = 0;
  for (int id : p.schedule) t += p.sections[static_cast<size_t>(id)].estimate.latencyUs;
  return t;
}

}  // namespace dfc::test
