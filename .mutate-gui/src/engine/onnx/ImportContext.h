#pragma once
// Shared by the op mapping files: the graph being built, the node being
// mapped, and helpers to read its attributes and constant inputs and to emit
// IR nodes (constant-folded when every input is a Const).
#include <onnx/onnx_pb.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/Graph.h"
#include "support/Error.h"

// `auto var = value of expr`, or return its error (for Expected<T> expressions).
#define DFC_TRY_ASSIGN(var, expr)                   \
  auto var##Expected_ = (expr);                     \
  if (!var##Expected_) return var##Expected_.error(); \
  auto var = std::move(*var##Expected_)

namespace dfc::onnx {

class ImportContext;
// A sequence or an optional known at import (onnx/Sequences.h): its tensors.
struct ListValue {
  bool optional = false;  // an optional: holds no item or one (a tensor, or a sequence when `sequence`)
  bool present = true;    // optionals only: whether it holds an element
  bool sequence = true;   // the items form a sequence (for an optional: it wraps one)
  std::vector<ir::ValueId> items;
};
using MapFn = std::function<Status(ImportContext&)>;
using OpTable = std::map<std::string, MapFn>;

void registerElementwiseOps(OpTable& table);
void registerNnOps(OpTable& table);
void registerShapeOps(OpTable& table);
void registerPickOps(OpTable& table);
void registerResizeOps(OpTable& table);
void registerScatterOps(OpTable& table);
void registerRecurrentOps(OpTable& table);
void registerLayoutOps(OpTable& table);  // registered last: overrides Neg/Abs

// ONNX elem_type -> IR dtype; false if the IR has no such dtype.
bool dtypeFromOnnx(int elemType, ir::DType& out);
std::string onnxTypeName(int elemType);
// "a sequence (seq(tensor(float)))", "an optional (optional(tensor(int64)))", "a map (...)", "a tensor (...)".
std::string describeValueType(const ::onnx::TypeProto& type);
// TensorProto -> Tensor; external data relative to baseDir.
Expected<ir::Tensor> tensorFromProto(const ::onnx::TensorProto& t, const std::string& baseDir);

class ImportContext {
 public:
  ImportContext(ir::Graph& graph, std::string baseDir) : m_graph(graph), m_baseDir(std::move(baseDir)) {}

  ir::Graph& graph() { return m_graph; }
  const std::string& baseDir() const { return m_baseDir; }
  std::map<std::string, ir::ValueId>& names() { return m_names; }
  // ONNX value name -> sequence or optional (never also in names()).
  std::map<std::string, ListValue>& lists() { return m_lists; }
  const ListValue* list(int input) const;  // the node's input `input` when it is a list, else nullptr
  void setListOutput(int i, ListValue v);
  // A list passed through control flow as a ValueId (Loop state, a body's
  // inputs and outputs): a token below kNoValue that only these functions,
  // setOutput and the body mapper understand; never an operand of emit().
  ir::ValueId listToken(ListValue v);
  static bool isListToken(ir::ValueId v) { return v < ir::kNoValue; }
  const ListValue& tokenList(ir::ValueId token) const { return m_tokens.at(static_cast<size_t>(-2 - token)); }
  // Input i as Loop carries it: a token when it is a list.
  ir::ValueId carriedInput(int i);
  void setOpset(int64_t opset) { m_opset = opset; }
  int64_t opset() const { return m_opset; }
  void setNode(const ::onnx::NodeProto* node, std::string irName, std::string scope);
  const ::onnx::NodeProto& node() const { return *m_node; }
  // The node being mapped, its IR name and scope: saved around a subgraph's nodes.
  struct Frame {
    const ::onnx::NodeProto* node;
    std::string irName, scope;
  };
  Frame frame() const { return {m_node, m_irName, m_scope}; }
  void restore(const Frame& f) { setNode(f.node, f.irName, f.scope); }
  // The same node in another form (an older version rewritten): name and scope stay.
  void retarget(const ::onnx::NodeProto* node) { m_node = node; }

  // "node 'name' (OpType, opset N): what"; the node is the one being mapped.
  Error error(const std::string& what) const;
  // A tensor this node would make (`what`: "output", "pad block") fits the memory budget.
  Status checkSize(const ir::TensorType& type, const std::string& what) const;

  // Inputs: kNoValue where absent (index past the end, or an empty name).
  int numInputs() const { return m_node->input_size(); }
  ir::ValueId input(int i) const;
  Expected<ir::ValueId> requireInput(int i) const;
  int numOutputs() const { return m_node->output_size(); }
  bool outputWanted(int i) const { return i < m_node->output_size() && !m_node->output(i).empty(); }
  void setOutput(int i, ir::ValueId v);

  ir::TensorType type(ir::ValueId v) const { return m_graph.value(v).type; }
  // By value: mappers add values while they use a shape, and adding may move the graph's value storage.
  ir::Shape shape(ir::ValueId v) const { return m_graph.value(v).type.shape; }
  int64_t rank(ir::ValueId v) const { return static_cast<int64_t>(m_graph.value(v).type.rank()); }
  const ir::Tensor* constData(ir::ValueId v) const;  // Const values only (Params are not constant)
  Expected<std::vector<int64_t>> constInts(ir::ValueId v, const std::string& what) const;
  Expected<std::vector<double>> constFloats(ir::ValueId v, const std::string& what) const;
  // Normalizes a possibly negative axis against rank; error when out of range.
  Expected<int64_t> axis(int64_t a, int64_t rank) const;
  // An axis whose dimension is then read: a scalar has none (fuzzing found
  // Split, Squeeze and Slice of a scalar reading past an empty shape).
  Expected<int64_t> dimAxis(int64_t a, int64_t rank) const;

  // ONNX element types of the graph's values (initializers, inputs, shape
  // inference's value_info, outputs): what the IR's wider compute type hides
  // (a uint8 and an int8 zero point are both int64 here). 0 when unknown.
  std::map<std::string, int>& elemTypes() { return m_elemTypes; }
  int inputElemType(int i) const;

  // Attributes.
  const ::onnx::AttributeProto* attr(const std::string& name) const;
  int64_t attrInt(const std::string& name, int64_t fallback) const;
  double attrFloat(const std::string& name, double fallback) const;
  std::vector<int64_t> attrInts(const std::string& name) const;
  std::string attrString(const std::string& name, const std::string& fallback) const;

  // Emitting. emit() names the output after the node (unique), infers its type,
  // and folds the node into a Const when every input is a Const.
  Expected<ir::ValueId> emit(ir::OpKind op, std::vector<ir::ValueId> inputs, ir::Attributes attrs = {});
  // A node with several outputs (never folded): one value per output, named after the node.
  Expected<std::vector<ir::ValueId>> emitMulti(ir::OpKind op, std::vector<ir::ValueId> inputs, ir::Attributes attrs);
  ir::ValueId constant(ir::Tensor data, const std::string& hint = "const");
  ir::ValueId scalarF32(float v) { return constant(ir::Tensor::scalarF32(v), "scalar"); }
  Expected<ir::ValueId> reshape(ir::ValueId v, ir::Shape shape);
  Expected<ir::ValueId> binary(const std::string& fn, ir::ValueId a, ir::ValueId b);
  Expected<ir::ValueId> unary(const std::string& fn, ir::ValueId x, double alpha = 0, double beta = 0);
  Expected<ir::ValueId> cast(ir::ValueId v, ir::DType to);
  Expected<ir::ValueId> transpose(ir::ValueId v, std::vector<int64_t> perm);

  std::string uniqueValueName(const std::string& base);
  std::string uniqueNodeName(const std::string& base);

 private:
  Expected<std::vector<ir::TensorType>> probe(ir::OpKind op, const std::vector<ir::ValueId>& inputs,
                                              const ir::Attributes& attrs, ir::Node& node) const;

  ir::Graph& m_graph;
  std::string m_baseDir;
  std::map<std::string, ir::ValueId> m_names;  // ONNX value name -> IR value
  std::map<std::string, int> m_elemTypes;      // ONNX value name -> ONNX element type
  std::map<std::string, ListValue> m_lists;
  std::vector<ListValue> m_tokens;
  std::set<std::string> m_valueNames, m_nodeNames;
  const ::onnx::NodeProto* m_node = nullptr;
  std::string m_irName, m_scope;
  int64_t m_opset = 17;
  int m_counter = 0;
};

std::string sanitizeName(const std::string& name);
// x[..., start:end:step, ...] along `axis`, of x's dtype (MapLayout.cpp).
Expected<ir::ValueId> sliceAxis(ImportContext& c, ir::ValueId x, size_t axis, int64_t start, int64_t end, int64_t step);
// Rank `rank`, ones except `count` on `axis`: 0..count-1 (int64) along that axis.
ir::ValueId indicesAlong(ImportContext& c, int64_t count, size_t rank, size_t axis);
// int32/int64 indices into an axis of `extent` as int64 in [0, extent): negative
// ones count from the end; constant ones are range-checked at import.
Expected<ir::ValueId> wrapNegativeIndices(ImportContext& c, ir::ValueId index, int64_t extent);
// MapNn.cpp: ONNX MatMul (numpy broadcasting) and the node's Conv attributes
// (pads, strides, dilations, group) applied to f32 x and w, plus an f32 bias.
Expected<ir::ValueId> onnxMatMul(ImportContext& c, ir::ValueId a, ir::ValueId b);
Expected<ir::ValueId> onnxConv(ImportContext& c, ir::ValueId x, ir::ValueId w, ir::ValueId bias);
// MapMatrix.cpp: MaxPool's Indices for y = MaxPool(x) over a 2-D window (pads [t, l, b, r]).
Expected<ir::ValueId> onnxMaxPoolIndices(ImportContext& c, ir::ValueId x, ir::ValueId y, const std::vector<int64_t>& kernel,
                                         const std::vector<int64_t>& strides, const std::vector<int64_t>& pads);
void registerQuantOps(OpTable& table);   // MapQuant.cpp
void registerMatrixOps(OpTable& table);  // MapMatrix.cpp
void registerNgramOps(OpTable& table);     // MapNgram.cpp
void registerTrainingOps(OpTable& table);  // MapTraining.cpp: the ai.onnx.preview.training domain
void registerSpectralOps(OpTable& table);  // MapSpectral.cpp: DFT, STFT, MelWeightMatrix

// An error naming the node unless `x` is float32.
Status needFloat(ImportContext& c, ir::ValueId x);

}  // namespace dfc::onnx
