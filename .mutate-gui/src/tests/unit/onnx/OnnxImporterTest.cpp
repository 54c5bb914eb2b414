// The ONNX importer: weights, external data, dynamic batch, scopes, local
// functions, and one-line refusals that name the node, op type and opset.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "OnnxModelBuilder.h"
#include "driver/compile/Inference.h"
#include "onnx/OnnxImporter.h"

using namespace dfc;
using dfc::test::addNode;
using dfc::test::addTensorValue;

namespace {

// y = relu(x @ W^T + b) with Gemm; x [N, 3] with a symbolic batch.
::onnx::ModelProto gemmModel() {
  auto m = test::makeModel();
  addTensorValue(m.mutable_graph()->add_input(), "x", ::onnx::TensorProto::FLOAT, {1, 3}, "N");
  addTensorValue(m.mutable_graph()->add_output(), "y", ::onnx::TensorProto::FLOAT, {1, 2}, "N");
  test::addFloatInitializer(m, "W", {2, 3}, {1, 0, 0, 0, 1, -1});
  test::addFloatInitializer(m, "b", {2}, {0.5f, -0.25f});
  auto* g = addNode(m, "Gemm", "/encoder/layers.0/fc/Gemm", {"x", "W", "b"}, {"h"});
  auto* tb = g->add_attribute();
  tb->set_name("transB");
  tb->set_type(::onnx::AttributeProto::INT);
  tb->set_i(1);
  addNode(m, "Relu", "/encoder/layers.0/act/Relu", {"h"}, {"y"});
  return m;
}

std::string serialize(const ::onnx::ModelProto& m) {
  std::string s;
  m.SerializeToString(&s);
  return s;
}

int runDfc(const std::string& args, std::string& output) {
  std::string cmd = std::string(DFC_BINARY_DIR) + "/app/dfc/dfc " + args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  REQUIRE(pipe);
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) output.append(buf, n);
  int raw = pclose(pipe);
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

}  // namespace

TEST_CASE("an ONNX Gemm model imports with weights as params, binds the batch and runs") {
  dfc::onnx::ImportOptions io;
  io.batchSize = 4;
  auto g = dfc::onnx::importOnnxBytes(serialize(gemmModel()), ".", "gemm.onnx", io);
  REQUIRE(g);
  REQUIRE(g->inputs.size() == 1);
  CHECK(g->value(g->inputs[0]).type.shape == ir::Shape{4, 3});
  CHECK(g->params().size() == 2);  // W and b sit in Gemm's trainable positions
  bool scoped = false;
  for (const auto& n : g->nodes) scoped = scoped || n.scope == "encoder/layers.0/fc";
  CHECK(scoped);

  auto pef = driver::compileGraphForInference(std::move(*g));
  REQUIRE(pef);
  ir::Tensor x(ir::TensorType{ir::DType::F32, {4, 3}});
  for (int64_t i = 0; i < 12; ++i) x.data<float>()[i] = static_cast<float>(i % 5) - 2.0f;
  auto out = driver::runInference(*pef, {x});
  REQUIRE(out);
  REQUIRE(out->front().shape() == ir::Shape{4, 2});
  for (int64_t r = 0; r < 4; ++r) {
    const float* xr = x.data<float>() + r * 3;
    float y0 = std::max(0.0f, xr[0] + 0.5f), y1 = std::max(0.0f, xr[1] - xr[2] - 0.25f);
    CHECK(out->front().data<float>()[r * 2] == Approx(y0));
    CHECK(out->front().data<float>()[r * 2 + 1] == Approx(y1));
  }
}

TEST_CASE("a malformed ONNX file is refused with one line naming the file") {
  auto g = dfc::onnx::importOnnxBytes("this is not a protobuf \x01\x02\xff", ".", "broken.onnx");
  REQUIRE_FALSE(g);
  CHECK(g.error().message().find("broken.onnx") != std::string::npos);
  CHECK(g.error().message().find("not a valid ONNX model") != std::string::npos);
  CHECK(g.error().message().find('\n') == std::string::npos);
}

