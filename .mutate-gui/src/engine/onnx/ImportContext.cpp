#include "onnx/ImportContext.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "ir/ShapeInference.h"
#include "ir/TensorBudget.h"
#include "onnx/OnnxPrecheck.h"
#include "runtime/Kernels.h"
#include "support/Half.h"

namespace dfc::onnx {
namespace fs = std::filesystem;
using ir::DType;
using ir::ValueId;

namespace {
constexpr int64_t kMaxFoldElements = 1 << 22;
}  // namespace

std::string sanitizeName(const std::string& name) {
  std::string out;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
    out += ok ? c : '_';
  }
  if (out.empty()) out = "v";
  return out;
}

bool dtypeFromOnnx(int elemType, DType& out) {
  switch (elemType) {
    case ::onnx::TensorProto::FLOAT:
    case ::onnx::TensorProto::DOUBLE:   // computed as f32
    case ::onnx::TensorProto::FLOAT16:  // computed as f32, rounded to float16 where a value has that type
    case ::onnx::TensorProto::BFLOAT16:  // likewise, rounded to bfloat16
      out = DType::F32;
      return true;
    case ::onnx::TensorProto::INT64:
    case ::onnx::TensorProto::INT8:  // the narrow integers are computed as int64, wrapped where a value has their type
    case ::onnx::TensorProto::UINT8:
    case ::onnx::TensorProto::INT16:
    case ::onnx::TensorProto::UINT16:
    case ::onnx::TensorProto::UINT32:
    case ::onnx::TensorProto::UINT64:
      out = DType::I64;
      return true;
    case ::onnx::TensorProto::INT32: out = DType::I32; return true;
    case ::onnx::TensorProto::BOOL: out = DType::Bool; return true;
    default: return false;
  }
}

namespace {

std::string typeText(const ::onnx::TypeProto& t) {
  std::string elem;
  switch (t.value_case()) {
    case ::onnx::TypeProto::kTensorType:
      elem = onnxTypeName(t.tensor_type().elem_type());
      break;
    case ::onnx::TypeProto::kSparseTensorType:
      return "sparse_tensor(" + onnxTypeName(t.sparse_tensor_type().elem_type()) + ")";
    case ::onnx::TypeProto::kSequenceType:
      return "seq(" + typeText(t.sequence_type().elem_type()) + ")";
    case ::onnx::TypeProto::kOptionalType:
      return "optional(" + typeText(t.optional_type().elem_type()) + ")";
    case ::onnx::TypeProto::kMapType:
      return "map(" + onnxTypeName(t.map_type().key_type()) + ", " + typeText(t.map_type().value_type()) + ")";
    default:
      return "undefined";
  }
  for (auto& ch : elem) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return "tensor(" + elem + ")";
}

}  // namespace

std::string describeValueType(const ::onnx::TypeProto& type) {
  const char* kind = "a value of no type";
  switch (type.value_case()) {
    case ::onnx::TypeProto::kTensorType:
      kind = "a tensor";
      break;
    case ::onnx::TypeProto::kSparseTensorType:
      kind = "a sparse tensor";
      break;
    case ::onnx::TypeProto::kSequenceType:
      kind = "a sequence";
      break;
    case ::onnx::TypeProto::kOptionalType:
      kind = "an optional";
      break;
    case ::onnx::TypeProto::kMapType:
      kind = "a map";
      break;
    default:
      return kind;
  }
  return std::string(kind) + " (" + typeText(type) + ")";
}

std::string onnxTypeName(int elemType) {
  if (::onnx::TensorProto::DataType_IsValid(elemType))
    return ::onnx::TensorProto::DataType_Name(static_cast<::onnx::TensorProto::DataType>(elemType));
  return "type " + std::to_string(elemType);
}

