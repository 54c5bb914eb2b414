// --num-spatial-batches: the tiled graph computes what the untiled one does
// (ResNet-18 inference at 224x224 in 2 and 4 bands; a LeNet training step's
// loss and updated weights), and what cannot be tiled is refused by name.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "autograd/Autograd.h"
#include "driver/compile/Inference.h"
#include "frontend/GraphBuilder.h"
#include "frontend/ModelZoo.h"
#include "onnx/OnnxImporter.h"
#include "passes/SpatialTiling.h"
#include "runtime/Reference.h"

using namespace dfc;

namespace {

ir::Tensor randomImage(const ir::TensorType& type, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  ir::Tensor t(type);
  for (float& x : t.span<float>()) x = u(rng);
  return t;
}

double maxAbsDiff(const ir::Tensor& a, const ir::Tensor& b) {
  REQUIRE(a.type() == b.type());
  double worst = 0;
  auto x = a.span<float>(), y = b.span<float>();
  for (size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::fabs(double(x[i]) - double(y[i])));
  return worst;
}

double maxAbs(const ir::Tensor& a) {
  double m = 0;
  for (float x : a.span<float>()) m = std::max(m, std::fabs(double(x)));
  return m;
}

ir::Tensor logitsOf(ir::Graph graph, const ir::Tensor& image) {
  driver::InferenceCompileOptions options;
  options.level = partition::OptLevel::O3;
  auto pef = driver::compileGraphForInference(std::move(graph), options);
  REQUIRE(pef.ok());
  auto out = driver::runInference(*pef, {image});
  if (!out) FAIL(out.error().message());
  REQUIRE(out->size() == 1);
  return out->front();
}

int countOps(const ir::Graph& g, ir::OpKind op) {
  int n = 0;
  for (const auto& node : g.nodes) n += node.op == op;
  return n;
}

}  // namespace

TEST_CASE("ResNet-18 at 224x224 in 2 and 4 row bands gives the untiled logits") {
  frontend::ZooOptions zoo;
  zoo.batchSize = 1;
  zoo.params = {{"num_classes", 10}};
  auto model = frontend::buildZooModel("resnet18", zoo);
  REQUIRE(model.ok());
  const ir::Tensor image = randomImage(model->graph.value(model->image).type, 3);
  const ir::Tensor want = logitsOf(model->graph, image);
  for (int tiles : {2, 4}) {
    INFO("tiles " << tiles);
    ir::Graph tiled = model->graph;
    auto plan = passes::tileSpatialPrefix(tiled, model->image, tiles, false);
    if (!plan) FAIL(plan.error().message());
    CHECK(plan->tiles == tiles);
    CHECK(plan->boundaryRows.size() == size_t(tiles));
    int64_t rows = 0;
    for (int64_t r : plan->boundaryRows) rows += r;
    CHECK(rows == 7);  // 224 / 32: where the last basic block ends, before global pooling
    CHECK(countOps(tiled, ir::OpKind::Conv2d) == 20 * tiles);
    CHECK(countOps(tiled, ir::OpKind::Concat) == 1);
    // ResNet-18's receptive field at layer4 (435 rows) spans the image: every band reads all of it.
    CHECK(plan->flopTiled > 1.5 * plan->flopUntiled);
    CHECK(plan->inputRows == std::vector<int64_t>(size_t(tiles), 224));
    const ir::Tensor got = logitsOf(std::move(tiled), image);
    CHECK(maxAbsDiff(got, want) <= 1e-4 * std::max(1.0, maxAbs(want)));
  }
}

