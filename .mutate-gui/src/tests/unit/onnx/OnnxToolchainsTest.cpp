// ONNX from other toolchains (issue 33): input shapes for dynamic dimensions,
// unsorted graphs, older opsets, empty tensors, If and Loop. Models are built
// here with the protobuf API; refusals are one line naming the culprit.
#include <sys/wait.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <functional>

#include "OnnxModelBuilder.h"
#include "driver/compile/Inference.h"
#include "onnx/InputShapes.h"
#include "onnx/OnnxImporter.h"
#include "support/Half.h"

using namespace dfc;
using dfc::test::addNode;
using dfc::test::addTensorValue;

namespace {

constexpr int kFloat = ::onnx::TensorProto::FLOAT;

std::string serialize(const ::onnx::ModelProto& m) {
  std::string s;
  m.SerializeToString(&s);
  return s;
}

void setDims(::onnx::ValueInfoProto* v, const std::vector<std::string>& dims) {
  auto* shape = v->mutable_type()->mutable_tensor_type()->mutable_shape();
  shape->clear_dim();
  for (const auto& d : dims) {
    if (d.empty() || std::isalpha(static_cast<unsigned char>(d[0]))) shape->add_dim()->set_dim_param(d);
    else shape->add_dim()->set_dim_value(std::stoll(d));
  }
}

void intAttr(::onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(v);
}

ir::Tensor ramp(ir::Shape shape, float scale = 0.25f) {
  ir::Tensor t(ir::TensorType{ir::DType::F32, std::move(shape)});
  for (int64_t i = 0; i < t.numElements(); ++i) t.data<float>()[i] = scale * static_cast<float>(i % 7) - 0.5f;
  return t;
}

Expected<std::vector<ir::Tensor>> importAndRun(const ::onnx::ModelProto& m, const std::vector<ir::Tensor>& inputs,
                                               const dfc::onnx::ImportOptions& io = {}) {
  auto g = dfc::onnx::importOnnxBytes(serialize(m), ".", "m.onnx", io);
  if (!g) return g.error();
  auto pef = driver::compileGraphForInference(std::move(*g));
  if (!pef) return pef.error();
  return driver::runInference(*pef, inputs);
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

// y = Conv(x, ones[2,3,1,1]) * m: x [N,3,H,W], m [N,1,H,W], y [N,2,H,W].
::onnx::ModelProto dynamicImageModel() {
  auto m = test::makeModel(13);
  auto* g = m.mutable_graph();
  addTensorValue(g->add_input(), "x", kFloat, {});
  setDims(g->mutable_input(0), {"N", "3", "H", "W"});
  addTensorValue(g->add_input(), "m", kFloat, {});
  setDims(g->mutable_input(1), {"N", "1", "H", "W"});
  addTensorValue(g->add_output(), "y", kFloat, {});
  setDims(g->mutable_output(0), {"N", "2", "H", "W"});
  test::addFloatInitializer(m, "w", {2, 3, 1, 1}, {1, 1, 1, 2, 2, 2});
  addNode(m, "Conv", "conv", {"x", "w"}, {"c"});
  addNode(m, "Mul", "mul", {"c", "m"}, {"y"});
  return m;
}

}  // namespace

TEST_CASE("a [N,3,H,W] model compiles and runs at two input shapes, the symbols binding its other input") {
  for (const ir::Shape& shape : {ir::Shape{1, 3, 8, 8}, ir::Shape{2, 3, 5, 7}}) {
    dfc::onnx::ImportOptions io;
    io.inputShapes["x"] = shape;  // binds N, H and W, so m needs no shape of its own
    ir::Tensor x = ramp(shape), m = ramp({shape[0], 1, shape[2], shape[3]}, 0.5f);
    auto out = importAndRun(dynamicImageModel(), {x, m}, io);
    INFO((out ? "" : out.error().message()));
    REQUIRE(out);
    const ir::Tensor& y = out->front();
    REQUIRE(y.shape() == ir::Shape{shape[0], 2, shape[2], shape[3]});
    const int64_t plane = shape[2] * shape[3];
    for (int64_t n = 0; n < shape[0]; ++n)
      for (int64_t p = 0; p < plane; ++p) {
        const float* xs = x.data<float>() + n * 3 * plane + p;
        const float sum = xs[0] + xs[plane] + xs[2 * plane], mask = m.data<float>()[n * plane + p];
        CHECK(y.data<float>()[(n * 2) * plane + p] == Approx(sum * mask));
        CHECK(y.data<float>()[(n * 2 + 1) * plane + p] == Approx(2 * sum * mask));
      }
  }
}

TEST_CASE("an unbound dynamic dimension is refused naming it and the flag that binds it") {
  auto g = dfc::onnx::importOnnxBytes(serialize(dynamicImageModel()), ".", "dyn.onnx");
  REQUIRE_FALSE(g);
  CHECK(g.error().message() ==
        "dyn.onnx: input 'x' dimension 2 ('H') of Nx3xHxW is dynamic: bind it with --input-shape x=Nx3xHxW, every "
        "dimension a number");

  dfc::onnx::ImportOptions io;
  io.inputShapes["x"] = {1, 4, 8, 8};
  auto wrong = dfc::onnx::importOnnxBytes(serialize(dynamicImageModel()), ".", "dyn.onnx", io);
  REQUIRE_FALSE(wrong);
  CHECK(wrong.error().message() == "dyn.onnx: --input-shape x=1x4x8x8 gives dimension 1 as 4, the model fixes it at 3");
  io.inputShapes["x"] = {2, 3, 8, 8};
  io.inputShapes["m"] = {1, 1, 8, 8};
  auto clash = dfc::onnx::importOnnxBytes(serialize(dynamicImageModel()), ".", "dyn.onnx", io);
  REQUIRE_FALSE(clash);
  CHECK(clash.error().message() ==
        "dyn.onnx: dimension 'N' is 2 by --input-shape x=2x3x8x8 and 1 by --input-shape m=1x1x8x8");

  CHECK_FALSE(dfc::onnx::parseInputShape("x=1x3xx4"));
  CHECK_FALSE(dfc::onnx::parseInputShape("=1x3"));
  CHECK_FALSE(dfc::onnx::parseInputShapes({"x=1x3", "x=1x4"}));
  auto parsed = dfc::onnx::parseInputShape("images=1x3x640x640");
  REQUIRE(parsed);
  CHECK(parsed->second == ir::Shape{1, 3, 640, 640});
}

TEST_CASE("dfc compile takes --input-shape for a dynamic ONNX model and refuses an unbound dimension with exit 2") {
  test::TempDir dir("shapes");
  test::writeModel(dynamicImageModel(), dir / "dyn.onnx");
  std::string out;
  CHECK(runDfc("compile -m " + dir / "dyn.onnx" + " --inference --db - -o0 --output-folder " + dir / "o", out) == 2);
  CHECK(out.find("input 'x' dimension 2 ('H')") != std::string::npos);
  out.clear();
  const int rc = runDfc("compile -m " + dir / "dyn.onnx" + " --inference --db - -o0 --input-shape x=1x3x12x16 " +
                            "--output-folder " + dir / "o",
                        out);
  INFO(out);
  CHECK(rc == 0);
  // measure-performance checks the shapes it is given against the PEF's.
  const std::string measure = "measure-performance -p " + dir / "o/dyn.pef" + " --steps 1 --warmup 0 --db - --summary " +
                              dir / "perf.json";
  out.clear();
  CHECK(runDfc(measure + " --input-shape x=1x3x12x16", out) == 0);
  out.clear();
  CHECK(runDfc(measure + " --input-shape x=1x3x64x64", out) == 2);
  CHECK(out.find("the PEF was compiled for x=1x3x12x16 (compile with --input-shape x=1x3x64x64") != std::string::npos);
  out.clear();
  CHECK(runDfc("compile -m lenet --inference --db - --input-shape x=1x3 --output-folder " + dir / "l", out) == 2);
  CHECK(out.find("--input-shape applies to .onnx models") != std::string::npos);
}

TEST_CASE("a graph whose nodes are out of topological order is sorted and runs as written") {
  // y = Relu(x + 1) * 2, the nodes written last to first.
  auto m = test::makeModel(13);
  addTensorValue(m.mutable_graph()->add_input(), "x", kFloat, {2, 3});
  addTensorValue(m.mutable_graph()->add_output(), "y", kFloat, {2, 3});
  test::addFloatInitializer(m, "one", {1}, {1});
  test::addFloatInitializer(m, "two", {1}, {2});
  addNode(m, "Mul", "mul", {"r", "two"}, {"y"});
  addNode(m, "Relu", "relu", {"a"}, {"r"});
  addNode(m, "Add", "add", {"x", "one"}, {"a"});
  ir::Tensor x = ramp({2, 3}, 0.5f);
  auto out = importAndRun(m, {x});
  INFO((out ? "" : out.error().message()));
  REQUIRE(out);
  for (int64_t i = 0; i < 6; ++i) CHECK(out->front().data<float>()[i] == Approx(2 * std::max(0.0f, x.data<float>()[i] + 1)));

  // A cycle is still refused, by the checker, naming the model.
  auto c = test::makeModel(13);
  addTensorValue(c.mutable_graph()->add_input(), "x", kFloat, {2});
  addTensorValue(c.mutable_graph()->add_output(), "y", kFloat, {2});
  addNode(c, "Add", "a", {"x", "b"}, {"y"});
  addNode(c, "Relu", "r", {"y"}, {"b"});
  auto cyclic = dfc::onnx::importOnnxBytes(serialize(c), ".", "cycle.onnx");
  REQUIRE_FALSE(cyclic);
  CHECK(cyclic.error().message().rfind("cycle.onnx: ONNX checker:", 0) == 0);
}

TEST_CASE("an empty tensor as Resize's roi and as ReduceSum's axes imports as the operand left out") {
  // Opset 13 Resize as exporters write it: roi an empty initializer, scales 2x.
  auto m = test::makeModel(13);
  addTensorValue(m.mutable_graph()->add_input(), "x", kFloat, {1, 1, 2, 3});
  addTensorValue(m.mutable_graph()->add_output(), "y", kFloat, {1, 1, 4, 6});
  addTensorValue(m.mutable_graph()->add_output(), "s", kFloat, {1, 1, 1, 1});
  test::addFloatInitializer(m, "roi", {0}, {});
  test::addFloatInitializer(m, "scales", {4}, {1, 1, 2, 2});
  auto* r = addNode(m, "Resize", "/up/Resize", {"x", "roi", "scales"}, {"y"});
  auto* mode = r->add_attribute();
  mode->set_name("mode");
  mode->set_type(::onnx::AttributeProto::STRING);
  mode->set_s("nearest");
  auto* axes = m.mutable_graph()->add_initializer();  // empty axes: every axis
  axes->set_name("axes");
  axes->set_data_type(::onnx::TensorProto::INT64);
  axes->add_dims(0);
  addNode(m, "ReduceSum", "sum", {"x", "axes"}, {"s"});
  ir::Tensor x(ir::TensorType{ir::DType::F32, {1, 1, 2, 3}});
  for (int64_t i = 0; i < 6; ++i) x.data<float>()[i] = static_cast<float>(i);
  auto out = importAndRun(m, {x});
  INFO((out ? "" : out.error().message()));
  REQUIRE(out);
  REQUIRE((*out)[0].shape() == ir::Shape{1, 1, 4, 6});
  for (int64_t row = 0; row < 4; ++row)  // half_pixel, round_prefer_floor: source index = destination / 2
    for (int64_t col = 0; col < 6; ++col)
      CHECK((*out)[0].data<float>()[row * 6 + col] == static_cast<float>((row / 2) * 3 + col / 2));
  CHECK((*out)[1].data<float>()[0] == 15.0f);

  // An empty graph output is still refused, by name.
  auto e = test::makeModel(13);
  addTensorValue(e.mutable_graph()->add_input(), "x", kFloat, {2});
  addTensorValue(e.mutable_graph()->add_output(), "y", kFloat, {0});
  auto* z = e.mutable_graph()->add_initializer();
  z->set_name("z");
  z->set_data_type(::onnx::TensorProto::FLOAT);
  z->add_dims(0);
  addNode(e, "Identity", "id", {"z"}, {"y"});
  auto g = dfc::onnx::importOnnxBytes(serialize(e), ".", "empty.onnx");
  REQUIRE_FALSE(g);
  CHECK(g.error().message() == "empty.onnx: graph output 'y' is empty (f32[0]; empty outputs are not supported)");
}

namespace {

::onnx::GraphProto* graphAttr(::onnx::NodeProto* n, const std::string& name) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::GRAPH);
  a->mutable_g()->set_name(name);
  return a->mutable_g();
}

