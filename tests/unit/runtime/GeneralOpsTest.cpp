// The general ops' kernels (kernels/General*.cpp) against the independent
// reference (ReferenceGeneral.cpp): every fn, dtype, broadcasting pattern and
// window attribute the ONNX importer can produce, plus a few hand-checked values.
#include <catch2/catch.hpp>

#include <cstring>

#include "RuntimeTestUtil.h"
#include "ir/ShapeInference.h"
#include "runtime/Kernels.h"
#include "runtime/Reference.h"

using namespace dfc;
using namespace dfc::runtime::test;
using ir::DType;
using ir::OpKind;

namespace {

using Ints = std::vector<int64_t>;

ir::Tensor intTensor(ir::Shape shape, std::mt19937& rng, int64_t lo, int64_t hi, DType dt = DType::I64) {
  ir::Tensor t(ir::TensorType{dt, std::move(shape)});
  std::uniform_int_distribution<int64_t> dist(lo, hi);
  for (int64_t i = 0; i < t.numElements(); ++i) {
    const int64_t v = dist(rng);
    if (dt == DType::I64) t.data<int64_t>()[i] = v;
    else if (dt == DType::I32) t.data<int32_t>()[i] = static_cast<int32_t>(v);
    else t.data<bool>()[i] = (v & 1) != 0;
  }
  return t;
}

ir::Tensor boolTensor(ir::Shape shape, std::mt19937& rng) { return intTensor(std::move(shape), rng, 0, 1, DType::Bool); }

// Small whole numbers as f32, so comparisons see ties.
ir::Tensor wholeFloats(ir::Shape shape, std::mt19937& rng) {
  ir::Tensor t(ir::TensorType{DType::F32, std::move(shape)});
  std::uniform_int_distribution<int> dist(-3, 3);
  for (float& v : t.span<float>()) v = static_cast<float>(dist(rng));
  return t;
}

struct Result {
  ir::Tensor kernel, reference;
};

// Runs one node through runKernel and referenceEvaluate.
Result runBoth(OpKind op, const std::vector<ir::Tensor>& ins, const ir::Attributes& attrs) {
  ir::Graph g;
  std::map<ir::ValueId, ir::Tensor> feeds;
  std::vector<ir::ValueId> ids;
  for (size_t i = 0; i < ins.size(); ++i) {
    ids.push_back(g.addInput("in" + std::to_string(i), ins[i].type()));
    feeds[ids.back()] = ins[i];
  }
  ir::Node probe;
  probe.op = op;
  probe.name = "probe";
  probe.inputs = ids;
  probe.attrs = attrs;
  auto types = ir::inferOutputTypes(g, probe);
  INFO((types.ok() ? std::string() : types.error().message()));
  REQUIRE(types.ok());
  ir::ValueId out = g.addValue("out", (*types)[0], ir::ValueKind::Intermediate);
  g.addNode(op, "node", ids, {out}, attrs);
  auto ref = runtime::referenceEvaluate(g, feeds);
  INFO((ref.ok() ? std::string() : ref.error().message()));
  REQUIRE(ref.ok());
  Result r{ir::Tensor((*types)[0]), ref->at(out)};
  std::vector<const ir::Tensor*> inPtrs;
  for (const auto& t : ins) inPtrs.push_back(&t);
  std::vector<ir::Tensor*> outPtrs{&r.kernel};
  Status s = runtime::runKernel(g.nodes[0], inPtrs, outPtrs);
  INFO((s.ok() ? std::string() : s.error().message()));
  REQUIRE(s.ok());
  return r;
}

std::string describe(OpKind op, const std::vector<ir::Tensor>& ins, const ir::Attributes& attrs) {
  std::string s = std::string(ir::opName(op));
  for (const auto& [k, v] : attrs) {
    s += " " + k + "=";
    if (auto str = std::get_if<std::string>(&v)) s += *str;
    else if (auto i = std::get_if<int64_t>(&v)) s += std::to_string(*i);
    else if (auto d = std::get_if<double>(&v)) s += std::to_string(*d);
    else if (auto is = std::get_if<std::vector<int64_t>>(&v)) {
      s += "[";
      for (int64_t x : *is) s += std::to_string(x) + ",";
      s += "]";
    }
  }
  for (const auto& t : ins) s += " " + t.type().toString();
  return s;
}

// Kernel equals reference: f32 within 1e-5 relative (NaN matches NaN), other dtypes exactly.
void check(OpKind op, const std::vector<ir::Tensor>& ins, const ir::Attributes& attrs = {}) {
  INFO(describe(op, ins, attrs));
  Result r = runBoth(op, ins, attrs);
  REQUIRE(r.kernel.type() == r.reference.type());
  if (r.kernel.dtype() != DType::F32) {
    CHECK(std::memcmp(r.kernel.bytes(), r.reference.bytes(), r.kernel.byteSize()) == 0);
    return;
  }
  int bad = 0;
  std::string first;
  for (int64_t i = 0; i < r.kernel.numElements(); ++i) {
    const double k = r.kernel.data<float>()[i], e = r.reference.data<float>()[i];
    const bool same = (std::isnan(k) && std::isnan(e)) || k == e ||
                      std::abs(k - e) <= 1e-5 * std::max(1.0, std::abs(e));
    if (!same && bad++ == 0) first = "element " + std::to_string(i) + ": kernel " + std::to_string(k) + " vs reference " +
                                     std::to_string(e);
  }
  INFO(first);
  CHECK(bad == 0);
}

ir::Attributes fnAttrs(const std::string& fn) { return {{"fn", fn}}; }

}  // namespace

