#pragma once
// A valid training PEF around the sample graph (every op): shared by the PEF
// format and validator tests.
#include "pef/Pef.h"
#include "unit/ir/SampleGraph.h"

namespace dfc::pef::test {

inline pef::Pef samplePef() {
  pef::Pef p;
  p.meta.pefName = "every_op";
  p.meta.model = "zoo:every_op";
  p.meta.optLevel = "o1";
  p.meta.arch = "sn30";
  p.meta.compilerVersion = "0.1.0";
  p.meta.createdAt = "2026-11-21T20:31:05Z";
  p.meta.args = {"dfc", "compile", "--model", "every \"op\"", "-o1"};
  p.meta.batchSize = 2;
  p.meta.inference = false;
  p.meta.imageInput = "data/x_0";
  p.meta.labelsInput = "labels";
  p.meta.lrInput = "lr";
  p.meta.lossOutput = "loss";
  p.meta.logitsOutput = "logits";
  p.meta.defaultLr = 0.1;
  p.graph = ir::test::sampleGraph();
  p.plan.level = partition::OptLevel::O1;
  // A valid plan: every node in one section of its role (runs of up to two
  // nodes), forward sections instances of one hypersection, the rest of
  // another; each section called once per step.
  p.plan.hypersections = {{0, "hs0_part", {}}, {1, "hs1_opt", {}}};
  const auto& nodes = p.graph.nodes;
  for (size_t n = 0; n < nodes.size();) {
    partition::Section s;
    s.id = static_cast<int>(p.plan.sections.size());
    s.name = "s" + std::to_string(s.id) + "_part";
    s.type = nodes[n].role;
    s.nodes = {nodes[n].id};
    if (++n < nodes.size() && nodes[n].role == s.type) s.nodes.push_back(nodes[n++].id);
    s.hyperfunction = s.id == 0 ? "features/conv1" : "";
    s.hypersection = s.type == ir::NodeRole::Forward ? 0 : 1;
    s.estimate = {1.5e9 + s.id, 3.25e6, 12 + s.id, 7, 0.1 + s.id, 1.0 / 3.0, 2.75};
    p.plan.hypersections[static_cast<size_t>(s.hypersection)].sections.push_back(s.id);
    p.plan.schedule.push_back(s.id);
    p.plan.sections.push_back(s);
  }
  p.reportJson = R"({"layers":[1,2,3],"note":"ok"})";
  return p;
}

}  // namespace dfc::pef::test
