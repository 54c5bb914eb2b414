// Hostile ONNX files (issue 9), each built by this code: refused with one line
// naming the file and the node or tensor, before libonnx's checker and shape
// inference run (which trap on a zero stride), never reading outside the
// model's folder.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "onnx/OnnxImporter.h"
#include "support/SizeBudget.h"
#include "unit/onnx/OnnxModelBuilder.h"

using namespace dfc;
using test::addNode;
using test::addTensorValue;

namespace {

constexpr int kFloat = ::onnx::TensorProto::FLOAT;

std::string importError(const ::onnx::ModelProto& m, const std::string& baseDir = ".") {
  std::string bytes;
  m.SerializeToString(&bytes);
  auto g = dfc::onnx::importOnnxBytes(bytes, baseDir, "evil.onnx");
  return g ? std::string("<ok>") : g.error().message();
}

// x [1,1,8,8] -> op -> y, with `attrs` as INTS attributes.
::onnx::ModelProto windowModel(const std::string& op, const std::vector<std::pair<std::string, std::vector<int64_t>>>& attrs) {
  auto m = test::makeModel(13);
  addTensorValue(m.mutable_graph()->add_input(), "x", kFloat, {1, 1, 8, 8});
  addTensorValue(m.mutable_graph()->add_output(), "y", kFloat, {1, 1, 6, 6});
  std::vector<std::string> inputs{"x"};
  if (op == "Conv") {
    test::addFloatInitializer(m, "w", {1, 1, 3, 3}, std::vector<float>(9, 0.1f));
    inputs.push_back("w");
  }
  auto* n = addNode(m, op, "win", inputs, {"y"});
  for (const auto& [name, values] : attrs) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INTS);
    for (int64_t v : values) a->add_ints(v);
  }
  return m;
}

// A Gemm whose weight W [4,4] lives in external data at `location`.
::onnx::ModelProto externalModel(const std::string& location, const std::string& offset = "", const std::string& length = "") {
  auto m = test::makeModel(13);
  addTensorValue(m.mutable_graph()->add_input(), "x", kFloat, {1, 4});
  addTensorValue(m.mutable_graph()->add_output(), "y", kFloat, {1, 4});
  auto* w = m.mutable_graph()->add_initializer();
  w->set_name("W");
  w->set_data_type(kFloat);
  w->add_dims(4);
  w->add_dims(4);
  w->set_data_location(::onnx::TensorProto::EXTERNAL);
  for (const auto& [key, value] : {std::pair<std::string, std::string>{"location", location}, {"offset", offset}, {"length", length}}) {
    if (value.empty()) continue;
    auto* kv = w->add_external_data();
    kv->set_key(key);
    kv->set_value(value);
  }
  addNode(m, "Gemm", "gemm", {"x", "W"}, {"y"});
  return m;
}

}  // namespace

TEST_CASE("zero strides, dilations and kernels are refused before shape inference", "[onnx][hostile]") {
  // Each of these was a SIGFPE inside libonnx's shape inference.
  CHECK(importError(windowModel("Conv", {{"strides", {0, 0}}})) ==
        "evil.onnx: node 'win' (Conv): attribute 'strides' holds 0; it must be > 0");
  CHECK(importError(windowModel("MaxPool", {{"kernel_shape", {2, 2}}, {"strides", {0, 1}}})) ==
        "evil.onnx: node 'win' (MaxPool): attribute 'strides' holds 0; it must be > 0");
  CHECK(importError(windowModel("AveragePool", {{"kernel_shape", {2, 2}}, {"strides", {1, 0}}})) ==
        "evil.onnx: node 'win' (AveragePool): attribute 'strides' holds 0; it must be > 0");
  CHECK(importError(windowModel("MaxPool", {{"kernel_shape", {0, 2}}})) ==
        "evil.onnx: node 'win' (MaxPool): attribute 'kernel_shape' holds 0; it must be > 0");
  CHECK(importError(windowModel("Conv", {{"dilations", {-1, 1}}})) ==
        "evil.onnx: node 'win' (Conv): attribute 'dilations' holds -1; it must be > 0");
  CHECK(importError(windowModel("Conv", {{"pads", {0, -2, 0, 0}}})) ==
        "evil.onnx: node 'win' (Conv): attribute 'pads' holds -2; it must be >= 0");
}

