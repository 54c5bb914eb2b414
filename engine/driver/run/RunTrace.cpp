#include "driver/run/RunTrace.h"

#include <simdjson.h>

#include <algorithm>
#include <cmath>

#include "runtime/OneDnnJoins.h"
#include "support/JsonWriter.h"

namespace dfc::driver {

RunTrace::RunTrace(const pef::Pef& pef, const std::string& runLabel, int rank) : m_pef(pef), m_pid(pidForRank(rank)) {
  m_recorder.setProcessName(m_pid, rank == 0 ? runLabel : runLabel + " rank " + std::to_string(rank));
  m_recorder.setThreadName(m_pid, kWholeRunTid, "whole model run", 0);
  m_recorder.setThreadName(m_pid, kHostTid, "host", 1);
  // One row per hyperfunction, in order of first appearance in the schedule.
  m_sectionTid.assign(pef.plan.sections.size(), kWholeRunTid);
  for (int id : pef.plan.schedule) {
    const auto& s = pef.plan.sections.at(static_cast<size_t>(id));
    std::string hf = s.hyperfunction.empty() ? "(top level)" : s.hyperfunction;
    auto [it, inserted] = m_hyperfunctionTid.try_emplace(hf, static_cast<int64_t>(m_hyperfunctionTid.size()) + 2);
    if (inserted) m_recorder.setThreadName(m_pid, it->second, hf, it->second);
    m_sectionTid[static_cast<size_t>(id)] = it->second;
  }
  loadPlacement();
  setConvAlgo(runtime::ConvAlgoRequest::Auto);
  m_constants.assign(pef.plan.sections.size(), {});
}

void RunTrace::setConvAlgo(runtime::ConvAlgoRequest request) {
  m_convAlgos.clear();
  const std::set<ir::NodeId> joins = runtime::planOneDnnJoins(m_pef.graph, m_pef.plan, request);
  for (const partition::Section& s : m_pef.plan.sections)
    m_convAlgos.push_back(runtime::describeConvAlgos(m_pef.graph, s.nodes, request, joins));
}

// Layer 3 (final PCUs/PMUs after placement, min/max latency with DRAM) lives in
// the compile report; a report without it (older PEF) leaves the args out.
void RunTrace::loadPlacement() {
  m_placed.assign(m_pef.plan.sections.size(), {});
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(m_pef.reportJson).get(root)) return;
  simdjson::dom::array sections;
  if (root["layer3_sections"].get(sections)) return;
  for (simdjson::dom::element s : sections) {
    int64_t id = -1;
    if (s["id"].get(id) || id < 0 || static_cast<size_t>(id) >= m_placed.size()) continue;
    Placed& p = m_placed[static_cast<size_t>(id)];
    auto number = [&](const char* key, double& out) {
      double d = 0;
      int64_t i = 0;
      if (!s[key].get(d)) out = d;
      else if (!s[key].get(i)) out = static_cast<double>(i);
    };
    number("pcus", p.pcus);
    number("pmus", p.pmus);
    number("total_hops", p.hops);
    number("min_latency_us", p.minLatencyUs);
    number("max_latency_us", p.maxLatencyUs);
    p.known = true;
  }
}

void RunTrace::addSectionCall(int sectionId, int64_t step, double startUs, double durationUs, double bytes) {
  const SectionCall call{sectionId, step, startUs, durationUs, bytes};
  if (m_pef.plan.sections.at(static_cast<size_t>(sectionId)).type == ir::NodeRole::Reduce) addSectionSlices(call);
  else m_calls.push_back(call);
}

profile::Trace RunTrace::take() {
  m_recorder.reserve(m_recorder.size() + 2 * m_calls.size());  // two slices per call
  for (const SectionCall& call : m_calls) addSectionSlices(call);
  m_calls.clear();
  profile::Trace trace = m_recorder.take();
  trace.metadataJson["sections"] = sectionsJson();
  // How a reader tells the copies apart (profile/TraceIndex.h counts a call once).
  trace.metadataJson["mirrors"] = std::string(R"({"category":")") + kMirrorCategory +
                                  R"(","of_tid":0,"rows":"each hyperfunction row repeats the calls of the whole-model )"
                                  R"(row (tid 0) under its hyperfunction; count a call once"})";
  if (!m_pef.contentHash.empty()) trace.metadata["pef_hash"] = m_pef.contentHash;
  return trace;
}

