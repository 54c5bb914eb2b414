#include "onnx/OnnxImporter.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <cctype>
#include <deque>
#include <filesystem>
#include <optional>
#include <set>

#include "ir/TensorBudget.h"
#include "onnx/ControlFlow.h"
#include "onnx/ImportContext.h"
#include "onnx/InputShapes.h"
#include "onnx/OlderOpsets.h"
#include "onnx/OnnxPrecheck.h"
#include "onnx/Sequences.h"
#include "onnx/TopoSort.h"
#include "support/SafePath.h"

namespace dfc::onnx {
namespace fs = std::filesystem;
using ir::ValueId;

namespace {

// The mappers implement the operators as opsets 11-17 define them. An older
// model imports when each of its operators is still the version opset 11 has
// (And-7, Elu-6, GlobalAveragePool-1 ...); others are refused by name.
// Which older versions are accepted, rewritten or refused: onnx/OlderOpsets.h.
constexpr int64_t kMinOpset = 1, kMinNativeOpset = 11, kMaxOpset = 17;

const OpTable& opTable() {
  static const OpTable table = [] {
    OpTable t;
    registerElementwiseOps(t);
    registerNnOps(t);
    registerShapeOps(t);
    registerPickOps(t);
    registerResizeOps(t);
    registerScatterOps(t);
    registerRecurrentOps(t);
    registerLayoutOps(t);
    registerQuantOps(t);
    registerMatrixOps(t);
    registerNgramOps(t);
    registerSpectralOps(t);
    return t;
  }();
  return table;
}

// Operators of the ai.onnx.preview.training domain (MapTraining.cpp).
constexpr const char* kTrainingDomain = "ai.onnx.preview.training";
const OpTable& trainingOpTable() {
  static const OpTable table = [] {
    OpTable t;
    registerTrainingOps(t);
    return t;
  }();
  return table;
}

// Whether any node of the graph is of the default domain (so needs its opset).
bool usesDefaultDomain(const ::onnx::GraphProto& g) {
  return std::any_of(g.node().begin(), g.node().end(),
                     [](const auto& n) { return n.domain().empty() || n.domain() == "ai.onnx"; });
}

// Float initializers read by these (op, input index) positions are trainable weights.
bool trainablePosition(const std::string& op, int index) {
  if (op == "Conv" || op == "ConvTranspose" || op == "Gemm") return index >= 1;
  if (op == "MatMul") return index == 1;
  if (op == "BatchNormalization" || op == "LayerNormalization" || op == "InstanceNormalization")
    return index == 1 || index == 2;
  if (op == "Gather") return index == 0;
  return false;
}

// Operand positions whose value shapes the graph (sizes, axes, shapes, bounds):
// the mappers need them constant.
bool shapingPosition(const std::string& op, int index) {
  if (op == "Resize") return index >= 1;
  if (op == "Upsample") return index == 1;            // scales
  if (op == "DFT") return index == 1;                 // dft_length
  if (op == "STFT") return index == 1 || index == 3;  // frame_step, frame_length
  if (op == "MaxUnpool") return index == 2;           // output_shape
  if (op == "MelWeightMatrix") return true;           // all five scalars: the matrix is a constant
  if (op == "Reshape" || op == "Expand" || op == "Tile" || op == "Unsqueeze" || op == "Squeeze" || op == "Split" ||
      op == "TopK" || op == "Trilu" || op == "OneHot" || op == "CumSum")
    return index == 1;
  if (op == "Slice") return index >= 1;
  if (op == "Pad") return index == 1 || index == 3;
  if (op == "Range") return true;  // start, limit, delta: the output's length
  if (op.rfind("Reduce", 0) == 0) return index == 1;
  if (op == "ConstantOfShape") return index == 0;
  if (op == "LSTM" || op == "GRU" || op == "RNN") return index == 4;  // sequence_lens: the unrolled length
  if (op == "Loop") return index <= 1;  // trip count and condition: the unrolled length
  if (op == "ReverseSequence") return index == 1;  // sequence_lens: which steps move
  if (op == "Dropout") return index >= 1;  // ratio and training_mode: the mapper needs them known
  if (op == "HannWindow" || op == "HammingWindow" || op == "BlackmanWindow") return index == 0;  // size
  if (op == "SequenceInsert") return index == 2;  // positions: the list is edited at import (onnx/Sequences.h)
  if (op == "SequenceAt" || op == "SequenceErase") return index == 1;
  return false;
}

// The values whose contents reach a shaping position, directly or through the
// nodes that compute it (Shape, Size and CastLike's `like` read only a shape or
// a type, so the value stops there). Control-flow bodies are not followed.
std::set<std::string> shapingValues(const ::onnx::GraphProto& g) {
  auto readsContents = [](const ::onnx::NodeProto& n, int i) {
    return n.op_type() != "Shape" && n.op_type() != "Size" && !(n.op_type() == "CastLike" && i == 1);
  };
  std::set<std::string> out;
  for (bool grew = true; grew;) {
    grew = false;
    for (auto n = g.node().rbegin(); n != g.node().rend(); ++n) {
      const bool feeds = std::any_of(n->output().begin(), n->output().end(),
                                     [&](const std::string& o) { return out.count(o) > 0; });
      for (int i = 0; i < n->input_size(); ++i)
        if (!n->input(i).empty() && (shapingPosition(n->op_type(), i) || (feeds && readsContents(*n, i))))
          grew |= out.insert(n->input(i)).second;
    }
  }
  return out;
}

// "/encoder/layers.3/self_attn/MatMul_1" -> "encoder/layers.3/self_attn"; "MatMul_12" -> "".
std::string scopeFromName(const std::string& name) {
  if (name.empty() || name.front() != '/') return {};
  auto last = name.find_last_of('/');
  if (last == 0) return {};
  std::string path = name.substr(1, last - 1);
  std::string out;
  for (char c : path) out += (c == '/' || c == '.' || c == '_' || std::isalnum(static_cast<unsigned char>(c))) ? c : '_';
  return out;
}

class Importer {
 public:
  Importer(const ::onnx::ModelProto& model, std::string baseDir, std::string label, const ImportOptions& options)
      : m_model(model), m_ctx(m_graph, std::move(baseDir)), m_label(std::move(label)), m_options(options) {}

