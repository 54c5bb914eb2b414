// Layout ops as views (runtime/ArenaPlan.h): inside a fused section a reshape,
// or a slice that is one contiguous aligned range, shares its input's bytes;
// the results stay bitwise those of the copying run, and the shared bytes live
// as long as the longest-lived of the values on them.
#include <catch2/catch.hpp>

#include <cstring>

#include "RuntimeTestUtil.h"
#include "runtime/ArenaPlan.h"
#include "runtime/Executor.h"
#include "runtime/Reference.h"

using namespace dfc;
using namespace dfc::runtime::test;
using ir::OpKind;
using ir::ValueId;

namespace {

partition::Plan sections(const ir::Graph& g, bool onePerNode) {
  partition::Plan plan;
  std::vector<ir::NodeId> all;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const auto id = static_cast<ir::NodeId>(n);
    all.push_back(id);
    if (!onePerNode) continue;
    plan.sections.push_back({static_cast<int>(n), "s" + std::to_string(n), ir::NodeRole::Forward, {id}, "", 0, {}});
    plan.schedule.push_back(static_cast<int>(n));
  }
  if (!onePerNode) {
    plan.sections = {{0, "all", ir::NodeRole::Forward, all, "", 0, {}}};
    plan.schedule = {0};
  }
  return plan;
}

const std::byte* at(const runtime::Executor& ex, ValueId v) { return ex.tensor(v).bytes(); }

}  // namespace

TEST_CASE("reshapes and contiguous slices in a section share their input's bytes, with the copying run's results",
          "[fusion][arena]") {
  std::mt19937 rng(5);
  ir::Graph g;
  const ValueId x = g.addInput("x", {ir::DType::F32, {12, 16}});
  const ValueId w1 = g.addInput("w1", {ir::DType::F32, {16, 256}});
  const ValueId y = g.addInput("y", {ir::DType::F32, {1, 1024}});
  const ValueId w2 = g.addInput("w2", {ir::DType::F32, {1024, 1024}});
  auto shape = [](std::vector<int64_t> dims) { return ir::Attributes{{"shape", std::move(dims)}}; };
  auto rows = [](int64_t axis, int64_t start, int64_t end) {
    return ir::Attributes{{"axis", axis}, {"start", start}, {"end", end}};
  };
  const ValueId a = addOp(g, OpKind::MatMul, "a", {x, w1});         // [12, 256], 12 KiB
  const ValueId b = addOp(g, OpKind::Reshape, "b", {a}, shape({3, 1024}));  // a view of a
  const ValueId c = addOp(g, OpKind::Slice, "c", {b}, rows(0, 1, 2));       // row 1: a view at 4 KiB
  const ValueId e = addOp(g, OpKind::Slice, "e", {b}, rows(0, 2, 3));       // row 2: a view at 8 KiB
  const ValueId cols = addOp(g, OpKind::Slice, "cols", {b}, rows(1, 0, 512));  // three ranges: a copy
  const ValueId flat = addOp(g, OpKind::Reshape, "flat", {a}, shape({3072}));
  const ValueId odd = addOp(g, OpKind::Slice, "odd", {flat}, rows(0, 3, 7));  // at byte 12: unaligned, a copy
  // Computed after a's last direct read, before c and e are read: these must
  // not be given the bytes c and e still live on.
  const ValueId p = addOp(g, OpKind::MatMul, "p", {y, w2});
  const ValueId q = addOp(g, OpKind::MatMul, "q", {p, w2});
  const ValueId ce = addOp(g, OpKind::Add, "ce", {c, e});
  const ValueId out = addOp(g, OpKind::Add, "out", {ce, q});
  g.outputs = {out, cols, odd};
  const std::map<ValueId, ir::Tensor> feeds{{x, randomTensor({12, 16}, rng)},
                                            {w1, randomTensor({16, 256}, rng)},
                                            {y, randomTensor({1, 1024}, rng)},
                                            {w2, randomTensor({1024, 1024}, rng, -0.05f, 0.05f)}};
  auto make = [&](bool onePerNode, bool fuse) {
    runtime::ExecutorOptions options;
    options.threads = 1;
    options.fuse = fuse;
    auto ex = runtime::Executor::create(g, sections(g, onePerNode), options);
    if (!ex) FAIL(ex.error().message());
    for (const auto& [id, t] : feeds) REQUIRE(ex->setInput(id, t).ok());
    REQUIRE(ex->step(true).ok());
    return std::move(*ex);
  };
  const runtime::Executor views = make(false, true), copies = make(false, false), perOp = make(true, true);

  const std::byte* base = at(views, a);
  CHECK(at(views, b) == base);
  CHECK(at(views, flat) == base);
  CHECK(at(views, c) == base + 4096);
  CHECK(at(views, e) == base + 8192);
  CHECK((at(views, cols) < base || at(views, cols) >= base + 12288));
  CHECK(at(views, odd) != base + 12);
  CHECK(at(copies, b) != at(copies, a));  // fusion off: every op writes its own bytes
  CHECK(at(perOp, b) != at(perOp, a));    // one op per section (-o0): nothing to fold into
  CHECK(at(perOp, c) != at(perOp, a) + 4096);
  CHECK(views.arenaBytes() < copies.arenaBytes());

  auto ref = runtime::referenceEvaluate(g, feeds);
  REQUIRE(ref.ok());
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    const ir::Tensor &v = views.tensor(g.outputs[i]), &cp = copies.tensor(g.outputs[i]);
    CHECK(std::memcmp(v.bytes(), cp.bytes(), v.byteSize()) == 0);
    CHECK(maxRelDiff(v, ref->at(g.outputs[i])) < 1e-5);
  }
}

TEST_CASE("a reshape or slice whose attributes reach past its input is never a view", "[fusion][arena]") {
  // Types as a hostile file could declare them: the kernels refuse these nodes
  // later, but the arena plan, made first, must not place a view outside its owner.
  ir::Graph g;
  const ValueId x = g.addInput("x", {ir::DType::F32, {3, 64}});
  const ValueId a = addOp(g, OpKind::Relu, "a", {x});
  const ValueId past = g.addValue("past", {ir::DType::F32, {1, 64}}, ir::ValueKind::Intermediate);
  g.addNode(OpKind::Slice, "past", {a}, {past}, {{"axis", int64_t{0}}, {"start", int64_t{5}}, {"end", int64_t{6}}});
  const ValueId big = g.addValue("big", {ir::DType::F32, {4, 64}}, ir::ValueKind::Intermediate);
  g.addNode(OpKind::Reshape, "big", {a}, {big}, {{"shape", std::vector<int64_t>{4, 64}}});
  const ValueId ok = addOp(g, OpKind::Reshape, "ok", {a}, {{"shape", std::vector<int64_t>{192}}});
  g.outputs = {past, big, ok};
  runtime::FusionGroup relu, slice, reshape, fine;
  relu.nodes = {0};
  slice.nodes = {1};
  reshape.nodes = {2};
  fine.nodes = {3};
  auto plan = runtime::planArena(g, {0}, {{relu, slice, reshape, fine}}, true);
  REQUIRE(plan.ok());
  CHECK(plan->viewOf[static_cast<size_t>(past)] == ir::kNoValue);
  CHECK(plan->viewOf[static_cast<size_t>(big)] == ir::kNoValue);
  CHECK(plan->viewOf[static_cast<size_t>(ok)] == a);  // the same plan still folds a sound reshape
}
