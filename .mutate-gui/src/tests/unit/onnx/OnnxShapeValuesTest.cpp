// Inputs whose value decides a shape through computation, and Det: the
// importer's contracts for values a static compiler must know.
//   - A known input of at most 64 elements whose value reaches a shaping
//     operand through other nodes is compiled in as a constant (so the chain
//     folds); a larger one stays an input and the shaping op refuses it.
//   - Det is the sum over permutations up to order 4, refused beyond.
#include <catch2/catch.hpp>

#include "OnnxModelBuilder.h"
#include "driver/compile/Inference.h"
#include "onnx/OnnxImporter.h"

using namespace dfc;

namespace {

using Proto = ::onnx::TensorProto;

Expected<ir::Graph> importWith(const ::onnx::ModelProto& m, const dfc::onnx::ImportOptions& options = {}) {
  std::string bytes;
  m.SerializeToString(&bytes);
  return dfc::onnx::importOnnxBytes(bytes, ".", "m.onnx", options);
}

// A float output of `dims`, the first one symbolic when `symbol` is given.
void addFloatOutput(::onnx::ModelProto& m, const std::string& name, const std::vector<int64_t>& dims,
                    const std::string& symbol = "") {
  test::addTensorValue(m.mutable_graph()->add_output(), name, Proto::FLOAT, dims, symbol);
}

ir::Tensor f32(ir::Shape shape, std::vector<float> v) {
  ir::Tensor t(ir::TensorType{ir::DType::F32, std::move(shape)});
  for (size_t i = 0; i < v.size(); ++i) t.data<float>()[i] = v[i];
  return t;
}

// y = Range(0, Cast<float>(n) * 2 - 1, 1) * scale: n's value reaches Range's limit through Cast, Mul and Sub.
::onnx::ModelProto rangeOfComputedLimit(const std::vector<int64_t>& nShape) {
  auto m = test::makeModel(17);
  test::addTensorValue(m.mutable_graph()->add_input(), "n", Proto::INT64, nShape);
  test::addTensorValue(m.mutable_graph()->add_input(), "scale", Proto::FLOAT, {1});
  test::addFloatInitializer(m, "zero", {}, {0.0f});
  test::addFloatInitializer(m, "one", {}, {1.0f});
  test::addFloatInitializer(m, "two", {}, {2.0f});
  auto* cast = test::addNode(m, "Cast", "cast", {"n"}, {"nf"});
  auto* to = cast->add_attribute();
  to->set_name("to");
  to->set_type(::onnx::AttributeProto::INT);
  to->set_i(Proto::FLOAT);
  test::addNode(m, "Mul", "double", {"nf", "two"}, {"n2"});
  test::addNode(m, "Sub", "less_one", {"n2", "one"}, {"limit"});
  test::addNode(m, "Range", "range", {"zero", "limit", "one"}, {"r"});
  test::addNode(m, "Mul", "scaled", {"r", "scale"}, {"y"});
  addFloatOutput(m, "y", {1}, "length");
  return m;
}

ir::Tensor i64(ir::Shape shape, int64_t fill) {
  ir::Tensor t(ir::TensorType{ir::DType::I64, std::move(shape)});
  for (int64_t i = 0; i < t.numElements(); ++i) t.data<int64_t>()[i] = fill;
  return t;
}

}  // namespace

TEST_CASE("onnx: a small input whose value reaches Range's limit through Cast, Mul and Sub is compiled in", "[onnx]") {
  dfc::onnx::ImportOptions o;
  o.operandValues.emplace("n", i64({}, 3));
  o.operandValues.emplace("scale", f32({1}, {10.0f}));  // data only: stays an input
  auto g = importWith(rangeOfComputedLimit({}), o);
  REQUIRE(g);
  REQUIRE(g->inputs.size() == 1);
  CHECK(g->value(g->inputs[0]).name == "scale");
  auto pef = driver::compileGraphForInference(std::move(*g));
  REQUIRE(pef);
  auto out = driver::runInference(*pef, {f32({1}, {10.0f})});
  REQUIRE(out);
  REQUIRE((*out)[0].shape() == ir::Shape{5});  // Range(0, 3 * 2 - 1 = 5, 1)
  for (int64_t i = 0; i < 5; ++i) CHECK((*out)[0].data<float>()[i] == 10.0f * static_cast<float>(i));
}

