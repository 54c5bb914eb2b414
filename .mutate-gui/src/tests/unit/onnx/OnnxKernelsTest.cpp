// ONNX operators and forms added for the node suite (issue 33): the training
// optimizers (a model of that domain only), bfloat16 values, ConvTranspose's
// output_shape and SAME padding, Pad's constant_value fed at run time.
// Expected values are worked by hand from the operator definitions.
#include <catch2/catch.hpp>
#include <cmath>

#include "OnnxModelBuilder.h"
#include "driver/compile/Inference.h"
#include "onnx/OnnxImporter.h"

using namespace dfc;
using dfc::test::addNode;
using dfc::test::addTensorValue;

namespace {

using Proto = ::onnx::TensorProto;

ir::Tensor f32(ir::Shape shape, std::vector<float> v) {
  ir::Tensor t(ir::TensorType{ir::DType::F32, std::move(shape)});
  for (size_t i = 0; i < v.size(); ++i) t.data<float>()[i] = v[i];
  return t;
}

void floatAttr(::onnx::NodeProto* n, const std::string& name, float v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::FLOAT);
  a->set_f(v);
}

void attr(::onnx::NodeProto* n, const std::string& name, const std::string& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::STRING);
  a->set_s(v);
}

void attr(::onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

Expected<std::vector<ir::Tensor>> importAndRun(const ::onnx::ModelProto& m, const std::vector<ir::Tensor>& inputs) {
  std::string bytes;
  m.SerializeToString(&bytes);
  auto g = dfc::onnx::importOnnxBytes(bytes, ".", "m.onnx");
  if (!g) return g.error();
  auto pef = driver::compileGraphForInference(std::move(*g));
  if (!pef) return pef.error();
  return driver::runInference(*pef, inputs);
}

// A model of the training domain only: R = 0.1 and T as initializers, the
// tensor groups (one tensor of 1 element each) as inputs g0..g{groups-1}.
::onnx::ModelProto optimizerModel(const std::string& op, int groups, int64_t step) {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  auto* o = m.add_opset_import();
  o->set_domain("ai.onnx.preview.training");
  o->set_version(1);
  m.mutable_graph()->set_name("step");
  test::addFloatInitializer(m, "R", {}, {0.1f});
  auto* t = m.mutable_graph()->add_initializer();
  t->set_name("T");
  t->set_data_type(Proto::INT64);
  t->add_int64_data(step);
  std::vector<std::string> ins{"R", "T"}, outs;
  for (int g = 0; g < groups; ++g) {
    ins.push_back("g" + std::to_string(g));
    addTensorValue(m.mutable_graph()->add_input(), ins.back(), Proto::FLOAT, {1});
  }
  for (int g = 0; g + 1 < groups; ++g) {
    outs.push_back("y" + std::to_string(g));
    addTensorValue(m.mutable_graph()->add_output(), outs.back(), Proto::FLOAT, {1});
  }
  auto* n = addNode(m, op, op, ins, outs);
  n->set_domain("ai.onnx.preview.training");
  return m;
}

std::vector<float> optimizerStep(const ::onnx::ModelProto& m, const std::vector<float>& groups) {
  std::vector<ir::Tensor> in;
  for (float v : groups) in.push_back(f32({1}, {v}));
  auto y = importAndRun(m, in);
  INFO((y ? "" : y.error().message()));
  REQUIRE(y);
  std::vector<float> out;
  for (const auto& t : *y) out.push_back(t.data<float>()[0]);
  return out;
}

}  // namespace

TEST_CASE("Adagrad in a model importing only the training domain divides the step by the accumulated root") {
  // X = 1, G = 0.5, H = 0, epsilon 0: H' = 0.25, X' = 1 - r 0.5 / 0.5 = 1 - r.
  auto m = optimizerModel("Adagrad", 3, 0);
  floatAttr(m.mutable_graph()->mutable_node(0), "epsilon", 0);
  auto y = optimizerStep(m, {1, 0.5f, 0});
  CHECK(y[0] == Approx(0.9f));  // T = 0: r = R
  CHECK(y[1] == Approx(0.25f));
  // decay_factor 1 at T = 1: r = R / 2.
  m = optimizerModel("Adagrad", 3, 1);
  floatAttr(m.mutable_graph()->mutable_node(0), "epsilon", 0);
  floatAttr(m.mutable_graph()->mutable_node(0), "decay_factor", 1);
  CHECK(optimizerStep(m, {1, 0.5f, 0})[0] == Approx(0.95f));
}

