// Sequences and optionals of tensors (issue 33), resolved at import into one IR
// value per element: models built here with the protobuf API, run, and checked
// against values worked by hand; the test data reader for SequenceProto and
// OptionalProto files and its refusals.
#include <onnx/onnx-data_pb.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "OnnxModelBuilder.h"
#include "driver/compile/Inference.h"
#include "onnx/OnnxImporter.h"
#include "onnx/TestData.h"

using namespace dfc;
using dfc::test::addNode;

namespace {

constexpr int kFloat = ::onnx::TensorProto::FLOAT;

void seqValue(::onnx::ValueInfoProto* v, const std::string& name, bool optional = false) {
  v->set_name(name);
  ::onnx::TypeProto* t = v->mutable_type();
  if (optional) t = t->mutable_optional_type()->mutable_elem_type();
  t->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(kFloat);
}

void optionalTensor(::onnx::ValueInfoProto* v, const std::string& name) {
  v->set_name(name);
  v->mutable_type()->mutable_optional_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(kFloat);
}

// A tensor of `rank` dimensions left unnamed (the checker wants a shape on graph values).
void anyTensor(::onnx::ValueInfoProto* v, const std::string& name, int rank, int elemType = kFloat) {
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elemType);
  auto* shape = t->mutable_shape();
  for (int d = 0; d < rank; ++d) shape->add_dim();
}

void intConst(::onnx::ModelProto& m, const std::string& name, int64_t v) {
  auto* t = m.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(::onnx::TensorProto::INT64);
  t->add_int64_data(v);
}

void intAttr(::onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(v);
}

ir::Tensor floats(ir::Shape shape, std::vector<float> v) {
  ir::Tensor t(ir::TensorType{ir::DType::F32, std::move(shape)});
  std::copy(v.begin(), v.end(), t.data<float>());
  return t;
}

std::vector<float> values(const ir::Tensor& t) { return {t.data<float>(), t.data<float>() + t.numElements()}; }

Expected<std::vector<ir::Tensor>> run(const ::onnx::ModelProto& m, const std::vector<ir::Tensor>& inputs,
                                      const std::map<std::string, dfc::onnx::ListInput>& lists) {
  std::string bytes;
  m.SerializeToString(&bytes);
  dfc::onnx::ImportOptions io;
  io.listInputs = lists;
  auto g = dfc::onnx::importOnnxBytes(bytes, ".", "seq.onnx", io);
  if (!g) return g.error();
  auto pef = driver::compileGraphForInference(std::move(*g));
  if (!pef) return pef.error();
  return driver::runInference(*pef, inputs);
}

// s2 = insert(s, t, 0); last = s2[-1]; n = len(s2); cat = concat(s2); s3 = erase(s2, 1).
::onnx::ModelProto editModel() {
  auto m = test::makeModel(17);
  auto* g = m.mutable_graph();
  seqValue(g->add_input(), "s");
  test::addTensorValue(g->add_input(), "t", kFloat, {2});
  intConst(m, "zero", 0);
  intConst(m, "minus_one", -1);
  intConst(m, "one", 1);
  addNode(m, "SequenceInsert", "insert", {"s", "t", "zero"}, {"s2"});
  addNode(m, "SequenceAt", "at", {"s2", "minus_one"}, {"last"});
  addNode(m, "SequenceLength", "length", {"s2"}, {"n"});
  addNode(m, "ConcatFromSequence", "concat", {"s2"}, {"cat"});
  intAttr(g->mutable_node(3), "axis", 0);
  addNode(m, "SequenceErase", "erase", {"s2", "one"}, {"s3"});
  seqValue(g->add_output(), "s3");
  anyTensor(g->add_output(), "last", 1);
  anyTensor(g->add_output(), "n", 0, ::onnx::TensorProto::INT64);
  anyTensor(g->add_output(), "cat", 1);
  return m;
}

}  // namespace

TEST_CASE("a sequence input is edited at constant positions and its outputs are its tensors in order") {
  const auto a = floats({2}, {1, 2}), b = floats({3}, {3, 4, 5}), t = floats({2}, {9, 8});
  auto y = run(editModel(), {a, b, t}, {{"s", {true, {{2}, {3}}}}});
  REQUIRE(y);
  REQUIRE(y->size() == 5);  // s3's two tensors, last, n, cat
  CHECK(values((*y)[0]) == std::vector<float>{9, 8});
  CHECK(values((*y)[1]) == std::vector<float>{3, 4, 5});
  CHECK(values((*y)[2]) == std::vector<float>{3, 4, 5});
  CHECK((*y)[3].data<int64_t>()[0] == 3);
  CHECK(values((*y)[4]) == std::vector<float>{9, 8, 1, 2, 3, 4, 5});
}