TEST_CASE("an unsupported op is refused naming the node, op type and opset") {
  auto m = test::makeModel(13);
  addTensorValue(m.mutable_graph()->add_input(), "x", ::onnx::TensorProto::FLOAT, {2, 3});
  addTensorValue(m.mutable_graph()->add_output(), "y", ::onnx::TensorProto::FLOAT, {2, 3});
  addNode(m, "Relu", "r", {"x"}, {"h"});
  addNode(m, "LpNormalization", "/head/LpNormalization_3", {"h"}, {"y"});
  auto g = dfc::onnx::importOnnxBytes(serialize(m), ".", "m.onnx");
  REQUIRE_FALSE(g);
  const std::string msg = g.error().message();
  INFO(msg);
  CHECK(msg.find("/head/LpNormalization_3") != std::string::npos);
  CHECK(msg.find("LpNormalization") != std::string::npos);
  CHECK(msg.find("opset 13") != std::string::npos);
  CHECK(msg.find("unsupported op") != std::string::npos);
}

TEST_CASE("an older opset imports where its operators are unchanged since opset 11, else names the version") {
  auto m = test::makeModel(9);
  addTensorValue(m.mutable_graph()->add_input(), "x", ::onnx::TensorProto::FLOAT, {2, 3});
  addTensorValue(m.mutable_graph()->add_output(), "y", ::onnx::TensorProto::FLOAT, {2, 3});
  addNode(m, "Elu", "e", {"x"}, {"y"});  // Elu-6: what opset 11 still has
  auto g = dfc::onnx::importOnnxBytes(serialize(m), ".", "old.onnx");
  REQUIRE(g);

  auto s = test::makeModel(9);
  addTensorValue(s.mutable_graph()->add_input(), "x", ::onnx::TensorProto::FLOAT, {4});
  addTensorValue(s.mutable_graph()->add_output(), "y", ::onnx::TensorProto::FLOAT, {2});
  auto* slice = addNode(s, "Slice", "/head/Slice_1", {"x"}, {"y"});  // Slice-1: starts/ends are attributes
  for (const char* name : {"starts", "ends"}) {
    auto* a = slice->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INTS);
    a->add_ints(std::string(name) == "starts" ? 1 : 3);
  }
  auto rewritten = dfc::onnx::importOnnxBytes(serialize(s), ".", "old_slice.onnx");  // into Slice-10's inputs
  INFO((rewritten ? "" : rewritten.error().message()));
  REQUIRE(rewritten);
  CHECK(rewritten->value(rewritten->outputs[0]).type.shape == ir::Shape{2});

  auto d = test::makeModel(7);
  addTensorValue(d.mutable_graph()->add_input(), "x", ::onnx::TensorProto::FLOAT, {4});
  addTensorValue(d.mutable_graph()->add_output(), "y", ::onnx::TensorProto::FLOAT, {4});
  addTensorValue(d.mutable_graph()->add_output(), "mask", ::onnx::TensorProto::FLOAT, {4});
  addNode(d, "Dropout", "/head/Dropout_1", {"x"}, {"y", "mask"});  // Dropout-7: a mask of the input's type
  auto refused = dfc::onnx::importOnnxBytes(serialize(d), ".", "old_dropout.onnx");
  REQUIRE_FALSE(refused);
  const std::string msg = refused.error().message();
  INFO(msg);
  CHECK(msg.find("/head/Dropout_1") != std::string::npos);
  CHECK(msg.find("Dropout is version 7 at opset 7, where its mask output has the input's type, bool from version 10") !=
        std::string::npos);
}

