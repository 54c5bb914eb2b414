#pragma once
// The placed chip of a section: its hypersection's bitfile as plain data for
// `dfc inspect --chip` and dfstudio's chip view. Every cell of the placed
// tiles (over all chips), each unit with the IR op it holds, and each routed
// on-chip link with the nets the router put on it against the link capacity
// (both recorded in the bitfile since PEF 1.4, pef/Bitfile.h). A step model
// instead counts, per cell, the section calls of the schedule that keep a
// unit there busy (the step's heat map).
#include <map>
#include <string>
#include <vector>

#include "pef/Pef.h"
#include "support/Error.h"

namespace dfc::analysis {

struct ChipUnit {
  int row = 0, col = 0;    // global cell
  int tile = 0, chip = 0;  // global tile index (chip * tiles per chip + tile)
  bool pmu = false;
  std::string role;  // the kernel role (lowering::KernelRole): "gemm", "weights", ...
  int stages = 0, slice = 0;
  int node = -1;             // IR node id
  std::string nodeName, op;  // the IR node's name and op ("?" when the id is not in the graph)
};

struct ChipLink {
  int row = 0, col = 0;      // the switch it leaves
  int dir = 0;               // 0 N, 1 E, 2 S, 3 W
  int toRow = 0, toCol = 0;  // the neighbour it enters
  int load = 0;              // routed nets on it
};

struct ChipModel {
  std::string title;                  // the section (or "step")
  std::string hypersection;           // "" for a step model
  std::vector<std::string> sections;  // the instances sharing the bitfile
  int rows = 0, cols = 0;             // the whole block of tiles
  int tileRows = 0, tileCols = 0, tiles = 0, tilesPerChip = 1;
  int capacity = 0;             // nets per link; 0: links not recorded (a PEF before 1.4)
  std::vector<ChipUnit> units;  // in kernel op order
  std::vector<ChipLink> links;  // links with a load, in switch order
  std::vector<int> heat;        // step model: per cell (row * cols + col), calls busy there
  int calls = 0;                // step model: section calls per step

  int chips() const { return tiles == 0 ? 0 : (tiles + tilesPerChip - 1) / tilesPerChip; }
  int tileAt(int row, int col) const;  // the tile holding a cell, or -1 off the tiles
  bool overCapacity(const ChipLink& l) const { return capacity > 0 && l.load > capacity; }
  int maxLoad() const;
  int overCapacityLinks() const;
  std::vector<std::string> ops() const;  // the distinct ops of its units, in order of first appearance
};

// The bitfile of section `section` (its name); an error names it when the PEF
// has no such section or no bitfile for it.
Expected<ChipModel> chipModel(const pef::Pef& pef, const std::string& section);
// The bitfile as it is (the title is its hypersection's name).
ChipModel chipModel(const pef::Pef& pef, const pef::Bitfile& bitfile);
// The step's heat map over the largest bitfile's block of tiles.
ChipModel stepHeat(const pef::Pef& pef);

// One char per cell (a letter per op: upper case PCU, lower case PMU; '.' a
// free cell), a legend, and the links over capacity with load/capacity.
std::string formatChip(const ChipModel& chip);
// The grid as SVG: units coloured by op, links by load against capacity.
std::string chipSvg(const ChipModel& chip);

// Colours every view shares ("#rrggbb"). Ops: each takes the palette slot of
// a hash of its name (the same in every section and view), or, when an op
// earlier in `ops` holds it, the next free one: the ops of one section never
// share a colour (up to the palette's 20). A link's by load / capacity,
// green to amber at exactly full, red over.
std::map<std::string, std::string> opColours(const std::vector<std::string>& ops);
std::string linkColour(int load, int capacity);
inline constexpr const char* kOverCapacityColour = "#d62728";

}  // namespace dfc::analysis