TEST_CASE("Momentum takes beta from the first step on and nesterov looks one velocity ahead") {
  // X = 1, G = 2, V = 1, alpha 0.5, beta 0.25, norm_coefficient 0.
  for (int64_t step : {0, 1})
    for (const char* mode : {"standard", "nesterov"}) {
      INFO(mode << " at T = " << step);
      auto m = optimizerModel("Momentum", 3, step);
      auto* n = m.mutable_graph()->mutable_node(0);
      floatAttr(n, "alpha", 0.5f);
      floatAttr(n, "beta", 0.25f);
      floatAttr(n, "norm_coefficient", 0);
      attr(n, "mode", mode);
      const float v = 0.5f + (step > 0 ? 0.25f : 1.0f) * 2;  // T = 0: beta' = 1
      const float direction = std::string(mode) == "standard" ? v : 2 + 0.5f * v;
      auto y = optimizerStep(m, {1, 2, 1});
      CHECK(y[1] == Approx(v));
      CHECK(y[0] == Approx(1 - 0.1f * direction));
    }
}

TEST_CASE("Adam corrects the rate by the step count only once T is above 0") {
  // X = 1, G = 1, V = 0, H = 0, alpha 0.5, beta 0.75, epsilon 0:
  // V' = 0.5, H' = 0.25, V' / sqrt(H') = 1.
  for (int64_t step : {0, 2}) {
    INFO("T = " << step);
    auto m = optimizerModel("Adam", 4, step);
    auto* n = m.mutable_graph()->mutable_node(0);
    floatAttr(n, "alpha", 0.5f);
    floatAttr(n, "beta", 0.75f);
    floatAttr(n, "epsilon", 0);
    auto y = optimizerStep(m, {1, 1, 0, 0});
    // T = 2: R' = R sqrt(1 - 0.75^2) / (1 - 0.5^2) = R sqrt(0.4375) / 0.75.
    const double rate = step == 0 ? 0.1 : 0.1 * std::sqrt(0.4375) / 0.75;
    CHECK(y[0] == Approx(1 - rate));
    CHECK(y[1] == Approx(0.5f));
    CHECK(y[2] == Approx(0.25f));
  }
}

TEST_CASE("a value of bfloat16 type is rounded to bfloat16 nearest even and NaN stays NaN") {
  auto m = test::makeModel(13);
  addTensorValue(m.mutable_graph()->add_input(), "x", Proto::FLOAT, {5});
  addTensorValue(m.mutable_graph()->add_output(), "y", Proto::BFLOAT16, {5});
  auto* n = addNode(m, "Cast", "cast", {"x"}, {"y"});
  auto* to = n->add_attribute();
  to->set_name("to");
  to->set_type(::onnx::AttributeProto::INT);
  to->set_i(Proto::BFLOAT16);
  // bfloat16 keeps 7 fraction bits: 1 + 2^-8 is a tie (to 1, even), 1 + 3 2^-8 a
  // tie to 1 + 2^-6 (even), 1 + 2^-8 + 2^-20 past the tie (up to 1 + 2^-7).
  const float tie = std::ldexp(1.0f, -8);
  auto y = importAndRun(m, {f32({5}, {1 + tie, 1 + 3 * tie, 1 + tie + std::ldexp(1.0f, -20), -2.5f, NAN})});
  INFO((y ? "" : y.error().message()));
  REQUIRE(y);
  const float* v = y->front().data<float>();
  CHECK(v[0] == 1.0f);
  CHECK(v[1] == 1 + std::ldexp(1.0f, -6));
  CHECK(v[2] == 1 + std::ldexp(1.0f, -7));
  CHECK(v[3] == -2.5f);
  CHECK(std::isnan(v[4]));
}

