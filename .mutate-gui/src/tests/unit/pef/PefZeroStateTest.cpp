// Optimizer state starts at zero: the PEF stores such tensors as a flag, so a
// momentum or Adam training PEF is not two or three times the weights.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>

#include "pef/Pef.h"
#include "pef/PefFormat.h"

using namespace dfc;

namespace {

pef::Pef pefWithState(bool zeroState) {
  pef::Pef p;
  p.meta.pefName = "state";
  p.meta.model = "hand-built";
  p.meta.optLevel = "o0";
  p.meta.arch = "sn30";
  p.meta.compilerVersion = "test";
  p.meta.createdAt = "2026-11-21T00:00:00Z";
  p.meta.batchSize = 256;
  p.meta.inference = true;
  ir::Graph& g = p.graph;
  g.name = "state";
  ir::ValueId x = g.addInput("x", {ir::DType::F32, {256, 256}});
  ir::Tensor w({ir::DType::F32, {256, 256}});
  for (int64_t i = 0; i < w.numElements(); ++i) w.data<float>()[i] = static_cast<float>(i % 7) - 3.0f;
  ir::ValueId wid = g.addParam("w", w);
  ir::Tensor v({ir::DType::F32, {256, 256}});
  if (!zeroState) v.data<float>()[12345] = 0.5f;
  ir::ValueId vid = g.addConst("w.velocity", v);
  ir::ValueId y = g.addValue("y", {ir::DType::F32, {256, 256}}, ir::ValueKind::Intermediate);
  g.addNode(ir::OpKind::Add, "add", {x, wid}, {y});
  ir::ValueId z = g.addValue("z", {ir::DType::F32, {256, 256}}, ir::ValueKind::Intermediate);
  g.addNode(ir::OpKind::Add, "add_state", {y, vid}, {z});
  g.outputs = {z};
  p.meta.imageInput = "x";
  p.meta.logitsOutput = "z";
  partition::Section s;
  s.id = 0;
  s.name = "s0_add";
  s.nodes = {0, 1};
  p.plan.sections.push_back(s);
  p.plan.hypersections.push_back({0, "hs0_add", {0}});
  p.plan.schedule = {0};
  p.reportJson = "{}";
  return p;
}

}  // namespace

TEST_CASE("all-zero optimizer state is stored as a flag and reads back as zeros", "[pef]") {
  std::string dir = std::filesystem::temp_directory_path().string();
  std::string zeroPath = dir + "/dfc-zero-state.pef", densePath = dir + "/dfc-dense-state.pef";
  REQUIRE(pef::writePef(pefWithState(true), zeroPath).ok());
  REQUIRE(pef::writePef(pefWithState(false), densePath).ok());
  auto zeroSize = std::filesystem::file_size(zeroPath), denseSize = std::filesystem::file_size(densePath);
  // 256x256 f32 = 256 KiB of state that the zero-state PEF does not carry.
  CHECK(denseSize - zeroSize >= 256 * 256 * 4);

  auto back = pef::readPef(zeroPath);
  REQUIRE(back.ok());
  ir::ValueId v = back->graph.findValue("w.velocity");
  REQUIRE(back->graph.initializers.count(v));
  const ir::Tensor& t = back->graph.initializers.at(v);
  bool zeros = true;
  for (float f : t.span<float>()) zeros &= f == 0.0f;
  CHECK(zeros);
  ir::ValueId w = back->graph.findValue("w");
  CHECK(back->graph.initializers.at(w).data<float>()[4] == 1.0f);  // 4 % 7 - 3

  auto dense = pef::readPef(densePath);
  REQUIRE(dense.ok());
  CHECK(dense->graph.initializers.at(dense->graph.findValue("w.velocity")).data<float>()[12345] == 0.5f);

  std::filesystem::remove(zeroPath);
  std::filesystem::remove(densePath);
}

TEST_CASE("init recipes round-trip through the weights chunk and bad ones are refused", "[pef]") {
  ir::Graph g;
  g.name = "recipes";
  ir::ValueId w = g.addParam("w", ir::Tensor::deferred({ir::DType::F32, {64, 64}}, {ir::InitRecipe::Kind::Uniform, 0.5, 77}));
  ir::ValueId s = g.addConst("s", ir::Tensor::deferred({ir::DType::F32, {64, 64}}, {}));
  std::string bytes = pef::detail::encodeWeights(g);
  CHECK(bytes.size() < 256);  // two recipes, not 32 KiB of data

  ir::Graph back = g;
  back.initializers.clear();
  REQUIRE(pef::detail::decodeWeights(bytes, back).ok());
  REQUIRE(back.initializers.at(w).isDeferred());
  CHECK(*back.initializers.at(w).recipe() == *g.initializers.at(w).recipe());
  CHECK(back.initializers.at(s).recipe()->kind == ir::InitRecipe::Kind::Zeros);

  // The kind byte of the first entry's recipe: after count, name "w", dtype, flags, 2 reserved, rank, 2 dims, size.
  size_t kindAt = 4 + 4 + 1 + 4 + 4 + 2 * 8 + 8;
  REQUIRE(bytes[kindAt] == static_cast<char>(ir::InitRecipe::Kind::Uniform));
  std::string bad = bytes;
  bad[kindAt] = 9;
  back.initializers.clear();
  auto st = pef::detail::decodeWeights(bad, back);
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().message() == "weights for 'w': unknown init recipe kind 9");
}