TEST_CASE("a local function that calls itself is refused, not inlined until the stack overflows", "[onnx][hostile]") {
  auto m = test::makeModel(13);
  addTensorValue(m.mutable_graph()->add_input(), "x", kFloat, {1, 4});
  addTensorValue(m.mutable_graph()->add_output(), "y", kFloat, {1, 4});
  for (const char* domain : {"", "local"}) {
    auto* o = m.add_opset_import();
    o->set_domain(domain);
    o->set_version(domain[0] ? 1 : 13);
  }
  auto* f = m.add_functions();
  f->set_name("Rec");
  f->set_domain("local");
  f->add_input("a");
  f->add_output("b");
  auto* body = f->add_node();
  body->set_op_type("Rec");
  body->set_domain("local");
  body->add_input("a");
  body->add_output("b");
  addNode(m, "Rec", "call", {"x"}, {"y"})->set_domain("local");
  CHECK(importError(m) == "evil.onnx: local function 'Rec' calls itself");
}

TEST_CASE("external data outside the model's folder is refused and never read", "[onnx][hostile]") {
  test::TempDir dir("ext");
  std::filesystem::create_directories(dir / "model");
  std::ofstream(dir / "secret.bin", std::ios::binary) << std::string(64, 'S');
  std::ofstream(dir / "model/w.bin", std::ios::binary) << std::string(64, '\0');
  std::filesystem::create_symlink(dir / "secret.bin", dir / "model/link.bin");
  const std::string model = dir / "model/m.onnx";
  auto importFile = [&](const ::onnx::ModelProto& m) {
    test::writeModel(m, model);
    auto g = dfc::onnx::importOnnxFile(model);
    return g ? std::string("<ok>") : g.error().message();
  };
  auto refused = [&](const ::onnx::ModelProto& m, const std::string& what) {
    std::string err = importFile(m);
    INFO(err);
    CHECK(err.rfind(model + ": initializer 'W': ", 0) == 0);
    CHECK(err.find(what) != std::string::npos);
  };
  refused(externalModel("../secret.bin"), "climbs out of");
  refused(externalModel("../../../../../../../../etc/passwd"), "climbs out of");
  refused(externalModel("/etc/passwd"), "is an absolute path");
  refused(externalModel(dir / "secret.bin"), "is an absolute path");
  refused(externalModel("link.bin"), "outside the model's folder");
  refused(externalModel("w.bin", "abc"), "offset 'abc' is not a non-negative integer");
  refused(externalModel("w.bin", "-8"), "offset '-8'");
  refused(externalModel("w.bin", "0", "1099511627776"), "length 1099511627776 differs from the 64 bytes");
  refused(externalModel("w.bin", "32", "64"), "fewer than offset 32 + length 64");
  CHECK(importFile(externalModel("w.bin")) == "<ok>");

  // dfc compile: exit 2, the culprit named, no PEF written and the secret's
  // bytes in no file (the output folder holds only the compile log).
  const std::pair<std::string, std::string> escapes[] = {
      {"../secret.bin", "climbs out of"}, {dir / "secret.bin", "is an absolute path"}, {"link.bin", "outside the model's folder"}};
  for (const auto& [location, why] : escapes) {
    test::writeModel(externalModel(location), model);
    const std::string out = dir / "out";
    std::string cmd = std::string(DFC_BINARY_DIR) + "/app/dfc/dfc compile --model " + model +
                      " --inference -b 1 -o0 --db - --output-folder " + out + " 2>&1";
    FILE* pipe = popen(cmd.c_str(), "r");
    REQUIRE(pipe);
    std::string said;
    char buf[512];
    while (size_t n = fread(buf, 1, sizeof buf, pipe)) said.append(buf, n);
    int status = pclose(pipe);
    INFO(location << ": " << said);
    CHECK(WEXITSTATUS(status) == 2);
    CHECK(said.find(location) != std::string::npos);
    CHECK(said.find(why) != std::string::npos);
    CHECK(std::count(said.begin(), said.end(), '\n') == 1);  // one line
    for (const auto& entry : std::filesystem::recursive_directory_iterator(out)) {
      INFO(entry.path().string());
      CHECK(entry.path().extension() != ".pef");
      std::ifstream in(entry.path(), std::ios::binary);
      const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
      CHECK(bytes.find(std::string(64, 'S')) == std::string::npos);
    }
    std::filesystem::remove_all(out);
  }
}