TEST_CASE("ConvTranspose with auto_pad SAME_UPPER gives input times stride, the odd pad at the end") {
  // x 3x3 = 0..8, a 3x3 kernel of ones, stride 2: the full 7x7 result cropped
  // to 6x6 from the start (ONNX's reference: begin pad 0, end pad 1).
  auto m = test::makeModel(13);
  addTensorValue(m.mutable_graph()->add_input(), "x", Proto::FLOAT, {1, 1, 3, 3});
  addTensorValue(m.mutable_graph()->add_output(), "y", Proto::FLOAT, {1, 1, 6, 6});
  test::addFloatInitializer(m, "w", {1, 1, 3, 3}, std::vector<float>(9, 1.0f));
  auto* n = addNode(m, "ConvTranspose", "ct", {"x", "w"}, {"y"});
  attr(n, "auto_pad", "SAME_UPPER");
  attr(n, "strides", std::vector<int64_t>{2, 2});
  auto y = importAndRun(m, {f32({1, 1, 3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8})});
  INFO((y ? "" : y.error().message()));
  REQUIRE(y);
  REQUIRE(y->front().shape() == ir::Shape{1, 1, 6, 6});
  const std::vector<float> row0{0, 0, 1, 1, 3, 2}, row2{3, 3, 8, 5, 12, 7};
  for (size_t j = 0; j < 6; ++j) {
    CHECK(y->front().data<float>()[j] == row0[j]);
    CHECK(y->front().data<float>()[12 + j] == row2[j]);
  }
}

TEST_CASE("ConvTranspose with output_shape one past the natural extent pads the end with zeros") {
  // x 3x3, kernel 3x3 of ones, strides (3, 2): natural 9x7; output_shape 10x8.
  auto m = test::makeModel(13);
  addTensorValue(m.mutable_graph()->add_input(), "x", Proto::FLOAT, {1, 1, 3, 3});
  addTensorValue(m.mutable_graph()->add_output(), "y", Proto::FLOAT, {1, 1, 10, 8});
  test::addFloatInitializer(m, "w", {1, 1, 3, 3}, std::vector<float>(9, 1.0f));
  auto* n = addNode(m, "ConvTranspose", "ct", {"x", "w"}, {"y"});
  attr(n, "strides", std::vector<int64_t>{3, 2});
  attr(n, "output_shape", std::vector<int64_t>{10, 8});
  auto y = importAndRun(m, {f32({1, 1, 3, 3}, {1, 1, 1, 1, 1, 1, 1, 1, 1})});
  INFO((y ? "" : y.error().message()));
  REQUIRE(y);
  REQUIRE(y->front().shape() == ir::Shape{1, 1, 10, 8});
  const float* v = y->front().data<float>();
  CHECK(v[0] == 1);                                       // row 0, column 0: one window
  CHECK(v[2] == 2);                                       // column 2: two windows overlap (stride 2, kernel 3)
  for (int j = 0; j < 8; ++j) CHECK(v[9 * 8 + j] == 0);   // row 9: past every window
  for (int i = 0; i < 10; ++i) CHECK(v[i * 8 + 7] == 0);  // column 7 likewise
}

TEST_CASE("Pad's constant_value fed as a graph input fills the padding at run time") {
  auto m = test::makeModel(13);
  addTensorValue(m.mutable_graph()->add_input(), "x", Proto::FLOAT, {1, 2});
  addTensorValue(m.mutable_graph()->add_input(), "value", Proto::FLOAT, {});
  addTensorValue(m.mutable_graph()->add_output(), "y", Proto::FLOAT, {1, 4});
  auto* pads = m.mutable_graph()->add_initializer();
  pads->set_name("pads");
  pads->set_data_type(Proto::INT64);
  pads->add_dims(4);
  for (int64_t p : {0, 1, 0, 1}) pads->add_int64_data(p);
  addNode(m, "Pad", "pad", {"x", "pads", "value"}, {"y"});
  auto y = importAndRun(m, {f32({1, 2}, {1, 2}), f32({}, {7.5f})});
  INFO((y ? "" : y.error().message()));
  REQUIRE(y);
  const std::vector<float> want{7.5f, 1, 2, 7.5f};
  for (size_t i = 0; i < 4; ++i) CHECK(y->front().data<float>()[i] == want[i]);
}

