// The decode family's kernels (kv_cache_write, decode_attention) against the
// reference interpreter and against hand-checked cases: grouped KV heads,
// ALiBi slopes, several query rows, positions outside the cache.
#include <catch2/catch.hpp>

#include "RuntimeTestUtil.h"
#include "ir/Verifier.h"
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

// A one-node graph over fed inputs: the kernel's outputs beside the reference's.
struct DecodeCase {
  ir::Graph graph;
  std::map<ir::ValueId, ir::Tensor> feeds;
  std::vector<ir::ValueId> ins;

  void feed(const ir::Tensor& t) {
    ins.push_back(graph.addInput("x" + std::to_string(ins.size()), t.type()));
    feeds[ins.back()] = t;
  }
  const ir::Node& build(OpKind op, ir::Attributes attrs = {}) {
    addInferredNode(graph, op, "decode_op", ins, std::move(attrs));
    return graph.nodes.back();
  }
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

// kv_cache_write of random rows into a random cache at `pos`.
DecodeCase cacheWrite(std::mt19937& rng, ir::Shape cache, ir::Shape rows, int64_t pos) {
  DecodeCase c;
  c.feed(randomTensor(std::move(cache), rng));
  c.feed(randomTensor(std::move(rows), rng));
  c.feed(position(pos));
  c.build(OpKind::KvCacheWrite);
  return c;
}

// decode_attention inputs: random q and K, V caches at `pos` (its node is built by the caller).
DecodeCase attentionInputs(std::mt19937& rng, ir::Shape q, const ir::Shape& cache, int64_t pos) {
  DecodeCase c;
  c.feed(randomTensor(std::move(q), rng));
  c.feed(randomTensor(cache, rng));
  c.feed(randomTensor(cache, rng));
  c.feed(position(pos));
  return c;
}

void requireAgreement(DecodeCase& c) {
  auto k = c.kernel();
  auto r = c.reference();
  INFO((k ? std::string() : k.error().message()) << (r ? std::string() : r.error().message()));
  REQUIRE(k.ok());
  REQUIRE(r.ok());
  CHECK(maxRelDiff(*k, *r) < 1e-5);
}

}  // namespace

TEST_CASE("kv_cache_write replaces the rows at the position and keeps the others", "[decode]") {
  std::mt19937 rng(7);
  DecodeCase c = cacheWrite(rng, {2, 3, 8, 4}, {2, 3, 2, 4}, 5);
  requireAgreement(c);
  auto out = c.kernel();
  REQUIRE(out.ok());
  const ir::Tensor &cache = c.feeds.at(c.ins[0]), &rows = c.feeds.at(c.ins[1]);
  // Sequence 1, head 2: rows 5 and 6 come from the new rows, row 4 and 7 stay.
  const int64_t base = (1 * 3 + 2) * 8 * 4, newBase = (1 * 3 + 2) * 2 * 4;
  CHECK(out->data<float>()[base + 5 * 4 + 1] == rows.data<float>()[newBase + 0 * 4 + 1]);
  CHECK(out->data<float>()[base + 6 * 4 + 3] == rows.data<float>()[newBase + 1 * 4 + 3]);
  CHECK(out->data<float>()[base + 4 * 4 + 2] == cache.data<float>()[base + 4 * 4 + 2]);
  CHECK(out->data<float>()[base + 7 * 4 + 0] == cache.data<float>()[base + 7 * 4 + 0]);
}

TEST_CASE("decode_attention matches the reference with grouped KV heads, several rows and ALiBi", "[decode]") {
  std::mt19937 rng(11);
  for (bool slopes : {false, true}) {
    for (int64_t pos : {0, 3, 6}) {
      DecodeCase c = attentionInputs(rng, {2, 4, 2, 8}, {2, 2, 8, 8}, pos);  // q: 4 heads, 2 rows; 2 KV heads, 8 rows
      if (slopes) c.feed(f32Tensor({4}, {0.5f, 0.25f, 0.125f, 0.0625f}));
      c.build(OpKind::DecodeAttention, {{"scale", 0.35}});
      INFO("slopes " << slopes << ", position " << pos);
      requireAgreement(c);
    }
  }
}

TEST_CASE("decode_attention at position 0 returns the first value row", "[decode]") {
  std::mt19937 rng(3);
  DecodeCase c = attentionInputs(rng, {1, 2, 1, 4}, {1, 1, 5, 4}, 0);
  c.build(OpKind::DecodeAttention);
  auto out = c.kernel();
  REQUIRE(out.ok());
  const ir::Tensor& v = c.feeds.at(c.ins[2]);
  for (int64_t h = 0; h < 2; ++h)  // one row seen: softmax weight 1 on it, whatever q and k are
    for (int64_t d = 0; d < 4; ++d) CHECK(out->data<float>()[h * 4 + d] == Approx(v.data<float>()[d]));
}

TEST_CASE("decode ops refuse a position outside the cache, naming it", "[decode]") {
  std::mt19937 rng(5);
  DecodeCase write = cacheWrite(rng, {1, 1, 4, 2}, {1, 1, 1, 2}, 4);
  auto k = write.kernel();
  REQUIRE_FALSE(k.ok());
  CHECK_THAT(k.error().message(), Catch::Contains("position 4") && Catch::Contains("cache of 4"));
  CHECK_FALSE(write.reference().ok());

  DecodeCase attend = attentionInputs(rng, {1, 1, 1, 2}, {1, 1, 4, 2}, -1);
  attend.build(OpKind::DecodeAttention);
  CHECK_FALSE(attend.kernel().ok());
  CHECK_FALSE(attend.reference().ok());
}

TEST_CASE("decode op shape rules refuse mismatched caches and positions", "[decode]") {
  auto infer = [](OpKind op, std::vector<ir::TensorType> types) {
    ir::Graph g;
    ir::Node n;
    n.op = op;
    n.name = "n";
    for (size_t i = 0; i < types.size(); ++i) n.inputs.push_back(g.addInput("x" + std::to_string(i), types[i]));
    return ir::inferOutputTypes(g, n);
  };
  const ir::TensorType cache{ir::DType::F32, {1, 2, 8, 4}}, pos{ir::DType::I64, {1}};
  CHECK(infer(OpKind::KvCacheWrite, {cache, {ir::DType::F32, {1, 2, 1, 4}}, pos}).ok());
  CHECK_FALSE(infer(OpKind::KvCacheWrite, {cache, {ir::DType::F32, {1, 3, 1, 4}}, pos}).ok());    // heads differ
  CHECK_FALSE(infer(OpKind::KvCacheWrite, {cache, {ir::DType::F32, {1, 2, 1, 4}}, {ir::DType::I64, {}}}).ok());
  CHECK(infer(OpKind::DecodeAttention, {{ir::DType::F32, {1, 4, 1, 4}}, cache, cache, pos}).ok());
  CHECK_FALSE(infer(OpKind::DecodeAttention, {{ir::DType::F32, {1, 3, 1, 4}}, cache, cache, pos}).ok());  // 3 % 2
  CHECK_FALSE(infer(OpKind::DecodeAttention, {{ir::DType::F32, {1, 4, 1, 4}}, cache, cache, pos,
                                              {ir::DType::F32, {3}}}).ok());  // slopes per query head
}