// A call on the whole-model row carries what changes per call, and the one
// constant a reader of a clicked slice needs beside its duration (the
// estimate, to judge the measurement): Perfetto's and chrome://tracing's
// JSON importers keep only an event's own args (neither reads otherData), so
// a figure shown on click must sit on the slice. The section's other figures
// are written once, in the `sections` table (take()). Its mirror on the
// hyperfunction row is marked as a copy and carries no args: its name (the
// hypersection), row (the hyperfunction) and time say which call it is (our
// reader gives it its original's keys), and ~100,000 copies of the call's
// args were most of an epoch's trace.
void RunTrace::addSectionSlices(const SectionCall& call) {
  const auto [sectionId, step, startUs, durationUs, bytes] = call;
  const auto& s = m_pef.plan.sections.at(static_cast<size_t>(sectionId));
  const auto& hs = m_pef.plan.hypersections.at(static_cast<size_t>(s.hypersection));
  SectionConstants& k = m_constants[static_cast<size_t>(sectionId)];
  if (!k.called) k = {true, bytes};
  profile::Args args{
      {"section_id", static_cast<double>(s.id)},
      {"step", static_cast<double>(step)},
      {"est_latency_us", fourDigits(s.estimate.latencyUs)},
      {"host_gbps", fourDigits(durationUs > 0 ? bytes / (durationUs * 1e3) : 0.0)},
  };
  std::string cat(ir::roleName(s.type));
  if (s.type == ir::NodeRole::Reduce) addAllreduce(s, step, startUs, durationUs, args);
  m_recorder.addSlice(m_pid, kWholeRunTid, hs.name, cat, startUs, durationUs, std::move(args));
  m_recorder.addSlice(m_pid, m_sectionTid[static_cast<size_t>(sectionId)], hs.name, cat + "," + kMirrorCategory, startUs,
                      durationUs);
}

double RunTrace::fourDigits(double v) {
  if (v == 0 || !std::isfinite(v)) return 0;
  const double scale = std::pow(10.0, 3 - std::floor(std::log10(std::abs(v))));
  return std::round(v * scale) / scale;
}

// The section figures that do not change from call to call, once per section
// called: layers 1-3 (estimates, placement, DRAM bounds), the bytes a call
// moves, the convolution algorithms, and for reduce sections the gradient
// bytes and the allreduce estimate.
std::string RunTrace::sectionsJson() const {
  support::JsonWriter w;
  w.beginObject();
  for (const partition::Section& s : m_pef.plan.sections) {
    const SectionConstants& k = m_constants[static_cast<size_t>(s.id)];
    if (!k.called) continue;
    const auto& e = s.estimate;
    w.key(std::to_string(s.id)).beginObject();
    w.field("name", s.name).field("hypersection", m_pef.plan.hypersections.at(static_cast<size_t>(s.hypersection)).name);
    w.field("hyperfunction", s.hyperfunction).field("type", std::string(ir::roleName(s.type)));
    w.field("est_latency_us", e.latencyUs).field("tflop", e.flop / 1e12).field("pcus", static_cast<int64_t>(e.pcus));
    w.field("pmus", static_cast<int64_t>(e.pmus)).field("ddr_bytes", e.ddrBytes).field("host_bytes", k.bytes);
    if (const Placed& p = m_placed[static_cast<size_t>(s.id)]; p.known) {
      w.field("placed_pcus", p.pcus).field("placed_pmus", p.pmus).field("placed_hops", p.hops);
      w.field("min_latency_us", p.minLatencyUs).field("max_latency_us", p.maxLatencyUs);
    }
    if (const std::string& algos = m_convAlgos[static_cast<size_t>(s.id)]; !algos.empty()) w.field("conv_algo", algos);
    if (s.type == ir::NodeRole::Reduce) {
      const auto id = static_cast<size_t>(s.id);
      w.field("allreduce_bytes", gradientBytes(m_pef, s));
      w.field("est_allreduce_us", id < m_allreduceEstUs.size() ? m_allreduceEstUs[id] : s.estimate.latencyUs);
    }
    w.endObject();
  }
  w.endObject();
  return w.take();
}

