#include "pef/PefValidator.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "ir/KvCache.h"
#include "ir/TensorBudget.h"

namespace dfc::pef {
namespace {

using ir::ValueKind;

std::string sectionLabel(const partition::Section& s) { return "section #" + std::to_string(s.id) + " '" + s.name + "'"; }

Status checkIds(const partition::Plan& plan) {
  std::set<std::string> names;
  for (size_t i = 0; i < plan.sections.size(); ++i) {
    const partition::Section& s = plan.sections[i];
    if (s.id != static_cast<int>(i))
      return makeError("section '" + s.name + "' at position " + std::to_string(i) + " has id " + std::to_string(s.id) +
                       "; section ids must be 0.." + std::to_string(plan.sections.size() - 1) + " in order");
    if (s.name.empty() || !names.insert(s.name).second)
      return makeError("section #" + std::to_string(i) + ": name '" + s.name + "' is empty or not unique");
    if (s.hypersection < 0 || static_cast<size_t>(s.hypersection) >= plan.hypersections.size())
      return makeError(sectionLabel(s) + " refers to hypersection #" + std::to_string(s.hypersection) + " of " +
                       std::to_string(plan.hypersections.size()));
    const partition::SectionEstimate& e = s.estimate;
    for (double v : {e.flop, e.ddrBytes, e.computeUs, e.memoryUs, e.latencyUs})
      if (!std::isfinite(v) || v < 0) return makeError(sectionLabel(s) + ": estimate is not a finite number >= 0");
    if (e.pcus < 0 || e.pmus < 0) return makeError(sectionLabel(s) + ": negative PCU or PMU count");
  }
  std::vector<int> listedIn(plan.sections.size(), -1);
  for (size_t h = 0; h < plan.hypersections.size(); ++h) {
    const partition::Hypersection& hs = plan.hypersections[h];
    if (hs.id != static_cast<int>(h))
      return makeError("hypersection '" + hs.name + "' at position " + std::to_string(h) + " has id " +
                       std::to_string(hs.id) + "; hypersection ids must be 0..n-1 in order");
    for (int s : hs.sections) {
      if (s < 0 || static_cast<size_t>(s) >= plan.sections.size())
        return makeError("hypersection '" + hs.name + "' refers to section #" + std::to_string(s));
      if (plan.sections[static_cast<size_t>(s)].hypersection != hs.id || listedIn[static_cast<size_t>(s)] >= 0)
        return makeError("hypersection '" + hs.name + "' lists section #" + std::to_string(s) +
                         ", which is an instance of another hypersection or listed twice");
      listedIn[static_cast<size_t>(s)] = hs.id;
    }
  }
  for (const partition::Section& s : plan.sections)
    if (listedIn[static_cast<size_t>(s.id)] < 0)
      return makeError(sectionLabel(s) + " is missing from its hypersection's instance list");
  return {};
}

// Every node in exactly one section, and a section's nodes all of its role:
// evaluation runs forward sections only, so a retyped section would drop ops.
Status checkNodes(const partition::Plan& plan, const ir::Graph& g) {
  std::vector<int> sectionOf(g.nodes.size(), -1);
  for (const partition::Section& s : plan.sections) {
    if (s.nodes.empty()) return makeError(sectionLabel(s) + " has no nodes");
    for (ir::NodeId n : s.nodes) {
      if (n < 0 || static_cast<size_t>(n) >= g.nodes.size())
        return makeError(sectionLabel(s) + " refers to node #" + std::to_string(n) + ", the graph has " +
                         std::to_string(g.nodes.size()));
      const ir::Node& node = g.nodes[static_cast<size_t>(n)];
      if (sectionOf[static_cast<size_t>(n)] >= 0)
        return makeError("node '" + node.name + "' is in " + sectionLabel(s) + " and in section #" +
                         std::to_string(sectionOf[static_cast<size_t>(n)]));
      sectionOf[static_cast<size_t>(n)] = s.id;
      if (node.role != s.type)
        return makeError(sectionLabel(s) + " is typed " + std::string(ir::roleName(s.type)) + " but its node '" +
                         node.name + "' is " + std::string(ir::roleName(node.role)));
    }
  }
  for (size_t n = 0; n < g.nodes.size(); ++n)
    if (sectionOf[n] < 0) return makeError("node '" + g.nodes[n].name + "' is in no section");
  return {};
}

// One step calls every section exactly once (the scheduler's order); a
// shorter schedule would train on part of the graph, a longer one repeat it.
Status checkSchedule(const partition::Plan& plan) {
  const std::string calls = "the schedule has " + std::to_string(plan.schedule.size()) + " calls for " +
                            std::to_string(plan.sections.size()) + " sections";
  if (plan.schedule.size() > plan.sections.size()) return makeError(calls + "; a step calls every section once");
  std::vector<char> called(plan.sections.size(), 0);
  for (int s : plan.schedule) {
    if (s < 0 || static_cast<size_t>(s) >= plan.sections.size())
      return makeError("schedule refers to section #" + std::to_string(s));
    if (called[static_cast<size_t>(s)]++)
      return makeError("schedule calls " + sectionLabel(plan.sections[static_cast<size_t>(s)]) + " twice");
  }
  for (const partition::Section& s : plan.sections)
    if (!called[static_cast<size_t>(s.id)])
      return makeError(sectionLabel(s) + " (" + std::string(ir::roleName(s.type)) + ") is never called (" + calls + ")");
  return {};
}

// The value a meta field names, with what its role needs.
class MetaRoles {
 public:
  explicit MetaRoles(const ir::Graph& g) : m_g(g) {}