TEST_CASE("an input that only feeds a shaping operand is specialized to its given value, others stay inputs") {
  auto m = test::makeModel(13);
  addTensorValue(m.mutable_graph()->add_input(), "x", ::onnx::TensorProto::FLOAT, {2, 3});
  addTensorValue(m.mutable_graph()->add_input(), "shape", ::onnx::TensorProto::INT64, {2});
  addTensorValue(m.mutable_graph()->add_output(), "y", ::onnx::TensorProto::FLOAT, {3, 2});
  addNode(m, "Reshape", "r", {"x", "shape"}, {"y"});
  ir::Tensor shape(ir::TensorType{ir::DType::I64, {2}});
  shape.data<int64_t>()[0] = 3;
  shape.data<int64_t>()[1] = 2;
  ir::Tensor x(ir::TensorType{ir::DType::F32, {2, 3}});
  dfc::onnx::ImportOptions io;
  io.operandValues.emplace("shape", shape);
  io.operandValues.emplace("x", x);  // a data operand: never folded
  auto g = dfc::onnx::importOnnxBytes(serialize(m), ".", "reshape.onnx", io);
  REQUIRE(g);
  REQUIRE(g->inputs.size() == 1);
  CHECK(g->value(g->inputs[0]).name == "x");
  CHECK(g->value(g->outputs[0]).type.shape == ir::Shape{3, 2});

  // Without a value the shape input cannot be known, and the refusal says which.
  auto unknown = dfc::onnx::importOnnxBytes(serialize(m), ".", "reshape.onnx");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().message().find("shape input must be a constant") != std::string::npos);
}

TEST_CASE("external data is read relative to the model, a missing file is named") {
  test::TempDir dir("external");
  auto m = gemmModel();
  auto* w = m.mutable_graph()->mutable_initializer(0);
  w->clear_float_data();
  w->set_data_location(::onnx::TensorProto::EXTERNAL);
  auto* loc = w->add_external_data();
  loc->set_key("location");
  loc->set_value("weights.bin");
  test::writeModel(m, dir / "model.onnx");

  auto missing = dfc::onnx::importOnnxFile(dir / "model.onnx");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message().find("weights.bin") != std::string::npos);

  const float data[6] = {2, 0, 0, 0, 3, 0};
  std::ofstream(dir / "weights.bin", std::ios::binary).write(reinterpret_cast<const char*>(data), sizeof data);
  auto g = dfc::onnx::importOnnxFile(dir / "model.onnx");
  INFO((g ? "" : g.error().message()));
  REQUIRE(g);
  ir::ValueId wv = g->findValue("W");
  REQUIRE(wv != ir::kNoValue);
  CHECK(g->initializers.at(wv).data<float>()[4] == 3.0f);
}

TEST_CASE("ONNX local functions are inlined as hyperfunction instances") {
  auto m = test::makeModel();
  addTensorValue(m.mutable_graph()->add_input(), "x", ::onnx::TensorProto::FLOAT, {2, 3});
  addTensorValue(m.mutable_graph()->add_output(), "y", ::onnx::TensorProto::FLOAT, {2, 3});
  auto* f = m.add_functions();
  f->set_name("Block");
  f->set_domain("local");
  f->add_input("a");
  f->add_output("b");
  auto* op = f->add_opset_import();
  op->set_domain("");
  op->set_version(17);
  auto* fn = f->add_node();
  fn->set_op_type("Sigmoid");
  fn->add_input("a");
  fn->add_output("s");
  auto* fn2 = f->add_node();
  fn2->set_op_type("Mul");
  fn2->add_input("a");
  fn2->add_input("s");
  fn2->add_output("b");
  auto* lo = m.add_opset_import();
  lo->set_domain("local");
  lo->set_version(1);
  addNode(m, "Block", "block0", {"x"}, {"h"})->set_domain("local");
  addNode(m, "Block", "block1", {"h"}, {"y"})->set_domain("local");
  auto g = dfc::onnx::importOnnxBytes(serialize(m), ".", "fn.onnx");
  REQUIRE(g);
  std::set<std::string> scopes;
  for (const auto& n : g->nodes) scopes.insert(n.scope);
  CHECK(scopes == std::set<std::string>{"Block.0", "Block.1"});
}

