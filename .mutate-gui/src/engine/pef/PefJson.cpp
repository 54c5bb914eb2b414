// The JSON chunks of a PEF: meta, sections, schedule (and a well-formedness
// check for the report). Written with JsonWriter, read with simdjson's DOM
// through error codes only, so no exception leaves this file.
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "pef/PefFormat.h"
#include "support/JsonWriter.h"

namespace dfc::pef::detail {
namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;
using support::JsonWriter;

Error missing(const char* key, const char* what) {
  return makeError(std::string("field '") + key + "' is missing or not " + what);
}

Status getString(object o, const char* key, std::string& out) {
  std::string_view sv;
  if (o[key].get(sv)) return missing(key, "a string");
  out = std::string(sv);
  return {};
}

Status getInt(object o, const char* key, int64_t& out) {
  if (o[key].get(out)) return missing(key, "an integer");
  return {};
}

Status getInt(object o, const char* key, int& out) {
  int64_t v = 0;
  DFC_TRY(getInt(o, key, v));
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) return missing(key, "a small integer");
  out = static_cast<int>(v);
  return {};
}

Status getDouble(object o, const char* key, double& out) {
  element e;
  if (o[key].get(e)) return missing(key, "a number");
  if (e.is_null()) {  // JsonWriter writes non-finite numbers as null
    out = std::numeric_limits<double>::quiet_NaN();
    return {};
  }
  if (e.get(out)) return missing(key, "a number");
  return {};
}

// An optional field: absent leaves `out` as it is; present, it must have the
// type (a wrong-typed value is refused, not read as absent).
template <typename T>
Status getOptional(object o, const char* key, T& out, const char* what) {
  element e;
  if (o[key].get(e)) return {};
  if (e.get(out)) return missing(key, what);
  return {};
}

Status getIntList(object o, const char* key, std::vector<int>& out) {
  array arr;
  if (o[key].get(arr)) return missing(key, "an array");
  for (element e : arr) {
    int64_t v = 0;
    if (e.get(v) || v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
      return missing(key, "an array of integers");
    out.push_back(static_cast<int>(v));
  }
  return {};
}

// Parses `json` into `doc`; the parser must outlive the element.
Status parseObject(simdjson::dom::parser& parser, std::string_view json, object& out) {
  simdjson::padded_string padded(json.data(), json.size());
  element doc;
  if (auto err = parser.parse(padded).get(doc)) return makeError(std::string("bad JSON: ") + simdjson::error_message(err));
  if (doc.get(out)) return makeError("bad JSON: expected an object");
  return {};
}

}  // namespace

std::string encodeMeta(const PefMeta& m) {
  JsonWriter w;
  w.beginObject();
  w.field("format", std::to_string(kPefMajorVersion) + "." + std::to_string(kPefMinorVersion));
  w.field("pef_name", m.pefName).field("model", m.model).field("opt_level", m.optLevel).field("arch", m.arch);
  w.field("compiler_version", m.compilerVersion).field("created_at", m.createdAt);
  w.key("args").beginArray();
  for (const std::string& a : m.args) w.value(a);
  w.endArray();
  w.field("batch_size", m.batchSize).field("inference", m.inference);
  w.field("image_input", m.imageInput).field("labels_input", m.labelsInput).field("lr_input", m.lrInput);
  w.field("loss_output", m.lossOutput).field("logits_output", m.logitsOutput).field("default_lr", m.defaultLr);
  w.field("task", m.task);
  if (!m.compilerConfig.empty()) w.field("compiler_config", m.compilerConfig);
  if (!m.decisions.empty()) w.field("decisions", m.decisions);
  if (!m.spatialTiling.empty()) w.field("spatial_tiling", m.spatialTiling);
  if (m.worldSize > 0) w.field("world_size", int64_t{m.worldSize});  // absent: not compiled for data parallel
  if (m.kvCacheLen > 0) w.field("kv_cache_len", m.kvCacheLen).field("position_input", m.positionInput);  // absent: no decode step
  for (auto [key, names] : {std::pair{"input_names", &m.inputNames}, std::pair{"output_names", &m.outputNames}}) {
    if (names->empty()) continue;  // absent: the values' names
    w.key(key).beginArray();
    for (const std::string& n : *names) w.value(n);
    w.endArray();
  }
  w.endObject();
  return w.take();
}

