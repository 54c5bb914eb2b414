#include "onnx/OnnxPrecheck.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>
#include <set>

#include <onnx/defs/data_type_utils.h>
#include <onnx/defs/schema.h>

#include "onnx/ImportContext.h"
#include "support/SafePath.h"
#include "support/SizeBudget.h"

namespace dfc::onnx {
namespace {

using NodeList = google::protobuf::RepeatedPtrField<::onnx::NodeProto>;

std::string nodeLabel(const ::onnx::NodeProto& n, int index) {
  std::string name = n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name();
  return "node '" + name + "' (" + n.op_type() + ")";
}

// Attributes libonnx's shape inference divides by or loops over.
Status checkWindowAttributes(const ::onnx::NodeProto& n, const std::string& where) {
  for (const auto& a : n.attribute()) {
    const std::string& key = a.name();
    bool positive = key == "kernel_shape" || key == "strides" || key == "dilations";
    bool nonNegative = key == "pads" || key == "output_padding" || key == "output_shape";
    if (positive || nonNegative)
      for (int64_t v : a.ints())
        if (positive ? v <= 0 : v < 0)
          return makeError(where + ": attribute '" + key + "' holds " + std::to_string(v) + "; it must be " +
                           (positive ? "> 0" : ">= 0"));
    if ((key == "group" || key == "blocksize") && a.has_i() && a.i() <= 0)
      return makeError(where + ": attribute '" + key + "' is " + std::to_string(a.i()) + "; it must be > 0");
    if ((positive || nonNegative) && a.ints_size() > 64)
      return makeError(where + ": attribute '" + key + "' has " + std::to_string(a.ints_size()) + " entries");
  }
  return {};
}

// Ranks the model declares: graph inputs, outputs and value_info with a
// shape, and initializers.
std::map<std::string, int> declaredRanks(const ::onnx::GraphProto& g) {
  std::map<std::string, int> ranks;
  auto add = [&](const ::onnx::ValueInfoProto& v) {
    if (v.type().has_tensor_type() && v.type().tensor_type().has_shape())
      ranks[v.name()] = v.type().tensor_type().shape().dim_size();
  };
  for (const auto& v : g.input()) add(v);
  for (const auto& v : g.output()) add(v);
  for (const auto& v : g.value_info()) add(v);
  for (const auto& t : g.initializer()) ranks[t.name()] = t.dims_size();
  return ranks;
}

// libonnx 1.12's ConvTranspose shape inference indexes its attribute vectors
// by the weight's rank and the weight's dim(1) unchecked: an image of rank 2
// with a weight of rank 4 read through a null pointer (found by fuzz_onnx_importer).
Status checkConvRanks(const ::onnx::NodeProto& n, const std::map<std::string, int>& ranks, const std::string& where) {
  if ((n.op_type() != "Conv" && n.op_type() != "ConvTranspose") || n.input_size() < 2) return {};
  auto x = ranks.find(n.input(0));
  auto w = ranks.find(n.input(1));
  if (x == ranks.end() || w == ranks.end()) return {};
  if (x->second < 3 || w->second != x->second)
    return makeError(where + ": input '" + n.input(0) + "' has rank " + std::to_string(x->second) + " and weight '" +
                     n.input(1) + "' rank " + std::to_string(w->second) + "; both must have the same rank, at least 3");
  return {};
}

// Element types the main graph declares: inputs, outputs, value_info and
// initializers (UNDEFINED and non-tensor types are left out).
std::map<std::string, int32_t> declaredElemTypes(const ::onnx::GraphProto& g) {
  std::map<std::string, int32_t> types;
  auto add = [&](const ::onnx::ValueInfoProto& v) {
    if (v.type().has_tensor_type() && v.type().tensor_type().elem_type() != 0)
      types[v.name()] = v.type().tensor_type().elem_type();
  };
  for (const auto& v : g.input()) add(v);
  for (const auto& v : g.output()) add(v);
  for (const auto& v : g.value_info()) add(v);
  for (const auto& t : g.initializer())
    if (t.data_type() != 0) types[t.name()] = t.data_type();
  return types;
}

// An input whose declared element type the op's schema does not allow. libonnx
// 1.12 builds some ops' function bodies from their input types during shape
// inference (LayerNormalization on an int16 input read through a null pointer,
// found by fuzz_onnx_importer), so a type outside the schema is refused first.
Status checkInputTypes(const ::onnx::NodeProto& n, int64_t opset, const std::map<std::string, int32_t>& types,
                       const std::string& where) {
  if (!n.domain().empty() && n.domain() != "ai.onnx") return {};
  const auto* schema = ::onnx::OpSchemaRegistry::Schema(n.op_type(), static_cast<int>(opset));
  if (!schema || schema->inputs().empty()) return {};
  const auto& formals = schema->inputs();
  for (int i = 0; i < n.input_size(); ++i) {
    auto declared = types.find(n.input(i));
    if (n.input(i).empty() || declared == types.end()) continue;
    bool variadicTail = static_cast<size_t>(i) >= formals.size() &&
                        formals.back().GetOption() == ::onnx::OpSchema::FormalParameterOption::Variadic;
    if (static_cast<size_t>(i) >= formals.size() && !variadicTail) continue;  // the checker counts inputs
    const auto& formal = formals[std::min(static_cast<size_t>(i), formals.size() - 1)];
    if (!::onnx::TensorProto_DataType_IsValid(declared->second))  // ToType throws on these
      return makeError(where + ": input '" + n.input(i) + "' declares element type " +
                       std::to_string(declared->second) + ", which ONNX does not define");
    ::onnx::TypeProto type;
    type.mutable_tensor_type()->set_elem_type(declared->second);
    ::onnx::DataType name = nullptr;
    try {
      name = ::onnx::Utils::DataTypeUtils::ToType(type);
    } catch (const std::exception&) {  // a defined type libonnx 1.12 has no name for
      return makeError(where + ": input '" + n.input(i) + "' has element type " + std::to_string(declared->second) +
                       ", which this ONNX version does not know");
    }
    if (formal.GetTypes().count(name)) continue;
    return makeError(where + ": input '" + n.input(i) + "' is " + *name + ", which " + n.op_type() + " (opset " +
                     std::to_string(opset) + ") does not take");
  }
  return {};
}

int64_t defaultOpset(const ::onnx::ModelProto& m) {
  int64_t opset = -1;
  for (const auto& o : m.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = o.version();
  return opset;
}

// libonnx 1.12 builds LayerNormalization's function body from X's rank and
// indexes past an empty shape when X is declared a scalar (found by
// fuzz_onnx_importer: SEGV), so the declared rank must hold the axis.
Status checkLayerNormRank(const ::onnx::NodeProto& n, const std::map<std::string, int>& ranks, const std::string& where) {
  if (n.op_type() != "LayerNormalization" || n.input_size() < 1) return {};
  auto x = ranks.find(n.input(0));
  if (x == ranks.end()) return {};
  int64_t axis = -1;
  for (const auto& a : n.attribute())
    if (a.name() == "axis") axis = a.i();
  const int64_t rank = x->second;
  if (rank < 1 || axis < -rank || axis >= rank)
    return makeError(where + ": axis " + std::to_string(axis) + " does not fit input '" + n.input(0) + "' of rank " +
                     std::to_string(rank));
  return {};
}

class ModelChecker {
 public:
  ModelChecker(const ::onnx::ModelProto& m, std::string baseDir, std::string label)
      : m_model(m), m_baseDir(std::move(baseDir)), m_label(std::move(label)),
        m_ranks(declaredRanks(m.graph())),
        m_types(declaredElemTypes(m.graph())),
        m_opset(defaultOpset(m)) {
    for (const auto& f : m.functions()) m_functions[f.domain() + ":" + f.name()] = &f;
  }

  Status run() {
    for (const auto& t : m_model.graph().initializer()) DFC_TRY(checkTensor(t, "initializer '" + t.name() + "'"));
    DFC_TRY(checkNodes(m_model.graph().node(), "", 0));
    for (const auto& [key, f] : m_functions) {
      auto expanded = expandedNodes(key, 0);
      DFC_TRY(expanded);
    }
    return {};
  }

 private:
  Error fail(const std::string& what) const { return makeError(m_label + ": " + what); }

  Status checkTensor(const ::onnx::TensorProto& t, const std::string& what) {
    auto bytes = checkDeclaredSize(t);
    if (!bytes) return fail(what + ": " + bytes.error().message());
    if (t.data_location() == ::onnx::TensorProto::EXTERNAL) {
      auto ext = externalDataOf(t, m_baseDir, *bytes);
      if (!ext) return fail(what + ": " + ext.error().message());
    }
    return {};
  }

  // Nodes of a graph or function body, and the graphs in their attributes.
  Status checkNodes(const NodeList& nodes, const std::string& in, int depth) {
    if (depth > kMaxFunctionDepth) return fail("subgraphs nest deeper than " + std::to_string(kMaxFunctionDepth));
    int index = 0;
    for (const auto& n : nodes) {
      std::string where = in + nodeLabel(n, ++index);
      if (auto st = checkWindowAttributes(n, where); !st) return fail(st.error().message());
      if (in.empty()) {  // the main graph, where m_ranks and m_types hold
        if (auto st = checkConvRanks(n, m_ranks, where); !st) return fail(st.error().message());
        if (auto st = checkLayerNormRank(n, m_ranks, where); !st) return fail(st.error().message());
        if (m_opset > 0)
          if (auto st = checkInputTypes(n, m_opset, m_types, where); !st) return fail(st.error().message());
      }
      for (const auto& a : n.attribute()) {
        if (a.has_t()) DFC_TRY(checkTensor(a.t(), where + " attribute '" + a.name() + "'"));
        if (a.has_g()) DFC_TRY(checkNodes(a.g().node(), where + " subgraph: ", depth + 1));
        for (const auto& g : a.graphs()) DFC_TRY(checkNodes(g.node(), where + " subgraph: ", depth + 1));
      }
    }
    return {};
  }

  // Nodes a local function expands to once inlined; refuses recursion and
  // runaway nesting (a chain of functions each calling the next twice doubles).
  Expected<int64_t> expandedNodes(const std::string& key, int depth) {
    if (auto it = m_expanded.find(key); it != m_expanded.end()) return it->second;
    const ::onnx::FunctionProto& f = *m_functions.at(key);
    if (!m_active.insert(key).second) return fail("local function '" + f.name() + "' calls itself");
    if (depth > kMaxFunctionDepth)
      return fail("local functions nest deeper than " + std::to_string(kMaxFunctionDepth) + " (at '" + f.name() + "')");
    DFC_TRY(checkNodes(f.node(), "function '" + f.name() + "' ", 0));
    int64_t total = 0;
    for (const auto& n : f.node()) {
      std::string callee = n.domain() + ":" + n.op_type();
      int64_t count = 1;
      if (m_functions.count(callee)) {
        auto inner = expandedNodes(callee, depth + 1);
        DFC_TRY(inner);
        count = *inner;
      }
      total += count;
      if (total > kMaxExpandedNodes)
        return fail("local function '" + f.name() + "' expands to more than " + std::to_string(kMaxExpandedNodes) + " nodes");
    }
    m_active.erase(key);
    m_expanded[key] = total;
    return total;
  }

  const ::onnx::ModelProto& m_model;
  std::string m_baseDir, m_label;
  std::map<std::string, int> m_ranks;  // declared in the main graph
  std::map<std::string, int32_t> m_types;
  int64_t m_opset = -1;
  std::map<std::string, const ::onnx::FunctionProto*> m_functions;
  std::map<std::string, int64_t> m_expanded;
  std::set<std::string> m_active;
};

Expected<uint64_t> parseCount(const std::string& key, const std::string& text) {
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty())
    return makeError("external data " + key + " '" + text + "' is not a non-negative integer");
  return v;
}

}  // namespace

Expected<uint64_t> checkDeclaredSize(const ::onnx::TensorProto& t) {
  uint64_t elements = 1;
  std::string shape;
  for (int64_t d : t.dims()) {
    if (d < 0) return makeError("negative dimension " + std::to_string(d));
    shape += (shape.empty() ? "" : ",") + std::to_string(d);
    auto next = support::checkedMul(elements, static_cast<uint64_t>(d));
    if (!next) return makeError("dims [" + shape + "] overflow");
    elements = *next;
  }
  ir::DType dt{};
  uint64_t es = dtypeFromOnnx(t.data_type(), dt) ? ir::dtypeSize(dt) : 8;
  auto bytes = support::checkedMul(elements, es);
  if (!bytes) return makeError("dims [" + shape + "] overflow");
  DFC_TRY(support::checkBudget("tensor '" + t.name() + "' of dims [" + shape + "]", *bytes));
  return *bytes;
}

Expected<ExternalData> externalDataOf(const ::onnx::TensorProto& t, const std::string& baseDir, uint64_t bytes) {
  ExternalData out;
  std::string location;
  bool haveLength = false;
  for (const auto& kv : t.external_data()) {
    if (kv.key() == "location") {
      location = kv.value();
    } else if (kv.key() == "offset") {
      auto v = parseCount("offset", kv.value());
      DFC_TRY(v);
      out.offset = *v;
    } else if (kv.key() == "length") {
      auto v = parseCount("length", kv.value());
      DFC_TRY(v);
      out.length = *v;
      haveLength = true;
    }
  }
  if (location.empty()) return makeError("external data without a location");
  auto path = support::resolveInside(baseDir, location, "external data location");
  DFC_TRY(path);
  out.path = *path;
  DFC_TRY(support::checkRegularFile(out.path, uint64_t{1} << 62));
  if (!haveLength) out.length = bytes;
  if (bytes && out.length != bytes)
    return makeError("external data length " + std::to_string(out.length) + " differs from the " + std::to_string(bytes) +
                     " bytes the tensor needs");
  uint64_t size = std::filesystem::file_size(out.path);
  if (out.offset > size || out.length > size - out.offset)
    return makeError("external data " + location + " holds " + std::to_string(size) + " bytes, fewer than offset " +
                     std::to_string(out.offset) + " + length " + std::to_string(out.length));
  return out;
}

Status precheckModel(const ::onnx::ModelProto& model, const std::string& baseDir, const std::string& label) {
  return ModelChecker(model, baseDir, label).run();
}

}  // namespace dfc::onnx
