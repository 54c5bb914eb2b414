// The decode kernels at the cache's last rows (kv_cache_write,
// decode_attention): rows written to exactly the cache's end are kept and
// one row further is refused; a query row at position p sees exactly the
// rows 0..p, worked by hand with a zero query (uniform weights: the mean of
// the value rows it sees), for one and for several query rows per step.
#include <catch2/catch.hpp>

#include "RuntimeTestUtil.h"
#include "runtime/Kernels.h"
#include "runtime/Reference.h"

using namespace dfc;
using namespace dfc::runtime::test;
using ir::OpKind;

namespace {

ir::Tensor position(int64_t pos) {
  ir::Tensor t(ir::TensorType{ir::DType::I64, {1}});
  t.data<int64_t>()[0] = pos;
  return t;
}

struct OneOp {
  ir::Graph graph;
  std::map<ir::ValueId, ir::Tensor> feeds;
  std::vector<ir::ValueId> ins;
  void feed(const ir::Tensor& t) {
    ins.push_back(graph.addInput("x" + std::to_string(ins.size()), t.type()));
    feeds[ins.back()] = t;
  }
  void build(OpKind op, ir::Attributes attrs = {}) { addInferredNode(graph, op, "op", ins, std::move(attrs)); }
  Expected<ir::Tensor> kernel() {
    const ir::Node& node = graph.nodes.back();
    std::vector<const ir::Tensor*> in;
    for (ir::ValueId v : ins) in.push_back(&feeds.at(v));
    ir::Tensor out(graph.value(node.outputs[0]).type);
    ir::Tensor* outs[] = {&out};
    DFC_TRY(runtime::runKernel(node, in, outs));
    return out;
  }
  Expected<ir::Tensor> reference() {
    auto all = runtime::referenceEvaluate(graph, feeds);
    if (!all) return all.error();
    return all->at(graph.nodes.back().outputs[0]);
  }
};

}  // namespace

TEST_CASE("decode boundaries: kv_cache_write fills the cache to its last row, one more is refused", "[decode][boundary]") {
  std::mt19937 rng(9);
  for (int64_t rows : {1, 2, 3}) {
    const int64_t cache = 6, pos = cache - rows;
    OneOp w;
    w.feed(randomTensor({1, 2, cache, 4}, rng));
    w.feed(randomTensor({1, 2, rows, 4}, rng));
    w.feed(position(pos));
    w.build(OpKind::KvCacheWrite);
    auto out = w.kernel();
    REQUIRE(out.ok());
    auto ref = w.reference();
    REQUIRE(ref.ok());
    CHECK(maxRelDiff(*out, *ref) == 0);
    const ir::Tensor &old = w.feeds.at(w.ins[0]), &fresh = w.feeds.at(w.ins[1]);
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t r = 0; r < cache; ++r)
        for (int64_t d = 0; d < 4; ++d) {
          const float got = out->data<float>()[(h * cache + r) * 4 + d];
          const float want = r >= pos ? fresh.data<float>()[(h * rows + r - pos) * 4 + d] : old.data<float>()[(h * cache + r) * 4 + d];
          REQUIRE(got == want);
        }
    OneOp past;
    past.feed(randomTensor({1, 2, cache, 4}, rng));
    past.feed(randomTensor({1, 2, rows, 4}, rng));
    past.feed(position(pos + 1));
    past.build(OpKind::KvCacheWrite);
    CHECK_FALSE(past.kernel().ok());
    CHECK_FALSE(past.reference().ok());
  }
}

TEST_CASE("decode boundaries: a query row at position p attends to exactly rows 0..p", "[decode][boundary]") {
  std::mt19937 rng(10);
  const int64_t cache = 5, dim = 3;
  for (int64_t rows : {1, 2}) {
    for (int64_t pos = 0; pos + rows <= cache; ++pos) {
      INFO(rows << " query row(s) at position " << pos);
      OneOp a;
      a.feed(ir::Tensor(ir::TensorType{ir::DType::F32, {1, 2, rows, dim}}));  // q = 0: every score 0
      a.feed(randomTensor({1, 1, cache, dim}, rng));
      a.feed(randomTensor({1, 1, cache, dim}, rng));
      a.feed(position(pos));
      a.build(OpKind::DecodeAttention, {{"scale", 0.5}});
      auto out = a.kernel();
      REQUIRE(out.ok());
      const ir::Tensor& v = a.feeds.at(a.ins[2]);
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t t = 0; t < rows; ++t)
          for (int64_t d = 0; d < dim; ++d) {
            double mean = 0;
            for (int64_t r = 0; r <= pos + t; ++r) mean += v.data<float>()[r * dim + d];
            mean /= static_cast<double>(pos + t + 1);
            CHECK(out->data<float>()[(h * rows + t) * dim + d] == Approx(mean).margin(1e-6));
          }
      auto ref = a.reference();
      REQUIRE(ref.ok());
      CHECK(maxRelDiff(*out, *ref) < 1e-6);
    }
    OneOp past;
    past.feed(randomTensor({1, 2, rows, dim}, rng));
    past.feed(randomTensor({1, 1, cache, dim}, rng));
    past.feed(randomTensor({1, 1, cache, dim}, rng));
    past.feed(position(cache - rows + 1));
    past.build(OpKind::DecodeAttention);
    CHECK_FALSE(past.kernel().ok());
    CHECK_FALSE(past.reference().ok());
  }
}