Status decodeMeta(std::string_view json, PefMeta& m) {
  simdjson::dom::parser parser;
  object o;
  DFC_TRY(parseObject(parser, json, o));
  DFC_TRY(getString(o, "pef_name", m.pefName));
  DFC_TRY(getString(o, "model", m.model));
  DFC_TRY(getString(o, "opt_level", m.optLevel));
  DFC_TRY(getString(o, "arch", m.arch));
  DFC_TRY(getString(o, "compiler_version", m.compilerVersion));
  DFC_TRY(getString(o, "created_at", m.createdAt));
  array args;
  if (o["args"].get(args)) return missing("args", "an array");
  for (element e : args) {
    std::string_view sv;
    if (e.get(sv)) return missing("args", "an array of strings");
    m.args.emplace_back(sv);
  }
  DFC_TRY(getInt(o, "batch_size", m.batchSize));
  if (o["inference"].get(m.inference)) return missing("inference", "a boolean");
  DFC_TRY(getString(o, "image_input", m.imageInput));
  DFC_TRY(getString(o, "labels_input", m.labelsInput));
  DFC_TRY(getString(o, "lr_input", m.lrInput));
  DFC_TRY(getString(o, "loss_output", m.lossOutput));
  DFC_TRY(getString(o, "logits_output", m.logitsOutput));
  DFC_TRY(getDouble(o, "default_lr", m.defaultLr));
  // Added in format 1.0 after the first PEFs: absent means an image classifier.
  std::string_view task = "classification";
  DFC_TRY(getOptional(o, "task", task, "a string"));
  m.task = std::string(task);
  if (m.task != "classification" && m.task != "language_model" && m.task != "segmentation")
    return missing("task", "classification, language_model or segmentation");
  // Optional (issue 14): the knobs a --compiler-configs-file set; --mac-human-decision's record; --num-spatial-batches.
  for (auto [key, field] : {std::pair{"compiler_config", &m.compilerConfig}, std::pair{"decisions", &m.decisions},
                            std::pair{"spatial_tiling", &m.spatialTiling}}) {
    std::string_view text;
    DFC_TRY(getOptional(o, key, text, "a string"));
    *field = std::string(text);
  }
  int64_t worldSize = 0;
  DFC_TRY(getOptional(o, "world_size", worldSize, "an integer in 2..4096"));
  if (worldSize != 0 && (worldSize < 2 || worldSize > 4096)) return missing("world_size", "2..4096");
  m.worldSize = static_cast<int>(worldSize);
  element cacheField;  // optional: --decode; present but not a positive int64 is refused, not read as absent
  if (!o["kv_cache_len"].get(cacheField)) {
    int64_t cacheLen = 0;
    if (cacheField.get(cacheLen) || cacheLen < 1) return missing("kv_cache_len", "a positive integer");
    m.kvCacheLen = cacheLen;
    DFC_TRY(getString(o, "position_input", m.positionInput));
  }
  for (auto [key, names] : {std::pair{"input_names", &m.inputNames}, std::pair{"output_names", &m.outputNames}}) {
    element field;  // optional (issue 33): an ONNX model's own names
    if (o[key].get(field)) continue;
    array list;
    if (field.get(list)) return missing(key, "an array of strings");
    for (element e : list) {
      std::string_view sv;
      if (e.get(sv)) return missing(key, "an array of strings");
      names->emplace_back(sv);
    }
  }
  return {};
}