namespace {

// Bytes per element as the proto stores it.
size_t storedSize(int elemType) {
  switch (elemType) {
    case ::onnx::TensorProto::DOUBLE:
    case ::onnx::TensorProto::INT64:
    case ::onnx::TensorProto::UINT64: return 8;
    case ::onnx::TensorProto::FLOAT16:
    case ::onnx::TensorProto::BFLOAT16:
    case ::onnx::TensorProto::INT16:
    case ::onnx::TensorProto::UINT16: return 2;
    case ::onnx::TensorProto::BOOL:
    case ::onnx::TensorProto::INT8:
    case ::onnx::TensorProto::UINT8: return 1;
    default: return 4;
  }
}

// A stored integer of a type narrower (or unsigned) than the IR's int64.
int64_t narrowInt(const char* p, int elemType) {
  switch (elemType) {
    case ::onnx::TensorProto::INT8: return static_cast<int8_t>(*p);
    case ::onnx::TensorProto::UINT8: return static_cast<uint8_t>(*p);
    case ::onnx::TensorProto::INT16: { int16_t v; std::memcpy(&v, p, 2); return v; }
    case ::onnx::TensorProto::UINT16: { uint16_t v; std::memcpy(&v, p, 2); return v; }
    case ::onnx::TensorProto::UINT32: { uint32_t v; std::memcpy(&v, p, 4); return v; }
    default: { uint64_t v; std::memcpy(&v, p, 8); return static_cast<int64_t>(v); }  // UINT64
  }
}

bool isNarrowInt(int elemType) {
  return elemType == ::onnx::TensorProto::INT8 || elemType == ::onnx::TensorProto::UINT8 ||
         elemType == ::onnx::TensorProto::INT16 || elemType == ::onnx::TensorProto::UINT16 ||
         elemType == ::onnx::TensorProto::UINT32 || elemType == ::onnx::TensorProto::UINT64;
}

// The proto's bytes (raw or external), or "" with `found` false when the values are in typed fields.
Expected<std::string> storedBytes(const ::onnx::TensorProto& t, const std::string& baseDir, size_t bytes, bool& found,
                                  const std::string& label, const std::string& typeText) {
  found = true;
  if (t.data_location() == ::onnx::TensorProto::EXTERNAL) {
    // Only a file inside the model's folder, read where and as far as the numbers say.
    auto ext = externalDataOf(t, baseDir, bytes);
    if (!ext) return makeError(label + ": " + ext.error().message());
    std::ifstream in(ext->path, std::ios::binary);
    if (!in) return makeError(label + ": external data file " + ext->path + " cannot be opened");
    in.seekg(static_cast<std::streamoff>(ext->offset));
    std::string raw(static_cast<size_t>(ext->length), '\0');
    in.read(raw.data(), static_cast<std::streamsize>(raw.size()));
    if (static_cast<size_t>(in.gcount()) != raw.size())
      return makeError(label + ": external data file " + ext->path + " is shorter than the tensor");
    if (raw.size() != bytes)
      return makeError(label + ": holds " + std::to_string(raw.size()) + " bytes, " + typeText + " needs " + std::to_string(bytes));
    return raw;
  }
  if (!t.has_raw_data()) {
    found = false;
    return std::string();
  }
  if (t.raw_data().size() != bytes)
    return makeError(label + ": holds " + std::to_string(t.raw_data().size()) + " bytes, " + typeText + " needs " +
                     std::to_string(bytes));
  return t.raw_data();
}

// Element i of the stored bytes, as the IR value.
void decodeRaw(const std::string& raw, int elemType, ir::Tensor& out) {
  const int64_t n = out.numElements();
  if (elemType == ::onnx::TensorProto::DOUBLE) {
    for (int64_t i = 0; i < n; ++i) {
      double d;
      std::memcpy(&d, raw.data() + i * 8, 8);
      out.data<float>()[i] = static_cast<float>(d);
    }
  } else if (elemType == ::onnx::TensorProto::FLOAT16) {
    for (int64_t i = 0; i < n; ++i) {
      uint16_t h;
      std::memcpy(&h, raw.data() + i * 2, 2);
      out.data<float>()[i] = support::halfToFloat(h);
    }
  } else if (elemType == ::onnx::TensorProto::BFLOAT16) {
    for (int64_t i = 0; i < n; ++i) {
      uint16_t b;
      std::memcpy(&b, raw.data() + i * 2, 2);
      out.data<float>()[i] = support::bfloat16ToFloat(b);
    }
  } else if (isNarrowInt(elemType)) {
    const size_t size = storedSize(elemType);
    for (int64_t i = 0; i < n; ++i) out.data<int64_t>()[i] = narrowInt(raw.data() + i * size, elemType);
  } else {
    std::memcpy(out.bytes(), raw.data(), raw.size());
  }
}

int typedCount(const ::onnx::TensorProto& t) {
  switch (t.data_type()) {
    case ::onnx::TensorProto::FLOAT: return t.float_data_size();
    case ::onnx::TensorProto::DOUBLE: return t.double_data_size();
    case ::onnx::TensorProto::INT64: return t.int64_data_size();
    case ::onnx::TensorProto::UINT32:
    case ::onnx::TensorProto::UINT64: return t.uint64_data_size();
    default: return t.int32_data_size();  // int32, bool, float16 (its bits), int8/uint8/int16/uint16
  }
}

void decodeFields(const ::onnx::TensorProto& t, ir::Tensor& out) {
  const int64_t n = out.numElements();
  for (int i = 0; i < n; ++i) switch (t.data_type()) {
      case ::onnx::TensorProto::FLOAT: out.data<float>()[i] = t.float_data(i); break;
      case ::onnx::TensorProto::DOUBLE: out.data<float>()[i] = static_cast<float>(t.double_data(i)); break;
      case ::onnx::TensorProto::FLOAT16:
        out.data<float>()[i] = support::halfToFloat(static_cast<uint16_t>(t.int32_data(i)));
        break;
      case ::onnx::TensorProto::BFLOAT16:
        out.data<float>()[i] = support::bfloat16ToFloat(static_cast<uint16_t>(t.int32_data(i)));
        break;
      case ::onnx::TensorProto::INT64: out.data<int64_t>()[i] = t.int64_data(i); break;
      case ::onnx::TensorProto::BOOL: out.data<bool>()[i] = t.int32_data(i) != 0; break;
      case ::onnx::TensorProto::UINT32:
      case ::onnx::TensorProto::UINT64: out.data<int64_t>()[i] = static_cast<int64_t>(t.uint64_data(i)); break;
      case ::onnx::TensorProto::INT8:
      case ::onnx::TensorProto::UINT8:
      case ::onnx::TensorProto::INT16:
      case ::onnx::TensorProto::UINT16: out.data<int64_t>()[i] = t.int32_data(i); break;
      default: out.data<int32_t>()[i] = t.int32_data(i); break;
    }
}

}  // namespace