TEST_CASE("general unary kernels match the reference for every fn", "[kernels][general]") {
  std::mt19937 rng(11);
  struct Fn {
    const char* name;
    float lo = -1, hi = 1;
    double alpha = 0, beta = 0;
  };
  const std::vector<Fn> fns = {{"sqrt", 0.01f, 4},
                               {"exp", -3, 3},
                               {"log", 0.01f, 4},
                               {"tanh", -3, 3},
                               {"erf", -3, 3},
                               {"neg", -3, 3},
                               {"reciprocal", 0.1f, 3},
                               {"abs", -3, 3},
                               {"sigmoid", -6, 6},
                               {"relu", -3, 3},
                               {"leaky_relu", -3, 3, 0.01},
                               {"elu", -3, 3, 1.0},
                               {"selu", -3, 3, 1.6732632, 1.0507010},
                               {"celu", -3, 3, 0.7},
                               {"clip", -3, 3, -0.5, 1.5},
                               {"hard_sigmoid", -6, 6, 0.2, 0.5},
                               {"hard_swish", -6, 6},
                               {"softplus", -5, 5},
                               {"softsign", -5, 5},
                               {"mish", -4, 4},
                               {"gelu_erf", -4, 4},
                               {"silu", -8, 8},
                               {"thresholded_relu", -3, 3, 1.0},
                               {"shrink", -3, 3, 0.5, 0.25},
                               {"floor", -3, 3},
                               {"ceil", -3, 3},
                               {"round", -3, 3},
                               {"sign", -3, 3},
                               {"sin", -4, 4},
                               {"cos", -4, 4},
                               {"tan", -1.2f, 1.2f},
                               {"asin", -0.99f, 0.99f},
                               {"acos", -0.99f, 0.99f},
                               {"atan", -4, 4},
                               {"sinh", -3, 3},
                               {"cosh", -3, 3},
                               {"asinh", -4, 4},
                               {"acosh", 1.01f, 4},
                               {"atanh", -0.95f, 0.95f},
                               {"round_f16", -3, 3},
                               {"round_bf16", -3, 3}};
  for (const Fn& f : fns)
    for (ir::Shape s : {ir::Shape{}, ir::Shape{7}, ir::Shape{2, 3, 5}})
      check(OpKind::Unary, {randomTensor(s, rng, f.lo, f.hi)},
            {{"fn", std::string(f.name)}, {"alpha", f.alpha}, {"beta", f.beta}});
  // Exact halves and zeros, where round, sign and the kinks live.
  ir::Tensor edges = f32Tensor({10}, {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 0.0f, -0.0f, 0.49f, 3.5f});
  for (const char* fn : {"round", "sign", "floor", "ceil", "relu", "abs", "thresholded_relu", "shrink"})
    check(OpKind::Unary, {edges}, {{"fn", std::string(fn)}, {"alpha", 0.5}, {"beta", 0.1}});
  check(OpKind::Unary, {boolTensor({3, 4}, rng)}, fnAttrs("not"));
  check(OpKind::Unary, {intTensor({3, 4}, rng, -9, 9)}, fnAttrs("identity"));
}

TEST_CASE("unary round goes half to even", "[kernels][general]") {
  Result r = runBoth(OpKind::Unary, {f32Tensor({5}, {-1.5f, -0.5f, 0.5f, 1.5f, 2.5f})}, fnAttrs("round"));
  const std::vector<float> want{-2, -0.0f, 0, 2, 2};
  for (size_t i = 0; i < want.size(); ++i) {
    CHECK(r.kernel.data<float>()[i] == want[i]);
    CHECK(r.reference.data<float>()[i] == want[i]);
  }
}