::onnx::NodeProto* bodyNode(::onnx::GraphProto* g, const std::string& op, const std::vector<std::string>& in,
                            const std::vector<std::string>& out) {
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(g->name() + "_" + op + "_" + std::to_string(g->node_size()));
  for (const auto& i : in) n->add_input(i);
  for (const auto& o : out) n->add_output(o);
  return n;
}

// y = If(cond) then Relu(x) * 2 else -x, x [2, 3]; `cond` written by `makeCond`.
::onnx::ModelProto ifModel(const std::function<void(::onnx::ModelProto&)>& makeCond, ir::Shape elseShape = {2, 3}) {
  auto m = test::makeModel(13);
  addTensorValue(m.mutable_graph()->add_input(), "x", kFloat, {2, 3});
  addTensorValue(m.mutable_graph()->add_output(), "y", kFloat, {2, 3});
  test::addFloatInitializer(m, "two", {1}, {2});
  makeCond(m);
  auto* n = addNode(m, "If", "/head/If", {"cond"}, {"y"});
  auto* thenG = graphAttr(n, "then_branch");
  bodyNode(thenG, "Relu", {"x"}, {"r"});
  bodyNode(thenG, "Mul", {"r", "two"}, {"t"});
  addTensorValue(thenG->add_output(), "t", kFloat, {2, 3});
  auto* elseG = graphAttr(n, "else_branch");
  if (elseShape == ir::Shape{2, 3}) {
    bodyNode(elseG, "Neg", {"x"}, {"e"});
  } else {
    bodyNode(elseG, "ReduceSum", {"x"}, {"e"});
    intAttr(elseG->mutable_node(0), "keepdims", 0);
  }
  addTensorValue(elseG->add_output(), "e", kFloat, elseShape);
  return m;
}

