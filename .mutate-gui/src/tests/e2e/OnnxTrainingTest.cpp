// PyTorch-exported ONNX models train, not only infer: the 2-layer LSTM
// language model on byte text (next-token loss) and the small U-Net on
// Fashion-MNIST foreground segmentation (a loss per pixel), 20 steps each.
#include <catch2/catch.hpp>
#include <numeric>
#include <string>
#include <vector>

#include "TestEnv.h"
#include "driver/compile/Compiler.h"
#include "driver/run/Runner.h"
#include "pef/Pef.h"

using namespace dfc;

namespace {

struct Trained {
  std::string task;
  std::vector<double> losses;  // one per step
  double testAccuracy = 0;
};

Trained train20(const std::string& fixture, const std::string& optimizer, double lr, const std::string& dataFolder) {
  test::ScratchDir dir(fixture);
  driver::CompileOptions c;
  c.model = std::string(DFC_TEST_DATA_DIR) + "/onnx/torch/" + fixture + "/model.onnx";
  c.outputFolder = dir / "out";
  c.dbPath = dir / "runs.sqlite";
  c.optimizer = optimizer;
  auto compiled = driver::compile(c);
  if (!compiled) FAIL(compiled.error().message());
  auto pef = pef::readPef(compiled->pefPath);
  REQUIRE(pef);

  driver::RunOptions r;
  r.pefPath = compiled->pefPath;
  r.dataFolder = dataFolder;
  r.dbPath = c.dbPath;
  r.learningRate = lr;
  r.trainLimit = 20 * pef->meta.batchSize;  // the exported batch: 20 steps
  r.testLimit = 8;
  r.logEvery = 1;
  Trained t;
  t.task = pef->meta.task;
  auto result = driver::run(r, [&](const std::string& line) {
    if (auto at = line.find("Loss: "); at != std::string::npos) t.losses.push_back(std::stod(line.substr(at + 6)));
  });
  if (!result) FAIL(result.error().message());
  t.testAccuracy = result->testAccuracy;
  return t;
}

double mean(const std::vector<double>& v, size_t from, size_t to) {
  return std::accumulate(v.begin() + static_cast<long>(from), v.begin() + static_cast<long>(to), 0.0) /
         static_cast<double>(to - from);
}

}  // namespace

TEST_CASE("the PyTorch 2-layer LSTM language model trains on byte text: 20 steps, the loss falls", "[onnx][train]") {
  Trained t = train20("lstm_lm", "momentum", 0.5, "");
  CHECK(t.task == "language_model");
  REQUIRE(t.losses.size() == 20);
  INFO("first " << t.losses.front() << ", last " << t.losses.back());
  CHECK(t.losses.front() > 5.0);  // about ln 256 = 5.55 from random weights
  CHECK(mean(t.losses, 15, 20) < 0.9 * mean(t.losses, 0, 5));
}

TEST_CASE("the PyTorch U-Net trains on foreground segmentation: 20 steps, the per-pixel loss falls", "[onnx][train]") {
  Trained t = train20("unet_small", "adam", 0.01, test::kFashionMnist);
  CHECK(t.task == "segmentation");
  REQUIRE(t.losses.size() == 20);
  INFO("first " << t.losses.front() << ", last " << t.losses.back());
  CHECK(t.losses.front() == Approx(0.693).margin(0.05));  // ln 2: two classes per pixel
  CHECK(mean(t.losses, 15, 20) < 0.75 * mean(t.losses, 0, 5));
  CHECK(t.testAccuracy > 0.6);  // of the pixels of 8 test images
}