TEST_CASE("a sequence input without its elements' shapes and a position past its end are refused by name") {
  auto y = run(editModel(), {}, {});
  REQUIRE_FALSE(y);
  CHECK_THAT(y.error().message(), Catch::Contains("input 's' is a sequence (seq(tensor(float)))") &&
                                      Catch::Contains("shapes are not given"));
  auto m = editModel();
  m.mutable_graph()->mutable_initializer(1)->set_int64_data(0, -4);  // SequenceAt(s2, -4): s2 holds 3
  y = run(m, {floats({2}, {1, 2}), floats({3}, {3, 4, 5}), floats({2}, {9, 8})}, {{"s", {true, {{2}, {3}}}}});
  REQUIRE_FALSE(y);
  CHECK_THAT(y.error().message(),
             Catch::Contains("node 'at' (SequenceAt") && Catch::Contains("position -4 is outside a sequence of 3"));
}

// parts = split(x, axis 0, no keepdims); y = map(parts, p * w); stacked = concat(y, axis 1, new axis).
TEST_CASE("SplitToSequence, SequenceMap over a sequence and a tensor, and ConcatFromSequence on a new axis") {
  auto m = test::makeModel(17);
  auto* g = m.mutable_graph();
  test::addTensorValue(g->add_input(), "x", kFloat, {3, 2});
  test::addTensorValue(g->add_input(), "w", kFloat, {2});
  auto* split = addNode(m, "SplitToSequence", "split", {"x"}, {"parts"});
  intAttr(split, "keepdims", 0);
  auto* map = addNode(m, "SequenceMap", "map", {"parts", "w"}, {"y"});
  auto* body = map->add_attribute();
  body->set_name("body");
  body->set_type(::onnx::AttributeProto::GRAPH);
  auto* bg = body->mutable_g();
  bg->set_name("body");
  anyTensor(bg->add_input(), "p", 1);
  anyTensor(bg->add_input(), "k", 1);
  anyTensor(bg->add_output(), "q", 1);
  auto* mul = bg->add_node();
  mul->set_op_type("Mul");
  mul->add_input("p");
  mul->add_input("k");
  mul->add_output("q");
  auto* cat = addNode(m, "ConcatFromSequence", "stack", {"y"}, {"stacked"});
  intAttr(cat, "axis", 1);
  intAttr(cat, "new_axis", 1);
  seqValue(g->add_output(), "y");
  anyTensor(g->add_output(), "stacked", 2);
  auto y = run(m, {floats({3, 2}, {1, 2, 3, 4, 5, 6}), floats({2}, {10, 100})}, {});
  REQUIRE(y);
  REQUIRE(y->size() == 4);
  CHECK(values((*y)[0]) == std::vector<float>{10, 200});
  CHECK(values((*y)[2]) == std::vector<float>{50, 600});
  CHECK((*y)[3].shape() == ir::Shape{2, 3});
  CHECK(values((*y)[3]) == std::vector<float>{10, 30, 50, 200, 400, 600});
}

TEST_CASE("an optional input: OptionalHasElement is a constant and OptionalGetElement its tensor") {
  auto m = test::makeModel(15);
  auto* g = m.mutable_graph();
  optionalTensor(g->add_input(), "o");
  addNode(m, "OptionalHasElement", "has", {"o"}, {"has"});
  anyTensor(g->add_output(), "has", 0, ::onnx::TensorProto::BOOL);
  SECTION("present: true, and its tensor") {
    addNode(m, "OptionalGetElement", "get", {"o"}, {"v"});
    anyTensor(g->add_output(), "v", 1);
    auto y = run(m, {floats({2}, {1.5f, 2.5f})}, {{"o", {true, {{2}}}}});
    REQUIRE(y);
    REQUIRE(y->size() == 2);
    CHECK((*y)[0].data<bool>()[0]);
    CHECK(values((*y)[1]) == std::vector<float>{1.5f, 2.5f});
  }
  SECTION("empty: false, and getting its element is refused") {
    auto y = run(m, {}, {{"o", {false, {}}}});
    REQUIRE(y);
    CHECK_FALSE((*y)[0].data<bool>()[0]);
    addNode(m, "OptionalGetElement", "get", {"o"}, {"v"});
    anyTensor(g->add_output(), "v", 1);
    y = run(m, {}, {{"o", {false, {}}}});
    REQUIRE_FALSE(y);
    CHECK_THAT(y.error().message(),
               Catch::Contains("node 'get' (OptionalGetElement") && Catch::Contains("the optional is empty"));
  }
}