float thenValue(float x) { return 2 * std::max(0.0f, x); }

}  // namespace

TEST_CASE("an If on a condition of shapes folds to its branch, a data-dependent If runs both and picks with Where") {
  // cond = shape(x)[1] > 2: constant once shapes are known; only then_branch is imported.
  auto folded = ifModel([](::onnx::ModelProto& m) {
    addNode(m, "Shape", "shape", {"x"}, {"s"});
    auto* idx = m.mutable_graph()->add_initializer();
    idx->set_name("one");
    idx->set_data_type(::onnx::TensorProto::INT64);
    idx->add_int64_data(1);
    auto* lim = m.mutable_graph()->add_initializer();
    lim->set_name("lim");
    lim->set_data_type(::onnx::TensorProto::INT64);
    lim->add_int64_data(2);
    addNode(m, "Gather", "g", {"s", "one"}, {"d"});
    addNode(m, "Greater", "gt", {"d", "lim"}, {"cond"});
  });
  auto g = dfc::onnx::importOnnxBytes(serialize(folded), ".", "if.onnx");
  REQUIRE(g);
  for (const auto& n : g->nodes) CHECK(n.op != ir::OpKind::Where);
  ir::Tensor x = ramp({2, 3}, 0.5f);
  auto out = importAndRun(folded, {x});
  REQUIRE(out);
  for (int64_t i = 0; i < 6; ++i) CHECK(out->front().data<float>()[i] == Approx(thenValue(x.data<float>()[i])));

  // cond = sum(x) > 0, known at run time only.
  auto dynamic = ifModel([](::onnx::ModelProto& m) {
    test::addFloatInitializer(m, "zero", {}, {0});
    addNode(m, "ReduceSum", "sum", {"x"}, {"total"});
    intAttr(m.mutable_graph()->mutable_node(0), "keepdims", 0);
    addNode(m, "Greater", "gt", {"total", "zero"}, {"cond"});
  });
  for (float sign : {1.0f, -1.0f}) {
    ir::Tensor v(ir::TensorType{ir::DType::F32, {2, 3}});
    for (int64_t i = 0; i < 6; ++i) v.data<float>()[i] = sign * (static_cast<float>(i) - 1.5f);
    auto r = importAndRun(dynamic, {v});
    INFO((r ? "" : r.error().message()));
    REQUIRE(r);
    for (int64_t i = 0; i < 6; ++i) {
      const float xi = v.data<float>()[i];
      CHECK(r->front().data<float>()[i] == Approx(sign > 0 ? thenValue(xi) : -xi));
    }
  }

  // Branches whose outputs differ in shape cannot be selected by Where.
  auto mismatched = ifModel([](::onnx::ModelProto& m) {
    test::addFloatInitializer(m, "zero", {}, {0});
    addNode(m, "ReduceMax", "max", {"x"}, {"top"});
    intAttr(m.mutable_graph()->mutable_node(0), "keepdims", 0);
    addNode(m, "Greater", "gt", {"top", "zero"}, {"cond"});
  }, {});
  auto refused = dfc::onnx::importOnnxBytes(serialize(mismatched), ".", "if.onnx");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message() ==
        "if.onnx: node '/head/If' (If, opset 13): the condition is computed at run time, so both branches run and Where "
        "picks each output; output 0 is f32[2,3] in then_branch and f32[] in else_branch (they must agree)");
}

