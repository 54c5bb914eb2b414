#pragma once
// Plain data behind the Memory screen: the PEF's memory over the schedule
// (engine/analysis/MemoryTimeline, what `dfc inspect --memory` prints) with
// the names the screen shows: each call's section, each tensor's name and the
// operator that makes it (the graph selects it on a click).
#include <QString>
#include <vector>

#include "analysis/MemoryTimeline.h"
#include "pef/Pef.h"

namespace dfc::views {

using analysis::MemKind;
using analysis::MemTier;

struct MemoryTensorInfo {
  QString name;
  ir::NodeId producer = ir::kNoNode;  // kNoNode: an input, a weight or state
  QString producerName;               // the operator's name, "" without one
  int producerSection = -1;
};

struct MemoryViewData {
  QString title;
  QString error;  // why there is no timeline (an unknown arch); empty otherwise
  analysis::MemoryTimeline timeline;
  std::vector<int> callSections;          // per call of the schedule: its section id
  std::vector<QString> sectionNames;      // by section id
  std::vector<MemoryTensorInfo> tensors;  // per timeline tensor
  QString csv;                            // `dfc inspect --memory --csv` of the same PEF

  bool empty() const { return timeline.points.empty(); }
  int calls() const { return static_cast<int>(timeline.points.size()); }
  // The bars the chart stacks at `call` in `tier`, one per kind.
  std::array<int64_t, analysis::kMemKinds> stack(int call, MemTier tier) const;
  int64_t stackTotal(int call, MemTier tier) const;
  // The tallest stack of `tier` over the step (the chart's scale).
  int64_t maxTotal(MemTier tier) const;
  const analysis::TierPeak& peak(MemTier tier) const { return timeline.peaks[static_cast<size_t>(tier)]; }
};

// Reads the arch the PEF was compiled for (analysis::compiledArch, as `dfc inspect`).
MemoryViewData buildMemoryViewData(const pef::Pef& pef);

// The same CSV `dfc inspect --memory --csv` writes (one row per call, tier and kind).
QString memoryViewCsv(const MemoryViewData& data);
QString memTierDisplayName(MemTier tier);  // translated: "On-chip SRAM", "HBM", "DDR", "Host arena"
QString memKindDisplayName(MemKind kind);  // translated

}  // namespace dfc::views