  Expected<const ir::Value*> input(const char* field, const std::string& name) const {
    auto v = named(field, name);
    if (v && (*v)->kind != ValueKind::Input) return wrongKind(field, **v, "a graph input");
    return v;
  }
  Expected<const ir::Value*> output(const char* field, const std::string& name) const {
    auto v = named(field, name);
    if (v && std::find(m_g.outputs.begin(), m_g.outputs.end(), (*v)->id) == m_g.outputs.end())
      return wrongKind(field, **v, "a graph output");
    return v;
  }
  Status need(const char* field, const ir::Value& v, bool ok, const std::string& what) const {
    if (ok) return {};
    return makeError("field '" + std::string(field) + "' names " + describe(v) + "; it must be " + what);
  }
  Status empty(const char* field, const std::string& name) const {
    if (name.empty()) return {};
    return makeError("field '" + std::string(field) + "' is '" + name + "'; an inference PEF has none");
  }

 private:
  Expected<const ir::Value*> named(const char* field, const std::string& name) const {
    if (name.empty()) return makeError("field '" + std::string(field) + "' is empty");
    ir::ValueId id = m_g.findValue(name);
    if (id == ir::kNoValue) return makeError("field '" + std::string(field) + "' names '" + name + "', which the graph lacks");
    return &m_g.value(id);
  }
  Error wrongKind(const char* field, const ir::Value& v, const char* what) const {
    return makeError("field '" + std::string(field) + "' names " + describe(v) + ", which is not " + what);
  }
  static std::string describe(const ir::Value& v) {
    return ir::valueKindName(v.kind) + " '" + v.name + "' " + v.type.toString();
  }
  const ir::Graph& m_g;
};

bool isScalarF32(const ir::Value& v) { return v.type.dtype == ir::DType::F32 && v.type.numElements() == 1; }

// Training: labels, learning rate and loss next to image and logits, each of its own kind and shape.
Status checkTrainingRoles(const PefMeta& m, const ir::Graph& g, const ir::Value& image, const ir::Value& logits) {
  MetaRoles roles(g);
  const bool lm = m.task == "language_model";
  auto labels = roles.input("labels_input", m.labelsInput);
  DFC_TRY(labels);
  auto lr = roles.input("lr_input", m.lrInput);
  DFC_TRY(lr);
  auto loss = roles.output("loss_output", m.lossOutput);
  DFC_TRY(loss);
  const ir::Value &lab = **labels, &rate = **lr, &l = **loss;
  DFC_TRY(roles.need("logits_output", logits,
                     logits.type.dtype == ir::DType::F32 && logits.type.rank() >= 2 && logits.type.shape[0] == m.batchSize,
                     "f32 [batch, ...] scores, one row per sample"));
  ir::Shape labelShape = lm ? image.type.shape : ir::Shape{m.batchSize};
  if (m.task == "segmentation" && logits.type.rank() == 4)  // a label per pixel
    labelShape.insert(labelShape.end(), logits.type.shape.begin() + 2, logits.type.shape.end());
  DFC_TRY(roles.need("labels_input", lab, lab.id != image.id && lab.type == ir::TensorType{ir::DType::I64, labelShape},
                     "i64" + ir::TensorType{ir::DType::I64, labelShape}.toString().substr(3) + ", the labels of a batch"));
  DFC_TRY(roles.need("lr_input", rate, rate.id != image.id && rate.id != lab.id && isScalarF32(rate),
                     "an f32 scalar input (the learning rate)"));
  DFC_TRY(roles.need("loss_output", l, l.id != logits.id && isScalarF32(l), "an f32 scalar output (the loss)"));
  if (!std::isfinite(m.defaultLr) || m.defaultLr <= 0)
    return makeError("field 'default_lr' is " + std::to_string(m.defaultLr) + "; a training PEF needs a positive learning rate");
  if (g.updates.empty()) return makeError("field 'inference' is false but the graph updates no weights");
  return {};
}

Status checkInferenceRoles(const PefMeta& m, const ir::Graph& g) {
  MetaRoles roles(g);
  DFC_TRY(roles.empty("labels_input", m.labelsInput));
  DFC_TRY(roles.empty("lr_input", m.lrInput));
  DFC_TRY(roles.empty("loss_output", m.lossOutput));
  // A decode step updates its KV caches (ir/KvCache.h), nothing else.
  const auto caches = ir::kvCacheValues(g);
  if (g.updates.size() != caches.size())  // values besides the KV caches
    return makeError("field 'inference' is true but the graph updates " + std::to_string(g.updates.size() - caches.size()) +
                     " values");
  if (m.kvCacheLen > 0 && caches.empty()) return makeError("field 'kv_cache_len' is set but the graph has no KV cache");
  if (m.kvCacheLen == 0 && !caches.empty())
    return makeError("the graph has " + std::to_string(caches.size()) + " KV caches but field 'kv_cache_len' is absent");
  if (m.kvCacheLen > 0) {
    const ir::ValueId pos = g.findValue(m.positionInput);
    if (pos == ir::kNoValue || g.value(pos).kind != ir::ValueKind::Input ||
        g.value(pos).type != ir::TensorType{ir::DType::I64, {1}})
      return makeError("field 'position_input' '" + m.positionInput + "' is not an i64[1] graph input");
    // The runtime and the estimate take the meta's length as the caches' rows
    // (positions fed, bytes read): a meta that disagrees with the graph lies.
    for (ir::ValueId cache : caches) {
      const ir::TensorType& t = g.value(cache).type;
      if (t.rank() != 4 || t.shape[2] != m.kvCacheLen)
        return makeError("field 'kv_cache_len' is " + std::to_string(m.kvCacheLen) + " but KV cache '" +
                         g.value(cache).name + "' is " + t.toString() + " (rows are dimension 2)");
    }
  }
  for (const ir::Node& n : g.nodes)
    if (n.role != ir::NodeRole::Forward)
      return makeError("field 'inference' is true but node '" + n.name + "' is " + std::string(ir::roleName(n.role)));
  if (!std::isfinite(m.defaultLr) || m.defaultLr < 0) return makeError("field 'default_lr' is not a number >= 0");
  return {};
}

}  // namespace

Status validateMeta(const PefMeta& m, const ir::Graph& g, const partition::Plan& plan) {
  if (m.optLevel != partition::optLevelName(plan.level))
    return makeError("field 'opt_level' is '" + m.optLevel + "' but the sections are -" +
                     std::string(partition::optLevelName(plan.level)));
  if (m.batchSize < 1) return makeError("field 'batch_size' is " + std::to_string(m.batchSize) + "; it must be >= 1");
  MetaRoles roles(g);
  auto image = roles.input("image_input", m.imageInput);
  DFC_TRY(image);
  auto logits = roles.output("logits_output", m.logitsOutput);
  DFC_TRY(logits);
  const ir::Value &img = **image, &out = **logits;
  if (img.type.rank() < 1 || img.type.shape[0] != m.batchSize)
    return makeError("field 'batch_size' is " + std::to_string(m.batchSize) + " but input '" + img.name + "' is " +
                     img.type.toString());
  if (m.task == "language_model")
    DFC_TRY(roles.need("image_input", img, img.type.dtype == ir::DType::I64 && img.type.rank() == 2,
                       "i64 [batch, sequence] token ids"));
  if (m.kvCacheLen > 0 && !m.inference) return makeError("field 'kv_cache_len' is set but the PEF is not for inference");
  return m.inference ? checkInferenceRoles(m, g) : checkTrainingRoles(m, g, img, out);
}

Status validatePlan(const partition::Plan& plan, const ir::Graph& graph) {
  if (graph.nodes.empty()) return makeError("the graph has no nodes");
  DFC_TRY(checkIds(plan));
  return checkNodes(plan, graph);
}

Status validateSchedule(const partition::Plan& plan) { return checkSchedule(plan); }

int64_t batchSizeOf(const ir::Graph& graph, const std::string& imageInput, int64_t fallback) {
  ir::ValueId id = graph.findValue(imageInput);
  if (id == ir::kNoValue || graph.value(id).type.rank() == 0) return fallback;
  return graph.value(id).type.shape[0];
}

}  // namespace dfc::pef