Expected<ir::Tensor> tensorFromProto(const ::onnx::TensorProto& t, const std::string& baseDir) {
  const std::string label = "tensor '" + t.name() + "'";
  DType dt{};
  if (!dtypeFromOnnx(t.data_type(), dt))
    return makeError(label + ": element type " + onnxTypeName(t.data_type()) +
                     " is not supported (float, double, float16, bfloat16, int64, int32, the narrow integers, bool)");
  ir::TensorType type{dt, {}};
  if (auto st = checkDeclaredSize(t); !st) return makeError(label + ": " + st.error().message());
  type.shape.assign(t.dims().begin(), t.dims().end());
  // Empty tensors (Resize's empty roi, empty axes) are read; the importer keeps
  // them as constants, which only shape arithmetic and optional operands read.
  const int64_t n = type.numElements();
  const size_t bytes = static_cast<size_t>(n) * storedSize(t.data_type());
  // The data present must match the declared size before the tensor is allocated.
  const std::string typeText = storedSize(t.data_type()) == ir::dtypeSize(dt)
                                   ? type.toString()
                                   : onnxTypeName(t.data_type()) + type.toString().substr(type.toString().find('['));
  bool haveRaw = false;
  auto raw = storedBytes(t, baseDir, bytes, haveRaw, label, typeText);
  if (!raw) return raw.error();
  if (!haveRaw && typedCount(t) != n)
    return makeError(label + ": holds " + std::to_string(typedCount(t)) + " values, shape needs " + std::to_string(n));
  ir::Tensor out(type);
  if (haveRaw) decodeRaw(*raw, t.data_type(), out);
  else decodeFields(t, out);
  return out;
}

void ImportContext::setNode(const ::onnx::NodeProto* node, std::string irName, std::string scope) {
  m_node = node;
  m_irName = std::move(irName);
  m_scope = std::move(scope);
}

Error ImportContext::error(const std::string& what) const {
  // An unnamed node is called what the graph calls it ("Transpose_3"), never ''.
  std::string name = m_node && !m_node->name().empty() ? m_node->name() : m_irName;
  return makeError("node '" + name + "' (" + (m_node ? m_node->op_type() : "") + ", opset " + std::to_string(m_opset) +
                   "): " + what);
}

Status ImportContext::checkSize(const ir::TensorType& type, const std::string& what) const {
  if (auto st = ir::checkTensorBudget(what, type); !st) return error(st.error().message());
  return {};
}

int ImportContext::inputElemType(int i) const {
  if (i >= m_node->input_size() || m_node->input(i).empty()) return 0;
  auto it = m_elemTypes.find(m_node->input(i));
  return it == m_elemTypes.end() ? 0 : it->second;
}

ValueId ImportContext::input(int i) const {
  if (i >= m_node->input_size() || m_node->input(i).empty()) return ir::kNoValue;
  auto it = m_names.find(m_node->input(i));
  return it == m_names.end() ? ir::kNoValue : it->second;
}

Expected<ValueId> ImportContext::requireInput(int i) const {
  ValueId v = input(i);
  if (v == ir::kNoValue) return error("input " + std::to_string(i) + " is missing");
  return v;
}