TEST_CASE("a Loop of a constant trip count unrolls, its scan output stacked") {
  // for i in 0..2: acc = acc + x * i; scan out acc.
  auto m = test::makeModel(13);
  addTensorValue(m.mutable_graph()->add_input(), "x", kFloat, {3});
  addTensorValue(m.mutable_graph()->add_output(), "acc_final", kFloat, {3});
  addTensorValue(m.mutable_graph()->add_output(), "accs", kFloat, {3, 3});
  auto* trips = m.mutable_graph()->add_initializer();
  trips->set_name("M");
  trips->set_data_type(::onnx::TensorProto::INT64);
  trips->add_int64_data(3);
  test::addFloatInitializer(m, "acc0", {3}, {1, 1, 1});
  auto* loop = addNode(m, "Loop", "/body/Loop", {"M", "", "acc0"}, {"acc_final", "accs"});
  auto* body = graphAttr(loop, "body");
  addTensorValue(body->add_input(), "i", ::onnx::TensorProto::INT64, {});
  addTensorValue(body->add_input(), "c", ::onnx::TensorProto::BOOL, {});
  addTensorValue(body->add_input(), "acc", kFloat, {3});
  auto* cast = bodyNode(body, "Cast", {"i"}, {"fi"});
  intAttr(cast, "to", kFloat);
  bodyNode(body, "Mul", {"x", "fi"}, {"step"});
  bodyNode(body, "Add", {"acc", "step"}, {"acc_out"});
  bodyNode(body, "Identity", {"c"}, {"c_out"});
  bodyNode(body, "Identity", {"acc_out"}, {"scan"});
  addTensorValue(body->add_output(), "c_out", ::onnx::TensorProto::BOOL, {});
  addTensorValue(body->add_output(), "acc_out", kFloat, {3});
  addTensorValue(body->add_output(), "scan", kFloat, {3});
  ir::Tensor x(ir::TensorType{ir::DType::F32, {3}});
  for (int64_t i = 0; i < 3; ++i) x.data<float>()[i] = static_cast<float>(i + 1);
  auto out = importAndRun(m, {x});
  INFO((out ? "" : out.error().message()));
  REQUIRE(out);
  REQUIRE((*out)[1].shape() == ir::Shape{3, 3});
  for (int64_t j = 0; j < 3; ++j) {
    const float xj = static_cast<float>(j + 1);
    CHECK((*out)[0].data<float>()[j] == Approx(1 + 3 * xj));  // 1 + x (0 + 1 + 2)
    for (int64_t it = 0; it < 3; ++it)
      CHECK((*out)[1].data<float>()[it * 3 + j] == Approx(1 + xj * static_cast<float>(it * (it + 1) / 2)));
  }
}

