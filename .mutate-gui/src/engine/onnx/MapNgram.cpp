// TfIdfVectorizer over integer tokens, built from compares: for each n-gram
// length n and skip s, the n slices x[j (s+1) : j (s+1) + P] (P window starts)
// are compared against the pool's n-grams of that length, ANDed and summed over
// the starts. Unigrams are counted once (skips do not apply to them); longer
// n-grams once per skip 0..max_skip_count, as ONNX defines. A constant
// matrix then scatters the pool's counts to the output columns (ngram_indexes),
// weighted for IDF / TFIDF.
#include <algorithm>

#include "onnx/ImportContext.h"

namespace dfc::onnx {
namespace {

using ir::DType;
using ir::ValueId;

constexpr int64_t kMaxPoolEntries = 1 << 16;  // each pool n-gram adds compare nodes

// The pool's n-grams of one length n: their tokens, n per n-gram, in pool order.
struct NgramGroup {
  int64_t n = 0;
  int64_t first = 0;  // index of its first n-gram among all the pool's n-grams
  std::vector<int64_t> tokens;
  int64_t count() const { return static_cast<int64_t>(tokens.size()) / n; }
};

Expected<std::vector<NgramGroup>> poolGroups(ImportContext& c) {
  const std::vector<int64_t> starts = c.attrInts("ngram_counts"), pool = c.attrInts("pool_int64s");
  const auto poolSize = static_cast<int64_t>(pool.size());
  std::vector<NgramGroup> groups;
  int64_t first = 0;
  for (size_t i = 0; i < starts.size(); ++i) {
    const int64_t n = static_cast<int64_t>(i) + 1;
    const int64_t begin = starts[i], end = i + 1 < starts.size() ? starts[i + 1] : poolSize;
    if (begin < 0 || end < begin || end > poolSize)
      return c.error("ngram_counts must rise within pool_int64s (" + std::to_string(poolSize) + " entries)");
    if ((end - begin) % n != 0)
      return c.error("the pool's " + std::to_string(n) + "-grams hold " + std::to_string(end - begin) +
                     " tokens, not a multiple of " + std::to_string(n));
    NgramGroup g{n, first, std::vector<int64_t>(pool.begin() + begin, pool.begin() + end)};
    first += g.count();
    groups.push_back(std::move(g));
  }
  return groups;
}

// Tokens j of each n-gram in the group, as a [K] constant of the input's dtype.
ValueId tokenColumn(ImportContext& c, const NgramGroup& g, int64_t j, DType dtype) {
  ir::Tensor t(ir::TensorType{dtype, {g.count()}});
  for (int64_t k = 0; k < g.count(); ++k) {
    const int64_t v = g.tokens[static_cast<size_t>(k * g.n + j)];
    if (dtype == DType::I32)
      t.data<int32_t>()[k] = static_cast<int32_t>(v);
    else
      t.data<int64_t>()[k] = v;
  }
  return c.constant(std::move(t), "ngram_tokens");
}

// [..., K] f32: how often each n-gram of the group occurs in x's last axis with skip s.
Expected<ValueId> countWithSkip(ImportContext& c, ValueId x, const NgramGroup& g, int64_t skip) {
  const ir::Shape shape = c.shape(x);
  const int64_t axis = static_cast<int64_t>(shape.size()) - 1;
  const int64_t starts = shape.back() - (g.n - 1) * (skip + 1);
  ValueId all = ir::kNoValue;
  for (int64_t j = 0; j < g.n; ++j) {
    const int64_t from = j * (skip + 1);
    DFC_TRY_ASSIGN(part, sliceAxis(c, x, static_cast<size_t>(axis), from, from + starts, 1));
    ir::Shape column = c.shape(part);
    column.push_back(1);
    DFC_TRY_ASSIGN(tall, c.reshape(part, column));
    DFC_TRY_ASSIGN(same, c.binary("equal", tall, tokenColumn(c, g, j, c.type(x).dtype)));
    if (all == ir::kNoValue)
      all = same;
    else {
      DFC_TRY_ASSIGN(both, c.binary("and", all, same));
      all = both;
    }
  }
  DFC_TRY_ASSIGN(hits, c.cast(all, DType::F32));
  return c.emit(ir::OpKind::Reduce, {hits},
                {{"fn", std::string("sum")}, {"axes", std::vector<int64_t>{axis}}, {"keepdims", int64_t{0}}});
}

// [..., K] f32 counts of the group's n-grams over every skip that fits in x.
Expected<ValueId> countGroup(ImportContext& c, ValueId x, const NgramGroup& g, int64_t maxSkip) {
  ValueId total = ir::kNoValue;
  const int64_t length = c.shape(x).back();
  for (int64_t skip = 0; skip <= (g.n == 1 ? 0 : maxSkip); ++skip) {
    if ((g.n - 1) * (skip + 1) >= length) break;  // no window of this span fits
    DFC_TRY_ASSIGN(n, countWithSkip(c, x, g, skip));
    if (total == ir::kNoValue)
      total = n;
    else {
      DFC_TRY_ASSIGN(sum, c.binary("add", total, n));
      total = sum;
    }
  }
  if (total != ir::kNoValue) return total;
  ir::Shape zeros = c.shape(x);
  zeros.back() = g.count();
  return c.constant(ir::Tensor(ir::TensorType{DType::F32, zeros}), "no_ngrams");
}

// [pool n-grams, output columns]: n-gram k lands on column ngram_indexes[k] with
// its weight (1 for TF); n-grams outside [min_gram_length, max_gram_length] nowhere.
Expected<ir::Tensor> scatterMatrix(ImportContext& c, const std::vector<NgramGroup>& groups, int64_t total) {
  const std::vector<int64_t> indexes = c.attrInts("ngram_indexes");
  if (static_cast<int64_t>(indexes.size()) != total)
    return c.error("ngram_indexes holds " + std::to_string(indexes.size()) + " entries, the pool " +
                   std::to_string(total) + " n-grams");
  std::vector<double> weights(indexes.size(), 1.0);
  if (const auto* w = c.attr("weights"); w && c.attrString("mode", "TF") != "TF") {
    if (w->floats_size() != total) return c.error("weights must hold one value per n-gram");
    std::copy(w->floats().begin(), w->floats().end(), weights.begin());
  }
  int64_t columns = 0;
  for (int64_t i : indexes) {
    if (i < 0) return c.error("ngram_indexes holds the negative index " + std::to_string(i));
    columns = std::max(columns, i + 1);
  }
  DFC_TRY(c.checkSize(ir::TensorType{DType::F32, {total, columns}}, "n-gram scatter matrix"));
  ir::Tensor m(ir::TensorType{DType::F32, {total, columns}});
  const int64_t lo = c.attrInt("min_gram_length", 1), hi = c.attrInt("max_gram_length", 1);
  for (const auto& g : groups)
    if (g.n >= lo && g.n <= hi)
      for (int64_t k = g.first; k < g.first + g.count(); ++k)
        m.data<float>()[k * columns + indexes[static_cast<size_t>(k)]] =
            static_cast<float>(weights[static_cast<size_t>(k)]);
  return m;
}

Status checkAttributes(ImportContext& c, ValueId x) {
  if (c.attr("pool_strings")) return c.error("pool_strings (string tokens) are not supported; pool_int64s are");
  const DType dt = c.type(x).dtype;
  if (dt != DType::I32 && dt != DType::I64) return c.error("needs int32 or int64 tokens");
  if (c.rank(x) != 1 && c.rank(x) != 2) return c.error("needs a 1-D or 2-D input");
  if (c.shape(x).back() == 0) return c.error("an input of no tokens is not supported");
  const std::string mode = c.attrString("mode", "");
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF")
    return c.error("mode must be TF, IDF or TFIDF, not '" + mode + "'");
  const int64_t lo = c.attrInt("min_gram_length", 0), hi = c.attrInt("max_gram_length", 0);
  if (lo < 1 || hi < lo) return c.error("needs 1 <= min_gram_length <= max_gram_length");
  if (c.attrInt("max_skip_count", 0) < 0) return c.error("max_skip_count must not be negative");
  if (static_cast<int64_t>(c.attrInts("pool_int64s").size()) > kMaxPoolEntries)
    return c.error("a pool this large is not supported");
  return {};
}

Status mapTfIdfVectorizer(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DFC_TRY(checkAttributes(c, x));
  DFC_TRY_ASSIGN(groups, poolGroups(c));
  std::vector<ValueId> counts;
  for (const auto& g : groups) {
    if (g.count() == 0) continue;
    DFC_TRY_ASSIGN(n, countGroup(c, x, g, c.attrInt("max_skip_count", 0)));
    counts.push_back(n);
  }
  const int64_t total = groups.empty() ? 0 : groups.back().first + groups.back().count();
  if (counts.empty()) return c.error("the pool holds no n-grams");
  DFC_TRY_ASSIGN(matrix, scatterMatrix(c, groups, total));
  const int64_t axis = c.rank(x) - 1;
  DFC_TRY_ASSIGN(
      all, counts.size() == 1 ? Expected<ValueId>(counts[0]) : c.emit(ir::OpKind::Concat, counts, {{"axis", axis}}));
  if (c.attrString("mode", "TF") == "IDF") {  // presence, not frequency
    DFC_TRY_ASSIGN(present, c.binary("min", all, c.scalarF32(1.0f)));
    all = present;
  }
  DFC_TRY_ASSIGN(y, onnxMatMul(c, all, c.constant(std::move(matrix), "ngram_columns")));
  c.setOutput(0, y);
  return {};
}

}  // namespace

void registerNgramOps(OpTable& t) { t["TfIdfVectorizer"] = mapTfIdfVectorizer; }

}  // namespace dfc::onnx