  Expected<ir::Graph> run() {
    const auto& g = m_model.graph();
    m_graph.name = sanitizeName(g.name().empty() ? "onnx_model" : g.name());
    int64_t opset = -1;
    for (const auto& o : m_model.opset_import())
      if (o.domain().empty() || o.domain() == "ai.onnx") opset = o.version();
    if (opset < 0 && !usesDefaultDomain(g)) opset = kMaxOpset;  // only other domains' operators (a training step)
    if (opset < 0) return makeError(m_label + ": the model imports no version of the default ONNX opset");
    if (opset < kMinOpset || opset > kMaxOpset)
      return makeError(m_label + ": opset " + std::to_string(opset) + " is not supported (opsets " +
                       std::to_string(kMinOpset) + "-" + std::to_string(kMaxOpset) + ")");
    m_ctx.setOpset(opset);
    for (const auto& f : m_model.functions()) m_functions[f.domain() + ":" + f.name()] = &f;
    collectNarrowValues(g);
    DFC_TRY(addInitializers(g));
    DFC_TRY(addInputs(g));
    DFC_TRY(mapNodes(g.node(), {}, ""));
    for (const auto& o : g.output()) {
      if (auto list = m_ctx.lists().find(o.name()); list != m_ctx.lists().end()) {
        for (ValueId v : list->second.items) DFC_TRY(addOutput(o.name(), v));
        continue;
      }
      auto it = m_ctx.names().find(o.name());
      if (it == m_ctx.names().end()) return makeError(m_label + ": graph output '" + o.name() + "' is not computed");
<<<<<<< HEAD
      DFC_TRY(addOutput(o.name(), it->second));
=======
      ValueId v = it->second;
      if (m_graph.value(v).type.numElements() == 0)
        return makeError(m_label + ": graph output '" + o.name() + "' is empty (" + m_graph.value(v).type.toString() +
                         "; empty outputs are not supported)");
      // The runtime hands back values that nodes compute: a graph output that is
      // an input, a constant (folded at import) or another output gets a copy.
      bool repeated = std::find(m_graph.outputs.begin(), m_graph.outputs.end(), v) != m_graph.outputs.end();
      if (m_graph.value(v).kind != ir::ValueKind::Intermediate || repeated) {
        m_ctx.setNode(nullptr, sanitizeName(o.name()) + ".output", "");
        auto copy = m_ctx.unary("identity", v);
        if (!copy) return copy.error();
        v = *copy;
      }
      m_graph.outputs.push_back(v);
      if (m_options.outputNames) m_options.outputNames->push_back(o.name());
>>>>>>> issue-33-run
    }
    if (m_graph.outputs.empty()) return makeError(m_label + ": the graph has no outputs");
    return std::move(m_graph);
  }