TEST_CASE("dfc compile refuses an ONNX model with an unsupported op: exit 2, the node named") {
  test::TempDir dir("cli");
  auto m = test::makeModel(13);
  addTensorValue(m.mutable_graph()->add_input(), "x", ::onnx::TensorProto::FLOAT, {2, 3});
  addTensorValue(m.mutable_graph()->add_output(), "y", ::onnx::TensorProto::FLOAT, {2, 3});
  addNode(m, "LpNormalization", "odd_node", {"x"}, {"y"});
  test::writeModel(m, dir / "odd.onnx");
  std::string out;
  int status = runDfc("compile --model " + (dir / "odd.onnx") + " --inference --db - --output-folder " + (dir / "o"), out);
  CHECK(status == 2);
  CHECK(out.find("odd_node") != std::string::npos);
  CHECK(out.find("LpNormalization") != std::string::npos);
}

TEST_CASE("an ONNX BatchNormalization with initializer statistics imports them as batch_norm running statistics") {
  auto m = test::makeModel();
  addTensorValue(m.mutable_graph()->add_input(), "x", ::onnx::TensorProto::FLOAT, {1, 2, 1, 3}, "N");
  addTensorValue(m.mutable_graph()->add_output(), "y", ::onnx::TensorProto::FLOAT, {1, 2, 1, 3}, "N");
  test::addFloatInitializer(m, "scale", {2}, {2.0f, -1.0f});
  test::addFloatInitializer(m, "bias", {2}, {0.5f, 0.0f});
  test::addFloatInitializer(m, "mean", {2}, {1.0f, -2.0f});
  test::addFloatInitializer(m, "var", {2}, {4.0f, 0.25f});
  auto* bn = addNode(m, "BatchNormalization", "/bn/BatchNormalization", {"x", "scale", "bias", "mean", "var"}, {"y"});
  auto* momentum = bn->add_attribute();
  momentum->set_name("momentum");
  momentum->set_type(::onnx::AttributeProto::FLOAT);
  momentum->set_f(0.75f);
  dfc::onnx::ImportOptions io;
  io.batchSize = 2;
  auto g = dfc::onnx::importOnnxBytes(serialize(m), ".", "bn.onnx", io);
  REQUIRE(g);
  REQUIRE(g->nodes.size() == 1);
  const ir::Node& node = g->nodes.front();
  CHECK(node.op == ir::OpKind::BatchNorm);
  REQUIRE(node.inputs.size() == 5);
  CHECK(g->value(node.inputs[1]).kind == ir::ValueKind::Param);  // scale and bias train
  CHECK(g->value(node.inputs[3]).kind == ir::ValueKind::Const);  // the statistics are state
  CHECK(node.floatAttr("momentum") == Approx(0.25));             // PyTorch's: 1 - ONNX's

  // Inference normalizes by the imported statistics: (x - mean) / sqrt(var + eps) * scale + bias.
  auto pef = driver::compileGraphForInference(std::move(*g));
  REQUIRE(pef);
  ir::Tensor x(ir::TensorType{ir::DType::F32, {2, 2, 1, 3}});
  for (int64_t i = 0; i < 12; ++i) x.data<float>()[i] = static_cast<float>(i) - 5.0f;
  auto out = driver::runInference(*pef, {x});
  REQUIRE(out);
  const float scale[] = {2.0f, -1.0f}, bias[] = {0.5f, 0.0f}, mean[] = {1.0f, -2.0f}, var[] = {4.0f, 0.25f};
  for (int64_t i = 0; i < 12; ++i) {
    const int64_t c = (i / 3) % 2;
    const double expected = (x.data<float>()[i] - mean[c]) / std::sqrt(var[c] + 1e-5) * scale[c] + bias[c];
    CHECK(out->front().data<float>()[i] == Approx(expected).epsilon(1e-5));
  }
}
