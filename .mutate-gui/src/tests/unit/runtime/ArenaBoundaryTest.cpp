// The arena plan at its boundaries (runtime/ArenaPlan.h): a slice that ends
// exactly at its input's last byte is a view; one aligned exactly at 64 bytes
// is, one 32 bytes in is not; a view keeps its owner's bytes alive to the
// view's last use; a graph output keeps its bytes to the end of the step;
// two values of exactly equal size whose lives do not meet share one range.
#include <catch2/catch.hpp>

#include "RuntimeTestUtil.h"
#include "runtime/ArenaPlan.h"
#include "runtime/MemoryPlanner.h"

using namespace dfc;
using namespace dfc::runtime::test;
using ir::OpKind;
using ir::ValueId;

namespace {

ir::Attributes rows(int64_t axis, int64_t start, int64_t end) {
  return {{"axis", axis}, {"start", start}, {"end", end}};
}

// One Single group per node, all in one section (views need their input computed in the same section).
std::vector<std::vector<runtime::FusionGroup>> oneSection(const ir::Graph& g) {
  std::vector<runtime::FusionGroup> groups;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    runtime::FusionGroup group;
    group.nodes = {static_cast<ir::NodeId>(n)};
    groups.push_back(group);
  }
  return {groups};
}

size_t offsetOf(const runtime::ArenaPlan& plan, ValueId v) {
  for (size_t i = 0; i < plan.planned.size(); ++i)
    if (plan.planned[i] == v) return plan.offsets[i];
  FAIL("value " << v << " has no arena space");
  return 0;
}

bool disjoint(const runtime::ArenaPlan& plan, const ir::Graph& g, ValueId a, ValueId b) {
  const size_t oa = offsetOf(plan, a), ob = offsetOf(plan, b);
  return oa + g.value(a).type.byteSize() <= ob || ob + g.value(b).type.byteSize() <= oa;
}

}  // namespace

TEST_CASE("arena boundaries: the last row of a tensor is a view ending exactly at its owner's end", "[arena][boundary]") {
  ir::Graph g;
  const ValueId x = g.addInput("x", {ir::DType::F32, {4, 16}});  // rows of 64 bytes
  const ValueId a = addOp(g, OpKind::Relu, "a", {x});
  const ValueId last = addOp(g, OpKind::Slice, "last", {a}, rows(0, 3, 4));
  const ValueId two = addOp(g, OpKind::Slice, "two", {a}, rows(0, 2, 4));  // the last two rows, to the end
  g.outputs = {last, two};
  auto plan = runtime::planArena(g, {0}, oneSection(g), true);
  REQUIRE(plan.ok());
  CHECK(plan->viewOf[static_cast<size_t>(last)] == a);
  CHECK(plan->viewOf[static_cast<size_t>(two)] == a);
  CHECK(offsetOf(*plan, last) == offsetOf(*plan, a) + 192);
  CHECK(offsetOf(*plan, two) == offsetOf(*plan, a) + 128);
  CHECK(plan->arenaBytes == 256);  // a alone: the views take no bytes of their own
}

TEST_CASE("arena boundaries: a slice at exactly 64 bytes is a view, at 32 bytes a copy", "[arena][boundary]") {
  ir::Graph g;
  const ValueId x = g.addInput("x", {ir::DType::F32, {6, 8}});  // rows of 32 bytes
  const ValueId a = addOp(g, OpKind::Relu, "a", {x});
  const ValueId at64 = addOp(g, OpKind::Slice, "at64", {a}, rows(0, 2, 3));
  const ValueId at32 = addOp(g, OpKind::Slice, "at32", {a}, rows(0, 1, 2));
  const ValueId at0 = addOp(g, OpKind::Slice, "at0", {a}, rows(0, 0, 6));  // the whole of it
  g.outputs = {at64, at32, at0};
  auto plan = runtime::planArena(g, {0}, oneSection(g), true);
  REQUIRE(plan.ok());
  CHECK(plan->viewOf[static_cast<size_t>(at64)] == a);
  CHECK(offsetOf(*plan, at64) == offsetOf(*plan, a) + 64);
  CHECK(plan->viewOf[static_cast<size_t>(at32)] == ir::kNoValue);
  CHECK(plan->viewOf[static_cast<size_t>(at0)] == a);
  CHECK(offsetOf(*plan, at0) == offsetOf(*plan, a));
  // Without views every value has bytes of its own.
  auto copies = runtime::planArena(g, {0}, oneSection(g), false);
  REQUIRE(copies.ok());
  for (ValueId v : {a, at64, at32, at0}) CHECK(copies->viewOf[static_cast<size_t>(v)] == ir::kNoValue);
}