// The gradients a reduce section averages are half the bytes it reads and
// writes (in, and the averaged copy out); over MPI, each rank sends and
// receives about that much, so bytes / time is the achieved bus figure.
void RunTrace::addAllreduce(const partition::Section& s, int64_t step, double startUs, double durationUs,
                            profile::Args& args) {
  const double bytes = gradientBytes(m_pef, s);
  const double gbps = durationUs > 0 ? bytes / (durationUs * 1e3) : 0.0;
  const auto id = static_cast<size_t>(s.id);
  const double estUs = id < m_allreduceEstUs.size() ? m_allreduceEstUs[id] : s.estimate.latencyUs;
  args.emplace_back("allreduce_gbps", fourDigits(gbps));
  if (!m_allreduceRow) {
    m_recorder.setThreadName(m_pid, kAllreduceTid, "allreduce (" + m_allreduceAlgorithm + ")", kAllreduceTid);
    m_allreduceRow = true;
  }
  m_recorder.addSlice(m_pid, kAllreduceTid, "allreduce " + s.name, "mpi", startUs, durationUs,
                      {{"section_id", static_cast<double>(s.id)},
                       {"step", static_cast<double>(step)},
                       {"algorithm", m_allreduceAlgorithm},
                       {"bytes", bytes},
                       {"gbps", gbps},
                       {"est_latency_us", estUs},
                       {"measured_us", durationUs}});
}

void RunTrace::setAllreduce(const std::string& algorithm, std::vector<double> estUsBySection) {
  m_allreduceAlgorithm = algorithm;
  m_allreduceEstUs = std::move(estUsBySection);
}

void RunTrace::addAllreducePhase(const std::string& name, double startUs, double durationUs, double callStartUs,
                                 double callUs) {
  // Clocks read a little apart: clamp so the phase nests inside its call's slice.
  const double start = std::clamp(startUs, callStartUs, callStartUs + callUs);
  const double end = std::clamp(startUs + durationUs, start, callStartUs + callUs);
  m_recorder.addSlice(m_pid, kAllreduceTid, name, "allreduce-phase", start, end - start,
                      {{"algorithm", m_allreduceAlgorithm}, {"measured_us", durationUs}});
}

double gradientBytes(const pef::Pef& pef, const partition::Section& s) {
  double bytes = 0;
  for (ir::NodeId n : s.nodes)
    for (ir::ValueId v : pef.graph.node(n).inputs) bytes += static_cast<double>(pef.graph.value(v).type.byteSize());
  return bytes;
}

void RunTrace::setProcessLabel(const std::string& label) { m_recorder.setProcessName(m_pid, label); }

void RunTrace::addHostPhase(std::string_view name, double startUs, double durationUs, bool traced, profile::Args args) {
  m_host.add(name, durationUs);
  if (traced) m_recorder.addSlice(m_pid, kHostTid, std::string(name), "host", startUs, durationUs, std::move(args));
}

void RunTrace::addStepSlice(const std::string& name, double startUs, double durationUs, profile::Args args) {
  m_recorder.addSlice(m_pid, kWholeRunTid, name, "decode", startUs, durationUs, std::move(args));
}

void RunTrace::addLoss(double tsUs, double loss) { m_recorder.addCounter(m_pid, "loss", tsUs, "loss", loss); }

void RunTrace::setMetadata(const std::string& key, const std::string& value) { m_recorder.setMetadata(key, value); }

}  // namespace dfc::driver
