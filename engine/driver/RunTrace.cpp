#include "driver/RunTrace.h"

namespace dfc::driver {

RunTrace::RunTrace(const pef::Pef& pef, const std::string& runLabel) : m_pef(pef) {
  m_recorder.setProcessName(kPid, runLabel);
  m_recorder.setThreadName(kPid, kWholeRunTid, "whole model run", 0);
  m_recorder.setThreadName(kPid, kHostTid, "host", 1);
  // One row per hyperfunction, in order of first appearance in the schedule.
  m_sectionTid.assign(pef.plan.sections.size(), kWholeRunTid);
  for (int id : pef.plan.schedule) {
    const auto& s = pef.plan.sections.at(static_cast<size_t>(id));
    std::string hf = s.hyperfunction.empty() ? "(top level)" : s.hyperfunction;
    auto [it, inserted] = m_hyperfunctionTid.try_emplace(hf, static_cast<int64_t>(m_hyperfunctionTid.size()) + 2);
    if (inserted) m_recorder.setThreadName(kPid, it->second, hf, it->second);
    m_sectionTid[static_cast<size_t>(id)] = it->second;
  }
}

void RunTrace::addSectionCall(int sectionId, int64_t step, double startUs, double durationUs, double bytes) {
  const auto& s = m_pef.plan.sections.at(static_cast<size_t>(sectionId));
  const auto& hs = m_pef.plan.hypersections.at(static_cast<size_t>(s.hypersection));
  const auto& e = s.estimate;
  profile::Args args{
      {"section_id", static_cast<double>(s.id)},
      {"section", s.name},
      {"hypersection", hs.name},
      {"hyperfunction", s.hyperfunction},
      {"type", std::string(ir::roleName(s.type))},
      {"step", static_cast<double>(step)},
      {"est_latency_us", e.latencyUs},
      {"measured_us", durationUs},
      {"tflop", e.flop / 1e12},
      {"pcus", static_cast<double>(e.pcus)},
      {"pmus", static_cast<double>(e.pmus)},
      {"ddr_bytes", e.ddrBytes},
      {"host_bytes", bytes},
      {"host_gbps", durationUs > 0 ? bytes / (durationUs * 1e3) : 0.0},
      {"host_tflops", durationUs > 0 ? e.flop / (durationUs * 1e6) : 0.0},
  };
  std::string cat(ir::roleName(s.type));
  m_recorder.addSlice(kPid, kWholeRunTid, hs.name, cat, startUs, durationUs, args);
  m_recorder.addSlice(kPid, m_sectionTid[static_cast<size_t>(sectionId)], hs.name, cat, startUs, durationUs,
                      std::move(args));
}

void RunTrace::addHostPhase(const std::string& name, double startUs, double durationUs) {
  m_recorder.addSlice(kPid, kHostTid, name, "host", startUs, durationUs, {});
}

void RunTrace::addLoss(double tsUs, double loss) { m_recorder.addCounter(kPid, "loss", tsUs, "loss", loss); }

void RunTrace::setMetadata(const std::string& key, const std::string& value) { m_recorder.setMetadata(key, value); }

}  // namespace dfc::driver
