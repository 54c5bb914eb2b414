// TfIdfVectorizer over integer tokens (issue 33): n-gram counts worked by hand
// for every skip that fits, the gram-length window, the output column scatter
// and the three modes; malformed pools are refused naming the node.
#include <catch2/catch.hpp>

#include "OnnxModelBuilder.h"
#include "driver/compile/Inference.h"
#include "onnx/OnnxImporter.h"

using namespace dfc;

namespace {

struct TfIdfSpec {
  std::string mode = "TF";
  int64_t minGram = 1, maxGram = 2, maxSkip = 0;
  // The pool: unigram 2, then the bigrams (1,2) and (2,1); columns 2, 0, 1.
  std::vector<int64_t> counts{0, 1}, indexes{2, 0, 1}, pool{2, 1, 2, 2, 1};
  std::vector<float> weights;
  bool stringPool = false;
};

void ints(::onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

void one(::onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(v);
}

::onnx::ModelProto tfIdfModel(const TfIdfSpec& s, int elemType, const std::vector<int64_t>& dims) {
  auto m = test::makeModel(13);
  test::addTensorValue(m.mutable_graph()->add_input(), "x", elemType, dims);
  auto* out = m.mutable_graph()->add_output();
  out->set_name("y");
  auto* type = out->mutable_type()->mutable_tensor_type();
  type->set_elem_type(::onnx::TensorProto::FLOAT);
  for (size_t d = 0; d < dims.size(); ++d) type->mutable_shape()->add_dim();  // the checker wants a shape
  auto* n = test::addNode(m, "TfIdfVectorizer", "tfidf", {"x"}, {"y"});
  auto* mode = n->add_attribute();
  mode->set_name("mode");
  mode->set_type(::onnx::AttributeProto::STRING);
  mode->set_s(s.mode);
  one(n, "min_gram_length", s.minGram);
  one(n, "max_gram_length", s.maxGram);
  one(n, "max_skip_count", s.maxSkip);
  ints(n, "ngram_counts", s.counts);
  ints(n, "ngram_indexes", s.indexes);
  if (s.stringPool) {
    auto* a = n->add_attribute();
    a->set_name("pool_strings");
    a->set_type(::onnx::AttributeProto::STRINGS);
    a->add_strings("a");
  } else
    ints(n, "pool_int64s", s.pool);
  if (!s.weights.empty()) {
    auto* a = n->add_attribute();
    a->set_name("weights");
    a->set_type(::onnx::AttributeProto::FLOATS);
    for (float w : s.weights) a->add_floats(w);
  }
  return m;
}

ir::Tensor tokens(ir::DType dt, ir::Shape shape, const std::vector<int64_t>& v) {
  ir::Tensor t(ir::TensorType{dt, std::move(shape)});
  for (size_t i = 0; i < v.size(); ++i)
    if (dt == ir::DType::I32)
      t.data<int32_t>()[i] = static_cast<int32_t>(v[i]);
    else
      t.data<int64_t>()[i] = v[i];
  return t;
}

Expected<std::vector<float>> run(const TfIdfSpec& s, const ir::Tensor& x) {
  const int elem = x.dtype() == ir::DType::I32 ? ::onnx::TensorProto::INT32 : ::onnx::TensorProto::INT64;
  std::string bytes;
  tfIdfModel(s, elem, x.shape()).SerializeToString(&bytes);
  auto g = dfc::onnx::importOnnxBytes(bytes, ".", "tfidf.onnx");
  if (!g) return g.error();
  auto pef = driver::compileGraphForInference(std::move(*g));
  if (!pef) return pef.error();
  auto y = driver::runInference(*pef, {x});
  if (!y) return y.error();
  const ir::Tensor& t = (*y)[0];
  return std::vector<float>(t.data<float>(), t.data<float>() + t.numElements());
}

}  // namespace

// x = 1 2 1 2 2. Unigram 2: 3. Bigram (1,2): skip 0 at 0 and 2, skip 1 (x0,x2)..(x2,x4) once,
// skip 2 (x0,x3) once, skip 3 (x0,x4) once. Bigram (2,1): skip 0 at 1 only.
TEST_CASE("TfIdfVectorizer counts unigrams once and longer n-grams once per skip that fits") {
  const ir::Tensor x = tokens(ir::DType::I32, {5}, {1, 2, 1, 2, 2});
  TfIdfSpec s;
  auto y = run(s, x);
  REQUIRE(y);
  CHECK(*y == std::vector<float>{2, 1, 3});  // columns: (1,2), (2,1), unigram 2
  s.maxSkip = 1;
  y = run(s, x);
  REQUIRE(y);
  CHECK(*y == std::vector<float>{3, 1, 3});
  s.maxSkip = 3;  // the widest skip whose bigram fits in 5 tokens
  y = run(s, x);
  REQUIRE(y);
  CHECK(*y == std::vector<float>{5, 1, 3});
  s.maxSkip = 10;  // skips past the input's length add nothing
  y = run(s, x);
  REQUIRE(y);
  CHECK(*y == std::vector<float>{5, 1, 3});
}

// Rows 1 2 1 2 and 2 1 1 1: (1,2) twice and (2,1) once, then (2,1) once; unigram 2 twice, then once.
TEST_CASE("TfIdfVectorizer on a batch keeps gram lengths in range and weights by mode") {
  const ir::Tensor x = tokens(ir::DType::I64, {2, 4}, {1, 2, 1, 2, 2, 1, 1, 1});
  TfIdfSpec s;
  auto y = run(s, x);
  REQUIRE(y);
  CHECK(*y == std::vector<float>{2, 1, 2, 0, 1, 1});
  s.minGram = 2;  // the unigram's column stays 0
  y = run(s, x);
  REQUIRE(y);
  CHECK(*y == std::vector<float>{2, 1, 0, 0, 1, 0});
  s.maxGram = 1, s.minGram = 1;  // only the unigram
  y = run(s, x);
  REQUIRE(y);
  CHECK(*y == std::vector<float>{0, 0, 2, 0, 0, 1});
  s = TfIdfSpec{};
  s.weights = {0.5f, 2, 3};  // in pool order: unigram 2, (1,2), (2,1)
  s.mode = "TFIDF";
  y = run(s, x);
  REQUIRE(y);
  CHECK(*y == std::vector<float>{4, 3, 1, 0, 3, 0.5f});
  s.mode = "IDF";  // presence times weight
  y = run(s, x);
  REQUIRE(y);
  CHECK(*y == std::vector<float>{2, 3, 0.5f, 0, 3, 0.5f});
  s.mode = "TF";  // weights do not apply
  y = run(s, x);
  REQUIRE(y);
  CHECK(*y == std::vector<float>{2, 1, 2, 0, 1, 1});
}

TEST_CASE("TfIdfVectorizer refuses string pools and a pool that ngram_counts does not split, naming the node") {
  const ir::Tensor x = tokens(ir::DType::I32, {3}, {1, 2, 1});
  TfIdfSpec s;
  s.stringPool = true;
  auto y = run(s, x);
  REQUIRE_FALSE(y);
  CHECK_THAT(y.error().message(), Catch::Contains("node 'tfidf' (TfIdfVectorizer") && Catch::Contains("pool_strings"));
  s = TfIdfSpec{};
  s.pool = {2, 1, 2, 2};  // three tokens left for bigrams
  y = run(s, x);
  REQUIRE_FALSE(y);
  CHECK_THAT(y.error().message(), Catch::Contains("not a multiple of 2"));
  s = TfIdfSpec{};
  s.indexes = {2, 0};  // one column short
  y = run(s, x);
  REQUIRE_FALSE(y);
  CHECK_THAT(y.error().message(), Catch::Contains("ngram_indexes holds 2 entries, the pool 3 n-grams"));
}
