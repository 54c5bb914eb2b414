// Vision models of the zoo: resnet18 (BasicBlocks, batch_norm with running
// statistics as PyTorch's BatchNorm2d, global average pooling).
#include <cmath>

#include "frontend/ModelZooInternal.h"

namespace dfc::frontend::zoo {
namespace {

using ir::OpKind;
using ir::ValueId;

// conv (no bias: batch_norm follows) + batch_norm; Kaiming-uniform weights for ReLU.
ValueId convBn(GraphBuilder& b, ValueId x, int64_t in, int64_t out, int64_t k, int64_t stride, int64_t pad,
               const std::string& name, const std::string& bnName) {
  ValueId w = b.paramUniform(name + ".weight", {out, in, k, k}, std::sqrt(6.0 / static_cast<double>(in * k * k)));
  ValueId y = b.conv2d(x, w, {stride, stride}, {pad, pad});
  ValueId gamma = filledParam(b, bnName + ".weight", {out}, 1.0f);
  ValueId beta = filledParam(b, bnName + ".bias", {out}, 0.0f);
  // Running statistics are state, not weights: constants the training step writes back.
  auto filled = [&](const char* suffix, float value) {
    ir::InitRecipe fill{ir::InitRecipe::Kind::Fill, value, 0};
    return b.constant(bnName + suffix, ir::Tensor::deferred(ir::TensorType{ir::DType::F32, {out}}, fill));
  };
  ValueId mean = filled(".running_mean", 0.0f), var = filled(".running_var", 1.0f);
  return op1(b, OpKind::BatchNorm, {y, gamma, beta, mean, var}, {{"epsilon", 1e-5}, {"momentum", 0.1}});
}

ValueId basicBlock(GraphBuilder& b, ValueId x, int64_t in, int64_t out, int64_t stride) {
  ValueId y = b.relu(convBn(b, x, in, out, 3, stride, 1, "conv1", "bn1"));
  y = convBn(b, y, out, out, 3, 1, 1, "conv2", "bn2");
  ValueId shortcut = x;
  if (stride != 1 || in != out) shortcut = convBn(b, x, in, out, 1, stride, 0, "downsample.0", "downsample.1");
  return b.relu(b.add(y, shortcut));
}

}  // namespace

Expected<Model> buildResnet18(const std::string& name, const ZooOptions& options) {
  auto p = resolveParams(name, options, {{"image_size", 224}, {"in_channels", 3}, {"num_classes", 1000}});
  if (!p) return p.error();
  const int64_t side = p->at("image_size"), inChannels = p->at("in_channels"), classes = p->at("num_classes");
  if (side < 32) return makeError("model '" + name + "': image_size must be >= 32, got " + std::to_string(side));

  Model model;
  model.graph.name = name;
  model.numClasses = classes;
  GraphBuilder b(model.graph, options.seed);
  model.image = b.input("image", ir::TensorType{ir::DType::F32, {options.batchSize, inChannels, side, side}});
  ValueId x = ir::kNoValue;
  {
    auto s = b.scope("stem");
    x = b.relu(convBn(b, model.image, inChannels, 64, 7, 2, 3, "conv1", "bn1"));
    x = op1(b, OpKind::MaxPool2d, {x},
            {{"kernel", std::vector<int64_t>{3, 3}}, {"stride", std::vector<int64_t>{2, 2}},
             {"pad", std::vector<int64_t>{1, 1}}});
  }
  const int64_t widths[4] = {64, 128, 256, 512};
  int64_t in = 64;
  for (int stage = 0; stage < 4; ++stage)
    for (int block = 0; block < 2; ++block) {
      auto s = b.scope("layer" + std::to_string(stage + 1) + "." + std::to_string(block));
      const int64_t stride = stage > 0 && block == 0 ? 2 : 1;
      x = basicBlock(b, x, in, widths[stage], stride);
      in = widths[stage];
    }
  {
    auto s = b.scope("avgpool");
    x = op1(b, OpKind::GlobalAvgPool, {x});
  }
  {
    auto s = b.scope("fc");
    model.logits = b.linear(x, 512, classes);
  }
  if (!b.status()) return b.status().error().withContext("model '" + name + "'");
  model.graph.outputs = {model.logits};
  return model;
}

}  // namespace dfc::frontend::zoo