namespace {

// Written only for a section with tiled operators, so untiled PEFs read as before.
void encodeTiling(JsonWriter& w, const std::vector<partition::OperatorTiling>& tiling) {
  w.key("tiling").beginArray();
  for (const partition::OperatorTiling& t : tiling) {
    w.beginObject().field("node", t.node).field("dim", t.dim).field("passes", t.passes).field("gemm", t.gemm);
    w.key("tile_shape").beginArray();
    for (int64_t d : t.tileShape) w.value(d);
    w.endArray().field("pmus_per_pass", t.pmusPerPass).field("extra_ddr_bytes", t.extraDdrBytes).endObject();
  }
  w.endArray();
}

Status decodeTiling(object so, partition::Section& s) {
  array tiling;
  if (so["tiling"].get(tiling)) return {};  // optional: absent means untiled (format 1.1 and untiled sections)
  for (element e : tiling) {
    object to;
    if (e.get(to)) return makeError("section '" + s.name + "': a tiling entry is not an object");
    partition::OperatorTiling t;
    DFC_TRY(getInt(to, "node", t.node));
    DFC_TRY(getString(to, "dim", t.dim));
    DFC_TRY(getInt(to, "passes", t.passes));
    if (to["gemm"].get(t.gemm)) return missing("gemm", "a boolean");
    array shape;
    if (to["tile_shape"].get(shape)) return missing("tile_shape", "an array");
    for (element d : shape) {
      int64_t v = 0;
      if (d.get(v) || v < 1) return missing("tile_shape", "an array of positive integers");
      t.tileShape.push_back(v);
    }
    DFC_TRY(getInt(to, "pmus_per_pass", t.pmusPerPass));
    DFC_TRY(getDouble(to, "extra_ddr_bytes", t.extraDdrBytes));
    if (t.passes < 2 || std::find(s.nodes.begin(), s.nodes.end(), t.node) == s.nodes.end())
      return makeError("section '" + s.name + "': a tiling entry names node " + std::to_string(t.node) +
                       " outside the section or fewer than 2 passes");
    s.tiling.push_back(std::move(t));
  }
  return {};
}

// Why the section starts apart from the one before (partition/CutReason.h); absent before format 1.3.
void encodeCut(JsonWriter& w, const partition::CutReason& c) {
  w.key("cut").beginObject().field("kind", partition::cutKindName(c.kind)).field("detail", c.detail);
  w.field("used", c.used).field("adding", c.adding).field("limit", c.limit).endObject();
}

Status decodeCut(object so, partition::Section& s) {
  object co;
  if (so["cut"].get(co)) return {};  // optional: absent reads as "not recorded"
  std::string kind;
  DFC_TRY(getString(co, "kind", kind));
  auto parsed = partition::parseCutKind(kind);
  if (!parsed) return makeError("section '" + s.name + "': unknown cut kind '" + kind + "'");
  s.cut.kind = *parsed;
  DFC_TRY(getString(co, "detail", s.cut.detail));
  DFC_TRY(getInt(co, "used", s.cut.used));
  DFC_TRY(getInt(co, "adding", s.cut.adding));
  DFC_TRY(getInt(co, "limit", s.cut.limit));
  return {};
}

}  // namespace

std::string encodeSections(const partition::Plan& plan) {
  JsonWriter w;
  w.beginObject().field("level", partition::optLevelName(plan.level));
  w.key("sections").beginArray();
  for (const partition::Section& s : plan.sections) {
    w.beginObject().field("id", s.id).field("name", s.name).field("type", ir::roleName(s.type));
    w.key("nodes").beginArray();
    for (ir::NodeId n : s.nodes) w.value(n);
    w.endArray();
    w.field("hyperfunction", s.hyperfunction).field("hypersection", s.hypersection);
    const partition::SectionEstimate& e = s.estimate;
    w.key("estimate").beginObject().field("flop", e.flop).field("ddr_bytes", e.ddrBytes).field("pcus", e.pcus);
    w.field("pmus", e.pmus).field("compute_us", e.computeUs).field("memory_us", e.memoryUs);
    w.field("latency_us", e.latencyUs).endObject();
    if (!s.tiling.empty()) encodeTiling(w, s.tiling);
    if (s.cut.kind != partition::CutKind::None) encodeCut(w, s.cut);
    w.endObject();
  }
  w.endArray();
  w.key("hypersections").beginArray();
  for (const partition::Hypersection& h : plan.hypersections) {
    w.beginObject().field("id", h.id).field("name", h.name).key("sections").beginArray();
    for (int s : h.sections) w.value(s);
    w.endArray().endObject();
  }
  w.endArray().endObject();
  return w.take();
}

