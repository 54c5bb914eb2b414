#include "driver/ModelLoader.h"

#include <cmath>
#include <random>

#include "ir/Parser.h"
#include "onnx/OnnxImporter.h"
#include "support/FileUtil.h"

namespace dfc::driver {
namespace {

// A .dfir model: the first graph input is the image batch, the first output the logits.
// Params without data get PyTorch-style uniform(-1/sqrt(fan_in), +) weights from the seed.
Expected<frontend::Model> loadDfirModel(const std::string& path, uint64_t seed) {
  auto text = support::readFile(path);
  if (!text) return text.error();
  auto graph = ir::parseGraph(*text, path);
  if (!graph) return graph.error();
  frontend::Model m;
  m.graph = std::move(*graph);
  if (m.graph.inputs.empty() || m.graph.outputs.empty())
    return makeError(path + ": a model needs an input (the batch) and an output (the logits)");
  m.image = m.graph.inputs.front();
  m.logits = m.graph.outputs.front();
  const auto& logitsType = m.graph.value(m.logits).type;
  if (logitsType.rank() != 2) return makeError(path + ": output '" + m.graph.value(m.logits).name + "' must be logits [N, C]");
  m.numClasses = logitsType.shape[1];
  std::mt19937_64 rng(seed);
  for (ir::ValueId p : m.graph.params()) {
    if (m.graph.initializers.count(p)) continue;
    const ir::TensorType& type = m.graph.value(p).type;
    if (type.dtype != ir::DType::F32) return makeError(path + ": param '" + m.graph.value(p).name + "' is not f32 and has no data");
    int64_t fanIn = type.rank() > 1 ? type.numElements() / type.shape[0] : type.numElements();
    double bound = 1.0 / std::sqrt(static_cast<double>(std::max<int64_t>(fanIn, 1)));
    m.graph.initializers[p] = ir::Tensor::deferred(type, {ir::InitRecipe::Kind::Uniform, bound, rng() >> 1});
  }
  return m;
}

// An ONNX model: the first graph input is the batch, the first output the logits.
Expected<frontend::Model> loadOnnxModel(const std::string& path, int64_t batchSize, bool inference) {
  onnx::ImportOptions io;
  io.batchSize = batchSize;
  auto graph = onnx::importOnnxFile(path, io);
  if (!graph) return graph.error();
  frontend::Model m;
  m.graph = std::move(*graph);
  if (m.graph.inputs.empty()) return makeError(path + ": the model has no runtime input (the batch)");
  m.image = m.graph.inputs.front();
  m.logits = m.graph.outputs.front();
  const auto& logitsType = m.graph.value(m.logits).type;
  if (logitsType.rank() == 2) m.numClasses = logitsType.shape[1];
  else if (!inference)
    return makeError(path + ": output '" + m.graph.value(m.logits).name + "' must be logits [N, C] to train (or compile with --inference)");
  return m;
}

}  // namespace

Expected<frontend::Model> loadModel(const CompileOptions& o) {
  if (o.model.ends_with(".onnx")) return loadOnnxModel(o.model, o.batchSize, o.inference);
  if (o.model.ends_with(".dfir")) return loadDfirModel(o.model, o.seed);
  frontend::ZooOptions zoo;
  zoo.batchSize = o.batchSize;
  zoo.seed = o.seed;
  zoo.params = o.modelParams;
  return frontend::buildZooModel(o.model, zoo);
}

}  // namespace dfc::driver