// s = If(c, then: [then_x], else: [else_x] * elseCount) with then_x = [1], else_x = [2].
::onnx::ModelProto ifOfSequences(int elseCount) {
  auto m = test::makeModel(17);
  auto* g = m.mutable_graph();
  test::addTensorValue(g->add_input(), "c", ::onnx::TensorProto::BOOL, {});
  auto* node = addNode(m, "If", "choose", {"c"}, {"s"});
  for (const std::string branch : {"then", "else"}) {
    auto* a = node->add_attribute();
    a->set_name(branch + "_branch");
    a->set_type(::onnx::AttributeProto::GRAPH);
    auto* b = a->mutable_g();
    b->set_name(branch);
    auto* k = b->add_node();
    k->set_op_type("Constant");
    k->add_output(branch + "_x");
    auto* v = k->add_attribute();
    v->set_name("value");
    v->set_type(::onnx::AttributeProto::TENSOR);
    v->mutable_t()->set_data_type(kFloat);
    v->mutable_t()->add_dims(1);
    v->mutable_t()->add_float_data(branch == "then" ? 1 : 2);
    auto* sc = b->add_node();
    sc->set_op_type("SequenceConstruct");
    for (int i = 0; i < (branch == "then" ? 1 : elseCount); ++i) sc->add_input(branch + "_x");
    sc->add_output(branch + "_s");
    seqValue(b->add_output(), branch + "_s");
  }
  seqValue(g->add_output(), "s");
  return m;
}

ir::Tensor truth(bool v) {
  ir::Tensor t(ir::TensorType{ir::DType::Bool, {}});
  t.data<bool>()[0] = v;
  return t;
}

// Both branches run and Where picks each element, as for tensors.
TEST_CASE("an If on a runtime condition picks each element of its branches' sequences, of equal lengths only") {
  for (bool cond : {true, false}) {
    auto y = run(ifOfSequences(1), {truth(cond)}, {});
    REQUIRE(y);
    REQUIRE(y->size() == 1);
    CHECK(values((*y)[0]) == std::vector<float>{cond ? 1.0f : 2.0f});
  }
  auto y = run(ifOfSequences(2), {truth(true)}, {});
  REQUIRE_FALSE(y);
  CHECK_THAT(
      y.error().message(),
      Catch::Contains("node 'choose' (If") &&
          Catch::Contains("output 0 is a sequence or optional of 1 elements in then_branch and 2 in else_branch"));
}

TEST_CASE("the test data reader takes SequenceProto and OptionalProto files and refuses malformed ones") {
  ::onnx::TensorProto t;
  t.set_data_type(kFloat);
  t.add_dims(2);
  t.add_float_data(1);
  t.add_float_data(2);
  ::onnx::SequenceProto s;
  s.set_elem_type(::onnx::SequenceProto::TENSOR);
  *s.add_tensor_values() = t;
  *s.add_tensor_values() = t;
  auto v = dfc::onnx::parseTestValue(s.SerializeAsString(), dfc::onnx::ValueForm::Sequence, "s.pb", ".");
  REQUIRE(v);
  CHECK(v->items.size() == 2);
  CHECK(values(v->items[1]) == std::vector<float>{1, 2});
  ::onnx::OptionalProto empty;
  empty.set_elem_type(::onnx::OptionalProto::TENSOR);
  v = dfc::onnx::parseTestValue(empty.SerializeAsString(), dfc::onnx::ValueForm::Optional, "o.pb", ".");
  REQUIRE(v);
  CHECK_FALSE(v->present);
  CHECK(v->items.empty());
  s.set_elem_type(::onnx::SequenceProto::MAP);  // says maps, holds tensors
  v = dfc::onnx::parseTestValue(s.SerializeAsString(), dfc::onnx::ValueForm::Sequence, "s.pb", ".");
  REQUIRE_FALSE(v);
  CHECK(v.error().message() == "s.pb: sequence elem_type 4 is not TENSOR");
  v = dfc::onnx::parseTestValue(std::string("\xff\xff\xff", 3), dfc::onnx::ValueForm::Optional, "o.pb", ".");
  REQUIRE_FALSE(v);
  CHECK(v.error().message() == "o.pb: not a serialized onnx.OptionalProto");
}