TEST_CASE("general binary kernels match the reference with numpy broadcasting", "[kernels][general]") {
  std::mt19937 rng(12);
  const std::vector<std::pair<ir::Shape, ir::Shape>> patterns = {
      {{3, 4}, {3, 4}},
      {{2, 3, 4}, {4}},
      {{3, 1}, {1, 4}},
      {{}, {2, 3}},
      {{2, 1, 4}, {3, 1}},
      {{5}, {}},
      // the flat paths: as many elements as the output (leading 1s), or one element of any rank
      {{1, 3, 4}, {3, 4}},
      {{3, 4}, {1, 1, 4}},
      {{1}, {2, 3}},
      {{2, 3}, {1, 1}},
      {{1, 1}, {1}},
      {{4099}, {}}};
  for (const auto& [sa, sb] : patterns) {
    for (const char* fn : {"add", "sub", "mul", "div", "max", "min"})
      check(OpKind::Binary, {randomTensor(sa, rng, -3, 3), randomTensor(sb, rng, 0.2f, 3)}, fnAttrs(fn));
    check(OpKind::Binary, {randomTensor(sa, rng, 0.1f, 3), randomTensor(sb, rng, -2, 2)}, fnAttrs("pow"));
    for (const char* fn : {"mod", "fmod"}) {
      check(OpKind::Binary, {randomTensor(sa, rng, -5, 5), randomTensor(sb, rng, 0.3f, 2)}, fnAttrs(fn));
      check(OpKind::Binary, {randomTensor(sa, rng, -5, 5), randomTensor(sb, rng, -2, -0.3f)}, fnAttrs(fn));
    }
    for (DType dt : {DType::I64, DType::I32})
      for (const char* fn : {"add", "sub", "mul", "div", "max", "min", "mod", "fmod", "pow"})
        check(OpKind::Binary, {intTensor(sa, rng, -9, 9, dt), intTensor(sb, rng, -4, 4, dt)}, fnAttrs(fn));
    for (const char* fn : {"equal", "less", "greater", "less_equal", "greater_equal"}) {
      check(OpKind::Binary, {wholeFloats(sa, rng), wholeFloats(sb, rng)}, fnAttrs(fn));
      check(OpKind::Binary, {intTensor(sa, rng, -2, 2), intTensor(sb, rng, -2, 2)}, fnAttrs(fn));
    }
    for (const char* fn : {"and", "or", "xor", "equal"})
      check(OpKind::Binary, {boolTensor(sa, rng), boolTensor(sb, rng)}, fnAttrs(fn));
  }
  // NaN propagates through max and min.
  ir::Tensor nan = f32Tensor({2}, {std::nanf(""), 1.0f});
  check(OpKind::Binary, {nan, f32Tensor({2}, {0.0f, std::nanf("")})}, fnAttrs("max"));
  check(OpKind::Binary, {nan, f32Tensor({2}, {0.0f, std::nanf("")})}, fnAttrs("min"));
}

TEST_CASE("binary mod takes the divisor's sign, fmod the dividend's", "[kernels][general]") {
  ir::Tensor a(ir::TensorType{DType::I64, {4}}), b(ir::TensorType{DType::I64, {4}});
  const int64_t av[] = {7, -7, 7, -7}, bv[] = {3, 3, -3, -3};
  std::copy(av, av + 4, a.data<int64_t>());
  std::copy(bv, bv + 4, b.data<int64_t>());
  Result mod = runBoth(OpKind::Binary, {a, b}, fnAttrs("mod"));
  Result fmod = runBoth(OpKind::Binary, {a, b}, fnAttrs("fmod"));
  const int64_t wantMod[] = {1, 2, -2, -1}, wantFmod[] = {1, -1, 1, -1};
  for (int i = 0; i < 4; ++i) {
    CHECK(mod.kernel.data<int64_t>()[i] == wantMod[i]);
    CHECK(mod.reference.data<int64_t>()[i] == wantMod[i]);
    CHECK(fmod.kernel.data<int64_t>()[i] == wantFmod[i]);
    CHECK(fmod.reference.data<int64_t>()[i] == wantFmod[i]);
  }
}

