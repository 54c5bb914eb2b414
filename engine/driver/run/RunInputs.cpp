#include "driver/run/RunInputs.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>

#include "ir/NpyFile.h"
#include "onnx/OnnxImporter.h"
#include "support/FileUtil.h"
#include "support/SafePath.h"

namespace dfc::driver {
namespace fs = std::filesystem;

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// Recorded names when there is one per value, else the values' own.
std::vector<std::string> namesOf(const ir::Graph& g, const std::vector<ir::ValueId>& values,
                                 const std::vector<std::string>& recorded) {
  if (recorded.size() == values.size()) return recorded;
  std::vector<std::string> out;
  for (ir::ValueId v : values) out.push_back(g.value(v).name);
  return out;
}

ir::Tensor randomTensor(const ir::TensorType& type, std::mt19937_64& rng) {
  ir::Tensor t(type);
  for (int64_t i = 0; i < t.numElements(); ++i) {
    const uint64_t bits = rng();
    switch (type.dtype) {
      case ir::DType::F32:
        t.data<float>()[i] = static_cast<float>(bits >> 40) * 0x1p-24f;
        break;  // exact, portable
      case ir::DType::I64:
        t.data<int64_t>()[i] = static_cast<int64_t>(bits >> 62);
        break;
      case ir::DType::I32:
        t.data<int32_t>()[i] = static_cast<int32_t>(bits >> 62);
        break;
      case ir::DType::Bool:
        t.data<bool>()[i] = (bits >> 63) != 0;
        break;
    }
  }
  return t;
}

// A file's tensor, checked against the input's type: the error names both.
Expected<ir::Tensor> readInputFile(const std::string& name, const ir::Value& input, const std::string& path) {
  const std::string who = "--input " + name + "=" + path;
  auto mismatch = [&](const std::string& given) {
    return makeError(who + ": input '" + name + "' needs " + input.type.toString() + ", given " + given);
  };
  if (path.ends_with(".pb")) {
    auto t = onnx::readTensorProtoFile(path);
    if (!t) return t.error();
    if (t->type() != input.type) return mismatch(t->type().toString());
    return std::move(*t);
  }
  if (!path.ends_with(".npy")) return makeError(who + ": expected a .npy or .pb file, or 'random'");
  auto array = ir::readNpyFile(path);
  if (!array) return array.error();
  if (array->element != ir::npyElementOf(input.type.dtype) || array->shape != input.type.shape)
    return mismatch(array->typeText());
  return ir::npyToTensor(*array, input.type.dtype, path);
}

}  // namespace

Expected<InputBinding> parseInputBinding(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    return makeError("--input '" + text + "': expected NAME=FILE (.npy or .pb) or NAME=random");
  return InputBinding{text.substr(0, eq), text.substr(eq + 1)};
}

std::vector<std::string> inputNamesOf(const pef::Pef& pef) {
  return namesOf(pef.graph, pef.graph.inputs, pef.meta.inputNames);
}

std::vector<std::string> outputNamesOf(const pef::Pef& pef) {
  return namesOf(pef.graph, pef.graph.outputs, pef.meta.outputNames);
}

Expected<std::vector<BoundInput>> bindInputs(const ir::Graph& graph, const std::vector<InputBinding>& bindings,
                                             uint64_t seed, std::vector<std::string> names) {
  names = namesOf(graph, graph.inputs, names);
  std::map<std::string, std::string> byName;
  for (const auto& b : bindings) {
    if (std::find(names.begin(), names.end(), b.name) == names.end())
      return makeError("--input " + b.name + ": the PEF has no input '" + b.name + "' (its inputs: " + joined(names) +
                       ")");
    if (!byName.emplace(b.name, b.source).second) return makeError("--input " + b.name + " is given twice");
  }
  std::mt19937_64 rng(seed);
  std::vector<BoundInput> bound;
  for (size_t k = 0; k < graph.inputs.size(); ++k) {
    const ir::Value& v = graph.value(graph.inputs[k]);
    const std::string& name = names[k];
    auto it = byName.find(name);
    if (it == byName.end())
      return makeError("input '" + name + "' (" + v.type.toString() + ") is not bound: give --input " + name +
                       "=FILE or --input " + name + "=random (the PEF's inputs: " + joined(names) + ")");
    if (it->second == kRandomInput) {
      bound.push_back({v.id, randomTensor(v.type, rng), "random (seed " + std::to_string(seed) + ")"});
      continue;
    }
    auto t = readInputFile(name, v, it->second);
    if (!t) return t.error();
    bound.push_back({v.id, std::move(*t), it->second});
  }
  return bound;
}

std::string summarizeTensor(const ir::Tensor& t) {
  const int64_t n = t.numElements();
  if (n == 0) return "no elements";
  auto at = [&](int64_t i) -> double {
    switch (t.dtype()) {
      case ir::DType::F32:
        return t.data<float>()[i];
      case ir::DType::I64:
        return static_cast<double>(t.data<int64_t>()[i]);
      case ir::DType::I32:
        return t.data<int32_t>()[i];
      case ir::DType::Bool:
        return t.data<bool>()[i] ? 1 : 0;
    }
    return 0;
  };
  double lo = at(0), hi = at(0), sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    lo = std::min(lo, at(i));
    hi = std::max(hi, at(i));
    sum += at(i);
  }
  auto num = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return std::string(buf);
  };
  std::string first;
  for (int64_t i = 0; i < std::min<int64_t>(n, 6); ++i) first += (i ? ", " : "") + num(at(i));
  return "min " + num(lo) + ", max " + num(hi) + ", mean " + num(sum / static_cast<double>(n)) + ", first [" + first +
         (n > 6 ? ", ...]" : "]");
}

std::string safeFileName(const std::string& name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                      c == '-' || (c == '.' && i > 0);
    char buf[4];
    std::snprintf(buf, sizeof buf, "%%%02X", c);
    out += keep ? std::string(1, static_cast<char>(c)) : std::string(buf);
  }
  return out.empty() ? "%00" : out;  // "" is no file name
}

Status checkOutputTargets(const std::string& dir, const std::vector<std::string>& names) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    return makeError("--output-dir " + dir + ": is not a directory");
  for (const auto& name : names) {
    const std::string path = (fs::path(dir) / (safeFileName(name) + ".npy")).string();
    if (auto target = support::checkOutputFile(path, "--output-dir"); !target) return target.error();
  }
  return {};
}

Expected<std::vector<std::string>> writeOutputs(const std::string& dir, const std::vector<NamedTensor>& outputs) {
  std::vector<std::string> names;
  for (const auto& [name, tensor] : outputs) names.push_back(name);
  DFC_TRY(checkOutputTargets(dir, names));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return makeError("--output-dir " + dir + ": " + ec.message());
  std::vector<std::string> written;
  for (const auto& [name, tensor] : outputs) {
    const std::string path = (fs::path(dir) / (safeFileName(name) + ".npy")).string();
    auto target = support::checkOutputFile(path, "--output-dir");  // again: the folder may have changed
    if (!target) return target.error();
    DFC_TRY(support::writeFileAtomic(*target, ir::encodeNpy(tensor)));
    written.push_back(path);
  }
  return written;
}

}  // namespace dfc::driver