TEST_CASE("onnx: a known input of 65 elements is data, so the Range it reaches refuses it", "[onnx]") {
  dfc::onnx::ImportOptions o;
  o.operandValues.emplace("n", i64({65}, 3));
  auto at64 = o;
  at64.operandValues["n"] = i64({64}, 3);
  // 64 elements are compiled in (then Range refuses a 64-element limit as not a scalar);
  // 65 stay an input, and Range says its limit is not a constant.
  auto big = importWith(rangeOfComputedLimit({65}), o);
  REQUIRE_FALSE(big);
  CHECK_THAT(big.error().message(), Catch::Contains("limit must be a constant"));
  auto small = importWith(rangeOfComputedLimit({64}), at64);
  REQUIRE_FALSE(small);
  CHECK_THAT(small.error().message(), !Catch::Contains("must be a constant"));
}

TEST_CASE("onnx: Det of 1x1, 2x2, 3x3 and 4x4 matrices and a batch, by hand", "[onnx]") {
  auto run = [](ir::Shape shape, std::vector<float> values) -> Expected<std::vector<ir::Tensor>> {
    auto m = test::makeModel(17);
    test::addTensorValue(m.mutable_graph()->add_input(), "x", Proto::FLOAT, shape);
    test::addNode(m, "Det", "det", {"x"}, {"y"});
    addFloatOutput(m, "y", std::vector<int64_t>(shape.begin(), shape.end() - 2));
    auto g = importWith(m);
    if (!g) return g.error();
    auto pef = driver::compileGraphForInference(std::move(*g));
    if (!pef) return pef.error();
    return driver::runInference(*pef, {f32(shape, std::move(values))});
  };
  auto one = run({1, 1}, {-7});
  REQUIRE(one);
  CHECK((*one)[0].data<float>()[0] == -7.0f);
  // A batch of two: [[1,2],[3,4]] -> -2; [[0,1],[1,0]] (a zero leading minor) -> -1.
  auto two = run({2, 2, 2}, {1, 2, 3, 4, 0, 1, 1, 0});
  REQUIRE(two);
  REQUIRE((*two)[0].shape() == ir::Shape{2});
  CHECK((*two)[0].data<float>()[0] == -2.0f);
  CHECK((*two)[0].data<float>()[1] == -1.0f);
  // 2(3*2 - 2*1) - 0 + 1(1*1 - 3*1) = 8 - 2 = 6.
  auto three = run({3, 3}, {2, 0, 1, 1, 3, 2, 1, 1, 2});
  REQUIRE(three);
  CHECK((*three)[0].data<float>()[0] == 6.0f);
  // Upper triangular: the product of the diagonal, 2 * 3 * 4 * 5 = 120; the odd swap of rows 0 and 1 negates it.
  auto four = run({4, 4}, {0, 3, 1, 1, 2, 1, 1, 1, 0, 0, 4, 1, 0, 0, 0, 5});
  REQUIRE(four);
  CHECK((*four)[0].data<float>()[0] == -120.0f);
  auto five = run({5, 5}, std::vector<float>(25, 1.0f));
  REQUIRE_FALSE(five);
  CHECK_THAT(five.error().message(), Catch::Contains("matrices of order 5"));
  auto oblong = run({2, 3}, std::vector<float>(6, 1.0f));
  REQUIRE_FALSE(oblong);
  CHECK_THAT(oblong.error().message(), Catch::Contains("square matrices"));
}