const ListValue* ImportContext::list(int input) const {
  if (input >= m_node->input_size() || m_node->input(input).empty()) return nullptr;
  auto it = m_lists.find(m_node->input(input));
  return it == m_lists.end() ? nullptr : &it->second;
}

void ImportContext::setListOutput(int i, ListValue v) {
  if (outputWanted(i)) m_lists[m_node->output(i)] = std::move(v);
}

ValueId ImportContext::listToken(ListValue v) {
  m_tokens.push_back(std::move(v));
  return -1 - static_cast<ValueId>(m_tokens.size());
}

ValueId ImportContext::carriedInput(int i) {
  if (const ListValue* l = list(i)) return listToken(*l);
  return input(i);
}

void ImportContext::setOutput(int i, ValueId v) {
  if (!outputWanted(i)) return;
  if (isListToken(v))
    setListOutput(i, tokenList(v));
  else
    m_names[m_node->output(i)] = v;
}

const ir::Tensor* ImportContext::constData(ValueId v) const {
  if (v == ir::kNoValue || m_graph.value(v).kind != ir::ValueKind::Const) return nullptr;
  auto it = m_graph.initializers.find(v);
  return it == m_graph.initializers.end() ? nullptr : &it->second;
}

Expected<std::vector<int64_t>> ImportContext::constInts(ValueId v, const std::string& what) const {
  const ir::Tensor* t = constData(v);
  if (!t) return error(what + " must be a constant (computed shapes are not supported)");
  std::vector<int64_t> out;
  for (int64_t i = 0; i < t->numElements(); ++i) {
    switch (t->dtype()) {
      case DType::I64: out.push_back(t->data<int64_t>()[i]); break;
      case DType::I32: out.push_back(t->data<int32_t>()[i]); break;
      default: return error(what + " must be int64 or int32");
    }
  }
  return out;
}

Expected<std::vector<double>> ImportContext::constFloats(ValueId v, const std::string& what) const {
  const ir::Tensor* t = constData(v);
  if (!t) return error(what + " must be a constant");
  std::vector<double> out;
  for (int64_t i = 0; i < t->numElements(); ++i) {
    switch (t->dtype()) {
      case DType::F32: out.push_back(t->data<float>()[i]); break;
      case DType::I64: out.push_back(static_cast<double>(t->data<int64_t>()[i])); break;
      case DType::I32: out.push_back(t->data<int32_t>()[i]); break;
      case DType::Bool: out.push_back(t->data<bool>()[i]); break;
    }
  }
  return out;
}

Expected<int64_t> ImportContext::axis(int64_t a, int64_t rank) const {
  if (a < -rank || a >= std::max<int64_t>(rank, 1)) return error("axis " + std::to_string(a) + " out of range for rank " + std::to_string(rank));
  return a < 0 ? a + rank : a;
}

Expected<int64_t> ImportContext::dimAxis(int64_t a, int64_t rank) const {
  if (rank == 0) return error("axis " + std::to_string(a) + " of a scalar input");
  return axis(a, rank);
}

const ::onnx::AttributeProto* ImportContext::attr(const std::string& name) const {
  for (const auto& a : m_node->attribute())
    if (a.name() == name) return &a;
  return nullptr;
}
int64_t ImportContext::attrInt(const std::string& name, int64_t fallback) const {
  auto a = attr(name);
  return a ? a->i() : fallback;
}
double ImportContext::attrFloat(const std::string& name, double fallback) const {
  auto a = attr(name);
  return a ? a->f() : fallback;
}
std::vector<int64_t> ImportContext::attrInts(const std::string& name) const {
  auto a = attr(name);
  if (!a) return {};
  return {a->ints().begin(), a->ints().end()};
}
std::string ImportContext::attrString(const std::string& name, const std::string& fallback) const {
  auto a = attr(name);
  return a ? a->s() : fallback;
}

std::string ImportContext::uniqueValueName(const std::string& base) {
  std::string b = sanitizeName(base), name = b;
  for (int k = 1; m_valueNames.count(name) || m_graph.findValue(name) != ir::kNoValue; ++k) name = b + "." + std::to_string(k);
  m_valueNames.insert(name);
  return name;
}

std::string ImportContext::uniqueNodeName(const std::string& base) {
  std::string b = sanitizeName(base), name = b;
  for (int k = 1; m_nodeNames.count(name); ++k) name = b + "." + std::to_string(k);
  m_nodeNames.insert(name);
  return name;
}

