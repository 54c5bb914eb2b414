#include "analysis/ChipModel.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "lowering/KernelGraph.h"

namespace dfc::analysis {

namespace {

constexpr int kDr[4] = {-1, 0, 1, 0};
constexpr int kDc[4] = {0, 1, 0, -1};

// A bitfile from before PEF 1.4 has no tile geometry: its grid reads as one tile.
void setGeometry(const pef::Bitfile& b, ChipModel& m) {
  m.rows = b.gridRows;
  m.cols = b.gridCols;
  m.tiles = std::max<int>(1, b.tiles);
  const bool recorded = b.tileRows > 0 && b.tileCols > 0 && b.tilesPerChip > 0;
  m.tileRows = recorded ? b.tileRows : b.gridRows;
  m.tileCols = recorded ? b.tileCols : b.gridCols;
  m.tilesPerChip = recorded ? b.tilesPerChip : m.tiles;
  if (!recorded) m.tiles = 1;
}

ChipUnit makeUnit(const ir::Graph& g, const ChipModel& m, const pef::BitfileUnit& u) {
  ChipUnit c;
  c.row = u.row;
  c.col = u.col;
  c.tile = std::max(0, m.tileAt(u.row, u.col));
  c.chip = c.tile / std::max(1, m.tilesPerChip);
  c.pmu = u.kind == 1;
  const uint32_t role = u.config[0] >> 24;
  c.role = role <= static_cast<uint32_t>(lowering::KernelRole::Staging)
               ? std::string(lowering::kernelRoleName(static_cast<lowering::KernelRole>(role)))
               : "role " + std::to_string(role);
  c.stages = static_cast<int>((u.config[0] >> 16) & 0xff);
  c.slice = static_cast<int>(u.config[0] & 0xffff);
  c.node = static_cast<int>(u.config[1]);
  if (u.config[1] < g.nodes.size()) {
    const ir::Node& n = g.nodes[u.config[1]];
    c.nodeName = n.name;
    c.op = std::string(ir::opName(n.op));
  } else {
    c.nodeName = c.op = "?";
  }
  return c;
}

const pef::Bitfile* bitfileOf(const pef::Pef& pef, int hypersection) {
  for (const auto& b : pef.bitfiles)
    if (b.hypersection == hypersection) return &b;
  return nullptr;
}

}  // namespace

int ChipModel::tileAt(int row, int col) const {
  if (row < 0 || col < 0 || row >= rows || col >= cols || tileRows <= 0 || tileCols <= 0) return -1;
  const int tile = (row / tileRows) * (cols / tileCols) + col / tileCols;
  return tile < tiles ? tile : -1;
}

int ChipModel::maxLoad() const {
  int most = 0;
  for (const auto& l : links) most = std::max(most, l.load);
  return most;
}

int ChipModel::overCapacityLinks() const {
  return static_cast<int>(
      std::count_if(links.begin(), links.end(), [&](const ChipLink& l) { return overCapacity(l); }));
}

std::vector<std::string> ChipModel::ops() const {
  std::vector<std::string> out;
  for (const auto& u : units)
    if (std::find(out.begin(), out.end(), u.op) == out.end()) out.push_back(u.op);
  return out;
}

ChipModel chipModel(const pef::Pef& pef, const pef::Bitfile& b) {
  ChipModel m;
  m.title = m.hypersection = b.name;
  setGeometry(b, m);
  if (b.hypersection >= 0 && static_cast<size_t>(b.hypersection) < pef.plan.hypersections.size())
    for (int sid : pef.plan.hypersections[static_cast<size_t>(b.hypersection)].sections)
      m.sections.push_back(pef.plan.sections.at(static_cast<size_t>(sid)).name);
  m.capacity = b.linkCapacity;
  for (const auto& u : b.units) m.units.push_back(makeUnit(pef.graph, m, u));
  for (const auto& l : b.links)
    m.links.push_back({l.row, l.col, l.dir, l.row + kDr[l.dir & 3], l.col + kDc[l.dir & 3], l.load});
  std::sort(m.links.begin(), m.links.end(), [](const ChipLink& x, const ChipLink& y) {
    return std::tie(x.row, x.col, x.dir) < std::tie(y.row, y.col, y.dir);
  });
  return m;
}

Expected<ChipModel> chipModel(const pef::Pef& pef, const std::string& section) {
  const partition::Section* found = nullptr;
  for (const auto& s : pef.plan.sections)
    if (s.name == section) found = &s;
  if (!found) {
    std::string names;
    for (size_t i = 0; i < pef.plan.sections.size() && i < 4; ++i) names += (i ? ", " : "") + pef.plan.sections[i].name;
    if (pef.plan.sections.size() > 4) names += ", ...";
    return makeError("no section '" + section + "' in PEF " + pef.meta.pefName + " (its sections: " + names +
                     "; `dfc inspect` lists them)");
  }
  const pef::Bitfile* b = bitfileOf(pef, found->hypersection);
  if (!b) return makeError("section '" + section + "' has no bitfile (the PEF was written before placement)");
  ChipModel m = chipModel(pef, *b);
  m.title = section;
  return m;
}

ChipModel stepHeat(const pef::Pef& pef) {
  ChipModel m;
  m.title = "step";
  for (const auto& b : pef.bitfiles)  // the largest block of tiles holds every other one's tiles
    if (m.rows == 0 || b.tiles > m.tiles) setGeometry(b, m);
  const int across = std::max(1, static_cast<int>(std::ceil(std::sqrt(static_cast<double>(m.tiles)))));
  m.rows = (m.tiles + across - 1) / across * m.tileRows;
  m.cols = across * m.tileCols;
  m.heat.assign(static_cast<size_t>(m.rows) * static_cast<size_t>(m.cols), 0);
  std::map<int, const pef::Bitfile*> byHs;
  for (const auto& b : pef.bitfiles) byHs[b.hypersection] = &b;
  for (int sid : pef.plan.schedule) {
    ++m.calls;
    auto it = byHs.find(pef.plan.sections.at(static_cast<size_t>(sid)).hypersection);
    if (it == byHs.end()) continue;
    ChipModel own;
    setGeometry(*it->second, own);
    for (const auto& u : it->second->units) {
      const int tile = std::max(0, own.tileAt(u.row, u.col));  // the same global tile in the step's block
      const int row = tile / across * m.tileRows + u.row % std::max(1, own.tileRows);
      const int col = tile % across * m.tileCols + u.col % std::max(1, own.tileCols);
      if (row < m.rows && col < m.cols) ++m.heat[static_cast<size_t>(row * m.cols + col)];
    }
  }
  return m;
}

}  // namespace dfc::analysis
