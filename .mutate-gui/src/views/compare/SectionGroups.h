#pragma once
// Two compiles of one model matched by provenance: a section on one side and
// a section on the other belong together when they hold an operator of the
// same name (operator names and hyperfunction paths are the model's, so any
// two compiles of it share them), whatever their ids, hypersection numbers or
// order. A group is a connected piece of that relation: one -o3 section with
// the N -o1 sections whose operators it holds is one group. Each group sums
// its sections' estimated and measured time per step on each side, so the
// groups of a side add up to that side's whole step.
#include <QString>
#include <map>
#include <optional>
#include <vector>

#include "pef/Pef.h"
#include "profile/CompactTrace.h"

namespace dfc::views {

// How a group's sections changed from the left compile to the right one.
enum class SectionChange {
  Unchanged,  // one section on each side, holding the same operators
  Merged,     // several left sections became one right section
  Split,      // one left section became several right sections
  Regrouped,  // several on each side: operators moved between sections
  OnlyLeft,   // its operators are not in the right compile
  OnlyRight,  // ... not in the left compile
};
QString sectionChangeName(SectionChange change);  // translated: "merged", "only left"
QString sectionChangeKey(SectionChange change);   // untranslated, stable: "merged", "only-left"

struct SectionGroup {
  std::vector<int> sections[2];         // section ids per side, ascending
  int ops[2] = {0, 0};                  // operators its sections hold, per side
  int calls[2] = {0, 0};                // section calls per step (the schedule)
  double estUs[2] = {0, 0};             // estimated time per step
  std::optional<double> measuredUs[2];  // measured time per step; empty: that side was not run
  SectionChange change = SectionChange::Unchanged;
  QString holds;                        // "forward: h.0, h.1, ln_f, lm_head"
  QString names[2];                     // "s0_forward", "42 sections (s1_embedding ... s92_lm_head)"
  // Measured when both sides were run, else estimated.
  bool measured() const { return measuredUs[0].has_value() && measuredUs[1].has_value(); }
  double deltaUs() const { return measured() ? *measuredUs[1] - *measuredUs[0] : estUs[1] - estUs[0]; }
};

struct SectionMatch {
  std::vector<SectionGroup> groups;       // biggest change first
  std::map<int, int> groupOfSection[2];   // per side: section id -> index into groups
  double totalEstUs[2] = {0, 0};          // each side's whole step, estimated
  std::optional<double> totalMeasuredUs[2];
  // The group of a section (-1: none).
  int groupOf(int side, int section) const;
};

// trace: that side's run (null: estimates only). Measured time per step is a
// section's calls on the whole-run row (tid 0) over the run's steps; calls
// that name no section form a group of their own on that side.
SectionMatch matchSections(const pef::Pef& left, const profile::CompactTrace* leftTrace, const pef::Pef& right,
                           const profile::CompactTrace* rightTrace);

}  // namespace dfc::views