std::string encodeSchedule(const partition::Plan& plan) {
  JsonWriter w;
  w.beginObject().key("schedule").beginArray();
  for (int s : plan.schedule) w.value(s);
  w.endArray().endObject();
  return w.take();
}

Status decodeSections(std::string_view json, partition::Plan& plan) {
  simdjson::dom::parser parser;
  object o;
  DFC_TRY(parseObject(parser, json, o));
  std::string level;
  DFC_TRY(getString(o, "level", level));
  bool known = false;
  for (auto l : {partition::OptLevel::O0, partition::OptLevel::O1, partition::OptLevel::O3})
    if (partition::optLevelName(l) == level) {
      plan.level = l;
      known = true;
    }
  if (!known) return makeError("unknown optimization level '" + level + "'");
  array sections, hypers;
  if (o["sections"].get(sections)) return missing("sections", "an array");
  for (element e : sections) {
    object so, eo;
    if (e.get(so)) return makeError("a section is not an object");
    partition::Section s;
    DFC_TRY(getInt(so, "id", s.id));
    DFC_TRY(getString(so, "name", s.name));
    std::string type;
    DFC_TRY(getString(so, "type", type));
    auto role = ir::parseRole(type);
    if (!role)
      return makeError("section '" + s.name + "': unknown role '" + type + "' (this dfc knows " + ir::roleNameList() + ")");
    s.type = *role;
    DFC_TRY(getIntList(so, "nodes", s.nodes));
    DFC_TRY(getString(so, "hyperfunction", s.hyperfunction));
    DFC_TRY(getInt(so, "hypersection", s.hypersection));
    if (so["estimate"].get(eo)) return missing("estimate", "an object");
    partition::SectionEstimate& est = s.estimate;
    DFC_TRY(getDouble(eo, "flop", est.flop));
    DFC_TRY(getDouble(eo, "ddr_bytes", est.ddrBytes));
    DFC_TRY(getInt(eo, "pcus", est.pcus));
    DFC_TRY(getInt(eo, "pmus", est.pmus));
    DFC_TRY(getDouble(eo, "compute_us", est.computeUs));
    DFC_TRY(getDouble(eo, "memory_us", est.memoryUs));
    DFC_TRY(getDouble(eo, "latency_us", est.latencyUs));
    DFC_TRY(decodeTiling(so, s));
    DFC_TRY(decodeCut(so, s));
    plan.sections.push_back(std::move(s));
  }
  if (o["hypersections"].get(hypers)) return missing("hypersections", "an array");
  for (element e : hypers) {
    object ho;
    if (e.get(ho)) return makeError("a hypersection is not an object");
    partition::Hypersection h;
    DFC_TRY(getInt(ho, "id", h.id));
    DFC_TRY(getString(ho, "name", h.name));
    DFC_TRY(getIntList(ho, "sections", h.sections));
    plan.hypersections.push_back(std::move(h));
  }
  return {};
}

Status decodeSchedule(std::string_view json, partition::Plan& plan) {
  simdjson::dom::parser parser;
  object o;
  DFC_TRY(parseObject(parser, json, o));
  return getIntList(o, "schedule", plan.schedule);
}

Status checkJson(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json.data(), json.size());
  element doc;
  if (auto err = parser.parse(padded).get(doc)) return makeError(std::string("bad JSON: ") + simdjson::error_message(err));
  return {};
}

}  // namespace dfc::pef::detail