 private:
  Status addOutput(const std::string& name, ValueId v) {
    if (m_graph.value(v).type.numElements() == 0)
      return makeError(m_label + ": graph output '" + name + "' is empty (" + m_graph.value(v).type.toString() +
                       "; empty outputs are not supported)");
    // The runtime hands back values that nodes compute: a graph output that is
    // an input, a constant (folded at import) or another output gets a copy.
    bool repeated = std::find(m_graph.outputs.begin(), m_graph.outputs.end(), v) != m_graph.outputs.end();
    if (m_graph.value(v).kind != ir::ValueKind::Intermediate || repeated) {
      m_ctx.setNode(nullptr, sanitizeName(name) + ".output", "");
      auto copy = m_ctx.unary("identity", v);
      if (!copy) return copy.error();
      v = *copy;
    }
    m_graph.outputs.push_back(v);
    return {};
  }

  Status addInitializers(const ::onnx::GraphProto& g) {
    std::set<std::string> trainable;
    for (const auto& n : g.node())
      for (int i = 0; i < n.input_size(); ++i)
        if (trainablePosition(n.op_type(), i)) trainable.insert(n.input(i));
    for (const auto& t : g.initializer()) {
      auto tensor = tensorFromProto(t, m_ctx.baseDir());
      if (!tensor) return tensor.error().withContext(m_label + ": initializer");
      std::string name = m_ctx.uniqueValueName(t.name());
      ValueId v = tensor->dtype() == ir::DType::F32 && tensor->numElements() > 0 && trainable.count(t.name())
                      ? m_graph.addParam(name, std::move(*tensor))
                      : m_graph.addConst(name, std::move(*tensor));
      m_ctx.names()[t.name()] = v;
    }
    if (g.sparse_initializer_size() > 0) return makeError(m_label + ": sparse initializers are not supported");
    return {};
  }

  // True when every use of `name` in g is a shaping position.
  static bool onlyShaping(const ::onnx::GraphProto& g, const std::string& name) {
    bool used = false;
    for (const auto& n : g.node())
      for (int i = 0; i < n.input_size(); ++i)
        if (n.input(i) == name) {
          if (!shapingPosition(n.op_type(), i)) return false;
          used = true;
        }
    return used;
  }

  // A known input is compiled in as a constant when it only shapes, or when it
  // is small (a size or a bound, not data) and its value reaches a shape through
  // computation: a window's length cast and scaled into Range's limit.
  bool specialised(const ::onnx::GraphProto& g, const std::string& name, const ir::Tensor& value) {
    constexpr int64_t kMaxShapingElements = 64;
    if (onlyShaping(g, name)) return true;
    if (value.numElements() > kMaxShapingElements) return false;
    if (!m_shapingValues) m_shapingValues = shapingValues(g);
    return m_shapingValues->count(name) > 0;
  }

  Status addInputs(const ::onnx::GraphProto& g) {
    auto bound = bindInputShapes(g, m_options.inputShapes, m_options.batchSize, m_label,
                                 !m_options.ignoreUnknownInputShapes);
    if (!bound) return bound.error();
    const InputShapeMap& shapes = *bound;
    for (const auto& in : g.input()) {
      if (m_ctx.names().count(in.name())) continue;  // an initializer (a default value): stays constant
      const std::string label = m_label + ": input '" + in.name() + "'";
      if (auto known = m_options.operandValues.find(in.name());
          known != m_options.operandValues.end() && specialised(g, in.name(), known->second)) {
        m_ctx.names()[in.name()] = m_graph.addConst(m_ctx.uniqueValueName(in.name()), known->second);
        continue;
      }
      if (in.type().has_sequence_type() || in.type().has_optional_type()) {
        DFC_TRY(addListInput(in, label));
        continue;
      }
      if (!in.type().has_tensor_type())
        return makeError(label + " is " + describeValueType(in.type()) + ": only tensor inputs are supported");
      const auto& tt = in.type().tensor_type();
      ir::TensorType type;
      if (!dtypeFromOnnx(tt.elem_type(), type.dtype))
        return makeError(label + " has element type " + onnxTypeName(tt.elem_type()) +
                         " (supported: float, double, float16, bfloat16, int64, int32, the narrow integers, bool)");
      if (!tt.has_shape()) return makeError(label + " has no shape");
      type.shape = shapes.at(in.name());
      for (int64_t d : type.shape)
        if (d < 1) return makeError(label + " has an empty dimension (not supported)");
      if (auto st = ir::checkTensorBudget(label, type); !st) return st.error();
      ValueId v = m_graph.addInput(m_ctx.uniqueValueName(in.name()), type);
      m_ctx.names()[in.name()] = v;
      if (m_options.inputNames) m_options.inputNames->push_back(in.name());
    }
    return {};
  }