TEST_CASE("arena boundaries: a slice along an axis after leading ones of size 1 is contiguous", "[arena][boundary]") {
  ir::Graph g;
  const ValueId x = g.addInput("x", {ir::DType::F32, {1, 4, 16}});
  const ValueId a = addOp(g, OpKind::Relu, "a", {x});
  const ValueId s = addOp(g, OpKind::Slice, "s", {a}, rows(1, 3, 4));
  ir::Graph h;
  const ValueId y = h.addInput("y", {ir::DType::F32, {2, 4, 16}});
  const ValueId b = addOp(h, OpKind::Relu, "b", {y});
  const ValueId t = addOp(h, OpKind::Slice, "t", {b}, rows(1, 3, 4));  // two blocks apart: not contiguous
  g.outputs = {s};
  h.outputs = {t};
  auto pg = runtime::planArena(g, {0}, oneSection(g), true);
  auto ph = runtime::planArena(h, {0}, oneSection(h), true);
  REQUIRE(pg.ok());
  REQUIRE(ph.ok());
  CHECK(pg->viewOf[static_cast<size_t>(s)] == a);
  CHECK(offsetOf(*pg, s) == offsetOf(*pg, a) + 192);
  CHECK(ph->viewOf[static_cast<size_t>(t)] == ir::kNoValue);
}

TEST_CASE("arena boundaries: a view keeps its owner's bytes alive until the view's last use", "[arena][boundary]") {
  // a (position 0), v = reshape(a) (1), b = relu(x) (2), c = relu(v) (3): a is
  // last read directly at 1, but its bytes are v's until 3, so b may not take them.
  ir::Graph g;
  const ValueId x = g.addInput("x", {ir::DType::F32, {4, 16}});
  const ValueId a = addOp(g, OpKind::Relu, "a", {x});
  const ValueId v = addOp(g, OpKind::Reshape, "v", {a}, {{"shape", std::vector<int64_t>{64}}});
  const ValueId b = addOp(g, OpKind::Relu, "b", {x});
  const ValueId c = addOp(g, OpKind::Relu, "c", {v});
  g.outputs = {b, c};
  auto plan = runtime::planArena(g, {0}, oneSection(g), true);
  REQUIRE(plan.ok());
  REQUIRE(plan->viewOf[static_cast<size_t>(v)] == a);
  CHECK(disjoint(*plan, g, a, b));
  CHECK(disjoint(*plan, g, a, c));
  CHECK(plan->arenaBytes == 3 * 256);
}

TEST_CASE("arena boundaries: outputs keep their bytes to the end, equal-sized dead values share", "[arena][boundary]") {
  // Positions: a 0, b 1 (reads a), c 2 (reads b), d 3 (reads c). a is an
  // output: nothing after it may take its bytes. b dies at 2, d (the same
  // size exactly) is made at 3 and can take b's range.
  ir::Graph g;
  const ValueId x = g.addInput("x", {ir::DType::F32, {4, 16}});
  const ValueId a = addOp(g, OpKind::Relu, "a", {x});
  const ValueId b = addOp(g, OpKind::Relu, "b", {a});
  const ValueId c = addOp(g, OpKind::Relu, "c", {b});
  const ValueId d = addOp(g, OpKind::Relu, "d", {c});
  g.outputs = {a, d};
  auto plan = runtime::planArena(g, {0}, oneSection(g), false);
  REQUIRE(plan.ok());
  for (ValueId other : {b, c, d}) CHECK(disjoint(*plan, g, a, other));
  CHECK(disjoint(*plan, g, b, c));
  CHECK(disjoint(*plan, g, c, d));
  CHECK(offsetOf(*plan, d) == offsetOf(*plan, b));
  CHECK(plan->arenaBytes == 3 * 256);
  // Memory planner: buffers of exactly one size, the second starting right after the first's last use.
  using B = runtime::MemoryPlanner::Buffer;
  const std::vector<B> exact{{256, 0, 1}, {256, 2, 3}, {256, 1, 2}};
  for (const auto& r : {runtime::MemoryPlanner::planBestFit(exact), runtime::MemoryPlanner::planGreedyBySize(exact),
                        runtime::MemoryPlanner::plan(exact)}) {
    CHECK(r.offsets[0] == r.offsets[1]);
    CHECK(r.offsets[2] != r.offsets[0]);
    CHECK(r.arenaBytes == 512);
  }
  // Sizes one byte either side of the alignment: 64 takes 64, 65 takes 128, 0 still takes a slot.
  const std::vector<B> sizes{{64, 0, 0}, {65, 0, 0}, {0, 0, 0}};
  CHECK(runtime::MemoryPlanner::planBestFit(sizes).arenaBytes == 64 + 128 + 64);
  CHECK(runtime::MemoryPlanner::planGreedyBySize(sizes).arenaBytes == 64 + 128 + 64);
  // Greedy by size: a gap of exactly the buffer's size between two live ones is taken.
  const std::vector<B> gap{{128, 0, 4}, {128, 0, 4}, {64, 0, 1}, {64, 2, 4}, {64, 0, 4}};
  const auto greedy = runtime::MemoryPlanner::planGreedyBySize(gap);
  CHECK(greedy.arenaBytes == 384);
}