TEST_CASE("a float16 model is computed in f32 and rounded to float16 where its values have that type") {
  CHECK(support::floatToHalf(1.0f) == 0x3C00);
  CHECK(support::floatToHalf(65504.0f) == 0x7BFF);
  CHECK(support::floatToHalf(65520.0f) == 0x7C00);  // rounds past the largest half: inf
  CHECK(support::floatToHalf(0.1f) == 0x2E66);
  CHECK(support::floatToHalf(std::ldexp(1.0f, -24)) == 0x0001);
  CHECK(support::halfToFloat(0x0001) == std::ldexp(1.0f, -24));
  CHECK(support::halfToFloat(0xC000) == -2.0f);

  // y = (x + c) * x, x and c float16: x + c is rounded before the product.
  constexpr int kHalf = ::onnx::TensorProto::FLOAT16;
  auto m = test::makeModel(13);
  addTensorValue(m.mutable_graph()->add_input(), "x", kHalf, {3});
  addTensorValue(m.mutable_graph()->add_output(), "y", kHalf, {3});
  auto* c = m.mutable_graph()->add_initializer();
  c->set_name("c");
  c->set_data_type(kHalf);
  c->add_dims(3);
  for (float v : {0.1f, 1000.0f, -3.0f}) c->add_int32_data(support::floatToHalf(v));
  addNode(m, "Add", "add", {"x", "c"}, {"s"});
  addNode(m, "Mul", "mul", {"s", "x"}, {"y"});
  ir::Tensor x(ir::TensorType{ir::DType::F32, {3}});
  const float xs[3] = {0.3f, 1.0f / 3.0f, 7.0f};
  for (int i = 0; i < 3; ++i) x.data<float>()[i] = support::roundToHalf(xs[i]);
  auto out = importAndRun(m, {x});
  INFO((out ? "" : out.error().message()));
  REQUIRE(out);
  const float cs[3] = {0.1f, 1000.0f, -3.0f};
  for (int i = 0; i < 3; ++i) {
    const float xi = x.data<float>()[i];
    const float sum = support::roundToHalf(xi + support::roundToHalf(cs[i]));
    CHECK(out->front().data<float>()[i] == support::roundToHalf(sum * xi));
  }
}

TEST_CASE("uint8 and int8 values are computed as int64 and wrap into their type's range where a node leaves them") {
  auto m = test::makeModel(14);  // Add takes uint8 from version 14
  addTensorValue(m.mutable_graph()->add_input(), "x", ::onnx::TensorProto::UINT8, {3});
  addTensorValue(m.mutable_graph()->add_output(), "y", ::onnx::TensorProto::UINT8, {3});
  addTensorValue(m.mutable_graph()->add_output(), "z", ::onnx::TensorProto::INT8, {3});
  auto* c = m.mutable_graph()->add_initializer();
  c->set_name("c");
  c->set_data_type(::onnx::TensorProto::UINT8);
  c->add_dims(3);
  c->set_raw_data(std::string("\x64\x64\xff", 3));  // 100, 100, 255
  addNode(m, "Add", "add", {"x", "c"}, {"y"});
  auto* cast = addNode(m, "Cast", "cast", {"y"}, {"z"});
  intAttr(cast, "to", ::onnx::TensorProto::INT8);
  ir::Tensor x(ir::TensorType{ir::DType::I64, {3}});
  const int64_t xs[3] = {200, 27, 1};
  for (int i = 0; i < 3; ++i) x.data<int64_t>()[i] = xs[i];
  auto out = importAndRun(m, {x});
  INFO((out ? "" : out.error().message()));
  REQUIRE(out);
  const int64_t y[3] = {44, 127, 0}, z[3] = {44, 127, 0};  // 300 -> 44, 127, 256 -> 0
  for (int i = 0; i < 3; ++i) {
    CHECK((*out)[0].data<int64_t>()[i] == y[i]);
    CHECK((*out)[1].data<int64_t>()[i] == z[i]);
  }
  x.data<int64_t>()[1] = 100;  // 200 as uint8, -56 as int8
  auto again = importAndRun(m, {x});
  REQUIRE(again);
  CHECK((*again)[0].data<int64_t>()[1] == 200);
  CHECK((*again)[1].data<int64_t>()[1] == -56);
}

namespace {

void byteInitializer(::onnx::ModelProto& m, const std::string& name, int type, const std::vector<int64_t>& dims,
                     const std::vector<int>& values) {
  auto* t = m.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(type);
  for (int64_t d : dims) t->add_dims(d);
  std::string raw;
  for (int v : values) raw.push_back(static_cast<char>(v));
  t->set_raw_data(raw);
}

// A quantized 2x2 conv over a [1,1,3,3] image, in QDQ form (Quantize/Dequantize
// around a float Conv) or QLinear form (QLinearConv). Scales are powers of two,
// so both forms compute the same exact values.
::onnx::ModelProto quantizedConv(bool qlinear) {
  auto m = test::makeModel(13);
  addTensorValue(m.mutable_graph()->add_input(), "x", kFloat, {1, 1, 3, 3});
  addTensorValue(m.mutable_graph()->add_output(), "y", kFloat, {1, 1, 2, 2});
  test::addFloatInitializer(m, "sx", {}, {0.5f});
  test::addFloatInitializer(m, "sw", {}, {0.25f});
  test::addFloatInitializer(m, "sy", {}, {0.5f});
  byteInitializer(m, "zx", ::onnx::TensorProto::UINT8, {}, {10});
  byteInitializer(m, "zw", ::onnx::TensorProto::INT8, {}, {0});
  byteInitializer(m, "zy", ::onnx::TensorProto::UINT8, {}, {128});
  byteInitializer(m, "wq", ::onnx::TensorProto::INT8, {1, 1, 2, 2}, {1, -2, 3, -1});
  addNode(m, "QuantizeLinear", "qx", {"x", "sx", "zx"}, {"xq"});
  if (qlinear) {
    addNode(m, "QLinearConv", "conv", {"xq", "sx", "zx", "wq", "sw", "zw", "sy", "zy"}, {"yq"});
  } else {
    addNode(m, "DequantizeLinear", "dqx", {"xq", "sx", "zx"}, {"xd"});
    addNode(m, "DequantizeLinear", "dqw", {"wq", "sw", "zw"}, {"wd"});
    addNode(m, "Conv", "conv", {"xd", "wd"}, {"c"});
    addNode(m, "QuantizeLinear", "qy", {"c", "sy", "zy"}, {"yq"});
  }
  addNode(m, "DequantizeLinear", "dqy", {"yq", "sy", "zy"}, {"y"});
  return m;
}

}  // namespace

