// The chip model (analysis/ChipModel.h) of a hand-built 2x3 bitfile, one tile:
//   row 0:  PCU mm   PMU mm   (free)
//   row 1:  (free)   PCU act  PMU act
// links, capacity 2: (0,0)->(0,1) E load 1, (0,1)->(1,1) S load 3 (over),
// (1,1)->(1,2) E load 2 (exactly full). Two sections share the bitfile and
// the step calls s0, s1, s0: each unit's cell is busy in all 3 calls, the free cells in none.
#include <catch2/catch.hpp>

#include "analysis/ChipModel.h"
#include "unit/ir/SampleGraph.h"

using namespace dfc;

namespace {

pef::BitfileUnit unit(uint8_t kind, uint16_t row, uint16_t col, uint32_t role, uint32_t stages, uint32_t node) {
  pef::BitfileUnit u;
  u.kind = kind;
  u.row = row;
  u.col = col;
  u.config[0] = role << 24 | stages << 16 | 0;
  u.config[1] = node;
  return u;
}

pef::Pef handPef() {
  pef::Pef p;
  p.meta.pefName = "hand";
  ir::Graph& g = p.graph;
  const ir::ValueId x = g.addInput("x", {ir::DType::F32, {2, 4}});
  const ir::ValueId w = g.addParam("w", ir::Tensor({ir::DType::F32, {4, 4}}));
  const ir::ValueId a =
      ir::test::add(g, ir::OpKind::MatMul, "mm", {x, w}, {"a"}, {{"trans_a", int64_t{0}}, {"trans_b", int64_t{0}}})[0];
  ir::test::add(g, ir::OpKind::Relu, "act", {a}, {"b"});
  for (int i = 0; i < 2; ++i) {
    partition::Section s;
    s.id = i;
    s.name = "s" + std::to_string(i);
    s.nodes = {0, 1};
    p.plan.sections.push_back(s);
  }
  p.plan.hypersections.push_back({0, "hs0", {0, 1}});
  p.plan.schedule = {0, 1, 0};
  pef::Bitfile b;
  b.name = "hs0";
  b.gridRows = 2, b.gridCols = 3, b.tiles = 1;
  b.tileRows = 2, b.tileCols = 3, b.tilesPerChip = 1, b.linkCapacity = 2;
  b.units = {unit(0, 0, 0, 0, 4, 0), unit(1, 0, 1, 2, 0, 0), unit(0, 1, 1, 1, 2, 1), unit(1, 1, 2, 4, 0, 1)};
  b.links = {{0, 0, 1, 1}, {0, 1, 2, 3}, {1, 1, 1, 2}};
  p.bitfiles.push_back(b);
  return p;
}

}  // namespace

TEST_CASE("the text grid of a hand-built 2x3 bitfile is exact", "[analysis][chip]") {
  const pef::Pef p = handPef();
  auto chip = analysis::chipModel(p, "s1");
  REQUIRE(chip.ok());
  CHECK(analysis::formatChip(*chip) ==
        "chip of section s1 (hypersection hs0, its bitfile shared by 2 sections): 2x3 cells, 1 tile of 2x3 on 1 chip\n"
        "4 units: 2 PCUs, 2 PMUs\n"
        "\n"
        "Aa.\n"
        ".Bb\n"
        "\n"
        "legend: a letter per op, upper case on a PCU, lower case on a PMU; '.' a free cell\n"
        "  A/a  matmul                  1 PCUs    1 PMUs\n"
        "  B/b  relu                    1 PCUs    1 PMUs\n"
        "links: 3 routed, capacity 2 nets each, most loaded 3/2, 1 over capacity:\n"
        "  (0,1) -> (1,1)  3/2\n");
}

TEST_CASE("chip units carry the op, role, stages and slice of their bitfile config", "[analysis][chip]") {
  auto chip = analysis::chipModel(handPef(), "s0");
  REQUIRE(chip.ok());
  REQUIRE(chip->units.size() == 4);
  const analysis::ChipUnit& pcu = chip->units[0];
  CHECK(pcu.op == "matmul");
  CHECK(pcu.nodeName == "mm");
  CHECK(pcu.role == "gemm");
  CHECK(pcu.stages == 4);
  CHECK_FALSE(pcu.pmu);
  CHECK(chip->units[1].role == "weights");
  CHECK(chip->units[2].role == "stage");
  CHECK(chip->units[3].role == "out_buffer");
  // Exactly full is not over capacity; one more is.
  REQUIRE(chip->links.size() == 3);
  CHECK_FALSE(chip->overCapacity(chip->links[2]));
  CHECK(chip->overCapacity(chip->links[1]));
  CHECK(chip->links[1].toRow == 1);
  CHECK(chip->links[1].toCol == 1);
}

TEST_CASE("a section that is not in the PEF is an error naming it", "[analysis][chip]") {
  auto chip = analysis::chipModel(handPef(), "s9");
  REQUIRE_FALSE(chip.ok());
  CHECK_THAT(chip.error().message(), Catch::Contains("no section 's9'"));
}

TEST_CASE("the step heat map counts the calls busy on each cell", "[analysis][chip]") {
  const analysis::ChipModel heat = analysis::stepHeat(handPef());
  CHECK(heat.calls == 3);
  CHECK(heat.heat == std::vector<int>{3, 3, 0, 0, 3, 3});
}

TEST_CASE("the ops of one section never share a colour, and an op keeps its own where it can", "[analysis][chip]") {
  const auto alone = analysis::opColours({"concat"});
  const auto both = analysis::opColours({"concat", "slice"});  // their hashes share a slot (17 of 20)
  CHECK(both.at("concat") == alone.at("concat"));
  CHECK(both.at("slice") != both.at("concat"));
  CHECK(analysis::opColours({"slice"}).at("slice") == both.at("concat"));
}
