#pragma once
// Plain data behind the section schedule screen, built from a PEF plus the
// measured section times of its latest run (if any) and the arch's capacity.
#include <QString>
#include <QStringList>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "driver/report/SectionReport.h"
#include "estimate/StepEstimate.h"
#include "pef/Pef.h"

namespace dfc::views {

struct ScheduleSection {
  int id = 0;
  QString name;
  QString type;           // forward / backward / optimizer
  QString hyperfunction;
  QString hypersection;   // name of its hypersection
  int hypersectionId = 0;
  int pcus = 0, pmus = 0;                 // the cost model's estimate
  std::optional<int> placedPcus, placedPmus;  // after placement (compile report layer 3)
  double estLatencyUs = 0;
  std::optional<double> measuredMeanUs;  // from the run store; empty if never run
  long long calls = 0;                   // measured calls
  double tflop = 0;
  int tiledPasses = 0;                   // > 0: an operator too big for a section runs in this many passes
  // Kernels the host runs fused in it: "attention h.0/attn (forward), 64x128 tiles"
  // (driver/report/FusedAttentionReport.h)
  QStringList fusedKernels;
  // Why it starts apart from the section before it (partition/CutReason.h): the reason's
  // words ("783 PCUs open + ..."), and with its kind first for the tooltip ("pcu_budget: 783 ...").
  QString why;
  QString whyWithKind;
};

struct ScheduleData {
  QString title;
  QString arch;
  int archPcus = 0;  // capacity of the arch; 0 if unknown
  int archPmus = 0;
  std::vector<ScheduleSection> sections;  // by section id
  std::vector<int> schedule;              // section ids in call order (one step)
  std::vector<driver::SectionReportRow> report;  // the section report's rows (every column `dfc report` writes)
  // The chip estimate of one step as `dfc estimate` prints it (empty when
  // the PEF's arch cannot be loaded or the estimate refuses the PEF).
  std::optional<estimate::StepEstimate> estimate;
  bool hasMeasured() const;
  const ScheduleSection* section(int id) const;
};

// One hypersection of a step: its sections' calls and times summed (the
// schedule screen's "group by hypersection"; gpt2's 322 sections are ~10 rows).
struct HypersectionRow {
  QString name;
  int sections = 0;          // distinct sections that are instances of it
  int callsPerStep = 0;      // how often the schedule calls them in one step
  double estPerStepUs = 0;   // estimate x calls, summed
  std::optional<double> measuredPerStepUs;  // measured mean x calls, summed over measured sections
  int peakPcus = 0;          // the largest estimate among its sections
};
// In order of the first call in the schedule.
std::vector<HypersectionRow> groupByHypersection(const ScheduleData& data);

// Hypersections by cost, costliest first, with their time per step: measured
// where the latest run measured any (one never measured comes after those,
// by its estimate), else the estimate. `measured` says which.
struct CostRanking {
  std::vector<std::pair<QString, double>> order;  // (hypersection, us per step)
  bool measured = false;
  QString basis() const;  // "measured time per step" or "estimated time per step", translated
};
CostRanking rankByCost(const ScheduleData& data);

// section id -> (sum of measured microseconds, number of calls)
using MeasuredSections = driver::MeasuredSections;

// Reads the arch capacity with arch::loadArch(pef.meta.arch); an unknown arch leaves it 0.
ScheduleData buildScheduleData(const pef::Pef& pef, const MeasuredSections& measured);

// section_report.csv as `dfc report` writes it (driver/report/SectionReport.h).
QString sectionReportCsv(const ScheduleData& data);

}  // namespace dfc::views