TEST_CASE("a quantized conv in QDQ and in QLinear form matches hand-computed integer arithmetic") {
  const float xs[9] = {0.3f, -1.2f, 2.6f, 40.0f, -7.1f, 0.76f, 1.25f, 3.9f, -0.4f};
  ir::Tensor x(ir::TensorType{ir::DType::F32, {1, 1, 3, 3}});
  for (int i = 0; i < 9; ++i) x.data<float>()[i] = xs[i];
  int qx[9];
  for (int i = 0; i < 9; ++i) qx[i] = std::clamp(static_cast<int>(std::nearbyint(xs[i] / 0.5f)) + 10, 0, 255) - 10;
  const int w[4] = {1, -2, 3, -1};
  float want[4];
  for (int r = 0; r < 2; ++r)
    for (int col = 0; col < 2; ++col) {
      const int acc = qx[r * 3 + col] * w[0] + qx[r * 3 + col + 1] * w[1] + qx[(r + 1) * 3 + col] * w[2] +
                      qx[(r + 1) * 3 + col + 1] * w[3];
      const int yq = std::clamp(static_cast<int>(std::nearbyint(acc * 0.5 * 0.25 / 0.5)) + 128, 0, 255);
      want[r * 2 + col] = static_cast<float>(yq - 128) * 0.5f;
    }
  for (bool qlinear : {false, true}) {
    INFO((qlinear ? "QLinearConv" : "QDQ"));
    auto out = importAndRun(quantizedConv(qlinear), {x});
    INFO((out ? "" : out.error().message()));
    REQUIRE(out);
    for (int i = 0; i < 4; ++i) CHECK(out->front().data<float>()[i] == want[i]);
  }
}

TEST_CASE("CumSum sums along its axis, exclusive and reversed as asked") {
  for (int variant = 0; variant < 4; ++variant) {
    const bool exclusive = variant & 1, reverse = variant & 2;
    auto m = test::makeModel(14);
    addTensorValue(m.mutable_graph()->add_input(), "x", kFloat, {2, 3});
    addTensorValue(m.mutable_graph()->add_output(), "y", kFloat, {2, 3});
    auto* axis = m.mutable_graph()->add_initializer();
    axis->set_name("axis");
    axis->set_data_type(::onnx::TensorProto::INT64);
    axis->add_int64_data(-1);
    auto* n = addNode(m, "CumSum", "cs", {"x", "axis"}, {"y"});
    intAttr(n, "exclusive", exclusive);
    intAttr(n, "reverse", reverse);
    ir::Tensor x(ir::TensorType{ir::DType::F32, {2, 3}});
    for (int i = 0; i < 6; ++i) x.data<float>()[i] = static_cast<float>(i + 1);  // rows 1 2 3, 4 5 6
    auto out = importAndRun(m, {x});
    INFO("exclusive " << exclusive << " reverse " << reverse << (out ? "" : out.error().message()));
    REQUIRE(out);
    for (int r = 0; r < 2; ++r)
      for (int j = 0; j < 3; ++j) {
        float want = 0;
        for (int k = 0; k < 3; ++k) {
          const bool in = reverse ? (exclusive ? k > j : k >= j) : (exclusive ? k < j : k <= j);
          if (in) want += x.data<float>()[r * 3 + k];
        }
        CHECK(out->front().data<float>()[r * 3 + j] == want);
      }
  }
}