TEST_CASE("a LeNet training step over 2 row bands has the untiled loss and updated weights") {
  auto model = frontend::buildZooModel("lenet", 4, 11);
  REQUIRE(model.ok());
  ir::Graph tiledForward = model->graph;
  auto plan = passes::tileSpatialPrefix(tiledForward, model->image, 2, true);
  if (!plan) FAIL(plan.error().message());
  CHECK(plan->boundaryRows == std::vector<int64_t>{3, 2});  // 5 rows after conv2 + pool
  CHECK(plan->peakBytesTile < plan->peakBytesUntiled);      // each pass holds a band of the 28 rows
  CHECK(plan->flopTiled > plan->flopUntiled);               // and computes its halo again
  autograd::TrainingConfig config;
  config.optimizer = autograd::Optimizer::Sgd;
  auto build = [&](const ir::Graph& forward) {
    auto image = forward.findValue(model->graph.value(model->image).name);
    auto logits = forward.findValue(model->graph.value(model->logits).name);
    auto training = autograd::buildTrainingGraph(forward, image, logits, config);
    if (!training) FAIL(training.error().message());
    return std::move(training->graph);
  };
  const ir::Graph plain = build(model->graph), tiled = build(tiledForward);
  auto feedsFor = [&](const ir::Graph& g) {
    std::map<ir::ValueId, ir::Tensor> feeds;
    std::mt19937 rng(5);
    for (ir::ValueId id : g.inputs) {
      const ir::Value& v = g.value(id);
      ir::Tensor t(v.type);
      if (v.type.dtype == ir::DType::I64)
        for (int64_t& x : t.span<int64_t>()) x = static_cast<int64_t>(rng() % 10);
      else if (v.type.rank() == 0)
        t.data<float>()[0] = 0.1f;
      else
        t = randomImage(v.type, 9);
      feeds[id] = std::move(t);
    }
    return feeds;
  };
  auto a = runtime::referenceEvaluate(plain, feedsFor(plain));
  auto b = runtime::referenceEvaluate(tiled, feedsFor(tiled));
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  REQUIRE(plain.outputs.size() == tiled.outputs.size());
  for (size_t i = 0; i < plain.outputs.size(); ++i) {
    INFO(plain.value(plain.outputs[i]).name);
    const ir::Tensor& want = a->at(plain.outputs[i]);
    CHECK(maxAbsDiff(b->at(tiled.outputs[i]), want) <= 1e-5 * std::max(1.0, maxAbs(want)));
  }
  REQUIRE(plain.updates.size() == tiled.updates.size());
  for (const ir::StateUpdate& u : plain.updates) {
    const std::string& name = plain.value(u.target).name;
    INFO(name);
    auto target = tiled.findValue(name);
    REQUIRE(target != ir::kNoValue);
    auto it = std::find_if(tiled.updates.begin(), tiled.updates.end(),
                           [&](const ir::StateUpdate& x) { return x.target == target; });
    REQUIRE(it != tiled.updates.end());
    const ir::Tensor& want = a->at(u.newValue);
    CHECK(maxAbsDiff(b->at(it->newValue), want) <= 1e-5 * std::max(1.0, maxAbs(want)));
  }
}

TEST_CASE("spatial tiling refuses what it cannot tile, naming why") {
  auto lenet = frontend::buildZooModel("lenet", 2);
  REQUIRE(lenet.ok());
  ir::Graph g = lenet->graph;
  auto tooMany = passes::tileSpatialPrefix(g, lenet->image, 6, false);
  REQUIRE(!tooMany);
  CHECK(tooMany.error().kind() == ErrorKind::BadInput);
  CHECK(tooMany.error().message().find("more tiles than the 5 rows") != std::string::npos);

  auto mlp = frontend::buildZooModel("mlp", 2);
  REQUIRE(mlp.ok());
  ir::Graph m = mlp->graph;
  auto flat = passes::tileSpatialPrefix(m, mlp->image, 2, false);
  REQUIRE(!flat);
  CHECK(flat.error().message().find("--num-spatial-batches") != std::string::npos);

  frontend::ZooOptions zoo;
  zoo.batchSize = 1;
  zoo.params = {{"image_size", 64}};
  auto resnet = frontend::buildZooModel("resnet18", zoo);
  REQUIRE(resnet.ok());
  ir::Graph r = resnet->graph;
  auto training = passes::tileSpatialPrefix(r, resnet->image, 2, true);
  REQUIRE(!training);
  CHECK(training.error().message().find("batch_norm") != std::string::npos);
  CHECK(r.nodes.size() == resnet->graph.nodes.size());  // refused: the graph is untouched
}

