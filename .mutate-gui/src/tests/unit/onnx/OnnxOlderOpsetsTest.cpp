// Older operator versions (opsets 7-10, onnx/OlderOpsets.h): every row of the
// table has a model here, built at the row's version and in opset 11's form;
// each imports, runs, and gives what the opset 11 model gives.
#include <catch2/catch.hpp>
#include <functional>
#include <map>

#include "OnnxModelBuilder.h"
#include "driver/compile/Inference.h"
#include "onnx/OlderOpsets.h"
#include "onnx/OnnxImporter.h"

using namespace dfc;
using dfc::test::addNode;

namespace {

using Proto = ::onnx::TensorProto;

struct Builder {
  ::onnx::ModelProto& m;
  ::onnx::NodeProto* node(const std::string& op, std::vector<std::string> in, std::vector<std::string> out) {
    return addNode(m, op, op + "_0", in, out);
  }
  void f32(const std::string& name, const std::vector<int64_t>& dims, const std::vector<float>& v) {
    test::addFloatInitializer(m, name, dims, v);
  }
  void i64(const std::string& name, const std::vector<int64_t>& dims, const std::vector<int64_t>& v) {
    auto* t = m.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(Proto::INT64);
    for (int64_t d : dims) t->add_dims(d);
    for (int64_t x : v) t->add_int64_data(x);
  }
};

void attr(::onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(v);
}
void attr(::onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}
void attrF(::onnx::NodeProto* n, const std::string& name, float v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::FLOAT);
  a->set_f(v);
}
void attrS(::onnx::NodeProto* n, const std::string& name, const std::string& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::STRING);
  a->set_s(v);
}

// One model per op: input x of xShape (values ramp + offset), outputs y0.. of
// the given element types and ranks; `add` writes the nodes in the form the
// opset defines.
struct Fixture {
  ir::Shape xShape;
  float offset = 0;
  std::vector<std::pair<int, int>> outputs;  // (elem type, rank)
  std::function<void(Builder&, int64_t opset)> add;
};

Fixture unaryAxis(const std::string& op, int outType, int rank) {
  return {{2, 3, 4}, 0, {{outType, rank}}, [op](Builder& b, int64_t) { attr(b.node(op, {"x"}, {"y0"}), "axis", 1); }};
}
Fixture reduce(const std::string& op) {
  return {{2, 3, 4}, 1.0f, {{Proto::FLOAT, 3}}, [op](Builder& b, int64_t) {
            auto* n = b.node(op, {"x"}, {"y0"});
            attr(n, "axes", std::vector<int64_t>{1});
            attr(n, "keepdims", 1);
          }};
}
Fixture pool(const std::string& op) {
  return {{1, 2, 5, 5}, 0, {{Proto::FLOAT, 4}}, [op](Builder& b, int64_t) {
            auto* n = b.node(op, {"x"}, {"y0"});
            attr(n, "kernel_shape", std::vector<int64_t>{2, 2});
            attr(n, "strides", std::vector<int64_t>{2, 2});
          }};
}
Fixture variadic(const std::string& op) {
  return {{2, 3, 4}, 0, {{Proto::FLOAT, 3}}, [op](Builder& b, int64_t) {
            b.f32("x2", {2, 3, 4}, std::vector<float>(24, 0.1f));
            b.node(op, {"x", "x2"}, {"y0"});
          }};
}
Fixture compare(const std::string& op) {
  return {{2, 3, 4}, 0, {{Proto::BOOL, 3}}, [op](Builder& b, int64_t) {
            b.f32("t", {4}, {-0.2f, 0.0f, 0.3f, 1.0f});
            b.node(op, {"x", "t"}, {"y0"});
          }};
}
Fixture constant() {
  return {{2, 3, 4}, 0, {{Proto::FLOAT, 3}}, [](Builder& b, int64_t) {
            auto* n = b.node("Constant", {}, {"k"});
            auto* a = n->add_attribute();
            a->set_name("value");
            a->set_type(::onnx::AttributeProto::TENSOR);
            a->mutable_t()->set_data_type(Proto::FLOAT);
            a->mutable_t()->add_dims(4);
            for (float v : {1.0f, 2.0f, 3.0f, 4.0f}) a->mutable_t()->add_float_data(v);
            addNode(b.m, "Add", "add", {"x", "k"}, {"y0"});
          }};
}
Fixture topK() {
  return {{2, 3, 4}, 0, {{Proto::FLOAT, 3}, {Proto::INT64, 3}}, [](Builder& b, int64_t opset) {
            if (opset < 10) return attr(b.node("TopK", {"x"}, {"y0", "y1"}), "k", 2);
            b.i64("k", {1}, {2});
            b.node("TopK", {"x", "k"}, {"y0", "y1"});
          }};
}

