// Gradient rules of the general ops (GeneralRules.cpp) against central
// differences through the reference interpreter.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>

#include "GradCheck.h"

using namespace dfc;
using frontend::GraphBuilder;
using ir::OpKind;
using ir::ValueId;
using test::gradCheck;
using test::randomTensor;
using Ints = std::vector<int64_t>;

namespace {

ValueId first(const std::vector<ValueId>& outs) { return outs.empty() ? ir::kNoValue : outs[0]; }

// Distinct values spaced 0.15 apart on both sides of 0, never within 0.025 of
// a multiple of 0.05: no kink (0, +-0.5) and no tie is within the finite-difference eps.
ir::Tensor spread(const ir::Shape& shape, uint32_t seed) {
  ir::Tensor t(ir::TensorType{ir::DType::F32, shape});
  auto d = t.span<float>();
  std::vector<int> order(d.size());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937(seed));
  const float mid = static_cast<float>(d.size() / 2);
  for (size_t i = 0; i < d.size(); ++i) d[i] = 0.15f * (static_cast<float>(order[i]) - mid) + 0.025f;
  return t;
}

ir::Tensor positive(const ir::Shape& shape, uint32_t seed) {
  ir::Tensor t = randomTensor(shape, seed);
  for (float& v : t.span<float>()) v = 1.0f + 0.5f * v;
  return t;
}

ir::Tensor ints(ir::Shape shape, std::vector<int64_t> values, ir::DType dt = ir::DType::I64) {
  ir::Tensor t(ir::TensorType{dt, std::move(shape)});
  for (size_t i = 0; i < values.size(); ++i) {
    if (dt == ir::DType::I64) t.data<int64_t>()[i] = values[i];
    else t.data<int32_t>()[i] = static_cast<int32_t>(values[i]);
  }
  return t;
}

test::GradCheckResult unaryCheck(const std::string& fn, ir::Tensor x, double alpha = 0, double beta = 0) {
  return gradCheck([&](GraphBuilder& b) {
    return first(b.op(OpKind::Unary, {b.param("x", x)}, {{"fn", fn}, {"alpha", alpha}, {"beta", beta}}));
  });
}

}  // namespace

TEST_CASE("general binary gradients match finite differences, broadcasting included", "[autograd][general]") {
  const std::vector<std::pair<ir::Shape, ir::Shape>> patterns = {
      {{3, 4}, {3, 4}}, {{2, 3, 4}, {4}}, {{3, 1}, {1, 4}}, {{}, {2, 3}}, {{2, 1, 4}, {3, 1}}};
  for (const auto& [sa, sb] : patterns)
    for (const char* fn : {"add", "sub", "mul", "div", "pow", "max", "min"}) {
      INFO(fn << " " << sa.size() << "-d with " << sb.size() << "-d");
      const std::string f = fn;
      const bool pos = f == "div" || f == "pow";
      ir::Tensor a = pos ? positive(sa, 1) : spread(sa, 1);
      ir::Tensor c = f == "div" ? positive(sb, 2) : f == "pow" ? randomTensor(sb, 2) : spread(sb, 2);
      if (f == "max" || f == "min")  // 0.075 off a's grid: never a tie within eps
        for (float& v : c.span<float>()) v += 0.075f;
      requireGradientsMatch(gradCheck([&](GraphBuilder& b) {
        return first(b.op(OpKind::Binary, {b.param("a", a), b.param("b", c)}, {{"fn", f}}));
      }));
    }
}

TEST_CASE("general unary gradients match finite differences", "[autograd][general]") {
  for (const char* fn : {"identity", "neg", "exp", "tanh", "sigmoid", "erf", "sin", "cos", "softplus", "softsign",
                         "abs", "relu", "gelu_erf", "silu"}) {
    INFO(fn);
    requireGradientsMatch(unaryCheck(fn, spread({3, 4}, 3)));
  }
  for (const char* fn : {"log", "sqrt", "reciprocal"}) {
    INFO(fn);
    requireGradientsMatch(unaryCheck(fn, positive({3, 4}, 4)));
  }
  requireGradientsMatch(unaryCheck("leaky_relu", spread({3, 4}, 5), 0.1));
  requireGradientsMatch(unaryCheck("elu", spread({3, 4}, 6), 0.8));
  requireGradientsMatch(unaryCheck("selu", spread({3, 4}, 7), 1.6732632, 1.0507010));
  requireGradientsMatch(unaryCheck("clip", spread({3, 4}, 8), -0.5, 0.5));
  requireGradientsMatch(unaryCheck("hard_sigmoid", spread({3, 4}, 9), 1.0, 0.5));
}

