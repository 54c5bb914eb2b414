#pragma once
// Where the bytes a step reads from off-chip memory live, per chip: weights
// and KV cache go to HBM while they fit (in the order the step first reads
// them), to DDR after that; a chip without HBM keeps them all in DDR.
// Activations crossing a section boundary stream through the fastest
// off-chip tier. SRAM (the PMUs) holds what a section keeps on chip.
#include <map>
#include <string>
#include <vector>

#include "arch/ArchSpec.h"
#include "estimate/StepEstimate.h"

namespace dfc::estimate {

struct Resident {
  std::string name;
  double bytesPerChip = 0;
  Tier tier = Tier::Hbm;
};

class MemoryTiers {
 public:
  explicit MemoryTiers(const arch::ArchSpec& arch);
  // Places a resident tensor (first come, first served); an error when HBM
  // and DDR are both full.
  Expected<Tier> place(const std::string& name, double bytesPerChip);
  // HBM already taken by another model on the same chips (up to its capacity).
  void reserveHbm(double bytesPerChip);
  Tier activationTier() const { return m_hasHbm ? Tier::Hbm : Tier::Ddr; }
  double gbps(Tier t) const;      // sustained: what a step's streaming reads get (HBM: pin rate x hbm_efficiency)
  double peakGbps(Tier t) const;  // the pin rate
  double capacity(Tier t) const;  // 0: no such tier; HBM/DDR infinite when the arch gives no capacity
  double used(Tier t) const { return m_used[static_cast<int>(t)]; }

 private:
  const arch::ArchSpec& m_arch;
  bool m_hasHbm = false;
  double m_used[3] = {0, 0, 0};
};

}  // namespace dfc::estimate