  // A sequence or optional input of tensors: one IR input per element, of the shapes the options give.
  Status addListInput(const ::onnx::ValueInfoProto& in, const std::string& label) {
    const bool optional = in.type().has_optional_type();
    const ::onnx::TypeProto& inner = optional ? in.type().optional_type().elem_type() : in.type();
    const bool sequence = inner.has_sequence_type();
    const ::onnx::TypeProto& elem = sequence ? inner.sequence_type().elem_type() : inner;
    if (!elem.has_tensor_type())
      return makeError(label + " is " + describeValueType(in.type()) + ": only lists of tensors are supported");
    auto given = m_options.listInputs.find(in.name());
    if (given == m_options.listInputs.end())
      return makeError(label + " is " + describeValueType(in.type()) + ": its elements' shapes are not given");
    ListValue list{optional, given->second.present, sequence, {}};
    if (!sequence && given->second.shapes.size() > (list.present ? 1u : 0u))
      return makeError(label + " is an optional tensor: it holds at most one tensor");
    ir::TensorType type;
    if (!dtypeFromOnnx(elem.tensor_type().elem_type(), type.dtype))
      return makeError(label + " has element type " + onnxTypeName(elem.tensor_type().elem_type()) +
                       " (not supported)");
    for (size_t k = 0; k < given->second.shapes.size(); ++k) {
      type.shape = given->second.shapes[k];
      const std::string name = in.name() + "." + std::to_string(k);
      if (auto st = ir::checkTensorBudget(label, type); !st) return st.error();
      list.items.push_back(m_graph.addInput(m_ctx.uniqueValueName(name), type));
    }
    m_ctx.lists()[in.name()] = std::move(list);
    return {};
  }

  // A sequence or optional op (onnx/Sequences.h); SequenceMap's body maps through mapBody.
  Status mapListNode(const ::onnx::NodeProto& n) {
    for (int i = 0; i < n.input_size(); ++i)
      if (!n.input(i).empty() && !m_ctx.names().count(n.input(i)) && !m_ctx.lists().count(n.input(i)))
        return m_ctx.error("input '" + n.input(i) + "' is not defined before the node").withContext(m_label);
    MapBody body = [this](const ::onnx::GraphProto& g, const std::string& prefix, const std::vector<ValueId>& inputs) {
      return mapBody(g, prefix, inputs);
    };
    if (auto st = mapListOp(m_ctx, body); !st) return st.error().withContext(m_label);
    for (int i = 0; i < n.output_size(); ++i)
      if (!n.output(i).empty() && !m_ctx.names().count(n.output(i)) && !m_ctx.lists().count(n.output(i)))
        return m_ctx.error("output " + std::to_string(i) + " is not supported").withContext(m_label);
    return {};
  }

  Status mapNodes(const google::protobuf::RepeatedPtrField<::onnx::NodeProto>& nodes, const std::string& prefix,
                  const std::string& outerScope) {
    int index = 0;
    for (const auto& n : nodes) {
      ++index;
      std::string scope = scopeFromName(n.name());
      if (!outerScope.empty()) scope = scope.empty() ? outerScope : outerScope + "/" + scope;
      std::string irName = prefix + (n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name());
      if (!irName.empty() && irName.front() == '/') irName.erase(irName.begin());
      m_ctx.setNode(&n, irName, scope);
      auto fn = m_functions.find(n.domain() + ":" + n.op_type());
      if (fn != m_functions.end()) {
        DFC_TRY(inlineFunction(n, *fn->second, outerScope));
        continue;
      }
      if (n.domain() == kTrainingDomain) {
        DFC_TRY(mapTrainingNode(n));
        continue;
      }
      if (!n.domain().empty() && n.domain() != "ai.onnx")
        return m_ctx.error("operator domain '" + n.domain() + "' is not supported").withContext(m_label);
      if (isListOp(m_ctx, n)) {
        DFC_TRY(mapListNode(n));
        continue;
      }
      for (int i = 0; i < n.input_size(); ++i)
        if (m_ctx.lists().count(n.input(i)) && n.op_type() != "Loop")
          return m_ctx.error("input '" + n.input(i) + "' is a sequence or optional, which this op does not take")
              .withContext(m_label);
      if (n.op_type() == "If" || n.op_type() == "Loop" || n.op_type() == "Scan") {
        DFC_TRY(mapControlFlow(n));
        continue;
      }
      auto it = opTable().find(n.op_type());
      if (it == opTable().end()) return m_ctx.error("unsupported op").withContext(m_label);
      if (m_ctx.opset() < kMinNativeOpset) DFC_TRY(mapOlderVersion(n));
      for (int i = 0; i < n.input_size(); ++i)
        if (!n.input(i).empty() && !m_ctx.names().count(n.input(i)))
          return m_ctx.error("input '" + n.input(i) + "' is not defined before the node").withContext(m_label);
      if (auto st = it->second(m_ctx); !st) return st.error().withContext(m_label);
      for (int i = 0; i < n.output_size(); ++i)
        if (!n.output(i).empty() && !m_ctx.names().count(n.output(i)))
          return m_ctx.error("output " + std::to_string(i) + " is not supported").withContext(m_label);
      DFC_TRY(narrowOutputs(n));
    }
    return {};
  }

