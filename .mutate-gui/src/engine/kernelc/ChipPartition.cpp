#include "kernelc/ChipPartition.h"

#include <algorithm>
#include <array>
#include <map>

namespace dfc::kernelc {
namespace {

// Free units per chip and kind (0 PCU, 1 PMU) of the grid.
std::vector<std::array<int, 2>> chipCapacity(const Grid& grid) {
  std::vector<std::array<int, 2>> free;
  for (int kind : {0, 1})
    for (const Site& s : grid.sites(kind == 0 ? lowering::UnitKind::Pcu : lowering::UnitKind::Pmu)) {
      if (static_cast<size_t>(s.chip) >= free.size()) free.resize(static_cast<size_t>(s.chip) + 1, {0, 0});
      ++free[static_cast<size_t>(s.chip)][static_cast<size_t>(kind)];
    }
  return free;
}

}  // namespace

std::vector<int> partitionByChip(const lowering::KernelGraph& g, const std::vector<int>& order, const Grid& grid) {
  std::vector<int> chipOf(g.ops.size(), 0);
  std::vector<std::array<int, 2>> free = chipCapacity(grid);
  if (free.size() <= 1) return chipOf;
  auto kindOf = [&](int k) { return static_cast<size_t>(g.ops[static_cast<size_t>(k)].unit == lowering::UnitKind::Pcu ? 0 : 1); };
  // The kernels of each math op (and its combine trees), ops in the order the dataflow first reaches them.
  std::vector<std::vector<int>> groups;
  std::map<ir::NodeId, size_t> groupOf;
  for (int k : order) {
    auto [it, fresh] = groupOf.try_emplace(g.ops[static_cast<size_t>(k)].node, groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(k);
  }
  size_t current = 0;
  auto fits = [&](size_t chip, const std::array<int, 2>& need) {
    return free[chip][0] >= need[0] && free[chip][1] >= need[1];
  };
  for (const std::vector<int>& group : groups) {
    std::array<int, 2> need{0, 0};
    for (int k : group) ++need[kindOf(k)];
    // A whole op on one chip: this one if it has room, else the next that does; one larger than a chip spills.
    size_t chip = current;
    while (chip < free.size() && !fits(chip, need)) ++chip;
    if (chip < free.size()) current = chip;
    for (int k : group) {
      const size_t kind = kindOf(k);
      size_t c = chip < free.size() ? chip : current;
      while (c < free.size() && free[c][kind] == 0) ++c;
      if (c == free.size())  // the later chips are full of this kind: the first with room (tilesFor: one has)
        c = static_cast<size_t>(std::find_if(free.begin(), free.end(), [&](const auto& f) { return f[kind] > 0; }) -
                                free.begin());
      --free[c][kind];
      chipOf[static_cast<size_t>(k)] = static_cast<int>(c);
      if (chip >= free.size()) current = c;
    }
  }
  return chipOf;
}

}  // namespace dfc::kernelc
