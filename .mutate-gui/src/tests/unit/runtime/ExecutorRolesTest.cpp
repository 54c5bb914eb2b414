// Forward-only evaluation runs exactly the sections whose role says so
// (ir/Roles.def: inEvaluation), for every role in the table.
#include <catch2/catch.hpp>

#include <set>

#include "ir/Role.h"
#include "runtime/Executor.h"

using namespace dfc;

TEST_CASE("forward-only steps run the sections of the roles that run in evaluation, a full step all", "[executor][roles]") {
  // A chain of relus, one section per role.
  ir::Graph g;
  ir::ValueId v = g.addInput("x", {ir::DType::F32, {4}});
  partition::Plan plan;
  for (const ir::RoleInfo& r : ir::roles()) {
    int id = static_cast<int>(plan.sections.size());
    ir::ValueId out = g.addValue(std::string(r.name) + ".out", {ir::DType::F32, {4}}, ir::ValueKind::Intermediate);
    g.addNode(ir::OpKind::Relu, std::string(r.name), {v}, {out}, {}, {}, r.role);
    v = out;
    plan.sections.push_back({id, "s_" + std::string(r.name), r.role, {id}, "", id, {}});
    plan.schedule.push_back(id);
  }
  g.outputs = {v};
  auto exec = runtime::Executor::create(g, plan);
  REQUIRE(exec.ok());
  REQUIRE(exec->setInput(g.inputs.front(), ir::Tensor(g.value(g.inputs.front()).type)).ok());

  std::set<int> ran, expected;
  for (const auto& s : plan.sections)
    if (ir::roleInfo(s.type).inEvaluation) expected.insert(s.id);
  REQUIRE(exec->step(true, [&](const runtime::SectionCall& c) { ran.insert(c.sectionId); }).ok());
  CHECK(ran == expected);
  CHECK(expected.count(0) == 1);  // the default (forward) role evaluates

  ran.clear();
  REQUIRE(exec->step(false, [&](const runtime::SectionCall& c) { ran.insert(c.sectionId); }).ok());
  CHECK(ran.size() == ir::kNumRoles);
}
