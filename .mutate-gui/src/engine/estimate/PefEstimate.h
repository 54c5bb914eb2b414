#pragma once
// The estimate of a PEF on disk (dfc estimate, dfstudio's Schedule screen):
// reads it for viewing (no weights allocated), loads its arch preset by name
// (never as a path: the name is data from the file) or the --arch override,
// takes the chips from its compile command line unless given, and the tokens
// a decode step takes from its graph.
#include <optional>
#include <string>

#include "estimate/Speculative.h"
#include "estimate/StepEstimate.h"
#include "pef/Pef.h"

namespace dfc::estimate {

struct PefEstimateRequest {
  std::string pefPath;
  std::string arch;              // "": the PEF's own
  std::optional<int> chips;      // none: the PEF's --n-chips (inference) or 1
  EstimateOptions options;       // chips is filled in from the above
};

// The chips a PEF was compiled for (its --n-chips, 1 when absent); an error
// when the PEF's arguments give no whole number in 1..16.
Expected<int> compiledChips(const pef::PefMeta& meta);
Expected<StepEstimate> estimatePef(const pef::Pef& pef, PefEstimateRequest request);
Expected<StepEstimate> estimatePef(const PefEstimateRequest& request);

// The target PEF of `request` decoded speculatively with the draft PEF at
// `draftPath` (both decode steps, one vocabulary), on the target's chips and arch.
Expected<SpeculativeEstimate> estimateSpeculativePef(const PefEstimateRequest& request, const std::string& draftPath,
                                                     const SpeculativeOptions& speculative);

// Text for a terminal, JSON for tools (units in the key names).
std::string formatEstimate(const StepEstimate& e);
std::string estimateJson(const StepEstimate& e);
// One line per section call: its FLOP, bytes per tier and times.
std::string formatSections(const StepEstimate& e);
std::string formatSpeculative(const SpeculativeEstimate& s);
std::string speculativeJson(const SpeculativeEstimate& s);

}  // namespace dfc::estimate
