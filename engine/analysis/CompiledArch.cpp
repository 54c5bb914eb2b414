#include "analysis/CompiledArch.h"

#include "estimate/PefEstimate.h"

namespace dfc::analysis {

Expected<arch::ArchSpec> compiledArch(const pef::PefMeta& meta) {
  auto a = arch::loadArchPreset(meta.arch, "the PEF's arch");
  if (!a) return a.error();
  auto chips = estimate::compiledChips(meta);
  if (!chips) return chips.error();
  return *chips == 1 ? *a : arch::scaleArch(*a, *chips, 0, arch::kMaxInferenceChips);
}

}  // namespace dfc::analysis