TEST_CASE("ONNX window geometry tiles exactly: asymmetric pads, dilation, ceil_mode, avg pooling without pads") {
  ir::Graph g;
  g.name = "onnx-like";
  frontend::GraphBuilder b(g, 3);
  const ir::ValueId image = b.input("image", ir::TensorType{ir::DType::F32, {2, 3, 29, 17}});
  using Ints = std::vector<int64_t>;
  const ir::ValueId w = b.paramUniform("w", {4, 3, 3, 3}, 0.5), bias = b.paramUniform("bias", {4, 1, 1}, 0.5);
  ir::ValueId x =
      b.op(ir::OpKind::Conv, {image, w},
           {{"strides", Ints{2, 1}}, {"pads", Ints{2, 1, 1, 1}}, {"dilations", Ints{2, 1}}, {"group", int64_t{1}}})[0];
  x = b.op(ir::OpKind::Binary, {x, bias}, {{"fn", std::string("add")}})[0];
  x = b.op(ir::OpKind::Unary, {x}, {{"fn", std::string("relu")}})[0];
  x = b.op(ir::OpKind::Pool, {x},
           {{"fn", std::string("max")},
            {"kernel", Ints{3, 3}},
            {"strides", Ints{2, 2}},
            {"pads", Ints{1, 0, 0, 0}},
            {"ceil_mode", int64_t{1}}})[0];
  x = b.op(ir::OpKind::Pool, {x},
           {{"fn", std::string("avg")},
            {"kernel", Ints{2, 2}},
            {"strides", Ints{1, 1}},
            {"pads", Ints{0, 0, 1, 0}},
            {"count_include_pad", int64_t{0}}})[0];
  const ir::ValueId out = b.reshape(x, {2, 4 * 7 * 7});
  REQUIRE(b.status().ok());
  g.outputs = {out};
  std::map<ir::ValueId, ir::Tensor> feeds{{image, randomImage(g.value(image).type, 17)}};
  auto want = runtime::referenceEvaluate(g, feeds);
  REQUIRE(want.ok());
  for (int tiles : {2, 3, 7}) {
    INFO("tiles " << tiles);
    ir::Graph tiled = g;
    auto plan = passes::tileSpatialPrefix(tiled, image, tiles, false);
    if (!plan) FAIL(plan.error().message());
    CHECK(plan->layers.size() == 5);
    const ir::ValueId tiledImage = tiled.findValue("image");
    auto got = runtime::referenceEvaluate(tiled, {{tiledImage, feeds.at(image)}});
    if (!got) FAIL(got.error().message());
    CHECK(maxAbsDiff(got->at(tiled.outputs[0]), want->at(out)) <= 1e-5 * std::max(1.0, maxAbs(want->at(out))));
  }
}

TEST_CASE("a PyTorch-exported ONNX ResNet in 2 and 3 bands gives PyTorch's output") {
  const std::string dir = std::string(DFC_TEST_DATA_DIR) + "/onnx/torch/resnet_tiny/";
  auto graph = onnx::importOnnxFile(dir + "model.onnx");
  REQUIRE(graph.ok());
  auto input = onnx::readTensorProtoFile(dir + "test_data_set_0/input_0.pb");
  auto want = onnx::readTensorProtoFile(dir + "test_data_set_0/output_0.pb");
  REQUIRE(input.ok());
  REQUIRE(want.ok());
  REQUIRE(graph->inputs.size() == 1);
  for (int tiles : {2, 3}) {
    INFO("tiles " << tiles);
    ir::Graph tiled = *graph;
    auto plan = passes::tileSpatialPrefix(tiled, tiled.inputs[0], tiles, false);
    if (!plan) FAIL(plan.error().message());
    CHECK(plan->layers.size() > 5);
    CHECK(maxAbsDiff(logitsOf(std::move(tiled), *input), *want) <= 1e-4 * std::max(1.0, maxAbs(*want)));
  }
}