  Status mapTrainingNode(const ::onnx::NodeProto& n) {
    auto it = trainingOpTable().find(n.op_type());
    if (it == trainingOpTable().end()) return m_ctx.error("unsupported op").withContext(m_label);
    for (int i = 0; i < n.input_size(); ++i)
      if (!n.input(i).empty() && !m_ctx.names().count(n.input(i)))
        return m_ctx.error("input '" + n.input(i) + "' is not defined before the node").withContext(m_label);
    if (auto st = it->second(m_ctx); !st) return st.error().withContext(m_label);
    return {};
  }

  // Outputs of float16 type (ONNX shape inference's or the declared type),
  // computed in f32, are rounded to float16 as the node leaves them; those of a
  // narrow integer type, computed in int64, wrap into its range.
  Status narrowOutputs(const ::onnx::NodeProto& n) {
    if (m_narrowValues.empty()) return {};
    for (const auto& out : n.output()) {
      auto type = out.empty() ? m_narrowValues.end() : m_narrowValues.find(out);
      if (type == m_narrowValues.end()) continue;
      auto narrowed = narrowValue(m_ctx.names().at(out), type->second);
      if (!narrowed) return narrowed.error().withContext(m_label);
      m_ctx.names()[out] = *narrowed;
    }
    return {};
  }

  Expected<ValueId> narrowValue(ValueId v, int elemType) {
    const ir::DType dt = m_graph.value(v).type.dtype;
    if (elemType == ::onnx::TensorProto::FLOAT16) return dt == ir::DType::F32 ? m_ctx.unary("round_f16", v) : v;
    if (elemType == ::onnx::TensorProto::BFLOAT16) return dt == ir::DType::F32 ? m_ctx.unary("round_bf16", v) : v;
    int bits = 0;
    bool isSigned = false;
    switch (elemType) {
      case ::onnx::TensorProto::INT8: bits = 8; isSigned = true; break;
      case ::onnx::TensorProto::UINT8: bits = 8; break;
      case ::onnx::TensorProto::INT16: bits = 16; isSigned = true; break;
      case ::onnx::TensorProto::UINT16: bits = 16; break;
      case ::onnx::TensorProto::UINT32: bits = 32; break;
      default: return v;  // uint64: int64's bits
    }
    if (dt != ir::DType::I64) return v;
    auto scalar = [&](int64_t x) {
      ir::Tensor t(ir::TensorType{ir::DType::I64, {}});
      t.data<int64_t>()[0] = x;
      return m_ctx.constant(std::move(t), "wrap");
    };
    const int64_t range = int64_t{1} << bits, half = isSigned ? range / 2 : 0;
    ValueId x = v;
    if (half) {
      DFC_TRY_ASSIGN(shifted, m_ctx.binary("add", x, scalar(half)));
      x = shifted;
    }
    DFC_TRY_ASSIGN(wrapped, m_ctx.binary("mod", x, scalar(range)));
    if (!half) return wrapped;
    return m_ctx.binary("sub", wrapped, scalar(half));
  }

