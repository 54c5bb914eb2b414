#include "kernelc/Grid.h"

#include <cmath>

namespace dfc::kernelc {

Grid::Grid(const arch::ArchSpec& arch, int tiles) : m_tiles(tiles) {
  const int across = std::max(1, static_cast<int>(std::ceil(std::sqrt(static_cast<double>(tiles)))));
  const int down = (tiles + across - 1) / across;
  m_tileRows = std::max(1, arch.gridRows);
  m_tileCols = std::max(1, arch.gridCols);
  m_across = across;
  m_tilesPerChip = std::max(1, arch.tiles);
  m_rows = down * arch.gridRows;
  m_cols = across * arch.gridCols;
  m_cellSite.assign(static_cast<size_t>(m_rows * m_cols), -1);
  m_cellKind.assign(static_cast<size_t>(m_rows * m_cols), -1);
  for (int t = 0; t < tiles; ++t) {
    int r0 = (t / across) * arch.gridRows, c0 = (t % across) * arch.gridCols;
    int pcus = 0, pmus = 0;
    for (int r = 0; r < arch.gridRows; ++r)
      for (int c = 0; c < arch.gridCols; ++c) {
        bool pcuCell = (r + c) % 2 == 0;
        int& used = pcuCell ? pcus : pmus;
        if (used >= (pcuCell ? arch.pcusPerTile : arch.pmusPerTile)) continue;
        ++used;
        auto& list = pcuCell ? m_pcus : m_pmus;
        size_t cell = static_cast<size_t>((r0 + r) * m_cols + c0 + c);
        m_cellSite[cell] = static_cast<int>(list.size());
        m_cellKind[cell] = pcuCell ? 0 : 1;
        list.push_back({r0 + r, c0 + c, t, t / std::max(1, arch.tiles)});
      }
  }
}

int Grid::siteAt(lowering::UnitKind kind, int row, int col) const {
  if (row < 0 || col < 0 || row >= m_rows || col >= m_cols) return -1;
  size_t cell = static_cast<size_t>(row * m_cols + col);
  return m_cellKind[cell] == (kind == lowering::UnitKind::Pcu ? 0 : 1) ? m_cellSite[cell] : -1;
}

}  // namespace dfc::kernelc
