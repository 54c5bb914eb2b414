#pragma once
// The physical unit grid of the chip(s): each tile is a gridRows x gridCols
// checkerboard ((row + col) even: PCU, odd: PMU; cells past the tile's unit
// counts stay empty). Tiles are laid side by side in a near-square block;
// tiles of different chips are joined by PCIe, which costs kChipHops hops.
#include <vector>

#include "arch/ArchSpec.h"
#include "lowering/KernelGraph.h"

namespace dfc::kernelc {

struct Site {
  int row = 0;   // global cell coordinates
  int col = 0;
  int tile = 0;  // global tile index (chip * tiles per chip + tile)
  int chip = 0;
};

class Grid {
 public:
  static constexpr int kChipHops = 256;  // a PCIe crossing, in on-chip hop equivalents

  // The first `tiles` tiles of `arch` (over all its chips).
  Grid(const arch::ArchSpec& arch, int tiles);
  int rows() const { return m_rows; }
  int cols() const { return m_cols; }
  int tiles() const { return m_tiles; }
  const std::vector<Site>& sites(lowering::UnitKind kind) const {
    return kind == lowering::UnitKind::Pcu ? m_pcus : m_pmus;
  }
  // Site index of cell (row, col) among `kind`'s sites, or -1.
  int siteAt(lowering::UnitKind kind, int row, int col) const;
  // The chip whose tile holds cell (row, col), or -1 outside every tile (the
  // block's unused corner): the router's switches sit on the tiles' cells.
  int chipAt(int row, int col) const {
    if (row < 0 || col < 0 || row >= m_rows || col >= m_cols) return -1;
    int tile = (row / m_tileRows) * m_across + col / m_tileCols;
    return tile < m_tiles ? tile / m_tilesPerChip : -1;
  }
  int hops(const Site& a, const Site& b) const {
    int d = (a.row > b.row ? a.row - b.row : b.row - a.row) + (a.col > b.col ? a.col - b.col : b.col - a.col);
    return a.chip == b.chip ? d : d + kChipHops;
  }

 private:
  int m_rows = 0, m_cols = 0, m_tiles = 0;
  int m_tileRows = 1, m_tileCols = 1, m_across = 1, m_tilesPerChip = 1;
  std::vector<Site> m_pcus, m_pmus;
  std::vector<int> m_cellSite;  // row * cols + col -> site index in its kind's list, or -1
  std::vector<signed char> m_cellKind;  // 0 PCU, 1 PMU, -1 empty
};

}  // namespace dfc::kernelc