  void collectNarrowValues(const ::onnx::GraphProto& g) {
    auto add = [&](const ::onnx::ValueInfoProto& v) {
      const int t = v.type().tensor_type().elem_type();
      if (t != 0) m_ctx.elemTypes()[v.name()] = t;
      if (t == ::onnx::TensorProto::FLOAT16 || t == ::onnx::TensorProto::BFLOAT16 || t == ::onnx::TensorProto::INT8 ||
          t == ::onnx::TensorProto::UINT8 || t == ::onnx::TensorProto::INT16 || t == ::onnx::TensorProto::UINT16 ||
          t == ::onnx::TensorProto::UINT32)
        m_narrowValues[v.name()] = t;
    };
    for (const auto& v : g.value_info()) add(v);
    for (const auto& v : g.output()) add(v);
    for (const auto& v : g.input()) m_ctx.elemTypes()[v.name()] = v.type().tensor_type().elem_type();
    for (const auto& t : g.initializer()) m_ctx.elemTypes()[t.name()] = t.data_type();
  }

  // If, Loop and Scan (onnx/ControlFlow.h): their bodies are mapped through mapBody.
  Status mapControlFlow(const ::onnx::NodeProto& n) {
    for (int i = 0; i < n.input_size(); ++i)
      if (!n.input(i).empty() && !m_ctx.names().count(n.input(i)) && !m_ctx.lists().count(n.input(i)))
        return m_ctx.error("input '" + n.input(i) + "' is not defined before the node").withContext(m_label);
    MapBody body = [this](const ::onnx::GraphProto& g, const std::string& prefix, const std::vector<ValueId>& inputs) {
      return mapBody(g, prefix, inputs);
    };
    auto st = n.op_type() == "If" ? mapIf(m_ctx, body) : n.op_type() == "Loop" ? mapLoop(m_ctx, body) : mapScan(m_ctx, body);
    if (!st) return st.error().withContext(m_label);
    for (int i = 0; i < n.output_size(); ++i)
      if (!n.output(i).empty() && !m_ctx.names().count(n.output(i)) && !m_ctx.lists().count(n.output(i)))
        return m_ctx.error("output " + std::to_string(i) + " is not supported").withContext(m_label);
    return {};
  }

  // A subgraph's nodes mapped in place: its inputs bound, the names it defines
  // (inputs, initializers, node outputs) under `prefix`, outer names as they are.
  Expected<std::vector<ValueId>> mapBody(const ::onnx::GraphProto& g, const std::string& prefix,
                                         const std::vector<ValueId>& inputs) {
    const ImportContext::Frame frame = m_ctx.frame();
    m_bodyNodes += g.node_size();  // unrolled loops and nested bodies, together
    if (m_bodyNodes > kMaxExpandedNodes)
      return m_ctx.error("its bodies expand to more than " + std::to_string(kMaxExpandedNodes) + " nodes");
    if (static_cast<size_t>(g.input_size()) != inputs.size())
      return m_ctx.error("its body takes " + std::to_string(g.input_size()) + " inputs, " +
                         std::to_string(inputs.size()) + " given");
    std::map<std::string, std::string> rename;
    for (int k = 0; k < g.input_size(); ++k) {
      const std::string name = prefix + g.input(k).name();
      rename[g.input(k).name()] = name;
      const ValueId v = inputs[static_cast<size_t>(k)];
      if (ImportContext::isListToken(v))
        m_ctx.lists()[name] = m_ctx.tokenList(v);
      else
        m_ctx.names()[name] = v;
    }
    for (const auto& t : g.initializer()) {
      auto tensor = tensorFromProto(t, m_ctx.baseDir());
      if (!tensor) return tensor.error().withContext(m_label + ": subgraph initializer");
      rename[t.name()] = prefix + t.name();
      m_ctx.names()[prefix + t.name()] = m_graph.addConst(m_ctx.uniqueValueName(prefix + t.name()), std::move(*tensor));
    }
    ::onnx::GraphProto copy;
    for (const auto& n : g.node())
      for (const auto& out : n.output())
        if (!out.empty()) rename[out] = prefix + out;
    for (const auto& n : g.node()) renamed(*copy.add_node() = n, rename);
    DFC_TRY(mapNodes(copy.node(), prefix, frame.scope));
    m_ctx.restore(frame);
    std::vector<ValueId> out;
    for (const auto& o : g.output()) {
      auto r = rename.find(o.name());
      auto it = m_ctx.names().find(r != rename.end() ? r->second : o.name());
      if (auto l = m_ctx.lists().find(r != rename.end() ? r->second : o.name()); l != m_ctx.lists().end()) {
        out.push_back(m_ctx.listToken(l->second));  // a sequence or optional: If and Loop pass it on
        continue;
      }
      if (it == m_ctx.names().end()) return m_ctx.error("its body output '" + o.name() + "' is not computed");
      out.push_back(it->second);
    }
    return out;
  }

