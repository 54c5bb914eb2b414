#include "driver/compile/ModelLoader.h"

#include <cmath>
#include <random>

#include "ir/DfirFile.h"
#include "onnx/InputShapes.h"
#include "onnx/OnnxImporter.h"

namespace dfc::driver {
namespace {

// A .dfir model: the first graph input is the image batch, the first output the logits.
// Params without data get PyTorch-style uniform(-1/sqrt(fan_in), +) weights from the seed.
Expected<frontend::Model> loadDfirModel(const std::string& path, uint64_t seed) {
  auto graph = ir::loadDfirFile(path);  // verified against its own lines before any pass
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

// What an ONNX model trains as, from its first input and output: token ids
// [B, T] scored [B, T, V] is a language model, an image scored per pixel
// [N, C, H, W] a segmentation model, scores [N, C] a classifier.
std::string onnxTask(const ir::TensorType& input, const ir::TensorType& logits) {
  const auto& in = input.shape;
  const auto& out = logits.shape;
  if (input.dtype == ir::DType::I64 && in.size() == 2 && out.size() == 3 && out[0] == in[0] && out[1] == in[1])
    return "language_model";
  if (input.dtype == ir::DType::F32 && in.size() == 4 && out.size() == 4 && out[0] == in[0] && out[2] == in[2] &&
      out[3] == in[3])
    return "segmentation";
  return "classification";
}

// An ONNX model: the first graph input is the batch, the first output the logits.
Expected<frontend::Model> loadOnnxModel(const std::string& path, const CompileOptions& o) {
  const bool inference = o.inference;
  onnx::ImportOptions io;
  io.batchSize = o.batchSize;
  auto shapes = onnx::parseInputShapes(o.inputShapes);
  if (!shapes) return shapes.error();
  io.inputShapes = std::move(*shapes);
  frontend::Model m;
  io.inputNames = &m.inputNames;
  io.outputNames = &m.outputNames;
  auto graph = onnx::importOnnxFile(path, io);
  if (!graph) return graph.error();
  m.graph = std::move(*graph);
  if (m.graph.inputs.empty()) return makeError(path + ": the model has no runtime input (the batch)");
  m.image = m.graph.inputs.front();
  m.logits = m.graph.outputs.front();
  const auto& logitsType = m.graph.value(m.logits).type;
  m.task = onnxTask(m.graph.value(m.image).type, logitsType);
  if (m.task == "language_model") m.numClasses = logitsType.shape[2];
  else if (m.task == "segmentation" || logitsType.rank() == 2) m.numClasses = logitsType.shape[1];
  else if (!inference)
    return makeError(path + ": output '" + m.graph.value(m.logits).name + "' must be logits [N, C], [B, T, V] over " +
                     "[B, T] token ids, or [N, C, H, W] over [N, c, H, W] images to train (or compile with --inference)");
  return m;
}

}  // namespace

Expected<frontend::Model> loadModel(const CompileOptions& o) {
  if (o.model.ends_with(".onnx")) return loadOnnxModel(o.model, o);
  if (o.model.ends_with(".dfir")) return loadDfirModel(o.model, o.seed);
  frontend::ZooOptions zoo;
  zoo.batchSize = o.batchSize;
  zoo.seed = o.seed;
  zoo.params = o.modelParams;
  zoo.kvCacheLen = o.decode ? o.kvCacheLen : 0;
  zoo.decodeTokens = o.decode ? o.decodeTokens : 1;
  return frontend::buildZooModel(o.model, zoo);
}

}  // namespace dfc::driver
