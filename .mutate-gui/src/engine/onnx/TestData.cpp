#include "onnx/TestData.h"

#include <onnx/onnx-data_pb.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <set>

#include "onnx/ImportContext.h"
#include "support/SafePath.h"

namespace dfc::onnx {
namespace fs = std::filesystem;

namespace {

constexpr int kTensor = ::onnx::SequenceProto::TENSOR, kSequence = ::onnx::SequenceProto::SEQUENCE;
constexpr int kUndefined = ::onnx::SequenceProto::UNDEFINED;

// Sequences and optionals of tensors: what the importer keeps as lists (onnx/Sequences.h).
Expected<ValueForm> formOf(const ::onnx::ValueInfoProto& v, const std::string& what) {
  const ::onnx::TypeProto& t = v.type();
  if (t.has_tensor_type()) return ValueForm::Tensor;
  const bool optional = t.has_optional_type();
  const ::onnx::TypeProto& inner = optional ? t.optional_type().elem_type() : t;
  const ::onnx::TypeProto& elem = inner.has_sequence_type() ? inner.sequence_type().elem_type() : inner;
  if ((optional || t.has_sequence_type()) && elem.has_tensor_type())
    return optional ? ValueForm::Optional : ValueForm::Sequence;
  return makeError(what + " '" + v.name() + "' is " + describeValueType(t) +
                   ": only tensors and sequences or optionals of tensors are supported");
}

Expected<std::vector<ir::Tensor>> sequenceTensors(const ::onnx::SequenceProto& s, const std::string& baseDir,
                                                  const std::string& label) {
  if (s.sparse_tensor_values_size() || s.sequence_values_size() || s.map_values_size() || s.optional_values_size())
    return makeError(label + ": a sequence of other than tensors is not supported");
  if (s.elem_type() != kTensor && !(s.elem_type() == kUndefined && s.tensor_values_size() == 0))
    return makeError(label + ": sequence elem_type " + std::to_string(s.elem_type()) + " is not TENSOR");
  std::vector<ir::Tensor> out;
  for (const auto& t : s.tensor_values()) {
    auto tensor = tensorFromProto(t, baseDir);
    if (!tensor) return tensor.error().withContext(label + ": element " + std::to_string(out.size()));
    out.push_back(std::move(*tensor));
  }
  return out;
}

Expected<TestValue> parseOptional(const std::string& bytes, const std::string& baseDir, const std::string& label) {
  ::onnx::OptionalProto o;
  if (!o.ParseFromString(bytes)) return makeError(label + ": not a serialized onnx.OptionalProto");
  TestValue v{o.name(), true, {}};
  if (o.has_sparse_tensor_value() || o.has_map_value() || o.has_optional_value())
    return makeError(label + ": an optional of other than a tensor or a sequence is not supported");
  if (o.has_tensor_value() && o.has_sequence_value()) return makeError(label + ": the optional holds two values");
  if (o.has_tensor_value()) {
    if (o.elem_type() != kTensor) return makeError(label + ": elem_type does not say TENSOR for its tensor");
    auto t = tensorFromProto(o.tensor_value(), baseDir);
    if (!t) return t.error().withContext(label);
    v.items.push_back(std::move(*t));
  } else if (o.has_sequence_value()) {
    if (o.elem_type() != kSequence) return makeError(label + ": elem_type does not say SEQUENCE for its sequence");
    DFC_TRY_ASSIGN(items, sequenceTensors(o.sequence_value(), baseDir, label));
    v.items = std::move(items);
  } else
    v.present = false;
  return v;
}

Expected<TestValue> parseIn(const std::string& bytes, ValueForm form, const std::string& label,
                            const std::string& baseDir, bool bfloat16) {
  if (form == ValueForm::Optional) return parseOptional(bytes, baseDir, label);
  if (form == ValueForm::Sequence) {
    ::onnx::SequenceProto s;
    if (!s.ParseFromString(bytes)) return makeError(label + ": not a serialized onnx.SequenceProto");
    DFC_TRY_ASSIGN(items, sequenceTensors(s, baseDir, label));
    return TestValue{s.name(), true, std::move(items)};
  }
  ::onnx::TensorProto t;
  if (!t.ParseFromString(bytes)) return makeError(label + ": not a serialized onnx.TensorProto");
  if (bfloat16 && t.data_type() == ::onnx::TensorProto::UINT16)
    t.set_data_type(::onnx::TensorProto::BFLOAT16);  // the same 16 bits per element
  auto tensor = tensorFromProto(t, baseDir);
  if (!tensor) return tensor.error().withContext(label);
  TestValue v{t.name(), true, {}};
  v.items.push_back(std::move(*tensor));
  return v;
}

bool isBfloat16(const ::onnx::ValueInfoProto& v) {
  return v.type().has_tensor_type() && v.type().tensor_type().elem_type() == ::onnx::TensorProto::BFLOAT16;
}

}  // namespace

Expected<Boundary> readBoundary(const std::string& modelPath) {
  auto bytes = support::readRegularFile(modelPath);
  if (!bytes) return bytes.error();
  ::onnx::ModelProto model;
  if (!model.ParseFromString(*bytes)) return makeError(modelPath + ": not a valid ONNX model (protobuf parse failed)");
  std::set<std::string> initializers;
  for (const auto& t : model.graph().initializer()) initializers.insert(t.name());
  Boundary b;
  for (const auto& v : model.graph().input()) {
    if (initializers.count(v.name())) continue;
    DFC_TRY_ASSIGN(form, formOf(v, modelPath + ": input"));
    b.inputs.push_back({v.name(), form, isBfloat16(v)});
  }
  for (const auto& v : model.graph().output()) {
    DFC_TRY_ASSIGN(form, formOf(v, modelPath + ": output"));
    b.outputs.push_back({v.name(), form, isBfloat16(v)});
  }
  return b;
}

Expected<TestValue> parseTestValue(const std::string& bytes, ValueForm form, const std::string& label,
                                   const std::string& baseDir, bool bfloat16) {
  return parseIn(bytes, form, label, baseDir, bfloat16);
}

Expected<TestValue> readTestValueFile(const std::string& path, ValueForm form, bool bfloat16) {
  auto bytes = support::readRegularFile(path);
  if (!bytes) return bytes.error();
  const std::string base = fs::path(path).parent_path().string();
  return parseIn(*bytes, form, path, base.empty() ? "." : base, bfloat16);
}

}  // namespace dfc::onnx
