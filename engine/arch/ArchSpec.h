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
  double pcieGbps = 0;
  double networkHopNs = 0;

  int totalPcus() const { return tiles * pcusPerTile; }
  int totalPmus() const { return tiles * pmusPerTile; }
  // Bandwidth of the memory weights and activations spill to: HBM if present, else DDR.
  double offChipGbps() const { return hbmGbps > 0 ? hbmGbps : ddrGbps; }
};

std::vector<std::string> archPresetNames();  // sn10, sn20, sn30, sn40l
std::string defaultArchName();               // what "native" means
// `nameOrPath`: a preset name, "native", or a path to a YAML file. Errors name
// the file and the missing or bad key.
Expected<ArchSpec> loadArch(const std::string& nameOrPath);
Expected<ArchSpec> parseArchYaml(const std::string& yamlText, const std::string& sourceName);

}  // namespace dfc::arch