TEST_CASE("declared sizes are checked against the memory budget before allocation", "[onnx][hostile]") {
  auto m = test::makeModel(13);
  addTensorValue(m.mutable_graph()->add_input(), "x", kFloat, {1, 1});
  addTensorValue(m.mutable_graph()->add_output(), "y", kFloat, {65536, 65536});
  auto* w = m.mutable_graph()->add_initializer();
  w->set_name("W");
  w->set_data_type(kFloat);
  w->add_dims(65536);
  w->add_dims(65536);
  w->set_raw_data(std::string(16, '\0'));  // a few bytes that claim 16 GiB
  addNode(m, "Add", "add", {"x", "W"}, {"y"});
  support::setMemoryBudget(1 << 30);
  std::string err = importError(m);
  CHECK(err == "evil.onnx: initializer 'W': tensor 'W' of dims [65536,65536] needs 16.0 GiB, more than the memory "
               "budget of 1.0 GiB (--max-memory to change it)");
  w->mutable_dims()->Set(0, int64_t{1} << 40);
  w->mutable_dims()->Set(1, int64_t{1} << 40);
  CHECK(importError(m) == "evil.onnx: initializer 'W': dims [1099511627776,1099511627776] overflow");

  // ConstantOfShape of 2^40 elements: refused by the mapper with the node named.
  auto c = test::makeModel(13);
  addTensorValue(c.mutable_graph()->add_input(), "x", kFloat, {1});
  auto* y = c.mutable_graph()->add_output();
  y->set_name("y");
  y->mutable_type()->mutable_tensor_type()->set_elem_type(kFloat);
  for (const char* dim : {"a", "b"}) y->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_param(dim);
  auto* s = c.mutable_graph()->add_initializer();
  s->set_name("s");
  s->set_data_type(::onnx::TensorProto::INT64);
  s->add_dims(2);
  s->add_int64_data(int64_t{1} << 18);
  s->add_int64_data(int64_t{1} << 18);
  addNode(c, "ConstantOfShape", "", {"s"}, {"r"});
  addNode(c, "Add", "add", {"x", "r"}, {"y"});
  err = importError(c);
  support::setMemoryBudget(0);
  CHECK(err == "evil.onnx: node 'ConstantOfShape_1' (ConstantOfShape, opset 13): output f32[262144,262144] needs "
               "256.0 GiB, more than the memory budget of 1.0 GiB (--max-memory to change it)");
}

TEST_CASE("mapper errors name the file and an unnamed node by its graph name", "[onnx][hostile]") {
  auto m = test::makeModel(13);
  addTensorValue(m.mutable_graph()->add_input(), "x", kFloat, {2, 3});
  addTensorValue(m.mutable_graph()->add_output(), "y", kFloat, {2, 3});
  auto* n = addNode(m, "Transpose", "", {"x"}, {"y"});
  auto* a = n->add_attribute();
  a->set_name("perm");
  a->set_type(::onnx::AttributeProto::INTS);
  a->add_ints(0);
  a->add_ints(0);
  std::string err = importError(m);
  CHECK(err.rfind("evil.onnx: node 'Transpose_1' (Transpose, opset 13): ", 0) == 0);
}