TEST_CASE("ConvTranspose with dilations spreads the kernel taps apart") {
  // ONNX's example: x 3x3, kernel [[7, 2], [1, 9]], dilations 2: the 3x3
  // kernel [[7, 0, 2], [0, 0, 0], [1, 0, 9]], output 5x5.
  auto m = test::makeModel(13);
  addTensorValue(m.mutable_graph()->add_input(), "x", Proto::FLOAT, {1, 1, 3, 3});
  addTensorValue(m.mutable_graph()->add_input(), "w", Proto::FLOAT, {1, 1, 2, 2});
  addTensorValue(m.mutable_graph()->add_output(), "y", Proto::FLOAT, {1, 1, 5, 5});
  attr(addNode(m, "ConvTranspose", "ct", {"x", "w"}, {"y"}), "dilations", std::vector<int64_t>{2, 2});
  auto y = importAndRun(m, {f32({1, 1, 3, 3}, {3, 8, 1, 9, 5, 7, 3, 2, 6}), f32({1, 1, 2, 2}, {7, 2, 1, 9})});
  INFO((y ? "" : y.error().message()));
  REQUIRE(y);
  REQUIRE(y->front().shape() == ir::Shape{1, 1, 5, 5});
  // Row 0: 7 x row 0 of x at even columns, 2 x it shifted two right: 21 56 13+0 16 2.
  const std::vector<float> row0{21, 56, 13, 16, 2}, row4{3, 2, 33, 18, 54};
  for (size_t j = 0; j < 5; ++j) {
    CHECK(y->front().data<float>()[j] == row0[j]);
    CHECK(y->front().data<float>()[20 + j] == row4[j]);
  }
}

TEST_CASE("BatchNormalization in training mode normalizes by the batch and moves the running statistics") {
  // One channel, x = 1 2 3 4 over N = 2 and L = 2: mean 2.5, population
  // variance 1.25; scale 2, bias 1, epsilon 0; running mean 0.5 and variance 1
  // with momentum 0.25 become 0.5 0.25 + 2.5 0.75 = 2 and 0.25 + 1.25 0.75 = 1.1875.
  auto m = test::makeModel(15);
  addTensorValue(m.mutable_graph()->add_input(), "x", Proto::FLOAT, {2, 1, 2});
  addTensorValue(m.mutable_graph()->add_output(), "y", Proto::FLOAT, {2, 1, 2});
  addTensorValue(m.mutable_graph()->add_output(), "mean_out", Proto::FLOAT, {1});
  addTensorValue(m.mutable_graph()->add_output(), "var_out", Proto::FLOAT, {1});
  test::addFloatInitializer(m, "s", {1}, {2});
  test::addFloatInitializer(m, "b", {1}, {1});
  test::addFloatInitializer(m, "mean", {1}, {0.5f});
  test::addFloatInitializer(m, "var", {1}, {1});
  auto* n = addNode(m, "BatchNormalization", "bn", {"x", "s", "b", "mean", "var"}, {"y", "mean_out", "var_out"});
  floatAttr(n, "epsilon", 0);
  floatAttr(n, "momentum", 0.25f);
  auto* mode = n->add_attribute();
  mode->set_name("training_mode");
  mode->set_type(::onnx::AttributeProto::INT);
  mode->set_i(1);
  auto y = importAndRun(m, {f32({2, 1, 2}, {1, 2, 3, 4})});
  INFO((y ? "" : y.error().message()));
  REQUIRE(y);
  REQUIRE(y->size() == 3);
  const double sd = std::sqrt(1.25);
  for (int i = 0; i < 4; ++i) CHECK((*y)[0].data<float>()[i] == Approx((i + 1 - 2.5) / sd * 2 + 1));
  CHECK((*y)[1].data<float>()[0] == Approx(2.0));
  CHECK((*y)[2].data<float>()[0] == Approx(1.1875));
}