  // n with the names in `rename` replaced, in nested subgraphs too.
  static void renamed(::onnx::NodeProto& n, const std::map<std::string, std::string>& rename) {
    auto apply = [&](std::string* name) {
      if (auto it = rename.find(*name); it != rename.end()) *name = it->second;
    };
    for (auto& in : *n.mutable_input()) apply(&in);
    for (auto& out : *n.mutable_output()) apply(&out);
    auto inGraph = [&](::onnx::GraphProto& g) {
      for (auto& inner : *g.mutable_node()) renamed(inner, rename);
      for (auto& o : *g.mutable_output()) apply(o.mutable_name());
    };
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) inGraph(*a.mutable_g());
      for (auto& g : *a.mutable_graphs()) inGraph(g);
    }
  }

  // A node of an older version than the mappers implement: refused, or
  // rewritten into opset 11's form (the copy is then the node being mapped).
  Status mapOlderVersion(const ::onnx::NodeProto& n) {
    auto make = [this](ir::Tensor data, const std::string& hint) {
      std::string name = "dfc.older/" + std::to_string(m_rewritten.size()) + "/" + hint;
      m_ctx.names()[name] = m_ctx.constant(std::move(data), hint);
      return name;
    };
    OlderNode older = checkOlderNode(n, m_ctx.opset(), make);
    if (!older.problem.empty()) return m_ctx.error(n.op_type() + " " + older.problem).withContext(m_label);
    if (older.rewritten) {
      m_rewritten.push_back(std::move(older.node));
      m_ctx.retarget(&m_rewritten.back());
    }
    return {};
  }

  // A local function call: its body is mapped with renamed values, its nodes
  // scoped "<function>.<instance>" so the instances form one hyperfunction.
  Status inlineFunction(const ::onnx::NodeProto& call, const ::onnx::FunctionProto& f, const std::string& outerScope) {
    if (call.attribute_size() > 0 || f.attribute_size() > 0)
      return m_ctx.error("local function '" + f.name() + "' with attributes is not supported").withContext(m_label);
    int instance = m_instances[f.name()]++;
    std::string scope = (outerScope.empty() ? "" : outerScope + "/") + sanitizeName(f.name()) + "." + std::to_string(instance);
    std::string prefix = scope + "/";
    ::onnx::GraphProto body;  // a renamed copy: value names get the instance prefix
    std::map<std::string, std::string> rename;
    for (int i = 0; i < f.input_size(); ++i) rename[f.input(i)] = i < call.input_size() ? call.input(i) : "";
    auto mapped = [&](const std::string& name) {
      if (name.empty()) return name;
      auto it = rename.find(name);
      return it != rename.end() ? it->second : prefix + name;
    };
    for (int i = 0; i < f.output_size(); ++i)
      if (i < call.output_size()) rename[f.output(i)] = call.output(i);
    for (const auto& n : f.node()) {
      auto* copy = body.add_node();
      *copy = n;
      copy->clear_name();
      copy->set_name(n.name());
      for (int i = 0; i < copy->input_size(); ++i) copy->set_input(i, mapped(n.input(i)));
      for (int i = 0; i < copy->output_size(); ++i) copy->set_output(i, mapped(n.output(i)));
    }
    return mapNodes(body.node(), prefix, scope);
  }

  const ::onnx::ModelProto& m_model;
  ir::Graph m_graph;
  ImportContext m_ctx;
  std::string m_label;
  ImportOptions m_options;
  std::map<std::string, const ::onnx::FunctionProto*> m_functions;
  std::map<std::string, int> m_instances;
  std::deque<::onnx::NodeProto> m_rewritten;  // older nodes in opset 11's form, mapped in their place
  std::optional<std::set<std::string>> m_shapingValues;  // of the main graph, computed on first need
  std::map<std::string, int> m_narrowValues;  // float16 and narrow integer values: their ONNX type
  int64_t m_bodyNodes = 0;                    // nodes mapped from If/Loop bodies so far
};

}  // namespace