TEST_CASE("where, cast and expand kernels match the reference", "[kernels][general]") {
  std::mt19937 rng(13);
  check(OpKind::Where, {boolTensor({3, 4}, rng), randomTensor({3, 4}, rng), randomTensor({3, 4}, rng)});
  check(OpKind::Where, {boolTensor({3, 1}, rng), randomTensor({1, 4}, rng), randomTensor({}, rng)});
  check(OpKind::Where, {boolTensor({4}, rng), intTensor({2, 3, 1}, rng, -5, 5), intTensor({3, 4}, rng, -5, 5)});
  check(OpKind::Where, {boolTensor({2, 1, 1}, rng), boolTensor({1, 3}, rng), boolTensor({2, 1, 3}, rng)});

  ir::Tensor f = randomTensor({3, 5}, rng, -4, 4);
  f.data<float>()[0] = 0.0f;
  f.data<float>()[1] = -0.7f;
  for (const char* to : {"f32", "i64", "i32", "bool"}) {
    ir::Attributes a{{"to", std::string(to)}};
    check(OpKind::Cast, {f}, a);
    check(OpKind::Cast, {intTensor({3, 5}, rng, -3, 3)}, a);
    check(OpKind::Cast, {intTensor({3, 5}, rng, -3, 3, DType::I32)}, a);
    check(OpKind::Cast, {boolTensor({3, 5}, rng)}, a);
  }

  check(OpKind::Expand, {randomTensor({3, 1}, rng)}, {{"shape", Ints{2, 3, 4}}});
  check(OpKind::Expand, {randomTensor({4}, rng)}, {{"shape", Ints{3, 1}}});
  check(OpKind::Expand, {randomTensor({2, 1, 3}, rng)}, {{"shape", Ints{2, 4, 1}}});
  check(OpKind::Expand, {randomTensor({}, rng)}, {{"shape", Ints{2, 2}}});
  check(OpKind::Expand, {intTensor({1, 3}, rng, -5, 5)}, {{"shape", Ints{4, 3}}});
}

TEST_CASE("general reduce kernels match the reference for every fn, axes and keepdims", "[kernels][general]") {
  std::mt19937 rng(14);
  const std::vector<Ints> axesSets = {{}, {0}, {1}, {2}, {0, 2}, {1, 2}, {0, 1, 2}};
  for (const char* fn : {"sum", "mean", "max", "min", "prod", "l1", "l2", "sum_square", "log_sum_exp", "log_sum"})
    for (const Ints& axes : axesSets)
      for (int64_t keep : {0, 1}) {
        const bool positive = std::string(fn) == "log_sum";
        check(OpKind::Reduce, {randomTensor({2, 3, 4}, rng, positive ? 0.1f : -2, 2)},
              {{"fn", std::string(fn)}, {"axes", axes}, {"keepdims", keep}});
      }
  check(OpKind::Reduce, {randomTensor({5}, rng)}, {{"fn", std::string("sum")}, {"axes", Ints{0}}, {"keepdims", int64_t{0}}});
}

TEST_CASE("concat, gather and strided_slice kernels match the reference", "[kernels][general]") {
  std::mt19937 rng(15);
  for (int64_t axis = 0; axis < 3; ++axis) {
    auto part = [&](int64_t len) {
      ir::Shape s{2, 3, 4};
      s[static_cast<size_t>(axis)] = len;
      return randomTensor(s, rng);
    };
    check(OpKind::Concat, {part(1), part(3), part(2)}, {{"axis", axis}});
    check(OpKind::Concat, {part(2)}, {{"axis", axis}});
  }
  check(OpKind::Concat, {intTensor({2, 2}, rng, 0, 9), intTensor({2, 3}, rng, 0, 9)}, {{"axis", int64_t{1}}});

  ir::Tensor x = randomTensor({4, 5, 6}, rng);
  for (int64_t axis = 0; axis < 3; ++axis) {
    const int64_t len = x.shape()[static_cast<size_t>(axis)];
    check(OpKind::Gather, {x, intTensor({2, 3}, rng, -len, len - 1)}, {{"axis", axis}});
    check(OpKind::Gather, {x, intTensor({3}, rng, -len, len - 1, DType::I32)}, {{"axis", axis}});
    check(OpKind::Gather, {x, intTensor({}, rng, -len, len - 1)}, {{"axis", axis}});
  }
  check(OpKind::Gather, {intTensor({5, 2}, rng, -9, 9), intTensor({4}, rng, 0, 4)}, {{"axis", int64_t{0}}});

  struct Slice {
    Ints starts, ends, steps;
  };
  for (const Slice& s : {Slice{{0, 0, 0}, {4, 5, 6}, {1, 1, 1}}, Slice{{1, 0, 2}, {3, 5, 6}, {1, 2, 3}},
                         Slice{{3, 4, 5}, {-1, -1, -1}, {-1, -1, -1}}, Slice{{3, 1, 5}, {0, 5, -1}, {-2, 3, -4}},
                         Slice{{2, 2, 0}, {2, 3, 6}, {1, 1, 5}}})
    check(OpKind::StridedSlice, {x}, {{"starts", s.starts}, {"ends", s.ends}, {"steps", s.steps}});
  check(OpKind::StridedSlice, {intTensor({6}, rng, 0, 9)}, {{"starts", Ints{5}}, {"ends", Ints{0}}, {"steps", Ints{-2}}});
}

