#include "frontend/ModelZoo.h"

#include <algorithm>
#include <functional>

#include "frontend/GraphBuilder.h"
#include "frontend/ModelZooInternal.h"

namespace dfc::frontend {
namespace {

using ir::ValueId;
constexpr int64_t kClasses = 10;
constexpr int64_t kImageSide = 28;

ValueId buildLogreg(GraphBuilder& b, ValueId image, int64_t batch) {
  auto s = b.scope("fc");
  return b.linear(b.reshape(image, {batch, kImageSide * kImageSide}), kImageSide * kImageSide, kClasses);
}

ValueId buildMlp(GraphBuilder& b, ValueId image, int64_t batch) {
  ValueId x = b.reshape(image, {batch, kImageSide * kImageSide});
  {
    auto s = b.scope("fc1");
    x = b.relu(b.linear(x, kImageSide * kImageSide, 256));
  }
  {
    auto s = b.scope("fc2");
    x = b.relu(b.linear(x, 256, 128));
  }
  auto s = b.scope("fc3");
  return b.linear(x, 128, kClasses);
}

// LeNet-5 as in the classic 28x28 variant: the first conv pads by 2 so the
// feature maps are 28 -> 14 -> 10 -> 5 and fc1 sees 16*5*5 = 400 features.
ValueId buildLenet(GraphBuilder& b, ValueId image, int64_t batch) {
  ValueId x = image;
  {
    auto s = b.scope("conv1");
    x = b.maxpool2d(b.relu(b.convLayer(x, 1, 6, 5, 1, 2)));
  }
  {
    auto s = b.scope("conv2");
    x = b.maxpool2d(b.relu(b.convLayer(x, 6, 16, 5)));
  }
  {
    auto s = b.scope("fc1");
    x = b.relu(b.linear(b.reshape(x, {batch, 400}), 400, 120));
  }
  {
    auto s = b.scope("fc2");
    x = b.relu(b.linear(x, 120, 84));
  }
  auto s = b.scope("fc3");
  return b.linear(x, 84, kClasses);
}

using BuildFn = std::function<ValueId(GraphBuilder&, ValueId, int64_t)>;

const std::vector<std::pair<std::string, BuildFn>>& mnistZoo() {
  static const std::vector<std::pair<std::string, BuildFn>> kZoo = {
      {"logreg", buildLogreg}, {"mlp", buildMlp}, {"lenet", buildLenet}};
  return kZoo;
}

using FamilyFn = Expected<Model> (*)(const std::string&, const ZooOptions&);

// Models built by their own family builder (they take hyperparameters).
const std::vector<std::pair<std::string, FamilyFn>>& families() {
  static const std::vector<std::pair<std::string, FamilyFn>> kFamilies = {
      {"gpt2", zoo::buildGpt2}, {"gpt2-mini", zoo::buildGpt2}, {"bert", zoo::buildBert}, {"resnet18", zoo::buildResnet18},
      {"llama", zoo::buildLlama}, {"llama-tiny", zoo::buildLlama}, {"bloom", zoo::buildBloom},
      {"bloom-tiny", zoo::buildBloom}, {"gpt-neox", zoo::buildNeox}, {"neox-tiny", zoo::buildNeox}};
  return kFamilies;
}

}  // namespace

namespace zoo {

Expected<std::map<std::string, int64_t>> resolveParams(const std::string& model, const ZooOptions& options,
                                                       std::map<std::string, int64_t> defaults) {
  for (const auto& [key, value] : options.params) {
    if (!defaults.count(key)) {
      std::string known;
      for (const auto& [k, v] : defaults) known += (known.empty() ? "" : ", ") + k;
      return makeError("model '" + model + "': unknown parameter '" + key + "'" +
                       (known.empty() ? std::string(" (it takes none)") : " (known: " + known + ")"));
    }
    // Bounded so that products of two sizes (batch x seq_len) stay far inside int64.
    if (value < 1 || value > kMaxZooParam)
      return makeError("model '" + model + "': parameter '" + key + "' must be 1.." + std::to_string(kMaxZooParam) +
                       ", got " + std::to_string(value));
    defaults[key] = value;
  }
  return defaults;
}

ir::ValueId op1(GraphBuilder& b, ir::OpKind kind, std::vector<ir::ValueId> in, ir::Attributes attrs) {
  auto outs = b.op(kind, std::move(in), std::move(attrs));
  return outs.empty() ? ir::kNoValue : outs.front();
}

ir::ValueId filledParam(GraphBuilder& b, const std::string& name, ir::Shape shape, float value) {
  ir::InitRecipe fill{ir::InitRecipe::Kind::Fill, value, 0};
  return b.param(name, ir::Tensor::deferred(ir::TensorType{ir::DType::F32, std::move(shape)}, fill));
}

}  // namespace zoo

std::vector<std::string> zooModelNames() {
  std::vector<std::string> names;
  for (const auto& [name, fn] : mnistZoo()) names.push_back(name);
  for (const auto& [name, fn] : families()) names.push_back(name);
  return names;
}

bool isZooDecoder(const std::string& name) {
  static const char* const kDecoders[] = {"gpt2",  "gpt2-mini",  "llama",    "llama-tiny",
                                          "bloom", "bloom-tiny", "gpt-neox", "neox-tiny"};
  return std::find(std::begin(kDecoders), std::end(kDecoders), name) != std::end(kDecoders);
}

Expected<Model> buildZooModel(const std::string& name, int64_t batchSize, uint64_t seed) {
  ZooOptions options;
  options.batchSize = batchSize;
  options.seed = seed;
  return buildZooModel(name, options);
}

Expected<Model> buildZooModel(const std::string& name, const ZooOptions& options) {
  const int64_t batchSize = options.batchSize;
  const BuildFn* build = nullptr;
  std::string known;
  for (const auto& [zooName, fn] : mnistZoo()) {
    if (zooName == name) build = &fn;
    known += (known.empty() ? "" : ", ") + zooName;
  }
  FamilyFn family = nullptr;
  for (const auto& [zooName, fn] : families()) {
    if (zooName == name) family = fn;
    known += ", " + zooName;
  }
  if (!build && !family) return makeError("unknown model '" + name + "'; the zoo has: " + known);
  if (batchSize < 1 || batchSize > zoo::kMaxZooParam)
    return makeError("model '" + name + "': batch size must be 1.." + std::to_string(zoo::kMaxZooParam) + ", got " +
                     std::to_string(batchSize));
  if (options.kvCacheLen < 0 || (options.kvCacheLen > 0 && !isZooDecoder(name)))
    return makeError("model '" + name + "': a decode step (KV cache length " + std::to_string(options.kvCacheLen) +
                     ") needs a decoder of the zoo");
  if (family) return family(name, options);
  auto params = zoo::resolveParams(name, options, {});
  if (!params) return params.error();

  Model model;
  model.graph.name = name;
  model.numClasses = kClasses;
  GraphBuilder b(model.graph, options.seed);
  model.image = b.input("image", ir::TensorType{ir::DType::F32, {batchSize, 1, kImageSide, kImageSide}});
  model.logits = (*build)(b, model.image, batchSize);
  if (!b.status()) return b.status().error().withContext("model '" + name + "'");
  model.graph.outputs = {model.logits};
  return model;
}

}  // namespace dfc::frontend
