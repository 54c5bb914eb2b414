#include "onnx/OlderOpsets.h"

#include <onnx/defs/schema.h>

#include <limits>

namespace dfc::onnx {

namespace {

constexpr int kImplementedOpset = 11;

const ::onnx::AttributeProto* findAttr(const ::onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

// Removes attribute `name` from n, returning a copy (empty name when absent).
::onnx::AttributeProto takeAttr(::onnx::NodeProto& n, const std::string& name) {
  ::onnx::AttributeProto out;
  auto* attrs = n.mutable_attribute();
  for (int i = 0; i < attrs->size(); ++i)
    if (attrs->Get(i).name() == name) {
      out = attrs->Get(i);
      attrs->DeleteSubrange(i, 1);
      break;
    }
  return out;
}

void setInput(::onnx::NodeProto& n, int index, const std::string& name) {
  while (n.input_size() <= index) n.add_input("");
  n.set_input(index, name);
}

ir::Tensor intsTensor(const ::onnx::AttributeProto& a) {
  ir::Tensor t(ir::TensorType{ir::DType::I64, {a.ints_size()}});
  for (int i = 0; i < a.ints_size(); ++i) t.data<int64_t>()[i] = a.ints(i);
  return t;
}

// An attribute that became an input: ints -> int64 [n], a float -> f32 scalar.
void attrToInput(::onnx::NodeProto& n, const std::string& attr, int index, const ConstMaker& make) {
  ::onnx::AttributeProto a = takeAttr(n, attr);
  if (a.name().empty()) return;
  if (a.type() == ::onnx::AttributeProto::INTS) setInput(n, index, make(intsTensor(a), attr));
  else if (a.type() == ::onnx::AttributeProto::FLOAT) setInput(n, index, make(ir::Tensor::scalarF32(a.f()), attr));
}

void upgradeClip6(::onnx::NodeProto& n, const ConstMaker& make) {
  attrToInput(n, "min", 1, make);
  attrToInput(n, "max", 2, make);
}

void upgradePad2(::onnx::NodeProto& n, const ConstMaker& make) {
  attrToInput(n, "pads", 1, make);
  attrToInput(n, "value", 2, make);
}

void upgradeSlice1(::onnx::NodeProto& n, const ConstMaker& make) {
  attrToInput(n, "starts", 1, make);
  attrToInput(n, "ends", 2, make);
  attrToInput(n, "axes", 3, make);
}

void upgradeResize10(::onnx::NodeProto& n, const ConstMaker&) { rewriteAsResize11(n); }

std::string batchNorm7Differs(const ::onnx::NodeProto& n) {
  const auto* spatial = findAttr(n, "spatial");
  if (spatial && spatial->i() == 0) return "spatial=0 (statistics per activation) was dropped in version 9";
  return {};
}

std::string dropout7Differs(const ::onnx::NodeProto& n) {
  if (n.output_size() > 1 && !n.output(1).empty()) return "its mask output has the input's type, bool from version 10";
  return {};
}

std::string convTranspose1Differs(const ::onnx::NodeProto& n) {
  const auto* pad = findAttr(n, "auto_pad");
  if (pad && pad->s().rfind("SAME", 0) == 0)
    return "auto_pad " + pad->s() + " splits the padding as version 11 defines only from version 11";
  return {};
}

constexpr const char* kTypes = "later versions add element types";
constexpr const char* kNegativeAxis = "version 11 allows negative axes (counted from the end)";

}  // namespace

// Resize-10 and Upsample (X, scales): asymmetric coordinates, nearest rounding down.
void rewriteAsResize11(::onnx::NodeProto& n) {
  const std::string scales = n.input_size() > 1 ? n.input(1) : "";
  n.set_op_type("Resize");
  setInput(n, 1, "");
  setInput(n, 2, scales);
  for (const auto& [name, value] :
       {std::pair{"coordinate_transformation_mode", "asymmetric"}, {"nearest_mode", "floor"}}) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::STRING);
    a->set_s(value);
  }
}

