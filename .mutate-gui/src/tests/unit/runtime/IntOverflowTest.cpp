// Integer kernels follow ONNX at the edges (issue 9): INT64_MIN / -1 and
// INT64_MIN % -1 used to trap (SIGFPE) at fold and run time; add, sub, mul and
// pow overflow wrapped only by luck (undefined behaviour). Kernel and reference
// interpreter agree on every edge, in both integer widths.
#include <catch2/catch.hpp>

#include <cstring>
#include <limits>

#include "ir/ShapeInference.h"
#include "runtime/IntArith.h"
#include "runtime/Kernels.h"
#include "runtime/Reference.h"

using namespace dfc;
using ir::DType;

namespace {

template <typename T>
ir::Tensor column(const std::vector<T>& values) {
  const DType dt = std::is_same_v<T, int64_t> ? DType::I64 : DType::I32;
  ir::Tensor t(ir::TensorType{dt, {static_cast<int64_t>(values.size())}});
  for (size_t i = 0; i < values.size(); ++i) t.data<T>()[i] = values[i];
  return t;
}

// fn over a, b elementwise: the kernel's result, after checking the reference gives the same bytes.
template <typename T>
std::vector<T> both(const std::string& fn, const std::vector<T>& a, const std::vector<T>& b) {
  ir::Graph g;
  ir::Tensor ta = column(a), tb = column(b);
  ir::ValueId ia = g.addInput("a", ta.type()), ib = g.addInput("b", tb.type());
  ir::ValueId out = g.addValue("y", ta.type(), ir::ValueKind::Intermediate);
  g.addNode(ir::OpKind::Binary, "op", {ia, ib}, {out}, {{"fn", fn}});
  ir::Tensor y(ta.type());
  const ir::Tensor* ins[] = {&ta, &tb};
  ir::Tensor* outs[] = {&y};
  REQUIRE(runtime::runKernel(g.nodes[0], ins, outs));
  auto ref = runtime::referenceEvaluate(g, {{ia, ta}, {ib, tb}});
  REQUIRE(ref);
  INFO(fn);
  CHECK(std::memcmp(ref->at(out).bytes(), y.bytes(), y.byteSize()) == 0);
  return std::vector<T>(y.data<T>(), y.data<T>() + a.size());
}

template <typename T>
void checkEdges() {
  const T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  CHECK(both<T>("div", {lo, lo, 7, -7, 5}, {-1, 1, -2, 2, 0}) == std::vector<T>{lo, lo, -3, -3, 0});
  CHECK(both<T>("fmod", {lo, 7, -7, 5}, {-1, -2, 2, 0}) == std::vector<T>{0, 1, -1, 0});
  CHECK(both<T>("mod", {lo, 7, -7, 5}, {-1, -2, 2, 0}) == std::vector<T>{0, -1, 1, 0});
  CHECK(both<T>("add", {hi, lo}, {1, -1}) == std::vector<T>{lo, hi});
  CHECK(both<T>("sub", {lo, hi}, {1, -1}) == std::vector<T>{hi, lo});
  CHECK(both<T>("mul", {lo, hi}, {-1, 2}) == std::vector<T>{lo, T(-2)});
  CHECK(both<T>("pow", {2, 3, -1, 2}, {static_cast<T>(sizeof(T) * 8), hi, hi, -1}) ==
        std::vector<T>{0, runtime::onnxPow<T>(3, hi), -1, 0});
}

}  // namespace

TEST_CASE("integer division and remainder at INT_MIN / -1 do not trap and wrap as ONNX does", "[runtime][int]") {
  checkEdges<int64_t>();
  checkEdges<int32_t>();
}

TEST_CASE("integer pow by squaring answers a huge exponent at once", "[runtime][int]") {
  CHECK(runtime::onnxPow<int64_t>(3, 4) == 81);
  CHECK(runtime::onnxPow<int64_t>(-2, 63) == std::numeric_limits<int64_t>::min());
  CHECK(runtime::onnxPow<int64_t>(1, std::numeric_limits<int64_t>::max()) == 1);  // 10^18 multiplications before
}