TEST_CASE("a Scan unrolls over its scan axis, carrying its state") {
  // state s [2]; for each row x_t of x [3, 2]: s = s + x_t, emit s (forward) and x_t * 2 (stacked in reverse).
  auto m = test::makeModel(13);
  addTensorValue(m.mutable_graph()->add_input(), "x", kFloat, {3, 2});
  addTensorValue(m.mutable_graph()->add_output(), "s_final", kFloat, {2});
  addTensorValue(m.mutable_graph()->add_output(), "sums", kFloat, {3, 2});
  addTensorValue(m.mutable_graph()->add_output(), "doubled", kFloat, {3, 2});
  test::addFloatInitializer(m, "s0", {2}, {10, 20});
  test::addFloatInitializer(m, "two", {}, {2});
  auto* scan = addNode(m, "Scan", "/rnn/Scan", {"s0", "x"}, {"s_final", "sums", "doubled"});
  intAttr(scan, "num_scan_inputs", 1);
  auto* dirs = scan->add_attribute();
  dirs->set_name("scan_output_directions");
  dirs->set_type(::onnx::AttributeProto::INTS);
  dirs->add_ints(0);
  dirs->add_ints(1);
  auto* body = graphAttr(scan, "body");
  addTensorValue(body->add_input(), "s", kFloat, {2});
  addTensorValue(body->add_input(), "xt", kFloat, {2});
  bodyNode(body, "Add", {"s", "xt"}, {"s_next"});
  bodyNode(body, "Identity", {"s_next"}, {"emit"});
  bodyNode(body, "Mul", {"xt", "two"}, {"d"});
  addTensorValue(body->add_output(), "s_next", kFloat, {2});
  addTensorValue(body->add_output(), "emit", kFloat, {2});
  addTensorValue(body->add_output(), "d", kFloat, {2});
  ir::Tensor x(ir::TensorType{ir::DType::F32, {3, 2}});
  for (int i = 0; i < 6; ++i) x.data<float>()[i] = static_cast<float>(i + 1);  // rows (1,2) (3,4) (5,6)
  auto out = importAndRun(m, {x});
  INFO((out ? "" : out.error().message()));
  REQUIRE(out);
  CHECK((*out)[0].data<float>()[0] == 19.0f);
  CHECK((*out)[0].data<float>()[1] == 32.0f);
  const float sums[6] = {11, 22, 14, 26, 19, 32}, doubled[6] = {10, 12, 6, 8, 2, 4};
  for (int i = 0; i < 6; ++i) {
    CHECK((*out)[1].data<float>()[i] == sums[i]);
    CHECK((*out)[2].data<float>()[i] == doubled[i]);
  }
}

TEST_CASE("a Scan-8 scans each batch entry on its own, the sequence axis 1, directions per scan input") {
  // Opset 8: (sequence_lens absent, s0 [2, 1], x [2, 3, 1]); x read last to first
  // (directions 1): s = s + x_t, emit s. Batch 0: s0 10, x 1 2 3; batch 1: s0 20, x 4 5 6.
  auto m = test::makeModel(8);
  addTensorValue(m.mutable_graph()->add_input(), "s0", kFloat, {2, 1});
  addTensorValue(m.mutable_graph()->add_input(), "x", kFloat, {2, 3, 1});
  addTensorValue(m.mutable_graph()->add_output(), "s_final", kFloat, {2, 1});
  addTensorValue(m.mutable_graph()->add_output(), "sums", kFloat, {2, 3, 1});
  auto* scan = addNode(m, "Scan", "scan", {"", "s0", "x"}, {"s_final", "sums"});
  intAttr(scan, "num_scan_inputs", 1);
  auto* dirs = scan->add_attribute();
  dirs->set_name("directions");
  dirs->set_type(::onnx::AttributeProto::INTS);
  dirs->add_ints(1);
  auto* body = graphAttr(scan, "body");
  addTensorValue(body->add_input(), "s", kFloat, {1});
  addTensorValue(body->add_input(), "xt", kFloat, {1});
  bodyNode(body, "Add", {"s", "xt"}, {"s_next"});
  bodyNode(body, "Identity", {"s_next"}, {"emit"});
  addTensorValue(body->add_output(), "s_next", kFloat, {1});
  addTensorValue(body->add_output(), "emit", kFloat, {1});
  ir::Tensor s0(ir::TensorType{ir::DType::F32, {2, 1}}), x(ir::TensorType{ir::DType::F32, {2, 3, 1}});
  s0.data<float>()[0] = 10;
  s0.data<float>()[1] = 20;
  for (int i = 0; i < 6; ++i) x.data<float>()[i] = static_cast<float>(i + 1);
  auto out = importAndRun(m, {s0, x});
  INFO((out ? "" : out.error().message()));
  REQUIRE(out);
  REQUIRE((*out)[1].shape() == ir::Shape{2, 3, 1});
  CHECK((*out)[0].data<float>()[0] == 16.0f);
  CHECK((*out)[0].data<float>()[1] == 35.0f);
  const float sums[6] = {13, 15, 16, 26, 31, 35};  // 10+3, +2, +1; 20+6, +5, +4
  for (int i = 0; i < 6; ++i) CHECK((*out)[1].data<float>()[i] == sums[i]);
}

TEST_CASE("Einsum of three operands contracts two at a time") {
  auto m = test::makeModel(13);
  addTensorValue(m.mutable_graph()->add_input(), "a", kFloat, {2, 3});
  addTensorValue(m.mutable_graph()->add_output(), "y", kFloat, {2, 2});
  test::addFloatInitializer(m, "b", {3, 4}, {1, 0, 2, -1, 0, 1, 1, 3, -2, 1, 0, 1});
  test::addFloatInitializer(m, "c", {4, 2}, {1, 2, -1, 0, 0.5f, 1, 2, -3});
  auto* n = addNode(m, "Einsum", "e", {"a", "b", "c"}, {"y"});
  auto* eq = n->add_attribute();
  eq->set_name("equation");
  eq->set_type(::onnx::AttributeProto::STRING);
  eq->set_s("ij,jk,kl->il");
  ir::Tensor a = ramp({2, 3}, 0.5f);
  auto out = importAndRun(m, {a});
  INFO((out ? "" : out.error().message()));
  REQUIRE(out);
  const float b[12] = {1, 0, 2, -1, 0, 1, 1, 3, -2, 1, 0, 1}, cm[8] = {1, 2, -1, 0, 0.5f, 1, 2, -3};
  for (int i = 0; i < 2; ++i)
    for (int l = 0; l < 2; ++l) {
      float want = 0;
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 4; ++k) want += a.data<float>()[i * 3 + j] * b[j * 4 + k] * cm[k * 2 + l];
      CHECK(out->front().data<float>()[i * 2 + l] == Approx(want));
    }
}