TEST_CASE("DFT of a shifted impulse turns by a quarter per bin, onesided keeps n / 2 + 1 bins, inverse undoes it") {
  // x = (0, 1, 0, 0): X[k] = exp(-2 pi i k / 4) = 1, -i, -1, i.
  auto model = [](int64_t parts, int64_t bins, bool inverse, bool onesided) {
    auto m = test::makeModel(17);
    addTensorValue(m.mutable_graph()->add_input(), "x", Proto::FLOAT, {1, 4, parts});
    addTensorValue(m.mutable_graph()->add_output(), "y", Proto::FLOAT, {1, bins, 2});
    auto* n = addNode(m, "DFT", "dft", {"x"}, {"y"});
    for (auto [name, on] : {std::pair{"inverse", inverse}, {"onesided", onesided}}) {
      auto* a = n->add_attribute();
      a->set_name(name);
      a->set_type(::onnx::AttributeProto::INT);
      a->set_i(on ? 1 : 0);
    }
    return m;
  };
  auto y = importAndRun(model(1, 4, false, false), {f32({1, 4, 1}, {0, 1, 0, 0})});
  INFO((y ? "" : y.error().message()));
  REQUIRE(y);
  const std::vector<float> want{1, 0, 0, -1, -1, 0, 0, 1};  // (re, im) per bin
  for (size_t i = 0; i < want.size(); ++i) CHECK(y->front().data<float>()[i] == Approx(want[i]).margin(1e-6));
  auto half = importAndRun(model(1, 3, false, true), {f32({1, 4, 1}, {0, 1, 0, 0})});
  REQUIRE(half);
  REQUIRE(half->front().shape() == ir::Shape{1, 3, 2});
  for (size_t i = 0; i < 6; ++i) CHECK(half->front().data<float>()[i] == Approx(want[i]).margin(1e-6));
  auto back = importAndRun(model(2, 4, true, false), {f32({1, 4, 2}, want)});
  REQUIRE(back);
  const std::vector<float> impulse{0, 0, 1, 0, 0, 0, 0, 0};
  for (size_t i = 0; i < impulse.size(); ++i) CHECK(back->front().data<float>()[i] == Approx(impulse[i]).margin(1e-6));
}

TEST_CASE("STFT transforms each frame of frame_length every frame_step, windowed, onesided by default") {
  // Frames of 2 every 2 of 1 2 3 5 4 4: a two-point DFT is (a + b, a - b), no
  // imaginary part; with the window (1, 0.5) b is halved first.
  for (bool windowed : {false, true}) {
    INFO((windowed ? "window (1, 0.5)" : "frame_length 2"));
    auto m = test::makeModel(17);
    addTensorValue(m.mutable_graph()->add_input(), "x", Proto::FLOAT, {1, 6, 1});
    addTensorValue(m.mutable_graph()->add_output(), "y", Proto::FLOAT, {1, 3, 2, 2});
    auto* step = m.mutable_graph()->add_initializer();
    step->set_name("step");
    step->set_data_type(Proto::INT64);
    step->add_int64_data(2);
    if (windowed) {
      test::addFloatInitializer(m, "window", {2}, {1, 0.5f});
      addNode(m, "STFT", "stft", {"x", "step", "window"}, {"y"});
    } else {
      auto* length = m.mutable_graph()->add_initializer();
      length->set_name("length");
      length->set_data_type(Proto::INT64);
      length->add_int64_data(2);
      addNode(m, "STFT", "stft", {"x", "step", "", "length"}, {"y"});
    }
    auto y = importAndRun(m, {f32({1, 6, 1}, {1, 2, 3, 5, 4, 4})});
    INFO((y ? "" : y.error().message()));
    REQUIRE(y);
    REQUIRE(y->front().shape() == ir::Shape{1, 3, 2, 2});
    const std::vector<float> plain{3, 0, -1, 0, 8, 0, -2, 0, 8, 0, 0, 0};
    const std::vector<float> halved{2, 0, 0, 0, 5.5f, 0, 0.5f, 0, 6, 0, 2, 0};
    const auto& want = windowed ? halved : plain;
    for (size_t i = 0; i < want.size(); ++i) CHECK(y->front().data<float>()[i] == Approx(want[i]).margin(1e-6));
  }
}

TEST_CASE("MelWeightMatrix of constant operands is a constant of triangles between rounded-down mel corners") {
  // 2 mel bins, 8 points (5 spectrogram bins), 8000 Hz, 0-4000 Hz: mel(4000) =
  // 2146, steps of 2146 / 4; corners at 0, 427, 1114 and 2220 Hz land on bins
  // floor(9 hz / 8000) = 0, 0, 1, 2. Bin 0's triangle has no rising side (1 at 0),
  // bin 1 rises from 0 to 1 at bin 1 and falls to 0 at bin 2.
  auto m = test::makeModel(17);
  addTensorValue(m.mutable_graph()->add_output(), "w", Proto::FLOAT, {5, 2});
  std::vector<std::string> names{"mels", "points", "rate", "low", "high"};
  const std::vector<float> values{2, 8, 8000, 0, 4000};
  for (size_t i = 0; i < names.size(); ++i) {
    if (i >= 3) {
      test::addFloatInitializer(m, names[i], {}, {values[i]});
      continue;
    }
    auto* t = m.mutable_graph()->add_initializer();  // the counts and the rate are integers
    t->set_name(names[i]);
    t->set_data_type(Proto::INT64);
    t->add_int64_data(static_cast<int64_t>(values[i]));
  }
  addNode(m, "MelWeightMatrix", "mel", names, {"w"});
  auto y = importAndRun(m, {});
  INFO((y ? "" : y.error().message()));
  REQUIRE(y);
  REQUIRE(y->front().shape() == ir::Shape{5, 2});
  const std::vector<float> want{1, 0, 0, 1, 0, 0, 0, 0, 0, 0};
  for (size_t i = 0; i < want.size(); ++i) CHECK(y->front().data<float>()[i] == want[i]);
}

