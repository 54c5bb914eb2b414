#pragma once
// Builds the run's chrome trace: the top row holds one slice per section call
// (the whole model run), one row per hyperfunction below it with the same
// calls marked as mirrors (category "<role>,mirror"; readers count a call
// once), a host row with the host-side phases, and a loss counter. Per call
// the slices carry what changes (step, bandwidth); each section's constant
// figures are written once, in otherData's `sections` table; otherData's
// `pef_hash` names the PEF that ran (Pef::contentHash).
#include <map>
#include <string>

#include "driver/report/HostBreakdown.h"
#include "pef/Pef.h"
#include "profile/TraceRecorder.h"
#include "runtime/ConvAlgo.h"

namespace dfc::driver {

// The gradient bytes a reduce section averages per call (its inputs).
double gradientBytes(const pef::Pef& pef, const partition::Section& s);

class RunTrace {
 public:
  // `rank`: this process's rank in a data-parallel run (0 alone); its rows go
  // under pid rank + 1, so rank 0 keeps the pid and name traces always had.
  RunTrace(const pef::Pef& pef, const std::string& runLabel, int rank = 0);

  static int64_t pidForRank(int rank) { return int64_t{rank} + 1; }
  int64_t pid() const { return m_pid; }
  static constexpr int64_t kWholeRunTid = 0;
  static constexpr int64_t kHostTid = 1;
  // Data parallel: each allreduce (MPI) call again, with bytes and achieved GB/s (below the hyperfunction rows).
  static constexpr int64_t kAllreduceTid = 1000;
  // The category token of a call's copy on its hyperfunction row ("forward,mirror").
  static constexpr const char* kMirrorCategory = "mirror";

  // Kept as five numbers while the run goes (tens of nanoseconds); the two
  // slices and their args are built by take(), after the run's last step.
  // A reduce section's call is built at once: its allreduce row needs the
  // algorithm in force at that call.
  void addSectionCall(int sectionId, int64_t step, double startUs, double durationUs, double bytes);
  // Data parallel: the allreduce algorithm the run uses (its row's name) and
  // its estimate per section (reduce sections; others 0).
  void setAllreduce(const std::string& algorithm, std::vector<double> estUsBySection);
  // One phase of an allreduce call (reduce-scatter, broadcast...), nested under
  // the call's allreduce slice: kept inside [callStartUs, callStartUs + callUs].
  void addAllreducePhase(const std::string& name, double startUs, double durationUs, double callStartUs, double callUs);
  // A host-row slice (driver/report/HostBreakdown.h names them); always counted in
  // the breakdown, written to the trace when `traced` (--trace-steps).
  void addHostPhase(std::string_view name, double startUs, double durationUs, bool traced = true,
                    profile::Args args = {});
  const HostBreakdown& hostBreakdown() const { return m_host; }
  // A slice on the whole-run row around one step's section calls (dfc run
  // --decode: "prefill", "prefill token", "decode step"); the calls nest in it.
  void addStepSlice(const std::string& name, double startUs, double durationUs, profile::Args args = {});
  void addLoss(double tsUs, double loss);
  void setMetadata(const std::string& key, const std::string& value);
  void setProcessLabel(const std::string& label);
  // The conv algorithm request of the run: each section call's `conv_algo` arg
  // names what its convolutions run with (none for sections without convs).
  void setConvAlgo(runtime::ConvAlgoRequest request);  // the process row's name (data parallel: "rank 1 (host) ...")
  profile::Trace take();

 private:
  struct SectionCall {
    int sectionId;
    int64_t step;
    double startUs, durationUs, bytes;
  };
  void loadPlacement();
  void addSectionSlices(const SectionCall& call);
  std::string sectionsJson() const;
  static double fourDigits(double v);  // 4 significant digits: a rate needs no 17
  struct SectionConstants {
    bool called = false;
    double bytes = 0;  // host bytes a call moves (from tensor sizes: the same every call)
  };
  std::vector<SectionConstants> m_constants;  // per section
  std::vector<SectionCall> m_calls;  // recorded, not yet slices
  void addAllreduce(const partition::Section& s, int64_t step, double startUs, double durationUs, profile::Args& args);
  bool m_allreduceRow = false;
  std::string m_allreduceAlgorithm = "MPI";
  std::vector<double> m_allreduceEstUs;  // per section; empty: the compile's estimate
  HostBreakdown m_host;
  const pef::Pef& m_pef;
  const int64_t m_pid;
  profile::TraceRecorder m_recorder;
  std::map<std::string, int64_t> m_hyperfunctionTid;
  std::vector<int64_t> m_sectionTid;  // per section: its hyperfunction row
  std::vector<std::string> m_convAlgos;  // per section: runtime::describeConvAlgos, "" without convs
  struct Placed {                     // layer 3, from the PEF's compile report
    double pcus = 0, pmus = 0, hops = 0, minLatencyUs = 0, maxLatencyUs = 0;
    bool known = false;
  };
  std::vector<Placed> m_placed;       // per section
};

}  // namespace dfc::driver