namespace {

// The checker on a model changed since it was read (its nodes sorted), with
// external data resolved in `baseDir` as check_model(path) resolves it.
void checkInMemory(const ::onnx::ModelProto& model, const std::string& baseDir) {
  if (model.ir_version() < 3 || model.ir_version() > ::onnx::IR_VERSION || model.opset_import_size() == 0) {
    // refused (or, below IR 3, checked no further) by check_model(model) as by check_model(path)
    ::onnx::checker::check_model(model);
    return;
  }
  ::onnx::checker::CheckerContext ctx;
  ctx.set_ir_version(static_cast<int>(model.ir_version()));
  std::unordered_map<std::string, int> opsets;
  for (const auto& o : model.opset_import()) opsets[o.domain()] = static_cast<int>(o.version());
  ctx.set_opset_imports(opsets);
  ctx.set_model_dir(baseDir);
  ::onnx::checker::LexicalScopeContext lex;
  ::onnx::checker::check_graph(model.graph(), ctx, lex);
  if (model.ir_version() >= 8) ::onnx::checker::check_model_local_functions(model, ctx, lex);
}

// checkPath: the model file, so that the checker resolves external data next to
// it ("" = check the parsed model; external data then resolves against the cwd).
Expected<ir::Graph> importChecked(const std::string& bytes, const std::string& baseDir, const std::string& label,
                                  const ImportOptions& options, const std::string& checkPath) {
  ::onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) return makeError(label + ": not a valid ONNX model (protobuf parse failed)");
  if (!model.has_graph()) return makeError(label + ": not a valid ONNX model (no graph)");
  // Before libonnx: its checker and shape inference trust strides, kernels and functions.
  DFC_TRY(precheckModel(model, baseDir, label));
  const bool reordered = sortNodesTopologically(model);
  try {
    if (reordered) checkInMemory(model, baseDir);
    else if (checkPath.empty()) ::onnx::checker::check_model(model);
    else ::onnx::checker::check_model(checkPath);
  } catch (const std::exception& e) {
    std::string what = e.what();
    if (auto nl = what.find('\n'); nl != std::string::npos) what = what.substr(0, nl);
    return makeError(label + ": ONNX checker: " + what);
  }
  try {
    ::onnx::shape_inference::InferShapes(model);
  } catch (const std::exception& e) {
    std::string what = e.what();
    if (auto nl = what.find('\n'); nl != std::string::npos) what = what.substr(0, nl);
    return makeError(label + ": ONNX shape inference: " + what);
  }
  return Importer(model, baseDir, label, options).run();
}

}  // namespace

Expected<ir::Graph> importOnnxBytes(const std::string& bytes, const std::string& baseDir, const std::string& label,
                                    const ImportOptions& options) {
  return importChecked(bytes, baseDir, label, options, "");
}

Expected<ir::Graph> importOnnxFile(const std::string& path, const ImportOptions& options) {
  auto bytes = support::readRegularFile(path);
  if (!bytes) return bytes.error();
  std::string base = fs::path(path).parent_path().string();
  return importChecked(*bytes, base.empty() ? "." : base, path, options, path);
}

Expected<ir::Tensor> readTensorProtoFile(const std::string& path) {
  std::string name;
  return readTensorProtoFile(path, name);
}

Expected<ir::Tensor> readTensorProtoFile(const std::string& path, std::string& name,
                                         const std::map<std::string, int>& declared) {
  auto bytes = support::readRegularFile(path);
  if (!bytes) return bytes.error();
  ::onnx::TensorProto t;
  if (!t.ParseFromString(*bytes)) return makeError(path + ": not a serialized onnx.TensorProto");
  name = t.name();
  auto type = declared.find(name);
  if (type != declared.end() && type->second == ::onnx::TensorProto::BFLOAT16 &&
      t.data_type() == ::onnx::TensorProto::UINT16)
    t.set_data_type(::onnx::TensorProto::BFLOAT16);  // the same 16 bits per element
  std::string base = fs::path(path).parent_path().string();
  auto tensor = tensorFromProto(t, base.empty() ? "." : base);
  if (!tensor) return tensor.error().withContext(path);
  return tensor;
}

Expected<std::map<std::string, int>> declaredTypes(const std::string& modelPath) {
  auto bytes = support::readRegularFile(modelPath);
  if (!bytes) return bytes.error();
  ::onnx::ModelProto m;
  if (!m.ParseFromString(*bytes)) return makeError(modelPath + ": not a serialized onnx.ModelProto");
  std::map<std::string, int> out;
  for (const auto& in : m.graph().input()) out[in.name()] = in.type().tensor_type().elem_type();
  for (const auto& o : m.graph().output()) out[o.name()] = o.type().tensor_type().elem_type();
  return out;
}

}  // namespace dfc::onnx
