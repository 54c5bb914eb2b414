#include "onnx/InputShapes.h"

#include <charconv>
#include <set>

namespace dfc::onnx {

namespace {

constexpr int64_t kMaxDim = int64_t{1} << 40;

using Symbols = std::map<std::string, std::pair<int64_t, std::string>>;  // symbol -> value, who bound it

bool isInitializer(const ::onnx::GraphProto& g, const std::string& name) {
  for (const auto& t : g.initializer())
    if (t.name() == name) return true;
  return false;
}

// The inputs a caller feeds (initializers aside), with a tensor shape.
std::vector<const ::onnx::ValueInfoProto*> fedInputs(const ::onnx::GraphProto& g) {
  std::vector<const ::onnx::ValueInfoProto*> out;
  for (const auto& in : g.input())
    if (!isInitializer(g, in.name()) && in.type().has_tensor_type() && in.type().tensor_type().has_shape())
      out.push_back(&in);
  return out;
}

std::string dimLabel(const ::onnx::TensorShapeProto_Dimension& d) {
  return d.has_dim_param() && !d.dim_param().empty() ? "'" + d.dim_param() + "'" : "?";
}

// The declared shape with each dimension written as the flag would take it ("N", "3", "?").
std::string declaredShape(const ::onnx::ValueInfoProto& in) {
  std::string out;
  for (const auto& d : in.type().tensor_type().shape().dim()) {
    if (!out.empty()) out += 'x';
    out += d.has_dim_value() ? std::to_string(d.dim_value()) : d.has_dim_param() && !d.dim_param().empty() ? d.dim_param() : "?";
  }
  return out;
}

// A given shape against the declared one: rank, static dimensions, symbols.
Status bindGiven(const ::onnx::ValueInfoProto& in, const ir::Shape& shape, Symbols& symbols, const std::string& label) {
  const auto& dims = in.type().tensor_type().shape().dim();
  const std::string who = "--input-shape " + in.name() + "=" + formatShape(shape);
  if (static_cast<int>(shape.size()) != dims.size())
    return makeError(label + ": " + who + " has rank " + std::to_string(shape.size()) + ", input '" + in.name() +
                     "' is declared " + declaredShape(in) + " (rank " + std::to_string(dims.size()) + ")");
  for (int i = 0; i < dims.size(); ++i) {
    const auto& d = dims[i];
    if (d.has_dim_value() && d.dim_value() != shape[static_cast<size_t>(i)])
      return makeError(label + ": " + who + " gives dimension " + std::to_string(i) + " as " +
                       std::to_string(shape[static_cast<size_t>(i)]) + ", the model fixes it at " +
                       std::to_string(d.dim_value()));
    if (!d.has_dim_param() || d.dim_param().empty()) continue;
    auto [it, added] = symbols.emplace(d.dim_param(), std::pair{shape[static_cast<size_t>(i)], who});
    if (!added && it->second.first != shape[static_cast<size_t>(i)])
      return makeError(label + ": dimension '" + d.dim_param() + "' is " + std::to_string(it->second.first) + " by " +
                       it->second.second + " and " + std::to_string(shape[static_cast<size_t>(i)]) + " by " + who);
  }
  return {};
}

// An input without a given shape: static dimensions, bound symbols, the batch size for a dynamic first dimension.
Expected<ir::Shape> bindImplied(const ::onnx::ValueInfoProto& in, int64_t batchSize, Symbols& symbols,
                                const std::string& label) {
  const auto& dims = in.type().tensor_type().shape().dim();
  ir::Shape shape;
  for (int i = 0; i < dims.size(); ++i) {
    const auto& d = dims[i];
    const bool named = d.has_dim_param() && !d.dim_param().empty();
    if (d.has_dim_value()) shape.push_back(d.dim_value());
    else if (auto s = named ? symbols.find(d.dim_param()) : symbols.end(); s != symbols.end()) shape.push_back(s->second.first);
    else if (i == 0) {
      shape.push_back(batchSize);
      if (named) symbols.emplace(d.dim_param(), std::pair{batchSize, std::string("-b/--batch-size")});
    } else {
      return makeError(label + ": input '" + in.name() + "' dimension " + std::to_string(i) + " (" + dimLabel(d) +
                       ") of " + declaredShape(in) + " is dynamic: bind it with --input-shape " + in.name() + "=" +
                       declaredShape(in) + ", every dimension a number");
    }
  }
  return shape;
}

}  // namespace

std::string formatShape(const ir::Shape& shape) {
  std::string out;
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? "x" : "") + std::to_string(shape[i]);
  return out;
}

Expected<std::pair<std::string, ir::Shape>> parseInputShape(const std::string& spec) {
  const auto eq = spec.find('=');
  const std::string bad = "--input-shape '" + spec + "': ";
  if (eq == std::string::npos || eq == 0) return makeError(bad + "expected NAME=DxDx... (e.g. images=1x3x640x640)");
  ir::Shape shape;
  std::string_view rest = std::string_view(spec).substr(eq + 1);
  while (!rest.empty()) {
    auto x = rest.find('x');
    std::string_view part = rest.substr(0, x);
    int64_t v = 0;
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (ec != std::errc() || end != part.data() + part.size() || v < 1 || v > kMaxDim)
      return makeError(bad + "dimension '" + std::string(part) + "' is not a whole number from 1 to 2^40");
    shape.push_back(v);
    if (x == std::string_view::npos) break;
    rest = rest.substr(x + 1);
    if (rest.empty()) return makeError(bad + "ends with 'x'");
  }
  return std::pair{spec.substr(0, eq), shape};
}

Expected<InputShapeMap> parseInputShapes(const std::vector<std::string>& specs) {
  InputShapeMap out;
  for (const auto& spec : specs) {
    auto parsed = parseInputShape(spec);
    if (!parsed) return parsed.error();
    if (!out.emplace(parsed->first, parsed->second).second)
      return makeError("--input-shape: input '" + parsed->first + "' is given twice");
  }
  return out;
}

Expected<InputShapeMap> bindInputShapes(const ::onnx::GraphProto& g, const InputShapeMap& given, int64_t batchSize,
                                        const std::string& label, bool strictNames) {
  const auto inputs = fedInputs(g);
  std::set<std::string> names;
  for (const auto* in : inputs) names.insert(in->name());
  for (const auto& [name, shape] : given) {
    if (names.count(name) || !strictNames) continue;
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    return makeError(label + ": --input-shape " + name + "=" + formatShape(shape) + ": the model has no input '" + name +
                     "' (inputs: " + list + ")");
  }
  Symbols symbols;
  InputShapeMap out;
  for (const auto* in : inputs)
    if (auto it = given.find(in->name()); it != given.end()) {
      DFC_TRY(bindGiven(*in, it->second, symbols, label));
      out[in->name()] = it->second;
    }
  for (const auto* in : inputs) {
    if (out.count(in->name())) continue;
    auto shape = bindImplied(*in, batchSize, symbols, label);
    if (!shape) return shape.error();
    out[in->name()] = std::move(*shape);
  }
  return out;
}

}  // namespace dfc::onnx
