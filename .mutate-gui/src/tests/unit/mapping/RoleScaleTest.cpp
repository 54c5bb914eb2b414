// Every role's sections are limited by one of the --resources-scaling-factors
// (ir/Roles.def: scaleGroup): the budget follows that factor and no other.
#include <catch2/catch.hpp>

#include <cmath>

#include "MapFixture.h"
#include "ir/Role.h"

using namespace dfc;

TEST_CASE("each role's section budget follows its scaling factor group", "[mapping][roles]") {
  const arch::ArchSpec a = test::preset("sn30");
  mapping::MappingOptions o;
  o.forwardScale = 0.25;
  o.backwardScale = 0.5;
  o.optimizerScale = 0.75;
  auto factorOf = [&](ir::RoleScale group) {
    switch (group) {
      case ir::RoleScale::Forward: return o.forwardScale;
      case ir::RoleScale::Backward: return o.backwardScale;
      case ir::RoleScale::Optimizer: return o.optimizerScale;
    }
    return 0.0;
  };
  for (const ir::RoleInfo& r : ir::roles()) {
    INFO("role " << r.name);
    ir::Node n;
    n.op = ir::OpKind::Relu;  // not a parameter update
    n.role = r.role;
    CHECK(mapping::sectionPcuBudget(a, o, n) == static_cast<int>(std::floor(a.totalPcus() * factorOf(r.scale))));
  }
}