TEST_CASE("Einsum's ellipsis stands for the leading axes and a repeated letter takes the diagonal") {
  auto run = [](const std::string& equation, std::vector<std::string> inputs, const std::vector<int64_t>& outShape,
                const std::vector<ir::Tensor>& feeds) {
    auto m = test::makeModel(12);
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::vector<int64_t> dims(feeds[i].shape().begin(), feeds[i].shape().end());
      addTensorValue(m.mutable_graph()->add_input(), inputs[i], Proto::FLOAT, dims);
    }
    addTensorValue(m.mutable_graph()->add_output(), "y", Proto::FLOAT, outShape);
    attr(addNode(m, "Einsum", "e", inputs, {"y"}), "equation", equation);
    return importAndRun(m, feeds);
  };
  const ir::Tensor x = f32({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});  // [[0, 1], [2, 3]], [[4, 5], [6, 7]]
  auto diag = run("...ii ->...i", {"x"}, {2, 2}, {x});
  INFO((diag ? "" : diag.error().message()));
  REQUIRE(diag);
  const std::vector<float> d{0, 3, 4, 7};
  for (size_t i = 0; i < 4; ++i) CHECK(diag->front().data<float>()[i] == d[i]);
  // Implicit output: the ellipsis, then the letters seen once (i, k): x times diag(1, 2).
  auto mm = run("...ij,jk", {"x", "w"}, {2, 2, 2}, {x, f32({2, 2}, {1, 0, 0, 2})});
  INFO((mm ? "" : mm.error().message()));
  REQUIRE(mm);
  const std::vector<float> p{0, 2, 2, 6, 4, 10, 6, 14};
  for (size_t i = 0; i < 8; ++i) CHECK(mm->front().data<float>()[i] == p[i]);
}

TEST_CASE("MaxUnpool puts each value at its index in the window's shape, output_shape pads the end with zeros") {
  // x (5, 6) from windows 1x2 of a 1x4 row, at flat positions 1 and 2.
  for (bool padded : {false, true}) {
    INFO((padded ? "output_shape 1x1x2x4" : "the window's shape"));
    auto m = test::makeModel(11);
    addTensorValue(m.mutable_graph()->add_input(), "x", Proto::FLOAT, {1, 1, 1, 2});
    addTensorValue(m.mutable_graph()->add_output(), "y", Proto::FLOAT, {1, 1, padded ? 2 : 1, 4});
    auto* idx = m.mutable_graph()->add_initializer();
    idx->set_name("i");
    idx->set_data_type(Proto::INT64);
    for (int64_t d : {1, 1, 1, 2}) idx->add_dims(d);
    for (int64_t v : {1, 2}) idx->add_int64_data(v);
    std::vector<std::string> ins{"x", "i"};
    if (padded) {
      auto* shape = m.mutable_graph()->add_initializer();
      shape->set_name("shape");
      shape->set_data_type(Proto::INT64);
      shape->add_dims(4);
      for (int64_t v : {1, 1, 2, 4}) shape->add_int64_data(v);
      ins.push_back("shape");
    }
    auto* n = addNode(m, "MaxUnpool", "unpool", ins, {"y"});
    attr(n, "kernel_shape", std::vector<int64_t>{1, 2});
    attr(n, "strides", std::vector<int64_t>{1, 2});
    auto y = importAndRun(m, {f32({1, 1, 1, 2}, {5, 6})});
    INFO((y ? "" : y.error().message()));
    REQUIRE(y);
    const std::vector<float> want{0, 5, 6, 0, 0, 0, 0, 0};
    REQUIRE(y->front().numElements() == (padded ? 8 : 4));
    for (int64_t i = 0; i < y->front().numElements(); ++i)
      CHECK(y->front().data<float>()[i] == want[static_cast<size_t>(i)]);
  }
}