ValueId ImportContext::constant(ir::Tensor data, const std::string& hint) {
  return m_graph.addConst(uniqueValueName(m_irName.empty() ? hint : m_irName + "." + hint), std::move(data));
}

// The node about to be emitted (named after the ONNX node) and its output types.
Expected<std::vector<ir::TensorType>> ImportContext::probe(ir::OpKind op, const std::vector<ValueId>& inputs,
                                                           const ir::Attributes& attrs, ir::Node& node) const {
  node.op = op;
  node.name = m_irName;
  node.inputs = inputs;
  node.attrs = attrs;
  auto types = ir::inferOutputTypes(m_graph, node);
  if (!types) return error(types.error().message());
  return types;
}

Expected<ValueId> ImportContext::emit(ir::OpKind op, std::vector<ValueId> inputs, ir::Attributes attrs) {
  ir::Node node;
  auto types = probe(op, inputs, attrs, node);
  if (!types) return types.error();
  if (types->size() != 1) return error("internal: op with several outputs");
  const ir::TensorType& t = types->front();
  DFC_TRY(checkSize(t, "output"));
  bool allConst = m_node && !inputs.empty() && t.numElements() <= kMaxFoldElements;
  for (ValueId v : inputs) allConst = allConst && constData(v);
  if (allConst) {  // fold now: shape arithmetic must be constant for the ops that consume it
    std::vector<const ir::Tensor*> ins;
    for (ValueId v : inputs) ins.push_back(constData(v));
    ir::Tensor out(t);
    ir::Tensor* outs[] = {&out};
    if (auto st = runtime::runKernel(node, ins, outs); !st) return error(st.error().message());
    return constant(std::move(out), std::string(ir::opName(op)));
  }
  // Empty constants may feed shape arithmetic (folded above); the runtime has no empty tensors.
  if (t.numElements() == 0) return error("produces an empty tensor " + t.toString() + " (not supported)");
  ValueId out = m_graph.addValue(uniqueValueName(m_irName + "." + std::string(ir::opName(op))), t,
                                 ir::ValueKind::Intermediate);
  m_graph.addNode(op, uniqueNodeName(m_irName.empty() ? std::string(ir::opName(op)) : m_irName), std::move(inputs),
                  {out}, std::move(attrs), m_scope);
  return out;
}

Expected<std::vector<ValueId>> ImportContext::emitMulti(ir::OpKind op, std::vector<ValueId> inputs,
                                                        ir::Attributes attrs) {
  ir::Node node;
  auto types = probe(op, inputs, attrs, node);
  if (!types) return types.error();
  std::vector<ValueId> outs;
  for (size_t i = 0; i < types->size(); ++i) {
    DFC_TRY(checkSize((*types)[i], "output"));
    const std::string base = m_irName + "." + std::string(ir::opName(op)) + (i ? "." + std::to_string(i) : "");
    outs.push_back(m_graph.addValue(uniqueValueName(base), (*types)[i], ir::ValueKind::Intermediate));
  }
  m_graph.addNode(op, uniqueNodeName(m_irName.empty() ? std::string(ir::opName(op)) : m_irName), std::move(inputs),
                  outs, std::move(attrs), m_scope);
  return outs;
}

Expected<ValueId> ImportContext::reshape(ValueId v, ir::Shape shape) {
  if (shape == this->shape(v)) return v;
  return emit(ir::OpKind::Reshape, {v}, {{"shape", shape}});
}

Expected<ValueId> ImportContext::binary(const std::string& fn, ValueId a, ValueId b) {
  return emit(ir::OpKind::Binary, {a, b}, {{"fn", fn}});
}

Expected<ValueId> ImportContext::unary(const std::string& fn, ValueId x, double alpha, double beta) {
  return emit(ir::OpKind::Unary, {x}, {{"fn", fn}, {"alpha", alpha}, {"beta", beta}});
}

Expected<ValueId> ImportContext::cast(ValueId v, DType to) {
  if (type(v).dtype == to) return v;
  return emit(ir::OpKind::Cast, {v}, {{"to", std::string(ir::dtypeName(to))}});
}

Expected<ValueId> ImportContext::transpose(ValueId v, std::vector<int64_t> perm) {
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == static_cast<int64_t>(i);
  if (identity) return v;
  return emit(ir::OpKind::Transpose, {v}, {{"perm", perm}});
}

Status needFloat(ImportContext& c, ir::ValueId x) {
  if (c.type(x).dtype != ir::DType::F32)
    return c.error("element type " + std::string(ir::dtypeName(c.type(x).dtype)) + " is not supported (float only)");
  return {};
}

}  // namespace dfc::onnx