namespace {

// x [4, 1, 8, 8] (one channel) through `op` with per-channel inputs of `count` values each.
::onnx::ModelProto normModel(const std::string& op, int count, const std::vector<std::string>& params) {
  auto m = test::makeModel(13);
  addTensorValue(m.mutable_graph()->add_input(), "x", kFloat, {4, 1, 8, 8});
  addTensorValue(m.mutable_graph()->add_output(), "y", kFloat, {4, 1, 8, 8});
  std::vector<std::string> inputs{"x"};
  for (const std::string& p : params) {
    test::addFloatInitializer(m, p, {count}, std::vector<float>(static_cast<size_t>(count), 1.0f));
    inputs.push_back(p);
  }
  addNode(m, op, "norm", inputs, {"y"});
  return m;
}

::onnx::AttributeProto* intsAttr(::onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& values) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INTS);
  for (int64_t v : values) a->add_ints(v);
  return a;
}

::onnx::TensorProto* addInt64Initializer(::onnx::ModelProto& m, const std::string& name, const std::vector<int64_t>& v) {
  auto* t = m.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(::onnx::TensorProto::INT64);
  t->add_dims(static_cast<int64_t>(v.size()));
  for (int64_t x : v) t->add_int64_data(x);
  return t;
}

}  // namespace

TEST_CASE("per-channel parameters must have as many values as the input has channels", "[onnx][hostile]") {
  // Issue 36: 7 values on 1 channel broadcast into a [4, 7, 8, 8] output.
  CHECK_THAT(importError(normModel("BatchNormalization", 7, {"scale", "bias", "mean", "var"})),
             Catch::StartsWith("evil.onnx: node 'norm' (BatchNormalization, opset 13): per-channel input 'scale' is f32[7], "
                               "but the input f32[4,1,8,8] has 1 channel(s): it must be [1]"));
  CHECK_THAT(importError(normModel("InstanceNormalization", 7, {"scale", "bias"})),
             Catch::Contains("per-channel input 'scale' is f32[7]"));
  CHECK(importError(normModel("BatchNormalization", 1, {"scale", "bias", "mean", "var"})) == "<ok>");
  CHECK(importError(normModel("InstanceNormalization", 1, {"scale", "bias"})) == "<ok>");
}

TEST_CASE("a Conv kernel_shape must be its weight's, a Slice axis given once, a Transpose perm 0..rank-1", "[onnx][hostile]") {
  // ONNX's shape inference believes kernel_shape: a 5x5 window gives the declared 4x4 output; the weight is 3x3.
  auto conv = windowModel("Conv", {{"kernel_shape", {5, 5}}});
  conv.mutable_graph()->mutable_output(0)->Clear();
  addTensorValue(conv.mutable_graph()->mutable_output(0), "y", kFloat, {1, 1, 4, 4});
  CHECK_THAT(importError(conv), Catch::Contains("kernel_shape [5, 5] disagrees with the weight's spatial shape [3, 3]"));
  CHECK(importError(windowModel("Conv", {{"kernel_shape", {3, 3}}})) == "<ok>");

  auto slice = test::makeModel(13);
  addTensorValue(slice.mutable_graph()->add_input(), "x", kFloat, {2, 4});
  addTensorValue(slice.mutable_graph()->add_output(), "y", kFloat, {2, 2});
  addInt64Initializer(slice, "starts", {0, 1});
  addInt64Initializer(slice, "ends", {2, 3});
  addInt64Initializer(slice, "axes", {1, -1});  // the same axis, once counted from the end
  addNode(slice, "Slice", "slice", {"x", "starts", "ends", "axes"}, {"y"});
  CHECK_THAT(importError(slice), Catch::Contains("axes name axis 1 twice"));

  for (const std::vector<int64_t>& perm : {std::vector<int64_t>{-1, 0}, {0, 0}, {0, 2}}) {
    auto t = test::makeModel(13);
    addTensorValue(t.mutable_graph()->add_input(), "x", kFloat, {2, 3});
    addTensorValue(t.mutable_graph()->add_output(), "y", kFloat, {3, 2});
    intsAttr(addNode(t, "Transpose", "transpose", {"x"}, {"y"}), "perm", perm);
    CHECK_THAT(importError(t), Catch::Contains("(Transpose, opset 13): perm"));
  }
}