const std::vector<OlderOpVersion>& olderOpVersions() {
  static const std::vector<OlderOpVersion> table = {
      {"ArgMax", 1, kNegativeAxis, nullptr, nullptr},
      {"ArgMin", 1, kNegativeAxis, nullptr, nullptr},
      {"AveragePool", 7, "10 adds ceil_mode (default floor, version 7's rounding), 11 documents auto_pad", nullptr,
       nullptr},
      {"AveragePool", 10, "11 documents how auto_pad SAME pads", nullptr, nullptr},
      {"BatchNormalization", 7, "9 drops spatial, keeping spatial=1", batchNorm7Differs, nullptr},
      {"Cast", 6, "9 adds string casts", nullptr, nullptr},
      {"Clip", 6, "11 takes min and max as inputs instead of attributes", nullptr, upgradeClip6},
      {"Concat", 4, kNegativeAxis, nullptr, nullptr},
      {"Constant", 1, "9 adds element types, 11 sparse values", nullptr, nullptr},
      {"Constant", 9, "11 adds sparse values", nullptr, nullptr},
      {"Conv", 1, "11 documents auto_pad and kernel_shape inferred from the weight", nullptr, nullptr},
      {"ConvTranspose", 1, "11 defines auto_pad SAME's split of the padding", convTranspose1Differs, nullptr},
      {"DepthToSpace", 1, "11 adds mode (default DCR, version 1's order)", nullptr, nullptr},
      {"Dropout", 7, "10 makes the mask output bool", dropout7Differs, nullptr},
      {"Equal", 7, kTypes, nullptr, nullptr},
      {"Flatten", 1, "9 adds element types; 11 allows a negative axis", nullptr, nullptr},
      {"Flatten", 9, kNegativeAxis, nullptr, nullptr},
      {"Gather", 1, "11 allows negative indices and axis", nullptr, nullptr},
      {"Gemm", 7, "9 adds element types, 11 makes C optional", nullptr, nullptr},
      {"Gemm", 9, "11 makes C optional", nullptr, nullptr},
      {"Greater", 7, kTypes, nullptr, nullptr},
      {"Hardmax", 1, kNegativeAxis, nullptr, nullptr},
      {"Less", 7, kTypes, nullptr, nullptr},
      {"LogSoftmax", 1, kNegativeAxis, nullptr, nullptr},
      {"MatMul", 1, kTypes, nullptr, nullptr},
      {"Max", 6, "8 broadcasts its inputs; version 6 takes inputs of one shape", nullptr, nullptr},
      {"MaxPool", 1, "8 adds storage_order and Indices, 10 ceil_mode and dilations (defaults: version 1's)", nullptr,
       nullptr},
      {"MaxPool", 8, "10 adds ceil_mode and dilations (defaults: version 8's)", nullptr, nullptr},
      {"MaxPool", 10, "11 documents how auto_pad SAME pads", nullptr, nullptr},
      {"Mean", 6, "8 broadcasts its inputs; version 6 takes inputs of one shape", nullptr, nullptr},
      {"Min", 6, "8 broadcasts its inputs; version 6 takes inputs of one shape", nullptr, nullptr},
      {"OneHot", 9, "11 allows a negative axis and negative indices", nullptr, nullptr},
      {"PRelu", 7, kTypes, nullptr, nullptr},
      {"Pad", 2, "11 takes pads and the constant value as inputs instead of attributes", nullptr, upgradePad2},
      {"ReduceL1", 1, kNegativeAxis, nullptr, nullptr},
      {"ReduceL2", 1, kNegativeAxis, nullptr, nullptr},
      {"ReduceLogSum", 1, kNegativeAxis, nullptr, nullptr},
      {"ReduceLogSumExp", 1, kNegativeAxis, nullptr, nullptr},
      {"ReduceMax", 1, kNegativeAxis, nullptr, nullptr},
      {"ReduceMean", 1, kNegativeAxis, nullptr, nullptr},
      {"ReduceMin", 1, kNegativeAxis, nullptr, nullptr},
      {"ReduceProd", 1, kNegativeAxis, nullptr, nullptr},
      {"ReduceSum", 1, kNegativeAxis, nullptr, nullptr},
      {"ReduceSumSquare", 1, kNegativeAxis, nullptr, nullptr},
      {"Resize", 10,
       "11 adds roi and sizes inputs and coordinate modes; version 10 is asymmetric, nearest rounding down", nullptr,
       upgradeResize10},
      {"Scatter", 9, "11 allows negative indices and axis, and deprecates it for ScatterElements (the same op)",
       nullptr, nullptr},
      {"Slice", 1, "10 takes starts, ends and axes as inputs instead of attributes, adds steps", nullptr,
       upgradeSlice1},
      {"Slice", 10, kNegativeAxis, nullptr, nullptr},
      {"Softmax", 1, kNegativeAxis, nullptr, nullptr},
      {"Split", 2, kNegativeAxis, nullptr, nullptr},
      {"Squeeze", 1, kNegativeAxis, nullptr, nullptr},
      {"Sum", 6, "8 broadcasts its inputs; version 6 takes inputs of one shape", nullptr, nullptr},
      {"TopK", 1, "10 takes k as an input (dfc reads either), 11 adds largest and sorted (defaults: version 1's)",
       nullptr, nullptr},
      {"TopK", 10, "11 adds largest and sorted (defaults: version 10's) and negative axes", nullptr, nullptr},
      {"Unsqueeze", 1, kNegativeAxis, nullptr, nullptr},
      {"Upsample", 9, "10 deprecates it for Resize, which reads it as Resize-10 (dfc does so at every opset)", nullptr,
       nullptr},
  };
  return table;
}

OlderNode checkOlderNode(const ::onnx::NodeProto& n, int64_t opset, const ConstMaker& make) {
  OlderNode out;
  const auto* old = ::onnx::OpSchemaRegistry::Schema(n.op_type(), static_cast<int>(opset));
  const auto* native = ::onnx::OpSchemaRegistry::Schema(n.op_type(), kImplementedOpset);
  if (old == nullptr) {
    out.problem = "is not defined at opset " + std::to_string(opset);
    return out;
  }
  if (native != nullptr && native->since_version() == old->since_version()) return out;
  const std::string version = "is version " + std::to_string(old->since_version()) + " at opset " + std::to_string(opset);
  for (const auto& row : olderOpVersions()) {
    if (n.op_type() != row.op || old->since_version() != row.version) continue;
    if (row.differs)
      if (std::string why = row.differs(n); !why.empty()) {
        out.problem = version + ", where " + why + ": dfc implements version " +
                      std::to_string(native ? native->since_version() : kImplementedOpset) + " (re-export with opset 11 or newer)";
        return out;
      }
    if (row.upgrade) {
      out.node = n;
      row.upgrade(out.node, make);
      out.rewritten = true;
    }
    return out;
  }
  out.problem = version + ", whose semantics dfc does not implement (opsets 11-17; re-export with a newer opset)";
  return out;
}

}  // namespace dfc::onnx