TEST_CASE("general reduce gradients match finite differences for each fn and axes", "[autograd][general]") {
  for (const char* fn : {"sum", "mean", "sum_square", "l1", "l2", "log_sum_exp", "log_sum", "max", "min"})
    for (const Ints& axes : {Ints{0}, Ints{1, 2}, Ints{0, 2}, Ints{0, 1, 2}})
      for (int64_t keep : {0, 1}) {
        INFO(fn << " axes " << axes.size() << " keepdims " << keep);
        const std::string f = fn;
        ir::Tensor x = f == "log_sum" ? positive({2, 3, 4}, 10) : spread({2, 3, 4}, 10);
        requireGradientsMatch(gradCheck([&](GraphBuilder& b) {
          return first(b.op(OpKind::Reduce, {b.param("x", x)}, {{"fn", f}, {"axes", axes}, {"keepdims", keep}}));
        }));
      }
}

TEST_CASE("expand, concat and where gradients match finite differences", "[autograd][general]") {
  for (auto [from, to] : {std::pair{ir::Shape{3, 1}, Ints{2, 3, 4}}, std::pair{ir::Shape{4}, Ints{3, 4}},
                          std::pair{ir::Shape{2, 1, 3}, Ints{2, 4, 1}}})
    requireGradientsMatch(gradCheck([&, from = from, to = to](GraphBuilder& b) {
      return first(b.op(OpKind::Expand, {b.param("x", randomTensor(from, 11))}, {{"shape", to}}));
    }));
  for (int64_t axis : {0, 1, 2})
    requireGradientsMatch(gradCheck([&](GraphBuilder& b) {
      auto part = [&](int64_t len, uint32_t seed) {
        ir::Shape s{2, 3, 4};
        s[static_cast<size_t>(axis)] = len;
        return b.param("p" + std::to_string(seed), randomTensor(s, seed));
      };
      return first(b.op(OpKind::Concat, {part(1, 12), part(3, 13), part(2, 14)}, {{"axis", axis}}));
    }));
  requireGradientsMatch(gradCheck([](GraphBuilder& b) {
    ir::Tensor c(ir::TensorType{ir::DType::Bool, {3, 1}});
    c.data<bool>()[0] = true;
    c.data<bool>()[2] = true;
    return first(b.op(OpKind::Where, {b.constant("c", c), b.param("a", randomTensor({1, 4}, 15)),
                                      b.param("b", randomTensor({3, 4}, 16))}));
  }));
}

TEST_CASE("gather gradients scatter-add over every axis, negative and repeated indices", "[autograd][general]") {
  for (int64_t axis : {0, 1, 2}) {
    INFO("axis " << axis);
    requireGradientsMatch(gradCheck([&](GraphBuilder& b) {
      ir::Tensor idx = ints({2, 2}, {0, -1, 1, 0});  // 0 twice, -1 is the last
      return first(b.op(OpKind::Gather, {b.param("x", randomTensor({3, 4, 5}, 17)), b.constant("i", idx)},
                        {{"axis", axis}}));
    }));
    requireGradientsMatch(gradCheck([&](GraphBuilder& b) {
      return first(b.op(OpKind::Gather, {b.param("x", randomTensor({3, 4, 5}, 18)),
                                         b.constant("i", ints({}, {-2}, ir::DType::I32))},
                        {{"axis", axis}}));
    }));
  }
}