const std::map<std::string, Fixture>& fixtures() {
  static const std::map<std::string, Fixture> table = [] {
    std::map<std::string, Fixture> t;
    for (const char* op : {"ArgMax", "ArgMin"}) t[op] = unaryAxis(op, Proto::INT64, 3);
    for (const char* op : {"Hardmax", "LogSoftmax", "Softmax"}) t[op] = unaryAxis(op, Proto::FLOAT, 3);
    for (const char* op : {"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean",
                           "ReduceMin", "ReduceProd", "ReduceSum", "ReduceSumSquare"})
      t[op] = reduce(op);
    for (const char* op : {"AveragePool", "MaxPool"}) t[op] = pool(op);
    for (const char* op : {"Max", "Min", "Mean", "Sum"}) t[op] = variadic(op);
    for (const char* op : {"Greater", "Less"}) t[op] = compare(op);
    t["Constant"] = constant();
    t["TopK"] = topK();
    t["BatchNormalization"] = {{1, 2, 3, 3}, 0, {{Proto::FLOAT, 4}}, [](Builder& b, int64_t) {
                                 b.f32("s", {2}, {1.5f, 0.5f});
                                 b.f32("bias", {2}, {0.1f, -0.1f});
                                 b.f32("mean", {2}, {0.2f, -0.3f});
                                 b.f32("var", {2}, {2.0f, 0.5f});
                                 b.node("BatchNormalization", {"x", "s", "bias", "mean", "var"}, {"y0"});
                               }};
    t["Cast"] = {{2, 3, 4}, 0, {{Proto::INT32, 3}}, [](Builder& b, int64_t) {
                   attr(b.node("Cast", {"x"}, {"y0"}), "to", int64_t{Proto::INT32});
                 }};
    t["Clip"] = {{2, 3, 4}, 0, {{Proto::FLOAT, 3}}, [](Builder& b, int64_t opset) {
                   if (opset >= 11) {
                     b.f32("lo", {}, {-0.2f});
                     b.f32("hi", {}, {0.3f});
                     return void(b.node("Clip", {"x", "lo", "hi"}, {"y0"}));
                   }
                   auto* n = b.node("Clip", {"x"}, {"y0"});
                   attrF(n, "min", -0.2f);
                   attrF(n, "max", 0.3f);
                 }};
    t["Concat"] = {{2, 3, 4}, 0, {{Proto::FLOAT, 3}}, [](Builder& b, int64_t) {
                     attr(b.node("Concat", {"x", "x"}, {"y0"}), "axis", 1);
                   }};
    t["Conv"] = {{1, 2, 5, 5}, 0, {{Proto::FLOAT, 4}}, [](Builder& b, int64_t) {
                   std::vector<float> w(3 * 2 * 3 * 3);
                   for (size_t i = 0; i < w.size(); ++i) w[i] = 0.05f * static_cast<float>(i % 11) - 0.2f;
                   b.f32("w", {3, 2, 3, 3}, w);
                   attr(b.node("Conv", {"x", "w"}, {"y0"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
                 }};
    t["ConvTranspose"] = {{1, 2, 3, 3}, 0, {{Proto::FLOAT, 4}}, [](Builder& b, int64_t) {
                            std::vector<float> w(2 * 3 * 2 * 2);
                            for (size_t i = 0; i < w.size(); ++i) w[i] = 0.1f * static_cast<float>(i % 5) - 0.2f;
                            b.f32("w", {2, 3, 2, 2}, w);
                            attr(b.node("ConvTranspose", {"x", "w"}, {"y0"}), "strides", std::vector<int64_t>{2, 2});
                          }};
    t["DepthToSpace"] = {{1, 4, 2, 3}, 0, {{Proto::FLOAT, 4}}, [](Builder& b, int64_t) {
                           attr(b.node("DepthToSpace", {"x"}, {"y0"}), "blocksize", 2);
                         }};
    t["Dropout"] = {{2, 3, 4}, 0, {{Proto::FLOAT, 3}}, [](Builder& b, int64_t) { b.node("Dropout", {"x"}, {"y0"}); }};
    t["Equal"] = {{2, 3, 4}, 0, {{Proto::BOOL, 3}}, [](Builder& b, int64_t) {
                    attr(addNode(b.m, "Cast", "cast", {"x"}, {"c"}), "to", int64_t{Proto::INT64});
                    b.i64("t", {4}, {0, 1, 0, 1});
                    b.node("Equal", {"c", "t"}, {"y0"});
                  }};
    t["Flatten"] = {{2, 3, 4}, 0, {{Proto::FLOAT, 2}}, [](Builder& b, int64_t) {
                      attr(b.node("Flatten", {"x"}, {"y0"}), "axis", 2);
                    }};
    t["Gather"] = {{2, 3, 4}, 0, {{Proto::FLOAT, 3}}, [](Builder& b, int64_t) {
                     b.i64("idx", {2}, {2, 0});
                     attr(b.node("Gather", {"x", "idx"}, {"y0"}), "axis", 1);
                   }};
    t["Gemm"] = {{2, 3}, 0, {{Proto::FLOAT, 2}}, [](Builder& b, int64_t) {
                   b.f32("B", {3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
                   b.f32("C", {4}, {0.5f, 0, -0.5f, 1});
                   attrF(b.node("Gemm", {"x", "B", "C"}, {"y0"}), "alpha", 0.5f);
                 }};
    t["MatMul"] = {{2, 3, 4}, 0, {{Proto::FLOAT, 3}}, [](Builder& b, int64_t) {
                     b.f32("w", {4, 2}, {1, -1, 0.5f, 2, 0, 1, -2, 0.25f});
                     b.node("MatMul", {"x", "w"}, {"y0"});
                   }};
    t["OneHot"] = {{3, 4}, 0, {{Proto::FLOAT, 2}}, [](Builder& b, int64_t) {
                     b.i64("idx", {3}, {0, 3, 1});
                     b.i64("depth", {1}, {4});
                     b.f32("values", {2}, {0, 1});
                     b.node("OneHot", {"idx", "depth", "values"}, {"h"});
                     addNode(b.m, "Add", "add", {"h", "x"}, {"y0"});
                   }};
    t["PRelu"] = {{2, 3, 4}, 0, {{Proto::FLOAT, 3}}, [](Builder& b, int64_t) {
                    b.f32("slope", {4}, {0.1f, 0.2f, 0.3f, 0.4f});
                    b.node("PRelu", {"x", "slope"}, {"y0"});
                  }};
    t["Pad"] = {{2, 3, 4}, 0, {{Proto::FLOAT, 3}}, [](Builder& b, int64_t opset) {
                  const std::vector<int64_t> pads{0, 1, 0, 0, 1, 2};
                  if (opset >= 11) {
                    b.i64("pads", {6}, pads);
                    b.f32("value", {}, {0.5f});
                    return void(b.node("Pad", {"x", "pads", "value"}, {"y0"}));
                  }
                  auto* n = b.node("Pad", {"x"}, {"y0"});
                  attr(n, "pads", pads);
                  attrF(n, "value", 0.5f);
                }};
    t["Slice"] = {{2, 3, 4}, 0, {{Proto::FLOAT, 3}}, [](Builder& b, int64_t opset) {
                    if (opset >= 10) {
                      b.i64("starts", {1}, {1});
                      b.i64("ends", {1}, {3});
                      b.i64("axes", {1}, {2});
                      return void(b.node("Slice", {"x", "starts", "ends", "axes"}, {"y0"}));
                    }
                    auto* n = b.node("Slice", {"x"}, {"y0"});
                    attr(n, "starts", std::vector<int64_t>{1});
                    attr(n, "ends", std::vector<int64_t>{3});
                    attr(n, "axes", std::vector<int64_t>{2});
                  }};
    t["Split"] = {{2, 3, 4}, 0, {{Proto::FLOAT, 3}, {Proto::FLOAT, 3}}, [](Builder& b, int64_t) {
                    auto* n = b.node("Split", {"x"}, {"y0", "y1"});
                    attr(n, "axis", 2);
                    attr(n, "split", std::vector<int64_t>{1, 3});
                  }};
    t["Squeeze"] = {{2, 1, 4}, 0, {{Proto::FLOAT, 2}}, [](Builder& b, int64_t) {
                      attr(b.node("Squeeze", {"x"}, {"y0"}), "axes", std::vector<int64_t>{1});
                    }};
    t["Unsqueeze"] = {{2, 3, 4}, 0, {{Proto::FLOAT, 4}}, [](Builder& b, int64_t) {
                        attr(b.node("Unsqueeze", {"x"}, {"y0"}), "axes", std::vector<int64_t>{0});
                      }};
    // Resize-10 (X, scales) against opset 11's asymmetric, nearest-floor form.
    t["Resize"] = {{1, 1, 2, 3}, 0, {{Proto::FLOAT, 4}}, [](Builder& b, int64_t opset) {
                     b.f32("scales", {4}, {1, 1, 2, 2});
                     if (opset < 11) return attrS(b.node("Resize", {"x", "scales"}, {"y0"}), "mode", "nearest");
                     b.f32("roi", {0}, {});
                     auto* n = b.node("Resize", {"x", "roi", "scales"}, {"y0"});
                     attrS(n, "mode", "nearest");
                     attrS(n, "coordinate_transformation_mode", "asymmetric");
                     attrS(n, "nearest_mode", "floor");
                   }};
    // Upsample-9 (X, scales) against Resize-11's asymmetric, nearest-floor form.
    t["Upsample"] = {{1, 1, 2, 3}, 0, {{Proto::FLOAT, 4}}, [](Builder& b, int64_t opset) {
                       b.f32("scales", {4}, {1, 1, 2, 2});
                       if (opset < 11) return attrS(b.node("Upsample", {"x", "scales"}, {"y0"}), "mode", "nearest");
                       b.f32("roi", {0}, {});
                       auto* n = b.node("Resize", {"x", "roi", "scales"}, {"y0"});
                       attrS(n, "mode", "nearest");
                       attrS(n, "coordinate_transformation_mode", "asymmetric");
                       attrS(n, "nearest_mode", "floor");
                     }};
    // Scatter-9 against ScatterElements along axis 1.
    t["Scatter"] = {{2, 4}, 0, {{Proto::FLOAT, 2}}, [](Builder& b, int64_t opset) {
                      b.i64("idx", {2, 2}, {3, 0, 2, 1});
                      b.f32("upd", {2, 2}, {10, 20, 30, 40});
                      attr(b.node(opset < 11 ? "Scatter" : "ScatterElements", {"x", "idx", "upd"}, {"y0"}), "axis", 1);
                    }};
    return t;
  }();
  return table;
}

::onnx::ModelProto build(const Fixture& f, int64_t opset) {
  auto m = test::makeModel(opset);
  auto* x = m.mutable_graph()->add_input();
  test::addTensorValue(x, "x", Proto::FLOAT, f.xShape);
  for (size_t k = 0; k < f.outputs.size(); ++k) {
    auto* y = m.mutable_graph()->add_output();
    y->set_name("y" + std::to_string(k));
    auto* tt = y->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(f.outputs[k].first);
    for (int d = 0; d < f.outputs[k].second; ++d) tt->mutable_shape()->add_dim()->set_dim_param("y" + std::to_string(k) + "_" + std::to_string(d));
  }
  Builder b{m};
  f.add(b, opset);
  return m;
}

Expected<std::vector<ir::Tensor>> run(const ::onnx::ModelProto& m, const ir::Tensor& x) {
  std::string bytes;
  m.SerializeToString(&bytes);
  auto g = dfc::onnx::importOnnxBytes(bytes, ".", "m.onnx");
  if (!g) return g.error();
  auto pef = driver::compileGraphForInference(std::move(*g));
  if (!pef) return pef.error();
  return driver::runInference(*pef, {x});
}

double at(const ir::Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case ir::DType::F32: return t.data<float>()[i];
    case ir::DType::I64: return static_cast<double>(t.data<int64_t>()[i]);
    case ir::DType::I32: return t.data<int32_t>()[i];
    case ir::DType::Bool: return t.data<bool>()[i];
  }
  return 0;
}

}  // namespace

TEST_CASE("every older operator version in the table imports and equals its opset 11 form") {
  for (const auto& row : dfc::onnx::olderOpVersions()) {
    const int64_t opset = std::max(7, row.version);
    INFO(row.op << "-" << row.version << " at opset " << opset << " (" << row.change << ")");
    auto f = fixtures().find(row.op);
    REQUIRE(f != fixtures().end());
    ir::Tensor x(ir::TensorType{ir::DType::F32, f->second.xShape});
    for (int64_t i = 0; i < x.numElements(); ++i)
      x.data<float>()[i] = 0.25f * static_cast<float>((i * 5) % 9) - 0.9f + f->second.offset;
    auto old = run(build(f->second, opset), x);
    INFO((old ? "" : old.error().message()));
    REQUIRE(old);
    auto native = run(build(f->second, 11), x);
    INFO((native ? "" : native.error().message()));
    REQUIRE(native);
    REQUIRE(old->size() == native->size());
    for (size_t k = 0; k < old->size(); ++k) {
      REQUIRE((*old)[k].type() == (*native)[k].type());
      for (int64_t i = 0; i < (*old)[k].numElements(); ++i) CHECK(at((*old)[k], i) == Approx(at((*native)[k], i)));
    }
  }
}

TEST_CASE("Resize-10 is nearest-floor upsampling on asymmetric coordinates") {
  const Fixture& f = fixtures().at("Resize");
  ir::Tensor x(ir::TensorType{ir::DType::F32, {1, 1, 2, 3}});
  for (int64_t i = 0; i < 6; ++i) x.data<float>()[i] = static_cast<float>(i);
  auto y = run(build(f, 10), x);
  INFO((y ? "" : y.error().message()));
  REQUIRE(y);
  REQUIRE(y->front().shape() == ir::Shape{1, 1, 4, 6});
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t c = 0; c < 6; ++c) CHECK(y->front().data<float>()[r * 6 + c] == static_cast<float>((r / 2) * 3 + c / 2));
}

TEST_CASE("Upsample-9 repeats each pixel and Scatter-9 replaces the indexed elements along its axis") {
  ir::Tensor x(ir::TensorType{ir::DType::F32, {1, 1, 2, 3}});
  for (int64_t i = 0; i < 6; ++i) x.data<float>()[i] = static_cast<float>(i);
  auto up = run(build(fixtures().at("Upsample"), 9), x);
  INFO((up ? "" : up.error().message()));
  REQUIRE(up);
  REQUIRE(up->front().shape() == ir::Shape{1, 1, 4, 6});
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t c = 0; c < 6; ++c)
      CHECK(up->front().data<float>()[r * 6 + c] == static_cast<float>((r / 2) * 3 + c / 2));
  ir::Tensor d(ir::TensorType{ir::DType::F32, {2, 4}});
  for (int64_t i = 0; i < 8; ++i) d.data<float>()[i] = static_cast<float>(i);
  auto sc = run(build(fixtures().at("Scatter"), 10), d);
  INFO((sc ? "" : sc.error().message()));
  REQUIRE(sc);
  // Row 0: 10 to column 3, 20 to column 0; row 1: 30 to column 2, 40 to column 1.
  const std::vector<float> want{20, 1, 2, 10, 4, 40, 30, 7};
  for (int64_t i = 0; i < 8; ++i) CHECK(sc->front().data<float>()[i] == want[static_cast<size_t>(i)]);
}

TEST_CASE("an older version that differs is refused naming the version and the difference") {
  Fixture bn = fixtures().at("BatchNormalization");
  auto m = build(bn, 7);
  attr(m.mutable_graph()->mutable_node(0), "spatial", 0);
  std::string bytes;
  m.SerializeToString(&bytes);
  auto g = dfc::onnx::importOnnxBytes(bytes, ".", "bn7.onnx");
  REQUIRE_FALSE(g);
  CHECK(g.error().message() ==
        "bn7.onnx: node 'BatchNormalization_0' (BatchNormalization, opset 7): BatchNormalization is version 7 at opset 7, "
        "where spatial=0 (statistics per activation) was dropped in version 9: dfc implements version 9 (re-export "
        "with opset 11 or newer)");
}