TEST_CASE("a Hann window of a constant size and LRN over channels match their formulas") {
  auto m = test::makeModel(17);
  addTensorValue(m.mutable_graph()->add_input(), "x", kFloat, {1, 3, 1, 2});
  addTensorValue(m.mutable_graph()->add_output(), "w", kFloat, {4});
  addTensorValue(m.mutable_graph()->add_output(), "y", kFloat, {1, 3, 1, 2});
  auto* size = m.mutable_graph()->add_initializer();
  size->set_name("size");
  size->set_data_type(::onnx::TensorProto::INT64);
  size->add_int64_data(4);
  addNode(m, "HannWindow", "hann", {"size"}, {"w"});
  auto* lrn = addNode(m, "LRN", "lrn", {"x"}, {"y"});
  intAttr(lrn, "size", 3);
  auto* alpha = lrn->add_attribute();
  alpha->set_name("alpha");
  alpha->set_type(::onnx::AttributeProto::FLOAT);
  alpha->set_f(0.3f);
  ir::Tensor x(ir::TensorType{ir::DType::F32, {1, 3, 1, 2}});
  for (int i = 0; i < 6; ++i) x.data<float>()[i] = static_cast<float>(i + 1);  // channels (1,2) (3,4) (5,6)
  auto out = importAndRun(m, {x});
  INFO((out ? "" : out.error().message()));
  REQUIRE(out);
  const float hann[4] = {0, 0.5f, 1, 0.5f};  // periodic: 0.5 - 0.5 cos(2 pi n / 4)
  for (int i = 0; i < 4; ++i) CHECK((*out)[0].data<float>()[i] == Approx(hann[i]).margin(1e-6));
  for (int ch = 0; ch < 3; ++ch)
    for (int p = 0; p < 2; ++p) {
      float sq = 0;
      for (int k = std::max(0, ch - 1); k <= std::min(2, ch + 1); ++k) sq += x.data<float>()[k * 2 + p] * x.data<float>()[k * 2 + p];
      const float want = x.data<float>()[ch * 2 + p] / std::pow(1.0f + 0.3f / 3 * sq, 0.75f);
      CHECK((*out)[1].data<float>()[ch * 2 + p] == Approx(want));
    }
}

TEST_CASE("MaxPool gives the flat index of each window's first maximum") {
  auto m = test::makeModel(12);
  addTensorValue(m.mutable_graph()->add_input(), "x", kFloat, {1, 1, 3, 3});
  addTensorValue(m.mutable_graph()->add_output(), "y", kFloat, {1, 1, 2, 2});
  addTensorValue(m.mutable_graph()->add_output(), "i", ::onnx::TensorProto::INT64, {1, 1, 2, 2});
  auto* n = addNode(m, "MaxPool", "pool", {"x"}, {"y", "i"});
  auto* k = n->add_attribute();
  k->set_name("kernel_shape");
  k->set_type(::onnx::AttributeProto::INTS);
  k->add_ints(2);
  k->add_ints(2);
  ir::Tensor x(ir::TensorType{ir::DType::F32, {1, 1, 3, 3}});
  const float xs[9] = {1, 5, 2, 5, 0, 7, 3, 4, 7};  // windows: {1,5,5,0} {5,2,0,7} {5,0,3,4} {0,7,4,7}
  for (int i = 0; i < 9; ++i) x.data<float>()[i] = xs[i];
  auto out = importAndRun(m, {x});
  INFO((out ? "" : out.error().message()));
  REQUIRE(out);
  const float y[4] = {5, 7, 5, 7};
  const int64_t idx[4] = {1, 5, 3, 5};  // ties: the first in row-major order
  for (int o = 0; o < 4; ++o) {
    CHECK((*out)[0].data<float>()[o] == y[o]);
    CHECK((*out)[1].data<int64_t>()[o] == idx[o]);
  }
}

TEST_CASE("ReverseSequence reverses each batch entry's first steps") {
  auto m = test::makeModel(13);
  addTensorValue(m.mutable_graph()->add_input(), "x", kFloat, {3, 2});  // [time, batch]
  addTensorValue(m.mutable_graph()->add_output(), "y", kFloat, {3, 2});
  auto* lens = m.mutable_graph()->add_initializer();
  lens->set_name("lens");
  lens->set_data_type(::onnx::TensorProto::INT64);
  lens->add_dims(2);
  lens->add_int64_data(3);
  lens->add_int64_data(2);
  addNode(m, "ReverseSequence", "rev", {"x", "lens"}, {"y"});
  ir::Tensor x(ir::TensorType{ir::DType::F32, {3, 2}});
  for (int i = 0; i < 6; ++i) x.data<float>()[i] = static_cast<float>(i);  // column 0: 0 2 4, column 1: 1 3 5
  auto out = importAndRun(m, {x});
  INFO((out ? "" : out.error().message()));
  REQUIRE(out);
  const float want[6] = {4, 3, 2, 1, 0, 5};  // column 0 reversed whole, column 1 its first two
  for (int i = 0; i < 6; ++i) CHECK(out->front().data<float>()[i] == want[i]);
}