TEST_CASE("strided_slice gradients pad back over positive, negative and large steps", "[autograd][general]") {
  struct Case {
    Ints starts, ends, steps;
  };
  for (const Case& c : {Case{{1, 0, 2}, {3, 5, 6}, {1, 1, 1}}, Case{{0, 1, 0}, {4, 5, 6}, {2, 3, 4}},
                        Case{{3, 4, 5}, {-1, -1, -1}, {-1, -1, -1}}, Case{{3, 4, 4}, {0, -1, 0}, {-2, -3, -4}},
                        Case{{0, 0, 0}, {4, 5, 6}, {1, 1, 5}}})
    requireGradientsMatch(gradCheck([&](GraphBuilder& b) {
      return first(b.op(OpKind::StridedSlice, {b.param("x", randomTensor({4, 5, 6}, 19))},
                        {{"starts", c.starts}, {"ends", c.ends}, {"steps", c.steps}}));
    }));
}

TEST_CASE("general conv and pool gradients match finite differences", "[autograd][general]") {
  for (const Ints& pads : {Ints{0, 0, 0, 0}, Ints{1, 1, 1, 1}, Ints{1, 1, 0, 0}})
    for (int64_t stride : {1, 2}) {
      INFO("stride " << stride << " pads " << pads[0] << pads[1] << pads[2] << pads[3]);
      requireGradientsMatch(gradCheck([&](GraphBuilder& b) {
        return first(b.op(OpKind::Conv, {b.param("x", randomTensor({2, 2, 5, 5}, 20)), b.param("w", randomTensor({3, 2, 3, 3}, 21))},
                          {{"strides", Ints{stride, stride}}, {"pads", pads}, {"group", int64_t{1}}}));
      }));
      for (const char* fn : {"max", "avg"})
        for (int64_t includePad : {0, 1}) {
          INFO(fn << " count_include_pad " << includePad);
          requireGradientsMatch(gradCheck([&](GraphBuilder& b) {
            return first(b.op(OpKind::Pool, {b.param("x", spread({1, 2, 5, 5}, 22))},
                              {{"fn", std::string(fn)}, {"kernel", Ints{2, 3}}, {"strides", Ints{stride, stride}},
                               {"pads", pads}, {"count_include_pad", includePad}}));
          }));
        }
    }
}

TEST_CASE("pool gradients in ceil mode with a smaller end pad", "[autograd][general]") {
  // 5 wide, kernel 2, stride 2, pads begin 1 / end 0, ceil mode: 3 windows, the last one clipped.
  for (const char* fn : {"max", "avg"})
    requireGradientsMatch(gradCheck([&](GraphBuilder& b) {
      return first(b.op(OpKind::Pool, {b.param("x", spread({1, 1, 5, 5}, 25))},
                        {{"fn", std::string(fn)}, {"kernel", Ints{2, 2}}, {"strides", Ints{2, 2}},
                         {"pads", Ints{1, 1, 0, 0}}, {"ceil_mode", int64_t{1}}}));
    }));
}

TEST_CASE("general ops without a gradient fail naming the node", "[autograd][general]") {
  auto errorOf = [](OpKind op, ir::Attributes attrs, bool withWeight = false) {
    return gradCheck([&](GraphBuilder& b) {
      std::vector<ValueId> in{b.param("x", randomTensor({1, 2, 5, 5}, 23))};
      if (withWeight) in.push_back(b.param("w", randomTensor({2, 1, 3, 3}, 24)));
      return first(b.op(op, in, attrs));
    }).error;
  };
  std::string e = errorOf(OpKind::Unary, {{"fn", std::string("floor")}});
  CHECK(e.find("not differentiable") != std::string::npos);
  CHECK(e.find("unary '") != std::string::npos);
  e = errorOf(OpKind::Cast, {{"to", std::string("f32")}});
  CHECK(e.find("cast '") != std::string::npos);
  CHECK(e.find("not differentiable") != std::string::npos);
  e = errorOf(OpKind::Conv, {{"group", int64_t{2}}}, true);
  CHECK(e.find("grouped conv") != std::string::npos);
  e = errorOf(OpKind::Reduce, {{"fn", std::string("prod")}, {"axes", Ints{1}}, {"keepdims", int64_t{0}}});
  CHECK(e.find("reduce '") != std::string::npos);
}
