#include "estimate/MemoryTiers.h"

#include <algorithm>
#include <limits>

#include "support/SizeBudget.h"

namespace dfc::estimate {

MemoryTiers::MemoryTiers(const arch::ArchSpec& arch) : m_arch(arch), m_hasHbm(arch.hbmGbps > 0) {}

double MemoryTiers::gbps(Tier t) const {
  return t == Tier::Hbm ? peakGbps(t) * m_arch.hbmEfficiency : peakGbps(t);
}

double MemoryTiers::peakGbps(Tier t) const {
  switch (t) {
    case Tier::Hbm: return m_arch.hbmGbps;
    case Tier::Ddr: return m_arch.ddrGbps;
    case Tier::Sram: return 0;
  }
  return 0;
}

double MemoryTiers::capacity(Tier t) const {
  const double unlimited = std::numeric_limits<double>::infinity();
  switch (t) {
    case Tier::Sram: return m_arch.sramBytesPerChip();
    case Tier::Hbm: return !m_hasHbm ? 0 : m_arch.hbmBytes > 0 ? m_arch.hbmBytes : unlimited;
    case Tier::Ddr: return m_arch.ddrBytes > 0 ? m_arch.ddrBytes : unlimited;
  }
  return 0;
}

void MemoryTiers::reserveHbm(double bytesPerChip) {
  double& used = m_used[static_cast<int>(Tier::Hbm)];
  used = std::min(capacity(Tier::Hbm), used + bytesPerChip);
}

Expected<Tier> MemoryTiers::place(const std::string& name, double bytesPerChip) {
  for (Tier t : {Tier::Hbm, Tier::Ddr}) {
    double& used = m_used[static_cast<int>(t)];
    if (used + bytesPerChip <= capacity(t)) {
      used += bytesPerChip;
      return t;
    }
  }
  return makeError("estimate: '" + name + "' (" + support::formatBytes(static_cast<uint64_t>(bytesPerChip)) +
                   " per chip) does not fit: HBM and DDR of " + m_arch.name + " are full (" +
                   support::formatBytes(static_cast<uint64_t>(used(Tier::Hbm) + used(Tier::Ddr))) + " placed); use more chips (--n-chips)");
}

}  // namespace dfc::estimate
