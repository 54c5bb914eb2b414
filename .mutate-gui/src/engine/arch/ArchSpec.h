#pragma once
// The modelled chip, loaded from resources/arch/<name>.yaml or a file path.
// The cost model reads only these figures.
#include <string>
#include <vector>

#include "support/Error.h"

namespace dfc::arch {

struct ArchSpec {
  std::string name;
  int tiles = 0;
  int pcusPerTile = 0;
  int pmusPerTile = 0;
  double pmuBytes = 0;
  int pcuLanes = 0;
  int pcuStages = 0;
  double clockGhz = 0;
  double peakTflops = 0;
  double ddrGbps = 0;
  double hbmGbps = 0;  // 0: no HBM; off-chip traffic goes to DDR
  // Share of the HBM pin bandwidth a long streaming read sustains (refresh,
  // bank and page turnarounds); the step estimate (engine/estimate) charges
  // HBM at hbmGbps x this. 1 when the file is silent.
  double hbmEfficiency = 1;
  double pcieGbps = 0;
  // Memory tiers per chip (arch/MemoryTiers.h): SRAM is the PMUs (pmuBytes x
  // PMUs); HBM and DDR capacities in bytes. 0 when the file is silent: no
  // limit, so an old arch file places everything in its fastest off-chip tier.
  double hbmBytes = 0;
  double ddrBytes = 0;
  // Chip-to-chip link of one node (tensor-parallel collectives): bandwidth per
  // chip and latency per message. 0 bandwidth when the file is silent: PCIe's.
  double chipLinkGbps = 0;
  double chipLinkLatencyUs = 1;
  double networkHopNs = 0;
  // On-chip network: each tile is a grid of units, PCUs and PMUs in a
  // checkerboard ((row + col) even: PCU). 0 in the file: derived from the unit counts.
  int gridRows = 0;
  int gridCols = 0;
  double networkLinkGbps = 0;  // bandwidth of one network link (0: not given)
  int networkLinkTracks = 0;   // routes one link between switches carries (0: not given; the router's default)
  // Data parallel: the link between replicas (one per rank) that gradient
  // allreduces cross. Our assumption when the file is silent: a 200 Gb/s
  // InfiniBand-class NIC per node (25 GB/s) with 5 us per message hop.
  double dpLinkGbps = 25;
  double dpLinkLatencyUs = 5;
  // Resource limits from the command line (scaleArch): chips the sections may
  // span; `tiles` above is already limited by --num-tiles.
  int chips = 1;
  int tilesPerChip() const { return tiles; }

  int totalPcus() const { return chips * tiles * pcusPerTile; }
  int totalPmus() const { return chips * tiles * pmusPerTile; }
  int pcusPerChip() const { return tiles * pcusPerTile; }
  // FLOP per cycle of one PCU: lanes x stages multiply-adds.
  double pcuFlopPerCycle() const { return 2.0 * pcuLanes * pcuStages; }
  // Bandwidth of the memory weights and activations spill to: HBM if present, else DDR.
  double offChipGbps() const { return hbmGbps > 0 ? hbmGbps : ddrGbps; }
  double sramBytesPerChip() const { return static_cast<double>(tiles) * pmusPerTile * pmuBytes; }
  double chipLinkGbpsOrPcie() const { return chipLinkGbps > 0 ? chipLinkGbps : pcieGbps; }
};

std::vector<std::string> archPresetNames();  // sn10, sn20, sn30, sn40l
std::string defaultArchName();               // what "native" means
// `nameOrPath`: a preset name, "native", or a path to a YAML file. Errors name
// the file and the missing or bad key.
Expected<ArchSpec> loadArch(const std::string& nameOrPath);
// A preset by name ("native" and "" included), never a path: for names read
// from files (a PEF's meta). `what` leads the error ("the PEF's arch").
Expected<ArchSpec> loadArchPreset(const std::string& name, const std::string& what);
Expected<ArchSpec> parseArchYaml(const std::string& yamlText, const std::string& sourceName);
// Applies --n-chips (1..maxChips: resources multiply; sections spanning chips
// pay PCIe traffic) and --num-tiles (1, 2, 4, 8; 0 = all; at most the chip's
// tiles: peak TFLOP/s shrinks with the tiles used). Errors name the flag.
// Training maps onto at most kMaxTrainingChips (the decision files and the
// data-parallel hierarchy are sized for one 8-socket node); inference up to
// kMaxInferenceChips (a 16-socket rack, tensor parallel).
constexpr int kMaxTrainingChips = 8;
constexpr int kMaxInferenceChips = 16;
Expected<ArchSpec> scaleArch(const ArchSpec& arch, int nChips, int numTiles, int maxChips = kMaxTrainingChips);

}  // namespace dfc::arch
