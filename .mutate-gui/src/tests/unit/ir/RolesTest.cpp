// The role table (ir/Roles.def) and the IR's use of it: every row has a
// unique name that parses back, .dfir text keeps every role, and a name the
// table lacks is refused with the table's names.
#include <catch2/catch.hpp>

#include <set>

#include "SampleGraph.h"
#include "ir/Parser.h"
#include "ir/Printer.h"
#include "ir/Role.h"

using namespace dfc;
using namespace dfc::ir;

TEST_CASE("every role in the table has a unique name that parses back to it", "[ir][roles]") {
  REQUIRE(roles().size() == kNumRoles);
  CHECK(roles().front().role == NodeRole{});  // the first row is the default role
  std::set<std::string_view> names;
  for (size_t i = 0; i < kNumRoles; ++i) {
    const RoleInfo& r = roles()[i];
    INFO("role " << r.name);
    CHECK(roleIndex(r.role) == i);
    CHECK(&roleInfo(r.role) == &r);
    CHECK(roleName(r.role) == r.name);
    CHECK(parseRole(r.name) == r.role);
    CHECK(names.insert(r.name).second);
    CHECK(roleNameList().find(r.name) != std::string::npos);
    CHECK(r.displayColor <= 0xffffffu);
  }
  CHECK(!parseRole("sideways"));
  CHECK(!parseRole(""));
  CHECK(roleNameList() == "forward, backward, reduce, optimizer or accumulate");  // the words error messages have used
}

TEST_CASE("a node of every role survives the .dfir text form", "[ir][roles]") {
  Graph g;
  g.name = "roles";
  ValueId v = g.addInput("x", {DType::F32, {2}});
  for (const RoleInfo& r : roles()) {
    ValueId out = g.addValue(std::string(r.name) + ".out", {DType::F32, {2}}, ValueKind::Intermediate);
    g.addNode(OpKind::Relu, std::string(r.name), {v}, {out}, {}, {}, r.role);
    v = out;
  }
  g.outputs = {v};
  const std::string text = printGraph(g);
  for (const RoleInfo& r : roles())
    CHECK((text.find("role=" + std::string(r.name)) != std::string::npos) == (r.role != NodeRole{}));
  auto back = parseGraph(text, "roles.dfir");
  REQUIRE(back.ok());
  REQUIRE(back->nodes.size() == kNumRoles);
  for (size_t i = 0; i < kNumRoles; ++i) CHECK(back->nodes[i].role == roles()[i].role);
}
