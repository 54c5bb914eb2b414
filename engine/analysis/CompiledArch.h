#pragma once
// The arch a PEF was compiled for: its preset, scaled to its --n-chips. The
// memory and roofline views (dfc inspect and dfstudio) read their capacities
// and roofs from it, so both show the same figures.
#include "arch/ArchSpec.h"
#include "pef/Pef.h"
#include "support/Error.h"

namespace dfc::analysis {

Expected<arch::ArchSpec> compiledArch(const pef::PefMeta& meta);

}  // namespace dfc::analysis