TEST_CASE("general conv matches the reference over groups, dilations, pads and strides", "[kernels][general][conv]") {
  std::mt19937 rng(16);
  struct Case {
    ir::Shape x, w;
    int64_t group;
    Ints strides, pads, dilations;
  };
  for (const Case& c : {Case{{1, 2, 5, 5}, {3, 2, 3, 3}, 1, {1, 1}, {0, 0, 0, 0}, {1, 1}},
                        Case{{2, 4, 7, 6}, {6, 2, 3, 3}, 2, {1, 1}, {1, 1, 1, 1}, {1, 1}},
                        Case{{1, 4, 8, 8}, {4, 1, 3, 3}, 4, {2, 1}, {1, 0, 2, 1}, {1, 1}},
                        Case{{2, 3, 9, 9}, {3, 1, 2, 3}, 3, {2, 2}, {0, 1, 1, 0}, {2, 3}},
                        Case{{1, 6, 7, 7}, {4, 3, 3, 2}, 2, {3, 2}, {2, 2, 0, 1}, {2, 1}}})
    check(OpKind::Conv, {randomTensor(c.x, rng), randomTensor(c.w, rng)},
          {{"strides", c.strides}, {"pads", c.pads}, {"dilations", c.dilations}, {"group", c.group}});
}

TEST_CASE("general pool matches the reference for max and avg, pads, ceil mode and dilations",
          "[kernels][general][pool]") {
  std::mt19937 rng(17);
  struct Case {
    ir::Shape x;
    Ints kernel, strides, pads, dilations;
  };
  for (const Case& c : {Case{{1, 2, 6, 6}, {2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}},
                        Case{{2, 3, 7, 5}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}},
                        Case{{1, 1, 8, 7}, {3, 2}, {2, 3}, {1, 0, 2, 1}, {1, 1}},
                        Case{{1, 2, 9, 9}, {2, 3}, {1, 2}, {0, 1, 1, 0}, {2, 2}},
                        Case{{1, 1, 5, 5}, {2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}}})
    for (const char* fn : {"max", "avg"})
      for (int64_t ceil : {0, 1})
        for (int64_t includePad : {0, 1})
          check(OpKind::Pool, {randomTensor(c.x, rng)},
                {{"fn", std::string(fn)}, {"kernel", c.kernel}, {"strides", c.strides}, {"pads", c.pads},
                 {"dilations", c.dilations}, {"ceil_mode", ceil}, {"count_include_pad", includePad}});
}

TEST_CASE("avg pool in ceil mode divides the clipped last window by its in-bounds size", "[kernels][general][pool]") {
  // 1x1x1x5, kernel 2, stride 2, ceil mode: windows [0,1], [2,3], [4] -> the last averages one element.
  ir::Tensor x = f32Tensor({1, 1, 1, 5}, {1, 2, 3, 4, 10});
  Result r = runBoth(OpKind::Pool, {x},
                     {{"fn", std::string("avg")}, {"kernel", Ints{1, 2}}, {"strides", Ints{1, 2}}, {"ceil_mode", int64_t{1}}});
  REQUIRE(r.kernel.numElements() == 3);
  const float want[] = {1.5f, 3.5f, 10.0f};
  for (int i = 0; i < 3; ++i) {
    CHECK(r.kernel.data<float>()[i] == Approx(want[i]));
    CHECK(r.reference.data<float>()[i] == Approx(want[i]));
  }
}

TEST_CASE("integer pow is exact and truncates negative exponents", "[kernels][general]") {
  ir::Tensor a(ir::TensorType{DType::I32, {5}}), b(ir::TensorType{DType::I32, {5}});
  const int32_t av[] = {2, 3, 0, -1, -3}, bv[] = {10, -2, -1, -3, 3};
  std::copy(av, av + 5, a.data<int32_t>());
  std::copy(bv, bv + 5, b.data<int32_t>());
  Result r = runBoth(OpKind::Binary, {a, b}, fnAttrs("pow"));
  const int32_t want[] = {1024, 0, 0, -1, -27};
  for (int i = 0; i < 5; ++i) {
    CHECK(r.kernel.data<int32_t>()[i] == want[i]);
    CHECK(r.reference.data<int32_t>()[i] == want[i]);
  }
}
