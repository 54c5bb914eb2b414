#pragma once
// Shared helpers for the offscreen GUI tests: one lazily created
// QApplication (catch_main owns main()), and small synthetic engine data.
#include <QApplication>

#include "ir/Graph.h"
#include "partition/Plan.h"
#include "profile/Trace.h"
#include "schedule/ScheduleData.h"

namespace guitest {

inline QApplication& ensureApp() {
  static int argc = 1;
  static char name[] = "test_gui";
  static char* argv[] = {name, nullptr};
  if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  static QApplication* app = new QApplication(argc, argv);  // lives until exit
  return *app;
}

// x -> [layer1: matmul, relu] -> [layer2: matmul, relu] -> add(, layer1 out)
// Sections: s0 = layer1, s1 = layer2 (both hypersection 0), s2 = the add.
inline dfc::ir::Graph makeGraph() {
  using namespace dfc::ir;
  Graph g;
  g.name = "tiny";
  const TensorType t{DType::F32, {4, 4}};
  const ValueId x = g.addInput("x", t);
  const ValueId w1 = g.addParam("layer1/w", Tensor(t));
  const ValueId w2 = g.addParam("layer2/w", Tensor(t));
  const ValueId h1 = g.addValue("layer1/mm", t, ValueKind::Intermediate);
  const ValueId h2 = g.addValue("layer1/act", t, ValueKind::Intermediate);
  const ValueId h3 = g.addValue("layer2/mm", t, ValueKind::Intermediate);
  const ValueId h4 = g.addValue("layer2/act", t, ValueKind::Intermediate);
  const ValueId out = g.addValue("out", t, ValueKind::Intermediate);
  g.addNode(OpKind::MatMul, "layer1/matmul", {x, w1}, {h1}, {}, "layer1");
  g.addNode(OpKind::Relu, "layer1/relu", {h1}, {h2}, {}, "layer1");
  g.addNode(OpKind::MatMul, "layer2/matmul", {h2, w2}, {h3}, {}, "layer2");
  g.addNode(OpKind::Relu, "layer2/relu", {h3}, {h4}, {}, "layer2");
  g.addNode(OpKind::Add, "residual", {h4, h2}, {out});
  g.outputs = {out};
  return g;
}

inline dfc::partition::Plan makePlan() {
  using namespace dfc::partition;
  Plan plan;
  plan.sections = {Section{0, "s0_layer1", dfc::ir::NodeRole::Forward, {0, 1}, "layer1", 0, {}},
                   Section{1, "s1_layer2", dfc::ir::NodeRole::Forward, {2, 3}, "layer2", 0, {}},
                   Section{2, "s2_add", dfc::ir::NodeRole::Forward, {4}, "", 1, {}}};
  plan.hypersections = {Hypersection{0, "hs0_matmul_relu", {0, 1}}, Hypersection{1, "hs1_add", {2}}};
  plan.schedule = {0, 1, 2};
  return plan;
}

constexpr int kModelSlices = 1000;
// The content hash the test PEFs carry and the test traces name (pef_hash):
// a trace is linked to the graph only when they match.
constexpr const char* kPefHash = "00000000000a11ce";

// pid 1: tid 0 "model" with kModelSlices back-to-back section calls,
// tid 1 with nesting 3 deep, tid 7 sorted first by its sort index.
inline dfc::profile::Trace makeTrace() {
  using namespace dfc::profile;
  Trace trace;
  trace.processNames[1] = "chip 0";
  trace.threadNames[{1, 0}] = "model";
  trace.threadNames[{1, 1}] = "layers";
  trace.threadNames[{1, 7}] = "host";
  trace.threadSortIndex[{1, 7}] = -1;
  trace.metadata["pef_hash"] = kPefHash;
  for (int i = 0; i < kModelSlices; ++i) {
    TraceEvent ev;
    ev.name = "s" + std::to_string(i % 3) + " hs" + std::to_string(i % 3 == 2 ? 1 : 0);
    ev.cat = "section";
    ev.pid = 1;
    ev.tid = 0;
    ev.ts = 1000.0 + i * 12.0;
    ev.dur = 10.0;
    ev.args = {{"section_id", static_cast<double>(i % 3)}, {"call", static_cast<double>(i)}};
    trace.events.push_back(ev);
  }
  // Pushed out of order on purpose: the view must sort.
  trace.events.push_back(TraceEvent{'X', "grandchild", "", 1, 1, 1035.0, 5, {}});
  trace.events.push_back(TraceEvent{'X', "parent", "", 1, 1, 1000.0, 100, {}});
  trace.events.push_back(TraceEvent{'X', "child a", "", 1, 1, 1010.0, 10, {}});
  trace.events.push_back(TraceEvent{'X', "child b", "", 1, 1, 1030.0, 20, {}});
  trace.events.push_back(TraceEvent{'X', "setup", "", 1, 7, 900.0, 100, {}});
  trace.events.push_back(TraceEvent{'C', "loss", "", 1, 0, 1100.0, 0, {{"loss", 0.5}}});
  return trace;
}

// One schedule row with the figures the overlay and grouping tests need.
inline dfc::views::ScheduleSection scheduleSection(int id, const char* hypersection, double estUs,
                                                   std::optional<double> measuredUs, int pcus) {
  dfc::views::ScheduleSection s;
  s.id = id;
  s.name = QStringLiteral("s%1").arg(id);
  s.hypersection = QString::fromLatin1(hypersection);
  s.estLatencyUs = estUs;
  s.measuredMeanUs = measuredUs;
  s.pcus = pcus;
  return s;
}

}  // namespace guitest
